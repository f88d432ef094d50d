"""`cgraph verify`: does a rewrite compute what the original computes?

Both modules run on the reference executor with the same inputs: every public function, called
`calls` times in turn, with fresh random inputs each call (weights, the parameters past
`num_input`, stay the same across calls and are shared by the functions position by
position, as a model's parameters are). A boolean scalar input (`R.Tensor((), "bool")` or
`R.Prim("bool")`, what an `if` tests) is not random: the j-th one of a call's inputs is True
on call n exactly when bit j of n is 0, so that 2^k calls take every combination of k
conditions, and with the default 4 calls both branches of each of the first two conditions
run, each after the other has (a graph captured in one branch, then replayed): exec/inputs.py
makes them. After every call, every output returned so far by either module is compared bit
for bit (exec/compare.py), so a result that lives in graph-owned memory and is overwritten by a
later call (of any function) shows up.

A rewrite that bounds graphs (`--capture-symbolic VAR:MAX`: a graph launch guarded by
`VAR <= MAX`, passes/guards.py) runs with values of VAR on both sides of the bound unless
`--shape` gives VAR's: 1 and MAX (graphs, the second captured after the first, so that a graph
keyed without VAR would replay the wrong one), MAX + 1 and MAX + 2 (the eager path), within
the variable's `tir_var_upper_bound`, in the order 1, MAX + 1, MAX, MAX + 2, and then 1 again
(at least 5 calls: the graph captured at 1 replays after the one captured at MAX). After each
call of a function with such a guard in its body, verify checks that the graph ran exactly
when the bound holds (exec/guard_check.py; a difference of kind "guard": the guard inverted,
the branches swapped).

Once the modules are equal, a second run on fresh executors takes each bounded variable that
`--shape` does not set to 2, its guard's bound, its `tir_var_upper_bound` and 1 (the value
after its least and its least, proof/ranges.py: bound_values, bounds_run): in terms alone
(TermsBackend) unless the host reads bytes a kernel computed, then with bytes. A tensor or
view the rewritten module cannot place, in a call the original ran, is a difference of kind
"shape", in either run; any other failure of the rewritten module is no verdict
(ModuleFails), in either run too.

Values can agree by chance (a result that depends only on weights is rewritten with the same
values by every call), so verify also checks ownership in both modules (exec/ownership.py): a
returned value in the allocation function's storages, or a graph input at an address other
than the captured one, is a difference of kind "ownership". A difference in values, being
the stronger evidence, is reported first; an ownership finding when every value agrees.

What the run cannot see -- the values of the symbolic variables it did not take -- the text
proves (proof/facts.py): every tensor within its storage, every view within its tensor,
live tensors on distinct bytes, no returned tensor in a shared slot, every graph key
one-to-one on what its graph depends on, for every value within the bounds; both modules'
storages read in one unit, the original's (handlers/memory.py, read_storages_as). A fact
of the rewritten module that fails (and that the original does not fail too) is a difference
of kind "shape", reported when the run found none; it is also what a rewritten module that
cannot run at a `shapes` value reports, where the fact explains it.

Each stage collects its findings (RunFindings, the failed fact); `decide` alone ranks them
into the verdict (docs/EXECUTOR.md, "The order of evidence").
"""

from __future__ import annotations

import dataclasses
import gc
from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import NO_LOC, Loc, SourceError
from ..passes.buckets import launches_at_buckets
from ..passes.capture_safety import body_calls
from ..passes.guards import find_guards
from ..proof.ranges import Range, module_ranges
from .backend import CpuBackend, DoesNotFit, ExecError
from .compare import Difference, compare_snapshots, compare_terms, term_snapshot
from .driver import CallDriver
from .functions import check_correspondence, runnable_functions
from .guard_check import check_guards, guard_values
from .handlers.cuda_graph import GraphRuntime
from .handlers.memory import read_storages_as
from .rows import bucket_ends, every_bucket_ends, keep_rows_apart
from .interpreter import Executor
from .ownership import OwnershipCheck
from ..proof.facts import ModuleShapes, prove_modules
from .terms import TermTable, explain
from .terms_backend import TermsBackend


class ModuleFails(SourceError):
    """One of the two modules cannot run: `which` ("original" or "rewritten") says which, the
    location is in that module."""

    def __init__(self, which: str, error: SourceError):
        super().__init__(error.message, error.loc)
        self.which = which


@dataclass
class BoundsRun:
    """The record of the run at the upper bounds (bounds_run), when one ran."""

    mode: str  # "terms" (no bytes computed) | "bytes" (the host reads computed bytes)
    calls: int
    values: dict  # name -> the values it took, in call order
    why_bytes: str | None = None  # where the terms-only try needed bytes
    difference: bool = False  # whether the report's difference is this run's
    stopped: str | None = None  # why the original could not run there
    launches: list | None = None  # kernel launches [original's, rewritten's]
    captures: int | None = None
    replays: int | None = None

    def as_json(self) -> dict:
        """Its fields, those that a run that stopped did not count left out."""
        out = dataclasses.asdict(self)
        return {k: v for k, v in out.items()
                if v is not None or k not in ("launches", "captures", "replays")}


@dataclass
class VerifyReport:
    functions: list
    calls: int
    difference: Difference | None = None
    captures: int = 0
    replays: int = 0
    launches_original: int = 0
    launches_rewritten: int = 0
    outputs_compared: int = 0
    # The values each symbolic variable took, in the order of the calls (the variables of
    # the functions that ran), and the guards of bounded graphs found: (function, graph
    # index, Guard.text()).
    symbolic: dict = field(default_factory=dict)
    guards: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    # ("original" | "rewritten", loc, message): what ran only after a correction, located
    warnings: list = field(default_factory=list)
    # What the text proves for every value within the bounds (proof/facts.py)
    shapes: ModuleShapes | None = None
    bounds: BoundsRun | None = None
    # Each symbolic variable's tir_var_upper_bound, the least over the functions verified:
    # what the text report says the shape facts were proved up to.
    upper_bounds: dict = field(default_factory=dict)
    # The kernels whose launches the runs split into real and pad rows (exec/rows.py): their
    # row independence is read from their TIR (passes/row_wise.py), proved by neither the
    # runs nor the proof
    row_wise_kernels: list = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return self.difference is None


# ---- the findings of each stage, and the one verdict --------------------------------------

@dataclass(frozen=True)
class RunFailure:
    """A module that could not run a call: `which`, the error, the call (function, call
    number, symbolic values) and, for the rewritten module, the ownership finding of that very
    call that explains it (a graph replayed with wrong inputs), if any."""

    which: str  # "original" | "rewritten"
    error: SourceError
    at: tuple
    cause: Difference | None = None


@dataclass
class RunFindings:
    """What one run of both modules saw. The run stops after the first call that shows a
    difference of values or guards, or a module that fails; what that call showed is all
    kept. Terms (the first output whose bytes agree and whose terms differ) are looked for
    after each call, ownership (the first finding) once every call has run."""

    values: Difference | None = None
    guard: Difference | None = None
    failure: RunFailure | None = None
    ownership: Difference | None = None
    terms: Difference | None = None


@dataclass(frozen=True)
class Findings:
    """The evidence of every stage: the first run, the first fact of the rewritten module that
    fails (proof/facts.py: (module, fact), or None) and the bounds run's, if one ran."""

    run: RunFindings
    fact: tuple | None = None
    bounds: RunFindings | None = None


@dataclass(frozen=True)
class Verdict:
    """`difference`, found by `stage` ("run", "facts", "bounds"); or `fails`, a module that
    cannot run where the other runs (verify raises it); neither: equal."""

    difference: Difference | None = None
    stage: str | None = None
    fails: ModuleFails | None = None


def decide(findings: Findings) -> Verdict:
    """The verdict, in the order of the evidence:

    1. the original cannot run: no verdict (ModuleFails);
    2. the rewritten module fails at a call the original ran: the ownership finding of that
       call that explains it; else the failed fact, for every value, that explains it; else a
       tensor it cannot place (DoesNotFit: "shape"); else no verdict (ModuleFails);
    3. values (at the call the run stopped at), then the guards (that call's);
    4. ownership, then terms (bytes equal, made of other things);
    5. a fact of the rewritten module that fails (for the values the run did not take);
    6. the bounds run, read as the first run is in 1-4, except that the original failing
       there only stops it;
    7. equal."""
    run = findings.run
    failure = run.failure
    if failure is not None and failure.which == "original":
        return Verdict(fails=ModuleFails("original", failure.error))
    if failure is not None:
        if failure.cause is None and findings.fact is not None:
            return Verdict(_fact_difference(*findings.fact), "facts")
        return _failure_verdict(failure, "run")
    found = _run_difference(run)
    if found is not None:
        return Verdict(found, "run")
    if findings.fact is not None:
        return Verdict(_fact_difference(*findings.fact), "facts")
    bounds = findings.bounds
    if bounds is None or (bounds.failure is not None and bounds.failure.which == "original"):
        return Verdict()
    if bounds.failure is not None:
        return _failure_verdict(bounds.failure, "bounds")
    found = _run_difference(bounds)
    return Verdict(found, "bounds") if found is not None else Verdict()


def _run_difference(run: RunFindings) -> Difference | None:
    """The difference of a run that ran every call it could: values, guards, ownership,
    terms, the first there is."""
    return run.values or run.guard or run.ownership or run.terms


def _failure_verdict(failure: RunFailure, stage: str) -> Verdict:
    """The rewritten module failed where the original ran: the ownership finding that
    explains it, a tensor it cannot place ("shape"), or no verdict (ModuleFails): the same
    in every run."""
    if failure.cause is not None:
        return Verdict(failure.cause, stage)
    if isinstance(failure.error, DoesNotFit):
        return Verdict(shape_difference(*failure.at, failure.error), stage)
    return Verdict(fails=ModuleFails("rewritten", failure.error))


def _fact_difference(which: str, fact) -> Difference:
    """The difference of a fact of the text that fails (for every value: no call ran it)."""
    return Difference(fact.function, 0, "", "", message=fact.message, kind="shape",
                      module=which, loc=fact.loc, site=f"the {fact.kind} fact that fails")


# ---- the stages ----------------------------------------------------------------------------

def verify(original: ir.Module, rewritten: ir.Module, calls: int = 4, seed: int = 0,
           shapes: dict | None = None, backend_factory=CpuBackend,
           functions: list[str] | None = None, progress=None,
           facts: bool = True) -> VerifyReport:
    """`functions`: the public functions to run (None: all; api.public_names checks the
    names). `facts=False`: only what the runs see, without the facts of the text (what the
    mutation tools use to prove, by a run, that a mutant is wrong at the value it names). `progress(function, index, total, captures)`: called before each call of a
    function, `index` of `total` (0-based, over all functions' calls in the order they run),
    with the rewritten module's graph captures so far -- a real model's call takes seconds.
    The stages collect their findings; `decide` gives the verdict."""
    for which, mod in (("original", original), ("rewritten", rewritten)):
        try:
            runnable_functions(mod)
        except SourceError as e:
            raise ModuleFails(which, e) from None
    names = check_correspondence(original, rewritten)
    if functions is not None:
        names = [n for n in names if n in functions]
    guards = [g for g in find_guards(rewritten) if g.function in names]
    given = shapes or {}
    ranges = module_ranges(original, names)
    picked = {k: v for k, v in guard_values(guards, ranges).items() if k not in given}
    # --capture-buckets: one graph replayed at two sizes (rows.py)
    picked = {k: v for k, v in bucket_ends(rewritten, names, picked).items() if k not in given}
    shapes = {**picked, **given}
    if picked:
        # Every value once, then the first again: the graph captured at 1 is replayed after
        # the one captured at MAX (a graph keyed without the variable shows at MAX already).
        calls = max(calls, max(len(v) for v in picked.values()) + 1)
    # The original runs with initialization tracking: a module that reads memory nothing
    # wrote has undefined results, and is reported as such rather than compared.
    # On the reference backend both modules keep terms in one table (exec/terms.py): what
    # each output is made of, compared with the bytes.
    table = TermTable() if backend_factory is CpuBackend else None
    ex_a = Executor(original, CpuBackend(track_init=True, terms=table)
                    if backend_factory is CpuBackend else backend_factory())
    ex_b = Executor(rewritten, CpuBackend(terms=table) if backend_factory is CpuBackend
                    else backend_factory())
    read_storages_as(original, ex_a, ex_b)  # one unit for both modules: the original's
    if launches_at_buckets(rewritten):  # --capture-buckets: rows kept apart (rows.py)
        keep_rows_apart(ex_b, rewritten)
    report = VerifyReport(names, calls, guards=[(g.function, g.index, g.text()) for g in guards])
    report.shapes = prove_modules(original, rewritten, names) if facts else None
    report.upper_bounds = {k: r.most for k, r in ranges.items() if r.most is not None}
    fact = report.shapes.failure() if facts else None
    run = _run(report, CallDriver([ex_a, ex_b], seed, shapes, named=True), original,
               rewritten, guards, progress)
    verdict = decide(Findings(run, fact))
    if verdict.fails is not None:
        raise verdict.fails from None
    report.difference = verdict.difference
    _finish(report, ex_a, ex_b)
    if report.difference is None and backend_factory is CpuBackend:
        values = bound_values(original, names, given, guards)
        values = every_bucket_ends(rewritten, names, values)  # --capture-buckets (rows.py)
        if values:
            # What the first run holds (its graphs' storages, its kept outputs) is freed
            # before the second starts.
            del ex_a, ex_b
            gc.collect()
            bounds = bounds_run(report, original, rewritten, seed, {**given, **values},
                                guards, progress)
            verdict = decide(Findings(run, fact, bounds))
            if verdict.fails is not None:
                raise verdict.fails from None
            report.difference = verdict.difference
            report.bounds.difference = verdict.stage == "bounds"
    return report


# The bounds run's calls, at least: 2, the bound, 1 (a graph captured at 2 replays at the
# bound when its key lacks or clamps the variable; one captured at the bound replays at 1).
BOUND_CALLS = 3


def bound_values(original: ir.Module, names: list, given: dict,
                 guards: list) -> dict[str, list[int]]:
    """The values of the bounds run, for each variable `given` (--shape) does not set whose
    range (proof/ranges.module_ranges) reaches past 2: the value after its least (2 for a
    dimension), the bound of its guard (`--capture-symbolic VAR:MAX`: the largest value its
    graph runs at) if any, its `tir_var_upper_bound`, then its least (1 for a dimension, its
    `tir_var_lower_bound`, 0 for a `tir_non_negative_var`)."""
    ranges = module_ranges(original, names)
    thresholds: dict[str, int] = {}
    for g in guards:
        for k, t in g.bounds.items():
            thresholds.setdefault(k, t)
    out = {}
    for k in sorted({k for k, r in ranges.items() if r.most is not None} | set(thresholds)):
        r = ranges.get(k, Range(1, None))
        values = r.within((r.least + 1, thresholds.get(k), r.most, r.least))
        if k not in given and values and max(values) > 2:
            out[k] = values
    return out


def bounds_run(report: VerifyReport, original: ir.Module, rewritten: ir.Module, seed: int,
               shapes: dict, guards: list, progress) -> RunFindings:
    """A second run, on fresh executors, with each bounded variable at 2, its bounds, then 1
    (`shapes`: bound_values), in terms alone (TermsBackend: what the bound costs is its bytes), or
    with bytes when the host reads bytes a kernel made. Its findings, for `decide`; its record
    in `report.bounds`."""
    why_bytes = None
    for backend in (TermsBackend, CpuBackend):
        table = TermTable()
        ex_a = Executor(original, backend(track_init=True, terms=table))
        ex_b = Executor(rewritten, backend(terms=table))
        read_storages_as(original, ex_a, ex_b)
        if launches_at_buckets(rewritten):
            keep_rows_apart(ex_b, rewritten)
        calls = max([BOUND_CALLS] + [len(v) for v in shapes.values()])
        sub = VerifyReport(report.functions, calls)
        report.bounds = BoundsRun("terms" if backend is TermsBackend else "bytes", calls,
                                  sub.symbolic, why_bytes)
        driver = CallDriver([ex_a, ex_b], seed, shapes, named=True)
        found = _run(sub, driver, original, rewritten, guards, progress,
                     own_calls(original, report.functions, shapes))
        failure = found.failure
        if failure is None or backend is not TermsBackend or \
                not any(ex.backend.needed_bytes for ex in (ex_a, ex_b)):
            break
        # Terms alone cannot run it: again with bytes, saying where they were needed.
        e = failure.error
        why_bytes = f"{e.message} (line {e.loc.line})" if e.loc.line else e.message
    if failure is not None and failure.which == "original":
        report.bounds.stopped = failure.error.message
        return found
    _finish(sub, ex_a, ex_b)
    report.row_wise_kernels = sorted(set(report.row_wise_kernels) | set(sub.row_wise_kernels))
    report.bounds.launches = [sub.launches_original, sub.launches_rewritten]
    report.bounds.captures, report.bounds.replays = sub.captures, sub.replays
    return found


def own_calls(module: ir.Module, names: list, shapes: dict) -> dict:
    """{function: its calls in the bounds run}: BOUND_CALLS, or as many as the longest list of
    values of a variable its parameters take, so that it meets each once -- not the longest
    of all (every bucket's two ends of prefill's seq_len are no calls of decode's)."""
    out = {}
    for name in names:
        f = module.function(name)
        own = {v.name for p in f.params for v in ir.sinfo_prim_vars(p.sinfo)}
        out[name] = max([BOUND_CALLS] + [len(shapes[k]) for k in own if k in shapes])
    return out


def _run(report: VerifyReport, driver: CallDriver, original: ir.Module, rewritten: ir.Module,
         guards: list, progress, calls_of: dict | None = None) -> RunFindings:
    """Runs the calls, until the first that shows a difference of values or guards or a
    module that fails (RunFindings); counts into `report`. `calls_of`: a function's calls
    where it makes fewer than `report.calls`."""
    ex_a, ex_b = driver.executors
    graphs_a, graphs_b = ex_a.state(GraphRuntime), ex_b.state(GraphRuntime)
    owners = (("original", OwnershipCheck(original, graphs_a)),
              ("rewritten", OwnershipCheck(rewritten, graphs_b)))
    names = report.functions
    found = RunFindings()
    results: list = []  # (function, call, original's output, rewritten's): snapshot_value
    schedule = driver.schedule([original.function(n) for n in names], report.calls, progress,
                               lambda: graphs_b.captures)
    for call, f in schedule:
        name = f.name
        if calls_of is not None and call >= calls_of.get(name, report.calls):
            continue
        after = f"{name}, call {call + 1}"
        for _, check in owners:
            check.calling(name, call)
        prepared = driver.prepare(f, call)
        at = (name, call, prepared.syms)
        for k, v in prepared.syms.items():
            seen = report.symbolic.setdefault(k, [])
            if v not in seen:
                seen.append(v)
        try:
            out_a = driver.run(prepared, 0)
        except ExecError as e:
            # Without its traceback: its frames hold the executors' memory.
            found.failure = RunFailure("original", e.with_traceback(None), at)
            return found
        graphs_b.log = []
        try:
            out_b = driver.run(prepared, 1)
        except ExecError as e:
            finding = owners[1][1].first
            cause = None
            if finding is not None and (finding.function, finding.call) == (name, call):
                # A graph replayed with wrong inputs in this very call (a graph keyed without
                # a variable it is given): that, not the failure it leads to, is the cause.
                cause = _ownership_difference(finding, "rewritten", after, f" (the rewritten "
                                              f"module then fails: {e.message})")
            found.failure = RunFailure("rewritten", e.with_traceback(None), at, cause)
            return found
        found.guard = check_guards(guards, graphs_b.log, prepared.syms, name, call)
        owners[0][1].returned(graphs_a, out_a)
        owners[1][1].returned(graphs_b, out_b)
        # Kept, not held: an output nothing else holds is freed after this call's
        # comparison (Kept says why that is exact).
        results.append((name, call, driver.keep(0, out_a), driver.keep(1, out_b)))
        for k, (fname, c, a, b) in enumerate(results):
            compared = compare_snapshots(a, b, fresh=k == len(results) - 1)
            report.outputs_compared += 1
            if compared:
                found.values = _values_difference(fname, c, compared, after, graphs_b,
                                                  original)
                return found
        del out_a, out_b, prepared  # compared: what nothing else holds is freed now
        if found.guard is not None:
            return found
        if found.terms is None and ex_a.backend.terms is not None:
            found.terms = _term_difference(ex_a, ex_b, results, after)
    # The first finding in the order of the run, the original's first when both have one at
    # the same call (sorted is stable).
    first = sorted(((c.first.call, names.index(c.first.function), which, c.first)
                    for which, c in owners if c.first is not None), key=lambda t: t[:2])
    if first:
        _, _, which, o = first[0]
        found.ownership = _ownership_difference(o, which, f"{o.function}, call {o.call + 1}")
    return found


def shape_difference(name: str, call: int, syms: dict, e: SourceError) -> Difference:
    """The difference of kind "shape": call `call` of `name`, at symbolic values `syms`, ran
    in the original and fails in the rewritten with `e` (located there)."""
    at = ", ".join(f"{k} = {v}" for k, v in syms.items())
    return Difference(name, call, "", f"{name}, call {call + 1}",
                      message=f"at {at or 'its shapes'} the original runs, the rewritten does "
                      f"not: {e.message}", kind="shape", module="rewritten", loc=e.loc,
                      site="the binding that fails")


def _values_difference(fname: str, call: int, found: tuple, after: str,
                       graphs_b: GraphRuntime, original: ir.Module) -> Difference:
    """A difference in the values of output `found` (compare_snapshots) of call `call` of
    `fname`; the likely cause named when a graph of the rewritten module replayed a host
    call with its state at capture."""
    path, element, va, vb, words = found
    d = Difference(fname, call, path, after, element, va, vb, words)
    if graphs_b.replayed_host_calls:
        loc, symbol = next(iter(graphs_b.replayed_host_calls))
        d.host_call, d.loc, d.site = symbol, loc, f"'{symbol}'"
        if not loc.line:
            # A rewrite in memory (`rewrite --verify`) has no lines of its own: the call as
            # the original writes it.
            d.module, d.loc = "original", _call_site(original, symbol)
    return d


def _ownership_difference(o, which: str, after: str, more: str = "") -> Difference:
    """The difference of ownership finding `o` (exec/ownership.py) in module `which`."""
    return Difference(o.function, o.call, o.output, after, message=o.message + more,
                      kind="ownership", module=which, loc=o.loc, site=o.site,
                      graph_input=o.graph_input)


def _term_difference(ex_a: Executor, ex_b: Executor, results: list,
                     after: str) -> Difference | None:
    """The first output returned so far whose bytes agree but whose terms differ, explained
    down to the first kernel argument that diverges (exec/terms.py), or None."""
    for fname, c, a, b in results:
        found = compare_terms(term_snapshot(a), term_snapshot(b))
        if found is None:
            continue
        path, sa, sb = found
        if sa is None or sb is None:
            continue
        words, loc = explain(ex_a.backend.terms, sa, sb, ex_a.backend.term_sites,
                             ex_b.backend.term_sites)
        return Difference(fname, c, path, after, message=words, kind="terms",
                          module="rewritten", loc=loc or NO_LOC,
                          site="the kernel whose argument differs")
    return None


def _call_site(mod: ir.Module, symbol: str) -> Loc:
    """Where `mod` first calls the external function `symbol` (directly, or through a
    PrimFunc whose body calls it), or NO_LOC."""
    prims = {f.name for f in mod.functions if isinstance(f, ir.PrimFunc)
             and any(c.symbol == symbol for c in body_calls(f.body))}
    for f in mod.relax_functions():
        for b in ir.nested_bindings(f.blocks):
            v = b.value
            if type(v) is ir.Call and (
                    (isinstance(v.op, ir.ExternFunc) and v.op.name == symbol) or
                    (isinstance(v.op, ir.GlobalVarRef) and v.op.name in prims)):
                return b.loc
    return NO_LOC


def _finish(report: VerifyReport, ex_a: Executor, ex_b: Executor) -> VerifyReport:
    report.warnings = [("original", loc, m) for loc, m in ex_a.warnings] + \
        [("rewritten", loc, m) for loc, m in ex_b.warnings]
    report.captures = ex_b.state(GraphRuntime).captures
    report.replays = ex_b.state(GraphRuntime).replays
    report.launches_original = ex_a.backend.launch_count
    report.launches_rewritten = ex_b.backend.launch_count
    split = getattr(ex_b.backend, "row_split", None)
    if split is not None:
        report.row_wise_kernels = sorted(set(report.row_wise_kernels) | split.split)
    return report
