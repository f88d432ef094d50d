"""cgraph: rewrite TVM Relax modules so that their static kernel launches run as CUDA graphs.

The pipeline, one module a stage: `lexer` and `parser` (grammar/relax.lark) read TVMScript
into a syntax tree, `ir_builder` gives it meaning as the IR of `ir`, `wellformed` checks it,
`printer` writes it back, and `equality` compares two modules.
"""

__version__ = "0.1.0"
