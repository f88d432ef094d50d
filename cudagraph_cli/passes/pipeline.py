"""The pipeline: rewrite(module, options) -> (module, report).

storage collector (inside the planner) -> region planner -> allocation merger -> rewriter.
The report keeps the plans and the reasons, for `--explain` and `cgraph diff`.
"""

from __future__ import annotations

import dataclasses
import gc

from dataclasses import dataclass, field

from .. import ir
from ..ir.wellformed import check_module
from .alloc_merger import MergedAlloc, merge
from .region_planner import ModulePlan, PlanOptions, Reason, plan_module
from .rewriter import Rewriter


@dataclass
class RewriteReport:
    plan: ModulePlan | None
    merged: MergedAlloc | None
    already_rewritten: bool = False
    notes: list = field(default_factory=list)

    @property
    def reasons(self) -> list[Reason]:
        return self.plan.reasons if self.plan else []


# Keyword arguments of `rewrite` that turn cgraph's corrections off: TVM 0.27's output exactly.
TVM_COMPAT = dict(options=PlanOptions(follow_getitem=False, keep_returned_defined=False,
                                      if_ends_region=False),
                  separate_live_functions=False, idempotent=False, check=False,
                  fetch_storages_early=False, force_pure=False)

FORCE_PURE = "relax.force_pure"


def is_rewritten(module: ir.Module) -> bool:
    """Does the module already launch CUDA graphs (a previous rewrite's output)?"""
    return any(launches_graphs(f) for f in module.relax_functions())


def launches_graphs(f: ir.Function) -> bool:
    """Does the function call the cuda_graph builtins (at its top level)?"""
    for block in f.blocks:
        for b in block.bindings:
            v = b.value
            if ir.builtin_called(v) in ir.CUDA_GRAPH_BUILTINS:
                return True
    return False


def force_purity(module: ir.Module, names) -> ir.Module:
    """Correction 6: the cuda_graph builtins are impure calls, and TVM's well-formedness
    check rejects them in a function that says it is pure unless `relax.force_pure` is set.
    TVM's pass expects that attribute from RemovePurityChecking and leaves a function without
    it ill-formed; cgraph sets it on each such function it rewrote (the calls are pure in
    effect: the graph's storage is private to the module)."""
    functions = []
    for f in module.functions:
        if isinstance(f, ir.Function) and f.name in names and f.is_pure and \
                not f.attr(FORCE_PURE) and launches_graphs(f):
            attrs = [(k, v) for k, v in f.attrs if k != FORCE_PURE]
            f = dataclasses.replace(f, attrs=attrs + [(FORCE_PURE, ir.Literal(True))])
        functions.append(f)
    return dataclasses.replace(module, functions=functions)


def rewrite(module: ir.Module, options: PlanOptions | None = None,
            separate_live_functions: bool = True, idempotent: bool = True,
            check: bool | str = True, fetch_storages_early: bool = True,
            force_pure: bool = True) -> tuple[ir.Module, RewriteReport]:
    """The RewriteCUDAGraph pipeline. The defaults are cgraph's; `TVM_COMPAT` (the
    corrections off) reproduces TVM 0.27 exactly, its bugs included."""
    options = options or PlanOptions()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as in parse_module: many small acyclic objects; the GC only rescans them
    try:
        return _rewrite(module, options, separate_live_functions, idempotent, check,
                        fetch_storages_early, force_pure)
    finally:
        if gc_was_enabled:
            gc.enable()


def _rewrite(module, options, separate_live_functions, idempotent, check,
             fetch_storages_early, force_pure) -> tuple[ir.Module, RewriteReport]:
    if idempotent and is_rewritten(module):
        report = RewriteReport(None, None, already_rewritten=True)
        report.notes.append("the module already launches CUDA graphs "
                            "(vm.builtin.cuda_graph.*); left as it is")
        return module, report
    plan = plan_module(module, options)
    merged = merge(plan.alloc_regions, module, separate_live_functions) \
        if plan.alloc_regions else None
    out = Rewriter(module, plan, merged, fetch_storages_early).run()
    if force_pure:
        out = force_purity(out, set(plan.planned))
    if check == "all":
        check_module(out)
    elif check:
        # The functions rewritten in place; lifted functions are closed by construction
        # (every free var of a region is one of its inputs), which the tests check in full.
        check_module(out, set(plan.planned))
    return out, RewriteReport(plan, merged)
