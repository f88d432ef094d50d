"""Step 2 of the rewrite: find the static regions of each function and plan their lifting. Reads IR only.

A port of TVM's CUDAGraphRewritePlanner (src/relax/transform/rewrite_cuda_graph.cc), with
the same notion of static:

* static vars: storages of constant size (`R.memory.alloc_storage` whose size is all
  integers, and whose tensors do not flow to the return value), tensors carved from them,
  weights (parameters past `num_input`), and bindings computed only from static values,
  strings, dtypes, constants and global functions;
* a symbolic variable may appear in a static shape only if it is captured: it comes from a
  weight's shape, or is named in the `relax.rewrite_cuda_graph.capture_symbolic_vars`
  attribute (or in the option `capture_symbolic`, `--capture-symbolic`, as if every function
  named it there); it is then passed to the graph as a trailing `R.shape([...])` and keys the
  capture. A region keyed by a variable the option bounds (`VAR:MAX`) carries its guard
  (`RegionPlan.guards`), which the rewriter turns into an `if` (not TVM);
* a region is a maximal run of static bindings in one binding block, opened by a kernel
  launch (a PrimFunc call, a packed call, an operator other than memory/builtin/reshape/
  null_value/call_builtin_with_ctx) and closed by any non-static binding; `vm.builtin.*`
  packed calls and calls to Relax functions are never captured. Not TVM (correction 8):
  nor is a call the capture-safety table forbids (capture_safety.py: an external function
  that allocates, synchronises or keeps host state, a PrimFunc whose body calls one,
  `relax.to_vdevice`); it closes the region as a non-static binding does.

Its input is the module and, from the storage collector (step 1), the storages whose
tensors flow to each function's return value, and the vars whose values do (a call bound to
one that allocates its result is not static: correction 3). Its output is data: one
`RegionPlan` per region to capture and one per function for its storages, the values found
static, and, for every kernel launch left outside a graph, a `LeftOutside` naming the
planner's decision; why that decision was taken, in words, is the explain step's job
(explain.py).

TVM's quirks kept on purpose (the default output equals TVM's): a dataflow block gets no scope
of its own, so a region opened there stays open across following blocks; bindings whose
value is a shape, prim value, string or match_cast neither join nor close a region.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from .. import ir
from ..ir import callee_name
from .capture_safety import CaptureSafety, Unsafe
from .options import RewriteOptions
from .storage_collector import collect_returned_values, free_vars

KERNEL_OP_EXCLUDED_PREFIXES = ("relax.memory", "relax.builtin")
KERNEL_OP_EXCLUDED = {"relax.reshape", "relax.null_value", "relax.call_builtin_with_ctx"}
# Operators whose result is never memory the call allocates: a storage or a tensor in one
# (step 1's business), a view of an argument, a null object.
VIEW_OPS_PREFIXES = ("relax.memory", "relax.builtin")
VIEW_OPS = {"relax.reshape", "relax.null_value", "relax.vm.alloc_storage",
            "relax.vm.alloc_tensor"}


@dataclass(eq=False)
class RegionPlan:
    """A run of bindings to lift: TVM's FuncBuilder before it builds anything."""

    kind: str  # "capture" | "alloc"
    function: str
    bindings: list = field(default_factory=list)  # ir.VarBinding, in order
    inputs: dict = field(default_factory=dict)  # Var -> itself (an ordered set), by first use
    outputs: dict = field(default_factory=dict)  # Var -> itself, in order of marking
    tir_vars: dict = field(default_factory=dict)  # SymVar -> itself (shape-expr input)
    kernels: int = 0  # kernel launches among the bindings
    dropped: str | None = None  # why the region is not lifted after all (e.g. min-kernels)
    region_id: int = -1  # capture regions: 0, 1, ... in module order
    # (SymVar, MAX) for each symbolic variable keying the graph that `--capture-symbolic
    # VAR:MAX` bounds: the graph runs only while every one is <= its MAX (rewriter.py).
    guards: tuple = ()
    # --capture-buckets (buckets.py): how the region runs at a bucket of a variable, or why
    # it cannot: (VAR, the first reason, {id(binding): its reason}).
    buckets: object = None
    bucket_reason: tuple | None = None

    @property
    def launch_point(self) -> ir.Var:
        return self.bindings[0].var


@dataclass(frozen=True)
class LeftOutside:
    """A kernel launch (or a binding of an unlifted region) the planner left outside every
    graph, and the planner's decision that left it there."""

    function: str
    binding: object  # ir.VarBinding
    # "not-static" (an argument is not static), "vm-builtin", "relax-call", "excluded",
    # "open-dataflow-region", "dataflow-block", "function-not-selected", "min-kernels",
    # "returned-result" (it allocates its result, which the function returns) or
    # "unsafe-extern" (correction 8: an external function a graph cannot replay)
    cause: str
    region: RegionPlan | None = None  # min-kernels: the region dropped
    unsafe: Unsafe | None = None  # unsafe-extern: the symbol and the table's rule


@dataclass
class ModulePlan:
    capture_regions: list  # RegionPlan, in the order TVM lifts them
    alloc_regions: list  # RegionPlan, one per function with lifted storages, in module order
    outside: list  # LeftOutside, in the order the planner decided
    launches: dict  # function name -> number of kernel launches (as TVM counts them)
    planned: list  # names of the functions planned
    statics: "StaticValues"  # what the planner found static, for the explanations

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


def allocates_result(call: ir.Call, result_sinfo) -> bool:
    """Does the call return memory of its own making (an operator's result, a tensor a packed
    function returns, call_tir's outputs) rather than write memory it is given? Captured in a
    graph, that memory is the graph's: every replay writes it again. `result_sinfo`: the
    struct info of the var the call is bound to (None when unknown). As the executor runs
    them (docs/EXECUTOR.md): a PrimFunc writes its arguments; a packed call returns fresh
    tensors when its struct info has any; an operator allocates its result."""
    op = call.op
    if isinstance(op, ir.GlobalVarRef):
        return False  # a PrimFunc writes its arguments; a Relax function is never captured
    if isinstance(op, ir.Op) and (op.name.startswith(VIEW_OPS_PREFIXES) or op.name in VIEW_OPS):
        return False
    sinfos = [s for s in (result_sinfo, *call.sinfo_args) if s is not None]
    if not sinfos:
        # An operator written without struct info still makes its result (the executor
        # takes an elementwise one's shape from its inputs); a packed call typed nothing
        # returns no tensor.
        return isinstance(op, ir.Op)
    return any(_holds_tensor(s) for s in sinfos)


def _holds_tensor(s) -> bool:
    if isinstance(s, ir.TensorSInfo):
        return True
    return isinstance(s, ir.TupleSInfo) and any(_holds_tensor(f) for f in s.fields)


class StaticValues:
    """The vars found static, the captured symbolic variables, and whether an expression is
    static given them. The planner grows both as it goes; a var is added when its binding is
    planned, before any use of it, and a function's symbolic variables when the planner
    enters it (each function has its own SymVar objects), so the final sets answer for any
    binding exactly as they did when the planner reached it (which the explain step relies
    on)."""

    def __init__(self):
        self.vars: set[ir.Var] = set()
        self.syms: set[ir.SymVar] = set()

    def exprs(self, exprs, vars_out: list | None = None, tirs_out: list | None = None) -> bool:
        result = True
        collecting = vars_out is not None or tirs_out is not None
        for e in exprs:
            result &= self.expr(e, vars_out, tirs_out)
            if not collecting and not result:
                return False
        return result

    def expr(self, e, vars_out: list | None = None, tirs_out: list | None = None) -> bool:
        t = type(e)
        if t is ir.Var:  # the commonest
            if vars_out is not None:
                vars_out.append(e)
            return e in self.vars and self.sinfo(e.sinfo, vars_out, tirs_out)
        if t in (ir.Constant, ir.DataTypeImm, ir.StringImm, ir.GlobalVarRef, ir.Literal):
            return True
        if t is ir.PrimValue:
            return self.prim(e.value, tirs_out)
        if t is ir.ShapeExpr:
            return self.prims(e.values, tirs_out)
        if t is ir.Tuple:
            return self.exprs(e.fields, vars_out, tirs_out)
        return False

    def prims(self, values, tirs_out) -> bool:
        result = True
        for v in values:
            result &= self.prim(v, tirs_out)
            if tirs_out is None and not result:
                return False
        return result

    def prim(self, e, tirs_out) -> bool:
        ok = True
        for v in ir.prim_vars(e, []) if not isinstance(e, (ir.IntImm, ir.FloatImm)) else ():
            if v not in self.syms:
                ok = False
                continue
            if tirs_out is not None:
                tirs_out.append(v)
        return ok

    def sinfo(self, s, vars_out, tirs_out) -> bool:
        t = type(s)
        if t is ir.TensorSInfo:
            shape = s.shape
            if shape is None:
                return False
            for d in shape:  # most shapes are constants: nothing to look up or note
                if type(d) is not ir.IntImm:
                    return self.prims(shape, tirs_out)
            return True
        if t is ir.ShapeSInfo:
            return s.values is not None and self.prims(s.values, tirs_out)
        if t is ir.TupleSInfo:
            result = True
            for f in s.fields:
                result &= self.sinfo(f, vars_out, tirs_out)
                if vars_out is None and tirs_out is None and not result:
                    return False
            return result
        return t is ir.ObjectSInfo or t is ir.PrimSInfo


class RegionPlanner:
    def __init__(self, module: ir.Module, options: RewriteOptions,
                 returned_storages: dict[str, set[ir.Var]],
                 returned_values: dict[str, set[ir.Var]]):
        self.module = module
        self.prims = {f.name for f in module.functions if isinstance(f, ir.PrimFunc)}
        self.options = options
        self.returned_storages = returned_storages
        self.returned_values = returned_values
        self.statics = StaticValues()
        self.binding_to_region: dict[ir.Var, RegionPlan] = {}
        self.capture_regions: list[RegionPlan] = []
        self.alloc_regions: list[RegionPlan] = []
        self.disabled_storages: set[ir.Var] = set()
        self.builder: RegionPlan | None = None  # the current block scope's capture region
        self.alloc_builder: RegionPlan | None = None
        self.outside: list[LeftOutside] = []
        self.launches: dict[str, int] = {}
        self.fn: ir.Function | None = None
        # Correction 3: the vars of the function being planned whose value it may return.
        self.returned: set[ir.Var] = set()
        # Correction 7: the bindings of the dataflow block being planned are not static.
        self.in_dataflow = False
        # Correction 8: the capture-safety table's verdicts on external calls.
        self.safety = CaptureSafety(module, options) if options.capture_safety else None

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
        plan = ModulePlan(self.capture_regions, self.alloc_regions, self.outside, self.launches,
                          planned, self.statics)
        bounds = self.options.bounds
        for i, r in enumerate(plan.kept_captures()):
            r.region_id = i
            # A bound not below the variable's tir_var_upper_bound holds for every call: no
            # guard (pipeline.py warns).
            upper = self.module.function(r.function).upper_bounds()
            r.guards = tuple((s, bounds[s.name]) for s in r.tir_vars if s.name in bounds
                             and bounds[s.name] < upper.get(s.name, bounds[s.name] + 1))
        return plan

    def _plan_function(self, f: ir.Function):
        self.fn = f
        self.launches[f.name] = 0
        num_inputs = f.num_input
        hints = f.attr("relax.rewrite_cuda_graph.capture_symbolic_vars", None)
        hint_names = set(hints[1]) if isinstance(hints, tuple) and len(hints) == 2 else set()
        hint_names.update(name for name, _ in self.options.capture_symbolic)
        hint_names.update(name for name, _ in self.options.capture_buckets)
        for i, p in enumerate(f.params):
            syms = ir.definable_sym_vars(p.sinfo)
            if i < num_inputs:
                for s in syms:
                    if s.name in hint_names:
                        self.statics.syms.add(s)
            else:
                self.statics.vars.add(p)
                for s in syms:
                    self.statics.syms.add(s)
        self.disabled_storages = self.returned_storages[f.name]
        self.returned = self.returned_values[f.name] \
            if self.options.allocated_results_outside else set()
        self.alloc_builder = RegionPlan("alloc", f.name)
        # Not TVM: a region left open by a dataflow block does not run on into the next
        # function (TVM's block scope outlives functions; its output then mixes functions).
        self.builder = None
        self._blocks(f.blocks)
        if self.options.keep_returned_defined:
            for v in free_vars(f.body, []):
                region = self.binding_to_region.get(v)
                if region is not None:
                    region.outputs.setdefault(v, v)
        if self.builder is not None and self.builder.bindings:
            # TVM never closes it: its bindings stay in the function.
            for b in self.builder.bindings:
                self.outside.append(LeftOutside(f.name, b, "open-dataflow-region"))
                self.binding_to_region.pop(b.var, None)
        self.builder = None
        if self.alloc_builder.outputs:
            self.alloc_regions.append(self.alloc_builder)
        self.alloc_builder = None

    def _blocks(self, blocks: list):
        for block in blocks:
            if block.is_dataflow and self.options.no_graph_in_dataflow:
                # Not TVM (correction 7): nothing in a dataflow block is static, so no region
                # opens there and no storage of one is lifted. A graph launched in a dataflow
                # block is an impure call there, which TVM's well-formed check refuses; TVM
                # writes that, or raises when the region binds a dataflow var (check_lifted).
                saved, self.in_dataflow = self.in_dataflow, True
                for b in block.bindings:
                    self._dataflow_binding(b)
                self.in_dataflow = saved
            elif block.is_dataflow:
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
                    self.outside.append(LeftOutside(f.name, b, "function-not-selected"))

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
                        self.outside.append(LeftOutside(r.function, b, "min-kernels", r))

    # ---- regions -------------------------------------------------------------------------

    def _start_region(self):
        self.builder = RegionPlan("capture", self.fn.name)

    def _end_region(self):
        if self.builder is not None and self.builder.bindings:
            self.capture_regions.append(self.builder)
        self.builder = None

    def _add_static(self, b, is_alloc: bool, kind: str | None = None):
        """`kind`: the binding's launch kind, where it is a call (launch_kind)."""
        if is_alloc:
            self.alloc_builder.bindings.append(b)
            self.binding_to_region[b.var] = self.alloc_builder
        elif self.builder is not None:
            self.builder.bindings.append(b)
            self.binding_to_region[b.var] = self.builder
            if kind == "kernel":
                self.builder.kernels += 1
        self.statics.vars.add(b.var)

    def _mark_input(self, vars_: list, tirs: list = ()):
        builder = self.builder
        if builder is None:
            return
        for v in vars_:
            if self.binding_to_region.get(v) is not builder:
                builder.inputs.setdefault(v, v)
        for t in tirs:
            builder.tir_vars.setdefault(t, t)

    def _mark_output(self, vars_: list):
        for v in vars_:
            region = self.binding_to_region.get(v)
            if region is not None and region is not self.builder:
                region.outputs.setdefault(v, v)

    # ---- bindings ------------------------------------------------------------------------

    def _binding(self, b):
        if not isinstance(b, ir.VarBinding):
            # match_cast: TVM's planner does not look at it, so a lifted var used only by a
            # match_cast outside the region is no output of it and is left undefined there
            # (TVM's output is ill formed). Not TVM (correction 3, keep_returned_defined):
            # the use counts; the match_cast still neither joins nor closes the region.
            # The match_cast stays outside even the region still open (it is never lifted),
            # so that region's vars it uses are outputs too.
            if self.options.keep_returned_defined:
                for v in free_vars(b.value, []):
                    region = self.binding_to_region.get(v)
                    if region is not None and region.kind == "capture":
                        region.outputs.setdefault(v, v)
            return
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
            if self.statics.expr(v):
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
            if self.statics.exprs(v.fields, args, tirs):
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
            if self.statics.expr(tup):
                self._add_static(b, False)
                self._mark_input([tup])
            else:
                self._end_region()
            self._mark_output([tup])
        # Other values (shapes, prim values, strings, ...) neither join nor close a region.

    def _dataflow_binding(self, b):
        """A binding of a dataflow block under correction 7: never static. A launch that
        would have been captured but for the block is left outside as "dataflow-block"."""
        v = b.value
        if isinstance(b, ir.VarBinding) and type(v) is ir.Call and \
                launch_kind(v, self.module, self.prims) is not None:
            kind, static, excluded, args, _, unsafe = self._classify(v)
            self._end_region()
            cause = kind if kind in ("vm-builtin", "relax-call") else "excluded" if excluded \
                else "unsafe-extern" if unsafe else "dataflow-block" if static else "not-static"
            self.outside.append(LeftOutside(self.fn.name, b, cause, unsafe=unsafe))
            self._mark_output(args)
            return
        self._end_region()
        self._mark_output(free_vars(v, []))

    def _classify(self, call: ir.Call):
        """(launch kind, static, excluded, vars, symbolic vars, unsafe) of a call: whether
        TVM's planner would add it to a region (and, correction 8, whether the capture-safety
        table forbids it: `unsafe`, an Unsafe, and static False); counts the launch."""
        op = call.op
        kind = launch_kind(call, self.module, self.prims)
        if kind == "kernel":
            self.launches[self.fn.name] = self.launches.get(self.fn.name, 0) + 1
        call_prim = isinstance(op, ir.GlobalVarRef) and op.name in self.prims
        args: list = []
        tirs: list = []
        static = self.statics.exprs(call.args, args, tirs)
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
        unsafe = None
        if static and kind == "kernel" and self.safety is not None:
            unsafe = self.safety.judge(call)
            if unsafe is not None:
                static = False
        return kind, static, excluded, args, tirs, unsafe

    def _call(self, b, call: ir.Call):
        op = call.op
        if isinstance(op, ir.Op):
            if op.name == "relax.memory.alloc_storage":
                if self._static_alloc_storage(b):
                    self._add_static(b, True)
                return
            if op.name == "relax.builtin.alloc_tensor":
                return
        kind, static, excluded, args, tirs, unsafe = self._classify(call)
        escapes = static and b.var in self.returned and allocates_result(call, b.var.sinfo)
        if static and not escapes:
            if self.builder is None and kind == "kernel":
                self._start_region()
            self._add_static(b, False, kind)
            self._mark_input(args, tirs)
        else:
            # Not TVM (correction 3): a call that allocates a result the function returns
            # stays outside, made fresh each call; lifted, the result would be the graph's
            # memory, which the next call's replay overwrites while the caller holds it.
            self._end_region()
            if kind is not None:
                cause = kind if kind in ("vm-builtin", "relax-call") else \
                    "excluded" if excluded else "unsafe-extern" if unsafe else \
                    "returned-result" if escapes else "not-static"
                self.outside.append(LeftOutside(self.fn.name, b, cause, unsafe=unsafe))
        self._mark_output(args)

    def _static_alloc_storage(self, b) -> bool:
        if b.var in self.disabled_storages:
            return False
        shape = b.value.args[0]
        return isinstance(shape, ir.ShapeExpr) and \
            all(isinstance(d, ir.IntImm) for d in shape.values)


class UnknownSymbolicVar(ValueError):
    """A `capture_symbolic` variable that no Relax function of the module has in the shapes
    of its inputs: capturing it would change nothing, most likely a misspelling."""


def input_sym_vars(module: ir.Module) -> list[str]:
    """The names of the symbolic variables the inputs of the module's Relax functions define
    (the parameters before `num_input`: those `capture_symbolic` and the hint attribute
    apply to), in order of first appearance."""
    names: dict[str, None] = {}
    for f in module.relax_functions():
        for p in f.params[:f.num_input]:
            for s in ir.definable_sym_vars(p.sinfo):
                names.setdefault(s.name, None)
    return list(names)


def check_capture_symbolic(module: ir.Module, options: RewriteOptions) -> None:
    """UnknownSymbolicVar unless every `capture_symbolic` variable is a symbolic variable of
    some function's inputs; the message lists those there are."""
    known = input_sym_vars(module)
    missing = [name for name, _ in options.capture_symbolic + options.capture_buckets
               if name not in known]
    if missing:
        raise UnknownSymbolicVar(
            f"no function of the module has a symbolic variable named {', '.join(missing)} in "
            f"the shapes of its inputs, to capture (it has "
            f"{', '.join(known) or 'none'})")


def plan_module(module: ir.Module, options: RewriteOptions,
                returned_storages: dict[str, set[ir.Var]],
                returned_values: dict[str, set[ir.Var]] | None = None) -> ModulePlan:
    """`returned_storages`, `returned_values`: the storage collector's results for each
    function planned (`collect`, `collect_returned_values`; the latter computed here when
    not given)."""
    if returned_values is None:
        returned_values = collect_returned_values(module, options.functions)
    return RegionPlanner(module, options, returned_storages, returned_values).plan()
