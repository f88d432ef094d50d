"""MLC-LLM's debug dump (issue 32, item 3): `mlc_llm compile --debug-dump DIR` writes
DIR/debug-phase5.py, `mod.script(show_meta=False)` right before RewriteCUDAGraph;
samples/real/mlc_debug_dump/debug-phase5.py is one (its README says how it was made). cgraph's
verbs read it as it is."""

from __future__ import annotations

import pytest

from cli_runner import cgraph
from conftest import REAL_SAMPLES

DUMP = REAL_SAMPLES / "mlc_debug_dump" / "debug-phase5.py"
CORPUS = REAL_SAMPLES / "mlc_llama_1b.before.relax"


def without_header(text: str) -> str:
    return text[text.index("\n", text.index("# made by:")) + 1:]


def from_imports(text: str) -> str:
    """cgraph's output from TVM's import comments on (the corpus file's header left out)."""
    return text[text.index("# from typing import TypeVar"):]


def test_the_dump_is_what_mlc_llms_debug_dump_writes():
    # _DebugDump writes mod.script(show_meta=False) and nothing else; the corpus file is
    # mod.script() (show_meta=False by default) below its header, plus a final newline.
    text = DUMP.read_text(encoding="utf-8")
    assert text + "\n" == without_header(CORPUS.read_text())
    assert text.startswith("# from typing import TypeVar\n# from tvm.script import ir as I\n")
    assert not text.endswith("\n")
    assert "metadata[" not in text  # nothing of show_meta=False to resolve in this model


@pytest.mark.tvm
def test_tvms_reader_rejects_the_dump_that_cgraph_reads(tvm):
    from cudagraph_cli.tvm import on_a_short_stack

    with pytest.raises(Exception, match="already defined in current scope"):
        on_a_short_stack(tvm.script.from_source, DUMP.read_text())


def test_fmt_and_rewrite_read_the_dump_as_it_is(tmp_path):
    code, formatted, said = cgraph("fmt", DUMP)
    assert (code, said) == (0, "")
    # the same module as the corpus file: cgraph's printing differs only by the header
    code, reference, said = cgraph("fmt", CORPUS)
    assert (code, said) == (0, "") and formatted == from_imports(reference)
    out = tmp_path / "debug-phase5.graph.relax"
    assert cgraph("rewrite", DUMP, "-o", out) == (0, "", "")
    code, reference, _ = cgraph("rewrite", CORPUS)
    assert out.read_text() == from_imports(reference)


def test_diff_and_verify_read_the_dump_as_it_is(tmp_path):
    shown = cgraph("diff", DUMP)
    assert shown.exit_code == 0
    # what it shows of the corpus file (tests/test_real_workflow.py holds those counts to TVM's)
    reference = cgraph("diff", CORPUS)
    assert reference.exit_code == 0
    assert shown.stdout == reference.stdout.replace(str(CORPUS), str(DUMP))
    assert shown.stderr == reference.stderr.replace(str(CORPUS), str(DUMP))
    out = tmp_path / "debug-phase5.graph.relax"
    assert cgraph("rewrite", DUMP, "-o", out).exit_code == 0
    code, said, err = cgraph("verify", DUMP, out, "--function", "decode", "--calls", "2")
    assert code == 0, err
    assert said.startswith(f"equal: {out} computes what {DUMP} computes (decode: 2 calls")
