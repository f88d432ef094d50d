"""verify and run --device cpu at real size: MLC-LLM-style dumps of TVM's at the
dimensions of Llama-3.2-1B, Qwen2-0.5B and Llama-3.1-8B (samples/real/mlc_*), and issue 34's
Gemma-2-2B, Llama-3.1-8B over 2 tensor-parallel shards and OLMoE-1B-7B (with and without thrust).

Their weights are 2.5, 1.0 and 16.1 GB in float16; the reference backend keeps inputs that repeat
a random block, and what kernels make from them alone, as their blocks (kernels.Periodic), so
the memory a run takes grows with activations. Checked here:

* cgraph's rewrite is TVM's after file (structurally), diff counts the kernels TVM captured,
  and the after file verifies equal, every public function 4 calls;
* what verify proves is not weakened: mutants of TVM's own rewrite of the 1B model, each a
  one-line change of the kind verify exists to catch, are caught (a stale graph input, a
  result left in memory the next function's graphs overwrite);
* peak memory, measured on a process of its own: the 1B model's verify within 2 GiB, the
  8B model's within 4 GiB (its weights alone are 16 GB). Times are measured by
  bench/bench_real_size.py, not here.
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REAL_SAMPLES, ROOT, run_cli
from cudagraph_cli import api, commands
from cudagraph_cli.report.verify_view import verify_json
from shared_inputs import inputs_made_once

MODELS = ["mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b", "mlc_gemma2_2b",
          "mlc_llama_8b_tp2", "mlc_olmoe_1b_7b", "mlc_olmoe_1b_7b_thrust", "mlc_phi2",
          "mlc_gpt2_medium"]
# The functions each model is served by: the first three were built with five, issue 34's
# families with all of MLC-LLM's (bench/corpus/mlc_models.py, SERVING_FUNCTIONS).
FIVE = ["batch_decode", "create_tir_paged_kv_cache", "decode", "embed", "prefill"]
SEVEN = sorted(FIVE + ["batch_prefill", "batch_verify"])


def sample(name: str, stage: str) -> str:
    return str(REAL_SAMPLES / f"{name}.{stage}.relax")


def peak_rss_mib(*args: str) -> tuple[int, float]:
    """(exit status, peak resident memory in MiB) of `cgraph ARGS` run alone (peak_rss_run;
    test_verify_memory.py's too)."""
    code, peak, _, _ = peak_rss_run(*args)
    return code, peak


def peak_rss_run(*args: str) -> tuple[int, float, str, str]:
    """(exit status, peak resident memory in MiB, stdout, stderr) of `cgraph ARGS` run alone:
    a parent of its own reads its only child's peak from getrusage."""
    probe = ("import json, resource, subprocess, sys\n"
             "r = subprocess.run([sys.executable, '-m', 'cudagraph_cli', *sys.argv[1:]],"
             " capture_output=True, text=True)\n"
             "print(json.dumps([r.returncode,"
             " resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, r.stdout, r.stderr]))\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=600, check=True).stdout
    code, kib, stdout, stderr = json.loads(out)
    return code, kib / 1024, stdout, stderr  # ru_maxrss is in KiB on Linux


@pytest.fixture(scope="module")
def verified():
    """name -> (exit status, peak MiB, JSON report, stderr) of `cgraph verify BEFORE AFTER
    --format json` (TVM's after file), each model once in a process of its own: the 1B
    model's serves both the test against TVM's rewrite and the memory test (a verify of it
    is 20 s of CPU)."""
    made: dict = {}

    def get(name: str):
        if name not in made:
            code, peak, stdout, stderr = peak_rss_run("verify", sample(name, "before"),
                                                      sample(name, "after"), "--format", "json")
            made[name] = code, peak, json.loads(stdout) if code in (0, 1) else None, stderr
        return made[name]

    return get


def tvm_captured_in_text(text: str) -> dict:
    """Per public function of TVM's after file, the kernel launches inside the capture
    functions its run_or_capture calls name, counted in TVM's text (not by cgraph): a capture
    function's kernel launches are its statement lines `cls.<PrimFunc>(...)` and its packed
    calls. Public: decorated `@R.function` with no `private=True`."""
    bodies, public, name, decorator = {}, [], None, ""
    for line in text.splitlines():
        if line.startswith("    @"):
            decorator = line.strip()
        head = re.match(r"    def (\w+)\(", line)
        if head:
            name = head[1]
            bodies[name] = []
            if decorator.startswith("@R.function") and "private=True" not in decorator:
                public.append(name)
        elif name:
            bodies[name].append(line)
    counts = {}
    for f in public:
        counts[f] = sum(
            sum(1 for c in bodies[capture]
                if re.match(r"\s+cls\.\w+\(", c) or "R.call_packed(" in c)
            for ln in bodies[f] for capture in re.findall(r"run_or_capture\", \(cls\.(\w+),", ln))
    return counts


@pytest.mark.parametrize("name", MODELS)
def test_rewrite_is_tvms_and_diff_counts_what_tvm_captured(name, tmp_path):
    rewritten = str(tmp_path / "rewritten.relax")
    assert run_cli("rewrite", sample(name, "before"), "-o", rewritten).returncode == 0
    r = run_cli("check", rewritten, sample(name, "after"))
    assert r.returncode == 0, r.stdout.decode()
    r = run_cli("diff", sample(name, "before"), "--format", "json")
    assert r.returncode == 0
    captured = {f["name"]: f["captured"] for f in json.loads(r.stdout)["functions"]}
    assert captured == tvm_captured_in_text(open(sample(name, "after")).read())


# The 8B model's verify and run are the memory tests below (exit 0: equal); cgraph's rewrite is
# structurally equal to TVM's after file (above), so verifying against the after file covers it.
# Of issue 34's models the tensor-parallel 8B (the disco collectives, captured in its graphs, run
# by the executor as one worker: docs/EXECUTOR.md, "Collectives") stands here; every model
# verifies in bench/bench_real_size.py (OLMoE with thrust: its scan is
# tvm.contrib.thrust.sum_scan with a workspace; GPT-2-medium: an external call of its own for
# its positions, vm.builtin.attention_kv_cache_get_query_positions).
@pytest.mark.parametrize("name, functions", [("mlc_llama_1b", FIVE), ("mlc_qwen2_0_5b", FIVE),
                                             ("mlc_llama_8b_tp2", SEVEN)])
def test_verify_against_tvms_rewrite_and_run(verified, name, functions):
    code, _, report, stderr = verified(name)
    assert code == 0, stderr
    assert report["equal"] is True
    assert sorted(report["functions"]) == functions
    assert report["captures"] > 0 and report["replays"] > 0
    r = run_cli("run", sample(name, "before"), "--device", "cpu")
    assert r.returncode == 0, r.stderr.decode()


# One-line mutants of TVM's rewrite of the 1B model's `decode` (samples/real/mlc_llama_1b.after
# .relax), each what a wrong rewrite would do:
STALE_INPUT = (
    # the first layer's normed input, read by graph 18, made in fresh memory each call: the
    # graph replays on the first call's buffer
    '        alloc195: R.Tensor((1, 1, 2048), dtype="float16") = R.memory.alloc_tensor('
    'storage4, 0, R.shape([1, 1, 2048]), R.dtype("float16"), 0)\n',
    '        alloc195: R.Tensor((1, 1, 2048), dtype="float16") = R.builtin.alloc_tensor('
    'R.shape([1, 1, 2048]), R.dtype("float16"), 0, R.str("global"))\n')
OVERWRITTEN_RESULT = (
    # the logits put in a storage of the graphs' allocation, which the next call's graphs
    # write
    '        alloc389: R.Tensor((1, 1, 128256), dtype="float32") = R.builtin.alloc_tensor('
    'R.shape([1, 1, 128256]), R.dtype("float32"), 0, R.str("global"), '
    'ty_args=(R.Tensor((1, 1, 128256), dtype="float32"),))\n',
    '        alloc389: R.Tensor((1, 1, 128256), dtype="float32") = R.memory.alloc_tensor('
    'storage5, 0, R.shape([1, 1, 128256]), R.dtype("float32"), 0)\n')


# What verify reports. The stale input: graph 18 replays on the buffer it was captured with,
# and decode's logits differ at its second call. (With the synthetic kernel of before, linear
# modulo 256, the values agreed -- a residual add multiplied the difference by 88 = 2^3 * 11,
# and after about 1.5 layers it was 0 modulo 256 -- and only the ownership check found it;
# issue 31. Its S-box makes the difference reach the logits: docs/EXECUTOR.md, "Kernels".)
# The overwritten result: decode's logits differ once the next function runs graphs on the
# shared storages (prefill: TVM's pass gives every function one allocation function).
@pytest.fixture(scope="module")
def one_b():
    """The 1B model read once and TVM's rewrite of it as text, for the mutants below, verified
    in this process with their weights made once (tests/helpers/shared_inputs.py): the same
    report `cgraph verify` prints, without reading the 1B again for each."""
    with inputs_made_once():
        yield api.load(sample("mlc_llama_1b", "before")), open(sample("mlc_llama_1b",
                                                                      "after")).read()


@pytest.mark.parametrize("mutant, kind, seen_after",
                         [(STALE_INPUT, "values", "decode, call 2"),
                          (OVERWRITTEN_RESULT, "values", "prefill, call 1")],
                         ids=["stale-graph-input", "overwritten-result"])
def test_real_size_mutants_are_caught(one_b, mutant, kind, seen_after):
    original, text = one_b
    old, new = mutant
    assert text.count(old) == 1
    result = api.verify(original, api.loads(text.replace(old, new)))  # 4 calls, as the CLI
    gc.collect()  # the executors' buffers sit in reference cycles
    assert commands.verify_exit_status(result) == 1
    difference = verify_json(result, "before", "broken")["difference"]
    assert (difference["kind"], difference["function"]) == (kind, "decode")
    assert difference["seen_after"] == seen_after


@pytest.mark.parametrize("name, limit_mib", [("mlc_llama_1b", 2048), ("mlc_llama_8b", 4096)])
def test_verify_memory_grows_with_activations_not_weights(verified, name, limit_mib):
    code, peak, _, stderr = verified(name)
    assert code == 0, stderr
    assert peak <= limit_mib, f"verify of {name} peaked at {peak:.0f} MiB"


def test_run_cpu_of_the_8b_model_within_4_gib():
    code, peak = peak_rss_mib("run", sample("mlc_llama_8b", "before"), "--device", "cpu",
                              "--calls", "2")
    assert code == 0
    assert peak <= 4096, f"run --device cpu peaked at {peak:.0f} MiB"
