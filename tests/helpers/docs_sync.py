"""The blocks of the docs made from cgraph's own code, so that they cannot drift from it: the
whole synopsis (cli.synopsis, from the commands' click parameters) between
`<!-- synopsis: ... -->` and `<!-- /synopsis -->` in docs/CLI.md (README.md's shorter one, a
line per command with the options a newcomer needs first, is checked against the same
synopsis by tests/test_docs_sync.py, not written); and the fields of RewriteOptions (their
one source, passes/options.py: name, default, flag, help) between `<!-- rewrite-options -->`
and `<!-- /rewrite-options -->` in docs/API.md. The test checks the blocks; this script
rewrites them (from the repository root):

    python tests/helpers/docs_sync.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ("docs/CLI.md",)
BLOCK = re.compile(r"(<!-- synopsis[^>]*-->\n```\n)(.*?)(```\n<!-- /synopsis -->)", re.S)


def synopsis_text() -> str:
    from cudagraph_cli.cli import main, synopsis

    return "".join(line + "\n" for line in synopsis(main))


OPTIONS_DOCS = ("docs/API.md",)
OPTIONS_BLOCK = re.compile(r"(<!-- rewrite-options -->\n)(.*?)(<!-- /rewrite-options -->)", re.S)


def options_table() -> str:
    """A Markdown table of RewriteOptions' fields, in order: name, default, the flag that sets
    it (`--compat tvm` turns every correction off), what it does (the field's own help)."""
    import dataclasses
    import enum

    from cudagraph_cli.passes.options import RewriteOptions

    rows = ["| field | default | flag | what it does |", "|---|---|---|---|"]
    for f in dataclasses.fields(RewriteOptions):
        meta = f.metadata
        default = f"{type(f.default).__name__}.{f.default.name}" \
            if isinstance(f.default, enum.Enum) else repr(f.default)
        flag = meta.get("flag") or ("--compat tvm: False" if meta.get("correction") else "")
        words = meta["help"] if not meta.get("correction") else f"correction {meta['help']}"
        rows.append(f"| `{f.name}` | `{default}` | {f'`{flag}`' if flag else '-'} | "
                    f"{words.replace('|', chr(92) + '|')} |")
    return "\n".join(rows) + "\n"


def options_blocks(text: str) -> list[str]:
    return [m.group(2) for m in OPTIONS_BLOCK.finditer(text)]


def synopsis_blocks(text: str) -> list[str]:
    """The contents of the file's synopsis blocks."""
    return [m.group(2) for m in BLOCK.finditer(text)]


def with_synopsis(text: str) -> str:
    return BLOCK.sub(lambda m: m.group(1) + synopsis_text() + m.group(3), text)


def main() -> int:
    sys.path.insert(0, str(ROOT))
    for name in DOCS:
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        if not synopsis_blocks(text):
            print(f"{name}: no synopsis block", file=sys.stderr)
            return 1
        path.write_text(with_synopsis(text), encoding="utf-8")
    for name in OPTIONS_DOCS:
        path = ROOT / name
        text = path.read_text(encoding="utf-8")
        if not options_blocks(text):
            print(f"{name}: no rewrite-options block", file=sys.stderr)
            return 1
        path.write_text(OPTIONS_BLOCK.sub(lambda m: m.group(1) + options_table() + m.group(3),
                                          text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
