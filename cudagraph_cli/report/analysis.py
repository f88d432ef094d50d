"""What a rewrite did, as facts: the basis of every `cgraph diff` view.

The numbers come from the rewritten module itself (kernel launches inside the functions that
`run_or_capture` launches, storages allocated by the function that `get_cached_alloc` calls),
so they agree with it whatever produced it. Which original binding went into which graph, and
which lifted storage took which slot of the shared allocation, come from cgraph's plans when
cgraph made the rewrite (the one-file form of `cgraph diff`: the region plan and the merge
plan of the RewriteReport). A rewrite cgraph did not make (the two-file form: OUT may come
from TVM) has no plan of cgraph's, so there they are read from OUT's text: the original's
bindings matched with the capture functions' (by variable and callee names, which both TVM
and cgraph keep), and the slots from the `name = alloc[i]` fetches. Why a kernel launch
stayed outside comes from cgraph's planner, run on the original when the caller has no
report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import NO_LOC, Loc, SourceError
from ..passes.explain import reason_counts
from ..passes.guards import find_guards, graph_branch, graph_path
from ..passes.pipeline import RewriteReport, rewrite
from ..passes.region_planner import launch_kind
from ..passes.stage import wrong_stage
from ..text.printer import FunctionPrinter, Printer


@dataclass
class BindingFact:
    index: int
    line: int
    text: str
    region: int | None = None  # capture region id (module-wide, in launch order)
    slot: int | None = None  # cuda_graph_alloc slot of a lifted storage
    kernel: bool = False  # a kernel launch (what TVM can capture)
    launch: str | None = None  # "kernel" | "vm-builtin" | "relax-call" | None
    # (code, message, names, rule) for a launch left outside a graph; rule: unsafe-extern's
    # (passes.explain.Reason.rule), else None
    reason: tuple | None = None


@dataclass
class KeyedGraphs:
    """The graphs of one capture function whose launches are keyed by symbolic values (the
    trailing `R.shape([...])` of `run_or_capture`): TVM's runtime captures one graph per
    launch (entry index) and distinct key, so each launch makes as many graphs as the keying
    variables have values together. All of them replay into the same storages of the shared
    allocation, so `static_bytes` is held once, whatever the number of graphs."""

    capture: str  # the capture function
    launches: int  # its run_or_capture calls (each with its own entry index)
    # Per keying variable, in key order: (name, how many values it can take or None when
    # unbounded, where the bound comes from: "guard" | "tir_var_upper_bound" | None,
    # its least value: 0 in tir_non_negative_var, else 1)
    keys: tuple
    static_bytes: dict  # scope -> bytes of the shared storages its graphs are given

    @property
    def graphs_per_launch(self) -> int | None:
        n = 1
        for _, count, _, _ in self.keys:
            if count is None:
                return None
            n *= count
        return n

    @property
    def graphs(self) -> int | None:
        per = self.graphs_per_launch
        return None if per is None else per * self.launches


@dataclass
class FunctionFacts:
    name: str
    bindings: list = field(default_factory=list)
    kernel_launches: int = 0  # in the original
    captured: int = 0  # kernel launches inside this function's graphs (rewritten module)
    regions: int = 0  # run_or_capture calls in the rewritten function
    host_launches_before: int = 0
    host_launches_after: int = 0
    # Host work per call (docs/DIFF.md): what the gate measures. A graph saves host work only
    # when it replaces more than one launch, so `captured` alone overstates it.
    kernel_launches_after: int = 0  # kernel launches left outside graphs (rewritten function)
    builtins_before: int = 0  # calls of builtins that launch device work (device_builtin)
    builtins_after: int = 0
    single_kernel_graphs: int = 0  # graph launches that replace a single kernel launch
    # Host work per call above the bounds of --capture-symbolic VAR:MAX (its guarded regions
    # run their launches eagerly); None: no guarded graph launch.
    host_work_above_bound: int | None = None
    # What graphs keyed by symbolic values cost (graph_cost): one KeyedGraphs per capture
    # function and bounds; `unkeyed_launches`: the graph launches with no key (one graph each).
    keyed: list = field(default_factory=list)
    unkeyed_launches: int = 0

    @property
    def ratio(self) -> float:
        return self.captured / self.kernel_launches if self.kernel_launches else 1.0

    @property
    def host_work_before(self) -> int:
        return self.kernel_launches + self.builtins_before

    @property
    def host_work_after(self) -> int:
        return self.kernel_launches_after + self.regions + self.builtins_after

    @property
    def host_work_removed(self) -> float:
        return removed(self.host_work_before, self.host_work_after)

    @property
    def graphs_at_most(self) -> int | None:
        """How many graphs a call of it can capture, over all values of its symbolic
        variables: one per unkeyed graph launch, and each keyed one's; None: unbounded."""
        keyed = [k.graphs for k in self.keyed]
        return None if None in keyed else self.unkeyed_launches + sum(keyed)

    @property
    def reasons(self) -> list[tuple[str, int, tuple]]:
        """Why its launches stayed outside, in aggregate: (code, launches, names they are
        about), most frequent first (explain.reason_counts)."""
        return reason_counts((b.reason[0], b.reason[2]) for b in self.bindings if b.reason)


@dataclass
class ModuleFacts:
    name: str
    functions: list
    static_bytes: dict  # scope -> bytes allocated by cuda_graph_alloc
    unshared_bytes: dict  # scope -> bytes the lifted storages would take unshared
    notes: list = field(default_factory=list)

    @property
    def kernel_launches(self) -> int:
        return sum(f.kernel_launches for f in self.functions)

    @property
    def captured(self) -> int:
        return sum(f.captured for f in self.functions)

    @property
    def ratio(self) -> float:
        return self.captured / self.kernel_launches if self.kernel_launches else 1.0

    @property
    def host_work_before(self) -> int:
        return sum(f.host_work_before for f in self.functions)

    @property
    def host_work_after(self) -> int:
        return sum(f.host_work_after for f in self.functions)

    @property
    def host_work_removed(self) -> float:
        return removed(self.host_work_before, self.host_work_after)

    @property
    def single_kernel_graphs(self) -> int:
        return sum(f.single_kernel_graphs for f in self.functions)

    @property
    def graphs_at_most(self) -> int | None:
        counts = [f.graphs_at_most for f in self.functions]
        return None if None in counts else sum(counts)

    def only(self, function: str | None) -> "ModuleFacts":
        """The facts of one function (`cgraph diff --function`), None: all. The memory stays
        the module's: one shared allocation serves every function's graphs."""
        if function is None:
            return self
        others = tuple(f"{f.name}: " for f in self.functions if f.name != function)
        return ModuleFacts(self.name, [f for f in self.functions if f.name == function],
                           self.static_bytes, self.unshared_bytes,
                           [n for n in self.notes if not n.startswith(others)])


def removed(before: int, after: int) -> float:
    """The fraction of host work a rewrite removed: 1 - after / before; 0.0 when there was
    none (nothing removed; the "nothing to capture" note says why)."""
    return 1.0 - after / before if before else 0.0


# vm.builtin functions that launch no device work: they allocate (the KV cache's creation and
# cuda_graph.get_cached_alloc included: memory, allocated once), or build and check shapes,
# tuples and prim values on the host. Every other vm.builtin call is counted as host work that
# launches device work: the KV-cache attention calls (vm.builtin.attention_kv_cache_*) launch
# kernels from the host, copies (to_device, tensor_to_shape, read_if_cond) move data, and an
# unknown builtin stays on the host before and after alike, so counting it errs towards a
# smaller fraction removed, never a larger one.
NO_DEVICE_WORK_BUILTINS = frozenset({
    "vm.builtin.alloc_storage", "vm.builtin.alloc_tensor", "vm.builtin.alloc_shape_heap",
    "vm.builtin.null_value", "vm.builtin.copy", "vm.builtin.paged_attention_kv_cache_create",
    ir.GET_CACHED_ALLOC,
    "vm.builtin.shape_of", "vm.builtin.make_shape", "vm.builtin.match_shape",
    "vm.builtin.reshape", "vm.builtin.check_shape_info", "vm.builtin.check_tensor_info",
    "vm.builtin.check_tuple_info", "vm.builtin.check_func_info",
    "vm.builtin.check_prim_value_info", "vm.builtin.match_prim_value",
    "vm.builtin.make_prim_value",
    "vm.builtin.make_tuple", "vm.builtin.tuple_getitem", "vm.builtin.tuple_reset_item",
})


def host_work(call: ir.Call, module: ir.Module, prims: set) -> str | None:
    """What one call costs the host in device launches: "kernel" (a kernel launch), "graph"
    (run_or_capture: one graph launch), "builtin" (a vm.builtin call that launches device work
    itself, see NO_DEVICE_WORK_BUILTINS), or None. A call of another Relax function is None:
    its own row counts its work."""
    name = ir.builtin_called(call)
    if name is None:
        kind = launch_kind(call, module, prims)
        if kind == "kernel":
            return "kernel"
        if kind != "vm-builtin":
            return None
        name = call.op.name
    if name == ir.RUN_OR_CAPTURE:
        return "graph"
    return None if name in NO_DEVICE_WORK_BUILTINS else "builtin"


def _count_builtins(f: ir.Function, module: ir.Module, prims: set) -> int:
    return sum(1 for b in graph_path(f.blocks)
               if isinstance(b.value, ir.Call) and host_work(b.value, module, prims) == "builtin")


def _host_work_above_bound(g: ir.Function, module: ir.Module, prims: set) -> int | None:
    """Host work per call of `g` above the bounds of its guarded graph launches (each guarded
    region's own launches, run eagerly; docs/DIFF.md), or None when it has no guard."""
    if not any(graph_branch(b.value) is not None for block in g.blocks for b in block.bindings):
        return None
    return sum(1 for b in graph_path(g.blocks, eager=True) if isinstance(b.value, ir.Call)
               and host_work(b.value, module, prims) is not None)


def _builtin_call(value, name: str) -> bool:
    return ir.builtin_called(value) == name and len(value.args) >= 2


def _builtin_target(value) -> str:
    """The function a CUDA-graph builtin call names (its arguments' first item), or ""."""
    args = value.args[1] if len(value.args) > 1 else None
    if isinstance(args, ir.Tuple) and args.fields and \
            isinstance(args.fields[0], ir.GlobalVarRef):
        return args.fields[0].name
    return ""


def _count_kernels(f: ir.Function, module: ir.Module, prims: set) -> int:
    n = 0
    # A launch guarded by --capture-symbolic VAR:MAX counts on its graph path (guards.py).
    for b in graph_path(f.blocks):
        if isinstance(b.value, ir.Call) and launch_kind(b.value, module, prims) == "kernel":
            n += 1
    return n


def _storage_size(b) -> tuple[int, str] | None:
    v = b.value
    if isinstance(v, ir.Call) and isinstance(v.op, ir.Op) and \
            v.op.name == "relax.memory.alloc_storage" and len(v.args) >= 3:
        size, scope = ir.storage_size(v), v.args[2]
        if size is not None and isinstance(scope, ir.StringImm):
            return size, scope.value
    return None


def _sig(e, strict: bool):
    """A value's signature for matching original and lifted bindings."""
    t = type(e)
    if t is ir.Var:
        return ("v", e.name) if strict else ("v",)
    if t is ir.Call:
        return ("c", ir.callee_name(e)) + tuple(_sig(a, strict) for a in e.args)
    if t is ir.Tuple:
        return ("t",) + tuple(_sig(a, strict) for a in e.fields)
    if t is ir.TupleGetItem:
        return ("g", e.index, _sig(e.tuple_value, strict))
    return (t.__name__,)


class NotARewrite(SourceError):
    """OUT is not a rewrite of IN: `which` ("original" or "rewritten") says in which module
    the location lies."""

    def __init__(self, message: str, loc: Loc = NO_LOC, which: str = "rewritten"):
        super().__init__(message, loc)
        self.which = which


def _is_graph_builtin(b) -> bool:
    return _builtin_call(b.value, ir.GET_CACHED_ALLOC) or _builtin_call(b.value, ir.RUN_OR_CAPTURE)


def _launches_with_graphs(f: ir.Function, module: ir.Module, prims: set) -> int:
    """Kernel launches a call of `f` makes: its own, and those of the capture functions it
    launches (an input that is already a rewrite counts what its graphs launch)."""
    n = _count_kernels(f, module, prims)
    for b in graph_path(f.blocks):
        if _builtin_call(b.value, ir.RUN_OR_CAPTURE):
            c = module.function(_builtin_target(b.value))
            if isinstance(c, ir.Function):
                n += _count_kernels(c, module, prims)
    return n


def check_is_rewrite(original: ir.Module, rewritten: ir.Module) -> None:
    """NotARewrite unless `rewritten` is what a CUDA-graph rewrite (cgraph's or TVM's) can make
    of `original`: it has every function of the original (PrimFuncs by name, Relax functions
    with as many parameters); the functions it adds are Relax functions (allocation and
    capture functions); in each Relax function, the bindings other than the CUDA-graph
    builtins are, in order, calls of the original function (same operators and callees); and the kernel launches the original function makes are
    all still made, outside graphs or inside the capture functions it launches."""
    names_b = {f.name: f for f in rewritten.functions}
    names_a = {f.name for f in original.functions}
    for f in original.functions:
        g = names_b.get(f.name)
        kind = "PrimFunc" if isinstance(f, ir.PrimFunc) else "Relax function"
        if g is None or type(g) is not type(f):
            raise NotARewrite(f"the other module is not a rewrite of this one: it has no "
                              f"{kind} '{f.name}'", f.loc, "original")
    for g in rewritten.functions:
        if g.name not in names_a and not isinstance(g, ir.Function):
            raise NotARewrite(f"not a rewrite of the original: it adds the PrimFunc '{g.name}' "
                              "(a rewrite adds only allocation and capture functions)", g.loc)
    prims_a = {f.name for f in original.functions if isinstance(f, ir.PrimFunc)}
    prims_b = {f.name for f in rewritten.functions if isinstance(f, ir.PrimFunc)}
    for f in original.relax_functions():
        g = names_b[f.name]
        if len(f.params) != len(g.params):
            raise NotARewrite(f"not a rewrite of the original: '{f.name}' takes "
                              f"{len(g.params)} parameter(s), the original's "
                              f"{len(f.params)}", g.loc)
        # Only calls are compared: aliases, tuples and items of tuples compute nothing, and a
        # normalizer (TVM's included) adds or removes them freely.
        before = [b for block in f.blocks for b in block.bindings if isinstance(b.value, ir.Call)]
        pos = 0
        for b in graph_path(g.blocks):
            if _is_graph_builtin(b) or not isinstance(b.value, ir.Call):
                continue
            sig = _sig(b.value, False)
            while pos < len(before) and _sig(before[pos].value, False) != sig:
                pos += 1
            if pos == len(before):
                raise NotARewrite(f"not a rewrite of the original: this binding of "
                                  f"'{f.name}' is not one of the original's (or is out of "
                                  "order)", b.loc)
            pos += 1
        launched = _launches_with_graphs(g, rewritten, prims_b)
        expected = _launches_with_graphs(f, original, prims_a)
        if launched != expected:
            raise NotARewrite(f"not a rewrite of the original: '{f.name}' makes {launched} "
                              f"kernel launch(es) (its graphs included), the original "
                              f"{expected}", g.loc)


def analyze(original: ir.Module, rewritten: ir.Module,
            report: RewriteReport | None = None) -> ModuleFacts:
    prims = {f.name for f in original.functions if isinstance(f, ir.PrimFunc)}
    out_prims = {f.name for f in rewritten.functions if isinstance(f, ir.PrimFunc)}
    """The facts of `rewritten`, a rewrite of `original`. `report`: the RewriteReport of
    cgraph's rewrite that made `rewritten`, whose plans then say which binding went into which
    graph and which storage took which slot; None for a rewrite from elsewhere (TVM's), read
    from its text instead."""
    plan = report.plan if report is not None else None
    if plan is None:
        # Explanations always come from cgraph's planner on the original.
        _, own = rewrite(original)
        reasons_src = own.reasons
    else:
        reasons_src = report.reasons
    # Bindings hash by identity (ir.VarBinding is eq=False): the original's own objects.
    reasons = {r.binding: (r.code, r.message, r.names, r.rule) for r in reasons_src}
    slots = planned_slots(plan, report.merged) if plan is not None else None

    # The shared allocation: sizes per scope, and which original storage took which slot.
    alloc_names = set()
    for f in rewritten.relax_functions():
        for block in f.blocks:
            for b in block.bindings:
                if _builtin_call(b.value, ir.GET_CACHED_ALLOC):
                    alloc_names.add(_builtin_target(b.value))
    static: dict[str, int] = {}
    for name in alloc_names:
        g = rewritten.function(name)
        for block in g.blocks if isinstance(g, ir.Function) else ():
            for b in block.bindings:
                rec = _storage_size(b)
                if rec:
                    static[rec[1]] = static.get(rec[1], 0) + rec[0]
    unshared: dict[str, int] = {}

    functions = []
    region_counter = 0
    for f in original.relax_functions():
        g = rewritten.function(f.name)
        facts = FunctionFacts(f.name)
        facts.kernel_launches = _count_kernels(f, original, prims)
        facts.host_launches_before = facts.kernel_launches
        facts.builtins_before = _count_builtins(f, original, prims)
        printer = FunctionPrinter(Printer(original.dialect), original.name)
        printer.assign_names(f)
        bindings = [b for block in f.blocks for b in block.bindings]
        for i, b in enumerate(bindings):
            kind = launch_kind(b.value, original, prims) if isinstance(b.value, ir.Call) else None
            facts.bindings.append(BindingFact(i, b.loc.line, printer.binding(b, "").strip(),
                                              kernel=kind == "kernel", launch=kind))
        if not isinstance(g, ir.Function):
            facts.kernel_launches_after = facts.kernel_launches
            facts.builtins_after = facts.builtins_before
            functions.append(facts)
            continue
        launches = [rewritten.function(_builtin_target(b.value))  # in launch order
                    for b in graph_path(g.blocks)
                    if _builtin_call(b.value, ir.RUN_OR_CAPTURE)]
        facts.regions = len(launches)
        for c in launches:
            n = _count_kernels(c, rewritten, out_prims) if c else 0
            facts.captured += n
            # One kernel in a graph: a graph launch where a kernel launch was, nothing saved.
            facts.single_kernel_graphs += n <= 1
        facts.kernel_launches_after = _count_kernels(g, rewritten, out_prims)
        facts.builtins_after = _count_builtins(g, rewritten, out_prims)
        facts.host_launches_after = facts.kernel_launches_after + len(launches)
        facts.keyed, facts.unkeyed_launches = graph_cost(rewritten, g)
        facts.host_work_above_bound = _host_work_above_bound(g, rewritten, out_prims)
        if slots is not None:
            for fact, b in zip(facts.bindings, bindings):
                fact.slot = slots.get(b)
        else:
            _fetched_slots(facts, bindings, g)
        for fact, b in zip(facts.bindings, bindings):
            if fact.slot is not None:
                size, scope = _storage_size(b)
                unshared[scope] = unshared.get(scope, 0) + size
        # Which original bindings went into which graph.
        if plan is not None:
            regions = {b: r for r in plan.kept_captures() if r.function == f.name
                       for b in r.bindings}
            for fact, b in zip(facts.bindings, bindings):
                region = regions.get(b)
                if region is not None:
                    fact.region = region.region_id
        else:
            _match_regions(facts, bindings, launches, region_counter)
        region_counter += len(launches)
        for fact, b in zip(facts.bindings, bindings):
            if fact.launch is not None and fact.region is None and b in reasons:
                fact.reason = reasons[b]
        functions.append(facts)
    notes = list(report.notes) if report is not None else []
    for facts in functions:
        if facts.single_kernel_graphs:
            notes.append(f"{facts.name}: {facts.single_kernel_graphs} of {facts.regions} "
                         "graph(s) launch a single kernel: each replaces one kernel launch "
                         "with one graph launch and saves no host work (--min-kernels 2 "
                         "leaves such kernels outside graphs)")
    guards = find_guards(rewritten) if any(f.host_work_above_bound is not None
                                           for f in functions) else []
    for facts in functions:
        if facts.host_work_above_bound is not None:
            guarded = sorted({g.text() for g in guards if g.function == facts.name})
            notes.append(f"{facts.name}: host work {facts.host_work_after} per call within "
                         f"its guards ({', '.join(guarded)}), {facts.host_work_above_bound} "
                         "beyond them, where the guarded regions run their launches eagerly "
                         "(--capture-symbolic VAR:MAX)")
    for facts in functions:
        unbounded = [k for k in facts.keyed if k.graphs is None]
        names = list(dict.fromkeys(n for k in unbounded for n, count, _, _ in k.keys
                                   if count is None))
        if names:
            notes.append(f"{facts.name}: {sum(k.launches for k in unbounded)} graph "
                         f"launch(es) keyed by {', '.join(names)} can make unbounded graphs: "
                         "each distinct value captures one more graph per launch (no guard, "
                         "no tir_var_upper_bound); " +
                         " ".join(f"--capture-symbolic {n}:MAX" for n in names) +
                         " bounds them")
    stage = report.stage if report is not None else wrong_stage(original)
    if stage is not None:
        notes.append(f"line {stage.loc.line}: warning: {stage.message}")
    if not any(f.kernel_launches for f in functions):
        # captured_ratio reads 1.0 here; say why, so that nobody takes it for full capture.
        notes.append("nothing to capture: the module has no kernel launch" +
                     ("" if original.relax_functions() else " (no Relax function)"))
    return ModuleFacts(original.name, functions, static, unshared, notes)


def one_function(original: ir.Module, rewritten: ir.Module,
                 name: str) -> tuple[ir.Module, ir.Module]:
    """The two modules cut down to the Relax function `name` (`cgraph diff --function NAME
    --format unified`): the original's function alone; the rewrite's function and the
    allocation and capture functions it launches, which the rewrite added for it."""
    def cut(module, names):
        return ir.replace(module, functions=[f for f in module.functions if f.name in names])

    g = rewritten.function(name)
    added = {_builtin_target(b.value) for block in (g.blocks if isinstance(g, ir.Function)
                                                     else ()) for b in block.bindings
             if _is_graph_builtin(b)}
    return cut(original, {name}), cut(rewritten, {name} | added)


def planned_slots(plan, merged) -> dict:
    """The merge plan's slot of each lifted storage: alloc_storage binding -> slot index.
    `merged.slot` is keyed by (index of the alloc plan in plan.alloc_regions, storage var)."""
    if merged is None:
        return {}
    return {b: merged.slot[(pid, b.var)]
            for pid, alloc in enumerate(plan.alloc_regions) for b in alloc.bindings}


def _fetched_slots(facts: FunctionFacts, bindings: list, g: ir.Function) -> None:
    """Slots read from a rewrite's text (the two-file form: OUT may be TVM's, with no plan of
    cgraph's): the lifted storages are the original's that OUT's function no longer
    allocates; each gets the slot of the `name = alloc[i]` fetch with its name, else (a
    printer renamed it) the next fetch."""
    fetched: list[tuple[str, int]] = []
    kept_storages = set()
    alloc_vars = set()  # ir.Var is eq=False: a set of the variables themselves
    for block in g.blocks:
        for b in block.bindings:
            v = b.value
            if _builtin_call(v, ir.GET_CACHED_ALLOC):
                alloc_vars.add(b.var)
            elif isinstance(v, ir.TupleGetItem) and v.tuple_value in alloc_vars:
                fetched.append((b.var.name, v.index))
            elif _storage_size(b):
                kept_storages.add(b.var.name)
    lifted = [(fact, b) for fact, b in zip(facts.bindings, bindings)
              if _storage_size(b) and b.var.name not in kept_storages]
    by_name = dict(fetched)
    unnamed = [slot for name, slot in fetched
               if name not in {b.var.name for _, b in lifted}]
    for fact, b in lifted:
        if b.var.name in by_name:
            fact.slot = by_name.pop(b.var.name)
        elif unnamed:
            fact.slot = unnamed.pop(0)


def _match_regions(facts: FunctionFacts, bindings: list, launches: list, first_id: int):
    """Assign original bindings to the capture functions they were lifted into: in order,
    by variable and callee names (strict), else by callee names alone (a capture function
    shared by two launches carries the first one's names)."""
    for strict in (True, False):
        queue = []
        for k, c in enumerate(launches):
            if c is None:
                continue
            body = [b for block in c.blocks for b in block.bindings][:-1]  # not the outputs
            queue += [(first_id + k, b.var.name if strict else None, _sig(b.value, strict))
                      for b in body]
        taken = [False] * len(queue)
        pos = 0
        for fact, b in zip(facts.bindings, bindings):
            if fact.region is not None or pos >= len(queue):
                continue
            region, name, sig = queue[pos]
            if (name is None or name == b.var.name or b.var.name == "_") and \
                    _sig(b.value, strict) == sig:
                fact.region = region
                taken[pos] = True
                pos += 1
        if all(taken):
            return
        for fact in facts.bindings:
            fact.region = None


# ---- what graphs keyed by symbolic values cost ---------------------------------------------

def graph_cost(rewritten: ir.Module, g: ir.Function) -> tuple[list, int]:
    """The graphs `g` (a function of a rewritten module) can capture, from its text alone:
    (a KeyedGraphs per capture function and bounds, how many graph launches have no key).

    A launch keyed by `R.shape([VAR, ...])` makes one graph per distinct value of its keying
    variables (TVM's runtime keys its cache by the entry index and the shape). A variable's
    values: at most MAX when the launch lies in the then-branch of an `if` on a var bound to
    `R.prim_value(VAR <= T.int64(MAX))` (the guard of `--capture-symbolic VAR:MAX`), at most
    its `tir_var_upper_bound` (the smaller of the two when both are given); else unbounded.
    Its least value is 1, or 0 when the function names it in `tir_non_negative_var` (the
    attribute that says a variable may be 0; a dimension is otherwise at least 1)."""
    bounds = _named_ints(g.attr("tir_var_upper_bound"))
    non_negative = set(_named_list(g.attr("tir_non_negative_var")))
    allocs = _alloc_sizes(rewritten, g)
    groups: dict[tuple, list] = {}  # (capture, keys) -> [launches, slots]
    unkeyed = 0
    defs: dict = {}  # ir.Var (eq=False, so by identity) -> the value bound to it

    def visit(blocks, guard: dict):
        nonlocal unkeyed
        for block in blocks:
            for b in block.bindings:
                v = b.value
                defs[b.var] = v
                if type(v) is ir.If:
                    inner = dict(guard)
                    for name, most in _guard_bounds(v.cond, defs).items():
                        inner[name] = min(most, inner.get(name, most))
                    visit(v.true_branch.blocks, inner)
                    visit(v.false_branch.blocks, guard)
                elif _builtin_call(v, ir.RUN_OR_CAPTURE):
                    packed = _resolve(v.args[1], defs)
                    fields = packed.fields if type(packed) is ir.Tuple else ()
                    key = _resolve(fields[3], defs) if len(fields) > 3 else None
                    names = []
                    for x in (key.values if type(key) is ir.ShapeExpr else ()):
                        for s in ir.prim_vars(x, []):
                            if s.name not in names:
                                names.append(s.name)
                    if not names:
                        unkeyed += 1
                        continue
                    keys = tuple(_values(n, guard, bounds, non_negative) for n in names)
                    entry = groups.setdefault((_builtin_target(v), keys), [0, set()])
                    entry[0] += 1
                    entry[1] |= _storages(fields[1], defs, rewritten, 0) if len(fields) > 1 \
                        else set()

    visit(g.blocks, {})
    keyed = []
    for (capture, keys), (launches, slots) in groups.items():
        held: dict[str, int] = {}
        for slot in slots:
            if slot in allocs:
                size, scope = allocs[slot]
                held[scope] = held.get(scope, 0) + size
        keyed.append(KeyedGraphs(capture, launches, keys, held))
    return keyed, unkeyed


def _values(name: str, guard: dict, bounds: dict, non_negative: set) -> tuple:
    """(name, how many values, where the bound comes from, least value) of a keying var."""
    least = 0 if name in non_negative else 1
    most, source = guard.get(name), "guard"
    if name in bounds and (most is None or bounds[name] < most):
        most, source = bounds[name], "tir_var_upper_bound"
    if most is None:
        return (name, None, None, least)
    return (name, max(most - least + 1, 0), source, least)


def _named_ints(value) -> dict:
    """A dict attribute of ints (`tir_var_upper_bound`) as {name: int}; {} when absent."""
    if not (isinstance(value, tuple) and len(value) == 2 and value[0] == "dict"):
        return {}
    return {k: v for k, v in value[1]
            if isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)}


def _named_list(value) -> tuple:
    """A list attribute of names (`tir_non_negative_var`); () when absent."""
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "list":
        return tuple(x for x in value[1] if isinstance(x, str))
    return ()


def _resolve(e, defs: dict, depth: int = 0):
    """What a var stands for, through aliases: the expression at the end of the chain."""
    while type(e) is ir.Var and e in defs and depth < 50:
        e, depth = defs[e], depth + 1
    return e


def _guard_bounds(cond, defs: dict) -> dict:
    """{VAR: MAX} that an `if`'s condition guarantees in its then-branch: `VAR <= MAX`
    (`VAR < MAX` is `VAR <= MAX - 1`), and each side of a conjunction (`a and b`, as TVM 0.27
    prints tir.And, or `T.And(a, b)`); {} for anything else."""
    e = _resolve(cond, defs)
    if type(e) is ir.PrimValue:
        e = e.value
    if type(e) is ir.PrimBinOp and e.op == "and":
        parts = (e.lhs, e.rhs)
    elif type(e) is ir.PrimCall and e.func == "T.And":
        parts = e.args
    else:
        parts = ()
    if parts:
        out: dict = {}
        for p in parts:
            for name, most in _guard_bounds(p, {}).items():
                out[name] = min(most, out.get(name, most))
        return out
    if type(e) is ir.PrimBinOp and e.op in ("<=", "<") and type(e.lhs) is ir.SymVar and \
            type(e.rhs) is ir.IntImm:
        return {e.lhs.name: e.rhs.value - (e.op == "<")}
    return {}


def _alloc_sizes(rewritten: ir.Module, g: ir.Function) -> dict:
    """(allocation function, slot) -> (bytes, scope) for the shared allocations `g` fetches."""
    sizes = {}
    for b in ir.nested_bindings(g.blocks):
        if not _builtin_call(b.value, ir.GET_CACHED_ALLOC):
            continue
        name = _builtin_target(b.value)
        alloc = rewritten.function(name)
        if not isinstance(alloc, ir.Function):
            continue
        inner = {x.var: x for x in ir.nested_bindings(alloc.blocks)}
        out = _resolve(alloc.body, {v: x.value for v, x in inner.items()})
        for slot, storage in enumerate(out.fields if type(out) is ir.Tuple else ()):
            rec = _storage_size(inner[storage]) \
                if type(storage) is ir.Var and storage in inner else None
            if rec:
                sizes[(name, slot)] = rec
    return sizes


def _storages(e, defs: dict, module: ir.Module, depth: int) -> set:
    """The shared storages, as (allocation function, slot), that the value `e` of the calling
    function is or lives in: a storage fetched from `get_cached_alloc`, a tensor allocated in
    one (`R.memory.alloc_tensor`) or a view of it (`R.reshape`), an output of an earlier graph
    that its capture function allocated in a storage it was given; tuples field by field."""
    if depth > 50:
        return set()
    e = _resolve(e, defs)
    t = type(e)
    if t is ir.Tuple:
        return set().union(*(_storages(x, defs, module, depth + 1) for x in e.fields))
    if t is ir.TupleGetItem:
        source = _resolve(e.tuple_value, defs)
        if _builtin_call(source, ir.GET_CACHED_ALLOC):
            return {(_builtin_target(source), e.index)}
        if _builtin_call(source, ir.RUN_OR_CAPTURE):
            param = _output_param(module.function(_builtin_target(source)), e.index)
            packed = _resolve(source.args[1], defs)
            args = _resolve(packed.fields[1], defs) \
                if type(packed) is ir.Tuple and len(packed.fields) > 1 else None
            if param is not None and type(args) is ir.Tuple and param < len(args.fields):
                return _storages(args.fields[param], defs, module, depth + 1)
        return set()
    if t is ir.Call and isinstance(e.op, ir.Op) and e.args and \
            e.op.name in ("relax.memory.alloc_tensor", "relax.reshape"):
        return _storages(e.args[0], defs, module, depth + 1)
    return set()


def _output_param(capture, index: int) -> int | None:
    """The parameter of a capture function whose storage holds its output `index` (the
    output allocated there by `R.memory.alloc_tensor`, or a view of such), or None."""
    if not isinstance(capture, ir.Function):
        return None
    defs = {b.var: b.value for b in ir.nested_bindings(capture.blocks)}
    out = _resolve(capture.body, defs)
    if type(out) is not ir.Tuple or index >= len(out.fields):
        return None
    e = out.fields[index]
    for _ in range(50):
        e = _resolve(e, defs)
        if type(e) is ir.Call and isinstance(e.op, ir.Op) and e.args and \
                e.op.name in ("relax.memory.alloc_tensor", "relax.reshape"):
            e = e.args[0]
            continue
        break
    return next((i for i, p in enumerate(capture.params) if p is e), None)
