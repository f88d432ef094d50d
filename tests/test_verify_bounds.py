"""verify's run at the upper bounds (exec/verify.py, bounds_run): by default each bounded
variable also takes 2, its bound and 1, in terms alone (TermsBackend) unless the host reads
bytes a kernel computed; a rewritten module that cannot place a tensor where the original
runs is a difference of kind "shape" (exit 1), not an input error.

The modules are written by hand: `n` bounded by 64 (tir_var_upper_bound), x of n float32
values, a copy of it through a tensor placed in a storage of the graphs' allocation. The
right size of that storage is 64 * 4 = 256 bytes; 8 bytes hold n <= 2.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import run_cli
from cudagraph_cli.exec.backend import DoesNotFit
from cudagraph_cli.exec.terms_backend import NeedsBytes, TermsBackend
from cudagraph_cli.exec.kernels import KernelSpec
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.text.reader import parse_module

KERNELS = '''    @T.prim_func
    def step(var_a: T.handle, var_b: T.handle):
        n = T.int64()
        a = T.match_buffer(var_a, (n,), "float32")
        b = T.match_buffer(var_b, (n,), "float32")
        for i in range(n):
            b[i] = a[i] + T.float32(1)
'''

ORIGINAL = '''@I.ir_module
class Module:
''' + KERNELS + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 64}})
        cls = Module
        s = R.memory.alloc_storage(R.shape([256]), 0, "global", "float32")
        a = R.memory.alloc_tensor(s, 0, R.shape([n]), "float32")
        cls.step(x, a)
        out = R.builtin.alloc_tensor(R.shape([n]), "float32", 0)
        cls.step(a, out)
        return out
'''


def rewritten(slot_bytes: int) -> str:
    return '''@I.ir_module
class Module:
''' + KERNELS + f'''
    @R.function(private=True)
    def cuda_graph_alloc() -> R.Tuple(R.Any):
        R.func_attr({{"relax.force_pure": True}})
        s = R.memory.alloc_storage(R.shape([{slot_bytes}]), 0, "global", "float32")
        gv = (s,)
        return gv

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        R.func_attr({{"relax.force_pure": True, "tir_var_upper_bound": {{"n": 64}}}})
        cls = Module
        gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.get_cached_alloc",
                                     (cls.cuda_graph_alloc, R.prim_value(0)),
                                     sinfo_args=(R.Tuple(R.Any),))
        s = gv[0]
        a = R.memory.alloc_tensor(s, 0, R.shape([n]), "float32")
        cls.step(x, a)
        out = R.builtin.alloc_tensor(R.shape([n]), "float32", 0)
        cls.step(a, out)
        return out
'''


# The host reads a computed tensor: an `if` on a flag a kernel writes from x.
READS_ON_HOST = '''@I.ir_module
class Module:
''' + KERNELS + '''
    @T.prim_func
    def flag(var_a: T.handle, c: T.Buffer((), "bool")):
        n = T.int64()
        a = T.match_buffer(var_a, (n,), "float32")
        c[()] = a[0] > T.float32(0)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 64}})
        cls = Module
        c = R.builtin.alloc_tensor(R.shape([]), "bool", 0)
        cls.flag(x, c)
        if c:
            o1 = R.builtin.alloc_tensor(R.shape([n]), "float32", 0)
            cls.step(x, o1)
            r = o1
        else:
            r = x
        return r
'''


def test_a_storage_short_past_2_is_caught_by_default_by_the_facts_with_its_least_value():
    report = verify(parse_module(ORIGINAL), parse_module(rewritten(8)))
    d = report.difference
    assert d is not None and d.kind == "shape" and d.module == "rewritten"
    # n float32s in 8 bytes: n = 3 is the least value that does not fit (12 > 8)
    assert "at n = 3" in d.message and report.bounds is None
    assert d.loc.line > 0


def test_a_storage_short_past_2_is_caught_by_the_bounds_run_alone():
    # facts=False: without the facts of the text, which catch it before any run
    report = verify(parse_module(ORIGINAL), parse_module(rewritten(8)), facts=False)
    d = report.difference
    assert d is not None and d.kind == "shape" and d.module == "rewritten"
    # The default run (n = 1, 2) is equal; the bounds run's second call, at n = 64, is not.
    assert report.symbolic == {"n": [1, 2]}
    assert report.bounds.values == {"n": [2, 64]} and report.bounds.mode == "terms"
    assert report.bounds.difference and (d.function, d.call) == ("main", 1)
    assert "at n = 64" in d.message and "does not fit its storage of 8 bytes" in d.message
    assert d.loc.line > 0


def test_the_right_size_is_equal_at_every_value_the_bounds_run_takes():
    report = verify(parse_module(ORIGINAL), parse_module(rewritten(256)))
    assert report.equal, report.difference
    assert report.bounds.values == {"n": [2, 64, 1]}
    assert report.bounds.mode == "terms" and report.bounds.why_bytes is None
    # A larger storage than needed is right too.
    assert verify(parse_module(ORIGINAL), parse_module(rewritten(1024))).equal


def test_a_shape_given_runs_no_bounds_run_and_its_fit_failure_is_a_difference():
    report = verify(parse_module(ORIGINAL), parse_module(rewritten(8)), shapes={"n": [1, 2]},
                    facts=False)
    assert report.equal and report.bounds is None
    report = verify(parse_module(ORIGINAL), parse_module(rewritten(8)), shapes={"n": [3]},
                    facts=False)
    assert report.difference.kind == "shape" and report.bounds is None
    assert "at n = 3" in report.difference.message


def test_the_host_reading_computed_bytes_runs_the_bound_with_bytes():
    report = verify(parse_module(READS_ON_HOST), parse_module(READS_ON_HOST))
    assert report.equal, report.difference
    assert report.bounds.mode == "bytes"
    assert "the host reads bytes a kernel computed" in report.bounds.why_bytes
    assert report.bounds.values == {"n": [2, 64, 1]}


def test_cli_says_which_values_ran_in_which_mode(tmp_path):
    a, b = tmp_path / "a.relax", tmp_path / "b.relax"
    a.write_text(ORIGINAL)
    b.write_text(rewritten(8))
    r = run_cli("verify", str(a), str(b), "--format", "json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    # the fact of the text, for every value: no call ran it, and no bounds run was needed
    assert out["difference"]["kind"] == "shape" and out["difference"]["line"] > 0
    assert out["difference"]["call"] is None and "bounds_run" not in out
    assert out["symbolic_values"] == {"n": [1, 2]}
    t = run_cli("verify", str(a), str(b))
    text = t.stdout.decode()
    assert t.returncode == 1 and "at n = 3:" in text and "storage of 8 bytes" in text
    b.write_text(rewritten(256))
    ok = run_cli("verify", str(a), str(b))
    assert ok.returncode == 0
    assert "at the upper bounds: n = 2, 64, 1 (a function's calls take each list's values in " \
        "turn), 3 calls a function at most, outputs compared by terms only" in \
        " ".join(ok.stdout.decode().split())
    out = json.loads(run_cli("verify", str(a), str(b), "--format", "json").stdout)
    assert out["bounds_run"]["mode"] == "terms" and out["bounds_run"]["values"] == \
        {"n": [2, 64, 1]}


def test_terms_backend_computes_no_bytes_but_checks_fits():
    be = TermsBackend()
    x = be.from_numpy(np.arange(4, dtype=np.float32))
    s = be.alloc_storage(16)
    y = be.view(s, 0, (4,), "float32")
    be.launch(KernelSpec("k", (1,), None), [x, y], [])
    assert not be.storage_bytes(s) and be.terms is not None
    assert be.term_signature(y) is not None
    assert list(be.to_numpy(x)) == [0, 1, 2, 3]  # bytes the host gave
    with pytest.raises(NeedsBytes):
        be.to_numpy(y)
    assert be.needed_bytes
    with pytest.raises(DoesNotFit):
        be.view(s, 8, (4,), "float32")
