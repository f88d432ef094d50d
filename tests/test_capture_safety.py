"""The capture-safety table (correction 8): external functions a CUDA graph cannot replay stay
outside every graph with reason `unsafe-extern`; `--compat tvm` captures them as TVM does; the
reference executor knows that a replay does not run their host work again."""

from __future__ import annotations

import json
import tomllib

import pytest

from conftest import run_cli
from cudagraph_cli.passes import capture_safety
from cudagraph_cli.passes.explain import REASON_CODES
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.passes.pipeline import rewrite
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.reader import parse_module

HEADER = '''# from tvm.script import ir as I
# from tvm.script import relax as R
# from tvm.script import tir as T

@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(private=True, s_tir=True)
    def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.float32(1)

    @T.prim_func(private=True, s_tir=True)
    def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] * T.float32(2)
'''

# One static call `CALL` between two kernels, all on planned memory: a, b, c are static
# storages; x is the input (add_one(x, a) stays outside: a function input). TVM captures
# CALL with scale(b, c) in one graph.
BODY = '''
    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        R.func_attr({"relax.force_pure": True})
        s0: R.Object = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        a: R.Tensor((8,), "float32") = R.memory.alloc_tensor(s0, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        s1: R.Object = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        b: R.Tensor((8,), "float32") = R.memory.alloc_tensor(s1, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        s2: R.Object = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        c: R.Tensor((8,), "float32") = R.memory.alloc_tensor(s2, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        ws_s: R.Object = R.memory.alloc_storage(R.shape([1024]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        ws: R.Tensor((1024,), "uint8") = R.memory.alloc_tensor(ws_s, R.prim_value(0), R.shape([1024]), R.dtype("uint8"))
        _0: R.Tuple = Module.add_one(x, a)
        _1: R.Tuple = CALL
        _2: R.Tuple = Module.scale(b, c)
        out: R.Tensor((8,), "float32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0))
        _3: R.Tuple = Module.add_one(c, out)
        return out
'''
CALL_LINE = HEADER.count("\n") + BODY.split("CALL")[0].count("\n") + 1

# DispatchSortScan's TE extern (topi.gpu.sort_thrust) as TVM 0.27 prints it: the workspace is
# the 5th argument of T.call_packed when the pass gave one.
SORT_PRIM = '''
    @T.prim_func(private=True, s_tir=True)
    def sort_thrust(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.call_packed("tvm.contrib.thrust.sort", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(8), 0, 1, T.float32(0.0), 0), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(8), 0, 1, T.float32(0.0), 0), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(8), 0, 1, T.float32(0.0), 0), T.bool(True)WS)
'''
# ... and its scan (topi's thrust cumsum, as in samples/real/capture_safety/sampler_thrust):
# the workspace is the 4th argument.
SCAN_PRIM = '''
    @T.prim_func(private=True, s_tir=True)
    def cumsum(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.call_packed("tvm.contrib.thrust.sum_scan", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(8), 0, 1, T.float32(0.0), 0), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(8), 0, 1, T.float32(0.0), 0), T.bool(False)WS)
'''
TIR_WS = (", T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(1024), 0, 1, T.uint8(0), "
          "0)")


def module_text(call: str, extra: str = "") -> str:
    text = HEADER + extra + BODY.replace("CALL", call)
    if "relax.run.unique" in call:
        # TVM's relax.run.unique returns a new tensor whose shape the data gives (LegalizeOps'
        # call, as in samples/real/capture_safety/unique_nonzero): it is bound as such, and
        # a packed kernel outside any graph (its argument's shape is not static) reads it.
        text = text.replace("_1: R.Tuple = ", '_1: R.Tensor(dtype="float32", ndim=1) = ')
        text = text.replace("Module.scale(b, c)", "Module.scale(a, c)")  # b: unused here
        text = text.replace("_3: R.Tuple = Module.add_one(c, out)",
                            '_3: R.Tuple = R.call_packed("consume", _1, c, out, '
                            'ty_args=(R.Tuple,))')
    return text


def sort_module(with_workspace: bool) -> str:
    return module_text("Module.sort_thrust(a, b)",
                       SORT_PRIM.replace("WS", TIR_WS if with_workspace else ""))


def scan_module(with_workspace: bool) -> str:
    return module_text("Module.cumsum(a, b)",
                       SCAN_PRIM.replace("WS", TIR_WS if with_workspace else ""))


UNIQUE = ('R.call_packed("relax.run.unique", a, True, False, False, False, '
          'ty_args=(R.Tensor(dtype="float32", ndim=1),))')
THRUST = 'R.call_packed("tvm.contrib.thrust.sort", a, b, b, R.prim_value(1){}, ty_args=(R.Tuple,))'
SCAN = 'R.call_packed("tvm.contrib.thrust.sum_scan", a, b, R.prim_value(0){}, ty_args=(R.Tuple,))'
ALLREDUCE = ('R.call_packed("runtime.disco.cuda_ipc.custom_allreduce", a, R.prim_value(0), b, '
             'ty_args=(R.Tuple,))')
UNKNOWN = 'R.call_packed("my_fused_kernel", a, b, ty_args=(R.Tuple,))'
TO_VDEVICE = 'R.to_vdevice(a, dst_vdevice="llvm:0:global")'


def planned(text: str, options: RewriteOptions | None = None):
    """(the call's LeftOutside cause or None if captured, its Reason or None)."""
    mod = parse_module(text)
    _, report = rewrite(mod, options or RewriteOptions())
    for o in report.plan.outside:
        if o.binding.var.name == "_1":
            reason = next(r for r in report.reasons if r.binding is o.binding)
            return o.cause, reason
    return None, None


def captured(text: str, options: RewriteOptions | None = None) -> bool:
    mod = parse_module(text)
    _, report = rewrite(mod, options or RewriteOptions())
    return any(b.var.name == "_1" for r in report.plan.kept_captures() for b in r.bindings)


# ---- the verdicts ---------------------------------------------------------------------------

def test_never_extern_is_left_outside_and_captured_under_compat_tvm():
    text = module_text(UNIQUE)
    cause, reason = planned(text)
    assert cause == "unsafe-extern"
    assert reason.names == ("relax.run.unique",)
    assert reason.message.startswith("relax.run.unique (never captured: copies its input")
    assert reason.rule["verdict"] == "never" and reason.rule["rule"] == "relax.run.unique"
    assert "python/tvm/relax/op/set.py" in reason.rule["source"]
    assert captured(text, RewriteOptions.tvm_compat())
    # the kernel after it still gets its graph (the unsafe call ends the region before it)
    _, report = rewrite(parse_module(text))
    assert [[b.var.name for b in r.bindings] for r in report.plan.kept_captures()] == [["_2"]]


def test_host_state_extern():
    cause, reason = planned(module_text(ALLREDUCE))
    assert cause == "unsafe-extern" and reason.rule["verdict"] == "host-state"
    assert "barrier_flag" in reason.message


@pytest.mark.parametrize("workspace, safe", [("", False), (", ws", True)])
def test_thrust_scan_needs_its_workspace_argument(workspace, safe):
    text = module_text(SCAN.format(workspace))
    cause, reason = planned(text)
    if safe:
        assert cause is None and captured(text)
    else:
        assert cause == "unsafe-extern" and reason.rule["verdict"] == "workspace"
        assert reason.message.startswith("tvm.contrib.thrust.sum_scan (needs a workspace "
                                         "argument: 4 arguments, the workspace last; this call "
                                         "has 3")


@pytest.mark.parametrize("workspace", ["", ", ws"])
def test_thrust_sort_is_unsafe_even_with_its_workspace(workspace):
    """thrust_sort's thrust::sequence runs without TVM's stream policy (thrust.cu)."""
    cause, reason = planned(module_text(THRUST.format(workspace)))
    assert cause == "unsafe-extern" and reason.rule["verdict"] == "never"
    assert "thrust::sequence without TVM's stream policy" in reason.message


@pytest.mark.parametrize("with_workspace", [False, True])
def test_prim_func_calling_thrust_in_its_body(with_workspace):
    text = scan_module(with_workspace)
    cause, reason = planned(text)
    if with_workspace:
        assert cause is None and captured(text)
    else:
        assert cause == "unsafe-extern"
        assert reason.names == ("tvm.contrib.thrust.sum_scan",)
        assert reason.message.startswith("tvm.contrib.thrust.sum_scan, called in PrimFunc "
                                         "'cumsum' (needs a workspace argument")
        assert captured(text, RewriteOptions.tvm_compat())
    # the sort kernel: never, with its workspace or without
    cause, reason = planned(sort_module(with_workspace))
    assert cause == "unsafe-extern" and reason.message.startswith(
        "tvm.contrib.thrust.sort, called in PrimFunc 'sort_thrust' (never captured: ")


VDEVICES = ('    I.module_global_infos({"vdevice": [I.vdevice({"keys": ["cuda", "gpu"], "kind": '
            '"cuda", "tag": ""}, 0, "global"), I.vdevice({"keys": ["cpu"], "kind": "llvm", '
            '"tag": ""}, 0, "global")]})\n')


def test_to_vdevice_operator():
    text = module_text(TO_VDEVICE, VDEVICES).replace(
        "_1: R.Tuple", '_1: R.Tensor((8,), "float32", vdevice="llvm:0:global")')
    cause, reason = planned(text)
    assert cause == "unsafe-extern" and reason.names == ("relax.to_vdevice",)
    assert "vm.builtin.to_device" in reason.message
    assert captured(text, RewriteOptions.tvm_compat())


def test_unknown_extern_default_strict_and_trusted():
    text = module_text(UNKNOWN)
    assert captured(text)  # the default: as TVM (docs/REWRITE.md measures why)
    cause, reason = planned(text, RewriteOptions(strict_extern=True))
    assert cause == "unsafe-extern"
    assert reason.rule == {"symbol": "my_fused_kernel", "verdict": "unknown", "rule": None,
                           "source": None}
    assert "unknown external function" in reason.message
    assert captured(text, RewriteOptions(strict_extern=True, trust_extern=("my_*",)))
    # --trust-extern overrides the table too
    assert captured(module_text(UNIQUE), RewriteOptions(trust_extern=("relax.run.*",)))


def test_strict_extern_ignores_device_functions_in_kernel_bodies():
    """T.call_extern in a kernel's body names a device function (`__expf`), not a packed
    function of the host: --strict-extern does not ask about it."""
    prim = '''
    @T.prim_func(private=True, s_tir=True)
    def fast_exp(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.call_extern("float32", "__expf", A[i])
'''
    text = module_text("Module.fast_exp(a, b)", prim)
    assert captured(text, RewriteOptions(strict_extern=True))
    calls = capture_safety.body_calls(parse_module(text).function("fast_exp").body)
    assert [(c.symbol, c.packed, c.arguments) for c in calls] == [("__expf", False, ("A[i]",))]


# ---- the reports ----------------------------------------------------------------------------

def test_explain_and_json_report_name_the_symbol_and_rule(tmp_path):
    src = tmp_path / "m.relax"
    src.write_text(module_text(SCAN.format("")))
    r = run_cli("rewrite", str(src), "--explain", "-o", str(tmp_path / "out.relax"))
    assert r.returncode == 0, r.stderr.decode()
    lines = r.stderr.decode().splitlines()
    assert any(ln.startswith(f"{src}:{CALL_LINE}:9: main: not captured [unsafe-extern]: "
                             "tvm.contrib.thrust.sum_scan (needs a workspace argument")
               for ln in lines)
    assert any("left outside: " in ln and "unsafe-extern: 1 (tvm.contrib.thrust.sum_scan)" in ln
               for ln in lines)
    r = run_cli("diff", str(src), "--format", "json")
    assert r.returncode == 0, r.stderr.decode()
    f = json.loads(r.stdout)["functions"][0]
    [counted] = [x for x in f["reasons"] if x["code"] == "unsafe-extern"]
    assert (counted["count"], counted["names"]) == (1, ["tvm.contrib.thrust.sum_scan"])
    [b] = [b for b in f["bindings"] if b["reason"] and b["reason"]["code"] == "unsafe-extern"]
    assert b["line"] == CALL_LINE
    assert b["reason"]["rule"]["verdict"] == "workspace"
    assert b["reason"]["rule"]["rule"] == "tvm.contrib.thrust.sum_scan"
    r = run_cli("diff", str(src))
    assert r.returncode == 0 and "unsafe-extern" in r.stdout.decode()


def test_flags_on_the_command_line(tmp_path):
    src = tmp_path / "m.relax"
    src.write_text(module_text(UNKNOWN))
    r = run_cli("rewrite", str(src), "--strict-extern", "--explain", "-o", "/dev/null")
    assert r.returncode == 0 and "[unsafe-extern]: my_fused_kernel (unknown" in r.stderr.decode()
    r = run_cli("rewrite", str(src), "--strict-extern", "--trust-extern", "my_*", "--explain",
                "-o", "/dev/null")
    assert r.returncode == 0 and "unsafe-extern" not in r.stderr.decode()
    r = run_cli("diff", str(src), "--strict-extern", "--format", "json")
    assert r.returncode == 0
    assert "unsafe-extern" in {x["code"] for x in json.loads(r.stdout)["functions"][0]["reasons"]}
    # they act on correction 8, which --compat tvm turns off: a usage error, not a no-op
    r = run_cli("rewrite", str(src), "--compat", "tvm", "--strict-extern", "-o", "/dev/null")
    assert r.returncode == 2 and "--compat tvm" in r.stderr.decode()
    assert "Traceback" not in r.stderr.decode()


def test_reason_code_documented_and_known():
    assert "unsafe-extern" in REASON_CODES
    assert not RewriteOptions.tvm_compat().capture_safety
    assert RewriteOptions().capture_safety


# ---- against TVM's own pass -----------------------------------------------------------------

@pytest.mark.tvm
@pytest.mark.parametrize("text", [module_text(UNIQUE), sort_module(False)],
                         ids=["relax.run.unique", "prim-func-thrust"])
def test_compat_tvm_output_is_tvms(tvm, text):
    from record_case import tvm_rewrite
    from tvm_oracle import tvm_equal, tvm_parse

    theirs = tvm_rewrite(text)
    ours, _ = rewrite(parse_module(text), RewriteOptions.tvm_compat())
    assert tvm_equal(theirs, tvm_parse(print_module(ours, "current"))) is None
    # cgraph's default leaves the call outside, so it is not TVM's
    ours, _ = rewrite(parse_module(text))
    assert tvm_equal(theirs, tvm_parse(print_module(ours, "current"))) is not None


# ---- verify: a replay does not run host work again ------------------------------------------

@pytest.mark.parametrize("call", [UNIQUE, ALLREDUCE], ids=["host-result", "counter"])
def test_verify_finds_a_captured_host_call(tmp_path, call):
    src = tmp_path / "m.relax"
    src.write_text(module_text(call))
    tvm_out, cg_out = tmp_path / "tvm.relax", tmp_path / "cg.relax"
    assert run_cli("rewrite", str(src), "--compat", "tvm", "-o", str(tvm_out)).returncode == 0
    assert run_cli("rewrite", str(src), "-o", str(cg_out)).returncode == 0
    r = run_cli("verify", str(src), str(tvm_out))
    out = r.stdout.decode()
    assert r.returncode == 1, out + r.stderr.decode()
    symbol = call.split('"')[1]
    line = next(i for i, ln in enumerate(tvm_out.read_text().splitlines(), 1) if symbol in ln)
    assert f"{tvm_out}:{line}:" in out and f"a graph replays '{symbol}'" in out
    r = run_cli("verify", str(src), str(tvm_out), "--format", "json")
    d = json.loads(r.stdout)["difference"]
    assert d["replayed_host_call"] == {"symbol": symbol, "module": "rewritten",
                                       "file": str(tvm_out), "line": line, "column": 9}
    r = run_cli("verify", str(src), str(cg_out))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()


# topi's random externs (python/tvm/contrib/random.py: uniform) as a PrimFunc calling the
# host-side Mersenne Twister.
RANDOM_PRIM = '''
    @T.prim_func(private=True, s_tir=True)
    def uniform(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.call_packed("tvm.contrib.random.uniform", T.float32(0.0), T.float32(1.0), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(8), 0, 1, T.float32(0.0), 0))
'''


def test_rewrite_verify_names_the_call_in_the_original(tmp_path):
    """`rewrite --verify` checks a rewrite in memory, with no lines of its own: the note
    points at the call in IN (here a PrimFunc whose body calls the RNG)."""
    src = tmp_path / "m.relax"
    src.write_text(module_text("Module.uniform(a, b)", RANDOM_PRIM))
    line = next(i for i, ln in enumerate(src.read_text().splitlines(), 1)
                if "= Module.uniform(a, b)" in ln)
    r = run_cli("rewrite", str(src), "--compat", "tvm", "--verify", "-o", "/dev/null")
    assert r.returncode == 1
    assert f"{src}:{line}:9: note: a graph replays 'tvm.contrib.random.uniform'" in \
        r.stdout.decode() + r.stderr.decode()
    assert run_cli("rewrite", str(src), "--verify", "-o", "/dev/null").returncode == 0


def test_executor_models_host_work_only_for_the_table():
    """A kernel not in the table replays as it ran: the same module with an unknown symbol
    verifies equal when TVM captures it."""
    from cudagraph_cli.exec.verify import verify

    mod = parse_module(module_text(UNKNOWN))
    out, _ = rewrite(mod, RewriteOptions.tvm_compat())
    assert verify(mod, out).equal


# ---- the table itself -----------------------------------------------------------------------

def test_every_rule_has_a_reason_and_a_source():
    with open(capture_safety.TABLE_PATH, "rb") as fh:
        raw = tomllib.load(fh)["rule"]
    assert len(raw) == len(capture_safety.load_table()) >= 20
    for r in raw:
        name = r.get("match", r.get("op"))
        assert r["verdict"] in capture_safety.VERDICTS, name
        assert len(r.get("reason", "")) > 20, name
        # repository, path and the function it was read in
        assert r.get("source", "").startswith("apache/tvm "), name
        assert "/" in r["source"].split()[1] and ":" in r["source"], name


def test_table_rules_are_checked(tmp_path):
    bad = tmp_path / "t.toml"
    bad.write_text('[[rule]]\nmatch = "x"\nverdict = "never"\nhost_effect = "counter"\n'
                   'reason = "r"\n')
    with pytest.raises(capture_safety.TableError, match="no source"):
        capture_safety.load_table(str(bad))



@pytest.mark.tvm
def test_tvm_pass_takes_the_options(tvm):
    """cudagraph_cli.tvm.RewriteCUDAGraph(strict_extern=..., trust_extern=...)."""
    from cudagraph_cli.tvm import RewriteCUDAGraph
    from tvm_oracle import tvm_parse

    def capture_function_calls(**options) -> bool:
        with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
            out = RewriteCUDAGraph(**options)(tvm_parse(module_text(UNKNOWN)))
        return any("my_fused_kernel" in out[gv].script() for gv in out.get_global_vars()
                   if "cuda_graph_capture" in gv.name_hint)

    assert capture_function_calls()
    assert not capture_function_calls(strict_extern=True)
    assert capture_function_calls(strict_extern=True, trust_extern=["my_*"])


@pytest.mark.parametrize("symbol, verdict", [
    ("runtime.disco.cuda_ipc.custom_allreduce", "host-state"),  # before runtime.disco.*
    ("runtime.disco.nccl.sync_worker", "never"),
    ("runtime.disco.allreduce", "conditional"),
    ("tvm.contrib.cudnn.conv.forward_find_algo", "never"),  # before tvm.contrib.cudnn.*
    ("tvm.contrib.cudnn.conv2d.forward", "conditional"),
    ("fused_relax_nn_attention_cutlass1", "workspace"),  # before *_cutlass*
    ("fused_relax_matmul_relax_add_relax_add_cutlass", "conditional"),
    ("fused_relax_matmul_cublas", "conditional"),
    ("tvm.contrib.random.normal", "never"),
])
def test_first_matching_rule_decides(symbol, verdict):
    assert capture_safety.rule_for(symbol).verdict == verdict


# ---- TVM 0.27's own dumps (samples/real/capture_safety, bench/corpus/build_capture_safety.py) ----

def real(name: str, which: str) -> str:
    from conftest import REAL_SAMPLES

    return str(REAL_SAMPLES / "capture_safety" / f"{name}.{which}.relax")


@pytest.mark.parametrize("name, unsafe", [
    ("rng", ["tvm.contrib.random.uniform", "runtime.contrib.curand.RandomFill"]),
    ("unique_nonzero", ["relax.run.unique", "relax.run.nonzero"]),
    ("sampler_thrust_no_workspace", ["tvm.contrib.thrust.sort", "tvm.contrib.thrust.sort",
                                     "tvm.contrib.thrust.sum_scan"]),
    # DispatchSortScan gave every thrust call its workspace: the scan is captured, not the sorts
    ("sampler_thrust", ["tvm.contrib.thrust.sort", "tvm.contrib.thrust.sort"]),
    ("cublas_byoc", []),  # conditional, captured by default
    ("cublas_te_extern", []),
    ("unknown_extern", []),
])
def test_real_modules_verdicts(name, unsafe):
    mod = parse_module(open(real(name, "before")).read())
    _, report = rewrite(mod)
    assert [r.names[0] for r in report.reasons if r.code == "unsafe-extern"] == unsafe


def test_real_unknown_extern_under_strict():
    mod = parse_module(open(real("unknown_extern", "before")).read())
    _, report = rewrite(mod, RewriteOptions(strict_extern=True))
    assert [(r.names[0], r.rule["verdict"]) for r in report.reasons
            if r.code == "unsafe-extern"] == [("my_company.fused_op", "unknown")]


@pytest.mark.parametrize("name, kind, symbol", [
    ("rng", "values", "tvm.contrib.random.uniform"),
    ("sampler_thrust", "values", "tvm.contrib.thrust.sort"),
    ("unique_nonzero", "ownership", None)])
def test_real_tvm_output_differs_and_cgraphs_verifies(tmp_path, name, kind, symbol):
    """TVM's pass captured the RNG (its numbers frozen by the graph: the values differ from the
    second call, at the call) and relax.run.unique (its result, computed on the host at
    capture, is the graph's memory, returned by every call)."""
    r = run_cli("verify", real(name, "before"), real(name, "after"), "--format", "json")
    assert r.returncode == 1, r.stderr.decode()
    d = json.loads(r.stdout)["difference"]
    assert d["kind"] == kind
    if symbol is not None:
        assert d["replayed_host_call"]["symbol"] == symbol
    out = tmp_path / "cg.relax"
    assert run_cli("rewrite", real(name, "before"), "-o", str(out)).returncode == 0
    r = run_cli("verify", real(name, "before"), str(out))
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
