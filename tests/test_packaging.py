"""The built wheel, installed into a fresh venv, gives a working `cgraph` (the grammar, the
kernel library and the capture-safety table ship in it).

Hermetic: every process runs with an environment cleared of what would make Python import
something other than the installed wheel (PYTHONPATH, PYTHONHOME, a virtual env's variables;
under `make test` PYTHONPATH may name the checkout), from a temporary directory, and the
installed package must be the one imported.
"""

from __future__ import annotations

import os
import subprocess
import venv

from conftest import ROOT

# Variables that would point Python at other code than the venv's own.
PYTHON_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE",
                    "PYTHONSAFEPATH", "PYTHONNOUSERSITE", "VIRTUAL_ENV", "CONDA_PREFIX",
                    "PYTHONEXECUTABLE", "__PYVENV_LAUNCHER__")


def clean_env(env_dir) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in PYTHON_VARIABLES}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_wheel_in_a_fresh_venv(tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    env = clean_env(env_dir)
    run = lambda *args: subprocess.run(args, capture_output=True, cwd=tmp_path,  # noqa: E731
                                       env=env, timeout=600)
    built = run(str(py), "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "--no-deps",
                "-w", str(tmp_path / "dist"), str(ROOT))
    assert built.returncode == 0, built.stderr.decode()[-2000:]
    (wheel,) = (tmp_path / "dist").glob("cudagraph_cli-*.whl")
    install = run(str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                  str(wheel))
    assert install.returncode == 0, install.stderr.decode()[-2000:]
    # The package imported is the wheel's, not the checkout's.
    where = run(str(py), "-c", "import cudagraph_cli; print(cudagraph_cli.__file__)")
    assert where.returncode == 0 and str(env_dir) in where.stdout.decode(), where
    cgraph = str(env_dir / "bin" / "cgraph")
    version = run(cgraph, "--version")
    assert version.returncode == 0 and version.stdout.startswith(b"cgraph ")
    # Run from elsewhere than the checkout: the installed package must find its grammar.
    sample = str(ROOT / "samples" / "tvm" / "tuple_before.relax")
    out = run(cgraph, "fmt", sample)
    assert out.returncode == 0, out.stderr.decode()
    assert b"class Before:" in out.stdout
    # The one-pair check, on pipes.
    same = run(cgraph, "check", sample, sample)
    assert same.returncode == 0 and same.stdout.startswith(b"equal: "), same.stderr.decode()
    location = run(str(py), "-c", "import cudagraph_cli.text.parser as p; print(p.grammar_path())")
    assert str(env_dir) in location.stdout.decode()
    # The CUDA kernel library ships too (NVRTC compiles it from the installed package).
    kernels = run(str(py), "-c", "from cudagraph_cli.cuda.nvrtc import library_source as s; "
                  "print(len(s()))")
    assert kernels.returncode == 0 and int(kernels.stdout) > 1000, kernels.stderr.decode()
    # The capture-safety table (passes/capture_safety.toml) ships and loads.
    table = run(str(py), "-c", "from cudagraph_cli.passes.capture_safety import TABLE_PATH, "
                "load_table; print(len(load_table()), TABLE_PATH)")
    assert table.returncode == 0, table.stderr.decode()
    count, path = table.stdout.decode().split()
    assert int(count) >= 20 and str(env_dir) in path
