"""After stage 2, beside the merger: why each kernel launch left outside a graph is there, in
words. Reads plans only.

The region planner records, for every launch it leaves outside, its decision (`LeftOutside`:
not static, a vm.builtin or Relax callee, excluded, ...). For "not static" this stage finds
the first argument that is not, and follows it back through the bindings to the root cause:
a function input, an `R.builtin.alloc_tensor`, a storage that flows to the return value or
whose size is not constant, an uncaptured symbolic variable. It asks the planner's
`StaticValues` what is static, so it can never disagree with the planner.

TVM explains nothing; `cgraph rewrite --explain` and `cgraph diff` print these.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir import callee_name
from .options import RewriteOptions
from .region_planner import LeftOutside, ModulePlan
from .storage_collector import free_vars


@dataclass
class Reason:
    """Why a kernel launch stays outside a graph."""

    function: str
    binding: object  # ir.VarBinding
    code: str
    message: str


# One code per kernel launch left outside a graph. A module that already launches CUDA graphs
# has none: it is not planned at all (passes.pipeline leaves it as it is, correction 1), and
# the report says so once, in a note for the whole module, rather than once per launch.
REASON_CODES = {
    "param-input": "an argument is a function input (a parameter before num_input)",
    "dynamic-alloc": "an argument is allocated by R.builtin.alloc_tensor (not planned memory)",
    "output-storage": "an argument lives in a storage that flows to the return value",
    "returned-result": "it allocates its result, which flows to the return value (in a graph, "
                       "the graph's memory: every replay writes it again)",
    "dynamic-storage": "an argument lives in a storage whose size is not constant",
    "symbolic-shape": "a shape uses a symbolic variable that is not captured",
    "unknown-shape": "an argument's shape is not known",
    "non-static-input": "an argument is computed outside any graph each call",
    "vm-builtin": "vm.builtin.* functions are never captured",
    "relax-call": "calls to Relax functions are never captured",
    "excluded": "the callee matches --exclude",
    "min-kernels": "its region has fewer kernel launches than --min-kernels",
    "function-not-selected": "the function is not in --functions",
    "open-dataflow-region": "TVM leaves a region still open at the end of the function "
                            "(opened in a dataflow block) unlifted",
    "dataflow-block": "it, or an argument, is bound in a dataflow block, where nothing is "
                      "lifted (a graph launched there is an impure call in a dataflow block)",
}

DATAFLOW_WHY = ("a graph launched there would be an impure call inside the dataflow block, "
                "which TVM's well-formed check refuses (a module after memory planning, "
                "past ToNonDataflow, has no dataflow block)")


def explain(module: ir.Module, plan: ModulePlan, returned_storages: dict[str, set[ir.Var]],
            options: RewriteOptions) -> list[Reason]:
    """One `Reason` per launch the planner left outside, in the planner's order.
    `returned_storages`: the storage collector's result the planner was given."""
    return Explainer(module, plan, returned_storages, options).reasons()


class Explainer:
    def __init__(self, module: ir.Module, plan: ModulePlan,
                 returned_storages: dict[str, set[ir.Var]], options: RewriteOptions):
        self.plan = plan
        self.functions = {f.name: f for f in module.relax_functions()}
        self.returned_storages = returned_storages
        self.options = options
        self.statics = plan.statics
        # the function being explained: its bindings by var, parameters, returned storages
        self.fn: ir.Function | None = None
        self.defs: dict[ir.Var, object] = {}
        self.params: dict[ir.Var, int] = {}  # param -> index
        self.disabled_storages: set[ir.Var] = set()
        self.in_dataflow: set[ir.Var] = set()  # the function's vars bound in dataflow blocks

    def reasons(self) -> list[Reason]:
        return [self.reason(o) for o in self.plan.outside]

    def reason(self, o: LeftOutside) -> Reason:
        b = o.binding
        if o.cause in ("open-dataflow-region", "function-not-selected"):
            return Reason(o.function, b, o.cause, REASON_CODES[o.cause])
        if o.cause == "min-kernels":
            k = o.region.kernels
            return Reason(o.function, b, o.cause,
                          f"its region has {k} kernel launch{'es' if k != 1 else ''}, "
                          f"fewer than --min-kernels {self.options.min_kernels}")
        call = b.value
        if o.cause == "vm-builtin":
            return Reason(o.function, b, o.cause, f"'{callee_name(call)}' is a vm.builtin "
                                                  "function; those are never captured")
        if o.cause == "relax-call":
            return Reason(o.function, b, o.cause, f"'{callee_name(call)}' is a Relax "
                                                  "function; calls to Relax functions are "
                                                  "never captured")
        if o.cause == "excluded":
            return Reason(o.function, b, o.cause, f"'{callee_name(call)}' matches --exclude")
        if o.cause == "returned-result":
            return Reason(o.function, b, o.cause, f"'{callee_name(call)}' allocates its result "
                          f"'{b.var.name}', which flows to the return value: lifted, it would "
                          "be the graph's memory, which the next call's replay overwrites "
                          "while the caller holds it")
        if o.cause == "dataflow-block":
            return Reason(o.function, b, o.cause, f"'{callee_name(call)}' is called in a "
                          f"dataflow block: {DATAFLOW_WHY}")
        self._enter(o.function)
        for a in call.args:
            found = self._why_not_static(a, 0)
            if found is not None:
                return Reason(o.function, b, *found)
        return Reason(o.function, b, "non-static-input", REASON_CODES["non-static-input"])

    def _enter(self, name: str):
        if self.fn is not None and self.fn.name == name:
            return
        f = self.fn = self.functions[name]
        self.params = {p: i for i, p in enumerate(f.params)}
        self.disabled_storages = self.returned_storages.get(name, set())
        self.defs = {}
        self.in_dataflow = set()
        self._define(f.blocks)

    def _define(self, blocks):
        # The bindings the planner visits: branches of an `if` too, not nested functions.
        for block in blocks:
            for b in block.bindings:
                self.defs[b.var] = b
                if block.is_dataflow:
                    self.in_dataflow.add(b.var)
                if isinstance(b, ir.VarBinding) and type(b.value) is ir.If:
                    self._define(b.value.true_branch.blocks)
                    self._define(b.value.false_branch.blocks)

    def _why_not_static(self, e, depth: int):
        """(code, message) for the first reason `e` is not static, or None if it is."""
        if depth > 50 or self.statics.expr(e):
            return None
        t = type(e)
        if t is ir.Tuple:
            for f in e.fields:
                r = self._why_not_static(f, depth + 1)
                if r:
                    return r
            return None
        if t in (ir.PrimValue, ir.ShapeExpr):
            return ("symbolic-shape", "a shape uses a symbolic variable that is not captured "
                    "(not from a weight, not in relax.rewrite_cuda_graph.capture_symbolic_vars)")
        if t is not ir.Var:
            return ("non-static-input", "an argument is not a value fixed across calls")
        name = e.name
        if e in self.statics.vars:
            s = e.sinfo
            if isinstance(s, ir.TensorSInfo) and s.shape is None:
                return ("unknown-shape", f"the shape of '{name}' is not known")
            return ("symbolic-shape", f"the shape of '{name}' uses a symbolic variable that is "
                    "not captured (add it to relax.rewrite_cuda_graph.capture_symbolic_vars)")
        if e in self.params:
            if self.fn.attr("num_input") is None:
                why = "no num_input attribute, so every parameter is an input"
            else:
                why = f"before num_input={self.fn.num_input}"
            return ("param-input", f"'{name}' is an input of the function (parameter "
                    f"{self.params[e]}, {why}); its buffer changes between calls")
        b = self.defs.get(e)
        if b is None or not isinstance(b, ir.VarBinding):
            return ("non-static-input", f"'{name}' is computed outside any graph each call")
        v = b.value
        if e in self.in_dataflow and self.options.no_graph_in_dataflow:
            # Correction 7: not static for being in the block, unless something else is the
            # reason (a function input, say), which is then the one given.
            for a in (v.args if isinstance(v, ir.Call) else free_vars(v, [])):
                r = self._why_not_static(a, depth + 1)
                if r:
                    return r
            return ("dataflow-block", f"'{name}' is bound in a dataflow block, where nothing is "
                    f"lifted: {DATAFLOW_WHY}")
        if isinstance(v, ir.Call) and isinstance(v.op, ir.Op):
            if v.op.name == "relax.builtin.alloc_tensor":
                return ("dynamic-alloc", f"'{name}' is allocated by R.builtin.alloc_tensor "
                        "each call (not statically planned memory)")
            if v.op.name == "relax.memory.alloc_tensor" and type(v.args[0]) is ir.Var:
                storage = v.args[0]
                if storage in self.disabled_storages:
                    return ("output-storage", f"'{name}' lives in storage '{storage.name}', "
                            "which flows to the return value")
                sb = self.defs.get(storage)
                if storage not in self.statics.vars and sb is not None and \
                        isinstance(sb.value, ir.Call) and isinstance(sb.value.op, ir.Op) and \
                        sb.value.op.name == "relax.memory.alloc_storage":
                    return ("dynamic-storage", f"'{name}' lives in storage '{storage.name}', "
                            "whose size is not constant")
                for a in v.args[1:]:  # a static storage: the shape or offset is the reason
                    r = self._why_not_static(a, depth + 1)
                    if r:
                        return r
        if isinstance(v, ir.Var):
            return self._why_not_static(v, depth + 1)
        if isinstance(v, ir.TupleGetItem):
            return self._why_not_static(v.tuple_value, depth + 1)
        if isinstance(v, ir.Tuple):
            for a in v.fields:
                r = self._why_not_static(a, depth + 1)
                if r:
                    return r
        if isinstance(v, ir.Call):
            return ("non-static-input", f"'{name}' is computed by '{callee_name(v)}' "
                    "outside any graph each call")
        return ("non-static-input", f"'{name}' is computed outside any graph each call")
