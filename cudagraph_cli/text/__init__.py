"""TVMScript text in and out: the front end and the printer.

lexer.py (tokens, Python's indentation), parser.py (grammar/relax.lark's LALR tables, built
ahead by tables.py into parse_tables.json: text -> syntax tree of syntax.py), builder/ (syntax
tree -> IR: where TVMScript's meaning lives, one file a job, with relax_ops.py, the recorded
signatures of TVM's `R.*` operators), reader.py (text -> IR: the two in order), printer.py (IR
-> TVMScript text, in either dialect), difference.py (two modules compared, the first
difference in words).
"""
