"""Row independence read from the kernels' TIR (passes/row_wise.py): which kernels a bucketed
capture may run at more rows than the real ones.

Hand-written kernels, each a case the definition decides (a row-wise matmul against a weight,
an rmsnorm over the hidden size, an elementwise add, a fused loop's guard; a cumsum over the
rows, a reduction over the rows, a transposed index, an index computed from the variable, a
gather, a value that uses the variable), then the real models' kernels."""

from __future__ import annotations

from pathlib import Path

import pytest

from cudagraph_cli import api, ir
from cudagraph_cli.passes.row_wise import kernel_verdicts, row_wise

REAL = Path(__file__).resolve().parent.parent / "samples" / "real"

HEADER = '''# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
'''

# Each kernel: (name, TIR text at class indentation). n is the rows' variable.
MATMUL = '''
    @T.prim_func(private=True)
    def matmul(x: T.Buffer((n, T.int64(1), T.int64(64)), "float16"), w: T.Buffer((T.int64(64), T.int64(32)), "float16"), y: T.Buffer((n, T.int64(1), T.int64(32)), "float16")):
        n = T.int64()
        for i0, i1, k in T.grid(n, T.int64(32), T.int64(64)):
            with T.sblock("matmul"):
                v0, v1, vk = T.axis.remap("SSR", [i0, i1, k])
                T.reads(x[v0, T.int64(0), vk], w[vk, v1])
                T.writes(y[v0, T.int64(0), v1])
                with T.init():
                    y[v0, T.int64(0), v1] = T.float16(0.0)
                y[v0, T.int64(0), v1] = y[v0, T.int64(0), v1] + x[v0, T.int64(0), vk] * w[vk, v1]
'''

RMSNORM = '''
    @T.prim_func(private=True)
    def rmsnorm(x: T.Buffer((n, T.int64(64)), "float16"), w: T.Buffer((T.int64(64),), "float16"), y: T.Buffer((n, T.int64(64)), "float16")):
        n = T.int64()
        acc = T.sblock_alloc_buffer((n,), "float32")
        for i0, k in T.grid(n, T.int64(64)):
            with T.sblock("sum"):
                v0, vk = T.axis.remap("SR", [i0, k])
                T.reads(x[v0, vk])
                T.writes(acc[v0])
                with T.init():
                    acc[v0] = T.float32(0.0)
                acc[v0] = acc[v0] + T.Cast("float32", x[v0, vk] * x[v0, vk])
        for i0, i1 in T.grid(n, T.int64(64)):
            with T.sblock("norm"):
                v0, v1 = T.axis.remap("SS", [i0, i1])
                T.reads(acc[v0], x[v0, v1], w[v1])
                T.writes(y[v0, v1])
                y[v0, v1] = T.Cast("float16", T.rsqrt(acc[v0] / T.float32(64.0))) * x[v0, v1] * w[v1]
'''

ADD = '''
    @T.prim_func(private=True)
    def add(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32"), c: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for f0 in T.thread_binding((n * T.int64(8) + T.int64(1023)) // T.int64(1024), thread="blockIdx.x"):
            for f1 in T.thread_binding(T.int64(1024), thread="threadIdx.x"):
                with T.sblock("add"):
                    v0 = T.axis.spatial(n, (f0 * T.int64(1024) + f1) // T.int64(8))
                    v1 = T.axis.spatial(T.int64(8), (f0 * T.int64(1024) + f1) % T.int64(8))
                    T.where(f0 * T.int64(1024) + f1 < n * T.int64(8))
                    T.reads(a[v0, v1], b[v0, v1])
                    T.writes(c[v0, v1])
                    c[v0, v1] = a[v0, v1] + b[v0, v1]
'''

CUMSUM = '''
    @T.prim_func(private=True)
    def cumsum(a: T.Buffer((n,), "int32"), out: T.Buffer((n,), "int32")):
        n = T.int64()
        for i in range(n):
            with T.sblock("scan"):
                vi = T.axis.spatial(n, i)
                T.reads(a[T.int64(0):vi + T.int64(1)])
                T.writes(out[vi])
                out[vi] = T.int32(0)
'''

ROW_SUM = '''
    @T.prim_func(private=True)
    def row_sum(a: T.Buffer((n, T.int64(8)), "float32"), out: T.Buffer((T.int64(8),), "float32")):
        n = T.int64()
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("sum"):
                vi, vj = T.axis.remap("RS", [i, j])
                T.reads(a[vi, vj])
                T.writes(out[vj])
                with T.init():
                    out[vj] = T.float32(0.0)
                out[vj] = out[vj] + a[vi, vj]
'''

# out[j, i] = a[i, j]: the rows of `a` become the columns of `out`, so the real rows of `out`
# are not a prefix of it.
TRANSPOSE = '''
    @T.prim_func(private=True)
    def transpose(a: T.Buffer((n, T.int64(8)), "float32"), out: T.Buffer((T.int64(8), n), "float32")):
        n = T.int64()
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("t"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(out[vj, vi])
                out[vj, vi] = a[vi, vj]
'''

# Reads the rows backwards: row i from row n - 1 - i.
REVERSE = '''
    @T.prim_func(private=True)
    def reverse(a: T.Buffer((n, T.int64(8)), "float32"), out: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("r"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[n - T.int64(1) - vi, vj])
                T.writes(out[vi, vj])
                out[vi, vj] = a[n - T.int64(1) - vi, vj]
'''

# Each row divided by the number of rows: the value changes with the bucket.
MEAN = '''
    @T.prim_func(private=True)
    def scale(a: T.Buffer((n, T.int64(8)), "float32"), out: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(out[vi, vj])
                out[vi, vj] = a[vi, vj] / T.Cast("float32", n)
'''

GATHER = '''
    @T.prim_func(private=True)
    def gather(w: T.Buffer((T.int64(100), T.int64(8)), "float32"), ids: T.Buffer((n,), "int32"), out: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("g"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(w[ids[vi], vj], ids[vi])
                T.writes(out[vi, vj])
                out[vi, vj] = w[ids[vi], vj]
'''

# The rows it covers shrink with a bucket's extra rows: at n = 10 it writes rows 0..1, at 16
# rows 0..7, real rows among them.
SHORT_LOOP = '''
    @T.prim_func(private=True)
    def short(a: T.Buffer((n, T.int64(8)), "float32"), out: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for i, j in T.grid(n - T.int64(8), T.int64(8)):
            with T.sblock("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(out[vi, vj])
                out[vi, vj] = a[vi, vj]
'''

EXTERN = '''
    @T.prim_func(private=True)
    def extern(a: T.Buffer((n, T.int64(8)), "float32"), out: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        T.evaluate(T.call_extern("int32", "my_scan", a.data, out.data, n))
'''

KERNELS = [MATMUL, RMSNORM, ADD, CUMSUM, ROW_SUM, TRANSPOSE, REVERSE, MEAN, GATHER,
           SHORT_LOOP, EXTERN]


@pytest.fixture(scope="module")
def prims() -> dict:
    mod = api.loads(HEADER + "".join(KERNELS))
    return {f.name: f for f in mod.functions if isinstance(f, ir.PrimFunc)}


@pytest.mark.parametrize("name, dims", [
    ("matmul", (("x", 0), ("y", 0))),
    ("rmsnorm", (("x", 0), ("y", 0))),
    ("add", (("a", 0), ("b", 0), ("c", 0))),
])
def test_row_wise_kernels(prims, name, dims):
    verdict = row_wise(prims[name], "n")
    assert verdict.row_wise, verdict.reason
    assert verdict.rows == dims


@pytest.mark.parametrize("name, reason", [
    # a stub body that reads nothing: its declared region still reaches rows 0 .. vi
    ("cumsum", "block 'scan' reaches rows 0:(vi + 1) of a at once"),
    ("row_sum", "block 'sum': the reduction iterator vi runs over a loop whose extent uses n"),
    ("transpose", "n is not the leading dimension of out (8, n)"),
    ("reverse", "block 'r' indexes the rows of a by (n - 1) - vi, which uses n"),
    ("scale", "computes a[vi, vj] / T.Cast(float32, n) from n, which a bucket changes"),
    ("gather", "indexes w by ids[vi], an index read from the rows of ids"),
    ("short", "a loop runs over n - 8, which does not grow with n"),
    ("extern", "it calls T.call_extern, which this reader does not model"),
])
def test_not_row_wise_kernels_say_why(prims, name, reason):
    verdict = row_wise(prims[name], "n")
    assert not verdict.row_wise
    assert reason in verdict.reason, verdict.reason


def test_a_variable_the_kernel_does_not_use_has_no_rows(prims):
    # The weight-only read of `w`: matmul is row-wise in n, and has no row in another name.
    verdict = row_wise(prims["matmul"], "m")
    assert verdict.row_wise and verdict.rows == ()


def _verdicts(sample: str, var: str) -> dict:
    mod = api.load(REAL / f"mlc_{sample}.before.relax")
    return kernel_verdicts(mod, var)


def test_llama_1b_matmuls_and_norms_are_row_wise():
    decode = _verdicts("llama_1b", "batch_size")
    for name in ("matmul", "matmul2", "matmul4", "fused_matmul1_add", "fused_matmul3_add",
                 "rms_norm", "fused_split_silu_multiply"):
        assert decode[name].row_wise, (name, decode[name].reason)
    prefill = _verdicts("llama_1b", "seq_len")
    for name in ("matmul10", "matmul12", "fused_matmul11_add2", "rms_norm2"):
        assert prefill[name].row_wise, (name, prefill[name].reason)
    # The last token's row (prefill's logits) and the embedding gather are not.
    assert "by seq_len - 1, which uses seq_len" in prefill["index"].reason
    assert "an index read from the rows of input_ids" in prefill["take"].reason


def test_olmoe_routing_is_not_row_wise():
    verdicts = _verdicts("olmoe_1b_7b", "batch_size")
    routing = ("gpu_2d_continuous_cumsum", "get_indices", "get_expert_instance_indptr",
               "top8", "group_gemm", "scatter_output")
    for name in routing:
        assert not verdicts[name].row_wise, name
    # Its attention-side and dense kernels still are.
    for name in ("rms_norm", "matmul", "fused_softmax_cast1"):
        assert verdicts[name].row_wise, (name, verdicts[name].reason)


def test_explain_shows_each_kernel_verdict_located(tmp_path):
    from cli_runner import cgraph

    path = REAL / "mlc_llama_1b.before.relax"
    r = cgraph("rewrite", path, "--explain", "-o", tmp_path / "o.relax")
    assert r.exit_code == 0, r.stderr
    lines = r.stderr.splitlines()
    text = path.read_text().splitlines()
    matmul = next(ln for ln in lines if ": kernel matmul10: seq_len: " in ln)
    line, col = (int(x) for x in matmul[len(str(path)) + 1:].split(":")[:2])
    assert "def matmul10(" in text[line - 1] and matmul.endswith("row-wise")
    index = next(ln for ln in lines if ": kernel index: seq_len: " in ln)
    assert "not row-wise: block 'index' indexes the rows of rms_norm32 by seq_len - 1, which " \
        "uses seq_len" in index
    assert any(": kernel rms_norm: batch_size: row-wise" in ln for ln in lines)
    assert lines[-1].endswith("kernel launches")  # the summary stays last


def test_diff_explain_prints_what_rewrite_explain_prints(tmp_path):
    # `cgraph diff IN --explain` (issue 45: the verdict per kernel in diff): the same lines on
    # stderr as `cgraph rewrite IN --explain`, the summary on stdout; the two-file form has no
    # rewrite of its own to explain, a usage error.
    from cli_runner import cgraph

    path = REAL / "mlc_llama_1b.before.relax"
    rewritten = cgraph("rewrite", path, "--explain", "-o", tmp_path / "o.relax")
    diffed = cgraph("diff", path, "--summary", "--explain")
    assert diffed.exit_code == 0, diffed.stderr
    assert ": kernel index: seq_len: not row-wise" in diffed.stderr
    assert [ln for ln in diffed.stderr.splitlines() if ": kernel " in ln or "not captured" in ln] \
        == [ln for ln in rewritten.stderr.splitlines() if ": kernel " in ln or "not captured" in ln]
    assert "host work per call" in diffed.stdout
    two = cgraph("diff", path, tmp_path / "o.relax", "--explain")
    assert two.exit_code == 2 and two.stderr.startswith("cgraph diff: error: --explain ")
    assert len(two.stderr.splitlines()) == 1


# -- issue 50: kernels whose declared regions look row-wise and whose body is not -----------------
# Each is decided from the body: at n rows and at a bucket B > n, a real row differs.

BODY_CASES = {
    # b[i] = sum over k < n of a[i] * w: the reduction's extent is the variable, over a buffer
    # without rows (B * a * w at a bucket, n * a * w at the real size).
    "sum_over_n": ('''
    @T.prim_func(private=True)
    def sum_over_n(a: T.Buffer((n,), "float32"), w: T.Buffer((T.int64(1),), "float32"), b: T.Buffer((n,), "float32")):
        n = T.int64()
        for i, k in T.grid(n, n):
            with T.sblock("s"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(a[vi], w[T.int64(0)])
                T.writes(b[vi])
                with T.init():
                    b[vi] = T.float32(0.0)
                b[vi] = b[vi] + a[vi] * w[T.int64(0)]
''', "the reduction iterator vk runs over a loop whose extent uses n"),
    # A loop of that extent inside the block.
    "inner_loop": ('''
    @T.prim_func(private=True)
    def inner_loop(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        n = T.int64()
        for i in range(n):
            with T.sblock("s"):
                vi = T.axis.spatial(n, i)
                T.reads(a[vi])
                T.writes(b[vi])
                b[vi] = T.float32(0.0)
                for k in range(n):
                    b[vi] = b[vi] + a[vi]
''', "iterations over k that does not enter its row"),
    # The variable bound to another name inside the block.
    "alias": ('''
    @T.prim_func(private=True)
    def alias(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        n = T.int64()
        for i in range(n):
            with T.sblock("s"):
                vi = T.axis.spatial(n, i)
                T.reads(a[vi])
                T.writes(b[vi])
                m: T.int64 = n
                b[vi] = a[vi] * T.Cast("float32", m)
''', "the let m = n uses n"),
    # Reads the declared regions do not show: row i - 1.
    "undeclared": ('''
    @T.prim_func(private=True)
    def undeclared(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        n = T.int64()
        for i in range(n):
            with T.sblock("s"):
                vi = T.axis.spatial(n, i)
                T.reads(a[vi])
                T.writes(b[vi])
                b[vi] = a[vi] + T.if_then_else(vi > T.int64(0), a[vi - T.int64(1)], T.float32(0.0))
''', "reaches row vi - 1 of a beside row vi of b"),
    # A match_buffer of another row.
    "match_other_row": ('''
    @T.prim_func(private=True)
    def match_other_row(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(b[vi, vj])
                row = T.match_buffer(a[vi + T.int64(1), T.int64(0):T.int64(8)], (T.int64(8),))
                b[vi, vj] = row[vj]
''', "beside row"),
    # An extent that grows faster than the rows it reaches: row i // 4 over 2n iterations
    # reaches rows below n / 2 only at n, more of them at a bucket.
    "grows": ('''
    @T.prim_func(private=True)
    def grows(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        n = T.int64()
        for i in range(n * T.int64(2)):
            with T.sblock("s"):
                vi = T.axis.spatial(n, i // T.int64(4))
                T.reads(a[vi])
                T.writes(b[vi])
                b[vi] = a[vi]
''', "does not enter its row"),
    # A buffer with strides: its rows are 16 apart, not where a bucket's carve puts them.
    "strided": ('''
    @T.prim_func(private=True)
    def strided(a: T.Buffer((n, T.int64(8)), "float32", strides=(T.int64(16), T.int64(1))), b: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("s"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(b[vi, vj])
                b[vi, vj] = a[vi, vj]
''', "not compact"),
    # The row count reaches a value through a condition that is not the row guard.
    "condition": ('''
    @T.prim_func(private=True)
    def condition(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        n = T.int64()
        for i in range(n):
            with T.sblock("s"):
                vi = T.axis.spatial(n, i)
                T.reads(a[vi])
                T.writes(b[vi])
                b[vi] = T.if_then_else(n > T.int64(4), a[vi], T.float32(0.0))
''', "which a bucket changes"),
    # An inner loop that shadows the loop over the rows: b[i] names the inner i, the outer
    # loop runs n times over the same 8 rows.
    "shadowed": ('''
    @T.prim_func(private=True)
    def shadowed(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        n = T.int64()
        for i in range(n):
            for i in range(T.int64(8)):
                b[i] = b[i] + a[i]
''', "it binds i again inside a scope that binds it"),
    # A store through a match of a buffer without rows: a sum across the rows.
    "match_of_scratch": ('''
    @T.prim_func(private=True)
    def match_of_scratch(a: T.Buffer((n,), "float32"), acc: T.Buffer((T.int64(1),), "float32")):
        n = T.int64()
        for i in range(n):
            with T.sblock("s"):
                vi = T.axis.spatial(n, i)
                T.reads(a[vi])
                T.writes(acc[T.int64(0)])
                view = T.match_buffer(acc[T.int64(0):T.int64(1)], (T.int64(1),))
                view[T.int64(0)] = view[T.int64(0)] + a[vi]
''', "writes view, which has no n dimension"),
}

# Row-wise and scheduled as MLC's kernels are: a split loop with its guard, a padded scratch.
ROW_WISE_CASES = {
    "guarded_split": '''
    @T.prim_func(private=True)
    def guarded_split(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        for f0 in T.thread_binding((n * T.int64(8) + T.int64(31)) // T.int64(32), thread="blockIdx.x"):
            for f1 in T.thread_binding(T.int64(32), thread="threadIdx.x"):
                with T.sblock("s"):
                    vi = T.axis.spatial(n, (f0 * T.int64(32) + f1) // T.int64(8))
                    vj = T.axis.spatial(T.int64(8), (f0 * T.int64(32) + f1) % T.int64(8))
                    T.where(f0 * T.int64(32) + f1 < n * T.int64(8))
                    T.reads(a[vi, vj])
                    T.writes(b[vi, vj])
                    b[vi, vj] = a[vi, vj] * T.float32(2.0)
''',
    "padded": '''
    @T.prim_func(private=True)
    def padded(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        n = T.int64()
        pad = T.sblock_alloc_buffer(((n + T.int64(3)) // T.int64(4) * T.int64(4), T.int64(8)), "float32")
        for i0, i1, j in T.grid((n + T.int64(3)) // T.int64(4), T.int64(4), T.int64(8)):
            with T.sblock("pad"):
                vi = T.axis.spatial((n + T.int64(3)) // T.int64(4) * T.int64(4), i0 * T.int64(4) + i1)
                vj = T.axis.spatial(T.int64(8), j)
                T.reads(a[vi, vj])
                T.writes(pad[vi, vj])
                pad[vi, vj] = T.if_then_else(vi < n, a[vi, vj], T.float32(0.0))
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("out"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(pad[vi, vj])
                T.writes(b[vi, vj])
                b[vi, vj] = pad[vi, vj] + T.float32(1.0)
''',
}


@pytest.fixture(scope="module")
def body_prims() -> dict:
    texts = [t for t, _ in BODY_CASES.values()] + list(ROW_WISE_CASES.values())
    mod = api.loads(HEADER + "".join(texts))
    return {f.name: f for f in mod.functions if isinstance(f, ir.PrimFunc)}


@pytest.mark.parametrize("name", sorted(BODY_CASES))
def test_the_body_decides_not_the_declared_regions(body_prims, name):
    verdict = row_wise(body_prims[name], "n")
    assert not verdict.row_wise, name
    assert BODY_CASES[name][1] in verdict.reason, verdict.reason


@pytest.mark.parametrize("name", sorted(ROW_WISE_CASES))
def test_scheduled_row_wise_forms(body_prims, name):
    verdict = row_wise(body_prims[name], "n")
    assert verdict.row_wise, verdict.reason
    assert verdict.rows == (("a", 0), ("b", 0))


# One PrimFunc launched twice: its `m` is the rows at the first launch and the columns it
# reduces over at the second. The verdict is per launch, not the first launch's for both.
PER_LAUNCH = HEADER + '''
    @T.prim_func(private=True)
    def colsum(a: T.Buffer((m, k), "float32"), b: T.Buffer((m,), "float32")):
        m = T.int64()
        k = T.int64()
        for i, j in T.grid(m, k):
            with T.sblock("s"):
                vi, vj = T.axis.remap("SR", [i, j])
                T.reads(a[vi, vj])
                T.writes(b[vi])
                with T.init():
                    b[vi] = T.float32(0.0)
                b[vi] = b[vi] + a[vi, vj]

    @R.function
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor((4, "n"), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor((4,), "float32")):
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        cls = Module
        s = R.vm.alloc_storage(R.shape([64]), R.prim_value(0), R.dtype("uint8"))
        p = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
        cls.colsum(x, p)
        s2 = R.vm.alloc_storage(R.shape([16]), R.prim_value(0), R.dtype("uint8"))
        q = R.vm.alloc_tensor(s2, R.prim_value(0), R.shape([4]), R.dtype("float32"))
        cls.colsum(y, q)
        return (p, q)
'''


def test_a_verdict_per_launch():
    from cudagraph_cli.passes.row_wise import LaunchVerdicts

    mod = api.loads(PER_LAUNCH.replace("# from tvm.script import tir as T",
                                       "# from tvm.script import tir as T\n"
                                       "# from tvm.script import relax as R"))
    main = next(f for f in mod.relax_functions() if f.name == "main")
    launches = [b.value for blk in main.blocks for b in blk.bindings
                if isinstance(b.value, ir.Call) and isinstance(b.value.op, ir.GlobalVarRef)]
    verdicts = LaunchVerdicts(mod, "n")
    first, second = (verdicts.of(c) for c in launches)
    assert first.row_wise and first.var == "m"
    assert not second.row_wise and second.var == "k"
    assert "k is not the leading dimension of a (m, k)" in second.reason
    # Over the module, a kernel is row-wise only when every launch of it is.
    assert not kernel_verdicts(mod, "n")["colsum"].row_wise
