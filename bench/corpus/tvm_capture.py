"""How the corpus builders get TVM's text: the module right before and right after TVM's
RewriteCUDAGraph inside `relax.build`, caught by a pass instrument, written under a header.

Shared by build_corpus.py, build_capture_safety.py and build_stages.py (and the tests that
build a model as they do); it imports none of them.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PASS_NAME = "RewriteCUDAGraph"
CONFIG = {"relax.backend.use_cuda_graph": True}
# "cuda" alone takes the arch of the machine's GPU (sm_50 without one), and the kernels' schedules
# may follow it: a fixed arch makes the files the same on every machine.
TARGET = {"kind": "cuda", "arch": "sm_80"}


class Capture:
    """The text of the module right before and right after RewriteCUDAGraph, once each."""

    def __init__(self):
        self.before: list[str] = []
        self.after: list[str] = []
        # the modules themselves, for tests that run a pass on what TVM's pass was given
        self.before_modules: list = []
        self.after_modules: list = []

    def instrument(self):
        import tvm

        capture = self

        @tvm.ir.instrument.pass_instrument
        class CaptureRewriteCUDAGraph:
            def run_before_pass(self, mod, info):
                if info.name == PASS_NAME:
                    capture.before.append(mod.script())
                    capture.before_modules.append(mod)

            def run_after_pass(self, mod, info):
                if info.name == PASS_NAME:
                    capture.after.append(mod.script())
                    capture.after_modules.append(mod)

        return CaptureRewriteCUDAGraph()

    def single(self, name: str) -> tuple[str, str]:
        # relax.build runs the pass once; more would mean the pipeline changed under us
        if len(self.before) != 1 or len(self.after) != 1:
            raise RuntimeError(f"{name}: {PASS_NAME} ran {len(self.before)} times, expected once")
        return self.before[0], self.after[0]


def build_and_capture(mod, name: str, pipeline=None) -> tuple[str, str]:
    import tvm
    from tvm import relax

    capture = Capture()
    target = tvm.target.Target(TARGET)
    with tvm.transform.PassContext(opt_level=3, config=CONFIG,
                                   instruments=[capture.instrument()]):
        relax.build(mod, target=target,
                    relax_pipeline=pipeline(target) if pipeline else "default")
    return capture.single(name)


def rewrite_and_capture(mod, name: str) -> tuple[str, str]:
    import tvm
    from tvm import relax

    capture = Capture()
    with tvm.transform.PassContext(opt_level=3, config=CONFIG,
                                   instruments=[capture.instrument()]):
        relax.transform.RewriteCUDAGraph()(mod)
    return capture.single(name)


# The thrust functions DispatchSortScan dispatches to when the target lists thrust; the PyPI
# wheel has none of them, so a build for such a target registers stand-ins (stand_ins).
THRUST_FUNCS = ("tvm.contrib.thrust.sort", "tvm.contrib.thrust.sum_scan")


@contextlib.contextmanager
def stand_ins(names, returns=None):
    """Global functions `names` that do nothing (return `returns`) while the block runs; a name
    the wheel already has is left alone."""
    import tvm_ffi

    added = [n for n in names if tvm_ffi.get_global_func(n, allow_missing=True) is None]
    for name in added:
        tvm_ffi.register_global_func(name, lambda *args: returns)
    try:
        yield
    finally:
        for name in added:
            tvm_ffi.remove_global_func(name)


def build_and_capture_tolerant(mod, name: str, target: dict,
                               pipeline=None) -> tuple[str, str, str | None]:
    """(before, after, where relax.build stopped after the capture, or None).

    relax.build goes on to generate code after RewriteCUDAGraph; where that later step fails
    (TVM 0.27's CUDA codegen rejects the thrust kernels' unused output buffer), the dumps are
    still TVM's pipeline up to and through the pass, and the header says where the build
    stopped."""
    import tvm
    from tvm import relax

    capture = Capture()
    stopped = None
    with tvm.transform.PassContext(opt_level=3, config=CONFIG,
                                   instruments=[capture.instrument()]):
        try:
            tvm_target = tvm.target.Target(target)
            relax.build(mod, target=tvm_target,
                        relax_pipeline=pipeline(tvm_target) if pipeline else "default")
        except Exception as e:  # noqa: BLE001  (any later failure; the capture is checked below)
            if len(capture.after) != 1:
                raise
            stopped = f"{type(e).__name__}: {str(e).strip().splitlines()[-1]}"
    before, after = capture.single(name)
    return before, after, stopped


def header(name: str, stage: str, lines: list[str], corpus: str, command: str) -> str:
    """The comment lines above TVM's text: which corpus, where the module came from (`lines`),
    which TVM printed it, and the command that made the file."""
    import tvm

    stage_text = "right before" if stage == "before" else "right after"
    return "".join(f"# {line}\n" for line in [
        f"{corpus}: {name}.{stage}.relax, the module {stage_text} TVM's {PASS_NAME}",
        *lines,
        f"TVM: apache-tvm {tvm.__version__}, printed by mod.script(); below this header the",
        "text is exactly TVM's",
        f"made by: {command}",
    ])


def write_pair(out: Path, name: str, lines: list[str], before: str, after: str, corpus: str,
               command: str):
    """`name`.before.relax and `name`.after.relax in `out`: TVM's text under a header that
    names the corpus, says where the module came from (`lines`) and the command that made it."""
    for stage, text in (("before", before), ("after", after)):
        if not text.endswith("\n"):
            text += "\n"
        path = out / f"{name}.{stage}.relax"
        path.write_text(header(name, stage, lines, corpus, command) + text)
        print(f"  wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"
              f" ({len(text.splitlines())} lines)")
