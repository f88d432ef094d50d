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
report, with the options the rewritten module shows (rewrite_of.options_of): the rewrite's own
reasons in both forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import SourceError
from ..passes.explain import capture_hint, reason_counts
from ..passes.guards import find_guards, graph_branch, graph_path
from ..passes.pipeline import RewriteReport, rewrite
from ..passes.region_planner import launch_kind
from ..passes.stage import wrong_stage
from ..text.printer import FunctionPrinter, Printer
from .bucket_facts import bucket_sites, not_bucketed
from .graph_cost import capture_hint_names, graph_cost
from .rewrite_of import options_of
from .rewritten import (
    allocated_storage, builtin_call, builtin_target, count_kernels, is_graph_builtin, signature,
)


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
class FunctionFacts:
    name: str
    bindings: list = field(default_factory=list)
    kernel_launches: int = 0  # in the original
    captured: int = 0  # kernel launches inside this function's graphs (rewritten module)
    regions: int = 0  # run_or_capture calls in the rewritten function
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
    loc: object = ir.NO_LOC  # the original function's, for located warnings
    # The variables its `relax.rewrite_cuda_graph.capture_symbolic_vars` attribute names in
    # the original (a model's own capture hint, MLC-LLM's), () when it has none.
    capture_hint: tuple = ()
    # --capture-buckets (bucket_facts.py): a BucketSite per capture function keyed by a bucket;
    # the runs of its regions that run as before (NotBucketed, cgraph's own rewrite only).
    buckets: list = field(default_factory=list)
    not_bucketed: list = field(default_factory=list)

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

    def only(self, functions) -> "ModuleFacts":
        """The facts of some functions (`cgraph diff --function`: a name or names), None: all.
        The memory stays the module's: one shared allocation serves every function's
        graphs."""
        if functions is None:
            return self
        keep = {functions} if isinstance(functions, str) else set(functions)
        others = tuple(f"{f.name}: " for f in self.functions if f.name not in keep)
        return ModuleFacts(self.name, [f for f in self.functions if f.name in keep],
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


def analyze(original: ir.Module, rewritten: ir.Module,
            report: RewriteReport | None = None) -> ModuleFacts:
    """The facts of `rewritten`, a rewrite of `original`. `report`: the RewriteReport of
    cgraph's rewrite that made `rewritten`, whose plans then say which binding went into which
    graph and which storage took which slot; None for a rewrite from elsewhere (TVM's), read
    from its text instead."""
    prims = {f.name for f in original.functions if isinstance(f, ir.PrimFunc)}
    out_prims = {f.name for f in rewritten.functions if isinstance(f, ir.PrimFunc)}
    plan = report.plan if report is not None else None
    if plan is None:
        # Explanations always come from cgraph's planner on the original, with the options
        # `rewritten` shows (its buckets, its symbolic keys): the rewrite's own reasons.
        try:
            _, explained = rewrite(original, options_of(original, rewritten))
        except (ValueError, SourceError):
            # options read from a module edited by hand that the rewrite refuses: its
            # default rewrite's reasons, as for TVM's output
            _, explained = rewrite(original)
    else:
        explained = report
    # Bindings hash by identity (ir.VarBinding is eq=False): the original's own objects.
    reasons = {r.binding: (r.code, r.message, r.names, r.rule) for r in explained.reasons}
    slots = planned_slots(plan, report.merged) if plan is not None else None

    # The shared allocation: sizes per scope, and which original storage took which slot.
    alloc_names = set()
    for f in rewritten.relax_functions():
        for block in f.blocks:
            for b in block.bindings:
                if builtin_call(b.value, ir.GET_CACHED_ALLOC):
                    alloc_names.add(builtin_target(b.value))
    static: dict[str, int] = {}
    for name in alloc_names:
        g = rewritten.function(name)
        for block in g.blocks if isinstance(g, ir.Function) else ():
            for b in block.bindings:
                rec = allocated_storage(b)
                if rec:
                    static[rec[1]] = static.get(rec[1], 0) + rec[0]
    unshared: dict[str, int] = {}

    functions = []
    region_counter = 0
    for f in original.relax_functions():
        g = rewritten.function(f.name)
        facts = FunctionFacts(f.name, loc=f.loc, capture_hint=capture_hint_names(f))
        facts.kernel_launches = count_kernels(f, original, prims)
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
        launches = [rewritten.function(builtin_target(b.value))  # in launch order
                    for b in graph_path(g.blocks)
                    if builtin_call(b.value, ir.RUN_OR_CAPTURE)]
        facts.regions = len(launches)
        for c in launches:
            n = count_kernels(c, rewritten, out_prims) if c else 0
            facts.captured += n
            # One kernel in a graph: a graph launch where a kernel launch was, nothing saved.
            facts.single_kernel_graphs += n <= 1
        facts.kernel_launches_after = count_kernels(g, rewritten, out_prims)
        facts.builtins_after = _count_builtins(g, rewritten, out_prims)
        facts.keyed, facts.unkeyed_launches = graph_cost(rewritten, g)
        facts.buckets = bucket_sites(g, facts.keyed)
        facts.not_bucketed = not_bucketed(explained, f.name)
        facts.host_work_above_bound = _host_work_above_bound(g, rewritten, out_prims)
        if slots is not None:
            for fact, b in zip(facts.bindings, bindings):
                fact.slot = slots.get(b)
        else:
            _fetched_slots(facts, bindings, g)
        for fact, b in zip(facts.bindings, bindings):
            if fact.slot is not None:
                size, scope = allocated_storage(b)
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
    notes += [single_kernel_note(facts) for facts in functions if facts.single_kernel_graphs]
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


def rewrite_summary(facts: ModuleFacts) -> str:
    """What a rewrite did, in one line (the TVM pass's log, the launcher's stderr, `cgraph
    rewrite -v`): each function that launches graphs, its graph launches and its host work a
    call before -> after (the summary table of `cgraph diff`, from the same facts)."""
    done = [f"{f.name} {f.regions} graph launch{'es' * (f.regions != 1)}, host work "
            f"{f.host_work_before} -> {f.host_work_after} a call"
            for f in facts.functions if f.regions]
    if done:
        return "cgraph: " + "; ".join(done)
    return (f"cgraph: no graphs in {len(facts.functions)} Relax function(s), host work "
            f"{facts.host_work_before} a call as before (`cgraph rewrite --explain` says why)")


def single_kernel_note(facts: FunctionFacts) -> str:
    """The note on a function's one-kernel graphs. When every graph it launches is one (the
    1B model's prefill by default: 65 graphs, host work 196 -> 196), the graphs save nothing
    at all: the note says so and names what would: the option that captures what breaks its
    kernel runs, where there is one (`--capture-symbolic seq_len:MAX`)."""
    leave_out = "--min-kernels 2 leaves such kernels outside graphs"
    if facts.single_kernel_graphs < facts.regions:
        return (f"{facts.name}: {facts.single_kernel_graphs} of {facts.regions} graph(s) "
                "launch a single kernel: each replaces one kernel launch with one graph "
                f"launch and saves no host work ({leave_out})")
    every = "its one graph launches" if facts.regions == 1 else \
        f"all {facts.regions} of its graphs launch"
    text = (f"{facts.name}: {every} a single kernel: host work {facts.host_work_before} -> "
            f"{facts.host_work_after} per call, nothing saved")
    hinted = [(code, n, names) for code, n, names in facts.reasons
              if capture_hint(code, names)]
    if hinted:
        code, n, names = hinted[0]
        option = capture_hint(code, names).replace("[:MAX]", ":MAX")
        return (f"{text}; {n} kernel launches stay outside for {code} ({', '.join(names)}): "
                f"{option} would capture them into longer graphs (docs/REWRITE.md, "
                f"\"Capturing symbolic shapes\"; choose MAX so that cgraph diff gives no "
                f"graph-count warning); {leave_out}")
    outside = "; ".join(f"{code}: {n}" for code, n, _ in facts.reasons)
    return (text + (f"; its other launches stay outside ({outside}, `cgraph rewrite --explain` "
                    "says why)" if outside else "") +
            f"; {leave_out} (the same host work, without the graphs)")


def one_function(original: ir.Module, rewritten: ir.Module,
                 name: str) -> tuple[ir.Module, ir.Module]:
    """The two modules cut down to the Relax function `name` (`cgraph diff --function NAME
    --format unified`): the original's function alone; the rewrite's function and the
    allocation and capture functions it launches, which the rewrite added for it."""
    def cut(module, names):
        return ir.replace(module, functions=[f for f in module.functions if f.name in names])

    g = rewritten.function(name)
    added = {builtin_target(b.value) for block in (g.blocks if isinstance(g, ir.Function)
                                                     else ()) for b in block.bindings
             if is_graph_builtin(b)}
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
            if builtin_call(v, ir.GET_CACHED_ALLOC):
                alloc_vars.add(b.var)
            elif isinstance(v, ir.TupleGetItem) and v.tuple_value in alloc_vars:
                fetched.append((b.var.name, v.index))
            elif allocated_storage(b):
                kept_storages.add(b.var.name)
    lifted = [(fact, b) for fact, b in zip(facts.bindings, bindings)
              if allocated_storage(b) and b.var.name not in kept_storages]
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
            queue += [(first_id + k, b.var.name if strict else None, signature(b.value, strict))
                      for b in body]
        taken = [False] * len(queue)
        pos = 0
        for fact, b in zip(facts.bindings, bindings):
            if fact.region is not None or pos >= len(queue):
                continue
            region, name, sig = queue[pos]
            if (name is None or name == b.var.name or b.var.name == "_") and \
                    signature(b.value, strict) == sig:
                fact.region = region
                taken[pos] = True
                pos += 1
        if all(taken):
            return
        for fact in facts.bindings:
            fact.region = None
