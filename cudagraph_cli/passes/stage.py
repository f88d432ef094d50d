"""Which stage of TVM's pipeline a module looks like it was dumped at. Reads IR only.

cgraph reads what TVM's RewriteCUDAGraph is given: the module after StaticPlanBlockMemory
(relax.build's cuda pipeline: ... LegalizeOps ... ToNonDataflow, RemovePurityChecking,
CallTIRRewrite, StaticPlanBlockMemory, RewriteCUDAGraph). A module dumped earlier still
parses and still rewrites, into something that captures little or nothing, and until
cgraph said so nothing told the user why. `wrong_stage` finds the signs, earliest stage
first:

* before LegalizeOps: a call of a Relax operator that LegalizeOps (or the library dispatch
  before it) lowers to a kernel, `R.permute_dims`, `R.matmul`, `R.add`;
* before CallTIRRewrite: `R.call_tir` (or `call_dps_packed`), which allocates its outputs;
* before StaticPlanBlockMemory: no `R.memory.alloc_storage` at all, and an
  `R.builtin.alloc_tensor` of a constant shape whose tensor does not reach the function's
  return value: StaticPlanBlockMemory plans every such tensor into a storage, so after it
  none is left (an output's allocation stays: a module whose every tensor is returned looks
  planned, rightly).

The rewrite, `cgraph rewrite` and `cgraph diff` print the result as a located warning.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..diagnostics import Loc

# The Relax operators TVM 0.27 can leave in a module after LegalizeOps: those without a
# legalization (FLegalize) in its registry, but for the sort, scan and sampling operators that
# relax.build's library dispatch lowers before LegalizeOps, plus `relax.reshape`, which
# RewriteDataflowReshape makes after it (tests/test_wrong_stage.py checks this against TVM's
# registry). docs/EXECUTOR.md's operator table lists the same operators.
LOWERED_OPS = frozenset({
    "relax.memory.alloc_storage", "relax.memory.alloc_tensor", "relax.memory.kill_storage",
    "relax.memory.kill_tensor", "relax.memory.view", "relax.memory.ensure_zero_offset",
    "relax.vm.alloc_storage", "relax.vm.alloc_tensor", "relax.vm.kill_object",
    "relax.vm.call_tir_dyn", "relax.builtin.alloc_tensor", "relax.builtin.stop_lift_params",
    "relax.call_tir", "relax.call_tir_inplace", "relax.call_tir_with_grad",
    "relax.call_dps_packed", "relax.call_pure_packed", "relax.call_inplace_packed",
    "relax.call_builtin_with_ctx", "relax.call_py_func", "relax.null_value", "relax.shape_of",
    "relax.tensor_to_shape", "relax.print", "relax.assert_op", "relax.make_closure",
    "relax.invoke_closure", "relax.invoke_pure_closure", "relax.to_vdevice",
    "relax.hint_on_device", "relax.nonzero", "relax.unique", "relax.wrap_param",
    "relax.ewise_fma", "relax.dist.annotate_sharding", "relax.dist.call_tir_local_view",
    "relax.dist.redistribute", "relax.reshape",
})

# Operators CallTIRRewrite replaces by an allocation and a call of the kernel.
CALL_TIR_OPS = ("relax.call_tir", "relax.call_dps_packed", "relax.call_tir_inplace",
                "relax.call_tir_with_grad")

DUMP_HINT = ("cgraph reads what TVM's RewriteCUDAGraph is given: dump the module after "
             "StaticPlanBlockMemory, right before RewriteCUDAGraph")


@dataclass(frozen=True)
class WrongStage:
    """The stage a module looks like it was dumped before, and where that shows."""

    stage: str  # "LegalizeOps", "CallTIRRewrite" or "StaticPlanBlockMemory"
    loc: Loc
    message: str


def wrong_stage(module: ir.Module) -> WrongStage | None:
    """The earliest pipeline stage `module` looks like it was dumped before, or None when it
    looks like what RewriteCUDAGraph is given."""
    operators: list = []  # (binding, call) of operators LegalizeOps lowers
    call_tirs: list = []
    allocs: list = []  # (function, binding) of R.builtin.alloc_tensor of a constant shape
    planned = False  # any R.memory.alloc_storage: then memory planning has run (a module
    # edited by hand may still hold an allocation it would have planned)
    for f in module.relax_functions():
        for b in ir.nested_bindings(f.blocks):
            v = b.value
            # Only the call a binding makes: TVM binds every call on its own (a call nested
            # in another's arguments, as TVM's tests write some, is inside an operator call,
            # which is sign enough). Every binding of the module is looked at.
            if type(v) is not ir.Call or type(v.op) is not ir.Op:
                continue
            name = v.op.name
            if name not in LOWERED_OPS:
                operators.append((b, v))
            elif name in CALL_TIR_OPS:
                call_tirs.append((b, v))
            elif name == "relax.memory.alloc_storage" or name == "relax.vm.alloc_storage":
                planned = True
            elif name == "relax.builtin.alloc_tensor" and v.args and \
                    type(v.args[0]) is ir.ShapeExpr and \
                    all(type(d) is ir.IntImm for d in v.args[0].values):
                allocs.append((f, b))
    unplanned = []
    if not planned and allocs:
        reach = {f: reaching_return(f) for f in {f for f, _ in allocs}}
        unplanned = [b for f, b in allocs if b.var not in reach[f]]
    if operators:
        b, call = operators[0]
        more = f" ({len(operators)} operator calls)" if len(operators) > 1 else ""
        return WrongStage("LegalizeOps", _loc(b, call), _message(
            "LegalizeOps", f"it calls the Relax operator {_script_name(call.op.name)}{more}, "
            "which LegalizeOps lowers to kernels"))
    if call_tirs:
        b, call = call_tirs[0]
        return WrongStage("CallTIRRewrite", _loc(b, call), _message(
            "CallTIRRewrite", f"{_script_name(call.op.name)} allocates its outputs on every "
            "call, which CallTIRRewrite makes allocations for memory planning"))
    if unplanned:
        b = unplanned[0]
        more = f" (and {len(unplanned) - 1} more)" if len(unplanned) > 1 else ""
        return WrongStage("StaticPlanBlockMemory", b.loc, _message(
            "StaticPlanBlockMemory", f"'{b.var.name}'{more} is allocated by "
            "R.builtin.alloc_tensor with a constant shape and not returned, and no storage is "
            "planned (R.memory.alloc_storage), so nothing can be captured"))
    return None


def reaching_return(f: ir.Function) -> set:
    """The vars of `f` whose value may reach its return value: used by a binding of one that
    does, transitively (a superset: a kernel's arguments count too when its result is
    returned, so no tensor that reaches the return value is ever missed)."""
    reach = {x for x in ir.walk(f.body) if type(x) is ir.Var}
    bindings = list(ir.nested_bindings(f.blocks))
    for b in bindings:  # a branch's result counts as returned, as TVM's planner counts it
        if type(b.value) is ir.If:
            for seq in (b.value.true_branch, b.value.false_branch):
                reach.update(x for x in ir.walk(seq.body) if type(x) is ir.Var)
    for b in reversed(bindings):
        if b.var in reach:
            reach.update(x for x in ir.walk(b.value) if type(x) is ir.Var)
    return reach


def _message(stage: str, evidence: str) -> str:
    return f"this module looks dumped before {stage}: {evidence}; {DUMP_HINT}"


def _script_name(op: str) -> str:
    return "R." + op[len("relax."):] if op.startswith("relax.") else op


def _loc(b, call) -> Loc:
    return call.loc if call.loc.line > 0 else b.loc
