"""TVMScript text in and out: the front end and the printer.

lexer.py (tokens, Python's indentation), parser.py (grammar/relax.lark's LALR tables, built
ahead by tables.py into parse_tables.json: text -> syntax tree of syntax.py), ir_builder.py
(syntax tree -> IR: where TVMScript's meaning lives, with relax_ops.py, the table of `R.*`
operators), reader.py (text -> IR: the two in order), printer.py (IR -> TVMScript text, in
either dialect).
"""
