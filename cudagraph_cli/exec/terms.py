"""What each byte is made of: the symbolic shadow of the reference backend (verify's verdict).

A rewrite for CUDA graphs never changes what a kernel computes, only which buffers it reads
and writes and when it runs (eagerly or replayed). So verify treats every kernel as an unknown
function of the bytes it reads, and compares what each output is *made of*: equal terms are
equal values for every input and every kernel body (docs/EXECUTOR.md, "What verify's verdict
guarantees"). Sample values cannot decide that: a difference that enters a residual add at
layer 0 is gone from the bytes of a 16-layer model's logits (the byte mix is not injective).

* A **term** is an int: `TermTable.intern(key)` hash-conses keys (tuples of ints and strings,
  themselves holding term ids), so equal ids are equal terms. One table serves both modules'
  runs. The keys:
  - `("input", function, call, path)`: a fresh input of a public function's call (`path`:
    the parameter's name and the place in its tuples, `x`, `packed[3]`);
  - `("weight", slot, path)`: a weight (verify shares them across functions by position);
  - `("const", digest, size)`: bytes given by value (a constant, a host-computed array);
  - `("apply", kernel, output, args, aliases)`: output `output` of a launch of `kernel` (its
    name, which arguments it writes, its non-tensor arguments, host state included) on
    `args`, one per tensor argument in order: `(dtype, shape, segments)` for an argument it
    reads, `(dtype, shape)` for one it writes; `aliases`: how its outputs overlap its other
    arguments (backend.launch_aliases: an unknown body's result depends on it);
  - UNINIT (id 0): memory nothing wrote. Never equal to a written term.
* A **segment list** says what a byte range holds: `((length, term, offset), ...)`, byte
  `offset + i` of `term` for the i-th byte of a piece. Canonical: adjacent pieces of one term
  at contiguous offsets are merged (UNINIT pieces merge whatever their offsets), so the same
  bytes always read as the same tuple.
* Each storage keeps a **segment map** (`Storage.terms`): sorted disjoint `[start, end, term,
  offset]` entries; bytes no entry covers are UNINIT. A write of a kernel's output replaces its
  range by one entry, so a storage holds about as many entries as the tensors that live in it
  at once: memory grows with tensors, not bytes.
"""

from __future__ import annotations

import bisect
import hashlib

UNINIT = 0


class TermTable:
    """Hash-consed terms: `intern(key)` -> id, `keys[id]` -> key."""

    def __init__(self):
        self.keys: list = [("uninit",)]
        self.ids: dict = {("uninit",): UNINIT}

    def intern(self, key) -> int:
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.keys)
            self.keys.append(key)
        return found

    def constant(self, data: bytes) -> int:
        """A term for bytes given by value (blake2b: two different byte strings never share
        one in practice)."""
        return self.intern(("const", hashlib.blake2b(data, digest_size=16).hexdigest(),
                            len(data)))


def read_segments(entries: list, a: int, b: int) -> tuple:
    """The canonical segment list of bytes a .. b of a storage's segment map."""
    out: list = []
    pos = a
    i = bisect.bisect_right(entries, [a, float("inf")]) - 1
    if i < 0:
        i = 0
    n = len(entries)
    while i < n and pos < b:
        start, end, term, off = entries[i]
        if end <= pos:
            i += 1
            continue
        if start >= b:
            break
        if start > pos:
            _append(out, start - pos, UNINIT, 0)
            pos = start
        stop = min(end, b)
        _append(out, stop - pos, term, off + (pos - start))
        pos = stop
        i += 1
    if pos < b:
        _append(out, b - pos, UNINIT, 0)
    return tuple(out)


def _append(out: list, length: int, term: int, off: int) -> None:
    if term == UNINIT:
        off = 0
    if out:
        plen, pterm, poff = out[-1]
        if pterm == term and (term == UNINIT or poff + plen == off):
            out[-1] = (plen + length, term, poff)
            return
    out.append((length, term, off))


def write_segments(entries: list, a: int, b: int, segments) -> None:
    """Bytes a .. b now hold `segments` (a canonical segment list of b - a bytes)."""
    if a >= b:
        return
    lo = bisect.bisect_right(entries, [a, float("inf")]) - 1
    if lo < 0 or entries[lo][1] <= a:
        lo += 1
    hi = lo
    kept_before = kept_after = None
    while hi < len(entries) and entries[hi][0] < b:
        start, end, term, off = entries[hi]
        if start < a:
            kept_before = [start, a, term, off]
        if end > b:
            kept_after = [b, end, term, off + (b - start)]
        hi += 1
    new = []
    if kept_before is not None:
        new.append(kept_before)
    pos = a
    for length, term, off in segments:
        if term != UNINIT:
            new.append([pos, pos + length, term, off])
        pos += length
    if kept_after is not None:
        new.append(kept_after)
    entries[lo:hi] = new


def describe_term(table: TermTable, term: int, sites: dict, module: str) -> str:
    """A term in words, for a difference's explanation: never printed whole."""
    key = table.keys[term]
    kind = key[0]
    if kind == "uninit":
        return "memory nothing wrote"
    if kind == "input":
        return f"input '{key[3]}' of '{key[1]}' call {key[2] + 1}"
    if kind == "weight":
        return f"weight '{key[2]}'"
    if kind == "const":
        return f"a constant of {key[2]} bytes"
    name = key[1][0]
    loc = sites.get(term)
    where = f" (line {loc.line}:{loc.col} of the {module})" if loc and loc.line else ""
    return f"output {key[2]} of kernel '{name}'{where}"


def first_segment_difference(sa: tuple, sb: tuple):
    """(byte offset, piece of a, piece of b) where two segment lists first differ, or None."""
    ia = ib = 0
    pa = pb = 0  # bytes consumed within the current pieces
    pos = 0
    while ia < len(sa) and ib < len(sb):
        la, ta, oa = sa[ia]
        lb, tb, ob = sb[ib]
        if ta != tb or (ta != UNINIT and oa + pa != ob + pb):
            return pos, (ta, oa + pa), (tb, ob + pb)
        step = min(la - pa, lb - pb)
        pos += step
        pa += step
        pb += step
        if pa == la:
            ia, pa = ia + 1, 0
        if pb == lb:
            ib, pb = ib + 1, 0
    if ia < len(sa) or ib < len(sb):
        return pos, None, None
    return None


def explain(table: TermTable, a: tuple, b: tuple, sites_a: dict, sites_b: dict):
    """Why two term signatures `(dtype, shape, segments)` differ: walks the two term DAGs down
    to the first point of divergence. Returns (words, location in the rewritten module of the
    kernel whose argument diverges, or None)."""
    context = None  # (kernel name, argument index, its location in the rewritten module)
    for _ in range(100000):  # a chain of launches: as deep as the model
        if a[:2] != b[:2]:
            what = f"{a[0]} {tuple(a[1])} vs {b[0]} {tuple(b[1])}"
            if context is None:
                return f"the output is {what}", None
            return (f"kernel '{context[0]}'{_at(context[2])} reads argument {context[1]} as "
                    f"{what} (original vs rewritten)"), context[2]
        found = first_segment_difference(a[2], b[2])
        if found is None:
            return "the terms agree", None
        pos, pa, pb = found
        if pa is None:
            return "the byte ranges differ in length", None
        (ta, oa), (tb, ob) = pa, pb
        ka, kb = table.keys[ta], table.keys[tb]
        if ta != tb and ka[0] == kb[0] == "apply" and ka[1][0] == kb[1][0] and oa == ob:
            name, loc = ka[1][0], sites_b.get(tb)
            if ka[1] == kb[1] and ka[2] == kb[2] and len(ka[3]) == len(kb[3]):
                i = next((i for i, (x, y) in enumerate(zip(ka[3], kb[3])) if x != y), None)
                if i is not None:
                    context = (name, i, loc)
                    a, b = ka[3][i], kb[3][i]
                    continue
                return (f"kernel '{name}'{_at(loc)} writes its outputs over its arguments "
                        f"differently: {_overlaps(ka[4])} in the original, {_overlaps(kb[4])} "
                        "in the rewritten"), loc
            if ka[1] != kb[1]:
                return (f"kernel '{name}'{_at(loc)} is launched with other non-tensor "
                        f"arguments: {ka[1][2]} in the original, {kb[1][2]} in the "
                        "rewritten (host state included)"), loc
        made_a = describe_term(table, ta, sites_a, "original")
        made_b = describe_term(table, tb, sites_b, "rewritten")
        if ta == tb:
            made_a += f" from byte {oa}"
            made_b += f" from byte {ob}"
        at = f"byte {pos}: " if pos else ""
        if context is None:
            return (f"{at}the output is {made_a} in the original, {made_b} in the rewritten",
                    sites_b.get(tb))
        return (f"kernel '{context[0]}'{_at(context[2])} reads argument {context[1]}: {at}"
                f"{made_a} in the original, {made_b} in the rewritten"), context[2]
    return "the terms differ (too deep to explain)", None


def _overlaps(aliases: tuple) -> str:
    if not aliases:
        return "no output overlaps an argument"
    return "; ".join(f"output argument {i} overlaps argument {j} ({n} bytes)"
                     for i, j, _, _, n in aliases)


def _at(loc) -> str:
    return f" (line {loc.line}:{loc.col} of the rewritten)" if loc and loc.line else ""


def launch_terms(table: TermTable, sites: dict, site, spec, tensors: list, scalars: list,
                 aliases: tuple) -> None:
    """Each output of a launch of `spec` (a KernelSpec) becomes `Apply(kernel, output,
    arguments)`; what the arguments hold is read before any output is written (in-place and
    overlapping arguments: `aliases`). `sites`: where each term was first made (`site`)."""
    args = []
    for i, t in enumerate(tensors):
        arr = t.array  # its NumPy dtype and shape: equal by value, and cheap to hash
        if i in spec.outputs:
            args.append((arr.dtype, arr.shape))
        else:
            args.append((arr.dtype, arr.shape,
                         read_segments(t.storage.terms, t.offset, t.offset + arr.nbytes)))
    kernel = (spec.name, spec.outputs, repr(list(scalars)))
    args = tuple(args)
    for k, i in enumerate(spec.outputs):
        t = tensors[i]
        term = table.intern(("apply", kernel, k, args, aliases))
        if term not in sites:
            sites[term] = site
        n = t.array.nbytes
        write_segments(t.storage.terms, t.offset, t.offset + n, ((n, term, 0),) if n else ())


def copy_terms(src, dst) -> None:
    """`dst`'s bytes are made of what `src`'s are (a copy)."""
    n = src.array.nbytes
    segments = read_segments(src.storage.terms, src.offset, src.offset + n)
    write_segments(dst.storage.terms, dst.offset, dst.offset + n, segments)
