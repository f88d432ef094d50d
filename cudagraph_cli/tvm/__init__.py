"""cgraph as a TVM pass: a drop-in for `tvm.relax.transform.RewriteCUDAGraph()`.

    from cudagraph_cli.tvm import RewriteCUDAGraph
    mod = RewriteCUDAGraph()(mod)        # under PassContext(config={"relax.backend.use_cuda_graph": True})

    from cudagraph_cli.tvm import cuda_pipeline
    ex = relax.build(mod, target="cuda", relax_pipeline=cuda_pipeline())

    from cudagraph_cli.tvm import use_in_tvm
    with use_in_tvm(min_kernels=2):      # TVM's name makes cgraph's pass: any pipeline, no edit
        ex = relax.build(mod, target="cuda")

The pass works in memory both ways: from_tvm.py reads TVM's objects into cgraph's IR (the IR
cgraph's text reader makes of `mod.script()`), the rewrite runs, to_tvm.py builds what it
changed as TVM objects and hands back the input's objects for the rest (rewrite_pass.py has the
pass; this package re-exports it). A module the in-memory reader does not read (with a
TextRouteWarning), and the wording and locating of an error (cgraph's errors point into TVM's
printing of the module), go through text instead (`rewrite_module_through_text`):
TVM prints the module, cgraph reads, rewrites and prints it, and TVM reads cgraph's text back.
TVM's printer and reader do not round-trip everything a module holds (a PrimFunc's
`layout_free_placeholders`, a module-level `TypeVar` beside a PrimFunc's own `T.int32()` of the
same name, constants printed as `metadata[...]` with the metadata left out), so only what
cgraph changed comes back from text: TVM reads stubs in place of the PrimFuncs, each PrimFunc of
the result is the original object, each constant is the original object (given to TVM's reader
as the `metadata` it omitted), each Relax function cgraph left as it was is the original
object, the module is keyed by the input's GlobalVars (the functions read from text refer to
them too), and it keeps its attrs and global infos. See docs/TVM.md.

tvm is imported only when a pass is made (the `tvm` extra: pip install '.[tvm]' in cgraph's
checkout).
"""

from __future__ import annotations

# Importing these imports no tvm: the pass imports it when it is made.
from .rewrite_pass import (
    CgraphOptionError, CgraphPassError, CgraphPassWarning, RewriteCUDAGraph, TextRouteWarning,
    TvmPassFallbackWarning, cuda_pipeline, on_a_short_stack, rewrite_module,
    rewrite_module_through_text,
)
from .use_in_tvm import run_with_cgraph, use_in_tvm

__all__ = ["CgraphOptionError", "CgraphPassError", "CgraphPassWarning", "RewriteCUDAGraph",
           "TextRouteWarning", "TvmPassFallbackWarning", "cuda_pipeline", "on_a_short_stack", "rewrite_module", "rewrite_module_through_text",
           "run_with_cgraph", "use_in_tvm"]
