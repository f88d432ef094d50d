"""`pip install .` into a fresh venv gives a working `cgraph` (the grammar ships in the wheel)."""

from __future__ import annotations

import subprocess
import venv

from conftest import ROOT


def test_pip_install_into_fresh_venv(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    install = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                              str(ROOT)], capture_output=True, cwd=tmp_path, timeout=600)
    assert install.returncode == 0, install.stderr.decode()[-2000:]
    cgraph = env_dir / "bin" / "cgraph"
    version = subprocess.run([str(cgraph), "--version"], capture_output=True, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith(b"cgraph ")
    # Run from elsewhere than the checkout: the installed package must find its grammar.
    sample = ROOT / "samples" / "tvm" / "tuple_before.relax"
    out = subprocess.run([str(cgraph), "fmt", str(sample)], capture_output=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr.decode()
    assert b"class Before:" in out.stdout
    # The one-pair check, on pipes.
    same = subprocess.run([str(cgraph), "check", str(sample), str(sample)], capture_output=True,
                          cwd=tmp_path)
    assert same.returncode == 0 and same.stdout.startswith(b"equal: "), same.stderr.decode()
    location = subprocess.run([str(py), "-c", "import cudagraph_cli.text.parser as p; "
                               "print(p.grammar_path())"], capture_output=True, cwd=tmp_path)
    assert str(env_dir) in location.stdout.decode()
    # The CUDA kernel library ships too (NVRTC compiles it from the installed package).
    kernels = subprocess.run([str(py), "-c", "from cudagraph_cli.cuda.nvrtc import "
                              "library_source as s; print(len(s()))"], capture_output=True,
                             cwd=tmp_path)
    assert kernels.returncode == 0 and int(kernels.stdout) > 1000, kernels.stderr.decode()
    # The capture-safety table (passes/capture_safety.toml) ships and loads.
    table = subprocess.run([str(py), "-c", "from cudagraph_cli.passes.capture_safety import "
                            "TABLE_PATH, load_table; print(len(load_table()), TABLE_PATH)"],
                           capture_output=True, cwd=tmp_path)
    assert table.returncode == 0, table.stderr.decode()
    count, path = table.stdout.decode().split()
    assert int(count) >= 20 and str(env_dir) in path
