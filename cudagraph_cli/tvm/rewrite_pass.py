"""The TVM pass itself: `RewriteCUDAGraph()`, `cuda_pipeline()`, and `rewrite_module`, the
rewrite of an IRModule in memory (from_tvm.py, the rewrite, to_tvm.py) or through text (the
package's docstring, docs/TVM.md). The package `cudagraph_cli.tvm` re-exports its public names.
"""

from __future__ import annotations

import dataclasses
import re
import threading

from ..diagnostics import INSTALL_TVM, SourceError

PASS_NAME = "RewriteCUDAGraph"  # TVM's name: instruments and pass lists find it by name
CONFIG_KEY = "relax.backend.use_cuda_graph"
SCHEDULE_NAME = "ApplyDefaultSchedule"  # dlight's pass in TVM's cuda legalize passes
SCRIPT_NAME = "<mod.script()>"  # what errors name as the file: TVM's text of the input module
REWRITTEN_NAME = "<cgraph rewrite>"

# TVM's printer writes a non-scalar constant as metadata["ir.GenericConst"][i], i counting
# the distinct constants in the order it prints them.
CONST_KEY = "ir.GenericConst"
METADATA_RE = re.compile(r'metadata\["([^"\\]+)"\]\[(\d+)\]')


class CgraphPassError(ValueError):
    """cgraph could not read, rewrite or hand back a module; the message is cgraph's, located
    in the text named in it (`<mod.script()>`: TVM's printing of the pass's input)."""


class CgraphOptionError(CgraphPassError):
    """The pass's options name what the module lacks (a function, a capture_symbolic
    variable): the user's error, raised as `cgraph rewrite` refuses it, never worked around."""


class CgraphInternalError(CgraphPassError):
    """cgraph disagrees with itself or with TVM about a module it did read: TVM cannot read
    cgraph's rewrite back, TVM's metadata numbering does not match, or the in-memory reader
    and the text route disagree. A bug of cgraph's (what `cgraph` exits 3 for): raised, never
    handed to TVM's own pass as if the module were at fault."""


class FallbackRefused(CgraphPassError):
    """cgraph cannot handle the module and TVM's own pass may not stand in for it: options that
    TVM's pass would ignore were given, or `on_fallback="error"`. The message is cgraph's
    located error, what ruled the fallback out, and what to do."""


# What the pass does where cgraph cannot read a module: "warn" runs TVM's own pass with a
# TvmPassFallbackWarning (the options must be the defaults), "error" raises FallbackRefused.
ON_FALLBACK = ("warn", "error")


def check_on_fallback(on_fallback) -> str:
    if on_fallback not in ON_FALLBACK:
        raise ValueError(f"on_fallback must be one of {', '.join(map(repr, ON_FALLBACK))}, "
                         f"not {on_fallback!r}")
    return on_fallback


def import_tvm():
    try:
        import tvm
        import tvm.relax  # noqa: F401  (the pass and the pipeline need relax)
        import tvm.script  # noqa: F401
    except ImportError as e:
        raise ImportError(f"cudagraph_cli.tvm needs apache-tvm 0.27 ({INSTALL_TVM})"
                          f": {e}") from e
    import tvm_ffi

    # An error raised inside a pass crosses TVM's C++; unregistered, it comes out a RuntimeError.
    for error in (CgraphPassError, CgraphOptionError, CgraphInternalError, FallbackRefused):
        tvm_ffi.register_error(error)
    return tvm


def default_globals() -> dict:
    """The names `tvm.script.from_source` gives a text when it is given no `extra_vars`
    (I, T, R, ...): extra_vars replaces them, it does not add to them."""
    from tvm.script.parser.core import entry

    return dict(entry._default_globals())


def RewriteCUDAGraph(options=None, *, on_fallback: str = "warn", **fields):
    """A `tvm.transform.Pass` doing what `tvm.relax.transform.RewriteCUDAGraph()` does, with
    cgraph's rewrite: same name, opt level 0, and like TVM's a no-op unless the PassContext sets
    `relax.backend.use_cuda_graph`. `options`: a `RewriteOptions` (`cgraph rewrite`'s:
    min_kernels, exclude, functions, capture_symbolic, trust_extern, strict_extern;
    `RewriteOptions.tvm_compat()` turns cgraph's corrections of TVM off, TVM 0.27's output
    exactly); `fields` replace some of its fields (`RewriteCUDAGraph(min_kernels=2)`,
    `RewriteCUDAGraph(capture_symbolic=["seq_len:256"])`; a bad value raises ValueError
    here). Where cgraph cannot read the module, `rewrite_module` says what happens: TVM's own
    pass instead, warned of, only with the default options and `on_fallback="warn"`; else
    FallbackRefused. Options naming what the module lacks raise CgraphOptionError (a
    CgraphPassError, a ValueError)."""
    tvm = import_tvm()
    from ..passes.options import RewriteOptions

    check_on_fallback(on_fallback)

    if options is not None and not isinstance(options, RewriteOptions):
        raise TypeError(f"RewriteCUDAGraph takes a RewriteOptions or keywords, not "
                        f"{type(options).__name__}")
    # RewriteOptions checks and normalizes every field (a str of names is one name)
    options = dataclasses.replace(options or RewriteOptions(), **fields)

    def transform(mod, ctx):
        if not bool(ctx.config.get(CONFIG_KEY, False)):
            return mod
        return rewrite_module(mod, options, on_fallback)

    return tvm.ir.transform.module_pass(transform, opt_level=0, name=PASS_NAME)


def cuda_pipeline(before_schedule=(), **pass_options):
    """TVM 0.27's default Relax pipeline for cuda (`relax.backend.cuda.get_default_pipeline`)
    with cgraph's RewriteCUDAGraph in place of TVM's: give it to
    `relax.build(mod, target="cuda", relax_pipeline=cuda_pipeline())`. The target is the one
    `relax.build` enters; `pass_options` go to `RewriteCUDAGraph`.

    `before_schedule`: passes run right before TVM's default dlight schedule (after FuseTIR),
    where MLC-LLM schedules the GEMVs of a batch of single tokens first,
    `[dl.ApplyDefaultSchedule(dl.gpu.LowBatchGEMV(4))]`: TVM 0.27's `dl.gpu.Matmul` crashes
    the process (SIGSEGV) on those kernels of an MLC-LLM model's `batch_decode`."""
    tvm = import_tvm()
    from tvm.relax.backend.cuda import pipeline as cuda

    ours = RewriteCUDAGraph(**pass_options)
    before_schedule = list(before_schedule)

    def pipeline(mod, ctx):
        target = tvm.target.Target.current(allow_none=True)
        if target is None or target.kind.name != "cuda":
            raise ValueError("cuda_pipeline() is TVM's cuda pipeline; the target is "
                             f"{target.kind.name if target is not None else 'not set'}")
        legalize = cuda.legalize_passes(target)
        if before_schedule:
            names = [p.info.name for p in legalize]
            if names.count(SCHEDULE_NAME) != 1:
                raise RuntimeError(f"TVM's cuda pipeline has no single {SCHEDULE_NAME} to "
                                   "put the before_schedule passes before")
            at = names.index(SCHEDULE_NAME)
            legalize = legalize[:at] + before_schedule + legalize[at:]
        passes = (cuda.library_dispatch_passes(target) + legalize
                  + cuda.dataflow_lower_passes(target) + cuda.finalize_passes(target))
        replaced = [ours if p.info.name == PASS_NAME else p for p in passes]
        if sum(p.info.name == PASS_NAME for p in passes) != 1:
            # TVM's pipeline changed: better no build than one without the pass
            raise RuntimeError(f"TVM's cuda pipeline has no single {PASS_NAME} to replace")
        with target:
            return tvm.transform.Sequential(replaced)(mod)

    return tvm.ir.transform.module_pass(pipeline, opt_level=0, name="cgraph_cuda_pipeline")


def rewrite_module(mod, options=None, on_fallback: str = "warn"):
    """cgraph's rewrite of a TVM IRModule (`rewrite_module_in_memory`). Where cgraph cannot
    read or rewrite a module that TVM holds (a CgraphPassError of the module's, located in
    `<mod.script()>`), TVM's own RewriteCUDAGraph runs instead (`tvms_pass_instead`) only
    where its output keeps every promise `options` make: with the default options (or
    `tvm_compat()`, which asks for TVM's output) and `on_fallback="warn"`, warned of each
    time. Otherwise FallbackRefused. Never a fallback: options that name what the module lacks
    (CgraphOptionError, the user's error) and cgraph's own inconsistencies
    (CgraphInternalError, a bug)."""
    check_on_fallback(on_fallback)
    try:
        return rewrite_module_in_memory(mod, options)
    except (CgraphOptionError, CgraphInternalError):
        raise
    except CgraphPassError as e:
        return tvms_pass_instead(mod, e, options, on_fallback)
    except RecursionError:
        # What `cgraph` calls input nested too deeply (exit 2): a module it cannot read.
        return tvms_pass_instead(mod, CgraphPassError(f"{SCRIPT_NAME}: error: input nested "
                                                      "too deeply"), options, on_fallback)
    except Exception as e:  # noqa: BLE001 -- what no module should cause: a bug of cgraph's
        raise CgraphInternalError(f"internal error: {type(e).__name__}: {e} (a bug of "
                                  "cgraph's, not the module's: TVM's pass is not run in its "
                                  "place)") from e


def options_tvm_ignores(options) -> list[str]:
    """The fields of `options` that TVM's own pass would not honour, as `name=value`: those
    that differ from the defaults (from `tvm_compat()`'s where every correction is off: TVM's
    output is what those options ask for). Empty: TVM's pass may stand in."""
    from ..passes.options import RewriteOptions

    if options is None:
        return []
    base = RewriteOptions.tvm_compat() if not any(options.corrections.values()) \
        else RewriteOptions()
    return [f"{f.name}={getattr(options, f.name)!r}" for f in dataclasses.fields(options)
            if getattr(options, f.name) != getattr(base, f.name)]


def tvms_pass_instead(mod, error: CgraphPassError, options=None, on_fallback: str = "warn"):
    """TVM's own RewriteCUDAGraph on `mod`, where cgraph's raised `error`, with a
    TvmPassFallbackWarning (`warn_fallback`: every time). FallbackRefused, before TVM's pass
    runs, where `options` ask for what TVM's pass does not do or `on_fallback` is "error".
    When TVM's pass fails too, cgraph's error is raised (TVM's as its cause)."""
    ignored = options_tvm_ignores(options)
    if ignored:
        raise FallbackRefused(
            f"cgraph's RewriteCUDAGraph cannot handle this module, and TVM's own "
            f"RewriteCUDAGraph may not run instead: it would ignore {', '.join(ignored)} "
            f"(it captures what these options keep out of graphs, bounds nothing, and lacks "
            f"cgraph's corrections). Fix what cgraph reports below, or build without these "
            f"options to let TVM's pass run instead (docs/TVM.md, \"Errors\").\n{error}")
    if on_fallback == "error":
        raise FallbackRefused(
            f"cgraph's RewriteCUDAGraph cannot handle this module, and on_fallback=\"error\" "
            f"(--on-fallback error) refuses TVM's own RewriteCUDAGraph in its place. Fix what "
            f"cgraph reports below, or allow TVM's pass with on_fallback=\"warn\" "
            f"(docs/TVM.md, \"Errors\").\n{error}")
    tvm = import_tvm()
    from tvm.relax.transform import _ffi_api

    try:
        # TVM's pass reads the flag from the context it runs in; this pass runs only when set
        with tvm.transform.PassContext(config={CONFIG_KEY: True}):
            out = _ffi_api.RewriteCUDAGraph()(mod)
    except Exception as tvm_error:  # noqa: BLE001 -- TVM's pass failing: cgraph's error stands
        # (in the message: a cause does not cross TVM's C++ around the pass)
        first = str(tvm_error).strip().split("\n")[-1]
        raise type(error)(f"{error}\nTVM's own RewriteCUDAGraph, tried instead, failed too: "
                          f"{first}") from tvm_error
    warn_fallback(f"cgraph's RewriteCUDAGraph could not handle this module, so TVM's own "
                  f"RewriteCUDAGraph ran instead (TVM's output, without cgraph's corrections, "
                  f"its capture-safety table and its reasons; on_fallback=\"error\" refuses "
                  f"this): {error}")
    return out


def warn_fallback(message: str) -> None:
    """A TvmPassFallbackWarning for each module that falls back, every time: Python's default
    filter shows a warning once per place and message, which would hide the second module of a
    build (or the same module built twice). No registry of places is kept (`registry=None`);
    the filters still apply, so "error" and "ignore" act as set. The warning points at the
    first frame outside TVM and cgraph: the build script's line."""
    import inspect
    import warnings

    frame = inspect.currentframe().f_back
    while frame.f_back is not None and \
            frame.f_globals.get("__name__", "").startswith(("cudagraph_cli.", "tvm.", "tvm_ffi")):
        frame = frame.f_back
    warnings.warn_explicit(message, TvmPassFallbackWarning, frame.f_code.co_filename,
                           frame.f_lineno, module=frame.f_globals.get("__name__", "<unknown>"),
                           registry=None)


def rewrite_module_in_memory(mod, options=None):
    """cgraph's rewrite of a TVM IRModule, as a new IRModule (`mod` itself when cgraph changes
    nothing). `options`: a `RewriteOptions` (None: cgraph's defaults).

    In memory both ways (docs/TVM.md): from_tvm.py reads TVM's objects into cgraph's IR,
    to_tvm.py builds what the rewrite changed as TVM objects, the rest handed back as the
    input's. A module holding a construct the in-memory reader does not read (docs/TVM.md lists
    them: operator attributes other than R.to_vdevice's, PrimExprs such as T.Cast, ...; no input
    of the repository holds one) goes through text instead (`rewrite_module_through_text`), as
    does the locating of an error: cgraph's errors are
    located in TVM's printing of the module, `<mod.script()>:LINE:COL`, printed only then."""
    import_tvm()
    from .. import api
    from ..ir.equality import functions_equal
    from ..ir.wellformed import check_module
    from .from_tvm import Unsupported, read_module
    from .to_tvm import build_module

    check_function_names(mod, options)
    try:
        ours, links = read_module(mod)
    except Unsupported as e:
        warn_text_route(e, "read")
        return rewrite_module_through_text(mod, options)
    try:
        check_module(ours)
        out, report = api.rewrite(ours, options)
    except api.UnknownName as e:  # a capture_symbolic variable the module does not have
        raise CgraphOptionError(str(e)) from None
    except SourceError as e:
        raise located_error(mod, options, e) from None
    warn_report(report)
    log_rewrite(ours, out, report)
    if out is ours:
        return mod
    before = {f.name: f for f in ours.functions}
    # The rewriter rebuilds each function it plans, lifting something or not: compare
    changed = [f.name for f in out.relax_functions()
               if f.name not in before or not functions_equal(before[f.name], f)]
    if not changed:
        return mod
    lifted = {name: lifted_from(name, before) for name in changed if name not in before}
    try:
        return build_module(mod, out, links, changed, lifted)
    except Unsupported as e:
        warn_text_route(e, "build")
        return rewrite_module_through_text(mod, options)


class TextRouteWarning(UserWarning):
    """The pass took the text route (TVM prints the module, cgraph reads and rewrites the text,
    TVM reads cgraph's back): right, but several times slower than in memory."""


def warn_text_route(construct, step: str) -> None:
    """Say that the pass falls back to text, naming the construct and the cost: once per
    construct (Python's default warning filter shows a given message once per place)."""
    import warnings

    what = "read" if step == "read" else "build back"
    warnings.warn(f"cgraph's RewriteCUDAGraph cannot {what} {construct} in memory and takes "
                  "the text route: the result is the same, the pass about 15x slower "
                  "(TVM prints the module and reads cgraph's text back)",
                  TextRouteWarning, stacklevel=2)


class CgraphPassWarning(UserWarning):
    """What `cgraph rewrite` prints as a warning, from the pass inside a build: a module that
    looks dumped at the wrong stage (nothing to capture yet), a --capture-symbolic bound with
    no effect."""


class TvmPassFallbackWarning(CgraphPassWarning):
    """cgraph could not handle the module and TVM's own RewriteCUDAGraph ran instead: the build
    goes on as it would without cgraph; the message is cgraph's located error."""


LOGGER = "cudagraph_cli"  # logging.getLogger(LOGGER): a line at INFO per module rewritten


def log_rewrite(ours, out, report) -> None:
    """One line at INFO on the `cudagraph_cli` logger for each module the pass rewrote: each
    function that launches graphs, its graph launches and host work a call before -> after
    (report/analysis.py's facts, from the rewrite's own plans, as `cgraph diff` counts them).
    Nothing is computed unless the logger would print it."""
    import logging

    logger = logging.getLogger(LOGGER)
    if logger.isEnabledFor(logging.INFO):
        from ..report.analysis import analyze, rewrite_summary

        logger.info("%s", rewrite_summary(analyze(ours, out, report)))


def warn_report(report) -> None:
    """The warnings of a RewriteReport, through Python's `warnings` (what `cgraph rewrite`
    prints on stderr, located there; here the module has no text to point into)."""
    import warnings

    messages = ([report.stage.message] if report.stage is not None else []) + \
        [message for _, message in report.warnings]
    for message in messages:
        warnings.warn(f"cgraph's RewriteCUDAGraph: {message}", CgraphPassWarning, stacklevel=3)


def check_function_names(mod, options) -> None:
    """CgraphPassError unless every name in `options.functions` is a Relax function of `mod`,
    as `cgraph rewrite --functions` refuses one (a misspelled name would rewrite nothing)."""
    if options is None or options.functions is None:
        return
    from tvm import relax

    from .. import api

    names = {gv.name_hint for gv, f in mod.functions.items() if isinstance(f, relax.Function)}
    try:
        api.check_function_names(names, options.functions, SCRIPT_NAME)
    except api.UnknownName as e:
        raise CgraphOptionError(str(e)) from None


def lifted_from(name: str, functions: dict) -> str:
    """The input function a lifted function was lifted from (`decode` for
    `decode_cuda_graph_capture1`); "" for the allocation function, lifted from none."""
    head, sep, _ = name.rpartition("_cuda_graph_capture")
    return head if sep and head in functions else ""


def located_error(mod, options, error) -> CgraphPassError:
    """The pass's error for `error`, raised by cgraph on its in-memory reading of `mod`: as the
    text route words it, located in TVM's printing of the module (printed here, on the error
    path only). When the text route meets no error, the two routes disagree about the module:
    a CgraphInternalError (cgraph's bug), never a reason to hand the module to TVM's pass."""
    try:
        rewrite_module_through_text(mod, options)
    except CgraphPassError as e:
        return e
    message = error.message if isinstance(error, SourceError) else str(error)
    return CgraphInternalError(f"{SCRIPT_NAME}: error: {message} (cgraph's in-memory reader "
                               "raised this; its text route rewrites the module: the two "
                               "disagree, a bug of cgraph's)")


def rewrite_module_through_text(mod, options=None):
    """`rewrite_module` through text (the package's docstring): the route for what the
    in-memory reader does not read (taken with a TextRouteWarning) and for locating an error.
    Raises CgraphPassError, located in `<mod.script()>`."""
    tvm = import_tvm()
    from .. import api, ir
    from ..ir.equality import functions_equal

    source = api.Source(SCRIPT_NAME, mod.script())
    try:
        ours = api.loads(source.text, name=source.name)
        out, report = api.rewrite(ours, options, source=source)
    except SourceError as e:
        raise CgraphPassError(e.render()) from None
    except api.UnknownName as e:  # a capture_symbolic variable the module does not have
        raise CgraphOptionError(str(e)) from None
    warn_report(report)
    log_rewrite(ours, out, report)
    if out is ours:
        return mod
    before = {f.name: f for f in ours.functions}
    # The rewriter rebuilds each function it plans, lifting something or not: compare
    changed = {f.name for f in out.relax_functions()
               if f.name not in before or not functions_equal(before[f.name], f)}
    if not changed:
        return mod

    originals = {gv.name_hint: (gv, f) for gv, f in mod.functions.items()}
    # Without a metadata reference in TVM's text there is no constant to number, and no need
    # to walk every expression of the module to number them.
    constants = printed_constants(mod, ours) if METADATA_RE.search(source.text) else []
    stubbed = ir.replace(out, functions=[stub(f) for f in out.functions])
    rewritten = api.print_module(stubbed, "current")
    check_metadata_references(rewritten, constants)
    names = default_globals()
    names["metadata"] = {CONST_KEY: constants} if constants else {}
    try:
        # Unchecked, as TVM's own pass hands its result on: with tvm_compat() a function without
        # relax.force_pure comes out as TVM's pass makes it, which TVM's well-formedness check
        # rejects; cgraph's own check has already run on the rewrite.
        parsed = on_a_short_stack(tvm.script.from_source, rewritten, extra_vars=names,
                                  check_well_formed=False)
    except Exception as e:  # TVM's reader raises its own DiagnosticError and more
        raise CgraphInternalError(f"{REWRITTEN_NAME}: TVM cannot read cgraph's rewrite: "
                                  f"{e}") from e

    # before the mutators below, whose normalizing would fail on a wrongly numbered constant
    if constants:
        check_constants(parsed, originals, changed)
    # The module is keyed by the input's GlobalVars, and the functions read from text refer to
    # them too: the functions handed back as the original objects refer to the input's
    # GlobalVars (create_tir_paged_kv_cache passes kernels as values), so a module keyed by
    # the reader's new ones is not well-formed ("GlobalVar ... is not defined"). The functions
    # cgraph adds keep the reader's.
    keys = {gv.name_hint: originals[gv.name_hint][0] if gv.name_hint in originals else gv
            for gv in parsed.functions.keys()}
    rebind = global_var_rebinder(keys)
    functions = {}
    restore = ty_args_restorer()
    typed = functions_with_typed_allocs(mod)
    for gv, f in parsed.functions.items():
        name = gv.name_hint
        if name in originals and name not in changed:
            functions[keys[name]] = originals[name][1]
            continue
        if name in typed:
            f = restore.visit_expr(f)
        functions[keys[name]] = rebind.visit_expr(f)
    result = tvm.IRModule(functions, attrs=mod.attrs, global_infos=mod.global_infos)
    return result


def on_a_short_stack(function, *args, **kwargs):
    """`function(*args, **kwargs)` on a thread of its own. TVM's reader calls inspect.stack()
    for every function it reads, which costs as much as the caller's stack is deep: inside
    relax.build, a test runner or a notebook, several times the reading itself."""
    result: list = []

    def run():
        try:
            result.append((True, function(*args, **kwargs)))
        except BaseException as e:  # handed to the caller's thread, raised there
            result.append((False, e))

    thread = threading.Thread(target=run, name="cgraph-tvm-reader")
    thread.start()
    thread.join()
    ok, value = result[0]
    if not ok:
        raise value
    return value


def functions_with_typed_allocs(mod) -> set:
    """Names of the Relax functions whose `R.builtin.alloc_tensor` calls carry `ty_args`:
    StaticPlanBlockMemory makes each such call with its own type as its one type argument (and
    TVM's pass keeps them), but a module TVM read from text has none (its reader rejects them)."""
    from tvm import relax

    alloc = tvm_op("relax.builtin.alloc_tensor")
    names = set()
    for gv, f in mod.functions.items():
        if isinstance(f, relax.Function):
            def visit(e, name=gv.name_hint):
                if isinstance(e, relax.Call) and e.op.same_as(alloc) and e.ty_args:
                    names.add(name)
            relax.analysis.post_order_visit(f, visit)
    return names


def ty_args_restorer():
    """A mutator giving `R.builtin.alloc_tensor` back the `ty_args` cgraph's text leaves out
    (TVM prints them, its reader rejects them), for the functions that had them."""
    import_tvm()
    from tvm import relax
    from tvm.relax.expr_functor import PyExprMutator, mutator

    alloc = tvm_op("relax.builtin.alloc_tensor")

    @mutator
    class RestoreTyArgs(PyExprMutator):
        def visit_call_(self, call):
            call = super().visit_call_(call)
            if call.op.same_as(alloc) and not call.ty_args:
                return relax.Call(call.op, call.args, call.attrs, [call.ty], call.span)
            return call

    return RestoreTyArgs()


def global_var_rebinder(keys: dict):
    """A mutator replacing each GlobalVar by the one of its name in `keys` (name -> GlobalVar)."""
    import_tvm()
    from tvm.relax.expr_functor import PyExprMutator, mutator

    @mutator
    class RebindGlobalVars(PyExprMutator):
        def visit_global_var_(self, gv):
            return keys.get(gv.name_hint, gv)

    return RebindGlobalVars()


def tvm_op(name: str):
    from tvm import ir

    return ir.Op.get(name)


def stub(f):
    """What TVM reads in place of a function that comes back as the original object: a PrimFunc
    with the same name, decorator and arity and an empty body (what TVM's reader makes of a
    call does not depend on the kernel's parameter types); a Relax function unchanged (it is printed as read, and read back only for
    its callers' sake)."""
    from .. import ir

    if isinstance(f, ir.PrimFunc):
        # every parameter a handle: TVM checks a call's arity, and any argument is an object
        params = [ir.PrimParam(p.name, "T.handle", "handle") for p in f.params]
        return ir.replace(f, params=params, body="T.evaluate(0)", ret=None)
    return f


def printed_constants(mod, ours) -> list:
    """The constants TVM's printer numbered `metadata["ir.GenericConst"][i]`, by i: the distinct
    non-scalar relax constants in printing order (functions in text order, each body in source
    order, a call's arguments left to right). Checked against the text: the count, and each
    constant's shape and dtype against the kernel parameter it is passed to."""
    from tvm import relax

    text_order = [f.name for f in ours.functions]
    by_name = {gv.name_hint: f for gv, f in mod.functions.items()}
    found: list = []

    def visit(e):
        if is_tensor_constant(e) and not any(e.same_as(c) for c in found):
            found.append(e)

    for name in text_order:
        f = by_name.get(name)
        if isinstance(f, relax.Function):
            relax.analysis.post_order_visit(f, visit)
    return found


def check_metadata_references(text: str, constants: list):
    """The metadata the Relax functions refer to (PrimFunc bodies are stubbed out of `text`)
    is exactly the constants found, numbered 0..n-1: anything else means the printer numbered
    something this module does not know of."""
    used: dict = {}
    for m in METADATA_RE.finditer(text):
        used.setdefault(m.group(1), set()).add(int(m.group(2)))
    other = sorted(k for k in used if k != CONST_KEY)
    if other:
        raise CgraphInternalError(f"{REWRITTEN_NAME}: metadata of kind {', '.join(other)} "
                              f"(only {CONST_KEY} constants are handed back to TVM's reader)")
    if used.get(CONST_KEY, set()) != set(range(len(constants))):
        raise CgraphInternalError(
            f"{REWRITTEN_NAME}: the text refers to metadata[\"{CONST_KEY}\"] "
            f"{sorted(used.get(CONST_KEY, set()))}, the module has {len(constants)} constants")


def is_tensor_constant(e) -> bool:
    """A constant TVM prints as metadata (a scalar is printed inline, as `R.const(v, dtype)`)."""
    tvm = import_tvm()
    value = getattr(e, "value", None) if isinstance(e, tvm.ir.expr.Constant) else None
    return len(getattr(value, "shape", ())) > 0


def check_constants(parsed, originals, changed):
    """Each constant passed to a kernel has the kernel's parameter shape and dtype: a wrong
    numbering of TVM's metadata would show here rather than as wrong results on a GPU."""
    tvm = import_tvm()
    from tvm import relax, tirx

    def visit(e):
        if not isinstance(e, relax.Call) or not isinstance(e.op, tvm.ir.GlobalVar):
            return
        entry = originals.get(e.op.name_hint)
        if entry is None or not isinstance(entry[1], tirx.PrimFunc):
            return
        prim = entry[1]
        for i, arg in enumerate(e.args):
            if not is_tensor_constant(arg) or i >= len(prim.params):
                continue
            param = prim.params[i]  # a buffer parameter is a Var of BufferType in TVM 0.27
            dims = getattr(param, "shape", None)
            if dims is None:
                continue
            shape = [int(d) for d in dims] if all(
                isinstance(d, tvm.tirx.IntImm) for d in dims) else None
            if (shape is not None and list(arg.value.shape) != shape) or \
                    str(arg.value.dtype) != str(param.dtype):
                raise CgraphInternalError(
                    f"{REWRITTEN_NAME}: constant passed to {e.op.name_hint} as argument {i} "
                    f"is {tuple(arg.value.shape)} {arg.value.dtype}, the kernel takes {shape} "
                    f"{param.dtype}: TVM's metadata numbering was not followed")

    for gv, f in parsed.functions.items():
        if gv.name_hint in changed and isinstance(f, relax.Function):
            relax.analysis.post_order_visit(f, visit)
