"""Bucketed capture (`--capture-buckets VAR:B1,...,Bn`, `VAR:auto`): a region keyed by VAR runs
in a graph keyed by the bucket `B(v)`, the least `Bi >= v`, as vLLM, SGLang and TensorRT-LLM
pad a batch to a captured size. At most n graphs a region, for every v up to Bn.

A region is bucketed when
* each kernel it launches with a VAR-sized tensor keeps VAR's rows apart (row_wise.py), and no
  kernel gets VAR as a value;
* each VAR-sized tensor it touches has VAR as its leading varying dimension (only 1s before
  it), so that its first v rows are a prefix of its first B rows, at the same address;
* each VAR-sized tensor it reads or leaves to others is carved from a storage of the graphs
  (`R.memory.alloc_tensor` of a lifted storage, through aliases and reshapes), so that the
  caller can carve it again at B rows for the graph, or at v rows for what runs eagerly.

The planned region then carries `RegionPlan.buckets`, and its guard is `VAR <= Bn` (past Bn it
runs eagerly, as a graph bounded by `--capture-symbolic VAR:MAX` does). The rewriter's graph
branch (`bucketed_branch`) becomes

    x_b = R.memory.alloc_tensor(storage, offset, R.shape([VAR_bucket, ...]), dtype)  # inputs
    g = run_or_capture((capture, (..., x_b, ...), index, R.shape([VAR_bucket])))
    y = R.memory.alloc_tensor(storage_y, offset_y, R.shape([VAR, ...]), dtype)       # outputs
    gv = (y, ...)

where `VAR_bucket` is defined once at the top of the function by
`R.match_cast(R.shape([<the least Bi >= VAR>]), R.Shape([VAR_bucket]))` (`bucket_expr`).
The capture function is unchanged: its shape parameter binds its VAR to the bucket, so every
kernel runs over B rows and every storage is carved at B rows. Eager code sees the real v rows,
views at the same offset. Pad rows hold whatever the storage held: no real row reads them,
because every kernel keeps rows apart.

A region keyed by VAR that cannot be bucketed keeps today's behaviour: an exact graph when VAR
is captured anyway (`--capture-symbolic`, or the function's capture_symbolic_vars attribute),
else its launches run eagerly (reason `not-row-wise`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import SourceError
from ..ir.sinfo import is_void, substitute, subst_prim
from .capture_safety import rule_for
from .options import AUTO, RewriteOptions, auto_buckets
from .region_planner import LeftOutside, ModulePlan, RegionPlan, launch_kind
from .row_wise import LaunchVerdicts

HINT = "relax.rewrite_cuda_graph.capture_symbolic_vars"
# The bucket list of each bucketed variable, {VAR: [B1, ..., Bn]}: what the proof checks the
# bucket's definition against (proof/facts.py, the bucket fact), not trusted by it.
BUCKETS = "relax.rewrite_cuda_graph.buckets"
VIEW_OPS = ("relax.reshape",)


@dataclass(frozen=True)
class RegionBuckets:
    """How one planned region runs at a bucket (RegionPlan.buckets)."""

    var: ir.SymVar  # the function's VAR
    bucket: ir.SymVar  # VAR_bucket, defined at the top of the function
    sizes: tuple
    # VAR-sized inputs and outputs -> the alloc_tensor call that carves them (original IR)
    inputs: dict
    outputs: dict


@dataclass
class FunctionBuckets:
    """One function's buckets for one variable, for the reports."""

    function: str
    var: str
    sizes: tuple
    bucket: ir.SymVar
    upper: int | None  # VAR's tir_var_upper_bound
    bucketed: list = field(default_factory=list)  # RegionPlan
    # (RegionPlan, reason, kept exact): the regions keyed by VAR left as they were
    not_bucketed: list = field(default_factory=list)


class BucketError(SourceError):
    """A bucket list the module cannot take (its last bucket past VAR's upper bound)."""


def plan_buckets(module: ir.Module, plan: ModulePlan, options: RewriteOptions) -> list:
    """Splits each region keyed by a bucketed variable at the bindings that cannot run at a
    bucket, marks each part that can (RegionPlan.buckets, its guard), and keeps the others as
    they were (exact graphs keyed by VAR when VAR is captured otherwise, graphs without VAR
    when they do not use it), or drops them (cause not-row-wise). Returns a FunctionBuckets per
    function and variable."""
    out = []
    for name, spec in options.capture_buckets:
        verdicts = None
        for f in module.relax_functions():
            regions = [r for r in plan.kept_captures() if r.function == f.name and
                       any(s.name == name for s in r.tir_vars)]
            if not regions:
                continue
            if verdicts is None:
                verdicts = LaunchVerdicts(module, name)
            out.append(_plan_function(module, f, plan, regions, name, spec, verdicts, options))
    if out:
        for i, r in enumerate(plan.kept_captures()):
            r.region_id = i
    return out


def _plan_function(module, f: ir.Function, plan: ModulePlan, regions: list, name: str, spec,
                   verdicts: LaunchVerdicts, options: RewriteOptions) -> FunctionBuckets:
    upper = f.upper_bounds().get(name)
    sym = next(s for s in regions[0].tir_vars if s.name == name)
    sizes = ()
    if upper is not None:
        sizes = auto_buckets(upper) if spec == AUTO else spec
        if sizes[-1] > upper:
            raise BucketError(
                f"the last bucket of {name}, {sizes[-1]}, is above {f.name}'s "
                f"tir_var_upper_bound of {name}, {upper}: its storages hold {upper} rows",
                f.loc)
    taken = {s.name for s in f.sym_vars} | {s.name for r in regions for s in r.tir_vars}
    bucket = ir.SymVar(_fresh(f"{name}_bucket", taken), sym.dtype)
    fb = FunctionBuckets(f.name, name, sizes, bucket, upper)
    captured = name in _hint_names(f) or any(n == name for n, _ in options.capture_symbolic)
    carves = _Carves(f, plan)
    for r in regions:
        if sizes:
            parts, reasons = _split(module, plan, r, sym, verdicts, options)
        else:  # no bound, no bucket list: the region stays as it was, or eager
            parts, reasons = [(r, "the function has no tir_var_upper_bound for it")], {}
        for part, reason in parts:
            if reason is None and sym in part.tir_vars:
                reason = next(filter(None, (_offset_reason(b, sym) for b in part.bindings)),
                              None)
                carved, reason = carves.carves(part, sym) if reason is None else (None, reason)
                if reason is None:
                    part.buckets = RegionBuckets(sym, bucket, sizes, *carved)
                    # Guarded by the last bucket (a --capture-symbolic bound of VAR gives way),
                    # unguarded when that is the upper bound: every call fits a graph.
                    others = tuple(g for g in part.guards if g[0] is not sym)
                    part.guards = others + ((sym, sizes[-1]),) if sizes[-1] < upper \
                        else others
                    fb.bucketed.append(part)
                    continue
            if reason is None:  # uses no VAR-sized tensor: a graph of one shape
                continue
            fb.not_bucketed.append((part, reason, captured))
            part.bucket_reason = (name, reason, reasons)
            if not captured and part.dropped is None:
                _drop(module, plan, part, "not-row-wise")
    return fb


def _drop(module, plan: ModulePlan, r: RegionPlan, cause: str) -> None:
    r.dropped = cause
    for b in r.bindings:
        if isinstance(b.value, ir.Call) and launch_kind(b.value, module) == "kernel":
            plan.outside.append(LeftOutside(r.function, b, cause, r))


def _split(module, plan: ModulePlan, r: RegionPlan, sym: ir.SymVar, verdicts: LaunchVerdicts,
           options: RewriteOptions) -> list:
    """([(part, why it cannot run at a bucket or None)], {id(binding): why}): `r` cut into runs
    of bindings that can run at a bucket and runs that cannot, each a RegionPlan (the region
    itself when it is one run), in place of `r` in the plan, with the reason of each binding
    that cannot. A run without kernel launches joins its neighbour."""
    runs: list = []
    reasons: dict = {}  # id(binding) -> why it cannot run at a bucket
    for b in r.bindings:
        why = _binding_reason(module, b, sym, verdicts)
        if why is not None:
            reasons[id(b)] = why
        if runs and (runs[-1][1] is None) == (why is None):
            runs[-1][0].append(b)
        else:
            runs.append(([b], why))
    runs = _without_kernelless_runs(module, runs)
    if len(runs) == 1:
        return [(r, runs[0][1])], reasons
    parts = []
    index = next(i for i, x in enumerate(plan.capture_regions) if x is r)
    end = 0
    for bindings, why in runs:
        end += len(bindings)
        later: set = set()
        for b in r.bindings[end:]:
            later.update(_used(plan, b)[0])
        parts.append((_part(module, plan, r, bindings, later), why))
    plan.capture_regions[index:index + 1] = [p for p, _ in parts]
    kept = []
    for part, why in parts:
        if part.kernels == 0:
            part.dropped = "no-kernel"
        elif part.kernels < options.min_kernels:
            _drop(module, plan, part, "min-kernels")
        else:
            kept.append((part, why))
    return kept, reasons


def _without_kernelless_runs(module, runs: list) -> list:
    """`runs` with each run that launches no kernel (allocations, views between two kernels
    that cannot run at a bucket) joined to the run before it, or after it when first: it
    needs no graph of its own."""
    def launches(bindings) -> bool:
        return any(isinstance(b.value, ir.Call) and launch_kind(b.value, module) == "kernel"
                   for b in bindings)

    joined: list = []
    for bindings, why in runs:
        if joined and (not launches(bindings) or not launches(joined[-1][0])):
            before, reason = joined[-1]
            joined[-1] = (before + bindings, reason if launches(before) else why)
        else:
            joined.append((list(bindings), why))
    out: list = []  # neighbours alike after the joins, joined too
    for bindings, why in joined:
        if out and (out[-1][1] is None) == (why is None):
            out[-1] = (out[-1][0] + bindings, out[-1][1])
        else:
            out.append((bindings, why))
    return out


def _part(module, plan: ModulePlan, r: RegionPlan, bindings: list, later: set) -> RegionPlan:
    """A RegionPlan of `bindings`, a run of region `r`: its inputs the vars they use and do
    not define, its outputs those they define that `r` gives out or that a later binding of
    `r` uses (`later`), its symbolic variables those of `r` they use."""
    defined = {b.var for b in bindings}
    inputs: dict = {}
    tirs: list = []
    for b in bindings:
        used, syms = _used(plan, b)
        for v in used:
            if v not in defined:
                inputs.setdefault(v, v)
        tirs.extend(syms)
        tirs.extend(_sinfo_syms(b.var.sinfo))
    for v in inputs:
        tirs.extend(_sinfo_syms(v.sinfo))
    outputs = {b.var: b.var for b in bindings if b.var in r.outputs or b.var in later}
    tir_vars = {s: s for s in r.tir_vars if any(t is s for t in tirs)}
    part = RegionPlan("capture", r.function, list(bindings), inputs, outputs, tir_vars,
                      sum(1 for b in bindings if isinstance(b.value, ir.Call) and
                          launch_kind(b.value, module) == "kernel"))
    part.guards = tuple(g for g in r.guards if g[0] in tir_vars)
    return part


def _used(plan: ModulePlan, b) -> tuple:
    vars_out: list = []
    tirs_out: list = []
    v = b.value
    if isinstance(v, ir.Call):
        plan.statics.exprs(v.args, vars_out, tirs_out)
        if isinstance(v.op, ir.Var):
            vars_out.append(v.op)
    elif isinstance(v, ir.TupleGetItem):
        plan.statics.expr(v.tuple_value, vars_out, tirs_out)
    else:
        plan.statics.expr(v, vars_out, tirs_out)
    return vars_out, tirs_out


def _sinfo_syms(s) -> list:
    out: list = []
    if s is not None:
        ir.sinfo_prim_vars(s, out)
    return out


def _binding_reason(module, b, sym: ir.SymVar, verdicts: LaunchVerdicts) -> str | None:
    """Why binding `b` cannot run at a bucket of `sym`; None when it can."""
    if _sized(b.var.sinfo, sym):
        why = _layout_reason(b.var, sym)
        if why is not None:
            return why
    call = b.value
    if not isinstance(call, ir.Call) or launch_kind(call, module) != "kernel":
        return None
    callee = ir.callee_name(call)
    for a in call.args:
        if isinstance(a, ir.Var) and _sized(a.sinfo, sym):
            why = _layout_reason(a, sym)
            if why is not None:
                return why
    if any(not isinstance(a, ir.Var) and _value_mentions(a, sym) for a in call.args):
        return f"'{callee}' is given {sym.name} as a value, which a bucket would change"
    if not any(isinstance(a, ir.Var) and _sized(a.sinfo, sym) for a in call.args):
        return None
    if not isinstance(call.op, ir.GlobalVarRef):
        return _packed_rows_reason(call, callee, sym)
    verdict = verdicts.of(call)
    if verdict is None:
        return f"'{callee}' has no TIR to read its rows from"
    if not verdict.row_wise:
        return f"kernel {callee} is not row-wise: {verdict.reason}"
    return None


def _packed_rows_reason(call: ir.Call, callee: str, sym: ir.SymVar) -> str | None:
    """Why an external function's launch cannot run at a bucket of `sym`: None when the
    capture-safety table says it works element by element (the collectives of
    capture_safety.toml with `rows = "elementwise"`) on tensors of one shape, each sized by
    `sym` (already checked to have it as their leading varying dimension)."""
    rule = rule_for(callee)
    if rule is None or rule.rows != "elementwise":
        return f"'{callee}' has no TIR to read its rows from"
    tensors = [a for a in call.args if isinstance(a, ir.Var) and
               isinstance(getattr(a.sinfo, "shape", None), tuple)]
    shapes = {tuple(map(str, a.sinfo.shape)) for a in tensors}
    if len(shapes) != 1 or not all(_sized(a.sinfo, sym) for a in tensors):
        return (f"'{callee}' works element by element, but on tensors of different shapes "
                f"here")
    return None


def _offset_reason(b, sym: ir.SymVar) -> str | None:
    """Why a view or carve `b` cannot run at a bucket: its byte offset is computed from VAR,
    so at a bucket it would start elsewhere than at the real size (the rows after it are
    not a prefix of the same bytes)."""
    memory = ir.memory_call(b.value)
    if memory is None or memory.kind not in (ir.VIEW, ir.ALLOC_TENSOR):
        return None
    offset = memory.arg("relative_byte_offset" if memory.kind == ir.VIEW else "offset")
    if offset is not None and _value_mentions(offset, sym):
        return (f"the offset of {b.var.name} is computed from {sym.name}: at a bucket it "
                "would start elsewhere")
    return None


def _hint_names(f: ir.Function) -> set:
    hints = f.attr(HINT, None)
    return set(hints[1]) if isinstance(hints, tuple) and len(hints) == 2 else set()


def _fresh(base: str, taken: set) -> str:
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}{n}"
    return name


def _mentions(e, sym: ir.SymVar) -> bool:
    return any(v.name == sym.name for v in ir.prim_vars(e))


def _sized(sinfo, sym: ir.SymVar) -> bool:
    shape = getattr(sinfo, "shape", None)
    return type(sinfo) is ir.TensorSInfo and isinstance(shape, tuple) and \
        any(_mentions(d, sym) for d in shape)


def _tuple_sized(sinfo, sym: ir.SymVar) -> bool:
    return any(_tuple_sized(s, sym) if type(s) is ir.TupleSInfo else _sized(s, sym)
               for s in sinfo.fields)


def _layout_reason(v: ir.Var, sym: ir.SymVar) -> str | None:
    """Why the VAR-sized tensor `v` cannot be padded in place: VAR is not one of its
    dimensions as itself, or not its leading varying one."""
    dims = v.sinfo.shape
    for k, d in enumerate(dims):
        if not _mentions(d, sym):
            continue
        if not (isinstance(d, ir.SymVar) and d.name == sym.name):
            return f"the shape of {v.name} has a dimension computed from {sym.name}"
        if any(not (isinstance(x, ir.IntImm) and x.value == 1) for x in dims[:k]):
            return (f"{sym.name} is not the leading dimension of {v.name}: its first "
                    f"{sym.name} rows are not a prefix of it")
        if any(_mentions(x, sym) for x in dims[k + 1:]):
            return f"{v.name} has two dimensions sized by {sym.name}"
    return None


def _value_mentions(e, sym: ir.SymVar) -> bool:
    if isinstance(e, ir.PrimValue):
        return _mentions(e.value, sym)
    if isinstance(e, ir.ShapeExpr):
        return any(_mentions(d, sym) for d in e.values)
    if isinstance(e, ir.Tuple):
        return any(_value_mentions(x, sym) for x in e.fields)
    return False


class _Carves:
    """Where the VAR-sized tensors of a region live: the alloc_tensor call of a lifted
    storage that carves each, through aliases and reshapes, in the function's original IR."""

    def __init__(self, f: ir.Function, plan: ModulePlan):
        self.defs: dict = {}
        _collect_defs(f.blocks, self.defs)
        self.storages = set()
        for a in plan.alloc_regions:
            if a.function == f.name:
                self.storages.update(a.outputs)

    def carves(self, r: RegionPlan, sym: ir.SymVar):
        """((inputs, outputs), None), or (None, the reason)."""
        found = ({}, {})
        for v in r.outputs:
            if type(v.sinfo) is ir.TupleSInfo and _tuple_sized(v.sinfo, sym):
                return None, (f"it leaves {v.name}, a tuple with {sym.name}-sized items, "
                              f"which cannot be carved again at the real rows")
        for side, vars_, what in ((0, r.inputs, "reads"), (1, r.outputs, "leaves")):
            for v in vars_:
                if not _sized(v.sinfo, sym):
                    continue
                call = self.carve(v)
                if call is None:
                    return None, (f"it {what} {v.name}, which is not carved from a storage of "
                                  f"the graphs (it cannot be carved again at a bucket's rows)")
                found[side][v] = call
        return found, None

    def carve_expr(self, e, depth: int):
        return self.carve(e, depth) if isinstance(e, ir.Var) else None

    def carve(self, v, depth: int = 0):
        value = self.defs.get(v)
        if depth > 64 or value is None:
            return None
        if isinstance(value, ir.Var):
            return self.carve(value, depth + 1)
        if isinstance(value, ir.TupleGetItem) and isinstance(value.tuple_value, ir.Var):
            fields = self.defs.get(value.tuple_value)
            if isinstance(fields, ir.Tuple) and value.index < len(fields.fields):
                return self.carve_expr(fields.fields[value.index], depth + 1)
            return None
        if not isinstance(value, ir.Call) or not isinstance(value.op, ir.Op):
            return None
        if value.op.name in VIEW_OPS and isinstance(value.args[0], ir.Var):
            return self.carve(value.args[0], depth + 1)
        if value.op.name == "relax.memory.alloc_tensor" and value.args[0] in self.storages \
                and isinstance(value.args[1], ir.PrimValue) and \
                isinstance(value.args[1].value, ir.IntImm):
            return value
        return None


def _collect_defs(blocks, defs: dict) -> None:
    for block in blocks:
        for b in block.bindings:
            if isinstance(b, ir.VarBinding):
                defs[b.var] = b.value
                if isinstance(b.value, ir.If):
                    for branch in (b.value.true_branch, b.value.false_branch):
                        _collect_defs(branch.blocks, defs)


# ---- the rewrite ---------------------------------------------------------------------------


def bucketed_branch(plan: RegionPlan, call: ir.Call, call_ty, outputs: list, expr,
                    fresh) -> ir.SeqExpr:
    """The graph branch of a bucketed region's guarded launch (module docstring). `call`: the
    run_or_capture call at the real size, its arguments resolved; `expr`: the rewriter's
    resolution of an original var in the caller; `fresh`: its fresh names."""
    rb = plan.buckets
    to_bucket = {rb.var: rb.bucket}
    bindings = []

    def emit(name: str, sinfo, value) -> ir.Var:
        v = ir.Var(fresh(name), sinfo, False, ir.NO_LOC, True)
        bindings.append(ir.VarBinding(v, value))
        return v

    def carve(alloc: ir.Call, sinfo, name: str) -> ir.Var:
        storage = expr(alloc.args[0])
        shape = ir.ShapeExpr(sinfo.shape)
        return emit(name, sinfo, ir.Call(alloc.op, (storage, alloc.args[1], shape,
                                                    *alloc.args[3:]), alloc.attrs))

    builtin, packed = call.args
    fn, args, index, *rest = packed.fields
    new_args = list(args.fields)
    for k, v in enumerate(plan.inputs):
        alloc = rb.inputs.get(v)
        if alloc is not None:
            new_args[k] = carve(alloc, substitute(v.sinfo, to_bucket), f"{v.name}_b")
    def at_bucket(shape: ir.ShapeExpr) -> ir.ShapeExpr:
        return ir.ShapeExpr(tuple(subst_prim(d, to_bucket) for d in shape.values))

    # The capture function's shape parameter (its last argument) and the key: the bucket.
    new_args = [at_bucket(a) if isinstance(a, ir.ShapeExpr) else a for a in new_args]
    key = [at_bucket(s) for s in rest]
    bucket_ty = substitute(call_ty, to_bucket)
    graph_call = ir.Call(call.op, (builtin, ir.Tuple((fn, ir.Tuple(tuple(new_args)), index,
                                                      *key))), call.attrs, (bucket_ty,))
    graph = emit("gv", bucket_ty, graph_call)
    fields = []
    for i, v in enumerate(outputs):
        if is_void(v.sinfo):
            fields.append(ir.Tuple(()))
        elif v in rb.outputs:
            fields.append(carve(rb.outputs[v], v.sinfo, f"{v.name}_view"))
        else:
            fields.append(emit(v.name, bucket_ty.fields[i], ir.TupleGetItem(graph, i)))
    if is_void(call_ty):
        return ir.SeqExpr([ir.BindingBlock(bindings)], ir.Tuple(()))
    result = emit("gv", call_ty, ir.Tuple(tuple(fields)))
    return ir.SeqExpr([ir.BindingBlock(bindings)], result)


def bucket_expr(sym: ir.SymVar, sizes: tuple, upper: int):
    """The least bucket at least VAR for 0 <= VAR <= Bn, and Bn from there up to `upper`
    (VAR's tir_var_upper_bound), in integer arithmetic:
    `B1 + sum_i (B(i+1) - Bi) * ((VAR + K - 1 - Bi) // K)` with K = upper + 1, where each
    quotient is 1 exactly when VAR > Bi (VAR + K - 1 - Bi lies in [K, 2K) then, in [0, K)
    otherwise). Arithmetic rather than nested T.Select: every constant is an operand of VAR's
    int64 expression, as TVM's reader needs of a shape. Its values over VAR's whole range are
    the bucket list, which is how `cgraph diff` reads them back (report/bucket_facts.py)."""
    k = upper + 1
    e = ir.IntImm(sizes[0], sym.dtype)
    for lo, hi in zip(sizes, sizes[1:]):
        step = ir.PrimBinOp("//", ir.PrimBinOp("+", sym, ir.IntImm(k - 1 - lo, sym.dtype)),
                            ir.IntImm(k, sym.dtype))
        e = ir.PrimBinOp("+", e, ir.PrimBinOp("*", step, ir.IntImm(hi - lo, sym.dtype)))
    return e


def define_buckets(module: ir.Module, functions: list) -> ir.Module:
    """Each function with bucketed regions given its `VAR_bucket` at its top."""
    by_name: dict = {}
    for fb in functions:
        if fb.bucketed:
            by_name.setdefault(fb.function, []).append(fb)
    if not by_name:
        return module
    out = []
    for f in module.functions:
        for fb in by_name.get(f.name, ()):
            f = _define(f, fb)
        out.append(f)
    return ir.replace(module, functions=out)


def _define(f: ir.Function, fb: FunctionBuckets) -> ir.Function:
    sym = fb.bucketed[0].buckets.var
    expr = bucket_expr(sym, fb.sizes, fb.upper)
    # The value is bound to a var whose struct info states it before the match_cast: TVM's
    # VMShapeLower computes a composite shape value only where a struct info names it
    # ("slot_map_" check failure otherwise).
    value = ir.Var(f"{fb.bucket.name}_value", ir.ShapeSInfo((expr,), 1), False, ir.NO_LOC,
                   True)
    sinfo = ir.ShapeSInfo((fb.bucket,), 1)
    var = ir.Var(f"{fb.bucket.name}_shape", sinfo, False, ir.NO_LOC, True)
    defined = (ir.VarBinding(value, ir.ShapeExpr((expr,))), ir.MatchCast(var, value, sinfo))
    blocks = list(f.blocks)
    if blocks and not blocks[0].is_dataflow:
        blocks[0] = ir.replace(blocks[0], bindings=defined + blocks[0].bindings)
    else:
        blocks.insert(0, ir.BindingBlock(defined))
    attrs = _with_bucket_list(f.attrs, fb.var, fb.sizes)
    return ir.replace(f, blocks=blocks, sym_vars=f.sym_vars + (fb.bucket,), attrs=attrs)


def _with_bucket_list(attrs: tuple, var: str, sizes: tuple) -> tuple:
    """`attrs` with `var: [B1, ..., Bn]` in the BUCKETS attribute (added last when absent),
    which proof/buckets.py reads to prove the bucket's definition against."""
    entry = (var, ("list", tuple(sizes)))
    out, found = [], False
    for k, v in attrs:
        value = v.value if isinstance(v, ir.Literal) else None
        if k == BUCKETS and isinstance(value, tuple) and value[0] == "dict":
            pairs = tuple(p for p in value[1] if p[0] != var) + (entry,)
            v, found = ir.Literal(("dict", pairs)), True
        out.append((k, v))
    if not found:
        out.append((BUCKETS, ir.Literal(("dict", (entry,)))))
    return tuple(out)


def declared_buckets(f: ir.Function) -> dict:
    """{variable name: (B1, ..., Bn)} from `f`'s BUCKETS attribute (what the rewrite
    declared), {} when absent; a list that is not of positive integers is left out."""
    value = f.attr(BUCKETS)
    if not (isinstance(value, tuple) and len(value) == 2 and value[0] == "dict"):
        return {}
    out = {}
    for pair in value[1]:
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[0], str)):
            continue
        items = pair[1]
        if isinstance(items, tuple) and len(items) == 2 and items[0] in ("list", "tuple") and \
                items[1] and all(type(x) is int and x > 0 for x in items[1]):
            out[pair[0]] = tuple(items[1])
    return out


# ---- reading bucket variables back ---------------------------------------------------------


def derived_sym_vars(f: ir.Function) -> dict:
    """{name: (variable, expression)} of the symbolic variables `f` defines by `R.match_cast`
    of a shape computed from one other variable (`seq_len_bucket` from `seq_len`): what a
    bucketed rewrite adds, read from any module (cgraph's output or one edited by hand)."""
    defs: dict = {}
    out: dict = {}
    for b in ir.nested_bindings(f.blocks):
        if not isinstance(b, ir.MatchCast):
            defs[b.var] = b.value
            continue
        value = b.value
        for _ in range(16):  # through aliases to the shape itself
            if type(value) is not ir.Var or value not in defs:
                break
            value = defs[value]
        dims = getattr(b.sinfo, "values", None)
        if type(value) is not ir.ShapeExpr or dims is None or len(dims) != len(value.values):
            continue
        for expr, sym in zip(value.values, dims):
            names = {v.name for v in ir.prim_vars(expr, [])}
            if isinstance(sym, ir.SymVar) and len(names) == 1 and sym.name not in names:
                out[sym.name] = (names.pop(), expr)
    return out


def launches_at_buckets(module: ir.Module) -> bool:
    """Does a function of `module` define a bucket variable (derived_sym_vars)?"""
    return any(derived_sym_vars(f) for f in module.relax_functions())
