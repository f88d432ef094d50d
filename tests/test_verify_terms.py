"""verify's verdict does not depend on sample values (exec/terms.py; docs/EXECUTOR.md, "What
verify's verdict guarantees"), objects and host logic inside graphs are findings, and the KV-
cache builtins keep their contents as state.

The real-model mutants are built here by editing the text of samples/real/mlc_llama_1b at its
first layer, where the byte values alone cannot tell (issue 31: a difference entering layer 0 is
gone from the logits' bytes after about 1.5 residual layers). Each is run against the module it
was made from; `decode` only (the 16 layers, 2 calls), to stay quick.
"""

from __future__ import annotations

import pytest

from conftest import ROOT
from cudagraph_cli.exec.verify import verify
from cudagraph_cli.text.reader import parse_module

LLAMA_1B = ROOT / "samples" / "real" / "mlc_llama_1b.before.relax"


@pytest.fixture(scope="module")
def llama():
    text = LLAMA_1B.read_text()
    return text, parse_module(text)


def mutant(text: str, old: str, new: str):
    assert text.count(old) == 1, old
    return parse_module(text.replace(old, new))


def verify_decode(original, rewritten):
    return verify(original, rewritten, calls=2, functions=["decode"])


@pytest.fixture
def blind_bytes(monkeypatch):
    """Every synthetic kernel writes zeros: its bytes then say nothing of what it read, so
    only the terms can tell a difference (the verdict must not depend on sample values; and
    whatever mix exec/kernels.py uses, these tests see the terms alone)."""
    import numpy as np
    from cudagraph_cli.exec import backend
    monkeypatch.setattr(backend, "synthetic_bytes",
                        lambda salt, inputs, sizes, into=None: [np.zeros(m, np.uint8)
                                                                   for m in sizes])


# Layer 0 of decode, as the sample writes it (lines ~3615-3655): the post-attention residual
# lv50 = fused_matmul6_add1(attn, W_o, input_embed), rms_norm34 = rms_norm1(lv50, ...), the
# MLP, then lv52 = fused_matmul8_add1(mlp, W_down, lv50).
RESIDUAL = "cls.fused_matmul8_add1(lv51, permute_dims68, lv50, alloc206)"


def test_a_kernel_reading_another_live_tensor_at_layer_0_is_caught_by_terms(llama, blind_bytes):
    # input_embed is live (the function's input) and of lv50's shape and dtype: the MLP's
    # residual add reads the layer's input instead of the attention's residual. The bytes
    # of the logits agree (the mix forgets it 15 layers later); what they are made of not.
    text, original = llama
    wrong = mutant(text, RESIDUAL,
                   "cls.fused_matmul8_add1(lv51, permute_dims68, input_embed, alloc206)")
    r = verify_decode(original, wrong)
    d = r.difference
    assert d is not None and d.kind == "terms", d
    assert d.function == "decode" and d.call == 0 and d.output == "[0]"
    # located at the kernel whose argument diverges, in the rewritten module
    line = text[:text.index(RESIDUAL)].count("\n") + 1
    assert d.loc.line == line
    assert "kernel 'fused_matmul8_add1'" in d.message and "argument 2" in d.message
    assert "kernel 'fused_matmul6_add1'" in d.message and "input_embed" in d.message


def test_b_a_dropped_launch_at_layer_0_is_caught(llama, blind_bytes):
    # rms_norm34 then holds what storage4 held before: the attention's output (alloc198).
    text, original = llama
    wrong = mutant(text, "        cls.rms_norm1(lv50, model_layers_0_post_attention_layernorm_"
                   "weight2, alloc201)\n", "")
    d = verify_decode(original, wrong).difference
    assert d is not None and d.kind == "terms", d
    assert "kernel 'matmul7'" in d.message and "argument 0" in d.message
    assert "output 0 of kernel 'rms_norm1'" in d.message
    assert "output 0 of kernel 'vm.builtin.attention_kv_cache_attention_with_fused_qkv'" \
        in d.message


def test_c_overlapping_live_storages_are_caught(llama, blind_bytes):
    # lv50 (live until layer 0's last residual add) moved into storage4, where the attention's
    # output lies (read by the very kernel that writes lv50) and rms_norm34 is written next.
    text, original = llama
    wrong = mutant(text, "alloc200: R.Tensor((1, 1, 2048), dtype=\"float16\") = "
                   "R.memory.alloc_tensor(storage6, 0,",
                   "alloc200: R.Tensor((1, 1, 2048), dtype=\"float16\") = "
                   "R.memory.alloc_tensor(storage4, 0,")
    d = verify_decode(original, wrong).difference
    assert d is not None and d.kind == "terms", d
    # the first divergence down the terms: the attention's output projection now writes lv50
    # over its own input (the attention's output, also at storage4's start)
    assert "kernel 'fused_matmul6_add1'" in d.message and \
        "writes its outputs over its arguments differently" in d.message


def test_d_reordering_independent_launches_verifies_equal(llama, blind_bytes):
    # transpose1 (W_o into storage5) moved before the attention call: it reads a weight and
    # writes storage5 after matmul5 has read permute_dims65 there; nothing between reads it.
    text, original = llama
    block = ("        alloc199: R.Tensor((2048, 2048), dtype=\"float16\") = R.memory.alloc_tensor("
             "storage5, 0, R.shape([2048, 2048]), R.dtype(\"float16\"), 0)\n"
             "        cls.transpose1(model_layers_0_self_attn_o_proj_weight2, alloc199)\n"
             "        permute_dims66: R.Tensor((2048, 2048), dtype=\"float16\") = alloc199\n")
    anchor = "        matmul65: R.Tensor((1, 1, 3072), dtype=\"float16\") = alloc197\n"
    assert text.count(block) == 1 and text.count(anchor) == 1
    moved = text.replace(block, "").replace(anchor, anchor + block)
    assert moved != text
    r = verify_decode(original, parse_module(moved))
    assert r.equal, r.difference


# ---- KV caches: state across calls ---------------------------------------------------------

T4 = 'R.Tensor((1, 4), "float32")'
ADD_ONE = '''    @T.prim_func
    def add_one(a: T.Buffer((1, 4), "float32"), b: T.Buffer((1, 4), "float32")):
        for i in range(4):
            b[0, i] = a[0, i] + T.float32(1)
'''


def cache_module(body: str, extra: str = "") -> str:
    return f'''@I.ir_module
class Module:
{ADD_ONE}{extra}
    @R.function
    def main(x: {T4}, cache: R.Object) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 2}})
        cls = Module
{body}'''


# main appends x to the cache it is given (the same object every call, as a caller passes
# its cache again) and returns add_one of the first row: call 1's x, on every call.
APPEND_VIEW = cache_module('''        c1 = R.call_packed("vm.builtin.attention_kv_cache_append", cache, x, sinfo_args=(R.Object,))
        v = R.call_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([1, 4]), sinfo_args=(R.Tensor((1, 4), "float32"),))
        y = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(v, y)
        return y
''')


def test_what_an_append_writes_a_view_reads():
    from cudagraph_cli.exec.backend import CpuBackend
    from cudagraph_cli.exec.interpreter import Executor
    from cudagraph_cli.exec.values import HostObject
    import numpy as np
    mod = parse_module(APPEND_VIEW)
    backend = CpuBackend()
    ex = Executor(mod, backend)
    cache = HostObject("cache")
    x1 = np.arange(4, dtype=np.float32).reshape(1, 4)
    x2 = x1 + 10
    y1 = backend.to_numpy(ex.call("main", [backend.from_numpy(x1), cache])).copy()
    y2 = backend.to_numpy(ex.call("main", [backend.from_numpy(x2), cache])).copy()
    # the first row is call 1's x on both calls (append writes after the filled rows)
    assert (y1 == x1 + 1).all() and (y2 == x1 + 1).all()


# Update instead of append: each call's x replaces the cache's contents, and the view reads
# it. Wrong: the update dropped -- the cache stays as the first call left it... nothing wrote
# it at all, so the view reads the cache's prior contents (a term of the object, not x).
UPDATE_VIEW = cache_module('''        c1 = R.call_packed("vm.builtin.attention_kv_cache_update", cache, x, sinfo_args=(R.Object,))
        v = R.call_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([1, 4]), sinfo_args=(R.Tensor((1, 4), "float32"),))
        y = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(v, y)
        return y
''')


def test_k_and_v_reach_the_outputs_and_a_stale_cache_shows():
    good = parse_module(UPDATE_VIEW)
    assert verify(good, good).equal
    # the view reads the cache before this call's update: the previous call's x
    stale = parse_module(UPDATE_VIEW.replace(
        '''        c1 = R.call_packed("vm.builtin.attention_kv_cache_update", cache, x, sinfo_args=(R.Object,))
        v = R.call_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([1, 4]), sinfo_args=(R.Tensor((1, 4), "float32"),))''',
        '''        v = R.call_packed("vm.builtin.attention_kv_cache_view", cache, R.shape([1, 4]), sinfo_args=(R.Tensor((1, 4), "float32"),))
        y0 = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(v, y0)
        c1 = R.call_packed("vm.builtin.attention_kv_cache_update", cache, x, sinfo_args=(R.Object,))''')
        .replace("cls.add_one(v, y)", "cls.add_one(y0, y)"))
    d = verify(good, stale).difference
    assert d is not None and d.kind in ("values", "terms"), d


# A graph that captures the cache object and the update: the replay copies the captured x
# again and never sees the object passed now. Found at the capture even where values agree.
UPDATE_IN_GRAPH = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function(private=True)
    def main_cuda_graph_capture(x: {T4}, cache: R.Object) -> R.Tuple({T4}):
        R.func_attr({{"relax.force_pure": True}})
        c1 = R.call_packed("vm.builtin.attention_kv_cache_update", cache, x, sinfo_args=(R.Object,))
        v = R.call_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([1, 4]), sinfo_args=(R.Tensor((1, 4), "float32"),))
        gv = (v,)
        return gv

    @R.function
    def main(x: {T4}, cache: R.Object) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 2}})
        cls = Module
        gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (x, cache), R.prim_value(0)), sinfo_args=(R.Tuple({T4}),))
        v = gv[0]
        y = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(v, y)
        return y
'''


def test_an_object_captured_in_a_graph_is_a_finding_at_the_capture():
    d = verify(parse_module(UPDATE_VIEW), parse_module(UPDATE_IN_GRAPH)).difference
    assert d is not None
    # the values differ too (the replay reads the captured x), and are reported first;
    # with the values equal the finding is the object: see the next test
    assert d.kind in ("values", "ownership", "terms")


def test_a_replayed_host_logic_call_is_a_finding_even_where_values_agree():
    # The graph updates the cache from a weight-only value (w + 1): every call writes the
    # same values, so no comparison of values or terms can see that the replay skips the
    # builtin. The object captured is the first finding, at the run_or_capture call.
    original = parse_module(cache_module('''        a = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(w, a)
        c1 = R.call_packed("vm.builtin.attention_kv_cache_update", cache, a, sinfo_args=(R.Object,))
        v = R.call_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([1, 4]), sinfo_args=(R.Tensor((1, 4), "float32"),))
        y = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(v, y)
        return y
''').replace(f"def main(x: {T4}, cache: R.Object)", f"def main(x: {T4}, cache: R.Object, w: {T4})"))
    rewritten_text = f'''@I.ir_module
class Module:
{ADD_ONE}
    @R.function(private=True)
    def main_cuda_graph_capture(w: {T4}, cache: R.Object) -> R.Tuple({T4}):
        R.func_attr({{"relax.force_pure": True}})
        cls = Module
        a = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(w, a)
        c1 = R.call_packed("vm.builtin.attention_kv_cache_update", cache, a, sinfo_args=(R.Object,))
        v = R.call_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([1, 4]), sinfo_args=(R.Tensor((1, 4), "float32"),))
        gv = (v,)
        return gv

    @R.function
    def main(x: {T4}, cache: R.Object, w: {T4}) -> {T4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 2}})
        cls = Module
        gv = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.main_cuda_graph_capture, (w, cache), R.prim_value(0)), sinfo_args=(R.Tuple({T4}),))
        v = gv[0]
        y = R.builtin.alloc_tensor(R.shape([1, 4]), "float32", 0)
        cls.add_one(v, y)
        return y
'''
    rewritten = parse_module(rewritten_text)
    d = verify(original, rewritten).difference
    assert d is not None and d.kind == "ownership", d
    assert d.graph_input == "[1]" and "object" in d.message and "parameter 'cache'" in d.message
    line = rewritten_text[:rewritten_text.index("gv = R.call_builtin_with_ctx")].count("\n") + 1
    assert d.loc.line == line
    # without the object (a cache the graph makes for itself each capture), the replayed
    # builtin itself is the finding
    no_object_text = (rewritten_text
                             .replace(", cache: R.Object) -> R.Tuple", ") -> R.Tuple")
                             .replace("cls.add_one(w, a)\n        c1",
                                      "cls.add_one(w, a)\n        cache = R.call_packed(\"vm.builtin.attention_kv_cache_create\", a, R.shape([1, 4]), 0, sinfo_args=(R.Object,))\n        c1")
                             .replace("(w, cache), R.prim_value(0)", "(w,), R.prim_value(0)"))
    d = verify(original, parse_module(no_object_text)).difference
    assert d is not None and d.kind == "ownership", d
    assert "replays 'vm.builtin.attention_kv_cache_" in d.message and "host logic" in d.message
    line = no_object_text[:no_object_text.index("gv = R.call_builtin_with_ctx")].count("\n") + 1
    assert d.graph_input is None and d.loc.line == line


# ---- the segment maps, against a byte-by-byte model ------------------------------------------

from hypothesis import given, settings, strategies as st  # noqa: E402

from cudagraph_cli.exec import terms as T  # noqa: E402

SIZE = 48
ops = st.lists(st.one_of(
    st.tuples(st.just("write"), st.integers(0, SIZE), st.integers(0, SIZE), st.integers(1, 5)),
    st.tuples(st.just("copy"), st.integers(0, SIZE), st.integers(0, SIZE), st.integers(0, SIZE))),
    max_size=25)


@settings(max_examples=300, deadline=None)
@given(ops)
def test_segment_maps_hold_what_a_byte_array_holds(script):
    # The model: one (term, offset) per byte, None for never written. A write puts term t's
    # bytes 0.. at [a, b); a copy moves [a, b) to c (read before written, as a kernel's).
    entries: list = []
    model: list = [None] * SIZE
    for op in script:
        if op[0] == "write":
            _, a, b, t = op
            a, b = min(a, b), max(a, b)
            T.write_segments(entries, a, b, ((b - a, t, 0),) if b > a else ())
            for i in range(a, b):
                model[i] = (t, i - a)
        else:
            _, a, b, c = op
            a, b = min(a, b), max(a, b)
            n = min(b - a, SIZE - c)
            segs = T.read_segments(entries, a, a + n)
            T.write_segments(entries, c, c + n, segs)
            model[c:c + n] = model[a:a + n]
        # disjoint and sorted
        assert all(e[0] < e[1] for e in entries)
        assert all(x[1] <= y[0] for x, y in zip(entries, entries[1:]))
    for a in range(SIZE):
        for b in range(a, SIZE + 1):
            segs = T.read_segments(entries, a, b)
            assert sum(n for n, _, _ in segs) == b - a
            flat = []
            for n, t, off in segs:
                flat += [None if t == T.UNINIT else (t, off + k) for k in range(n)]
            assert flat == model[a:b]
            # canonical: no two adjacent pieces that could be one
            for (n1, t1, o1), (n2, t2, o2) in zip(segs, segs[1:]):
                assert not (t1 == t2 and (t1 == T.UNINIT or o1 + n1 == o2))


# ---- the report: a terms difference on the command line -----------------------------------

import json  # noqa: E402

from conftest import run_cli  # noqa: E402

F4 = 'R.Tensor((4,), "float32")'
COPY_THEN_ADD = '''@I.ir_module
class Module:
    @T.prim_func
    def add_one(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i] + T.float32(1)

    @T.prim_func
    def copy(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            b[i] = a[i]

    @R.function
    def main(x: {F4}) -> {F4}:
        R.func_attr({{"relax.force_pure": True, "num_input": 1}})
        cls = Module
{body}        return y
'''


def test_a_terms_difference_is_reported_in_text_and_json(tmp_path):
    # `copy` computes its meaning (exec/kernels.py), so add_one(copy(x)) has the very bytes of
    # add_one(x); as a function of unknown kernels it is another computation (docs/EXECUTOR.md,
    # assumption 5), and the verdict says where: add_one's argument 0.
    a = tmp_path / "a.relax"
    b = tmp_path / "b.relax"
    a.write_text(COPY_THEN_ADD.format(F4=F4, body='''        y = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(x, y)
'''))
    b.write_text(COPY_THEN_ADD.format(F4=F4, body='''        c = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.copy(x, c)
        y = R.builtin.alloc_tensor(R.shape([4]), "float32", 0)
        cls.add_one(c, y)
'''))
    r = run_cli("verify", str(a), str(b))
    assert r.returncode == 1, r.stderr
    out = r.stdout.decode()
    assert "the bytes agree, but not what they are made of" in out
    # lines 18 and 20 of b.relax: cls.copy(x, c) and cls.add_one(c, y)
    assert ("kernel 'add_one' (line 20:9 of the rewritten) reads argument 0: input 'x' of "
            "'main' call 1 in the original, output 0 of kernel 'copy' (line 18:9 of the "
            "rewritten) in the rewritten") in out
    assert f"{b}:20:9: note: the kernel whose argument differs" in out
    j = run_cli("verify", str(a), str(b), "--format", "json")
    d = json.loads(j.stdout)["difference"]
    assert d["kind"] == "terms" and d["module"] == "rewritten" and d["line"] == 20
    assert d["function"] == "main" and d["call"] == 1 and d["output"] == ""


# ---- a real module: the paged attention moved into a graph ---------------------------------

LLAMA_1B_TVM = ROOT / "samples" / "real" / "mlc_llama_1b.after.relax"


def test_the_paged_attention_moved_into_a_graph_is_found_at_the_capture(blind_bytes):
    # TVM's output for the 1B leaves layer 0's attention (a vm.builtin call on the KV cache
    # object) between graphs 18 and 19 of decode. Moved into graph 18, with the cache passed
    # to the capture function: the cache is an object the caller passes (another call may
    # pass another), and the replay does not run the builtin's host logic (nor append K and V
    # again where the original does). Found at decode's run_or_capture for graph 18.
    text = LLAMA_1B_TVM.read_text()
    call = ('        _198: R.Any = R.call_packed("vm.builtin.attention_kv_cache_attention_with_'
            'fused_qkv", paged_kv_cache, 0, T.float64(0.125), lv48, alloc198)\n')
    inside = ('        gv: R.Tuple(R.Tensor((1, 48, 64), dtype="float16"), R.Tensor((1, 32, 64), '
              'dtype="float16")) = lv48, alloc198\n')
    params = 'rms_norm33: R.Tensor((1, 1, 2048), dtype="float16"), storage4: R.Any) -> '
    args = "(model_layers_0_self_attn_qkv_proj_weight2, alloc196, storage6, rms_norm33, storage4)"
    for piece in (call, inside, params, args):
        assert text.count(piece) == 1, piece
    moved = (text.replace(call, "")
             .replace(inside, call + inside)
             .replace(params, params.replace("storage4: R.Any)",
                                             "storage4: R.Any, paged_kv_cache: R.Any)"))
             .replace(args, args[:-1] + ", paged_kv_cache)"))
    d = verify(parse_module(text), parse_module(moved), calls=2,
               functions=["decode"]).difference
    assert d is not None and d.kind == "ownership", d
    assert d.module == "rewritten" and d.graph_input == "[5]"
    assert "parameter 'paged_kv_cache' of decode_cuda_graph_capture, graph 18" in d.message
    line = moved[:moved.index(args[:-1] + ", paged_kv_cache)")].count("\n") + 1
    assert d.loc.line == line
