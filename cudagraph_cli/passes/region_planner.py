"""Stage 2: find the static regions of each function and plan their lifting. Reads IR only.

A port of TVM's CUDAGraphRewritePlanner (src/relax/transform/rewrite_cuda_graph.cc), with
the same notion of static:

* static vars: storages of constant size (`R.memory.alloc_storage` whose size is all
  integers, and whose tensors do not flow to the return value), tensors carved from them,
  weights (parameters past `num_input`), and bindings computed only from static values,
  strings, dtypes, constants and global functions;
* a symbolic variable may appear in a static shape only if it is captured: it comes from a
  weight's shape, or is named in the `relax.rewrite_cuda_graph.capture_symbolic_vars`
  attribute; it is then passed to the graph as a trailing `R.shape([...])` and keys the
  capture;
* a region is a maximal run of static bindings in one binding block, opened by a kernel
  launch (a PrimFunc call, a packed call, an operator other than memory/builtin/reshape/
  null_value/call_builtin_with_ctx) and closed by any non-static binding; `vm.builtin.*`
  packed calls and calls to Relax functions are never captured.

Its output is data: one `RegionPlan` per region to capture and one per function for its
storages, plus, for every kernel launch left outside a graph, a `Reason`.

TVM's quirks kept on purpose (the default output equals TVM's): a dataflow block gets no scope
of its own, so a region opened there stays open across following blocks; bindings whose
value is a shape, prim value, string or match_cast neither join nor close a region.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from .. import ir
from .storage_collector import free_vars, output_storages

KERNEL_OP_EXCLUDED_PREFIXES = ("relax.memory", "relax.builtin")
KERNEL_OP_EXCLUDED = {"relax.reshape", "relax.null_value", "relax.call_builtin_with_ctx"}


@dataclass
class PlanOptions:
    min_kernels: int = 1  # a region with fewer kernel launches is not lifted
    exclude: tuple = ()  # globs of PrimFunc / packed function names never captured
    functions: tuple | None = None  # only these functions (None: all)
    # The corrections of TVM decided while planning (docs/REWRITE.md lists all of them, the
    # others are arguments of passes.pipeline.rewrite); False reproduces TVM 0.27 exactly.
    follow_getitem: bool = True  # storage collector follows get-items (and dataflow blocks)
    keep_returned_defined: bool = True  # a returned binding is always defined in its function
    # An `if` ends the region open before it, a region opened in a branch stays in it, and its
    # condition and branch results are defined where they are used (TVM: a kernel after the
    # `if` is moved before it, past the branch's reads and writes of planned memory).
    if_ends_region: bool = True


@dataclass(eq=False)
class RegionPlan:
    """A run of bindings to lift: TVM's FuncBuilder before it builds anything."""

    kind: str  # "capture" | "alloc"
    function: str
    bindings: list = field(default_factory=list)  # ir.VarBinding, in order
    inputs: dict = field(default_factory=dict)  # id(var) -> Var, in order of first use
    outputs: dict = field(default_factory=dict)  # id(var) -> Var, in order of marking
    tir_vars: dict = field(default_factory=dict)  # id(SymVar) -> SymVar (shape-expr input)
    kernels: int = 0  # kernel launches among the bindings
    dropped: str | None = None  # why the region is not lifted after all (e.g. min-kernels)
    region_id: int = -1  # capture regions: 0, 1, ... in module order

    @property
    def launch_point(self) -> ir.Var:
        return self.bindings[0].var


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
}


@dataclass
class ModulePlan:
    capture_regions: list  # RegionPlan, in the order TVM lifts them
    alloc_regions: list  # RegionPlan, one per function with lifted storages, in module order
    reasons: list  # Reason
    launches: dict  # function name -> number of kernel launches (as TVM counts them)
    planned: list  # names of the functions planned

    def kept_captures(self) -> list:
        return [r for r in self.capture_regions if r.dropped is None]


def launch_kind(call: ir.Call, module: ir.Module, prims: set | None = None) -> str | None:
    """"kernel" (what TVM captures), "vm-builtin", "relax-call", or None (not a launch).
    `prims`: the names of the module's PrimFuncs, when the caller has them at hand."""
    op = call.op
    if isinstance(op, ir.GlobalVarRef):
        if prims is None:
            prims = {f.name for f in module.functions if isinstance(f, ir.PrimFunc)}
        return "kernel" if op.name in prims else "relax-call"
    if isinstance(op, ir.ExternFunc):
        return "vm-builtin" if op.name.startswith("vm.builtin") else "kernel"
    if isinstance(op, ir.Op):
        name = op.name
        if name.startswith(KERNEL_OP_EXCLUDED_PREFIXES) or name in KERNEL_OP_EXCLUDED:
            return None
        return "kernel"
    return None


def callee_name(call: ir.Call) -> str:
    op = call.op
    return op.name if hasattr(op, "name") else "?"


class RegionPlanner:
    def __init__(self, module: ir.Module, options: PlanOptions | None = None):
        self.module = module
        self.prims = {f.name for f in module.functions if isinstance(f, ir.PrimFunc)}
        self.relax_names = frozenset(f.name for f in module.relax_functions())
        self.options = options or PlanOptions()
        self.static_vars: set[int] = set()
        self.capture_syms: set[int] = set()
        self.binding_to_region: dict[int, RegionPlan] = {}
        self.capture_regions: list[RegionPlan] = []
        self.alloc_regions: list[RegionPlan] = []
        self.disabled_storages: set[int] = set()
        self.builder: RegionPlan | None = None  # the current block scope's capture region
        self.alloc_builder: RegionPlan | None = None
        self.reasons: list[Reason] = []
        self.launches: dict[str, int] = {}
        # for explanations: what defines each var, and the current function
        self.defs: dict[int, object] = {}
        self.params: dict[int, int] = {}  # id(param) -> index
        self.fn: ir.Function | None = None
        self.num_input = 0

    # ---- driver --------------------------------------------------------------------------

    def plan(self) -> ModulePlan:
        planned = []
        for f in self.module.relax_functions():
            if self.options.functions is not None and f.name not in self.options.functions:
                self._not_selected(f)
                continue
            planned.append(f.name)
            self._plan_function(f)
        self._apply_min_kernels()
        for i, r in enumerate(self.kept()):
            r.region_id = i
        return ModulePlan(self.capture_regions, self.alloc_regions, self.reasons, self.launches,
                          planned)

    def kept(self) -> list:
        return [r for r in self.capture_regions if r.dropped is None]

    def _plan_function(self, f: ir.Function):
        self.fn = f
        self.launches[f.name] = 0
        num_inputs = f.attr("num_input", len(f.params))
        if not isinstance(num_inputs, int):
            num_inputs = len(f.params)
        self.num_input = num_inputs
        hints = f.attr("relax.rewrite_cuda_graph.capture_symbolic_vars", None)
        hint_names = set(hints[1]) if isinstance(hints, tuple) and len(hints) == 2 else set()
        self.params = {id(p): i for i, p in enumerate(f.params)}
        for i, p in enumerate(f.params):
            syms = ir.definable_sym_vars(p.sinfo)
            if i < num_inputs:
                for s in syms:
                    if s.name in hint_names:
                        self.capture_syms.add(id(s))
            else:
                self.static_vars.add(id(p))
                for s in syms:
                    self.capture_syms.add(id(s))
        self.disabled_storages = output_storages(f, self.options.follow_getitem,
                                                 self.relax_names)
        self.alloc_builder = RegionPlan("alloc", f.name)
        # Not TVM: a region left open by a dataflow block does not run on into the next
        # function (TVM's block scope outlives functions; its output then mixes functions).
        self.builder = None
        self._blocks(f.blocks)
        if self.options.keep_returned_defined:
            for v in free_vars(f.body, []):
                region = self.binding_to_region.get(id(v))
                if region is not None:
                    region.outputs.setdefault(id(v), v)
        if self.builder is not None and self.builder.bindings:
            # TVM never closes it: its bindings stay in the function.
            for b in self.builder.bindings:
                self._launch_reason(b, "open-dataflow-region", REASON_CODES[
                    "open-dataflow-region"])
                self.binding_to_region.pop(id(b.var), None)
        self.builder = None
        if self.alloc_builder.outputs:
            self.alloc_regions.append(self.alloc_builder)
        self.alloc_builder = None

    def _blocks(self, blocks: list):
        for block in blocks:
            if block.is_dataflow:
                for b in block.bindings:
                    self._binding(b)
            else:
                saved, self.builder = self.builder, None
                for b in block.bindings:
                    self._binding(b)
                self._end_region()
                self.builder = saved

    def _if_as_barrier(self, v: ir.If):
        """Not TVM: an If is a barrier. A region kept open across it (TVM's planner only ends
        one on a binding that uses the If's var) launches before the If, so a kernel after it
        would run before the branch, even when the branch reads or writes the same planned
        storage (memory planning reuses a storage once its tensor is dead, which it may be
        right after the branch). A dataflow block in a branch (no block scope of its own)
        would likewise open a region that runs on past the branch. And a condition or branch
        result bound inside a region must be one of its outputs, or the rewrite leaves it
        undefined (TVM does, for a condition a captured kernel computes)."""
        self._end_region()
        self._mark_output(free_vars(v.cond, []))
        for seq in (v.true_branch, v.false_branch):
            self._blocks(seq.blocks)
            self._end_region()
            self._mark_output(free_vars(seq.body, []))

    def _not_selected(self, f: ir.Function):
        self.launches[f.name] = 0
        for block in f.blocks:
            for b in block.bindings:
                if isinstance(b.value, ir.Call) and launch_kind(b.value, self.module):
                    self._count_launch(f.name, b)
                    self.reasons.append(Reason(f.name, b, "function-not-selected",
                                               REASON_CODES["function-not-selected"]))

    def _count_launch(self, fname: str, b):
        if launch_kind(b.value, self.module) == "kernel":
            self.launches[fname] = self.launches.get(fname, 0) + 1

    def _apply_min_kernels(self):
        n = self.options.min_kernels
        if n <= 1:
            return
        for r in self.capture_regions:
            if r.kernels < n:
                r.dropped = "min-kernels"
                for b in r.bindings:
                    if isinstance(b.value, ir.Call) and \
                            launch_kind(b.value, self.module) == "kernel":
                        self.reasons.append(Reason(
                            r.function, b, "min-kernels",
                            f"its region has {r.kernels} kernel launch"
                            f"{'es' if r.kernels != 1 else ''}, fewer than --min-kernels {n}"))

    # ---- regions -------------------------------------------------------------------------

    def _start_region(self):
        self.builder = RegionPlan("capture", self.fn.name)

    def _end_region(self):
        if self.builder is not None and self.builder.bindings:
            self.capture_regions.append(self.builder)
        self.builder = None

    def _add_static(self, b, is_alloc: bool):
        if is_alloc:
            self.alloc_builder.bindings.append(b)
            self.binding_to_region[id(b.var)] = self.alloc_builder
        elif self.builder is not None:
            self.builder.bindings.append(b)
            self.binding_to_region[id(b.var)] = self.builder
            if isinstance(b.value, ir.Call) and \
                    launch_kind(b.value, self.module, self.prims) == "kernel":
                self.builder.kernels += 1
        self.static_vars.add(id(b.var))

    def _mark_input(self, vars_: list, tirs: list = ()):
        builder = self.builder
        if builder is None:
            return
        for v in vars_:
            if self.binding_to_region.get(id(v)) is not builder:
                builder.inputs.setdefault(id(v), v)
        for t in tirs:
            builder.tir_vars.setdefault(id(t), t)

    def _mark_output(self, vars_: list):
        for v in vars_:
            region = self.binding_to_region.get(id(v))
            if region is not None and region is not self.builder:
                region.outputs.setdefault(id(v), v)

    # ---- bindings ------------------------------------------------------------------------

    def _binding(self, b):
        self.defs[id(b.var)] = b
        if not isinstance(b, ir.VarBinding):
            return  # match_cast: TVM's planner does not look at it
        v = b.value
        t = type(v)
        if t is ir.If:
            # As TVM: each branch's blocks are block scopes of their own (regions inside a
            # branch stay there); a static storage in a branch still joins the function's
            # storages. The If itself neither joins nor closes the region around it, and
            # its var is not static.
            if self.options.if_ends_region:
                self._if_as_barrier(v)
                return
            self._blocks(v.true_branch.blocks)
            self._blocks(v.false_branch.blocks)
            return
        if t is ir.Function:
            # Not TVM (its planner crashes on a nested function: it ends the enclosing
            # function's storage scope): a nested function is left as written.
            return
        if t is ir.Call:
            self._call(b, v)
        elif t is ir.Var:
            if self._static_expr(v):
                self._add_static(b, False)
                self._mark_input([v])
            else:
                self._end_region()
            self._mark_output([v])
        elif t is ir.Constant:
            self._add_static(b, False)
        elif t is ir.Tuple:
            args: list = []
            tirs: list = []
            if self._static_list(v.fields, args, tirs):
                self._add_static(b, False)
                self._mark_input(args, tirs)
            else:
                self._end_region()
            self._mark_output(args)
        elif t is ir.TupleGetItem:
            tup = v.tuple_value
            if type(tup) is not ir.Var:
                self._end_region()  # not normalized; TVM would not see this
                return
            if self._static_expr(tup):
                self._add_static(b, False)
                self._mark_input([tup])
            else:
                self._end_region()
            self._mark_output([tup])
        # Other values (shapes, prim values, strings, ...) neither join nor close a region.

    def _call(self, b, call: ir.Call):
        op = call.op
        if isinstance(op, ir.Op):
            if op.name == "relax.memory.alloc_storage":
                if self._static_alloc_storage(b):
                    self._add_static(b, True)
                return
            if op.name == "relax.builtin.alloc_tensor":
                return
        kind = launch_kind(call, self.module, self.prims)
        if kind == "kernel":
            self.launches[self.fn.name] = self.launches.get(self.fn.name, 0) + 1
        call_prim = isinstance(op, ir.GlobalVarRef) and op.name in self.prims
        args: list = []
        tirs: list = []
        static = self._static_list(call.args, args, tirs)
        excluded = False
        if static and isinstance(op, ir.GlobalVarRef) and not call_prim:
            static = False
        if static and isinstance(op, ir.Var):
            # Not TVM (which would lift it with static arguments): a call to a local
            # function runs Relax code (allocations, control flow), never a graph.
            static = False
        if static and isinstance(op, ir.ExternFunc) and op.name.startswith("vm.builtin"):
            static = False
        if static and self.options.exclude and kind == "kernel" and \
                any(fnmatch.fnmatchcase(callee_name(call), g) for g in self.options.exclude):
            static = False
            excluded = True
        if static:
            if self.builder is None and kind == "kernel":
                self._start_region()
            self._add_static(b, False)
            self._mark_input(args, tirs)
        else:
            self._end_region()
            if kind is not None:
                self._explain(b, call, kind, excluded, args)
        self._mark_output(args)

    def _static_alloc_storage(self, b) -> bool:
        if id(b.var) in self.disabled_storages:
            return False
        shape = b.value.args[0]
        return isinstance(shape, ir.ShapeExpr) and \
            all(isinstance(d, ir.IntImm) for d in shape.values)

    # ---- what is static ------------------------------------------------------------------

    def _static_list(self, exprs, vars_out: list | None = None,
                     tirs_out: list | None = None) -> bool:
        result = True
        collecting = vars_out is not None or tirs_out is not None
        for e in exprs:
            result &= self._static_expr(e, vars_out, tirs_out)
            if not collecting and not result:
                return False
        return result

    def _static_expr(self, e, vars_out: list | None = None, tirs_out: list | None = None) -> bool:
        t = type(e)
        if t in (ir.Constant, ir.DataTypeImm, ir.StringImm, ir.GlobalVarRef, ir.Literal):
            return True
        if t is ir.Var:
            if vars_out is not None:
                vars_out.append(e)
            return id(e) in self.static_vars and self._static_sinfo(e.sinfo, vars_out, tirs_out)
        if t is ir.PrimValue:
            return self._static_prim(e.value, tirs_out)
        if t is ir.ShapeExpr:
            return self._static_prims(e.values, tirs_out)
        if t is ir.Tuple:
            return self._static_list(e.fields, vars_out, tirs_out)
        return False

    def _static_prims(self, values, tirs_out) -> bool:
        result = True
        for v in values:
            result &= self._static_prim(v, tirs_out)
            if tirs_out is None and not result:
                return False
        return result

    def _static_prim(self, e, tirs_out) -> bool:
        ok = True
        for v in ir.prim_vars(e, []) if not isinstance(e, (ir.IntImm, ir.FloatImm)) else ():
            if id(v) not in self.capture_syms:
                ok = False
                continue
            if tirs_out is not None:
                tirs_out.append(v)
        return ok

    def _static_sinfo(self, s, vars_out, tirs_out) -> bool:
        t = type(s)
        if t is ir.TensorSInfo:
            return s.shape is not None and self._static_prims(s.shape, tirs_out)
        if t is ir.ShapeSInfo:
            return s.values is not None and self._static_prims(s.values, tirs_out)
        if t is ir.TupleSInfo:
            result = True
            for f in s.fields:
                result &= self._static_sinfo(f, vars_out, tirs_out)
                if vars_out is None and tirs_out is None and not result:
                    return False
            return result
        return t is ir.ObjectSInfo or t is ir.PrimSInfo

    # ---- explanations --------------------------------------------------------------------

    def _launch_reason(self, b, code: str, message: str):
        self.reasons.append(Reason(self.fn.name, b, code, message))

    def _explain(self, b, call: ir.Call, kind: str, excluded: bool, args: list):
        if kind == "vm-builtin":
            self._launch_reason(b, "vm-builtin", f"'{callee_name(call)}' is a vm.builtin "
                                                 "function; those are never captured")
            return
        if kind == "relax-call":
            self._launch_reason(b, "relax-call", f"'{callee_name(call)}' is a Relax function; "
                                                 "calls to Relax functions are never captured")
            return
        if excluded:
            self._launch_reason(b, "excluded", f"'{callee_name(call)}' matches --exclude")
            return
        for a in call.args:
            found = self._why_not_static(a, 0)
            if found is not None:
                self._launch_reason(b, *found)
                return
        self._launch_reason(b, "non-static-input", REASON_CODES["non-static-input"])

    def _why_not_static(self, e, depth: int):
        """(code, message) for the first reason `e` is not static, or None if it is."""
        if depth > 50 or self._static_expr(e):
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
        if id(e) in self.static_vars:
            s = e.sinfo
            if isinstance(s, ir.TensorSInfo) and s.shape is None:
                return ("unknown-shape", f"the shape of '{name}' is not known")
            return ("symbolic-shape", f"the shape of '{name}' uses a symbolic variable that is "
                    "not captured (add it to relax.rewrite_cuda_graph.capture_symbolic_vars)")
        if id(e) in self.params:
            if self.fn.attr("num_input") is None:
                why = "no num_input attribute, so every parameter is an input"
            else:
                why = f"before num_input={self.num_input}"
            return ("param-input", f"'{name}' is an input of the function (parameter "
                    f"{self.params[id(e)]}, {why}); its buffer changes between calls")
        b = self.defs.get(id(e))
        if b is None or not isinstance(b, ir.VarBinding):
            return ("non-static-input", f"'{name}' is computed outside any graph each call")
        v = b.value
        if isinstance(v, ir.Call) and isinstance(v.op, ir.Op):
            if v.op.name == "relax.builtin.alloc_tensor":
                return ("dynamic-alloc", f"'{name}' is allocated by R.builtin.alloc_tensor "
                        "each call (not statically planned memory)")
            if v.op.name == "relax.memory.alloc_tensor" and type(v.args[0]) is ir.Var:
                storage = v.args[0]
                if id(storage) in self.disabled_storages:
                    return ("output-storage", f"'{name}' lives in storage '{storage.name}', "
                            "which flows to the return value")
                sb = self.defs.get(id(storage))
                if id(storage) not in self.static_vars and sb is not None and \
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


def plan_module(module: ir.Module, options: PlanOptions | None = None) -> ModulePlan:
    return RegionPlanner(module, options).plan()
