"""Benchmark: a serving-like trace through the CUDA-graph cache (issue 45: bucketed capture).

    python bench/bench_buckets_trace.py [--steps 2000] [--seed 0] [--batch-bound 128]
                                        [--write docs/BENCHMARKS.md]

The Llama-3.2-1B dump of samples/real, with batch_size's tir_var_upper_bound raised to 128 in
its functions' attributes (as a server compiles it; the corpus has 32), rewritten three ways:

- TVM's rewrite: `cgraph rewrite --compat tvm`, which is TVM 0.27's RewriteCUDAGraph output
  exactly (tests/test_rewrite_differential.py): batch_decode keyed by batch_size (MLC-LLM's
  capture hint: one graph per value), prefill eager;
- cgraph exact: `--capture-symbolic seq_len:256`, one graph per value of seq_len up to 256 and
  eager above it, batch_decode as TVM;
- cgraph buckets: `--capture-buckets seq_len:auto --capture-buckets batch_size:auto`.

Each of `--steps` steps is one prompt's prefill, its length drawn log-uniformly from 16-2,048
tokens, then one batch_decode of a batch size drawn uniformly from 1-128 (seeded). Each call
runs through `GraphCache`, a model of TVM's runtime cache (`vm.builtin.cuda_graph.
run_or_capture`: one graph per entry index and shape key, captured the first time the pair is
met, kept for as long as the model is loaded): the call's path is taken as the VM takes it
(guards and bucket values evaluated for the call's sizes), and counted: host launches (kernel
launches plus graph launches; in brackets with the builtins that launch device work, such as
the 16 attention calls), captures (each a stall of the step that meets it: a warm-up run and a
capture), graphs alive. tests/test_bench_buckets_trace.py checks the model against the reference
executor's own graph cache on a small module and against `cgraph diff`'s counts on this one.
"""

from __future__ import annotations

import argparse
import math
import random
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.report import machine, write_section  # noqa: E402
from cudagraph_cli import api, ir  # noqa: E402
from cudagraph_cli.exec.prim import eval_prim  # noqa: E402
from cudagraph_cli.passes.options import RewriteOptions  # noqa: E402
from cudagraph_cli.report.analysis import host_work  # noqa: E402
from cudagraph_cli.report.rewritten import resolve  # noqa: E402

SAMPLE = ROOT / "samples" / "real" / "mlc_llama_1b.before.relax"
VARIANTS = {
    "TVM's rewrite": RewriteOptions.tvm_compat(),
    "cgraph exact (--capture-symbolic seq_len:256)": RewriteOptions(
        capture_symbolic=("seq_len:256",)),
    "cgraph buckets (--capture-buckets seq_len:auto, batch_size:auto)": RewriteOptions(
        capture_buckets=("seq_len:auto", "batch_size:auto")),
}


@dataclass
class GraphCache:
    """TVM's run_or_capture cache: (entry index, shape key) -> captured, never evicted."""

    graphs: set = field(default_factory=set)
    captures: int = 0

    def launch(self, index: int, key: tuple) -> bool:
        """Replays the graph of (index, key), capturing it first when new; True if it did."""
        if (index, key) in self.graphs:
            return False
        self.graphs.add((index, key))
        self.captures += 1
        return True


@dataclass
class CallCount:
    launches: int = 0  # kernel and graph launches
    graphs: int = 0  # the graph launches among them
    builtins: int = 0  # builtin calls that launch device work
    captures: int = 0


def run_call(module: ir.Module, f: ir.Function, sizes: dict, cache: GraphCache,
             prims: set) -> CallCount:
    """One call of `f` with its symbolic variables at `sizes` (name -> value), through
    `cache`: the bindings the VM runs, each `if` taking the branch its condition picks."""
    values = dict(sizes)
    defs: dict = {}
    count = CallCount()

    def value_of(sym):
        return values[sym.name]

    def walk(blocks):
        for block in blocks:
            for b in block.bindings:
                v = b.value
                defs[b.var] = v
                if isinstance(b, ir.MatchCast):
                    _define(b, defs, values)
                elif type(v) is ir.If:
                    cond = resolve(v.cond, defs)
                    taken = eval_prim(cond.value, value_of) if type(cond) is ir.PrimValue \
                        else None
                    if taken is None:
                        raise SystemExit(f"{f.name}: cannot evaluate the condition {cond!r}")
                    walk((v.true_branch if taken else v.false_branch).blocks)
                elif isinstance(v, ir.Call):
                    kind = host_work(v, module, prims)
                    if kind == "graph":
                        count.graphs += 1
                        count.captures += cache.launch(*_key(v, defs, value_of))
                    if kind in ("kernel", "graph"):
                        count.launches += 1
                    elif kind == "builtin":
                        count.builtins += 1

    walk(f.blocks)
    return count


def _define(b: ir.MatchCast, defs: dict, values: dict) -> None:
    """The symbolic variables a match_cast of a shape defines (a bucket: seq_len_bucket)."""
    shape = resolve(b.value, defs)
    dims = getattr(b.sinfo, "values", None)
    if type(shape) is ir.ShapeExpr and dims is not None:
        for d, e in zip(dims, shape.values):
            if isinstance(d, ir.SymVar):
                values[d.name] = eval_prim(e, lambda s: values[s.name])


def _key(call: ir.Call, defs: dict, value_of) -> tuple:
    """(entry index, shape key values) of a run_or_capture call."""
    packed = resolve(call.args[1], defs)
    fields = packed.fields
    index = resolve(fields[2], defs).value.value
    key = ()
    if len(fields) > 3:
        shape = resolve(fields[3], defs)
        key = tuple(eval_prim(d, value_of) for d in shape.values)
    return index, key


def raised_bound(text: str, bound: int) -> str:
    """The module with batch_size's tir_var_upper_bound set to `bound` in every function."""
    return re.sub(r'("tir_var_upper_bound": \{"batch_size": )\d+', rf"\g<1>{bound}", text)


def trace(steps: int, seed: int, batch_bound: int) -> list:
    """[(prompt length, batch size)] per step."""
    rng = random.Random(seed)
    lo, hi = math.log(16), math.log(2048)
    return [(min(2048, max(16, round(math.exp(rng.uniform(lo, hi))))),
             rng.randint(1, batch_bound)) for _ in range(steps)]


@dataclass
class Totals:
    launches: int = 0
    builtins: int = 0
    captures: int = 0
    late_captures: int = 0  # in the second half of the trace
    stalled_steps: int = 0  # steps with at least one capture
    per_call: dict = field(default_factory=dict)  # (function, size) -> CallCount


def replay(module: ir.Module, steps: list, probes: dict) -> tuple:
    prims = {f.name for f in module.functions if isinstance(f, ir.PrimFunc)}
    prefill, decode = module.function("prefill"), module.function("batch_decode")
    cache = GraphCache()
    totals = Totals()
    for i, (length, batch) in enumerate(steps):
        before = cache.captures
        for f, sizes in ((prefill, {"seq_len": length}), (decode, {"batch_size": batch})):
            c = run_call(module, f, sizes, cache, prims)
            totals.launches += c.launches
            totals.builtins += c.builtins
        new = cache.captures - before
        totals.captures += new
        totals.late_captures += new if i >= len(steps) // 2 else 0
        totals.stalled_steps += new > 0
    for (fname, var, v) in probes:
        c = run_call(module, module.function(fname), {var: v}, GraphCache(), prims)
        totals.per_call[(fname, v)] = c
    return totals, len(cache.graphs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-bound", type=int, default=128)
    ap.add_argument("--write", metavar="FILE")
    args = ap.parse_args()
    steps = trace(args.steps, args.seed, args.batch_bound)
    probes = [("prefill", "seq_len", 1000), ("prefill", "seq_len", 200),
              ("batch_decode", "batch_size", 13), ("batch_decode", "batch_size", 100)]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "mlc_llama_1b.bound.relax"
        source.write_text(raised_bound(SAMPLE.read_text(), args.batch_bound))
        original = api.load(source)
        for label, options in VARIANTS.items():
            out, _ = api.rewrite(original, options)
            t, alive = replay(out, steps, probes)
            calls = 2 * len(steps)
            probe = " / ".join(f"{c.launches} ({c.launches + c.builtins})"
                               for c in (t.per_call[(f, v)] for f, _, v in probes))
            rows.append(f"| {label} | {t.captures:,} | {t.late_captures:,} | {alive:,} | "
                        f"{t.stalled_steps:,} | {t.launches / calls:.1f} "
                        f"({(t.launches + t.builtins) / calls:.1f}) | {probe} |")
            print(rows[-1], flush=True)
    lengths = sorted(x for x, _ in steps)
    text = "\n".join([
        "### A serving-like trace through the graph cache (bench/bench_buckets_trace.py, "
        "issue 45)",
        "",
        f"Measured {machine()}; `python bench/bench_buckets_trace.py --steps {args.steps} "
        f"--seed {args.seed} --batch-bound {args.batch_bound} --write docs/BENCHMARKS.md`. "
        f"The 1B dump with batch_size's tir_var_upper_bound raised to {args.batch_bound} "
        f"(the attribute only: the storages keep the sizes planned for 32, which no count here "
        f"reads). {args.steps:,} steps, each a prefill (prompt length log-uniform in "
        f"16-2,048, median {lengths[len(lengths) // 2]}) and a batch_decode (batch size uniform "
        f"in 1-{args.batch_bound}), through a model of TVM's graph cache (one graph per entry "
        "index and key, captured when first met, never evicted; the module docstring says "
        "how it is checked). Captures: graphs captured over the trace, and in its second "
        "half; stalled steps: steps that met at least one capture (a warm-up run and a "
        "capture). Launches per call: kernel and graph launches, averaged over the trace's "
        "calls, in brackets with the builtins that launch device work (the 16 attention "
        "calls). Last column: launches (host work) of prefill at 1,000 and 200 tokens and "
        "batch_decode at 13 and 100.",
        "",
        "| rewrite | captures | in the second half | graphs alive | stalled steps | launches "
        "/ call | prefill 1000 / prefill 200 / decode 13 / decode 100 |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ])
    if args.write:
        write_section(args.write, "bench_buckets_trace", text)
    print(text)


if __name__ == "__main__":
    main()
