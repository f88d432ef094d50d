"""`cgraph verify` and `cgraph run --device cpu` on real-sized models: --function,
--shape values over a function's tir_var_upper_bound refused before anything runs, progress
on a terminal, and a run the machine cannot hold said as an input error (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from cli_runner import cgraph
from conftest import ROOT, run_cli
from cudagraph_cli import (ModuleFails, OverBound, SourceError, UnknownName, api, load,
                           rewrite, run_cpu, verify)
from cudagraph_cli.exec import backend as exec_backend
from cudagraph_cli.exec import driver as exec_driver

PREFILL_DECODE = ROOT / "samples" / "models" / "prefill_decode.relax"
BOUNDED = ROOT / "samples" / "real" / "static_plan_tir_var_upper_bound.before.relax"
BOUNDED_AFTER = ROOT / "samples" / "real" / "static_plan_tir_var_upper_bound.after.relax"
MLC_1B = ROOT / "samples" / "real" / "mlc_llama_1b.before.relax"
MLC_1B_AFTER = ROOT / "samples" / "real" / "mlc_llama_1b.after.relax"


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    """prefill_decode and its rewrite, as files and as modules."""
    mod = load(PREFILL_DECODE)
    out, _ = rewrite(mod)
    path = tmp_path_factory.mktemp("pair") / "rewritten.relax"
    path.write_text(api.print_module(out))
    return mod, out, path


# ---- --function ------------------------------------------------------------------------------

def test_verify_function_runs_only_the_named_functions(pair):
    mod, out, path = pair
    r = run_cli("verify", str(PREFILL_DECODE), str(path), "--function", "decode")
    assert r.returncode == 0, r.stderr
    assert "(decode: 4 calls each;" in r.stdout.decode()
    j = run_cli("verify", str(PREFILL_DECODE), str(path), "--function", "decode",
                "--function", "prefill", "--format", "json")
    # In the module's order, whatever the order given.
    assert j.returncode == 0 and json.loads(j.stdout)["functions"] == ["prefill", "decode"]
    report = verify(mod, out, calls=2, functions=["decode"])
    assert report.functions == ["decode"] and report.equal
    # decode alone launches half the kernels both do (the same count per call in this model).
    both = verify(mod, out, calls=2)
    assert report.launches_original * 2 == both.launches_original


@pytest.mark.parametrize("command", [
    ["verify", str(PREFILL_DECODE), str(PREFILL_DECODE)],
    ["run", str(PREFILL_DECODE), "--device", "cpu"],
    ["run", str(PREFILL_DECODE), "--device", "0"],  # before looking for a GPU
])
def test_an_unknown_function_is_a_usage_error_listing_those_there_are(command):
    r = run_cli(*command, "--function", "decod")
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    assert "--function" in err and "no public function named decod" in err
    assert "(it has prefill, decode)" in err


def test_function_names_are_checked_before_anything_runs_on_a_real_model():
    r = run_cli("verify", str(MLC_1B), str(MLC_1B_AFTER), "--function", "nope",
                "--format", "json")
    assert r.returncode == 2
    error = json.loads(r.stdout)["error"]
    assert error["kind"] == "usage"
    assert "it has batch_decode, create_tir_paged_kv_cache, decode, embed, prefill" in \
        error["message"]


def test_a_private_function_is_named_as_private(tmp_path):
    text = PREFILL_DECODE.read_text().replace("    @R.function\n    def decode(",
                                              "    @R.function(private=True)\n    def decode(")
    assert text != PREFILL_DECODE.read_text()
    with pytest.raises(UnknownName, match=r"\(it has prefill; decode is private\)"):
        api.public_names(api.loads(text), ["decode"], "m.relax")


def test_run_cpu_function(pair):
    mod, _, _ = pair
    r = run_cli("run", str(PREFILL_DECODE), "--device", "cpu", "--function", "prefill",
                "--calls", "2")
    lines = r.stdout.decode().splitlines()
    assert r.returncode == 0, r.stderr
    assert {line.split()[0] for line in lines[:-1]} == {"prefill"}
    assert lines[-1].startswith("prefill: 2 call(s) each; ")
    run = run_cpu(mod, functions=["decode"])
    assert run.functions == ["decode"] and {row["function"] for row in run.rows} == {"decode"}
    with pytest.raises(UnknownName):
        run_cpu(mod, functions=["main"])
    # OUT and --kernels stay GPU-only; --function does not.
    k = run_cli("run", str(PREFILL_DECODE), "--device", "cpu", "--kernels", "x.cu")
    assert k.returncode == 2 and b"apply to a GPU" in k.stderr


def test_shape_names_are_those_of_the_functions_that_run(pair):
    mod, out, _ = pair
    # n is prefill's; decode has no symbolic dimension: a --shape n would change nothing.
    with pytest.raises(UnknownName, match="decode's parameters have no symbolic dimension"):
        verify(mod, out, functions=["decode"], shapes={"n": [3]})
    assert verify(mod, out, calls=1, functions=["prefill"], shapes={"n": [3]}).equal


# ---- --shape over tir_var_upper_bound --------------------------------------------------------

def test_a_shape_over_the_functions_upper_bound_is_refused_before_running():
    # Without the check the run fails inside, at the first view that does not fit its storage.
    r = run_cli("run", str(BOUNDED), "--shape", "n=2,5")
    err = r.stderr.decode()
    assert r.returncode == 2 and "Traceback" not in err
    assert "--shape" in err and \
        "n=5 is over main's tir_var_upper_bound (n <= 4)" in err
    assert "does not fit its storage" not in err
    v = run_cli("verify", str(BOUNDED), str(BOUNDED_AFTER), "--shape", "n=9")
    assert v.returncode == 2 and b"main's tir_var_upper_bound (n <= 4)" in v.stderr
    # The bound itself is allowed.
    ok = run_cli("verify", str(BOUNDED), str(BOUNDED_AFTER), "--shape", "n=4,1")
    assert ok.returncode == 0, ok.stderr


def test_upper_bound_on_a_real_model_names_the_functions_and_the_bound():
    r = run_cli("run", str(MLC_1B), "--device", "cpu", "--shape", "seq_len=4096")
    assert r.returncode == 2
    assert b"seq_len=4096 is over embed's and prefill's tir_var_upper_bound (seq_len <= 2048)" \
        in r.stderr
    g = run_cli("run", str(MLC_1B), "--device", "0", "--function", "batch_decode",
                "--shape", "batch_size=33")
    assert g.returncode == 2
    assert b"batch_size=33 is over batch_decode's tir_var_upper_bound (batch_size <= 32)" \
        in g.stderr


def test_upper_bounds_of_the_library():
    mod = load(BOUNDED)
    assert mod.function("main").upper_bounds() == {"n": 4}
    assert load(PREFILL_DECODE).function("decode").upper_bounds() == {}
    with pytest.raises(OverBound, match=r"n=7 is over main's"):
        api.check_shapes(mod, {"n": [1, 7]}, "m.relax")
    api.check_shapes(mod, {"n": [4]}, "m.relax")


def test_a_negative_shape_is_refused_by_the_option_itself():
    # tir_non_negative_var needs nothing more: --shape takes no negative value at all.
    r = run_cli("run", str(BOUNDED), "--shape", "n=-1")
    assert r.returncode == 2 and b"non-negative integers" in r.stderr


# ---- progress ----------------------------------------------------------------------------------

def test_progress_callback_of_verify_and_run_cpu(pair):
    mod, out, _ = pair
    seen = []
    report = verify(mod, out, calls=3, progress=lambda *a: seen.append(a))
    assert [(f, i, t) for f, i, t, _ in seen] == \
        [(f, i, 6) for i, f in enumerate(["prefill", "decode"] * 3)]
    captures = [c for *_, c in seen]
    # Counted before each call: none before the first; prefill's first call captured some.
    assert captures[0] == 0 and 0 < captures[1] and captures == sorted(captures)
    assert captures[-1] <= report.captures
    ran = []
    run_cpu(mod, calls=2, functions=["decode"], progress=lambda *a: ran.append(a))
    assert ran == [("decode", 0, 2, 0), ("decode", 1, 2, 0)]


def test_no_progress_when_stderr_is_not_a_terminal(pair):
    _, _, path = pair
    r = run_cli("verify", str(PREFILL_DECODE), str(path), "--calls", "2")
    assert r.returncode == 0 and r.stderr == b""
    c = run_cli("run", str(PREFILL_DECODE), "--device", "cpu")
    assert c.returncode == 0 and c.stderr == b""


def run_on_terminal(*args: str, env: dict | None = None) -> tuple[int, bytes, bytes]:
    """`cgraph ARGS` with stderr on a pseudo-terminal: (status, stdout, what stderr showed)."""
    import pty

    master, slave = pty.openpty()
    full_env = dict(os.environ, TERM="xterm", PYTHONPATH=str(ROOT))
    full_env.pop("NO_COLOR", None)
    full_env.update(env or {})
    try:
        p = subprocess.run([sys.executable, "-m", "cudagraph_cli", *args], stdout=subprocess.PIPE,
                           stderr=slave, env=full_env, cwd=ROOT, timeout=120)
    finally:
        os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # EIO: the terminal's other side is closed
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return p.returncode, p.stdout, shown


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals")
def test_progress_on_a_terminal_and_not_with_no_color_or_json(pair):
    _, _, path = pair
    status, out, shown = run_on_terminal("verify", str(PREFILL_DECODE), str(path))
    assert status == 0 and out.startswith(b"equal:")
    assert b"graph capture(s) so far" in shown and b"/8" in shown and b"calls" in shown
    status, out, shown = run_on_terminal("run", str(PREFILL_DECODE), "--calls", "2")
    assert status == 0 and b"graph capture(s) so far" in shown and b"/4" in shown
    for env, extra in (({"NO_COLOR": "1"}, ()), ({}, ("--format", "json"))):
        status, out, shown = run_on_terminal("verify", str(PREFILL_DECODE), str(path), *extra,
                                             env=env)
        assert status == 0 and shown == b""


# ---- out of memory -----------------------------------------------------------------------------

def exp_module(n: int) -> str:
    """One float16 `exp` over n elements: the reference computes it in float64, so its kernel
    asks for 8n bytes at once after inputs and storages of 2n bytes each."""
    return f'''@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(s_tir=True)
    def exp(A: T.Buffer((T.int64({n}),), "float16"), B: T.Buffer((T.int64({n}),), "float16")):
        for i in range(T.int64({n})):
            with T.sblock("compute"):
                vi = T.axis.spatial(T.int64({n}), i)
                B[vi] = T.exp(A[vi])

    @R.function
    def main(x: R.Tensor(({n},), dtype="float16")) -> R.Tensor(({n},), dtype="float16"):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([{2 * n}]), 0, "global", "uint8")
        y: R.Tensor(({n},), dtype="float16") = R.memory.alloc_tensor(storage, 0, R.shape([{n}]), "float16")
        _: R.Tuple = cls.exp(x, y)
        return y
'''


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux keeps it")
def test_verify_under_a_memory_limit_is_an_input_error(tmp_path):
    import resource

    src = tmp_path / "big.relax"
    src.write_text(exp_module(64 << 20))  # 128 MiB tensors; the kernel's float64: 512 MiB
    limit = 900 << 20  # the start (~150 MiB) and the inputs and storages fit; the kernel not

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    env.pop("CGRAPH_DEBUG", None)
    for args in (["verify", str(src), str(src)], ["run", str(src), "--device", "cpu"]):
        r = subprocess.run([sys.executable, "-m", "cudagraph_cli", *args], capture_output=True,
                           env=env, cwd=ROOT, timeout=120, preexec_fn=limited)
        err = r.stderr.decode()
        assert r.returncode == 2, err
        assert "Traceback" not in err and "internal error" not in err
        line = next(i for i, t in enumerate(src.read_text().split("\n"), 1) if "cls.exp" in t)
        assert err.startswith(f"{src}:{line}:9: error: out of memory: could not allocate "
                              "512 MiB more (an array (67108864,) float64)"), err


def numpy_out_of_memory(*args, **kwargs):
    """NumPy's own MemoryError, with the shape and dtype it asked for (2^45 halves: 64 TiB,
    more than any machine lends at once)."""
    np.empty((1 << 45,), np.float16)
    raise AssertionError("NumPy allocated 64 TiB")


def test_out_of_memory_in_a_kernel_is_located_at_its_binding(monkeypatch, pair):
    mod, out, _ = pair
    monkeypatch.setattr(exec_backend.CpuBackend, "launch", numpy_out_of_memory)
    with pytest.raises(ModuleFails) as info:
        verify(mod, out, calls=1, sources=(api.Source("a.relax", PREFILL_DECODE.read_text()),
                                           None))
    e = info.value
    assert e.which == "original" and e.loc.line > 0 and e.filename == "a.relax"
    assert e.message.startswith("out of memory: could not allocate 64 TiB more "
                                "(an array (35184372088832,) float16)"), e.message
    with pytest.raises(SourceError, match="^out of memory: could not allocate 64 TiB"):
        run_cpu(mod)


def test_out_of_memory_outside_a_binding_is_an_error_of_the_run(monkeypatch, pair):
    mod, out, _ = pair
    monkeypatch.setattr(exec_driver, "snapshot_value", numpy_out_of_memory)
    with pytest.raises(SourceError) as info:
        verify(mod, out, calls=1, sources=(api.Source("a.relax", ""), None))
    assert info.value.filename == "a.relax" and info.value.loc.line == 0
    assert info.value.message.startswith("out of memory: could not allocate 64 TiB more")


def test_out_of_memory_anywhere_in_the_cli_is_exit_2(monkeypatch):
    def plain(path):
        raise MemoryError()

    monkeypatch.setattr(api, "read", plain)
    r = cgraph("fmt", PREFILL_DECODE)
    assert r.exit_code == 2
    assert "cgraph: error: out of memory: could not allocate more" in r.stderr
