"""The blocks of the docs made from cgraph's own commands, so that they cannot drift from
`--help`: the whole synopsis (cli.synopsis, from the commands' click parameters) between
`<!-- synopsis: ... -->` and `<!-- /synopsis -->` in docs/CLI.md. (README.md's shorter one, a
line per command with the options a newcomer needs first, is checked against the same
synopsis by tests/test_docs_sync.py, not written.) The test checks the block; this script
rewrites it (from the repository root):

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
    return 0


if __name__ == "__main__":
    sys.exit(main())
