"""Step 5 of the rewrite: apply the plans. The only step that builds IR.

A port of TVM's CUDAGraphRewriter and FuncBuilder:

* each capture region becomes a private function `<func>_cuda_graph_capture` (its inputs as
  parameters, then a `shape_expr: R.Shape([...])` for captured symbolic vars; its outputs
  returned as a tuple), launched in place of the region's first binding by
  `R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (f, (args), index[, shape]))`;
* the merged storages become one private `cuda_graph_alloc`, fetched at the first static
  storage of each function by `vm.builtin.cuda_graph.get_cached_alloc`;
* region outputs are redefined (`x = gv[i]`) where they were bound, or earlier where a later
  launch needs them as input; lifted bindings disappear;
* a region whose graph is keyed by a variable `--capture-symbolic VAR:MAX` bounds is launched
  under a guard (not TVM): `cond = R.prim_value(VAR <= MAX)`, then an `if cond:` whose
  then-branch launches the graph and whose else-branch runs the region's own bindings, both
  giving the region's outputs as one tuple, redefined from it after the `if`
  (docs/REWRITE.md, "Capturing symbolic shapes");
* as TVM's BlockBuilder.AddFunction does, a lifted function structurally equal to one already
  in the module is not added again, and names are made unique (`cuda_graph_alloc1`).
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import SourceError
from ..ir.equality import Encoder, structural_key
from ..ir.sinfo import deduce, is_void, substitute, subst_prim
from .alloc_merger import MergedAlloc
from .buckets import bucketed_branch
from .region_planner import ModulePlan, RegionPlan

FORCE_PURE = ("relax.force_pure", ir.Literal(True))


class _Module:
    """The module being built: functions, unique names, dedup of added functions."""

    def __init__(self, module: ir.Module):
        self.functions: dict[str, object] = {f.name: f for f in module.functions}
        self.added: list = []  # names of functions added, in order
        self.name_counts: dict[str, int] = {}
        # Dedup in two steps: a cheap shape for every function; the full structural key
        # only for functions whose shape matches a lifted one (the big originals never do).
        self._unkeyed: dict[tuple, list[str]] = {}
        self._by_key: dict[tuple, list[str]] = {}
        for f in module.functions:
            if isinstance(f, ir.Function):
                self._unkeyed.setdefault(_shape(f), []).append(f.name)

    def unique_name(self, hint: str) -> str:
        while True:
            n = self.name_counts.get(hint, 0)
            self.name_counts[hint] = n + 1
            name = hint if n == 0 else f"{hint}{n}"
            if name not in self.functions:
                return name

    def add_function(self, f: ir.Function, hint: str) -> str:
        for name in self._unkeyed.pop(_shape(f), ()):
            self._by_key.setdefault(structural_key(self.functions[name]), []).append(name)
        key = structural_key(f)
        same = self._by_key.get(key)
        if same:  # equal keys are structurally equal functions (ir.equality)
            return same[0]
        name = self.unique_name(hint)
        self.functions[name] = ir.replace(f, name=name)
        self.added.append(name)
        self._by_key.setdefault(key, []).append(name)
        return name


def _shape(f) -> tuple:
    if isinstance(f, ir.PrimFunc):
        return ("prim",)
    return (len(f.params), sum(len(b.bindings) for b in f.blocks), f.is_private)


def _new_var(name: str, sinfo, dataflow: bool = False) -> ir.Var:
    return ir.Var(name, sinfo, dataflow, ir.NO_LOC, sinfo is not None)


# ---- lifted functions ---------------------------------------------------------------------

class _Copier:
    """Copies bindings into a new function: vars and symbolic vars renewed and remapped
    (TVM's FuncBuilder re-emits them through an ExprMutator)."""

    def __init__(self):
        self.vars: dict[ir.Var, ir.Var] = {}
        self.syms: dict[ir.SymVar, ir.SymVar] = {}

    def sinfo(self, s):
        return substitute(s, self.syms) if s is not None else None

    def expr(self, e):
        t = type(e)
        if t is ir.Var:
            v = self.vars.get(e, e)
            return ir.Tuple(()) if is_void(v.sinfo) else v
        if t is ir.Call:
            expr = self.expr
            op = expr(e.op) if type(e.op) is ir.Var else e.op
            sinfo_args = tuple([self.sinfo(s) for s in e.sinfo_args]) if self.syms else \
                e.sinfo_args
            attrs = tuple([(k, expr(v)) for k, v in e.attrs]) if e.attrs else ()
            return ir.Call(op, tuple([expr(a) for a in e.args]), attrs, sinfo_args)
        if t is ir.Tuple:
            return ir.Tuple(tuple(self.expr(f) for f in e.fields))
        if t is ir.TupleGetItem:
            return ir.TupleGetItem(self.expr(e.tuple_value), e.index)
        if not self.syms:
            return e  # shapes and prim values only change when symbolic vars are renewed
        if t is ir.ShapeExpr:
            return ir.ShapeExpr(tuple(subst_prim(v, self.syms) for v in e.values))
        if t is ir.PrimValue:
            return ir.PrimValue(subst_prim(e.value, self.syms))
        return e

    def binding(self, b, functions: dict) -> ir.VarBinding:
        value = self.expr(b.value)
        # TVM re-derives the struct info of a re-emitted binding from its new value. For an
        # unannotated var that is the old deduction with symbolic vars renewed.
        sinfo = _with_value_vdevice(deduce(value, functions), b.var.sinfo) \
            if b.var.annotated else None
        if sinfo is None:
            sinfo = self.sinfo(b.var.sinfo)
        var = _new_var(b.var.name, sinfo)
        self.vars[b.var] = var
        return ir.VarBinding(var, value)


def _function_syms(f: ir.Function) -> tuple:
    out: list = []
    for p in f.params:
        ir.sinfo_prim_vars(p.sinfo, out)
    for block in f.blocks:
        for b in block.bindings:
            if b.var.sinfo is not None:
                ir.sinfo_prim_vars(b.var.sinfo, out)
    if f.ret_sinfo is not None:
        ir.sinfo_prim_vars(f.ret_sinfo, out)
    return tuple(out)


def build_lifted(region: RegionPlan, functions: dict, outputs: list) -> ir.Function:
    """TVM's FuncBuilder::Build for a region (inputs, then shape_expr; outputs as a tuple)."""
    c = _Copier()
    params = []
    shape_param = None
    if region.tir_vars:
        new_syms = []
        for old in region.tir_vars.values():
            new = ir.SymVar(old.name, old.dtype)
            c.syms[old] = new
            new_syms.append(new)
        shape_param = _new_var("shape_expr", ir.ShapeSInfo(tuple(new_syms), len(new_syms)))
    for v in region.inputs.values():
        p = _new_var(v.name, c.sinfo(v.sinfo))
        c.vars[v] = p
        params.append(p)
    if shape_param is not None:
        params.append(shape_param)
    bindings = [c.binding(b, functions) for b in region.bindings]
    returned = set(outputs)
    for b in region.bindings:
        if b.var in returned and c.vars[b.var].sinfo is None:
            # The capture function's signature and the launch's ty_args must state it (TVM
            # deduces every operator's struct info; cgraph only views and typed calls):
            # printed without it, the output would not read back.
            raise SourceError(
                f"cgraph cannot deduce the struct info of '{b.var.name}', which the "
                f"capture function lifted from '{region.function}' returns to it; annotate "
                f"the binding ({b.var.name}: R.Tensor(...) = ...)", b.loc)
    out_tuple = ir.Tuple(tuple(c.expr(v) for v in outputs))
    gv = _new_var("gv", deduce(out_tuple, functions))
    bindings.append(ir.VarBinding(gv, out_tuple))
    body = ir.Tuple(()) if is_void(gv.sinfo) else gv
    f = ir.Function("", params, gv.sinfo, [ir.BindingBlock(bindings)], body, [FORCE_PURE],
                    is_private=True, is_pure=True)
    return ir.replace(f, sym_vars=_function_syms(f))


def region_key(region: RegionPlan, outputs: list) -> tuple:
    """What `build_lifted` reads of a region, as the `Encoder` of structural equality sees it
    (local vars and symbolic vars by place of definition, free vars by identity, unknown struct
    info equal to nothing). Two regions with equal keys lift to structurally equal functions,
    which `_Module.add_function` shares: the second needs neither building nor its key (the
    regions of a model's layers mostly have one key)."""
    enc = Encoder()
    sinfo = enc.sinfo
    notes: list = [tuple([(s.name, s.dtype, enc.prim(s)) for s in region.tir_vars.values()])]
    for v in region.inputs.values():
        notes.append(None if v.sinfo is None else sinfo(v.sinfo))
        enc.define(v)
    for b in region.bindings:
        var = b.var
        notes.append((type(b), enc.expr(b.value), var.annotated,
                      None if var.sinfo is None else sinfo(var.sinfo),
                      sinfo(b.sinfo) if type(b) is ir.MatchCast else None))
        enc.define(var)
    notes.append(tuple([enc.expr(v) for v in outputs]))
    return tuple(notes)


# ---- rewriting each function ----------------------------------------------------------------

class _FunctionRewriter:
    """TVM's CUDAGraphRewriter over one function (an ExprMutator)."""

    def __init__(self, owner: "Rewriter", f: ir.Function):
        self.owner = owner
        self.f = f
        self.remap: dict[ir.Var, ir.Var] = {}
        self.redef: dict[ir.Var, tuple] = {}  # var -> (launch var, index)
        self.lifted: set[ir.Var] = set()
        self.out: list | None = None  # bindings of the block being built
        self.dataflow = False
        self.launched: set[RegionPlan] = set()  # plans already launched in this function
        self.name_counts: dict[str, int] = {}
        self.names = {p.name for p in f.params}
        self.names.update(b.var.name for b in ir.nested_bindings(f.blocks))

    def fresh(self, base: str) -> str:
        """An unused name for a var the rewrite adds: gv, gv1, gv2, ... (as TVM names them)."""
        n = self.name_counts.get(base, 0)
        name = base if n == 0 else f"{base}{n}"
        while name in self.names:
            n += 1
            name = f"{base}{n}"
        self.name_counts[base] = n + 1
        self.names.add(name)
        return name

    def run(self) -> ir.Function:
        f = self.f
        blocks, body = self.blocks_and_body(f.blocks, f.body)
        return ir.replace(f, blocks=blocks, body=body)

    def seq(self, s: ir.SeqExpr) -> ir.SeqExpr:
        """A branch of an If, rewritten as a function body is (see `run`)."""
        saved = self.out, self.dataflow
        blocks, body = self.blocks_and_body(s.blocks, s.body)
        self.out, self.dataflow = saved
        return ir.SeqExpr(blocks, body, s.loc)

    def blocks_and_body(self, old_blocks, old_body) -> tuple[list, object]:
        """Rewrite the blocks and result of a function body or a branch."""
        blocks = []
        for block in old_blocks:
            self.out = []
            self.dataflow = block.is_dataflow
            for b in block.bindings:
                self.binding(b)
            if self.out:
                blocks.append(ir.BindingBlock(self.out, block.is_dataflow, block.loc))
        # As TVM's ExprMutator: what visiting the return value emits goes to a new plain block.
        self.out = []
        self.dataflow = False
        body = self.expr(old_body)
        if self.out:
            blocks.append(ir.BindingBlock(self.out))
        return blocks, body

    def emit(self, var: ir.Var, value) -> ir.Var:
        self.out.append(ir.VarBinding(var, value))
        return var

    def binding(self, b):
        o = self.owner
        plan = o.launch_points.get(b.var)
        if plan is not None:
            self.launch(plan)
        if b.var in self.redef and b.var not in self.remap:
            self.emit_redef(b.var)
            return
        if b.var in self.lifted:
            return
        if type(b.value) is ir.If:
            # As TVM's ExprMutator: each branch rewritten in place, its launches and lifted
            # bindings inside it.
            v = b.value
            value = ir.If(self.expr(v.cond), self.seq(v.true_branch), self.seq(v.false_branch),
                          v.loc)
            self.out.append(ir.VarBinding(b.var, value, b.loc, b.bare))
            return
        value = self.expr(b.value)
        if isinstance(b, ir.MatchCast):
            self.out.append(ir.MatchCast(b.var, value, b.sinfo, b.loc))
            return
        if value is b.value:
            self.out.append(b)
            return
        var = b.var
        sinfo = _with_value_vdevice(deduce(value, o.functions), var.sinfo)
        if sinfo is not None and not _same_sinfo(sinfo, var.sinfo):
            var = ir.Var(var.name, sinfo, var.is_dataflow, var.loc, var.annotated)
            self.remap[b.var] = var
        self.out.append(ir.VarBinding(var, value, b.loc, b.bare))

    def expr(self, e):
        t = type(e)
        if t is ir.Var:
            v = self.remap.get(e)
            if v is not None:
                return v
            if e in self.redef:
                return self.emit_redef(e)
            return e
        if t is ir.Call:
            op = self.expr(e.op) if type(e.op) is ir.Var else e.op
            args = tuple(self.expr(a) for a in e.args)
            attrs = tuple((k, self.expr(v)) for k, v in e.attrs)
            if op is e.op and all(x is y for x, y in zip(args, e.args)) and \
                    all(x[1] is y[1] for x, y in zip(attrs, e.attrs)):
                return e
            return ir.Call(op, args, attrs, e.sinfo_args, e.loc)
        if t is ir.Tuple:
            fields = tuple(self.expr(x) for x in e.fields)
            if all(x is y for x, y in zip(fields, e.fields)):
                return e
            return ir.Tuple(fields, e.loc)
        if t is ir.TupleGetItem:
            inner = self.expr(e.tuple_value)
            return e if inner is e.tuple_value else ir.TupleGetItem(inner, e.index, e.loc)
        return e

    def emit_redef(self, var: ir.Var) -> ir.Var:
        launch_var, index = self.redef[var]
        value = ir.TupleGetItem(launch_var, index)
        new = ir.Var(var.name, deduce(value, self.owner.functions), self.dataflow, ir.NO_LOC,
                     True)
        self.remap[var] = new
        return self.emit(new, value)

    def launch(self, plan: RegionPlan):
        o = self.owner
        if plan in self.launched:
            return
        self.launched.add(plan)
        if plan.kind == "capture" and o.fetch_storages_early:
            # Not TVM: a region launched before the function's first static storage may still
            # use one of its storages; fetch them first (TVM passes the storage before it is
            # defined).
            alloc = o.alloc_plan_of.get(plan.function)
            if alloc is not None and alloc not in self.launched and \
                    any(k in alloc.outputs for k in plan.inputs):
                self.launch(alloc)
        if plan.kind == "alloc":
            ret = o.alloc_ret
            call = ir.CachedAlloc.write(o.alloc_name, 0, ret)
            gv = self.emit(_new_var(self.fresh("gv"), ret, self.dataflow), call)
            pid = o.alloc_plan_index[plan]
            for v in plan.outputs.values():
                self.redef[v] = (gv, o.merged.slot[(pid, v)])
        else:
            outputs = list(plan.outputs.values())
            key = region_key(plan, outputs) if o.share_by_region_key else None
            name = o.lifted_names.get(key)
            if name is None:  # a region unlike every one before it
                lifted = build_lifted(plan, o.functions, outputs)
                name = o.module.add_function(lifted, f"{self.f.name}_cuda_graph_capture")
                if key is not None:
                    o.lifted_names[key] = name
            o.capture_names[plan] = name
            callee = o.module.functions[name]
            args = [self.expr(v) for v in plan.inputs.values()]
            call_ty = callee.ret_sinfo
            shape = None
            if plan.tir_vars:
                shape = ir.ShapeExpr(tuple(plan.tir_vars.values()))
                args.append(shape)
                sym_params = callee.params[-1].sinfo.values
                binding = {p: a for p, a in zip(sym_params, plan.tir_vars.values())}
                call_ty = substitute(call_ty, binding)
            index = o.next_capture_index
            o.next_capture_index += 1
            call = ir.GraphLaunch.write(name, tuple(args), index,
                                        shape.values if shape is not None else None, call_ty)
            if plan.guards:
                gv = self.guarded(plan, call, call_ty, outputs)
            elif plan.buckets is not None:  # --capture-buckets with Bn the upper bound
                branch = bucketed_branch(plan, call, call_ty, outputs, self.expr, self.fresh)
                self.out.extend(branch.blocks[0].bindings)
                gv = branch.body
            else:
                gv = _new_var(self.fresh("gv"), call_ty, self.dataflow)
                self.emit(gv, call)
            for i, v in enumerate(outputs):
                self.redef[v] = (gv, i)
        for b in plan.bindings:
            self.lifted.add(b.var)

    def guarded(self, plan: RegionPlan, call: ir.Call, call_ty, outputs: list) -> ir.Var:
        """The graph launch `call` under the guard of `plan` (its bounded symbolic variables
        each at most their MAX): `cond = R.prim_value(n <= 256 [and ...])`, then `gv = if
        cond: <call> else: <the region's bindings>`, each branch giving the region's outputs
        as a tuple, which is returned. Above a bound the region's launches run eagerly on the
        same storages (sized by the variable's upper bound, like every static storage), so a
        region makes at most MAX graphs. The inputs are already resolved (`call`'s
        arguments), so nothing the else-branch reads is defined only inside it."""
        if self.dataflow:
            # Only with --compat tvm (correction 7 off) does a region open in a dataflow
            # block, where Relax has no `if`.
            raise SourceError(
                "--capture-symbolic VAR:MAX cannot guard this graph: its region is in a "
                "dataflow block, where Relax has no `if` (--compat tvm lifts regions there); "
                "give the variable without a bound, or leave out --compat tvm",
                plan.bindings[0].loc)
        test = None
        for sym, bound in plan.guards:
            le = ir.PrimBinOp("<=", sym, ir.IntImm(bound))
            test = le if test is None else ir.PrimBinOp("and", test, le)
        cond_value = ir.PrimValue(test)
        cond = self.emit(_new_var(self.fresh("cond"), ir.PrimSInfo("bool"), False), cond_value)
        graph = _new_var(self.fresh("gv"), call_ty)
        # A region with no output: both branches give `R.tuple()`, as the reader makes of a
        # branch that gives a var of type R.Tuple (so the output reads back the same).
        if plan.buckets is not None:  # --capture-buckets: the graph runs at a bucket
            then = bucketed_branch(plan, call, call_ty, outputs, self.expr, self.fresh)
        else:
            then = ir.SeqExpr([ir.BindingBlock([ir.VarBinding(graph, call)])],
                              ir.Tuple(()) if is_void(call_ty) else graph)
        # The region's bindings as written, reading the inputs as the launch does (a storage
        # fetched from the allocation function, an output of an earlier graph).
        own = {b.var: self.remap.get(b.var) for b in plan.bindings}
        for v in own:
            self.remap[v] = v
        try:
            eager = []
            for b in plan.bindings:
                value = self.expr(b.value)
                eager.append(b if value is b.value else ir.VarBinding(b.var, value, b.loc, b.bare))
        finally:
            for v, before in own.items():
                if before is None:
                    del self.remap[v]
                else:
                    self.remap[v] = before
        result = ir.Tuple(tuple(ir.Tuple(()) if is_void(v.sinfo) else v for v in outputs))
        otherwise = ir.SeqExpr([ir.BindingBlock(eager)], result)
        gv = _new_var(self.fresh("gv"), call_ty)
        self.emit(gv, ir.If(cond, then, otherwise))
        return gv


def _with_value_vdevice(deduced, annotated):
    """The struct info TVM's value has, from what cgraph deduces of it and the var's
    annotation: TVM's reader gives an annotated binding's value the annotation's vdevice
    (`alloc: R.Tensor(..., vdevice="cuda:0:global") = R.memory.alloc_tensor(...)`: the call's
    struct info has it, though alloc_tensor's inference gives none), so the binding keeps it
    when the pass re-emits it (TVM's to_vdevice dump: every re-emitted alloc keeps its var)."""
    if type(deduced) is ir.TensorSInfo and type(annotated) is ir.TensorSInfo and \
            not deduced.vdevice and annotated.vdevice:
        return ir.replace(deduced, vdevice=annotated.vdevice)
    return deduced


def _same_sinfo(a, b) -> bool:
    if b is None:
        return False
    from ..ir.equality import Matcher

    dummy = ir.Module("Module", [])
    return Matcher(dummy, dummy).sinfo(a, b)


class Rewriter:
    share_by_region_key = True  # see region_key; tests turn it off to compare

    def __init__(self, module: ir.Module, plan: ModulePlan, merged: MergedAlloc | None,
                 fetch_storages_early: bool = True):
        self.source = module
        self.fetch_storages_early = fetch_storages_early
        self.alloc_plan_of = {r.function: r for r in plan.alloc_regions}
        self.plan = plan
        self.merged = merged
        self.module = _Module(module)
        self.functions = self.module.functions
        self.launch_points: dict[ir.Var, RegionPlan] = {}
        self.alloc_plan_index: dict[RegionPlan, int] = {}
        self.capture_names: dict[RegionPlan, str] = {}
        self.lifted_names: dict[tuple, str] = {}  # region_key -> the function it launches
        self.next_capture_index = 0
        self.alloc_name = ""
        self.alloc_ret = None

    def run(self) -> ir.Module:
        plan = self.plan
        if plan.alloc_regions:
            alloc = self._alloc_function()
            self.alloc_name = self.module.add_function(alloc, "cuda_graph_alloc")
            self.alloc_ret = self.functions[self.alloc_name].ret_sinfo
        for i, r in enumerate(plan.alloc_regions):
            self.alloc_plan_index[r] = i
            self.launch_points[r.launch_point] = r
        for r in plan.kept_captures():
            self.launch_points[r.launch_point] = r
        rewritten: dict[str, ir.Function] = {}
        for f in self.source.relax_functions():
            if f.name in plan.planned:
                rewritten[f.name] = _FunctionRewriter(self, f).run()
                self.functions[f.name] = rewritten[f.name]
        return self._assemble(rewritten)

    def _alloc_function(self) -> ir.Function:
        c = _Copier()
        bindings = [c.binding(b, self.functions) for b in self.merged.bindings]
        out = ir.Tuple(tuple(b.var for b in bindings))
        gv = _new_var("gv", deduce(out, self.functions))
        bindings.append(ir.VarBinding(gv, out))
        return ir.Function("", [], gv.sinfo, [ir.BindingBlock(bindings)], gv, [FORCE_PURE],
                           is_private=True, is_pure=True)

    def _assemble(self, rewritten: dict) -> ir.Module:
        """Original order; `cuda_graph_alloc` before the first Relax function, each capture
        function just before the function it was lifted from (as TVM's tests list them)."""
        src = self.source
        added = list(self.module.added)
        captures_of: dict[str, list[str]] = {}
        for r in self.plan.kept_captures():
            name = self.capture_names.get(r)
            if name in added and name not in captures_of.get(r.function, []):
                captures_of.setdefault(r.function, []).append(name)
        placed = set()
        functions = []
        first_relax = True
        for f in src.functions:
            if isinstance(f, ir.Function):
                if first_relax and self.alloc_name in added:
                    functions.append(self.functions[self.alloc_name])
                    placed.add(self.alloc_name)
                first_relax = False
                for name in captures_of.get(f.name, []):
                    if name not in placed:
                        functions.append(self.functions[name])
                        placed.add(name)
                functions.append(rewritten.get(f.name, f))
            else:
                functions.append(f)
        functions += [self.functions[n] for n in added if n not in placed]
        return ir.replace(src, functions=functions)
