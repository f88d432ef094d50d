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

import pytest

from conftest import ROOT

# Variables that would point Python at other code than the venv's own.
PYTHON_VARIABLES = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE",
                    "PYTHONSAFEPATH", "PYTHONNOUSERSITE", "VIRTUAL_ENV", "CONDA_PREFIX",
                    "PYTHONEXECUTABLE", "__PYVENV_LAUNCHER__")


def clean_env(env_dir) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in PYTHON_VARIABLES}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    return env


class Installed:
    """The wheel built from the checkout, installed (with pytest) into a fresh venv."""

    def __init__(self, top):
        self.top = top
        self.env_dir = top / "venv"
        venv.create(self.env_dir, with_pip=True)
        self.py = self.env_dir / "bin" / "python"
        self.env = clean_env(self.env_dir)
        built = self.run(str(self.py), "-m", "pip", "wheel", "-q", "--disable-pip-version-check",
                         "--no-deps", "-w", str(top / "dist"), str(ROOT))
        assert built.returncode == 0, built.stderr.decode()[-2000:]
        (self.wheel,) = (top / "dist").glob("cudagraph_cli-*.whl")
        # pytest too: the plugin's test runs a project's suite in this venv.
        install = self.run(str(self.py), "-m", "pip", "install", "-q",
                           "--disable-pip-version-check", str(self.wheel), "pytest")
        assert install.returncode == 0, install.stderr.decode()[-2000:]

    def run(self, *args, cwd=None):
        return subprocess.run(args, capture_output=True, cwd=cwd or self.top, env=self.env,
                              timeout=600)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    return Installed(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_in_a_fresh_venv(installed):
    env_dir, py, run = installed.env_dir, installed.py, installed.run
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


def test_the_pytest_plugin_in_a_project_that_installs_the_wheel(installed, tmp_path):
    """A user's project: a test of a rewrite against a golden with `cgraph_golden`, no import
    of cgraph's internals. The golden is TVM's expected output for its own test
    (samples/tvm/tuple_expected.relax); the input is TVM's module before the pass, which
    cgraph's rewrite does not turn into exactly TVM's text: its PrimFunc's printing differs
    (test_golden.py shows that diff), so the first run fails, located, and the update makes
    the golden cgraph's."""
    project = tmp_path / "project"
    (project / "goldens").mkdir(parents=True)
    before = (ROOT / "samples" / "tvm" / "tuple_before.relax").read_text()
    (project / "before.relax").write_text(before)
    golden = project / "goldens" / "after.relax"
    tvm_text = (ROOT / "samples" / "tvm" / "tuple_expected.relax").read_text()
    golden.write_text(tvm_text)
    (project / "test_rewrite.py").write_text(
        "import pathlib\n"
        "import cudagraph_cli\n\n"
        "HERE = pathlib.Path(__file__).parent\n\n"
        "def test_rewrite(cgraph_golden):\n"
        "    out = cudagraph_cli.rewrite(cudagraph_cli.load(HERE / 'before.relax'))[0]\n"
        "    cgraph_golden(out, 'goldens/after.relax')\n")
    pytest_run = lambda *args: installed.run(str(installed.py), "-m", "pytest",  # noqa: E731
                                             "-p", "no:cacheprovider", *args, cwd=project)
    first = pytest_run()
    out = first.stdout.decode()
    assert first.returncode == 1, out + first.stderr.decode()
    assert "differs from golden file" in out and "PrimFunc body differs" in out
    assert f"{golden}:6:9: note: expected" in out  # located in the golden
    assert "\n@@ " in out and "Traceback" not in out
    assert len(out.splitlines()) < 80  # a short difference, not two modules
    assert golden.read_text() == tvm_text
    update = pytest_run("--cgraph-update")
    assert update.returncode == 0, update.stdout.decode()
    assert f"updated {golden}" in update.stdout.decode()
    assert golden.read_text() != tvm_text
    again = pytest_run()
    assert again.returncode == 0 and "1 passed" in again.stdout.decode()
    # And the golden written is structurally TVM's module but for the PrimFunc's text.
    check = installed.run(str(installed.env_dir / "bin" / "cgraph"), "check", str(golden),
                          str(ROOT / "samples" / "tvm" / "tuple_expected.relax"),
                          "--prim-bodies", "ignore")
    assert check.returncode == 0, check.stdout.decode()
