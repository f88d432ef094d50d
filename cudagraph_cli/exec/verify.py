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
`--shape` does not set to 2, its guard's bound, its `tir_var_upper_bound` and 1 (bound_values,
bounds_run): in terms alone (TermsBackend) unless the host reads bytes a kernel computed, then
with bytes. A tensor or view the rewritten module cannot place, in a call the original ran,
is a difference of kind "shape" (in the first run too).

Values can agree by chance (a result that depends only on weights is rewritten with the same
values by every call), so verify also checks ownership in both modules (exec/ownership.py): a
returned value in the allocation function's storages, or a graph input at an address other
than the captured one, is a difference of kind "ownership". A difference in values, being
the stronger evidence, is reported first; an ownership finding when every value agrees.

What the run cannot see -- the values of the symbolic variables it did not take -- the text
proves (exec/shape_facts.py): every tensor within its storage, every view within its tensor,
live tensors on distinct bytes, no returned tensor in a shared slot, for every value within
the bounds. A fact of the rewritten module that fails (and that the original does not fail
too) is a difference of kind "shape", reported when the run found none; it is also what a
rewritten module that cannot run at a `shapes` value reports, where the fact explains it.
"""

from __future__ import annotations

import gc

from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import NO_LOC, Loc, SourceError
from ..passes.buckets import launches_at_buckets
from ..passes.capture_safety import body_calls
from ..passes.guards import find_guards
from .backend import CpuBackend, DoesNotFit, ExecError
from .compare import Difference, compare_snapshots, compare_terms, term_snapshot
from .driver import CallDriver
from .functions import check_correspondence, runnable_functions
from .guard_check import check_guards, guard_values, upper_bounds
from .handlers.cuda_graph import GraphRuntime
from .rows import bucket_ends, keep_rows_apart, last_bucket_ends
from .interpreter import Executor
from .ownership import OwnershipCheck
from .shape_facts import ModuleShapes, prove_modules
from .terms import TermTable, explain
from .terms_backend import TermsBackend


class ModuleFails(SourceError):
    """One of the two modules cannot run: `which` ("original" or "rewritten") says which, the
    location is in that module."""

    def __init__(self, which: str, error: SourceError):
        super().__init__(error.message, error.loc)
        self.which = which


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
    # What the text proves for every value within the bounds (exec/shape_facts.py)
    shapes: ModuleShapes | None = None
    # The run at the upper bounds (bounds_run), when one ran: {"values": name -> values in
    # call order, "mode": "terms" | "bytes", "calls", "why_bytes", "difference": whether
    # report.difference is its, "stopped": why the original could not run there}.
    bounds: dict | None = None
    at: tuple = ()  # (function, call, its symbolic values): the call running or last run

    @property
    def equal(self) -> bool:
        return self.difference is None


def verify(original: ir.Module, rewritten: ir.Module, calls: int = 4, seed: int = 0,
           shapes: dict | None = None, backend_factory=CpuBackend,
           functions: list[str] | None = None, progress=None,
           facts: bool = True) -> VerifyReport:
    """`functions`: the public functions to run (None: all; api.public_names checks the
    names). `facts=False`: only what the runs see, without the facts of the text (what the
    mutation tools use to prove, by a run, that a mutant is wrong at the value it names). `progress(function, index, total, captures)`: called before each call of a
    function, `index` of `total` (0-based, over all functions' calls in the order they run),
    with the rewritten module's graph captures so far -- a real model's call takes seconds."""
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
    picked = {k: v for k, v in guard_values(guards, upper_bounds(original, names)).items()
              if k not in given}
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
    if launches_at_buckets(rewritten):  # --capture-buckets: rows kept apart (rows.py)
        keep_rows_apart(ex_b, rewritten)
    report = VerifyReport(names, calls, guards=[(g.function, g.index, g.text()) for g in guards])
    report.shapes = prove_modules(original, rewritten, names) if facts else None
    failed = report.shapes.failure() if facts else None
    try:
        report.difference = _first_difference(
            report, CallDriver([ex_a, ex_b], seed, shapes, named=True), original, rewritten,
            guards, progress)
    except ModuleFails as e:
        # A rewrite that cannot run where its own facts fail: the fact is the finding, for
        # every value it fails at.
        if e.which == "original" or failed is None:
            raise
    if failed is not None and (report.difference is None or report.difference.kind == "shape"):
        # After what the run saw (values, guards, ownership, terms: the evidence at the values
        # run, explained down to a kernel), the fact for every value; a tensor the run could
        # not place is reported as the fact that explains it, with its smallest values.
        which, fact = failed
        report.difference = Difference(fact.function, 0, "", "", message=fact.message,
                                       kind="shape", module=which, loc=fact.loc,
                                       site=f"the {fact.kind} fact that fails")
    _finish(report, ex_a, ex_b)
    if report.difference is None and backend_factory is CpuBackend:
        values = bound_values(original, names, given, guards)
        values = last_bucket_ends(rewritten, names, values)  # --capture-buckets (rows.py)
        if values:
            # What the first run holds (its graphs' storages, its kept outputs) is freed
            # before the second starts.
            del ex_a, ex_b
            gc.collect()
            bounds_run(report, original, rewritten, seed, {**given, **values}, guards,
                       progress)
    return report


# The bounds run's calls, at least: 2, the bound, 1 (a graph captured at 2 replays at the
# bound when its key lacks or clamps the variable; one captured at the bound replays at 1).
BOUND_CALLS = 3


def bound_values(original: ir.Module, names: list, given: dict,
                 guards: list) -> dict[str, list[int]]:
    """The values of the bounds run, for each variable `given` (--shape) does not set whose
    bounds reach past 2: 2, the bound of its guard (`--capture-symbolic VAR:MAX`: the largest
    value its graph runs at) if any, its `tir_var_upper_bound`, then 1."""
    uppers = upper_bounds(original, names)
    thresholds: dict[str, int] = {}
    for g in guards:
        for k, t in g.bounds.items():
            thresholds.setdefault(k, t)
    out = {}
    for k in sorted(set(uppers) | set(thresholds)):
        top = uppers.get(k)
        values = []
        for v in (2, thresholds.get(k), top, 1):
            if v is not None and v >= 1 and (top is None or v <= top) and v not in values:
                values.append(v)
        if k not in given and max(values) > 2:
            out[k] = values
    return out


def bounds_run(report: VerifyReport, original: ir.Module, rewritten: ir.Module, seed: int,
               shapes: dict, guards: list, progress) -> None:
    """A second run, on fresh executors, with each bounded variable at 2, its bounds, then 1
    (`shapes`: bound_values), in terms alone (TermsBackend: what the bound costs is its bytes), or
    with bytes when the host reads bytes a kernel made. Its difference becomes the report's; a
    rewritten module that cannot run where the original runs (a tensor past its storage's end
    at the bound) is a difference of kind "shape"."""
    why_bytes = None
    for backend in (TermsBackend, CpuBackend):
        table = TermTable()
        ex_a = Executor(original, backend(track_init=True, terms=table))
        ex_b = Executor(rewritten, backend(terms=table))
        if launches_at_buckets(rewritten):
            keep_rows_apart(ex_b, rewritten)
        calls = max([BOUND_CALLS] + [len(v) for v in shapes.values()])
        sub = VerifyReport(report.functions, calls)
        report.bounds = {"mode": "terms" if backend is TermsBackend else "bytes",
                         "calls": calls, "values": sub.symbolic,
                         "why_bytes": why_bytes, "difference": False, "stopped": None}
        driver = CallDriver([ex_a, ex_b], seed, shapes, named=True)
        try:
            found = _first_difference(sub, driver, original, rewritten, guards, progress)
        except ModuleFails as e:
            needed = [ex for ex in (ex_a, ex_b) if ex.backend.needed_bytes]
            if needed:
                why_bytes = f"{e.message} (line {e.loc.line})" if e.loc.line else e.message
                continue
            if e.which == "original":
                report.bounds["stopped"] = e.message
                return
            found = shape_difference(*sub.at, e)
        _finish(sub, ex_a, ex_b)
        report.bounds.update(launches=[sub.launches_original, sub.launches_rewritten],
                             captures=sub.captures, replays=sub.replays)
        if found is not None:
            report.difference = found
            report.bounds["difference"] = True
        return


def _first_difference(report: VerifyReport, driver: CallDriver, original: ir.Module,
                      rewritten: ir.Module, guards: list,
                      progress) -> Difference | None:
    """Runs the calls; the first difference found, in the order of the evidence (values,
    then the guards, then ownership, then terms), or None. Counts into `report`."""
    ex_a, ex_b = driver.executors
    graphs_a, graphs_b = ex_a.state(GraphRuntime), ex_b.state(GraphRuntime)
    owners = (("original", OwnershipCheck(original, graphs_a)),
              ("rewritten", OwnershipCheck(rewritten, graphs_b)))
    names = report.functions
    term_difference: Difference | None = None
    results: list = []  # (function, call, original's output, rewritten's): snapshot_value
    schedule = driver.schedule([original.function(n) for n in names], report.calls, progress,
                               lambda: graphs_b.captures)
    for call, f in schedule:
        name = f.name
        after = f"{name}, call {call + 1}"
        for _, check in owners:
            check.calling(name, call)
        prepared = driver.prepare(f, call)
        report.at = (name, call, prepared.syms)
        for k, v in prepared.syms.items():
            seen = report.symbolic.setdefault(k, [])
            if v not in seen:
                seen.append(v)
        try:
            out_a = driver.run(prepared, 0)
        except ExecError as e:
            raise ModuleFails("original", e) from None
        graphs_b.log = []
        try:
            out_b = driver.run(prepared, 1)
        except ExecError as e:
            finding = owners[1][1].first
            if finding is None or (finding.function, finding.call) != (name, call):
                if isinstance(e, DoesNotFit):
                    # The original ran this call: the rewrite placed a tensor wrongly.
                    return shape_difference(name, call, prepared.syms, e)
                raise ModuleFails("rewritten", e) from None
            # A graph replayed with wrong inputs in this very call (a graph keyed without
            # a variable it is given): that, not the failure it leads to, is the cause.
            return _ownership_difference(finding, "rewritten", after, f" (the rewritten "
                                         f"module then fails: {e.message})")
        # Checked after the values: a difference in them is the stronger evidence.
        wrong_path = check_guards(guards, graphs_b.log, prepared.syms, name, call)
        owners[0][1].returned(graphs_a, out_a)
        owners[1][1].returned(graphs_b, out_b)
        # Kept, not held: an output nothing else holds is freed after this call's
        # comparison (Kept says why that is exact).
        results.append((name, call, driver.keep(0, out_a), driver.keep(1, out_b)))
        for k, (fname, c, a, b) in enumerate(results):
            found = compare_snapshots(a, b, fresh=k == len(results) - 1)
            report.outputs_compared += 1
            if found:
                return _values_difference(fname, c, found, after, graphs_b, original)
        del out_a, out_b, prepared  # compared: what nothing else holds is freed now
        if wrong_path is not None:
            return wrong_path
        if term_difference is None and ex_a.backend.terms is not None:
            term_difference = _term_difference(ex_a, ex_b, results, after)
    # The first finding in the order of the run, the original's first when both have one at
    # the same call (sorted is stable).
    found = sorted(((c.first.call, names.index(c.first.function), which, c.first)
                    for which, c in owners if c.first is not None), key=lambda t: t[:2])
    if found:
        _, _, which, o = found[0]
        return _ownership_difference(o, which, f"{o.function}, call {o.call + 1}")
    return term_difference


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
    return report
