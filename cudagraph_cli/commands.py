"""Each `cgraph` command's policy, in the library: which mode a request is, the defaults, and
the exit status of the result. `cgraph` (cli.py) parses its arguments, calls these and prints
the result; a Python caller gets the same results and the same exit statuses
(tests/test_cli_api_parity.py runs every command both ways).

    from cudagraph_cli import commands

    run = commands.check("out/", "golden/", update=True)   # cgraph check out/ golden/ --update
    for result in run:                                      # a result per pair, as made
        print(result.status, result.expected)
    run.exit_status                                         # 0, 1 or 2, as cgraph exits

The exit statuses, one set for every command (docs/CLI.md, "Exit status"): 0 ok; 1 a check
failed (modules differ, a golden whose GOT is missing, outputs that differ); 2 usage or input
error (also a module that cannot run); 3 a bug of cgraph's.
"""

from __future__ import annotations

import os

from . import api
from .diagnostics import SourceError

EXIT_OK, EXIT_CHECK_FAILED, EXIT_INPUT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3

# A pair's status and what it means for the exit status: a check that failed, or an input
# that could not be read, parsed or written. Any other status ("ok", "updated", "created")
# passes.
FAILED_STATUSES = ("differs", "missing")
ERROR_STATUS = "error"


class RequestError(ValueError):
    """A request the command cannot take as given (two standard inputs, --update with
    --prim-bodies ignore): `cgraph` prints it as a usage error, exit 2."""


class CommandError(Exception):
    """An input or environment error with no file to point at (no pairs found, no GPU):
    `cgraph: error: MESSAGE`, exit 2."""


def pairs_exit_status(statuses) -> int:
    """The exit status of pair results (`cgraph check`, its batch and --update forms): 2 when
    any file could not be read, parsed or written; else 1 when any pair differs or is missing;
    else 0."""
    statuses = set(statuses)
    if ERROR_STATUS in statuses:
        return EXIT_INPUT_ERROR
    return EXIT_CHECK_FAILED if statuses & set(FAILED_STATUSES) else EXIT_OK


# ---- fmt ------------------------------------------------------------------------------------

class Formatted:
    """`cgraph fmt`'s result: `text`, the module as canonical TVMScript, and `source`, what
    was read. `check_status` (`fmt --check`): 0 when the input is canonical already, else 1."""

    def __init__(self, text: str, source: api.Source):
        self.text, self.source = text, source

    @property
    def canonical(self) -> bool:
        return self.text == self.source.text

    @property
    def check_status(self) -> int:
        return EXIT_OK if self.canonical else EXIT_CHECK_FAILED


def fmt(path: str, dialect: str | None = None) -> Formatted:
    """`cgraph fmt` of a file (`-`: standard input): read, checked, printed canonically."""
    module, source = load_with_source(path)
    return Formatted(api.print_module(module, dialect), source)


# ---- check ----------------------------------------------------------------------------------

class CheckRun:
    """The results of `check`, made as they are iterated (a batch check prints each pair as it
    is checked): an api.PairResult each, or with `update` a golden.UpdateResult each; `.diff`
    holds the review's lines where one was asked for. `mode`: "pair" (GOT and EXPECTED, two
    files: `sources` holds both, for excerpts), "batch" or "update". `exit_status` (and
    `results`, every result) finish the run first."""

    def __init__(self, mode: str, results, sources: tuple | None = None):
        self.mode = mode
        self.sources = sources
        self.done: list = []
        self.pending = iter(results)

    def __iter__(self):
        yield from self.done
        for result in self.pending:
            self.done.append(result)
            yield result

    @property
    def results(self) -> list:
        for _ in self:
            pass
        return self.done

    @property
    def exit_status(self) -> int:
        return pairs_exit_status(r.status for r in self.results)


def check(got: str | None = None, expected: str | None = None, *,
          pairs_file: str | None = None, prim_bodies: str = "text", review: bool = False,
          update: bool = False) -> CheckRun:
    """`cgraph check` of paths: GOT and EXPECTED files ("pair"; a SourceError, located, when
    either cannot be read), two directories (their *.relax files paired by path) or the pairs
    listed in `pairs_file` ("batch"; a file that cannot be read is that pair's "error").
    `review`: each differing pair's diff of canonical texts (`--diff`). `update`: write each
    EXPECTED from its GOT where they differ structurally (golden.py's rule; "update").
    RequestError for a request that cannot be taken as given, CommandError for a batch with
    no pair."""
    if update and prim_bodies != "text":
        raise RequestError("--update compares PrimFunc bodies: it cannot be combined with "
                           "--prim-bodies ignore (a golden would hide a changed kernel)")
    if pairs_file is not None:
        if got is not None or expected is not None:
            raise RequestError("--list PAIRS takes the place of GOT and EXPECTED")
        source = api.read(pairs_file)
        return batch(api.listed_pairs(source.text, source.name),
                     f"no pairs listed in {source.name}", prim_bodies, review, update)
    if got is None or expected is None:
        raise RequestError("expected GOT and EXPECTED, or a list of pairs (--list PAIRS)")
    if os.path.isdir(got) and os.path.isdir(expected):
        from . import golden

        pairs = golden.update_directory_pairs(got, expected) if update else \
            api.directory_pairs(got, expected)
        return batch(pairs, f"no *.relax files in {got} or {expected}", prim_bodies, review,
                     update, make_dirs=True)
    if got == "-" and expected == "-":
        raise RequestError("only one of GOT and EXPECTED can be standard input")
    if update:
        if expected == "-":
            raise RequestError("with --update, EXPECTED is the file to write: not -")
        return batch([(got, expected)], "", prim_bodies, review, update)
    return check_pair(got, expected, prim_bodies, review)


def check_pair(got: str, expected: str, prim_bodies: str, review: bool) -> CheckRun:
    from .golden import modules_diff

    mod_a, source_a = load_with_source(got)
    mod_b, source_b = load_with_source(expected)
    diff = api.difference(mod_a, mod_b, prim_bodies=prim_bodies,
                          sides=(source_a.name, source_b.name))
    lines = modules_diff(mod_a, mod_b, source_a.name, source_b.name, prim_bodies=prim_bodies) \
        if review and diff is not None else None
    result = api.PairResult(source_a.name, source_b.name, "ok" if diff is None else "differs",
                            difference=diff, diff=lines)
    return CheckRun("pair", [result], (source_a, source_b))


def batch(pairs, when_empty: str, prim_bodies: str, review: bool, update: bool,
          make_dirs: bool = False) -> CheckRun:
    if not pairs:
        # An empty batch passing would hide a CI job that looks in the wrong place.
        raise CommandError(when_empty)
    if update:
        from .golden import update_pairs

        return CheckRun("update", update_pairs(pairs, make_dirs=make_dirs, review=review))
    return CheckRun("batch", reviewed(api.check_pairs(pairs, prim_bodies=prim_bodies),
                                      prim_bodies, review))


def reviewed(results, prim_bodies: str, review: bool):
    """The pair results, each differing one with its diff when `review`."""
    from .golden import pair_diff

    for result in results:
        if review and result.status == "differs":
            result = api.PairResult(result.got, result.expected, result.status,
                                    result.difference, diff=pair_diff(
                                        result.got, result.expected, prim_bodies=prim_bodies))
        yield result


def load_with_source(path: str) -> tuple:
    """(module, its Source) of a command's input file (`-`: standard input)."""
    source = api.read(path)
    return api.loads(source.text, name=source.name), source


# ---- verify, and rewrite --verify -----------------------------------------------------------

def verify_exit_status(report) -> int:
    """`cgraph verify`'s exit status for an api.verify VerifyReport: 0 equal, 1 a difference.
    (A module that cannot run is a SourceError, 2, for either module: `rewrite --verify` too.)"""
    return EXIT_OK if report.equal else EXIT_CHECK_FAILED


class RewriteVerdict:
    """`rewrite --verify`'s verdict on a rewrite: `report` (api.verify's VerifyReport) when
    both modules ran, else `failure` (the rewritten module's ModuleFails: it cannot run
    where the original runs). `exit_status`: `cgraph verify`'s policy, 0 equal, 1 a
    difference, 2 a module that cannot run. `summary`: the sentence `cgraph rewrite --verify`
    prints."""

    def __init__(self, name: str, report=None, failure: SourceError | None = None):
        self.name, self.report, self.failure = name, report, failure

    @property
    def exit_status(self) -> int:
        if self.failure is not None:
            return EXIT_INPUT_ERROR
        return verify_exit_status(self.report)

    @property
    def summary(self) -> str:
        if self.failure is not None:
            return (f"{self.name}: error: the rewritten module cannot run where the original "
                    f"runs: {self.failure.message}")
        r = self.report
        if not r.equal:
            return f"{self.name}: the rewrite computes something else than the original"
        return (f"{self.name}: verified: the rewrite computes what the original computes "
                f"({', '.join(r.functions)}: {r.calls} calls each; {r.captures} graph "
                f"capture(s), {r.replays} replay(s); {r.shapes.count('proved')} shape fact(s) "
                f"proved for every value within the bounds, {len(r.shapes.unproven())} "
                "unproven)")


REWRITE_VERIFY_CALLS = 4  # `rewrite --verify`: verify's own default


def verify_rewrite(original, rewritten, *, source: api.Source | None = None,
                   progress=None) -> RewriteVerdict:
    """`cgraph rewrite --verify`: api.verify of a rewrite against its original
    (REWRITE_VERIFY_CALLS calls), as a RewriteVerdict. The original failing to run raises
    (a SourceError located in `source`), as `cgraph verify` does."""
    from .exec.verify import ModuleFails

    name = api.source_name(source)
    try:
        report = api.verify(original, rewritten, calls=REWRITE_VERIFY_CALLS,
                            sources=(source, None), progress=progress)
    except ModuleFails as e:
        if e.which == "original":
            raise
        return RewriteVerdict(name, failure=e)
    return RewriteVerdict(name, report)


# ---- run ------------------------------------------------------------------------------------

class RunResult:
    """`cgraph run`'s result: `report`, an api.CpuRun (`device` "cpu") or a GpuRunReport (an
    ordinal); `calls`, the calls each function ran. `exit_status`: 0, or 1 when the GPU's
    outputs differ from the reference's."""

    def __init__(self, device, report, calls: int):
        self.device, self.report, self.calls = device, report, calls

    @property
    def exit_status(self) -> int:
        if self.device == "cpu":
            return EXIT_OK
        return EXIT_OK if self.report.ok else EXIT_CHECK_FAILED


CPU_CALLS = 1  # `run --device cpu`: the outputs of one call each (verify compares more)


def run(module, given=None, *, device="cpu", calls: int | None = None, seed: int = 0,
        shapes: dict | None = None, functions=None, warmup: int = 20, iters: int = 200,
        kernels: tuple[str, str] | None = None, source: api.Source | None = None,
        given_source: api.Source | None = None, on_warnings=None, progress=None) -> RunResult:
    """`cgraph run`: `module` on the reference executor (`device="cpu"`: api.run_cpu,
    CPU_CALLS calls unless `calls`), or on GPU `device` (an int: eager and with CUDA graphs,
    checked and timed; `given`, a rewrite of `module` to run instead of cgraph's; `kernels`,
    (CUDA C text, its name); calls: RunOptions' default unless `calls`). Names in
    `functions` and `shapes` are checked first (UnknownName, OverBound). `progress`: on the
    cpu api.run_cpu's callback, on a GPU whether to show one. RequestError for GPU-only
    arguments on the cpu; CommandError when the GPU cannot be used."""
    check_run_request(device, given, kernels)
    if device == "cpu":
        calls = CPU_CALLS if calls is None else calls
        report = api.run_cpu(module, calls=calls, seed=seed, shapes=shapes, source=source,
                             on_warnings=on_warnings, functions=functions,
                             progress=progress)
        return RunResult("cpu", report, calls)
    return run_gpu(module, given, device, calls, seed, shapes, functions, warmup, iters,
                   kernels, source, given_source, bool(progress))


def check_run_request(device, given, kernels) -> None:
    """RequestError for GPU-only arguments (a given rewrite, kernels) on the cpu: checked
    first, before anything is read."""
    if device == "cpu" and (given is not None or kernels is not None):
        raise RequestError("OUT and --kernels apply to a GPU (--device N); cgraph verify "
                           "compares two modules on the cpu")


def run_gpu(module, given, ordinal: int, calls, seed, shapes, functions, warmup, iters,
            kernels, source, given_source, progress: bool) -> RunResult:
    from .cuda import cuda_driver
    from .cuda.gpu_run import RunOptions, run_on_gpu
    from .cuda.nvrtc import NvrtcUnavailable

    name = api.source_name(source)
    selected = api.public_names(module, functions, name)
    api.check_shapes(module, shapes, name, selected)
    options = RunOptions(device=ordinal, calls=calls, seed=seed, shapes=shapes or {},
                         warmup=warmup, iters=iters, functions=selected,
                         kernels_source=kernels[0] if kernels else None,
                         kernels_name=kernels[1] if kernels else "user-kernels.cu",
                         progress=progress)
    try:
        report = run_on_gpu(module, name, options, cuda_driver.open_driver, given,
                            tuple(given_source) if given_source is not None else None)
    except cuda_driver.DriverUnavailable as e:
        raise CommandError(f"--device {ordinal}: {e}; --device cpu runs the reference "
                           "executor") from None
    except NvrtcUnavailable as e:
        raise CommandError(f"cannot compile kernels: {e}") from None
    except cuda_driver.DriverError as e:
        raise CommandError(f"CUDA: {e}") from None
    except SourceError as e:
        raise api.located(e, source)
    return RunResult(ordinal, report, options.calls)


# ---- diff -----------------------------------------------------------------------------------

class DiffResult:
    """`cgraph diff`'s result: `facts` (a ModuleFacts, of the functions selected), `graphs`
    (the graph counts checked: report/graph_warnings.py), `warnings` ((Loc, message) located
    in the original: a module from the wrong stage, the rewrite's, and the graph counts'),
    `failures` (a line for each gate that fails), `rewritten` (the module compared) and
    `report` (the rewrite's RewriteReport in the one-file form: what `--explain` prints; None
    when the rewritten module was given). `exit_status`: 1 when a gate fails, else 0."""

    def __init__(self, facts, graphs, warnings: list, failures: list, rewritten, report=None):
        self.facts, self.graphs, self.warnings = facts, graphs, warnings
        self.failures, self.rewritten, self.report = failures, rewritten, report

    @property
    def exit_status(self) -> int:
        return EXIT_CHECK_FAILED if self.failures else EXIT_OK


def diff(original, rewritten=None, *, options=None, functions=None,
         fail_under: float | None = None, fail_under_captured: float | None = None,
         warn_over_graphs: int | None = None, fail_over_graphs: int | None = None,
         sources: tuple = (None, None)) -> DiffResult:
    """`cgraph diff`: api.diff's facts (the rewrite of `original` with `options`, or the given
    `rewritten`), cut to `functions` (None: all; UnknownName for one that is no Relax
    function: the rewrite stays the whole module's, since its graphs and slots are numbered
    and its memory shared module-wide), the graph counts checked against `warn_over_graphs`
    (None: report/graph_warnings.py's default) and `fail_over_graphs`, and the gates
    (report/diff_gates.py). RequestError for options given with `rewritten`."""
    from .passes.stage import wrong_stage
    from .report.analysis import analyze
    from .report.diff_gates import gate_failures
    from .report.graph_warnings import DEFAULT_WARN_OVER_GRAPHS, check_graph_counts

    source = sources[0]
    api.check_functions(original, functions, api.source_name(source))
    if rewritten is not None:
        if options is not None:
            raise RequestError("the rewrite's options apply when the original is rewritten "
                               "(no rewritten module given)")
        api.check_rewrite(original, rewritten, sources=sources)
        report, stage = None, wrong_stage(original)
    else:
        api.refuse_rewritten(original, source)
        rewritten, report = api.rewrite(original, options, source=source)
        stage = report.stage
    facts = analyze(original, rewritten, report).only(functions)
    graphs = check_graph_counts(facts, DEFAULT_WARN_OVER_GRAPHS if warn_over_graphs is None
                                else warn_over_graphs, fail_over_graphs)
    warnings = ([(stage.loc, stage.message)] if stage is not None else []) + \
        (list(report.warnings) if report is not None else []) + \
        [(w.loc, w.message()) for w in graphs.warnings]
    failures = gate_failures(facts, api.source_name(source),
                             bool(original.relax_functions()), fail_under,
                             fail_under_captured, graphs)
    return DiffResult(facts, graphs, warnings, failures, rewritten, report)
