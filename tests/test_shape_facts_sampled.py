"""The prover tested as a checker: every fact proof/facts.py claims as proved, evaluated
at concrete values within its bounds with the executor's own eval_prim. One counterexample is
a bug in the prover, whatever any suite says.

Where: every real-size MLC sample (the dump before TVM's rewrite, TVM's rewrite, cgraph's
rewrite), the 1B's rewrite with `auto` buckets for seq_len and batch_size (a bucket variable's
facts are claimed over its definition: proof/ranges.Derived), and the shape mutants and key mutants of the small bounded sample (bench/mutants).
What is sampled, for each variable a fact names: its least and largest values (the bounds'
ends), the values next to them, and a few drawn at random in between (seeded).
"""

from __future__ import annotations

import itertools
import random

import pytest

from bench import mutants
from bench.mutants import shape, suite
from conftest import ROOT
from cudagraph_cli import api, ir
from cudagraph_cli.passes.options import RewriteOptions
from cudagraph_cli.exec.prim import eval_prim
from cudagraph_cli.proof.facts import shape_facts

REAL = ROOT / "samples" / "real"
MLC = sorted(p.name[: -len(".before.relax")] for p in REAL.glob("mlc_*.before.relax"))
DRAWN = 3  # values drawn at random between the ends, for each variable


def samples(name: str, ranges, rng: random.Random) -> list[int]:
    r = ranges.of(name)
    top = r.most if r.most is not None else r.least + 4096
    if top < r.least:
        return []  # no value on this path
    picked = {r.least, min(r.least + 1, top), top, max(top - 1, r.least)}
    picked |= {rng.randint(r.least, top) for _ in range(DRAWN)}
    return sorted(picked)


def names(exprs) -> list[str]:
    out: list[str] = []
    for e in exprs:
        for v in ir.prim_vars(e, []):
            if v.name not in out:
                out.append(v.name)
    return out


def assignments(exprs, ranges, rng):
    """Every combination of the sampled values of the variables of `exprs` (a fact names two
    or three variables at most, so these stay few)."""
    vs = names(exprs)
    values = [samples(n, ranges, rng) for n in vs]
    for combo in itertools.product(*values):
        yield dict(zip(vs, combo))


def at(e, values: dict) -> int:
    return eval_prim(e, lambda v: values[v.name])


def counterexample(fact, rng):
    """Values within the fact's bounds where the proved claim is false, or None."""
    what = fact.claim[0]
    if what == "le":
        _, lhs, rhs, ranges = fact.claim
        for values in assignments([lhs, rhs], ranges, rng):
            if at(lhs, values) > at(rhs, values):
                return values
        return None
    if what == "bucket":  # v <= bucket(v) <= upper, bucket(v) declared, for v in the domain
        _, var, definition, declared, upper, domain = fact.claim
        r = domain
        picked = {r.least, r.most, max(r.least, r.most - 1)} | \
            {rng.randint(r.least, r.most) for _ in range(DRAWN)}
        for v in sorted(picked):
            got = eval_prim(definition, lambda _: v)
            if not (v <= got <= upper and got in declared):
                return {var: v}
        return None
    assert what == "key", fact
    _, key, deps, ranges = fact.claim
    seen: dict = {}
    for values in assignments(list(key) + list(deps), ranges, rng):
        k = tuple(at(c, values) for c in key)
        d = tuple(at(x, values) for x in deps)
        first = seen.setdefault(k, (values, d))
        if first[1] != d:
            return (first[0], values)
    return None


def check(module: ir.Module, where: str) -> int:
    rng = random.Random(44)
    proved = [f for f in shape_facts(module).facts if f.status == "proved"]
    assert all(f.claim for f in proved), where
    for f in proved:
        found = counterexample(f, rng)
        assert found is None, f"{where}: {f.kind} fact of {f.function} at line {f.loc.line} " \
                              f"is false at {found}"
    return len(proved)


@pytest.mark.parametrize("model", MLC)
def test_every_proved_fact_holds_at_sampled_values(model):
    before = api.load(REAL / f"{model}.before.relax")
    kinds = set()
    for module, where in ((before, "before"), (api.load(REAL / f"{model}.after.relax"), "TVM"),
                          (api.rewrite(before)[0], "cgraph")):
        assert check(module, f"{model} ({where})") > 0
        kinds |= {f.kind for f in shape_facts(module).facts if f.status == "proved"}
    assert {"fits", "view", "key"} <= kinds


def claim_exprs(facts) -> list:
    out: list = []
    for f in facts:
        if f.claim[0] == "bucket":
            out.append(f.claim[2])  # the definition, over the real variable
            continue
        what, a, b, _ = f.claim
        out += [a, b] if what == "le" else [*a, *b]
    return out


def test_every_proved_fact_of_a_bucketed_rewrite_holds_at_sampled_values():
    before = api.load(REAL / "mlc_llama_1b.before.relax")
    options = RewriteOptions(capture_buckets=("seq_len:auto", "batch_size:auto"))
    bucketed = api.rewrite(before, options)[0]
    facts = shape_facts(bucketed).facts
    assert facts and all(f.status == "proved" for f in facts), \
        [f.message for f in facts if f.status != "proved"][:3]
    # the facts over a bucket are among those sampled, claimed over the real variable
    claimed = set(names(claim_exprs(facts)))
    assert {"seq_len", "batch_size"} <= claimed
    assert not [n for n in claimed if n.endswith("_bucket")]
    assert check(bucketed, "mlc_llama_1b (buckets)") == len(facts)


def test_every_proved_fact_of_the_mutants_holds_at_sampled_values():
    name = "static_plan_tir_var_upper_bound"
    original = api.load(REAL / f"{name}.before.relax")
    rewritten = mutants.rewrite_text(original, f"{name}.rewritten.relax")
    classes = shape.SHAPE_CLASSES + suite.keys.KEY_CLASSES
    made = [m for m in suite.shape_mutants_of(name, original, rewritten, classes)
            if isinstance(m, mutants.Mutant)]
    assert {m.kind for m in made} >= {"slot-short", "key-clamped", "key-halved"}
    for m in made:
        check(m.module, f"{m.kind} ({m.site})")
        if m.kind != "reshape-wrong":  # a view of fewer bytes fits: the bounds run's to see
            # the prover says where it is wrong
            assert shape_facts(m.module).failed, m.site
