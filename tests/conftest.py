"""Shared helpers: the samples, the CLI as a subprocess, and TVM as the reference."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

# The views take their width from COLUMNS (cli.py, _width), and pytest-xdist's workers run with
# COLUMNS=80 LINES=24 whatever the terminal: a test that wants a width sets it itself, so no
# test depends on how the suite was started (-n 0, -n auto, a terminal or CI).
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
TVM_SAMPLES = sorted((SAMPLES / "tvm").glob("*.relax"))
SEED_SAMPLES = sorted((SAMPLES / "seeds").glob("*.relax"))
# samples/real is TVM's own dumps of real models: they have their own tests (test_real_corpus.py,
# test_real_workflow.py), not the per-sample tests over this list.
REAL_SAMPLES = SAMPLES / "real"
ALL_SAMPLES = sorted(p for p in SAMPLES.rglob("*.relax") if not p.is_relative_to(REAL_SAMPLES))
# Issue 34's model families at their public sizes are 1.0 to 1.3 MB a file, twelve files: the
# tests that read every sample read the tensor-parallel 8B of them (the largest, seven
# functions, the collectives) and leave these to bench/ (bench_real_size.py,
# bench_corpus_workflow.py, bench_tvm_pass.py, bench_kernels_corpus.py), to keep `make test`
# within its 10 minutes on 2 cores. The workflow tests name the ones they run.
BENCH_ONLY_FAMILIES = ("mlc_gemma2_2b", "mlc_olmoe_1b_7b", "mlc_phi2", "mlc_gpt2_medium")


def for_every_sample_test(paths) -> list:
    """PATHS without the family samples left to bench/ (BENCH_ONLY_FAMILIES)."""
    return [p for p in paths if not p.name.startswith(BENCH_ONLY_FAMILIES)]


def run_cli(*args: str, input: bytes | None = None, env: dict | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run `cgraph ARGS` as a real process (what users see: exit status, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT) + os.pathsep + full_env.get("PYTHONPATH", "")
    full_env.pop("CGRAPH_DEBUG", None)
    if env:
        full_env.update(env)
    return subprocess.run([sys.executable, "-m", "cudagraph_cli", *args], input=input,
                          capture_output=True, env=full_env, cwd=cwd or ROOT, timeout=120)


@pytest.fixture(scope="session")
def tvm():
    """apache-tvm, the reference. `make test` installs it; on CI its absence is a failure."""
    try:
        _tvm = importlib.import_module("tvm")
        importlib.import_module("tvm.script")
    except ImportError as e:  # pragma: no cover - depends on the environment
        if os.environ.get("CI"):
            pytest.fail(f"apache-tvm is required on CI (make test installs it): {e}")
        pytest.skip("apache-tvm not installed (run `make test`)")
    return _tvm


def chromium_or_skip() -> str:
    """Debian's chromium, to look at the HTML views in a real browser. `make test` installs
    it; on CI its absence is a failure, elsewhere a skip."""
    import shutil

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is required on CI (make test installs Debian's chromium)")
        pytest.skip("chromium not installed (make test installs it)")
    return browser


def nvrtc_or_skip(needs_headers: bool = False):
    """NVRTC (and, with `needs_headers`, the CUDA headers a float16 kernel file includes), or
    a skip; on CI (`make test` installs nvidia-cuda-nvrtc and nvidia-cuda-runtime) a failure."""
    from cudagraph_cli.cuda import nvrtc

    try:
        nvrtc.version()
    except nvrtc.NvrtcUnavailable as e:
        if os.environ.get("CI"):
            pytest.fail(f"NVRTC is required on CI (make test installs nvidia-cuda-nvrtc): {e}")
        pytest.skip(str(e))
    if needs_headers and nvrtc.cuda_include_dir() is None:
        if os.environ.get("CI"):
            pytest.fail("the CUDA headers (cuda_fp16.h) are required on CI "
                        "(make test installs nvidia-cuda-runtime)")
        pytest.skip("no CUDA headers (cuda_fp16.h): pip install nvidia-cuda-runtime")
