"""Writing benchmark results into docs/BENCHMARKS.md: each benchmark owns one section, between
`<!-- NAME -->` and `<!-- /NAME -->`, replaced on every run (appended the first time)."""

from __future__ import annotations

import os
import platform
from datetime import date
from pathlib import Path


def machine() -> str:
    """Where a figure was measured, for the heading of its table."""
    return (f"{date.today()}, {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}")


def write_section(path: str, name: str, text: str) -> None:
    doc = Path(path)
    body = doc.read_text(encoding="utf-8") if doc.exists() else ""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    block = f"{start}\n{text.strip()}\n{end}"
    if start in body and end in body:
        before = body[:body.index(start)]
        after = body[body.index(end) + len(end):]
        body = before + block + after
    else:
        body = body.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(body, encoding="utf-8")


def gpu_heading(device: dict, simulated: bool) -> str:
    """Where a GPU figure was measured (a `cgraph run` report's device facts), for the heading
    of its table."""
    head = (f"{device.get('name', '?')} ({device.get('arch', '?')}), driver "
            f"{device.get('driver', device.get('cuda_driver', '?'))}, {date.today()}, "
            f"Python {platform.python_version()}")
    return head + (" -- SIMULATED driver: the timings mean nothing" if simulated else "")
