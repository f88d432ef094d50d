"""`use_in_tvm()`: cgraph's pass wherever TVM's is made by name, with no edit of the pipeline.

    from cudagraph_cli.tvm import use_in_tvm

    with use_in_tvm(capture_symbolic=["seq_len:256"]):
        ex = relax.build(mod, target="cuda")      # TVM's default cuda pipeline, cgraph's pass

Pipelines make TVM's pass when they run, by looking the name up:
`relax.transform.RewriteCUDAGraph()` (TVM's `relax.backend.cuda.pipeline`, `relax.pipeline`,
MLC-LLM's `compiler_pass/pipeline.py`). Inside the block that name, in each module of TVM that
binds it (the package `tvm.relax.transform` and its submodule `transform`, where it is
defined), makes cgraph's pass with the block's options; leaving the block, normally or by an
exception, binds TVM's own again. Blocks nest: the innermost open block's options apply.

The binding is process-wide (a module attribute): while a block is open, every thread that
looks the name up gets cgraph's pass. Opening and closing blocks is thread-safe (a lock; each
block removes its own entry, so blocks closed out of order still leave the right one in
force, and TVM's once the last closes). A name imported before the block
(`from tvm.relax.transform import RewriteCUDAGraph`) is a copy this cannot reach.
"""

from __future__ import annotations

import contextlib
import threading

NAME = "RewriteCUDAGraph"
# Where TVM 0.27 binds the pass's name: the module that defines it, and the package that
# re-exports it (what `relax.transform.RewriteCUDAGraph()` reads).
TVM_MODULES = ("tvm.relax.transform.transform", "tvm.relax.transform")

_lock = threading.Lock()
_open: list = []  # (token, factory) of the open blocks, innermost last
_originals: dict = {}  # module name -> TVM's own function, while any block is open


def tvm_modules() -> list:
    import importlib

    return [importlib.import_module(name) for name in TVM_MODULES]


def _bind(factory) -> None:
    """Every binding place of the name to `factory` (TVM's own: `_originals`)."""
    for module in tvm_modules():
        setattr(module, NAME, factory if factory is not None else _originals[module.__name__])


@contextlib.contextmanager
def use_in_tvm(options=None, *, on_fallback: str = "warn", **fields):
    """Inside the block, `tvm.relax.transform.RewriteCUDAGraph()` returns cgraph's pass
    (`cudagraph_cli.tvm.RewriteCUDAGraph(options, on_fallback=..., **fields)`); see the
    module's docstring. A bad option raises here, before anything is replaced."""
    from .rewrite_pass import RewriteCUDAGraph

    fields = dict(fields)
    RewriteCUDAGraph(options, on_fallback=on_fallback, **fields)  # checked once, now
    token = object()
    with _lock:
        modules = tvm_modules()
        if not _open:
            for module in modules:
                _originals[module.__name__] = getattr(module, NAME)
        factory = CgraphPassFactory(_originals[modules[0].__name__], options, fields,
                                    on_fallback)
        _open.append((token, factory))
        _bind(factory)
    try:
        yield
    finally:
        with _lock:
            _open[:] = [entry for entry in _open if entry[0] is not token]
            _bind(_open[-1][1] if _open else None)
            if not _open:
                _originals.clear()


class CgraphPassFactory:
    """What TVM's name `RewriteCUDAGraph` is bound to inside a block: called as TVM's function
    is (no arguments), it makes cgraph's pass with the block's options. It says whose it is:
    its repr and `__module__` are cgraph's (`__wrapped__`: TVM's own function)."""

    __module__ = __name__
    __name__ = __qualname__ = NAME

    def __init__(self, original, options, fields: dict, on_fallback: str = "warn"):
        self.__wrapped__ = original
        self.cgraph_options = (options, fields)
        self.on_fallback = on_fallback
        self.__doc__ = (f"cgraph's {NAME} (cudagraph_cli.tvm), bound in place of TVM's by "
                        "use_in_tvm(): " + (original.__doc__ or "").strip().split("\n")[0])

    def __call__(self):
        from .rewrite_pass import RewriteCUDAGraph

        options, fields = self.cgraph_options
        return RewriteCUDAGraph(options, on_fallback=self.on_fallback, **dict(fields))

    def __repr__(self) -> str:
        options, fields = self.cgraph_options
        given = ", ".join([repr(options)] * (options is not None) +
                          [f"{k}={v!r}" for k, v in fields.items()] +
                          [f"on_fallback={self.on_fallback!r}"] * (self.on_fallback != "warn"))
        return f"<cgraph's {NAME}({given}) from cudagraph_cli.tvm, in place of TVM's>"


LAUNCHER = "python -m cudagraph_cli.tvm"


class CommandNotFound(LookupError):
    """The launcher's COMMAND is no console script, `-m MODULE` or Python file."""


def command_runner(command: list):
    """`command` (COMMAND ARGS...) as a function of no arguments that runs it in this process
    and returns what it returns (a console script's exit status; None for a module or file)
    or raises SystemExit: `-m MODULE ARGS` runs the module as `python -m` does, a path to a
    Python file runs it as `python FILE` does, any other COMMAND is a console script installed
    in this environment (`mlc_llm`, ...; its entry point, as its wrapper script calls it).
    `sys.argv` is set as the command would see it. CommandNotFound otherwise."""
    import os
    import runpy
    import sys

    if not command:
        raise CommandNotFound("no command given (expected: -- COMMAND ARGS...)")
    if command[0] == "-m":
        if len(command) < 2:
            raise CommandNotFound("-m needs a module name")
        module, args = command[1], command[2:]

        def run_module():
            sys.argv = [module, *args]  # runpy puts the module's path in argv[0]
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        return run_module
    name, args = command[0], command[1:]
    if name.endswith(".py") or os.sep in name or (os.altsep and os.altsep in name):
        if not os.path.isfile(name):
            raise CommandNotFound(f"no Python file {name}")

        def run_file():
            sys.argv = [name, *args]
            sys.path.insert(0, os.path.dirname(os.path.abspath(name)))
            runpy.run_path(name, run_name="__main__")
        return run_file
    from importlib.metadata import entry_points

    found = entry_points(group="console_scripts", name=name)
    if not found:
        raise CommandNotFound(f"no console script, module or Python file named {name!r} (a "
                              "module: -m MODULE; a file: a path ending in .py)")
    entry = next(iter(found))

    def run_script():
        sys.argv = [name, *args]
        return entry.load()()
    return run_script


def exit_status(run, reported: tuple = (), prog: str = "", bugs: tuple = ()) -> int:
    """Run `run()` and give the exit status Python would give the command: its return value
    or SystemExit code (None and 0: 0; an int: itself; anything else is printed, 1), 1 with
    the traceback printed for an exception, 130 for KeyboardInterrupt. An exception of a
    class in `reported` (cgraph's own, located error) is printed as one message after
    `prog`, with status 2: the options given did not fit the module, nothing of the
    command's code is to blame. One of a class in `bugs` (cgraph's internal error) is
    printed so, with status 3, as `cgraph` exits for a bug of its own."""
    import sys
    import traceback

    try:
        code = run()
    except SystemExit as e:
        code = e.code
    except KeyboardInterrupt:
        return 130
    except bugs as e:
        print(f"{prog}: internal error: {e} (this is a bug of cgraph's)", file=sys.stderr)
        return 3
    except reported as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except BaseException:  # the command's own error: reported as Python reports it
        traceback.print_exc()
        return 1
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_with_cgraph(command: list, options=None, *, on_fallback: str = "warn",
                    **fields) -> int:
    """The launcher (`python -m cudagraph_cli.tvm [OPTIONS] -- COMMAND ARGS...`): run the
    command in this process inside `use_in_tvm(options, on_fallback=..., **fields)`, and
    return its exit status (`exit_status`: 2 for a CgraphPassError, 3 for a
    CgraphInternalError). TVM's pass is bound again when the command ends, whatever way it
    ends (the block's exit); nothing outside this process is changed (no file, no
    environment)."""
    return run_in_block(command_runner(command), options, on_fallback=on_fallback, **fields)


def run_in_block(run, options=None, *, on_fallback: str = "warn", **fields) -> int:
    """`run_with_cgraph` of a command already found (`command_runner`)."""
    from .rewrite_pass import CgraphInternalError, CgraphPassError

    with use_in_tvm(options, on_fallback=on_fallback, **fields):
        return exit_status(run, reported=(CgraphPassError,), prog=LAUNCHER,
                           bugs=(CgraphInternalError,))
