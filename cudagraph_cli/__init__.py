"""cgraph: rewrite TVM Relax modules so that their static kernel launches run as CUDA graphs.

The pipeline, one package a stage: `text` reads TVMScript into the IR of `ir` (lexer, grammar
driver, builder) and writes it back (printer); `ir` holds the nodes with their struct info,
well-formedness and structural equality; `passes` rewrites; `exec` runs a module on the NumPy
reference executor and verifies a rewrite; `cuda` runs it on a GPU; `report` shows a rewrite.
"""

__version__ = "0.1.0"
