"""Record TVM 0.27's verdict on every case of tests/helpers/verdict_cases.py.

    python tests/helpers/record_tvm_verdicts.py            # all cases, rewrites tests/data/tvm_verdicts.json
    python tests/helpers/record_tvm_verdicts.py ID ...     # only these (the others are kept)

For each case: `tvm.script.from_source(text)` accepts it or raises; a rejection is recorded
with the line (and column) TVM's diagnostic names when it names one (not for its
well-formedness check, which always points at line 1). The text is decoded as
UTF-8 exactly as `open(path).read()` would (a byte-order mark stays a U+FEFF character), since
that is how a TVM user reads a file. The digest ties each verdict to the bytes it was taken
on: tests/test_tvm_verdicts.py refuses a verdict whose case has changed since.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys

from verdict_cases import CASES, VERDICTS  # beside this file: first on sys.path for a script

# TVM's diagnostics name the place as ` --> <str>:LINE:COL`; Python's SyntaxError carries it.
TVM_LOC = re.compile(r"--> [^\n]*?:(\d+):(\d+)")


def tvm_verdict(text: str) -> dict:
    import tvm
    from tvm.script import from_source

    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            mod = from_source(text)
        if not isinstance(mod, tvm.ir.IRModule):
            return {"tvm": "reject", "line": None, "col": None,
                    "error": f"from_source returned a {type(mod).__name__}, not an IRModule"}
        return {"tvm": "accept"}
    except Exception as e:  # noqa: BLE001 - any exception is TVM's rejection
        message = str(e)
        line = col = None
        m = TVM_LOC.search(message)
        if "not well-formed" in message:
            pass  # TVM's well-formedness check points at the module's first line, not the fault
        elif m:
            line, col = int(m.group(1)), int(m.group(2))
        elif isinstance(e, SyntaxError) and e.lineno:
            line, col = e.lineno, e.offset
        first = next((s.strip() for s in message.splitlines() if s.strip()), type(e).__name__)
        return {"tvm": "reject", "line": line, "col": col,
                "error": f"{type(e).__name__}: {first}"[:300]}


def main(argv: list[str]) -> int:
    table = json.loads(VERDICTS.read_text()) if VERDICTS.exists() else {}
    wanted = set(argv) or {c.id for c in CASES}
    unknown = wanted - {c.id for c in CASES}
    if unknown:
        print(f"unknown case(s): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    for case in CASES:
        if case.id not in wanted:
            continue
        verdict = tvm_verdict(case.data.decode("utf-8"))
        table[case.id] = {"digest": case.digest, **verdict}
        where = f" at {verdict.get('line')}:{verdict.get('col')}" if verdict["tvm"] == "reject" \
            else ""
        print(f"{case.id}: {verdict['tvm']}{where} {verdict.get('error', '')}")
    known = {c.id for c in CASES}
    table = {k: table[k] for k in sorted(table) if k in known}
    VERDICTS.parent.mkdir(parents=True, exist_ok=True)
    VERDICTS.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
