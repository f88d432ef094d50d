"""samples/real/capture_safety: TVM 0.27's dumps, right before and after its RewriteCUDAGraph, of
modules whose static runs call external functions that break under CUDA-graph capture or replay
(bench/corpus/build_capture_safety.py, `make corpus`).

Here: cgraph reads every file; `cgraph rewrite --compat tvm` of each before file is what TVM's
pass made of it (`cgraph check` against the after file), and TVM's pass on TVM's reading of the
before file gives the after file; and which of the unsafe calls TVM's pass put inside a capture
function, counted in the text of the after files against a table written by hand from reading
them (EXPECTED). docs/REWRITE.md, "Capture safety: real modules", has the same table with the
reason for each row.
"""

from __future__ import annotations

import re

import pytest

from cli_runner import cgraph
from conftest import REAL_SAMPLES
from tvm_oracle import tvm_equal, tvm_parse_with_constants, without_alloc_ty_args

FOLDER = REAL_SAMPLES / "capture_safety"
NAMES = ["cublas_byoc", "cublas_te_extern", "rng", "sampler_thrust",
         "sampler_thrust_no_workspace", "sampler_tir", "to_vdevice", "unique_nonzero",
         "unknown_extern"]

# Read by hand in each .after.relax: for each unsafe external call of the module, how many call
# sites TVM's pass put inside a capture function (a function named in a
# vm.builtin.cuda_graph.run_or_capture call), and how many it left in the function that runs
# eagerly. A call site is an `R.call_packed("name", ...)` binding, a PrimFunc call whose body
# has `T.call_packed("name", ...)` (the te.extern kernels: thrust, cuBLAS), or an `R.to_vdevice`.
# TVM's own `vm.builtin.*` functions are not counted: the pass never captures them.
EXPECTED = {
    "unique_nonzero": {"relax.run.unique": (1, 0), "relax.run.nonzero": (1, 0)},
    # no thrust in the wheel: TIR sort and scan, no external call at all
    "sampler_tir": {},
    "sampler_thrust": {"tvm.contrib.thrust.sort": (2, 0), "tvm.contrib.thrust.sum_scan": (1, 0)},
    "sampler_thrust_no_workspace": {"tvm.contrib.thrust.sort": (2, 0),
                                    "tvm.contrib.thrust.sum_scan": (1, 0)},
    "cublas_byoc": {"fused_relax_matmul_cublas": (2, 0)},
    "cublas_te_extern": {"tvm.contrib.cublas.matmul": (2, 0)},
    "unknown_extern": {"my_company.fused_op": (1, 0)},
    "rng": {"tvm.contrib.random.uniform": (1, 0), "runtime.contrib.curand.RandomFill": (1, 0)},
    # an operator, not a call the pass lifts; its input is not statically planned either
    "to_vdevice": {"relax.to_vdevice": (0, 2)},
}

def path(name: str, stage: str) -> str:
    return str(FOLDER / f"{name}.{stage}.relax")


# --- the text of a dump, read without cgraph --------------------------------------------------

FUNCTION = re.compile(r"^    @(R\.function|T\.prim_func)\b.*\n    def (\w+)\(", re.M)
EXTERN_CALL = re.compile(r'\bR\.call_(?:pure_)?packed\("([^"]+)"')
PRIM_EXTERN_CALL = re.compile(r'\bT\.call_packed\("([^"]+)"')
CALLEE = re.compile(r"\bcls\.(\w+)\(")
CAPTURED_BY = re.compile(r'"vm\.builtin\.cuda_graph\.run_or_capture", \(cls\.(\w+),')


def functions(text: str) -> dict[str, tuple[str, str]]:
    """Each function of the module, by name: its decorator (R.function or T.prim_func) and its
    text, in TVM's printing (a decorator and `def` at the class's indentation, up to the next)."""
    starts = list(FUNCTION.finditer(text))
    return {m.group(2): (m.group(1), text[m.start():starts[i + 1].start()
                                          if i + 1 < len(starts) else None])
            for i, m in enumerate(starts)}


def unsafe_calls(body: str, module: dict[str, tuple[str, str]]) -> list[str]:
    """The external calls a Relax function's text makes, one entry per call site."""
    calls = [n for n in EXTERN_CALL.findall(body) if not n.startswith("vm.builtin.")]
    for callee in CALLEE.findall(body):
        kind, callee_body = module.get(callee, ("", ""))
        if kind == "T.prim_func":
            calls += PRIM_EXTERN_CALL.findall(callee_body)
    calls += ["relax.to_vdevice"] * len(re.findall(r"\bR\.to_vdevice\(", body))
    return calls


def captured_and_outside(text: str) -> dict[str, tuple[int, int]]:
    """Per unsafe call: the call sites inside capture functions, and those elsewhere."""
    module = functions(text)
    capture = set(CAPTURED_BY.findall(text))
    counts: dict[str, list[int]] = {}
    for name, (kind, body) in module.items():
        if kind != "R.function":
            continue
        for call in unsafe_calls(body, module):
            counts.setdefault(call, [0, 0])[0 if name in capture else 1] += 1
    return {call: (inside, outside) for call, (inside, outside) in counts.items()}


# --- the tests --------------------------------------------------------------------------------

def test_the_folder_is_complete():
    assert sorted(p.name for p in FOLDER.iterdir()) == sorted(
        f"{n}.{s}.relax" for n in NAMES for s in ("before", "after"))
    assert sorted(EXPECTED) == NAMES


@pytest.mark.parametrize("stage", ["before", "after"])
@pytest.mark.parametrize("name", NAMES)
def test_provenance_header(name, stage):
    lines = open(path(name, stage)).read().splitlines()
    assert lines[0].startswith(f"# cgraph capture-safety corpus: {name}.{stage}.relax, the module")
    assert lines[1].startswith("# model: ") and lines[2].startswith("# unsafe external calls: ")
    assert "# made by: python bench/corpus/build_capture_safety.py (make corpus)" in lines
    assert any(line.startswith("# TVM: apache-tvm 0.27") for line in lines)


@pytest.mark.parametrize("stage", ["before", "after"])
@pytest.mark.parametrize("name", NAMES)
def test_cgraph_reads_it(name, stage):
    r = cgraph("fmt", path(name, stage))
    assert r.exit_code == 0, r.stderr


@pytest.mark.parametrize("name", NAMES)
def test_cgraph_compat_rewrite_is_tvms_after_file(name, tmp_path):
    """The oracle agreement: with its corrections off, cgraph's rewrite of what TVM's pass was
    given is what TVM's pass gave."""
    out = str(tmp_path / f"{name}.relax")
    r = cgraph("rewrite", "--compat", "tvm", path(name, "before"), "-o", out)
    assert r.exit_code == 0, r.stderr
    r = cgraph("check", out, path(name, "after"))
    assert r.exit_code == 0, r


@pytest.mark.parametrize("name", NAMES)
def test_tvm_pass_on_the_before_file_gives_the_after_file(name, tvm):
    """The after files are TVM's RewriteCUDAGraph of the before files, as TVM reads both (the
    ty_args fix-up of tvm_oracle.py applied: TVM's reader rejects its own `ty_args=` on
    R.builtin.alloc_tensor)."""
    from tvm import relax

    def reading(stage):
        return tvm_parse_with_constants(without_alloc_ty_args(open(path(name, stage)).read()),
                                        constants={}, check_well_formed=False)

    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        got = relax.transform.RewriteCUDAGraph()(reading("before"))
    assert tvm_equal(got, reading("after")) is None


@pytest.mark.parametrize("name", NAMES)
def test_which_unsafe_calls_tvm_captured(name):
    after = open(path(name, "after")).read()
    assert captured_and_outside(after) == EXPECTED[name]
    # every unsafe call site was there before the pass, none captured yet
    before = captured_and_outside(open(path(name, "before")).read())
    assert before == {call: (0, inside + outside)
                      for call, (inside, outside) in EXPECTED[name].items()}
