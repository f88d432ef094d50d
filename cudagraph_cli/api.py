"""cgraph's public Python API: what the `cgraph` command line, the TVM pass and users all call.

    from cudagraph_cli import load, rewrite, print_module, verify

    module = load("model.relax")               # read + parse + check (a path: str or Path)
    module = loads(text, name="model.relax")   # the same, from text
    out, report = rewrite(module)              # RewriteOptions() is cgraph's rewrite
    print(print_module(out))
    result = verify(module, out)               # same numbers? (CUDA-graph semantics, NumPy)
    facts = diff(module)                       # what `cgraph diff` shows, as data

`load` and `loads` tell a path and a text apart by the function, as `json.load` and
`json.loads` do. `rewrite`, `verify`, `diff` and `check` take what people pass: a module, a
path (a `Path`, or a `str` of one line) or TVMScript text (a `str` of several lines: a module's
text always has them), or raise a TypeError that names `load` (module_of).

Every error bad input can cause is a `SourceError`; `err.message` is its message, `str(err)`
`FILE:LINE:COL: message` once it is attached to a file, and `err.render()` the
`FILE:LINE:COL: error: message` form with the source line and a caret.
`load` and `loads` locate their errors in the file; the other functions locate theirs in the
file or text they read, or in the `source` (a `Source`, the file's name and text) they are
given, and leave the file to the caller otherwise (`err.located(name, text)`).

Importing this module is cheap: each function imports the stages it needs when called, so
`cgraph --help` and `import cudagraph_cli` load neither lark nor numpy.
"""

from __future__ import annotations

import os
from collections import namedtuple

from .diagnostics import Loc, SourceError, out_of_memory


class Source(namedtuple("Source", "name text")):
    """A module's text and the name errors give its file (`<stdin>`, a path)."""

    __slots__ = ()


class UnknownName(ValueError):
    """A name given as an option (a function, a symbolic variable) that the module does not
    have: the message says which, and what the module has."""


class OverBound(ValueError):
    """A value given for a symbolic variable (--shape) outside the range a function declares
    for it: over its `tir_var_upper_bound` (the memory plan sized the storages for the bound,
    so the run would only fail later, inside, with a view that does not fit), or under its
    least value (`tir_var_lower_bound`; 1, or 0 where `tir_non_negative_var` names it)."""


def read(path: str | os.PathLike, keep_line_ends: bool = False) -> Source:
    """The text of a module file (`-`: standard input), as `cgraph` reads it: UTF-8, CRLF line
    ends made LF (unless `keep_line_ends`), at most fileio.MAX_INPUT_BYTES. A SourceError
    naming the file otherwise."""
    from .fileio import read_text

    text, name = read_text(os.fspath(path), keep_line_ends)
    return Source(name, text)


def loads(text: str, *, name: str = "<string>"):
    """Parse TVMScript `text` into an `ir.Module` and check that it is well formed. `name`:
    what errors call the file. Raises a SourceError located in `text`."""
    from .ir.wellformed import check_module
    from .text.reader import parse_module

    module = parse_module(text, name)
    try:
        check_module(module)
    except SourceError as e:
        raise e.located(name, text)
    return module


def load(path: str | os.PathLike, *, name: str | None = None):
    """`loads` of a file's text (`-`: standard input); `name` replaces the path in errors."""
    source = read(path)
    return loads(source.text, name=name if name is not None else source.name)


def module_of(value, caller: str, source: Source | None = None):
    """`(module, source)` for what a caller of `rewrite`, `verify`, `diff` or `check` passed:
    an `ir.Module` as it is (with `source`, the caller's); a path (an `os.PathLike`, or a
    `str` without a line break: no file name has one, no module text lacks one) read and
    parsed as `load` does; TVMScript text (a `str` with line breaks) parsed as `loads` does,
    named `<string>`. The source read is returned, so that the caller's later errors are
    located in it too (`source` given wins). A TypeError naming `load` for anything else:
    `rewrite("x.relax")` raised AttributeError deep inside before (issue 47)."""
    from .ir import Module

    if isinstance(value, Module):
        return value, source
    if isinstance(value, os.PathLike) or (isinstance(value, str) and "\n" not in value):
        read_source = read(value)
    elif isinstance(value, str):
        read_source = Source("<string>", value)
    else:
        hint = (" (a TVM IRModule: cgraph's pass on TVM's objects is "
                "cudagraph_cli.tvm.RewriteCUDAGraph(), or pass loads(mod.script()))"
                if type(value).__module__.startswith("tvm") else "")
        raise TypeError(f"{caller}() takes a module (cudagraph_cli.load(path) reads one), a "
                        f"path (str or Path) or TVMScript text, not "
                        f"{type(value).__name__}{hint}")
    module = loads(read_source.text, name=read_source.name)
    return module, source if source is not None else read_source


def modules_of(a, b, caller: str, sources: tuple) -> tuple:
    """module_of of a pair (`verify`'s, `diff`'s, `check`'s), with their sources; `b` None
    stays None."""
    a, source_a = module_of(a, caller, sources[0])
    if b is None:
        return a, None, (source_a, sources[1])
    b, source_b = module_of(b, caller, sources[1])
    return a, b, (source_a, source_b)


def print_module(module, dialect: str | None = None) -> str:
    """The module as canonical TVMScript: `cgraph fmt`'s output. `dialect`: "current" or
    "legacy" (None: the dialect the module was read in)."""
    from .text.printer import print_module as print_text

    return print_text(module, dialect)


def check_functions(module, names, source_name: str) -> None:
    """UnknownName unless every name in `names` is a Relax function of `module` (what
    `cgraph rewrite --functions` checks: a misspelled name would rewrite nothing)."""
    if names is None:
        return
    check_function_names({f.name for f in module.relax_functions()}, names, source_name)


def check_function_names(known, names, source_name: str) -> None:
    """`check_functions` given the names of the module's Relax functions (the TVM pass has
    them from TVM's module, before reading it)."""
    missing = [n for n in names if n not in known]
    if missing:
        raise UnknownName(f"no Relax function named {', '.join(missing)} in {source_name} "
                          f"(it has {', '.join(sorted(known)) or 'none'})")


def difference(got, expected, *, prim_bodies: str = "text", sides: tuple | None = None):
    """The first structural difference between two modules (`cgraph check`; also exported as
    `check`): None when they are equal up to the names of local variables, else a Difference
    (`.message`, `.function`, `.loc_a` in `got`, `.loc_b` in `expected`). Each is a module, a
    path or TVMScript text (module_of). `prim_bodies`: "text" compares PrimFunc bodies by
    their normalized text, "ignore" only their signatures. `sides`: what the message calls
    the two (`function 'f' is only in got, not in expected`); None: the paths where paths
    were given, else "got" and "expected"."""
    from .text.difference import module_difference

    got, expected, sources = modules_of(got, expected, "check", (None, None))
    if sides is None:  # a path read is named by it; a module or text is not
        sides = tuple(s.name if s is not None and s.name != "<string>" else default
                      for s, default in zip(sources, ("got", "expected")))
    return module_difference(got, expected, prim_bodies, sides)


# `cgraph check`'s name: what a user of the command looks for first.
check = difference


class PairResult(namedtuple("PairResult", "got expected status difference error diff",
                            defaults=(None, None, None))):
    """One pair of a batch check. `status`: "ok", "differs" (`difference` says where; `diff`:
    the review's lines, where asked for: `commands.check(review=True)`), "error" (`error`:
    the SourceError that reading or parsing one of them raised) or "missing" (a directory had
    the file and the other did not: that side is None)."""

    __slots__ = ()


def directory_pairs(got_dir: str, expected_dir: str) -> list[tuple[str | None, str | None]]:
    """The `*.relax` files under two directories (subdirectories too), paired by their path
    relative to each, in sorted order; a file on one side only is paired with None."""
    def found(top: str) -> dict[str, str]:
        files = {}
        for directory, subdirs, names in os.walk(top):
            subdirs.sort()
            for n in names:
                if n.endswith(".relax"):
                    path = os.path.join(directory, n)
                    files[os.path.relpath(path, top)] = path
        return files

    got, expected = found(got_dir), found(expected_dir)
    return [(got.get(rel), expected.get(rel)) for rel in sorted(got.keys() | expected.keys())]


def listed_pairs(text: str, name: str) -> list[tuple[str, str]]:
    """The pairs of a `cgraph check --list` file: a line `GOT EXPECTED` each (quoted as a
    shell would where a path has spaces), `#` comments and blank lines skipped. A SourceError
    located in the list for a line that is not two paths, or names standard input."""
    import shlex

    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            fields = shlex.split(line, comments=True)
        except ValueError as e:
            raise SourceError(f"not a pair of paths: {e}", Loc(number, 1), name, text) from None
        if not fields:
            continue
        if len(fields) != 2:
            raise SourceError(f"expected two paths (GOT EXPECTED), found {len(fields)}",
                              Loc(number, 1), name, text)
        if "-" in fields:
            raise SourceError("a listed pair cannot read standard input (-)", Loc(number, 1),
                              name, text)
        pairs.append((fields[0], fields[1]))
    return pairs


def check_pairs(pairs, *, prim_bodies: str = "text"):
    """`cgraph check` of each (got, expected) path pair, in order: yields a PairResult each.
    A file is read and parsed once however many pairs name it (and dropped after its last
    pair); one that cannot be read or parsed makes each pair naming it an "error", and the
    others still run."""
    from collections import Counter

    from .text.difference import module_difference

    pairs = list(pairs)
    uses = Counter(p for pair in pairs for p in pair if p is not None)
    loaded: dict[str, object] = {}

    def module(path):
        if path not in loaded:
            try:
                loaded[path] = load(path)
            except SourceError as e:
                loaded[path] = e
            except RecursionError:
                loaded[path] = SourceError("input nested too deeply", filename=path)
        return loaded[path]

    for got, expected in pairs:
        if got is None or expected is None:
            yield PairResult(got, expected, "missing")
            continue
        a, b = module(got), module(expected)
        for path in (got, expected):
            uses[path] -= 1
            if uses[path] == 0:
                del loaded[path]
        failed = a if isinstance(a, SourceError) else b if isinstance(b, SourceError) else None
        if failed is not None:
            yield PairResult(got, expected, "error", error=failed)
            continue
        diff = module_difference(a, b, prim_bodies, (got, expected))
        yield PairResult(got, expected, "ok" if diff is None else "differs", difference=diff)


def rewrite(module, options=None, *, source: Source | None = None):
    """cgraph's RewriteCUDAGraph: `(rewritten module, RewriteReport)`. `module`: a module, a
    path or TVMScript text (module_of). `options`: a
    `RewriteOptions` (None: cgraph's; `RewriteOptions.tvm_compat()`: TVM 0.27's exact output).
    The report holds the plans (`report.plan`, `report.merged`), why each kernel launch left
    outside stays there (`report.reasons`) and notes. A SourceError raised by the rewrite is
    located in `source` when given; UnknownName for a `capture_symbolic` variable that no
    function has in the shapes of its inputs."""
    from .passes.pipeline import rewrite as run_pipeline
    from .passes.region_planner import UnknownSymbolicVar

    module, source = module_of(module, "rewrite", source)
    try:
        return run_pipeline(module, options)
    except SourceError as e:
        raise located(e, source)
    except UnknownSymbolicVar as e:
        raise UnknownName(str(e)) from None


def located(err: SourceError, source: Source | None) -> SourceError:
    """`err` attached to `source`'s file (unless already attached to one, or no source)."""
    return err.located(source.name, source.text) if source is not None else err


def source_name(source: Source | None) -> str:
    return source.name if source is not None else "the module"


def public_names(module, names, source_name: str) -> list[str] | None:
    """The public functions `cgraph verify` and `cgraph run` run: None (all) when `names` is
    empty or None, else those named, in the module's order. UnknownName for a name that is no
    public function, listing those there are."""
    if not names:
        return None
    if isinstance(names, str):
        names = [names]  # one name, not its letters
    from .exec.functions import public_functions

    public = [f.name for f in public_functions(module)]
    unknown = [n for n in dict.fromkeys(names) if n not in public]
    if unknown:
        relax = {f.name for f in module.relax_functions()}
        private = [n for n in unknown if n in relax]  # not public: private ones
        why = f"; {', '.join(private)} {'is' if len(private) == 1 else 'are'} private" \
            if private else ""
        raise UnknownName(f"no public function named {', '.join(unknown)} in {source_name} "
                          f"(it has {', '.join(public) or 'none'}{why})")
    return [n for n in public if n in names]


def check_shapes(module, shapes: dict | None, source_name: str,
                 functions: list[str] | None = None) -> None:
    """UnknownName unless each name in `shapes` is a symbolic variable the parameters of the
    public functions that run (`functions`, None: all) have: a misspelled name would
    otherwise silently leave the default values in place. OverBound for a value outside a
    function's range for that variable (proof/ranges.py): over its `tir_var_upper_bound`,
    under its `tir_var_lower_bound`, or 0 where `tir_non_negative_var` does not allow it."""
    if not shapes:
        return
    from .exec.functions import public_functions
    from .ir import sinfo_prim_vars
    from .proof.ranges import FunctionRanges

    run = [f for f in public_functions(module) if functions is None or f.name in functions]
    params_vars = {f.name: {v.name for p in f.params for v in sinfo_prim_vars(p.sinfo)}
                   for f in run}
    known = sorted(set().union(*params_vars.values()))
    unknown = sorted(set(shapes) - set(known))
    if unknown:
        whose = "the public functions" if functions is None else \
            f"{', '.join(f.name for f in run)}'s parameters"
        has = (f"it has {', '.join(known)}" if known else
               f"{whose} have no symbolic dimension")
        raise UnknownName(f"no symbolic variable named {', '.join(unknown)} in {source_name} "
                          f"({has})")
    for name, values in shapes.items():
        ranges = [(f, FunctionRanges(f).of(name)) for f in run if name in params_vars[f.name]]
        over = [(f.name, r.most) for f, r in ranges
                if r.most is not None and any(v > r.most for v in values)]
        if over:
            tightest = min(bound for _, bound in over)
            value = next(v for v in values if v > tightest)
            whose = " and ".join(f"{f}'s" for f, b in over if b == tightest)
            raise OverBound(f"{name}={value} is over {whose} tir_var_upper_bound "
                            f"({name} <= {tightest}) in {source_name}")
        under = [(f, r.least) for f, r in ranges if any(v < r.least for v in values)]
        if under:
            tightest = max(least for _, least in under)
            value = next(v for v in values if v < tightest)
            at = [f for f, least in under if least == tightest]
            whose = " and ".join(f"{f.name}'s" for f in at)
            why = "tir_var_lower_bound" if name in at[0].lower_bounds() else \
                "least value (a dimension is at least 1; tir_non_negative_var allows 0)"
            raise OverBound(f"{name}={value} is under {whose} {why} ({name} >= {tightest}) "
                            f"in {source_name}")


def verify(original, rewritten, *, calls: int = 4, seed: int = 0, shapes: dict | None = None,
           sources: tuple[Source | None, Source | None] = (None, None),
           functions=None, progress=None, facts: bool = True):
    """Does `rewritten` compute what `original` computes (each a module, a path or TVMScript
    text: module_of)? `cgraph verify`: both run on the
    NumPy reference executor, `calls` times each public function (or those named in
    `functions`), with CUDA-graph semantics for the rewrite; `shapes` gives values of symbolic
    variables (name -> values, used in turn). Before anything runs: UnknownName for a name in
    `functions` that is no public function of the original, or a `shapes` name the functions
    have no symbolic variable of; OverBound for a `shapes` value over a function's
    `tir_var_upper_bound`. `progress(function, index, total, captures)`, if given, is called
    before each call (exec/verify.py). `facts=False` leaves out what the text proves for
    every value within the bounds (proof/facts.py): only what the runs see.
    Returns a VerifyReport: `.equal`, `.difference` (None, or an exec.compare.Difference;
    its `.kind` one of the kinds: "values" (an output's bytes), "ownership" (values agree, but
    memory is shared wrongly), "terms" (the bytes agree, what they are made of does not),
    "guard" (a bounded graph's guard took the wrong path), "shape" (a shape fact of the
    rewrite fails for some value within the bounds); tests/test_docs_sync.py checks the list
    against the executor's), `.functions` (those that ran), `.warnings`, counts. Raises ModuleFails
    (`.which` names the module) when one of them cannot run -- also when the machine cannot
    hold it (out of memory) --, ModuleMismatch when they do not correspond, both SourceErrors
    located in `sources` (original's, rewritten's) where given."""
    from .exec.verify import ModuleFails, verify as run_verify

    original, rewritten, sources = modules_of(original, rewritten, "verify", sources)
    name = source_name(sources[0])
    functions = public_names(original, functions, name)
    check_shapes(original, shapes, name, functions)
    try:
        return run_verify(original, rewritten, calls=calls, seed=seed, shapes=shapes,
                          functions=functions, progress=progress, facts=facts)
    except ModuleFails as e:
        raise located(e, sources[1] if e.which == "rewritten" else sources[0])
    except SourceError as e:
        raise located(e, sources[0])
    except MemoryError as e:
        # Outside any binding (making inputs, comparing outputs): the run as a whole.
        raise located(SourceError(out_of_memory(e)), sources[0]) from None


def check_rewrite(original, rewritten, *,
                  sources: tuple[Source | None, Source | None] = (None, None)) -> None:
    """NotARewrite (a SourceError, located in the module its `.which` names, in `sources`
    where given) unless `rewritten` is what a CUDA-graph rewrite, cgraph's or TVM's, can make
    of `original`."""
    from .report.rewrite_of import NotARewrite, check_is_rewrite

    try:
        check_is_rewrite(original, rewritten)
    except NotARewrite as e:
        raise located(e, sources[0] if e.which == "original" else sources[1])


def refuse_rewritten(module, source: Source | None = None) -> None:
    """A SourceError at the first function of `module` that launches CUDA graphs, if any: the
    one-file diff of a rewrite's output would count its capture functions as the model's and
    its graphs' kernels as kernels to capture again (a ratio over 1, a negative saving, a
    passing --fail-under)."""
    from .passes.pipeline import launches_graphs

    for f in module.relax_functions():
        if launches_graphs(f):
            raise located(SourceError(
                f"'{f.name}' already launches CUDA graphs (vm.builtin.cuda_graph.*): this is a "
                "rewrite's output; diff the module before the rewrite, or both: cgraph diff "
                "ORIGINAL REWRITTEN", f.loc), source)


def diff(original, rewritten=None, *, options=None,
         sources: tuple[Source | None, Source | None] = (None, None)):
    """What a rewrite did, as `cgraph diff` shows it: a ModuleFacts (its JSON, as `cgraph diff
    --format json` prints it, is `report.views.to_json(facts, name)`). With `rewritten` None,
    `original` is rewritten first (with `options`) and which storage took which slot, and
    which binding went into which graph, come from the rewrite's plans. With `rewritten` given
    (a rewrite by cgraph or TVM; NotARewrite if it is none), they come from its text. Each is
    a module, a path or TVMScript text (module_of); `diff_text` prints the facts as `cgraph
    diff` does."""
    from .report.analysis import analyze

    original, rewritten, sources = modules_of(original, rewritten, "diff", sources)
    if rewritten is None:
        refuse_rewritten(original, sources[0])
        rewritten, report = rewrite(original, options, source=sources[0])
    else:
        check_rewrite(original, rewritten, sources=sources)
        report = None
    return analyze(original, rewritten, report)


def diff_text(facts, *, width: int = 100, function: str | None = None, fold: int = 12,
              summary: bool = False) -> str:
    """`diff`'s facts as `cgraph diff` prints them on a terminal `width` columns wide, without
    colour: each function's listing (`function`: one only; `fold`: as `--fold`), then the
    summary (`summary=True`: the summary only, `--summary`)."""
    from .report.views import terminal_text

    return terminal_text(facts, width, function, fold, summary)


def verify_text(report, original: str = "original", rewritten: str = "rewritten") -> str:
    """`verify`'s report as `cgraph verify` prints it, the modules called `original` and
    `rewritten` (their file names, say)."""
    from .report.verify_view import verify_text as report_text

    return report_text(report, original, rewritten)


class CpuRun:
    """The outputs of `run_cpu`: one row a tensor output (function, call, output path, shape,
    dtype, crc32 of its bytes), the executor's counts, and its located warnings."""

    __slots__ = ("rows", "kernel_launches", "graph_captures", "graph_replays", "warnings",
                 "functions")

    def __init__(self, rows: list | None = None, kernel_launches: int = 0,
                 graph_captures: int = 0, graph_replays: int = 0, warnings: list | None = None,
                 functions: list | None = None):
        self.functions = [] if functions is None else functions  # those that ran, in order
        self.rows = [] if rows is None else rows
        self.kernel_launches = kernel_launches
        self.graph_captures = graph_captures
        self.graph_replays = graph_replays
        self.warnings = [] if warnings is None else warnings  # (Loc, message)

    def __repr__(self) -> str:
        return "CpuRun(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"


def run_cpu(module, *, calls: int = 1, seed: int = 0, shapes: dict | None = None,
            source: Source | None = None, on_warnings=None, functions=None,
            progress=None) -> CpuRun:
    """`cgraph run --device cpu`: every public function of `module` (or those named in
    `functions`), `calls` times in turn, on the reference executor, with `cgraph verify`'s
    inputs, checked before anything runs as verify checks them (UnknownName, OverBound).
    `on_warnings(list of (Loc, message))` is called once, at the end, even when the run fails:
    the warnings explain the failure. `progress(function, index, total, captures)`: as in
    `verify`. A run the machine cannot hold is a SourceError (out of memory)."""
    import zlib

    from .exec.backend import CpuBackend, Tensor
    from .exec.driver import CallDriver
    from .exec.functions import public_functions, runnable_functions
    from .exec.handlers.cuda_graph import GraphRuntime
    from .exec.interpreter import Executor
    from .exec.values import leaves_with_paths

    try:
        runnable_functions(module)
    except SourceError as e:
        raise located(e, source)
    names = public_names(module, functions, source_name(source))
    check_shapes(module, shapes, source_name(source), names)
    executor = Executor(module, CpuBackend())
    graphs = executor.state(GraphRuntime)
    driver = CallDriver([executor], seed, shapes or {})
    run = CpuRun(functions=[f.name for f in public_functions(module)
                            if names is None or f.name in names])
    try:
        for call, f in driver.schedule([module.function(n) for n in run.functions], calls,
                                       progress, lambda: graphs.captures):
            out = driver.run(driver.prepare(f, call), 0)
            for path, t in leaves_with_paths(out):
                if isinstance(t, Tensor):
                    data = executor.backend.to_numpy(t)
                    run.rows.append({"function": f.name, "call": call + 1, "output": path,
                                     "shape": list(data.shape), "dtype": str(data.dtype),
                                     "crc32": f"{zlib.crc32(data.tobytes()):08x}"})
    except SourceError as e:
        raise located(e, source)
    except MemoryError as e:
        raise located(SourceError(out_of_memory(e)), source) from None
    finally:
        run.warnings = list(executor.warnings)
        if on_warnings is not None:
            on_warnings(run.warnings)
    run.kernel_launches = executor.backend.launch_count
    run.graph_captures = graphs.captures
    run.graph_replays = graphs.replays
    return run


__all__ = ["CpuRun", "Loc", "OverBound", "PairResult", "Source", "SourceError", "UnknownName",
           "check", "check_functions", "check_pairs", "check_rewrite", "check_shapes", "diff",
           "diff_text", "difference", "directory_pairs", "listed_pairs", "load", "loads", "located",
           "module_of", "print_module", "public_names", "read", "rewrite", "run_cpu",
           "verify", "verify_text"]
