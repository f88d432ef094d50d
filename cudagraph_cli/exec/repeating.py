"""Bytes of a storage kept as a repeating block instead of written out (kernels.Periodic).

A model's weights repeat a random block (verify's inputs, exec/inputs.py), and a synthetic
kernel of repeating inputs writes a repeating output: the reference backend keeps such bytes
as their block, written out into the storage's `data` only where something reads them
densely. So a model's weights and what is made from them alone cost their blocks, not their
size, and the memory a run takes grows with its activations."""

from __future__ import annotations

import numpy as np

from .kernels import Periodic


class RepeatingBytes:
    """The repeating ranges of one storage: [start, end, block, anchor] each, disjoint, byte
    j of a range being block[(j - anchor) % len(block)]. The other bytes are the storage's
    `data`."""

    __slots__ = ("ranges",)

    def __init__(self):
        self.ranges: list = []

    def __bool__(self) -> bool:
        return bool(self.ranges)

    def add(self, start: int, end: int, block: np.ndarray, anchor: int) -> None:
        """Bytes start .. end repeat `block` (uint8) from `anchor` on; they must hold no
        other range (take_out first)."""
        self.ranges.append([start, end, block, anchor])

    @staticmethod
    def piece(start: int, end: int, block: np.ndarray, anchor: int, x: int, n: int) -> Periodic:
        """Bytes x .. x + n of the range [start, end, block, anchor], as a Periodic."""
        return Periodic(block, end - anchor).shifted(x - anchor, n)

    def take_out(self, data: np.ndarray, a: int, b: int, write_out: bool) -> None:
        """Take bytes a .. b out of the repeating ranges: written out into `data` first when
        `write_out` (someone reads them), else dropped (being overwritten)."""
        kept = []
        for start, end, block, anchor in self.ranges:
            if end <= a or start >= b:
                kept.append([start, end, block, anchor])
                continue
            x, y = max(a, start), min(b, end)
            if write_out:
                data[x:y] = self.piece(start, end, block, anchor, x, y - x).dense()
            if start < x:
                kept.append([start, x, block, anchor])
            if y < end:
                kept.append([y, end, block, anchor])
        self.ranges = kept

    def source(self, data: np.ndarray, a: int, n: int, reads: int):
        """Bytes a .. a + n as a kernel reads them: a Periodic when one range holds them all,
        else dense (the first `reads` of them written out, which is all a kernel reads)."""
        for start, end, block, anchor in self.ranges:
            if start <= a and a + n <= end:
                return self.piece(start, end, block, anchor, a, n)
        if self.ranges:
            self.take_out(data, a, a + min(n, reads), write_out=True)
        return data[a:a + n]

    def read(self, data: np.ndarray, a: int, b: int, copy: bool = False) -> np.ndarray:
        """Bytes a .. b as they are, without writing out the repeating ranges (a view of
        `data` where none meets them, unless `copy`; else a fresh array)."""
        meets = [r for r in self.ranges if r[0] < b and a < r[1]]
        if not meets:
            view = data[a:b]
            return view.copy() if copy else view
        out = data[a:b].copy()
        for start, end, block, anchor in meets:
            x, y = max(a, start), min(b, end)
            out[x - a:y - a] = self.piece(start, end, block, anchor, x, y - x).dense()
        return out

    def pieces(self, data: np.ndarray, a: int, n: int) -> list | None:
        """Bytes a .. a + n as (offset, dense bytes or Periodic) pieces in order, when they
        mix dense bytes and repeating ranges (a KV cache grown past what was appended); None
        when no range meets them or one holds them all (`source` reads those)."""
        ranges = sorted(r for r in self.ranges if r[0] < a + n and a < r[1])
        if not ranges or (ranges[0][0] <= a and a + n <= ranges[0][1]):
            return None
        pieces, at = [], a
        for start, end, block, anchor in ranges:
            x, y = max(a, start), min(a + n, end)
            if at < x:
                pieces.append((at, np.array(data[at:x])))
            pieces.append((x, self.piece(start, end, block, anchor, x, y - x)))
            at = y
        if at < a + n:
            pieces.append((at, np.array(data[at:a + n])))
        return pieces
