"""Virtual devices: `I.module_global_infos({"vdevice": [I.vdevice(...), ...]})`, `R.Tensor(...,
vdevice="cuda:0:global")` and `R.to_vdevice(x, dst_vdevice=...)` read, kept, printed, compared,
rewritten and run (docs/FORMAT.md, "Virtual devices").

The inputs:
- tests/cases/vdevice_copies.relax, written by hand (its expected rewrite, recorded from TVM,
  is checked by test_cases.py);
- tests/cases/vdevice/to_vdevice.before.relax and .after.relax: TVM 0.27's dump right before
  and after its RewriteCUDAGraph of a module copying a tensor to the host and back between
  matmuls, built by bench/corpus/build_capture_safety.py on the `unsafemods` branch (the same
  files as samples/real/capture_safety/to_vdevice.*).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from cli_runner import cgraph
from cudagraph_cli import ir
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.exec.backend import CpuBackend, UninitializedRead
from cudagraph_cli.ir.wellformed import check_module
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.reader import parse_module
from tvm_oracle import tvm_equal, tvm_parse, tvm_parse_with_constants, without_alloc_ty_args

CASES = Path(__file__).resolve().parent / "cases"
CASE = CASES / "vdevice_copies.relax"
BEFORE = CASES / "vdevice" / "to_vdevice.before.relax"
AFTER = CASES / "vdevice" / "to_vdevice.after.relax"


def binding(module: ir.Module, function: str, name: str):
    for b in ir.nested_bindings(module.function(function).blocks):
        if b.var.name == name:
            return b
    raise KeyError(name)


# ---- reading and keeping -------------------------------------------------------------------

def test_global_infos_are_kept():
    m = parse_module(CASE.read_text())
    (key, devices), = m.global_infos
    assert key == "vdevice" and [d.kind for d in devices] == ["cuda", "llvm"]
    assert [(d.vdevice_id, d.memory_scope) for d in devices] == [(0, "global"), (0, "global")]
    # the target dict's keys in order, as TVM prints a target
    assert [k for k, _ in devices[0].target[1]] == [
        "arch", "keys", "kind", "max_num_threads", "tag", "thread_warp_size"]
    assert ir.vdevice_names(m.global_infos) == ["cuda:0:global", "llvm:0:global"]


def test_struct_info_and_to_vdevice_keep_their_vdevice():
    m = parse_module(CASE.read_text())
    main_ = m.function("main")
    assert [p.sinfo.vdevice for p in main_.params] == ["cuda:0:global"] * 3
    assert main_.ret_sinfo.vdevice == "cuda:0:global"
    h = binding(m, "main", "h")
    assert h.value.op == ir.Op("relax.to_vdevice")
    assert dict(h.value.attrs)["dst_vdevice"] == ir.Literal("llvm:0:global")
    # unannotated: TVM's InferStructInfoToVDevice, the input's tensor on the new device
    assert not h.var.annotated and h.var.sinfo == ir.TensorSInfo((ir.IntImm(4),), "float32", 1,
                                                                  "llvm:0:global")
    # "cuda" alone is TVM's lookup of ("cuda", 0), printed with the entry's name
    g = binding(m, "main", "g")
    assert dict(g.value.attrs)["dst_vdevice"] == ir.Literal("cuda:0:global")


def test_a_name_is_looked_up_as_tvm_does():
    """`kind:i` is the i-th entry of that kind (not the vdevice_id), `vdevice:i` the i-th of
    all; the scope written is ignored and the entry's own printed (TVM 0.27 printed each of
    these lines so: tests below compare with TVM itself)."""
    text = TWO_LLVM.replace("SIG", 'x: R.Tensor(dtype="float32", ndim=2, vdevice="llvm:1"), '
                                   'y: R.Tensor("float32", vdevice="vdevice:0"), '
                                   'z: R.Tensor((2, 3), "float32", "llvm:0:ignored")')
    f = parse_module(text).function("main")
    assert [p.sinfo.vdevice for p in f.params] == ["llvm:1:shared", "llvm:0:global",
                                                   "llvm:0:global"]


INFOS = '{"vdevice": [I.vdevice("llvm", 0, "global"), I.vdevice("llvm", 3, "shared")]}'
TWO_LLVM = f'''@I.ir_module
class Module:
    I.module_global_infos({INFOS})
    @R.function
    def main(SIG) -> R.Tensor(dtype="float32", ndim=2, vdevice="llvm:1"):
        return x
'''


EVERY_PLACE = '''@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice({"kind": "cuda", "keys": ["cuda", "gpu"]}, 0, "global"), I.vdevice({"kind": "llvm", "keys": ["cpu"]}, 0, "global")]})
    @T.prim_func(private=True, s_tir=True)
    def add_one(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            with T.sblock("b"):
                vi = T.axis.spatial(T.int64(4), i)
                b[vi] = a[vi] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32", vdevice="cuda:0:global"), y: R.Any) -> R.Tensor((4,), dtype="float32", vdevice="cuda:0:global"):
        cls = Module
        z = R.call_tir(cls.add_one, (x,), out_ty=R.Tensor((4,), dtype="float32", vdevice="cuda:0:global"))
        w = R.match_cast(y, R.Tensor((4,), dtype="float32", vdevice="llvm:0:global"))
        return z
'''


def test_out_ty_and_match_cast_keep_their_vdevice(tmp_path):
    m = parse_module(EVERY_PLACE)
    assert binding(m, "main", "z").value.sinfo_args[0].vdevice == "cuda:0:global"
    assert binding(m, "main", "w").sinfo.vdevice == "llvm:0:global"
    text = print_module(m)
    for line in EVERY_PLACE.splitlines()[10:]:
        assert line in text.splitlines(), line
    path, changed = tmp_path / "a.relax", tmp_path / "b.relax"
    path.write_text(EVERY_PLACE)
    changed.write_text(EVERY_PLACE.replace('(x,), out_ty=R.Tensor((4,), dtype="float32", '
                                           'vdevice="cuda:0:global")', '(x,), out_ty=R.Tensor('
                                           '(4,), dtype="float32", vdevice="llvm:0:global")'))
    code, output, _ = cgraph("check", changed, path)
    assert code == 1 and "binding 'z'" in output and "b.relax:14:9: note: got" in output


def test_tvm_reads_every_place_as_written(tvm):
    assert tvm_equal(tvm_parse(print_module(parse_module(EVERY_PLACE))),
                     tvm_parse(EVERY_PLACE)) is None


# ---- printing ------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [CASE, BEFORE, AFTER], ids=["case", "before", "after"])
def test_fmt_is_stable_and_equal(path, tmp_path):
    out, again = tmp_path / "out.relax", tmp_path / "again.relax"
    assert cgraph("fmt", path, "-o", out).exit_code == 0
    assert cgraph("fmt", out, "-o", again).exit_code == 0
    assert again.read_text() == out.read_text()
    r = cgraph("check", out, path)
    assert r.exit_code == 0, r


@pytest.mark.parametrize("path", [BEFORE, AFTER], ids=["before", "after"])
def test_printed_as_tvm_prints(path):
    """The lines that carry vdevices, byte for byte as TVM printed them: the global infos,
    the signatures (capture functions' too), the copies, and the capture call's ty_args. (Other
    lines differ by cgraph's canonical spelling of literal sugar, `R.prim_value(0)`.)"""
    ours = print_module(parse_module(path.read_text())).splitlines()
    tvm_lines = path.read_text().splitlines()
    carrying = [ln for ln in ours if "I.module_global_infos(" in ln or " def " in ln and
                "R.Tensor" in ln or "R.to_vdevice(" in ln]
    assert len(carrying) >= (4 if path is BEFORE else 5)
    for line in carrying:
        assert line in tvm_lines, line
    ty_args = [ln[ln.index("ty_args="):] for ln in ours if "run_or_capture" in ln]
    assert len(ty_args) == (0 if path is BEFORE else 1)
    for tail in ty_args:
        assert any(ln.endswith(tail) for ln in tvm_lines), tail


# ---- equality ------------------------------------------------------------------------------

def test_check_reports_a_different_vdevice(tmp_path):
    text = BEFORE.read_text()
    old = 'h: R.Tensor((16, 16), dtype="float32", vdevice="llvm:0:global")'
    assert text.count(old) == 1
    changed = tmp_path / "changed.relax"
    changed.write_text(text.replace(old, old.replace("llvm:0:global", "cuda:0:global")))
    line = text[:text.index(old)].count("\n") + 1
    code, output, _ = cgraph("check", changed, BEFORE)
    assert code == 1, output
    assert "binding 'h': struct info" in output and 'vdevice="cuda:0:global"' in output
    assert f"changed.relax:{line}:9: note: got" in output
    assert f"to_vdevice.before.relax:{line}:9: note: expected" in output


def test_check_reports_a_different_dst_vdevice(tmp_path):
    # dst_vdevice only (the annotation kept): the call's attribute differs
    text = BEFORE.read_text()
    old = 'R.to_vdevice(h, dst_vdevice="cuda:0:global")'
    changed = tmp_path / "changed.relax"
    changed.write_text(text.replace(old, 'R.to_vdevice(h, dst_vdevice="llvm:0:global")'))
    code, output, _ = cgraph("check", changed, BEFORE)
    assert code == 1 and "binding 'g'" in output, output


def test_check_reports_different_global_infos(tmp_path):
    text = BEFORE.read_text()
    changed = tmp_path / "changed.relax"
    changed.write_text(text.replace('"thread_warp_size": 32}, 0, "global")',
                                    '"thread_warp_size": 32}, 0, "shared")', 1))
    code, output, _ = cgraph("check", changed, BEFORE)
    assert code == 1, output
    assert "module global infos differ: 'vdevice' entry 0:" in output
    assert "changed.relax:17:5: note: got" in output


# ---- bad input -----------------------------------------------------------------------------

@pytest.mark.parametrize("name, message", [
    # TVM 0.27 warns "The annotated device was not found", reads no vdevice, and then crashes
    # printing the module: cgraph says where
    ("cuda:1:global", "names no entry of the module's global infos"),
    ("rocm:0", "names no entry of the module's global infos"),
    # TVM's own errors, its words
    ("cuda:2", "The target VDevice in the GlobalInfos was not found."),
    ("cuda:-1", "The target VDevice in the GlobalInfos was not found."),
    ("cuda:x", "invalid literal for int() with base 10: 'x'"),
])
def test_a_bad_vdevice_name_is_a_located_error(name, message, tmp_path):
    text = CASE.read_text().replace('dst_vdevice="cuda")', f'dst_vdevice="{name}")')
    path = tmp_path / "bad.relax"
    path.write_text(text)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if f'"{name}"' in ln)
    col = text.splitlines()[line - 1].index(f'"{name}"') + 1
    code, out, output = cgraph("fmt", path)
    assert code == 2, output
    assert f"bad.relax:{line}:{col}: error: " in output and message in output, output
    assert "Traceback" not in out + output


@pytest.mark.parametrize("name, message", [
    ("cuda:2", "The target VDevice in the GlobalInfos was not found."),
    ("cuda:-1", "The target VDevice in the GlobalInfos was not found."),
    ("cuda:x", "invalid literal for int() with base 10: 'x'"),
])
def test_tvm_rejects_those_names_in_those_words(name, message, tvm):
    with pytest.raises(Exception) as e:
        tvm_parse(CASE.read_text().replace('dst_vdevice="cuda")', f'dst_vdevice="{name}")'))
    assert message in str(e.value)


NO_INFOS = TWO_LLVM.replace(f"    I.module_global_infos({INFOS})\n", "").replace(
    "SIG", 'x: R.Tensor((2,), "float32", vdevice="llvm:0:global")')


def test_a_vdevice_without_global_infos_is_tvms_error(tmp_path):
    path = tmp_path / "bad.relax"
    path.write_text(NO_INFOS)
    code, _, output = cgraph("fmt", path)
    assert code == 2 and "bad.relax:4:" in output
    assert "The GlobalInfos in the IRModule is not defined." in output


def test_tvm_rejects_a_vdevice_without_global_infos_so(tvm):
    with pytest.raises(Exception, match="The GlobalInfos in the IRModule is not defined."):
        tvm_parse(NO_INFOS)


@pytest.mark.parametrize("infos, message", [
    ('{"dummy": []}', "cgraph reads only \"vdevice\""),
    ('{"vdevice": [I.vdevice({"arch": "sm_80"}, 0, "global")]}', "cannot tell the target's kind"),
    ('{"vdevice": [3]}', "expected I.vdevice("),
])
def test_bad_global_infos_are_located_errors(infos, message, tmp_path):
    path = tmp_path / "bad.relax"
    path.write_text(TWO_LLVM.replace(INFOS, infos)
                    .replace("SIG", "x: R.Tensor((2,), \"float32\")"))
    code, _, output = cgraph("fmt", path)
    assert code == 2 and "bad.relax:3:" in output and message in output, output


def test_well_formedness_holds_vdevices_to_the_module():
    """A module the passes or the API make with a vdevice its global infos lack."""
    m = parse_module(CASE.read_text())
    check_module(m)
    with pytest.raises(SourceError, match="vdevice 'cuda:0:global' is not one of the module's"):
        check_module(ir.replace(m, global_infos=()))


# ---- rewrite -------------------------------------------------------------------------------

def test_compat_rewrite_of_tvms_dump_is_tvms_output(tmp_path):
    out = tmp_path / "out.relax"
    code, output, err = cgraph("rewrite", "--compat", "tvm", str(BEFORE), "-o", str(out))
    assert code == 0, err
    code, output, err = cgraph("check", str(out), str(AFTER))
    assert code == 0, err


def test_default_rewrite_runs_and_keeps_the_vdevices(tmp_path):
    out = tmp_path / "out.relax"
    code, output, err = cgraph("rewrite", str(BEFORE), "-o", str(out))
    assert code == 0, err
    rewritten = parse_module(out.read_text())
    assert rewritten.global_infos == parse_module(BEFORE.read_text()).global_infos
    capture = rewritten.function("main_cuda_graph_capture")
    assert capture.params[1].sinfo.vdevice == "cuda:0:global"
    # the copies stay in main (TVM's choice: the tensor copied to the host is unplanned)
    text = out.read_text()
    assert text.count("R.to_vdevice(") == 2
    assert all("R.to_vdevice(" not in ln for ln in
               text.split("def main_cuda_graph_capture")[1].split("@R.function")[0].splitlines())


# ---- running -------------------------------------------------------------------------------

def test_verify_before_and_tvms_after():
    code, output, err = cgraph("verify", str(BEFORE), str(AFTER))
    assert code == 0 and output.startswith("equal:"), err


def test_verify_the_case_whose_capture_copies():
    """TVM lifts the copies of vdevice_copies (their input is static): the graph holds them."""
    code, output, err = cgraph("verify", str(CASE), str(CASES / "vdevice_copies.expected.relax"))
    assert code == 0 and "1 graph capture(s), 3 replay(s)" in output, err


def test_run_on_cpu_gives_one_output_before_and_after():
    outputs = []
    for path in (BEFORE, AFTER):
        code, output, err = cgraph("run", str(path), "--device", "cpu", "--calls", "2")
        assert code == 0, err
        outputs.append(re.findall(r"crc32 \w+", output))
    assert len(outputs[0]) == 2 and outputs[0] == outputs[1]


def test_copy_is_a_copy_of_the_bytes():
    b = CpuBackend(track_init=True)
    src = b.from_numpy(np.arange(6, dtype=np.int32).reshape(2, 3))
    dst = b.copy(src)
    assert dst.storage is not src.storage and dst.shape == (2, 3) and dst.dtype == "int32"
    assert b.to_numpy(dst).tolist() == [[0, 1, 2], [3, 4, 5]]
    src.array[...] = 7  # a later write to the source leaves the copy as it was
    assert b.to_numpy(dst).tolist() == [[0, 1, 2], [3, 4, 5]]
    assert b.launch_count == 0  # a copy, not a kernel launch


def test_a_captured_copy_copies_again_on_replay():
    b = CpuBackend()
    src = b.from_numpy(np.zeros(4, dtype=np.float32))
    b.begin_capture()
    dst = b.copy(src)
    graph = b.end_capture()
    src.array[...] = 5.0
    assert b.to_numpy(dst).tolist() == [0.0] * 4
    b.replay(graph)
    assert b.to_numpy(dst).tolist() == [5.0] * 4


def test_copying_unwritten_memory_is_an_uninitialized_read():
    b = CpuBackend(track_init=True)
    with pytest.raises(UninitializedRead, match="R.to_vdevice copies a tensor before"):
        b.copy(b.alloc_tensor((4,), "float32"))


# ---- TVM reads what cgraph prints ----------------------------------------------------------

@pytest.mark.parametrize("path", [CASE, BEFORE, AFTER], ids=["case", "before", "after"])
def test_tvm_reads_cgraphs_printing_as_the_same_module(path, tvm):
    ours = print_module(parse_module(path.read_text()))
    # TVM's reader rejects TVM's own ty_args on R.builtin.alloc_tensor (tvm_oracle.py)
    reference = tvm_parse_with_constants(without_alloc_ty_args(path.read_text()), constants={},
                                         check_well_formed=False)
    read = tvm_parse_with_constants(ours, constants={})
    assert tvm_equal(read, reference) is None


def test_tvm_prints_the_names_cgraph_prints(tvm):
    text = TWO_LLVM.replace("SIG", 'x: R.Tensor(dtype="float32", ndim=2, vdevice="llvm:1"), '
                                   'y: R.Tensor("float32", vdevice="vdevice:0"), '
                                   'z: R.Tensor((2, 3), "float32", "llvm:0:ignored")')
    tvm_def = next(ln for ln in tvm_parse(text).script().splitlines() if " def main(" in ln)
    ours = next(ln for ln in print_module(parse_module(text)).splitlines() if " def main(" in ln)
    assert re.findall(r'vdevice="[^"]*"', ours) == re.findall(r'vdevice="[^"]*"', tvm_def)


def test_cgraph_as_tvms_pass_gives_tvms_result(tvm):
    """cudagraph_cli.tvm.RewriteCUDAGraph (through text, global infos included) on TVM's reading
    of the before file: TVM's own pass's result, and the after file."""
    from tvm import relax

    from cudagraph_cli.tvm import RewriteCUDAGraph

    def reading(path):
        return tvm_parse_with_constants(without_alloc_ty_args(path.read_text()), constants={},
                                        check_well_formed=False)

    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        ours = RewriteCUDAGraph()(reading(BEFORE))
        theirs = relax.transform.RewriteCUDAGraph()(reading(BEFORE))
    assert tvm_equal(ours, theirs) is None
    assert tvm_equal(ours, reading(AFTER)) is None


@pytest.mark.parametrize("path, rewritten", [(BEFORE, AFTER), (CASE, None)],
                         ids=["dump_with_tvms_after", "case_with_cgraphs_rewrite"])
def test_run_on_the_simulated_gpu_equals_the_reference(path, rewritten):
    """`cgraph run --device N`'s path without a GPU (tests/helpers/host_driver.py): the copies are
    device-to-device copies on the run's stream, and in the case's graph (TVM's pass and
    cgraph's lift its copies) memcpy nodes; eager and graph runs compute the reference's
    bytes."""
    from host_driver import HostDriver, gxx

    from cudagraph_cli.cuda.gpu_run import RunOptions, run_on_gpu

    if gxx() is None:
        pytest.skip("g++ is needed to run kernels.cu on the host")
    mod = parse_module(path.read_text())
    given = parse_module(rewritten.read_text()) if rewritten else None
    r = run_on_gpu(mod, path.name, RunOptions(calls=3, warmup=1, iters=2),
                   open_device=HostDriver, rewritten=given)
    assert r.ok, (r.difference_between, r.difference)
    assert r.compared == "reference (cpu) = eager (GPU) = graph (GPU)"
