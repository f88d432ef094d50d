"""cgraph's row-wise verdicts (passes/row_wise.py) against a second reader built on TVM 0.27
(tests/helpers/tvm_row_wise.py: TVM's TVMScript parser, its IR nodes and its analyzer; nothing of
cgraph's), compared module by module by tests/helpers/row_wise_corpus.py.

For every module of samples/ and tests/buckets/, the real-size models before and after included,
and every Relax symbolic variable its functions use as a tensor dimension, cgraph's
`kernel_verdicts(module, var)` is compared with TVM's reading of each kernel, with the variable
each launch binds. A kernel cgraph calls row-wise and TVM's reader does not fails the test, with
TVM's reason; the other way round is counted and printed (`-s`), not failed (TVM's reader reads
the body alone: static_plan_symbolic_shape's `exp`, whose body is `T.evaluate(0)`, is row-wise
to it and has no block for cgraph). Issue 34's four families at public size (conftest's
BENCH_ONLY_FAMILIES) are left to bench/bench_row_wise_tvm_reader.py, as the other tests that
read every sample leave them: with them this file costs twice as much.

Then the TVM reader on its own: hand-written kernels it must refuse (the classes of issue 50) and
accept, the 1B's scheduled kernels it must accept, one-edit mutants of them it must refuse, and a
kernel launched twice with the variable bound differently; and cgraph's verdicts on those
kernels: it refuses each (it called all but two row-wise when it trusted declared regions).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import for_every_sample_test
from cudagraph_cli import api, ir
from row_wise_corpus import compare_module, launch_bindings, split_prim_funcs, summary, tvm_read

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_FILES = for_every_sample_test(sorted((ROOT / "samples").rglob("*.relax")) +
                                     sorted((ROOT / "tests" / "buckets").glob("*.relax")))
REAL_SIZE = [p for p in SAMPLE_FILES if p.name.startswith("mlc_")]
# The modules whose kernels TVM's parser does not read: named, with the error's first line,
# when this count changes.
UNREAD_BY_TVM = 0
# The modules with kernels to compare (a launch with a tensor sized by a symbolic variable): the
# 8 real-size files here (4 models, before and after), nn_llama_kv and
# static_plan_symbolic_shape before and after, and tests/buckets/ (rows, collective, reread).
# The others launch no kernel with a tensor sized by a variable.
COMPARED_MODULES = 15

pytestmark = pytest.mark.tvm


@pytest.fixture(scope="module")
def kernel_cache() -> dict:
    """{kernel text: TVM's reading, (text, variable): TVM's verdict}, shared by this file's
    tests: each text is read once."""
    return {}


@pytest.fixture(scope="module")
def compared(kernel_cache) -> tuple:
    """Every module compared once: (rows as compare_module gives them, {file: TVM's error})."""
    unread: dict = {}
    rows = []
    for path in SAMPLE_FILES:
        rows += compare_module(path.relative_to(ROOT).as_posix(), path.read_text(), kernel_cache,
                               unread)
    return rows, unread


def test_tvm_reads_the_kernels_of_every_module(compared):
    rows, unread = compared
    assert len(unread) == UNREAD_BY_TVM, unread
    assert len({r[0] for r in rows}) == COMPARED_MODULES, sorted({r[0] for r in rows})
    # Every real-size model, before and after, has kernels cgraph decides on.
    for path in REAL_SIZE:
        assert any(r[0] == path.relative_to(ROOT).as_posix() for r in rows), path.name


def test_where_cgraph_says_row_wise_tvm_reader_does_too(compared):
    rows, _ = compared
    disagree = [f"{file}: {kernel} in {var}: {reason}"
                for file, var, kernel, cg, tvm, reason in rows if cg and not tvm]
    assert not disagree, "cgraph calls row-wise, TVM's reader does not:\n" + "\n".join(disagree)


def test_both_readers_call_the_real_models_dense_kernels_row_wise(compared):
    """The counts per module and variable (printed with -s): each real-size model has kernels
    both readers call row-wise in seq_len and in batch_size, so the comparison above is not
    vacuous. Kernels only TVM's reader accepts are listed, not failed."""
    rows, _ = compared
    per_module, tvm_only = summary(rows)
    for (file, var), c in sorted(per_module.items()):
        print(f"{file} {var}: {c['kernels']} kernels, cgraph row-wise {c['cgraph']}, "
              f"TVM confirms {c['both']}")
    print(f"TVM's reader only ({len(tvm_only)}):", *tvm_only, sep="\n  ")
    assert len(REAL_SIZE) == 8
    for path in REAL_SIZE:
        file = path.relative_to(ROOT).as_posix()
        for var in ("seq_len", "batch_size"):
            assert per_module[(file, var)].get("both", 0) > 0, (file, var)


# -- the TVM reader on its own: kernels it must refuse, kernels it must accept ---------------------

SELF_HEADER = 'n = TypeVar("n")\n@I.ir_module\nclass Module:\n'

# Each a kernel whose real rows change at a bucket, with the words TVM's reader must give.
MUST_REFUSE = {
    # b[i] = sum over k < n of a[i] * w: the loop over k feeds no row (B·a·w at a bucket).
    "sum_over_n": ('''
    @T.prim_func(private=True, s_tir=True)
    def sum_over_n(a: T.Buffer((n, T.int64(8)), "float32"), w: T.Buffer((T.int64(8),), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        for i, j, k in T.grid(n, T.int64(8), n):
            with T.sblock("s"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(a[vi, vj], w[vj])
                T.writes(b[vi, vj])
                with T.init():
                    b[vi, vj] = T.float32(0.0)
                b[vi, vj] = b[vi, vj] + a[vi, vj] * w[vj]
''', "block iterator vk ranges over n and is not its row"),
    # The same sum as a loop inside the block.
    "loop_in_block": ('''
    @T.prim_func(private=True, s_tir=True)
    def loop_in_block(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("l"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(b[vi, vj])
                b[vi, vj] = T.float32(0.0)
                for k in range(n):
                    b[vi, vj] = b[vi, vj] + a[vi, vj]
''', "inside the loop k over n, which does not feed its row"),
    # Row i from row i - 1, while T.reads declares row i.
    "previous_row": ('''
    @T.prim_func(private=True, s_tir=True)
    def previous_row(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("p"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(b[vi, vj])
                b[vi, vj] = T.if_then_else(T.int64(0) < vi, a[vi - T.int64(1), vj], T.float32(0.0))
''', "reads row i - T.int64(1) of a"),
    # A running sum down the rows, through a scalar scratch allocated outside the loop.
    "scan": ('''
    @T.prim_func(private=True, s_tir=True)
    def scan(a: T.Buffer((n,), "float32"), b: T.Buffer((n,), "float32")):
        acc = T.sblock_alloc_buffer((T.int64(1),), "float32")
        for i in range(n):
            with T.sblock("scan"):
                vi = T.axis.spatial(n, i)
                T.reads(a[vi], acc[T.int64(0)])
                T.writes(acc[T.int64(0)], b[vi])
                acc[T.int64(0)] = acc[T.int64(0)] + a[vi]
                b[vi] = acc[T.int64(0)]
''', "reads a at row i: one value for every row"),
    # n bound to another name, then used in a value.
    "x_is_n": ('''
    @T.prim_func(private=True, s_tir=True)
    def x_is_n(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("x"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(b[vi, vj])
                x: T.int64 = n
                b[vi, vj] = a[vi, vj] * T.Cast("float32", x)
''', "uses n as a value"),
    # A row-sized buffer with a stride of n: its rows are not where a bucket puts them.
    # A match_buffer of the next row.
    "next_row_view": ('''
    @T.prim_func(private=True, s_tir=True)
    def next_row_view(a: T.Buffer((n, T.int64(8)), "float32"), b: T.Buffer((n, T.int64(8)), "float32")):
        for i in range(n):
            with T.sblock("v"):
                vi = T.axis.spatial(n, i)
                T.reads(a[vi, T.int64(0):T.int64(8)])
                T.writes(b[vi, T.int64(0):T.int64(8)])
                nxt = T.match_buffer(a[vi + T.int64(1), T.int64(0):T.int64(8)], (T.int64(8),))
                for j in range(T.int64(8)):
                    b[vi, j] = nxt[j]
''', "match_buffer nxt of a row-sized buffer"),
    # Rows added at positions read from memory (a scatter-add): a pad row's stale id adds its
    # row to a real one once more.
    "row_gather": ('''
    @T.prim_func(private=True, s_tir=True)
    def row_gather(a: T.Buffer((n, T.int64(8)), "float32"), ids: T.Buffer((n,), "int64"), b: T.Buffer((n, T.int64(8)), "float32")):
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("g"):
                vi = T.axis.spatial(n, ids[i])
                vj = T.axis.spatial(T.int64(8), j)
                T.reads(a[vi, vj], b[vi, vj])
                T.writes(b[vi, vj])
                b[vi, vj] = b[vi, vj] + a[vi, vj]
''', "is bound to ids[i], read from memory"),
    "strided": ('''
    @T.prim_func(private=True, s_tir=True)
    def strided(a: T.Buffer((n, T.int64(8)), "float32", strides=(T.int64(1), n)), b: T.Buffer((n, T.int64(8)), "float32")):
        for i, j in T.grid(n, T.int64(8)):
            with T.sblock("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[vi, vj])
                T.writes(b[vi, vj])
                b[vi, vj] = a[vi, vj]
''', "a has a stride or offset that uses n"),
}

# Row-wise kernels TVM's reader must accept: an elementwise kernel over a fused, guarded loop
# (tests/test_row_wise.py's ADD) and scheduled kernels of the 1B model.
MUST_ACCEPT_1B = [("reshape", "batch_size"), ("rms_norm", "batch_size"),
                  ("fused_matmul1_add", "batch_size"), ("fused_matmul11_add2", "seq_len"),
                  ("rms_norm2", "seq_len")]


@pytest.fixture(scope="module")
def hand_written() -> dict:
    """TVM's reading of MUST_REFUSE's kernels and of tests/test_row_wise.py's, by name."""
    from test_row_wise import KERNELS

    # TVM's reader does not take a kernel's own `n = T.int64()` after a signature that uses n
    # ("name 'n' is not defined"): here n is the module's TypeVar instead, the same variable;
    # and it reads T.sblock_alloc_buffer in s_tir PrimFuncs only.
    own = [text.replace("        n = T.int64()\n", "").replace(
        "@T.prim_func(private=True)", "@T.prim_func(private=True, s_tir=True)") for text in KERNELS]
    return tvm_read(SELF_HEADER, [text for text, _ in MUST_REFUSE.values()] + own)


# Each kernel of MUST_REFUSE was called row-wise by cgraph when its reader trusted the declared
# regions (main at 3064843: all but the scan and the value); each is refused now.
@pytest.mark.parametrize("name", sorted(MUST_REFUSE))
def test_cgraph_refuses_what_tvm_reader_refuses(name):
    from cudagraph_cli.passes.row_wise import row_wise

    prim = next(f for f in api.loads(SELF_HEADER + MUST_REFUSE[name][0]).functions
                if isinstance(f, ir.PrimFunc))
    verdict = row_wise(prim, "n")
    assert not verdict.row_wise, verdict


@pytest.mark.parametrize("name", sorted(MUST_REFUSE))
def test_tvm_reader_refuses_what_changes_real_rows(hand_written, name):
    from tvm_row_wise import row_wise

    ok, reason = row_wise(hand_written[name], "n")
    assert not ok
    assert MUST_REFUSE[name][1] in reason, reason


def test_tvm_reader_accepts_an_elementwise_kernel_over_a_guarded_fused_loop(hand_written):
    from tvm_row_wise import row_wise

    assert row_wise(hand_written["add"], "n") == (True, "row-wise in n (rows: a[0], b[0], c[0])")


@pytest.mark.parametrize("name, var", MUST_ACCEPT_1B)
def test_tvm_reader_accepts_the_1b_scheduled_kernels(kernel_cache, name, var):
    from tvm_row_wise import row_wise

    header, chunks = split_prim_funcs((ROOT / "samples" / "real" /
                                       "mlc_llama_1b.before.relax").read_text())
    if chunks[name] not in kernel_cache:
        kernel_cache[chunks[name]] = tvm_read(header, [chunks[name]])[name]
    ok, reason = row_wise(kernel_cache[chunks[name]], var)
    assert ok, reason


def test_tvm_reader_agrees_where_cgraph_calls_test_row_wise_kernels_row_wise(hand_written):
    """tests/test_row_wise.py's kernels: where cgraph says row-wise, TVM's reader does too."""
    from test_row_wise import HEADER, KERNELS
    from tvm_row_wise import row_wise as tvm_row_wise

    from cudagraph_cli.passes.row_wise import row_wise

    prims = {f.name: f for f in api.loads(HEADER + "".join(KERNELS)).functions
             if isinstance(f, ir.PrimFunc)}
    verdicts = {name: (row_wise(p, "n").row_wise, tvm_row_wise(hand_written[name], "n"))
                for name, p in prims.items()}
    assert len(verdicts) == len(KERNELS)
    wrong = {name: tvm for name, (cg, tvm) in verdicts.items() if cg and not tvm[0]}
    assert not wrong
    # Not vacuous: cgraph calls three of them row-wise (matmul, rmsnorm, add).
    assert sum(cg for cg, _ in verdicts.values()) == 3


# The 1B's kernels made wrong by one edit, each refused with its reason (the reader judged by what
# it catches at real size, not only on small kernels): a norm divided by the row count, a
# residual add reading the next row, a padded copy that zeroes the last real row.
MUTANTS_1B = [
    ("rms_norm", "batch_size", "T.float32(2048.0)", 'T.Cast("float32", batch_size)',
     "uses batch_size as a value"),
    ("fused_matmul1_add", "batch_size",
     "= matmul_intermediate_pad[v0, T.int64(0), v1] + input_embeds",
     "= matmul_intermediate_pad[v0 + T.int64(1), T.int64(0), v1] + input_embeds",
     "reads row ax0 + T.int64(1) of matmul_intermediate_pad"),
    ("fused_matmul11_add2", "seq_len", "T.if_then_else(v0 < seq_len,",
     "T.if_then_else(v0 < seq_len - T.int64(1),", "not a guard of its row"),
]


@pytest.mark.parametrize("name, var, old, new, reason", MUTANTS_1B)
def test_tvm_reader_refuses_the_1b_kernels_made_wrong(name, var, old, new, reason):
    from tvm_row_wise import row_wise

    header, chunks = split_prim_funcs((ROOT / "samples" / "real" /
                                       "mlc_llama_1b.before.relax").read_text())
    assert chunks[name].count(old) == 1
    ok, why = row_wise(tvm_read(header, [chunks[name].replace(old, new)])[name], var)
    assert not ok
    assert reason in why, why


# One kernel, two launches: the first binds n to q (b's rows, each a copy of a's last row: row-wise
# in q), the second to p (b's 16 rows get row p - 1 of a: at a bucket a pad row, not the last real
# one). A verdict per launch, not per kernel.
TWO_LAUNCHES = '''n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def head(a: T.Buffer(("p", T.int64(8)), "float32"), b: T.Buffer(("q", T.int64(8)), "float32")):
        for i, j in T.grid(q, T.int64(8)):
            with T.sblock("h"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(a[p - T.int64(1), vj])
                T.writes(b[vi, vj])
                b[vi, vj] = a[p - T.int64(1), vj]

    @R.function
    def main(x: R.Tensor((16, 8), "float32"), y: R.Tensor(("n", 8), "float32")) -> R.Tensor((16, 8), "float32"):
        n = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 16}})
        cls = Module
        s = R.memory.alloc_storage(R.shape([512]), 0, "global", "float32")
        a: R.Tensor((n, 8), "float32") = R.memory.alloc_tensor(s, 0, R.shape([n, 8]), "float32")
        cls.head(x, a)
        s2 = R.memory.alloc_storage(R.shape([512]), 0, "global", "float32")
        b: R.Tensor((16, 8), "float32") = R.memory.alloc_tensor(s2, 0, R.shape([16, 8]), "float32")
        cls.head(a, b)
        return b
'''


def test_each_launch_binding_the_variable_otherwise_is_read_on_its_own():
    from tvm_row_wise import row_wise

    mod = api.loads(TWO_LAUNCHES)
    header, chunks = split_prim_funcs(TWO_LAUNCHES)
    head = tvm_read(header, [chunks["head"]])["head"]
    assert launch_bindings(mod, "head", "n", head) == {"p", "q"}
    assert row_wise(head, "q")[0]
    ok, reason = row_wise(head, "p")
    assert not ok and "the store to b (no p rows) reads a at row" in reason, reason


def test_where_cgraph_says_row_wise_each_launch_is(kernel_cache):
    # Over its launches, head is row-wise only if every launch is: the second binds n to p,
    # which is not (it reads row p - 1). Per launch, cgraph agrees with TVM's reader.
    from cudagraph_cli.passes.row_wise import LaunchVerdicts
    from tvm_row_wise import row_wise

    rows = compare_module("TWO_LAUNCHES", TWO_LAUNCHES, kernel_cache, {})
    assert [r[2:4] for r in rows] == [("head", False)]
    mod = api.loads(TWO_LAUNCHES)
    main = next(f for f in mod.relax_functions() if f.name == "main")
    launches = [b.value for blk in main.blocks for b in blk.bindings
                if isinstance(b.value, ir.Call) and isinstance(b.value.op, ir.GlobalVarRef)]
    header, chunks = split_prim_funcs(TWO_LAUNCHES)
    head = tvm_read(header, [chunks["head"]])["head"]
    verdicts = [LaunchVerdicts(mod, "n").of(c) for c in launches]
    assert [(v.var, v.row_wise) for v in verdicts] == [("q", True), ("p", False)]
    assert [row_wise(head, v.var)[0] for v in verdicts] == [True, False]
