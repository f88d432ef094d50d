"""Which external functions the corpus calls, and what the capture-safety table says of each.

    python bench/corpus/extern_symbols.py [DIR ...]   (default: samples tests/cases)

Counts, per symbol, the calls in Relax functions (R.call_packed / an ExternFunc callee, and
call_dps_packed / call_pure_packed / call_inplace_packed by their function argument) and the
packed and extern calls in PrimFunc bodies (T.call_packed, T.call_extern, ...), over every
`*.relax` file cgraph reads; `vm.builtin.*` counted as one line. docs/REWRITE.md quotes the
result (correction 8: what an unknown symbol defaults to).
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from cudagraph_cli import ir  # noqa: E402
from cudagraph_cli.diagnostics import SourceError  # noqa: E402
from cudagraph_cli.passes.capture_safety import body_calls, rule_for  # noqa: E402
from cudagraph_cli.text.reader import parse_module  # noqa: E402

PACKED_OPS = ("relax.call_dps_packed", "relax.call_pure_packed", "relax.call_inplace_packed")


def symbols(mod: ir.Module):
    """(where, symbol) for every external call of a module: where is "relax" or "tir"."""
    for f in mod.functions:
        if isinstance(f, ir.PrimFunc):
            for c in body_calls(f.body):
                yield "tir", c.symbol
            continue
        for b in ir.nested_bindings(f.blocks):
            for x in ir.walk(b.value):
                if type(x) is not ir.Call:
                    continue
                if isinstance(x.op, ir.ExternFunc):
                    yield "relax", x.op.name
                elif isinstance(x.op, ir.Op) and x.op.name in PACKED_OPS and x.args and \
                        isinstance(x.args[0], ir.ExternFunc):
                    yield "relax", x.args[0].name


def main(dirs: list[str]) -> None:
    files = sorted(p for d in dirs for p in (ROOT / d).rglob("*.relax"))
    calls: collections.Counter = collections.Counter()
    where_files: dict = collections.defaultdict(set)
    unread = []
    for p in files:
        try:
            mod = parse_module(p.read_text(), str(p))
        except SourceError:
            unread.append(p)
            continue
        for where, s in symbols(mod):
            key = (where, "vm.builtin.*" if s.startswith("vm.builtin.") else s)
            calls[key] += 1
            where_files[key].add(str(p.parent.relative_to(ROOT)))
    print(f"{len(files)} files read ({len(unread)} unreadable) under {', '.join(dirs)}")
    print(f"{'where':6} {'symbol':45} {'calls':>6}  {'table':12} directories")
    for (where, s), n in sorted(calls.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = None if s == "vm.builtin.*" else rule_for(s)
        verdict = "-" if s == "vm.builtin.*" else rule.verdict if rule else "unknown"
        print(f"{where:6} {s:45} {n:6}  {verdict:12} {', '.join(sorted(where_files[(where, s)]))}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["samples", "tests/cases"])
