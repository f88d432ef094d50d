"""The pipeline: rewrite(module, options) -> (module, report).

storage collector -> region planner -> explain -> allocation merger -> rewriter, each handing
the next its result as data. The report keeps the plans and the reasons, for `--explain` and
`cgraph diff`.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import SourceError
from ..ir.wellformed import check_module
from . import storage_collector
from .alloc_merger import MergedAlloc, merge
from .explain import Reason, explain
from .options import Check, RewriteOptions
from .buckets import define_buckets, plan_buckets
from .region_planner import ModulePlan, check_capture_symbolic, plan_module
from .rewriter import Rewriter
from .stage import WrongStage, wrong_stage


@dataclass
class RewriteReport:
    plan: ModulePlan | None
    merged: MergedAlloc | None
    reasons: list[Reason] = field(default_factory=list)  # one per launch left outside
    already_rewritten: bool = False
    notes: list = field(default_factory=list)
    # The stage the input looks like it was dumped before (stage.py), when not the right one.
    stage: WrongStage | None = None
    # (Loc, message): what the command line prints as located warnings (unused_bounds).
    warnings: list = field(default_factory=list)
    # The module rewritten, for the reports that read its kernels (`--explain`'s row-wise
    # verdicts, passes/row_wise.py), which cost too much to compute for every rewrite.
    module: ir.Module | None = None
    # --capture-buckets: a buckets.FunctionBuckets per function and variable bucketed.
    buckets: list = field(default_factory=list)

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
            f = ir.replace(f, attrs=attrs + [(FORCE_PURE, ir.Literal(True))])
        functions.append(f)
    return ir.replace(module, functions=functions)


def check_no_dataflow_var_lifted(plan: ModulePlan) -> None:
    """TVM 0.27's pass raises on a module whose lifted functions would bind a dataflow var
    (a region opened in a dataflow block): its FuncBuilder emits the lifted bindings into a
    plain block ("Cannot emit dataflow var in non-dataflow block"). With correction 7 off
    (`--compat tvm`) cgraph does what TVM does: a located error where TVM fails."""
    for r in plan.kept_captures() + plan.alloc_regions:
        for b in r.bindings:
            if b.var.is_dataflow:
                lifted = "allocation" if r.kind == "alloc" else "capture"
                raise SourceError(
                    f"TVM's RewriteCUDAGraph fails here: it would lift the binding of dataflow "
                    f"var '{b.var.name}' into the {lifted} function of '{r.function}', "
                    "outside any dataflow block (TVM: \"Cannot "
                    "emit dataflow var in non-dataflow block\"); with its corrections on "
                    "(without --compat tvm) cgraph lifts nothing in a dataflow block", b.loc)


def rewrite(module: ir.Module, options: RewriteOptions | None = None
            ) -> tuple[ir.Module, RewriteReport]:
    """The RewriteCUDAGraph pipeline. The default options are cgraph's;
    `RewriteOptions.tvm_compat()` (the corrections off) reproduces TVM 0.27 exactly, its bugs
    included."""
    options = options or RewriteOptions()
    gc_was_enabled = gc.isenabled()
    gc.disable()  # as in parse_module: many small acyclic objects; the GC only rescans them
    try:
        return _rewrite(module, options)
    finally:
        if gc_was_enabled:
            gc.enable()


def _rewrite(module: ir.Module, options: RewriteOptions) -> tuple[ir.Module, RewriteReport]:
    if options.capture_symbolic or options.capture_buckets:
        check_capture_symbolic(module, options)
    if options.idempotent and is_rewritten(module):
        report = RewriteReport(None, None, already_rewritten=True)
        report.notes.append("the module already launches CUDA graphs "
                            "(vm.builtin.cuda_graph.*); left as it is")
        return module, report
    returned = storage_collector.collect(module, options.follow_getitem, options.functions)
    values = storage_collector.collect_returned_values(module, options.functions)
    plan = plan_module(module, options, returned, values)
    buckets = plan_buckets(module, plan, options)
    if not options.no_graph_in_dataflow:
        check_no_dataflow_var_lifted(plan)
    reasons = explain(module, plan, returned, options)
    merged = merge(plan.alloc_regions, module, options.separate_live_functions) \
        if plan.alloc_regions else None
    out = Rewriter(module, plan, merged, options.fetch_storages_early).run()
    out = define_buckets(out, buckets)
    stage = wrong_stage(module)
    if options.force_pure:
        out = force_purity(out, set(plan.planned))
    if options.check is Check.ALL:
        check_module(out)
    elif options.check is Check.REWRITTEN:
        check_module(out, set(plan.planned))
    report = RewriteReport(plan, merged, reasons, stage=stage,
                           warnings=unused_bounds(module, plan, options), module=module,
                           buckets=buckets)
    for warning in unplanned_symbolic(module, plan, options):
        report.warnings.append(warning)
        report.notes.append(warning[1])  # `--explain` says it too
    return out, report


def unplanned_symbolic(module: ir.Module, plan: ModulePlan, options: RewriteOptions) -> list:
    """A warning per function that has a `capture_symbolic` variable among its inputs, no
    `tir_var_upper_bound` for it, and no graph keyed by it: without the bound, memory planning
    (StaticPlanBlockMemory) sizes no storage of a shape that uses the variable, and only
    planned storage can be captured, so the option changes nothing there."""
    warnings = []
    keyed = {(r.function, s.name) for r in plan.kept_captures() for s in r.tir_vars}
    for name, most in options.capture_symbolic:
        flag = f"--capture-symbolic {name}" + (f":{most}" if most is not None else "")
        for f in module.relax_functions():
            if (options.functions is not None and f.name not in options.functions) or \
                    (f.name, name) in keyed or name in f.upper_bounds():
                continue
            if any(s.name == name for p in f.params[:f.num_input]
                   for s in ir.definable_sym_vars(p.sinfo)):
                warnings.append((f.loc, f"{flag} has no effect on {f.name}: no graph of it "
                                        f"is keyed by {name}, and it has no "
                                        f"tir_var_upper_bound for {name} (without one, memory "
                                        f"planning sizes no storage whose shape uses {name}, "
                                        "and only planned storage is captured: set the "
                                        "attribute before StaticPlanBlockMemory)"))
    return warnings


def unused_bounds(module: ir.Module, plan: ModulePlan, options: RewriteOptions) -> list:
    """A warning per function whose graphs a `--capture-symbolic VAR:MAX` keys, where MAX is not
    below VAR's tir_var_upper_bound: every call is within the bound, so the planner writes no
    guard (the graphs are bounded by the upper bound already)."""
    warnings = []
    for name, most in options.bounds.items():
        keyed = dict.fromkeys(r.function for r in plan.kept_captures()
                              if any(s.name == name for s in r.tir_vars))
        for fname in keyed:
            f = module.function(fname)
            upper = f.upper_bounds().get(name)
            if upper is not None and most >= upper:
                warnings.append((f.loc, f"--capture-symbolic {name}:{most} is not below "
                                        f"{fname}'s tir_var_upper_bound of {name}, {upper}: "
                                        "every call is within it, so no guard is written "
                                        f"(its graphs take at most {upper} values of {name})"))
    return warnings
