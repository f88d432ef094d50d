"""`python -m cudagraph_cli.tvm [OPTIONS] -- COMMAND ARGS...`: run a command with cgraph's
RewriteCUDAGraph in place of TVM's (use_in_tvm.py, `run_with_cgraph`).

    python -m cudagraph_cli.tvm --capture-symbolic seq_len:256 -- mlc_llm compile ...
    python -m cudagraph_cli.tvm -- -m mlc_llm compile ...
    python -m cudagraph_cli.tvm --min-kernels 2 -- build_my_model.py --out lib.so

OPTIONS are `cgraph rewrite`'s (--min-kernels, --exclude, --functions, --trust-extern,
--strict-extern, --capture-symbolic, --compat). The exit status is the command's; 2 for a bad
option or a command that cannot be found.
"""

from __future__ import annotations

import argparse
import sys


def parser() -> argparse.ArgumentParser:
    from ..passes.options import COMPAT_MODES, option_fields

    ap = argparse.ArgumentParser(
        prog="python -m cudagraph_cli.tvm",
        usage="python -m cudagraph_cli.tvm [OPTIONS] -- COMMAND ARGS...",
        description="Run COMMAND (a console script such as mlc_llm, -m MODULE, or a Python "
                    "file) in this process with cgraph's RewriteCUDAGraph in place of TVM's "
                    "wherever it calls tvm.relax.transform.RewriteCUDAGraph(). TVM's own "
                    "pass is back when the command ends; the exit status is the command's.")
    for f in option_fields():
        meta = f.metadata
        if f.type in ("bool", bool):
            ap.add_argument(meta["flag"], action="store_true", help=meta["help"])
        elif f.name == "functions":
            ap.add_argument(meta["flag"], metavar=meta["metavar"], help=meta["help"])
        elif f.name == "min_kernels":
            ap.add_argument(meta["flag"], type=int, metavar="N", help=meta["help"])
        else:
            ap.add_argument(meta["flag"], action="append", default=[], metavar=meta["metavar"],
                            help=meta["help"])
    ap.add_argument("--compat", choices=COMPAT_MODES, default="cgraph",
                    help="tvm: TVM 0.27's exact pass (cgraph's corrections off)")
    return ap


def options_from(ns):
    """A RewriteOptions from the parsed flags (ValueError for a bad value)."""
    from ..passes.options import RewriteOptions

    fields = {}
    if ns.min_kernels is not None:
        if ns.min_kernels < 1:
            raise ValueError("--min-kernels must be at least 1")
        fields["min_kernels"] = ns.min_kernels
    if ns.functions:
        fields["functions"] = tuple(n.strip() for n in ns.functions.split(",") if n.strip())
    for name in ("exclude", "trust_extern", "capture_symbolic"):
        if getattr(ns, name):
            fields[name] = tuple(getattr(ns, name))
    if ns.strict_extern:
        fields["strict_extern"] = True
    return RewriteOptions.compat(ns.compat, **fields)


def main(argv: list | None = None) -> int:
    from .use_in_tvm import CommandNotFound, command_runner, exit_status, use_in_tvm

    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        parser().print_usage(sys.stderr)
        print("error: expected -- before the command", file=sys.stderr)
        return 2
    at = argv.index("--")
    ap = parser()
    ns = ap.parse_args(argv[:at])
    try:
        options = options_from(ns)
        run = command_runner(argv[at + 1:])
        with use_in_tvm(options):
            return exit_status(run)
    except (ValueError, CommandNotFound, ImportError) as e:
        print(f"python -m cudagraph_cli.tvm: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
