"""Benchmark: how much the reference executor's bytes depend on the inputs (issue 31, item 5).

    python bench/bench_input_sensitivity.py [--calls N] [--changes N] [--models a,b] [--write FILE]

Two measurements, in process (api.run_cpu and the executor it drives):

1. Every public function of every model of samples/real, `--calls` calls (default 6) with
   fresh inputs: for each output, the number of pairs of calls with different inputs, and how
   many of them gave different results (all, if the outputs depend on the inputs).
2. On the real-size models' `decode` (16, 24 and 32 layers): a change entering layer 0 --
   one byte of the hidden state XOR 1, or one float16 value moved to the next one up -- at
   `--changes` positions (default 64), one at a time: how many reach the logits.

tests/test_input_sensitivity.py holds a sample of both (3 calls; 16 value changes on the 1B).
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402

from cudagraph_cli import api  # noqa: E402
from cudagraph_cli.exec import inputs as verify_mod  # noqa: E402
from cudagraph_cli.exec.backend import CpuBackend, Tensor  # noqa: E402
from cudagraph_cli.exec.interpreter import Executor  # noqa: E402
from cudagraph_cli.exec.values import HostObject, leaves_with_paths  # noqa: E402
from cudagraph_cli.exec.inputs import Inputs, Repeating, Weights, to_backend  # noqa: E402
from cudagraph_cli.text.reader import parse_module  # noqa: E402

REAL = ROOT / "samples" / "real"
CORPUS = ["mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b"]


def fingerprint(value):
    if isinstance(value, Repeating):
        return ("repeating", value.shape, value.block.tobytes())
    if isinstance(value, np.ndarray):
        return ("array", value.shape, str(value.dtype), value.tobytes())
    if isinstance(value, (tuple, list)):
        return tuple(fingerprint(v) for v in value)
    if isinstance(value, HostObject):
        return ("object", value.name)
    return value


def calls_row(name: str, calls: int) -> str:
    seen = {}
    fresh = Inputs.fresh

    def recording(self, f, call):
        values = fresh(self, f, call)
        seen[(f.name, call + 1)] = fingerprint(values)
        return values

    verify_mod.Inputs.fresh = recording
    try:
        start = time.process_time()
        run = api.run_cpu(parse_module((REAL / f"{name}.before.relax").read_text()),
                          calls=calls)
        seconds = time.process_time() - start
    finally:
        verify_mod.Inputs.fresh = fresh
    results: dict = defaultdict(dict)
    for row in run.rows:
        results[(row["function"], row["output"])][row["call"]] = row["crc32"]
    pairs = differ = same_inputs_same = same_inputs = 0
    for (function, _), by_call in results.items():
        for a in by_call:
            for b in by_call:
                if a >= b:
                    continue
                if seen[(function, a)] == seen[(function, b)]:
                    same_inputs += 1
                    same_inputs_same += by_call[a] == by_call[b]
                else:
                    pairs += 1
                    differ += by_call[a] != by_call[b]
    return (f"| {name} | {len(results)} | {calls} | {differ} of {pairs} | "
            f"{same_inputs_same} of {same_inputs} | {seconds:.1f} |")


def decode_logits(path: Path):
    """(hidden, logits): the hidden state a model's decode takes first (what enters layer 0),
    as verify makes it, and a function from a hidden state to the CRC-32s of decode's
    outputs, on the reference executor with the model's other inputs and weights fixed."""
    module = parse_module(path.read_text())
    decode = module.function("decode")
    inputs = Inputs(0, {})
    executor = Executor(module, CpuBackend())
    (weights,) = Weights(inputs, [executor.backend]).of(decode)
    values = inputs.fresh(decode, 0)

    def logits(first):
        # a fresh executor each time: the KV cache starts empty (decode appends to it, and a
        # later call's attention reads what earlier calls appended)
        out = Executor(module, executor.backend).call(
            "decode", [to_backend(executor.backend, v) for v in [first] + values[1:]] + weights)
        return [zlib.crc32(executor.backend.to_numpy(t).tobytes())
                for _, t in leaves_with_paths(out) if isinstance(t, Tensor)]
    return values[0], logits


def depth_row(name: str, changes: int) -> str:
    hidden, logits = decode_logits(REAL / f"{name}.before.relax")
    unchanged = logits(hidden)
    start = time.process_time()
    flat = hidden.reshape(-1)
    byte_hits = value_hits = 0
    for i in np.linspace(0, flat.nbytes - 1, changes).astype(int):
        changed = hidden.copy()
        changed.reshape(-1).view(np.uint8)[i] ^= 1
        byte_hits += logits(changed) != unchanged
    for i in np.linspace(0, flat.size - 1, changes).astype(int):
        changed = hidden.copy()
        changed.reshape(-1)[i] = np.nextafter(flat[i], np.array(np.inf, flat.dtype))
        value_hits += logits(changed) != unchanged
    seconds = time.process_time() - start
    return (f"| {name} | {hidden.shape} {hidden.dtype} | {byte_hits} of {changes} | "
            f"{value_hits} of {changes} | {seconds:.1f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=6)
    ap.add_argument("--changes", type=int, default=64)
    ap.add_argument("--models", default=None, help="comma-separated names of samples/real")
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    names = args.models.split(",") if args.models else sorted(
        p.name.removesuffix(".before.relax") for p in REAL.glob("*.before.relax"))
    calls_rows, depth_rows = [], []
    for name in names:
        calls_rows.append(calls_row(name, args.calls))
        print(calls_rows[-1], flush=True)
    for name in names:
        if name in CORPUS:
            depth_rows.append(depth_row(name, args.changes))
            print(depth_rows[-1], flush=True)
    text = "\n".join([
        "### Input sensitivity of the reference executor (bench/bench_input_sensitivity.py)",
        "",
        f"Measured {machine()}; CPU seconds of this process.",
        "",
        f"Every public function, {args.calls} calls with fresh inputs: pairs of calls with "
        "different inputs that gave different results, and pairs with the same inputs (a "
        "function with no inputs, shape values only, a token id that came out the same) that "
        "gave the same.",
        "",
        "| model | outputs | calls | different inputs: different results | same inputs: "
        "same results | cpu s |",
        "|---|---|---|---|---|---|",
        *calls_rows,
        "",
        "`decode`: one change entering layer 0, one at a time, at evenly spread positions: "
        "how many reach the logits.",
        "",
        "| model | hidden state | one byte XOR 1 | one value to the next float16 | cpu s |",
        "|---|---|---|---|---|",
        *depth_rows,
    ])
    if args.write:
        write_section(args.write, "bench_input_sensitivity", text)
    print(text)


if __name__ == "__main__":
    main()
