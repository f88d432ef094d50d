"""`python -m cudagraph_cli.tvm [OPTIONS] -- COMMAND ARGS...`: run a command with cgraph's
RewriteCUDAGraph in place of TVM's (use_in_tvm.py, `run_with_cgraph`).

    python -m cudagraph_cli.tvm --capture-symbolic seq_len:256 -- mlc_llm compile ...
    python -m cudagraph_cli.tvm -- python -m mlc_llm compile ...
    python -m cudagraph_cli.tvm --min-kernels 2 -- python build_my_model.py --out lib.so

OPTIONS are `cgraph rewrite`'s (--min-kernels, --exclude, --function, --trust-extern,
--strict-extern, --capture-symbolic, --compat), made from RewriteOptions' fields and checked
by it, and --on-fallback warn|error (what happens where cgraph cannot read a module: TVM's own
pass, warned of, with the default options only; or a refusal). The exit status is the
command's; 2 for a bad option, a CgraphPassError or a command that cannot be found, 3 for
cgraph's internal error, with one message saying what is wrong (no traceback). For each module
it rewrites, cgraph's pass prints one line on stderr, what it did (`cgraph: batch_decode 18
graph launches, host work 195 -> 37 a call; ...`); -q/--quiet leaves it out.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from .use_in_tvm import LAUNCHER as PROG
EPILOG = """examples:
  python -m cudagraph_cli.tvm --capture-symbolic seq_len:256 -- mlc_llm compile ...
  python -m cudagraph_cli.tvm -- python build_it.py --out lib.so
  python -m cudagraph_cli.tvm --min-kernels 2 -- python -m mlc_llm compile ..."""


def parser() -> argparse.ArgumentParser:
    """The launcher's flags, one per RewriteOptions field that is a flag of `cgraph rewrite`
    (passes/options.py: its flag, help and metavar), and --compat. Each value is kept as
    typed: `options_from` takes it through the field's own parse and RewriteOptions' checks,
    as `cgraph rewrite` does, so both refuse the same values with the same message."""
    from ..passes.options import COMPAT_MODES, option_fields
    from .rewrite_pass import ON_FALLBACK

    ap = LauncherParser(
        prog=PROG, usage=f"{PROG} [OPTIONS] -- COMMAND ARGS...", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Run COMMAND (a console script such as mlc_llm, `python FILE`, `python -m "
                    "MODULE`, -m MODULE, or a Python file) in this process with cgraph's "
                    "RewriteCUDAGraph in place of TVM's wherever it calls "
                    "tvm.relax.transform.RewriteCUDAGraph(). TVM's own pass is back when the "
                    "command ends; the exit status is the command's (2: a bad option, no "
                    "such command, or a CgraphPassError such as a module cgraph cannot read "
                    "with options TVM's pass would ignore; 3: cgraph's own bug).")
    for f in option_fields():
        meta = f.metadata
        flags = (meta["flag"], *meta["aliases"])
        if f.default is False:
            ap.add_argument(*flags, dest=f.name, action="store_true", help=meta["help"])
        elif f.default == () or f.default is None:  # repeatable (None: names, or all)
            ap.add_argument(*flags, dest=f.name, action="append", default=[],
                            metavar=meta["metavar"], help=meta["help"])
        else:
            ap.add_argument(*flags, dest=f.name, metavar=meta["metavar"], help=meta["help"])
    ap.add_argument("--compat", choices=COMPAT_MODES, default="cgraph",
                    help="tvm: TVM 0.27's exact pass (cgraph's corrections off)")
    ap.add_argument("-q", "--quiet", action="store_true",
                    help="do not print, on stderr, the line saying what cgraph did to each "
                         "module built (`cgraph: batch_decode 18 graph launches, host work "
                         "195 -> 37 a call`)")
    ap.add_argument("--on-fallback", choices=ON_FALLBACK, default="warn",
                    help="where cgraph cannot read a module: warn (TVM's own pass runs "
                         "instead, with a TvmPassFallbackWarning each time; only with the "
                         "default options, else the build fails) or error (the build fails: "
                         "for CI). Default: warn")
    return ap


def options_from(ns):
    """A RewriteOptions from the parsed flags: each value through its field's parse, then
    RewriteOptions' own checks (ValueError, the message `cgraph rewrite` gives)."""
    from ..passes.options import RewriteOptions, option_fields

    fields = {}
    for f in option_fields():
        value = getattr(ns, f.name)
        parse = f.metadata["parse"]
        if value is None or value == []:
            continue
        if f.default is None:  # names: each value NAME or NAME,NAME,..., in order, once each
            fields[f.name] = tuple(dict.fromkeys(n for v in value for n in parse(v)))
        elif f.default == ():
            fields[f.name] = tuple(parse(v) if parse is not None else v for v in value)
        elif parse is not None and isinstance(value, str):
            fields[f.name] = parse(value)
        else:
            fields[f.name] = value
    return RewriteOptions.compat(ns.compat, **fields)


class LauncherUsage(Exception):
    """A usage error of the launcher: one line, `PROG: error: ...`, status 2 (as `cgraph`'s)."""


class LauncherParser(argparse.ArgumentParser):
    """argparse, its usage errors raised as LauncherUsage (argparse prints two lines and
    exits)."""

    def error(self, message):
        raise LauncherUsage(message)


def split(argv: list) -> tuple[list, list]:
    """(OPTIONS, COMMAND ARGS...) of the launcher's arguments: COMMAND follows `--`. A
    `python` or `pythonX.Y` before the command is this process's Python: dropped, so that
    `-- python build_it.py` and `-- python -m pkg` run as typed."""
    if "--" not in argv:
        raise LauncherUsage("expected -- before the command")
    at = argv.index("--")
    options, command = argv[:at], argv[at + 1:]
    if command and is_python(command[0]) and len(command) > 1:
        command = command[1:]
    return options, command


def is_python(word: str) -> bool:
    import os
    import re

    return re.fullmatch(r"python(\d+(\.\d+)?)?(\.exe)?", os.path.basename(word)) is not None


def main(argv: list | None = None) -> int:
    from ..passes.options import OptionError
    from .use_in_tvm import CommandNotFound, command_runner, run_in_block

    argv = list(sys.argv[1:] if argv is None else argv)
    ap = parser()
    head = argv[:argv.index("--")] if "--" in argv else argv
    if "-h" in head or "--help" in head or argv[-2:] in (["--", "-h"], ["--", "--help"]):
        ap.print_help()
        return 0
    try:
        options_argv, command = split(argv)
        ns = ap.parse_args(options_argv)  # argparse's own usage errors exit 2
        options = options_from(ns)
        run = command_runner(command)
    except OptionError as e:  # in the flags' words, as `cgraph rewrite` says it
        print(f"{PROG}: error: {e.for_flags}", file=sys.stderr)
        return 2
    except (LauncherUsage, ValueError, CommandNotFound, ImportError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    with rewrite_lines_on_stderr(not ns.quiet):
        return run_in_block(run, options, on_fallback=ns.on_fallback)


@contextlib.contextmanager
def rewrite_lines_on_stderr(on: bool):
    """The pass's line for each module (the `cudagraph_cli` logger, INFO) on stderr while the
    command runs, and only there: not handed on to the command's own logging too."""
    import logging

    from .rewrite_pass import LOGGER

    if not on:
        yield
        return
    logger = logging.getLogger(LOGGER)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(message)s"))
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


if __name__ == "__main__":
    sys.exit(main())
