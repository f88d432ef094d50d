"""The README a newcomer reads (issue 47): its first screen gets them started, its examples
are what the tool prints, its recommended `--capture-symbolic` bound fits the bundled models
without a graph-count warning, its links lead somewhere; the glossary defines the words the
reports use. (The synopsis against `--help` is checked where the help text is.)"""

from __future__ import annotations

import json
import re

import pytest

from conftest import ROOT, run_cli

README = (ROOT / "README.md").read_text()
LLAMA_1B = "samples/real/mlc_llama_1b.before.relax"


def test_first_screen_installs_and_starts():
    screen = "\n".join(README.splitlines()[:40])
    for needed in ("pip install .", "pip install '.[tvm]'", "make demo", ".venv/bin/cgraph"):
        assert needed in screen, needed
    # the three commands on one's own dump, each with a line of what it shows
    for command in ("cgraph rewrite model.relax -o model.graph.relax",
                    "cgraph diff model.relax model.graph.relax --summary",
                    "cgraph verify model.relax model.graph.relax"):
        [line] = [ln for ln in screen.splitlines() if ln.strip().startswith(command)]
        assert "#" in line and len(line.split("#", 1)[1].strip()) > 20, line


def _examples(text: str) -> list[tuple[str, list[str]]]:
    """(command, the lines shown under it) for each `$ cgraph ...` block of `text`."""
    out = []
    for block in re.findall(r"\n((?:    .*\n)+)", text):
        lines = [ln[4:] for ln in block.splitlines()]
        for i, ln in enumerate(lines):
            if ln.startswith("$ cgraph "):
                shown = []
                for nxt in lines[i + 1:]:
                    if nxt.startswith("$ ") or not nxt:
                        break
                    shown.append(nxt)
                out.append((ln[2:], shown))
    return out


@pytest.mark.parametrize("doc", ["README.md", "docs/FORMAT.md"])
def test_examples_are_what_the_tool_prints(doc, tmp_path):
    """The README's (and the check example it gave to docs/FORMAT.md)."""
    ran = 0
    for command, shown in _examples((ROOT / doc).read_text()):
        args = command.split()[1:]
        inputs = [a for i, a in enumerate(args) if a.endswith(".relax") and args[i - 1] != "-o"]
        if not (ROOT / inputs[0]).exists():
            continue  # an example on a file of the reader's (broken.relax)
        args = [str(tmp_path / a) if i and args[i - 1] == "-o" else a
                for i, a in enumerate(args)]
        r = run_cli(*args)
        got = (r.stdout + r.stderr).decode().splitlines()
        assert got == shown, command
        ran += 1
    assert ran >= 1  # README: the --explain example; FORMAT.md: check's


def _recommended_bound() -> int:
    bounds = {int(n) for n in re.findall(r"--capture-symbolic seq_len:(\d+)", README)}
    assert len(bounds) == 1, bounds  # one value, wherever the README shows the option
    return bounds.pop()


@pytest.mark.parametrize("model, var", [(LLAMA_1B, "seq_len"),
                                        ("samples/models/prefill_decode.relax", "n")])
def test_recommended_bound_fits_without_a_warning(model, var):
    bound = _recommended_bound()
    r = run_cli("diff", model, "--capture-symbolic", f"{var}:{bound}", "--format", "json")
    assert r.returncode == 0 and r.stderr == b"", r.stderr.decode()
    data = json.loads(r.stdout)
    assert data["graph_count"]["warnings"] == []
    if model == LLAMA_1B:
        # what the README says it makes: 18 graph launches of prefill, one graph per value
        prefill = next(f for f in data["functions"] if f["name"] == "prefill")
        assert prefill["graphs_at_most"] == 18 * bound
        assert f"at most {18 * bound:,} graphs for prefill" in " ".join(README.split())


def test_links_lead_somewhere():
    for target in set(re.findall(r"\]\(([^)#]+)\)", README)) | \
            set(re.findall(r"\b(docs/[A-Z]+\.md)", README)):
        assert (ROOT / target).exists(), target


def test_glossary_defines_the_words_of_the_reports():
    glossary = (ROOT / "docs" / "GLOSSARY.md").read_text()
    for word in ("region", "graph", "capture function", "site", "host work", "one-kernel graph",
                 "bound", "shape fact", "term", "graph launch", "kernel launch",
                 "allocated, unshared, saved by sharing"):
        assert f"**{word}**:" in glossary, word
    assert "docs/GLOSSARY.md" in README


def test_the_glossarys_quotes_are_the_reports_words():
    """Issue 52: the glossary quoted "1,486 shape facts" where verify printed 1,587: a count
    that goes stale is not written; the words quoted are verify's own."""
    from cudagraph_cli.report.verify_view import values_words

    glossary = " ".join((ROOT / "docs" / "GLOSSARY.md").read_text().split())
    words = values_words({"batch_size": 32, "seq_len": 2048, "total_seq_len": 8192}, ())
    assert f'"memory: sizes and overlaps proved{words} (N shape facts: every tensor fits its ' \
        'storage, ...), 0 unproven"' in glossary
    assert re.search(r"\d shape facts", glossary) is None


def test_layout_is_for_contributors():
    contributing = (ROOT / "docs" / "CONTRIBUTING.md").read_text()
    assert "## Layout" not in README and "## Layout" in contributing
    assert "      passes/ " in contributing and "make test" in contributing
    assert "docs/CONTRIBUTING.md" in README


def test_the_demos_legend_names_the_marks_the_listing_prints():
    """Issue 52: `make demo`'s legend said '<-' where the listing marks a reason with '✗'."""
    from cli_runner import cgraph

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    legend = re.findall(r"'(.+?)' = ", makefile[makefile.index("== 3."):])
    demo = ROOT / "samples" / "models" / "decode_32.relax"
    r = cgraph("diff", demo, "--function", "decode", "--fold", "4")
    shown = "\n".join(r.stdout.splitlines()[:24])  # the demo's `| head -24`
    assert legend == ["✗"] and "  ✗ " in shown
    assert " R0   ┌ " in shown and " S0     storage" in shown  # R<n>, S<n> as the legend says
