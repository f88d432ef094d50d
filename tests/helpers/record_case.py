"""Write tests/cases/NAME.expected.relax from TVM 0.27's own RewriteCUDAGraph on NAME.relax.

    python tests/helpers/record_case.py NAME [NAME ...]

Only for the cases where cgraph's output is TVM's: where cgraph corrects TVM
(docs/REWRITE.md), TVM's output is not the expectation, and the expected file is derived by
hand instead. So the script refuses

* to overwrite an expected file that does not start with TVM_ORIGIN (a hand derivation), and
* to write one where cgraph's default output differs from TVM's (a correction applies: derive
  the file by hand, the derivation in a comment at its top).
"""

from __future__ import annotations

import sys
from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "cases"
ROOT = CASES.parent.parent
# The first line of every expected file TVM wrote; tests/test_cases.py reads the origin here.
TVM_ORIGIN = ("# expected: TVM 0.27's relax.transform.RewriteCUDAGraph "
              "(tests/helpers/record_case.py)")
HAND_ORIGIN = "# expected: derived by hand"


def tvm_rewrite(text: str):
    """TVM's pass as its upstream tests run it: CUDA graphs enabled, no target needed."""
    import tvm
    from tvm import relax
    from tvm.script import from_source

    with tvm.transform.PassContext(config={"relax.backend.use_cuda_graph": True}):
        return relax.transform.RewriteCUDAGraph()(from_source(text))


def record(name: str) -> str:
    """Write NAME.expected.relax; return what was done, or raise SystemExit with why not."""
    source = CASES / f"{name}.relax"
    target = CASES / f"{name}.expected.relax"
    if not source.exists():
        raise SystemExit(f"{source}: no such case")
    if target.exists() and not target.read_text().startswith(TVM_ORIGIN):
        raise SystemExit(f"{target}: derived by hand (its first line is not TVM's origin "
                         "line); not overwritten")
    import tvm
    from tvm.script import from_source

    from cudagraph_cli.text.reader import parse_module
    from cudagraph_cli.passes.pipeline import rewrite
    from cudagraph_cli.text.printer import print_module

    text = source.read_text()
    expected = tvm_rewrite(text)
    ours, _ = rewrite(parse_module(text, str(source)))
    try:
        tvm.ir.assert_structural_equal(from_source(print_module(ours, "current")), expected)
    except (ValueError, AssertionError) as e:
        raise SystemExit(f"{name}: cgraph's output differs from TVM's, so a correction "
                         "applies (docs/REWRITE.md): derive the expected file by hand.\n"
                         + "\n".join(str(e).splitlines()[:2])) from None
    target.write_text(f"{TVM_ORIGIN}\n{expected.script()}\n")
    return f"{target.relative_to(ROOT)} written"


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sys.path.insert(0, str(ROOT))  # this checkout's cudagraph_cli, not an installed one
    for name in argv:
        print(record(name.removesuffix(".relax")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
