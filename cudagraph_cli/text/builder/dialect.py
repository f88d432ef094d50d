"""Dialect evidence: which of TVMScript's two spellings the text is written in.

TVM 0.27 prints the current dialect (`R.Any`, `ty_args`, `T.sblock`, `"tirx.noalias"`); older
releases printed the legacy one (`R.Object`, `sinfo_args`, `T.block`, `"tir.noalias"`). Each
spelling only one dialect uses is a vote; the module is printed back in the dialect with more
votes (a tie is current). Touches nothing but its two counters: the builder's other parts call
it where they read such a spelling.
"""

from __future__ import annotations

import re


# The TIR spellings of a PrimFunc body that only one dialect uses.
_LEGACY_PRIM_BODY = re.compile(r"\bT\.(?:block|alloc_buffer|block_attr)\(|\"tir\.noalias\"")
_CURRENT_PRIM_BODY = re.compile(r"\bT\.sblock\(|\"tirx\.noalias\"")


class Dialect:
    """The votes so far."""

    def __init__(self):
        self.legacy = 0
        self.current = 0

    def decorator(self, d) -> None:
        """`@I.ir_module(s_tir=True)` or `@T.prim_func(s_tir=True)`: only the current dialect
        has the argument."""
        if any(k.name == "s_tir" for k in d.kwargs):
            self.current += 1

    def prim_body(self, body: str) -> None:
        if _LEGACY_PRIM_BODY.search(body):
            self.legacy += 1
        if _CURRENT_PRIM_BODY.search(body):
            self.current += 1

    def verdict(self) -> str:
        return "legacy" if self.legacy > self.current else "current"
