"""Which kernels keep the rows of a symbolic dimension apart, decided from what their body does.

Bucketed capture (`--capture-buckets VAR:...`) runs a graph at a bucket `B >= v` rows, with the
rows past `v` holding whatever the storage held. That is sound for a kernel exactly when each
real row `r < v` of every output is the same whether the kernel runs at `VAR = v` or at
`VAR = B` with any pad rows: row-wise in VAR. The kernel is read once (text/tir_reader.py, the
model of ir/tir.py) and called row-wise only when the body shows it; the declared regions
(`T.reads`, `T.writes`) are never trusted over the body. The rules, each sufficient for the
next:

1. Buffers. A VAR-sized parameter has VAR itself as one dimension, only 1s before it, and
   compact strides if any (its first v rows are a prefix of its first B rows). A VAR-sized
   allocation has one dimension that grows with VAR (built from VAR, constants, `+`, `*` and
   `//`). No other dimension, stride or offset mentions VAR.
2. Rows. Every load and store of a VAR-sized buffer (and every `match_buffer` region of one)
   indexes its VAR dimension by the statement's row: one expression `(c1*x1 + ... + c0) // D`
   of the enclosing loops' variables (block iterators and lets substituted), with non-negative
   constant coefficients, no load (a gather) and no VAR. All of a statement's accesses, and its
   enclosing conditions', are at that one row. A block iterator that carries a row is spatial.
3. Coverage. A loop whose extent uses VAR grows with VAR, starts at 0, and enters every row
   inside it with a coefficient `c` large enough that the row reaches `v` once the loop reaches
   its extent at `v`: `c * extent(v) + c0 >= D * v` for every `v >= 1`, checked on a linear lower
   bound of the extent. So the iterations that compute a real row are the same at `v` and at
   `B`, in the same order: a loop of extent VAR that feeds no row (`b[i] = sum over k < n of
   a[i]`) fails here.
4. Nothing else. A store to a buffer that is not VAR-sized happens outside every row (no row
   loop around it, no row read, no VAR): no reduction across rows, no scratch rows share.
   VAR appears nowhere else (a value, a let, an index, a region, a condition), except in the
   guard `ROW < VAR` or `E < VAR * C` with `ROW = E // C`, which is true for every real row at
   `v` and at `B` (the guards scheduled GPU kernels write around a split loop).
5. What the reader does not model (a statement it keeps as unknown, a call it does not know, a
   pointer) is not row-wise, with its reason.

The verdict is per launch (`launch_verdict`): a PrimFunc names its variables as it likes (`B`,
`ntoken`, `seq_len`), and each launch binds them through its argument shapes; the verdict is
for the PrimFunc's variable the launch binds to the Relax VAR, and a launch that binds a
variable to an expression of VAR, or two of them to VAR, is not row-wise.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .. import ir
from ..ir import tir
from ..text.tir_reader import read

# Calls whose value is a pure function of their operands (or a barrier without data): anything
# else reaches memory or the outside in a way the model does not follow.
_PURE_CALLS = frozenset({
    "Cast", "if_then_else", "Select", "max", "min", "exp", "exp2", "exp10", "log", "log2",
    "log10", "log1p", "sqrt", "rsqrt", "tanh", "sigmoid", "erf", "pow", "cos", "sin", "tan",
    "acos", "asin", "atan", "atan2", "cosh", "sinh", "fabs", "abs", "floor", "ceil", "round",
    "nearbyint", "trunc", "truncmod", "truncdiv", "floordiv", "floormod", "ceildiv", "fmod",
    "isnan", "isinf", "isfinite", "likely", "min_value", "max_value", "infinity", "And", "Or",
    "Not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "shift_left",
    "shift_right", "reinterpret", "tvm_thread_invariant", "tvm_storage_sync", "tuple",
    "q_multiply_shift", "popcount", "copysign", "hypot", "ldexp", "nextafter", "clz",
})


class NotRowWise(Exception):
    """Why a kernel is not row-wise, in words."""


@dataclass(frozen=True)
class RowVerdict:
    """Whether `kernel` is row-wise in its variable `var`; `reason` says why not (None: it
    is). `rows`: the parameters sized by `var`, with the index of that dimension."""

    kernel: str
    var: str
    reason: str | None
    rows: tuple = ()  # ((parameter name, dimension index), ...)

    @property
    def row_wise(self) -> bool:
        return self.reason is None


def row_wise(prim: ir.PrimFunc, var: str) -> RowVerdict:
    """The verdict on `prim` for its symbolic variable `var` (the PrimFunc's own name)."""
    kernel = read(prim)
    try:
        rows = _Check(kernel, var).run()
    except NotRowWise as e:
        return RowVerdict(prim.name, var, str(e))
    return RowVerdict(prim.name, var, None, rows)


# -- rows as linear forms ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Row:
    """`(sum of coef * name + const) // div`."""

    coefs: tuple  # ((name, coef), ...) sorted, coefs != 0
    const: int
    div: int = 1

    def coef(self, name: str) -> int:
        return dict(self.coefs).get(name, 0)


def _linear(e, subst: dict, depth: int = 0):
    """(coefs dict, const) of `e` with `subst` applied, or None when `e` is not an integer
    linear form (a `//`, `%`, a load, a call...)."""
    if depth > 64:
        return None
    if isinstance(e, tir.Const):
        return ({}, e.value) if isinstance(e.value, int) and not isinstance(e.value, bool) \
            else None
    if isinstance(e, tir.Var):
        if e.name in subst:
            return _linear(subst[e.name], subst, depth + 1)
        return ({e.name: 1}, 0)
    if isinstance(e, tir.Op) and e.op in ("+", "-") and len(e.args) == 2:
        a, b = _linear(e.args[0], subst, depth + 1), _linear(e.args[1], subst, depth + 1)
        if a is None or b is None:
            return None
        sign = 1 if e.op == "+" else -1
        coefs = dict(a[0])
        for k, v in b[0].items():
            coefs[k] = coefs.get(k, 0) + sign * v
        return {k: v for k, v in coefs.items() if v}, a[1] + sign * b[1]
    if isinstance(e, tir.Op) and e.op == "*" and len(e.args) == 2:
        a, b = _linear(e.args[0], subst, depth + 1), _linear(e.args[1], subst, depth + 1)
        if a is None or b is None:
            return None
        if not a[0]:
            a, b = b, a
        if b[0]:
            return None
        return {k: v * b[1] for k, v in a[0].items() if v * b[1]}, a[1] * b[1]
    if isinstance(e, tir.Op) and e.op == "T.Cast" and len(e.args) == 2:
        return _linear(e.args[1], subst, depth + 1)
    return None


def _row(e, subst: dict, depth: int = 0) -> _Row | None:
    """`e` as a row form, or None."""
    if isinstance(e, tir.Var) and e.name in subst and depth < 64:
        return _row(subst[e.name], subst, depth + 1)
    if isinstance(e, tir.Op) and e.op == "//" and len(e.args) == 2:
        inner = _row(e.args[0], subst, depth + 1)
        d = _linear(e.args[1], subst)
        if inner is None or d is None or d[0] or d[1] <= 0:
            return None
        return _Row(inner.coefs, inner.const, inner.div * d[1])
    if isinstance(e, tir.Op) and e.op == "T.Cast" and len(e.args) == 2:
        return _row(e.args[1], subst, depth + 1)
    lin = _linear(e, subst, depth)
    if lin is None:
        return None
    return _Row(tuple(sorted(lin[0].items())), lin[1])


def _lower_bound(e, var: str):
    """(a, b) with `e(v) >= a * v + b` for every v >= 1, for an extent built from `var`,
    non-negative integer constants, `+`, `*` and `//`; None for anything else (not covering)."""
    if isinstance(e, tir.Var):
        return (Fraction(1), Fraction(0)) if e.name == var else None
    if isinstance(e, tir.Const):
        if isinstance(e.value, int) and not isinstance(e.value, bool) and e.value >= 0:
            return Fraction(0), Fraction(e.value)
        return None
    if isinstance(e, tir.Op) and e.op == "T.Cast" and len(e.args) == 2:
        return _lower_bound(e.args[1], var)
    if not isinstance(e, tir.Op) or len(e.args) != 2 or e.op not in ("+", "*", "//"):
        return None
    a, b = _lower_bound(e.args[0], var), _lower_bound(e.args[1], var)
    if a is None or b is None:
        return None
    if e.op == "+":
        return a[0] + b[0], a[1] + b[1]
    if e.op == "*":
        if a[0] and b[0]:
            return None  # VAR * VAR: grows, but keep the forms simple
        k, lin = (b[1], a) if not b[0] else (a[1], b)
        return lin[0] * k, lin[1] * k
    if b[0] or b[1] <= 0:
        return None  # a division by VAR, or by zero
    c = b[1]
    return a[0] / c, (a[1] - c + 1) / c


def _grows(e, var: str) -> bool:
    """Is the extent `e` non-decreasing in `var` (built from it, constants, + * //)?"""
    return var not in tir.names(e) or _lower_bound(e, var) is not None


# -- the check ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Loop:
    var: str
    start: object
    extent: object
    row: bool  # its extent uses VAR


@dataclass(frozen=True)
class _Ctx:
    loops: tuple = ()
    subst: tuple = ()  # ((name, expression), ...): iterator bindings and lets
    conds: tuple = ()  # enclosing conditions, where-predicates, let values, match regions
    row_iters: tuple = ()  # block iterators bound to a row loop (must be spatial)
    block: str = ""

    def with_(self, **kw) -> "_Ctx":
        d = {k: getattr(self, k) for k in ("loops", "subst", "conds", "row_iters", "block")}
        d.update(kw)
        return _Ctx(**d)


class _Check:
    def __init__(self, kernel: tir.Kernel, var: str):
        self.k = kernel
        self.var = var
        self.row_dims: dict = {}  # buffer -> its VAR dimension
        self.local_rows: dict = {}  # a matched buffer -> the row region it views

    def run(self) -> tuple:
        if self.k.error is not None:
            raise NotRowWise(self.k.error)
        if self.var in self.k.scalars:
            raise NotRowWise(f"it takes {self.var} as a scalar parameter")
        for b in self.k.buffers.values():
            self._buffer(b)
        self._stmts(self.k.body, _Ctx())
        out = []
        for name in self.k.params:
            b = self.k.buffers.get(name)
            if b is not None and name in self.row_dims:
                out.append((name, self.row_dims[name]))
        for b in self.k.buffers.values():
            if b.origin == "match" and b.handle is not None and b.name in self.row_dims:
                out.append((b.handle, self.row_dims[b.name]))
        return tuple(out)

    def _mentions(self, e) -> bool:
        return e is not None and self.var in tir.names(e)

    # -- buffers -------------------------------------------------------------------------

    def _buffer(self, b: tir.Buffer):
        v = self.var
        if self._mentions(b.elem_offset):
            raise NotRowWise(f"the offset of {b.name} is {tir.text(b.elem_offset)}, an "
                             f"expression of {v}")
        if any(self._mentions(s) for s in b.strides or ()):
            raise NotRowWise(f"the strides of {b.name} use {v}")
        found = [i for i, d in enumerate(b.shape) if self._mentions(d)]
        if not found:
            if b.origin == "match" and b.source is not None and \
                    b.source.buffer in self.k.buffers:
                self.local_rows[b.name] = b.source
            return
        if len(found) > 1:
            raise NotRowWise(f"{b.name} has {len(found)} dimensions sized by {v}")
        k = found[0]
        dim = b.shape[k]
        if b.origin == "alloc":
            if not _grows(dim, v):
                raise NotRowWise(f"dimension {k} of {b.name} is {tir.text(dim)}, which does "
                                 f"not grow with {v}")
            self.row_dims[b.name] = k
            return
        if b.origin == "match" and b.handle is None:
            raise NotRowWise(f"{b.name} matches a region sized by {v}")
        if dim != tir.Var(v):
            raise NotRowWise(f"dimension {k} of {b.name} is {tir.text(dim)}, not {v}")
        if any(not (isinstance(d, tir.Const) and d.value == 1) for d in b.shape[:k]):
            raise NotRowWise(f"{v} is not the leading dimension of {b.name} "
                             f"({', '.join(tir.text(d) for d in b.shape)})")
        if b.strides:
            self._compact(b, k)
        self.row_dims[b.name] = k

    def _compact(self, b: tir.Buffer, k: int):
        """Strides of a VAR-sized parameter must be the compact ones from its row on."""
        if len(b.strides) != len(b.shape):
            raise NotRowWise(f"{b.name} has {len(b.strides)} strides for {len(b.shape)} "
                             f"dimensions")
        expect = 1
        for i in range(len(b.shape) - 1, k - 1, -1):
            s = b.strides[i]
            if not isinstance(s, tir.Const) or s.value != expect:
                strides = ", ".join(tir.text(x) for x in b.strides)
                raise NotRowWise(f"{b.name} has strides ({strides}), not compact: its rows "
                                 f"are not where a bucket puts them")
            d = b.shape[i]
            if i > k:
                if not isinstance(d, tir.Const):
                    raise NotRowWise(f"{b.name} has strides and a dimension "
                                     f"{tir.text(d)} this reader cannot size")
                expect *= d.value

    # -- statements ----------------------------------------------------------------------

    def _stmts(self, stmts, ctx: _Ctx):
        for s in stmts:
            if isinstance(s, tir.LetStmt):
                self._fresh(s.var, ctx)
                self._no_var(s.value, ctx, f"the let {s.var} = {tir.text(s.value)}")
                ctx = ctx.with_(subst=ctx.subst + ((s.var, s.value),),
                                conds=ctx.conds + (s.value,))
                continue
            self._stmt(s, ctx)

    def _stmt(self, s, ctx: _Ctx):
        if isinstance(s, tir.For):
            self._loop(s, ctx)
        elif isinstance(s, tir.Block):
            self._block(s, ctx)
        elif isinstance(s, tir.Store):
            self._store(s, ctx)
        elif isinstance(s, tir.If):
            inner = ctx.with_(conds=ctx.conds + (s.cond,))
            self._stmts(s.then, inner)
            self._stmts(s.orelse, inner)
            if not s.then and not s.orelse:
                self._no_var(s.cond, ctx, "a condition")
        elif isinstance(s, tir.Evaluate):
            self._calls(s.value)
            if self._mentions(s.value):
                raise NotRowWise(f"it evaluates {tir.text(s.value)}, which uses {self.var}")
        elif isinstance(s, (tir.Decl, tir.Alloc)):
            return
        elif isinstance(s, tir.Unknown):
            raise NotRowWise(f"it has a statement this reader does not model: {s.text}")
        else:
            raise NotRowWise(f"it has a statement this reader does not model: {s!r}"[:200])

    def _loop(self, s: tir.For, ctx: _Ctx):
        self._fresh(s.var, ctx)
        row = self._mentions(s.extent)
        if self._mentions(s.start):
            raise NotRowWise(f"a loop starts at {tir.text(s.start)}, an expression of "
                             f"{self.var}")
        if row:
            if not _grows(s.extent, self.var):
                raise NotRowWise(f"a loop runs over {tir.text(s.extent)}, which does not "
                                 f"grow with {self.var}")
            if s.start != tir.Const(0):
                raise NotRowWise(f"the loop over {s.var} runs over {self.var} from "
                                 f"{tir.text(s.start)}, not from 0")
        self._calls(s.extent)
        self._stmts(s.body, ctx.with_(loops=ctx.loops + (_Loop(s.var, s.start, s.extent, row),)))

    def _fresh(self, name: str, ctx: _Ctx):
        """A loop, iterator or let that shadows a name bound around it is not modelled (the
        rows would be read against the wrong variable)."""
        if name == self.var or name in {lp.var for lp in ctx.loops} or \
                name in dict(ctx.subst):
            raise NotRowWise(f"it binds {name} again inside a scope that binds it, which this "
                             f"reader does not model")

    def _block(self, b: tir.Block, ctx: _Ctx):
        v = self.var
        for it in b.iters:
            self._fresh(it.name, ctx)
        row_loops = {lp.var for lp in ctx.loops if lp.row}
        subst = dict(ctx.subst)
        row_iters = list(ctx.row_iters)
        extents = {lp.var: lp.extent for lp in ctx.loops}
        for it in b.iters:
            if self._mentions(it.binding):
                raise NotRowWise(f"block {b.name!r}: iterator {it.name} is bound to "
                                 f"{tir.text(it.binding)}, an expression of {v}")
            dom = it.dom if it.dom is not None else extents.get(
                it.binding.name if isinstance(it.binding, tir.Var) else None)
            if dom is not None and self._mentions(dom) and not _grows(dom, v):
                raise NotRowWise(f"block {b.name!r}: iterator {it.name} runs over "
                                 f"{tir.text(dom)}, which does not grow with {v}")
            carries = bool(self._loop_names(it.binding, subst) & row_loops)
            if dom is not None and self._mentions(dom) and not carries:
                raise NotRowWise(f"block {b.name!r}: iterator {it.name} is declared over "
                                 f"{tir.text(dom)} and runs over no row of {v}")
            if carries and it.kind != "S":
                kind = "reduction" if it.kind == "R" else it.kind
                raise NotRowWise(f"block {b.name!r}: the {kind} iterator {it.name} runs over "
                                 f"a loop whose extent uses {v} (a {kind} across the rows, or "
                                 f"as many times as there are rows)")
            if carries:
                row_iters.append(it.name)
            subst[it.name] = it.binding
            self._calls(it.binding)
        conds = ctx.conds
        if b.where is not None:
            conds = conds + (b.where,)
        for m in b.matches:
            if m.source is not None:
                conds = conds + (m.source,)
        inner = ctx.with_(subst=tuple(subst.items()), conds=conds,
                          row_iters=tuple(row_iters), block=b.name)
        self._stmts(b.init + b.body, inner)
        # The declared regions, after the body: never trusted over it, but a region that
        # reaches other rows, or uses VAR, is refused as the body would be.
        regions = inner.with_(conds=inner.conds + b.reads + b.writes)
        self._check_accesses(None, regions, body=False)

    def _loop_names(self, e, subst: dict, depth: int = 0) -> set:
        out = set()
        for n in tir.names(e):
            if n in subst and depth < 64:
                out |= self._loop_names(subst[n], subst, depth + 1)
            else:
                out.add(n)
        return out

    def _store(self, s: tir.Store, ctx: _Ctx):
        self._check_accesses(s, ctx)

    # -- one statement's accesses ----------------------------------------------------------

    def _check_accesses(self, s: tir.Store | None, ctx: _Ctx, body: bool = True):
        """The rules 2 to 4 for one store and its context (for a block's declared regions
        when `body` is False: no store, and no row needed)."""
        exprs = list(ctx.conds)
        if s is not None:
            exprs += list(s.indices) + [s.value]
        for e in exprs:
            self._calls(e)
        subst = dict(ctx.subst)
        where = f"block {ctx.block!r}" if ctx.block else "the kernel"
        accesses = []  # (buffer, row dim, index)
        if s is not None:
            accesses += self._row_access(s.buffer, s.indices, where)
        for e in exprs:
            for x in tir.walk(e):
                if isinstance(x, tir.Load):
                    accesses += self._row_access(x.buffer, x.indices, where)
        for e in exprs + ([s] if s is not None else []):
            self._no_row_gather(e, where)
        rows = []
        for buf, idx in accesses:
            if isinstance(idx, tir.Slice) and _linear(tir.Op("-", (idx.stop, idx.start)),
                                                      {}) == ({}, 1):
                idx = idx.start
            if isinstance(idx, tir.Slice):
                raise NotRowWise(f"{where} reaches rows {tir.text(idx)} of {buf} at once")
            if any(isinstance(x, tir.Load) for x in tir.walk(idx)):
                raise NotRowWise(f"{where} indexes the rows of {buf} by {tir.text(idx)}, an "
                                 f"index read from memory: a pad row's value could reach "
                                 f"any row")
            if self._mentions(idx):
                raise NotRowWise(f"{where} indexes the rows of {buf} by {tir.text(idx)}, "
                                 f"which uses {self.var}")
            r = _row(idx, subst)
            if r is None:
                raise NotRowWise(f"{where} indexes the rows of {buf} by {tir.text(idx)}, a "
                                 f"form this reader does not model")
            rows.append((buf, idx, r))
        row = rows[0][2] if rows else None
        for buf, idx, r in rows[1:]:
            if r != row:
                raise NotRowWise(f"{where} reaches row {tir.text(idx)} of {buf} beside row "
                                 f"{tir.text(rows[0][1])} of {rows[0][0]}")
        target_rows = s is None or bool(self._row_access(s.buffer, s.indices, where))
        if not target_rows:
            row_loops = [lp.var for lp in ctx.loops if lp.row]
            if rows or row_loops:
                what = f"the rows of {rows[0][0]}" if rows else f"a loop over {self.var}"
                raise NotRowWise(f"{where} writes {s.buffer}, which has no {self.var} "
                                 f"dimension, inside {what}: a reduction across the rows, or "
                                 f"scratch the rows share")
        if row is not None:
            self._covers(row, ctx, where, rows[0])
        elif body and any(lp.row for lp in ctx.loops):
            raise NotRowWise(f"{where} runs inside a loop over {self.var} but reaches no row")
        for e in exprs:
            self._only_guards(e, row, subst, where)

    def _no_row_gather(self, e, where: str):
        """No index of any access is read from a VAR-sized buffer: a pad row's value would
        be an index at a bucket (out of bounds, or another row)."""
        loads = [tir.Load(e.buffer, e.indices)] if isinstance(e, tir.Store) else \
            [x for x in tir.walk(e) if isinstance(x, tir.Load)]
        for x in loads:
            for i in x.indices:
                for y in tir.walk(i):
                    if isinstance(y, tir.Load) and self._row_access(y.buffer, y.indices,
                                                                    where):
                        raise NotRowWise(f"{where} indexes {x.buffer} by {tir.text(i)}, an "
                                         f"index read from the rows of {y.buffer}: a pad "
                                         f"row's value could reach any row")

    def _row_access(self, buf: str, indices: tuple, where: str) -> list:
        if buf in self.local_rows:
            src = self.local_rows[buf]
            return self._row_access(src.buffer, src.indices, where)
        if buf not in self.k.buffers:
            raise NotRowWise(f"{where} reaches {buf}, a buffer this reader does not know")
        k = self.row_dims.get(buf)
        if k is None:
            return []
        if k >= len(indices):
            raise NotRowWise(f"{where} reaches {buf} with {len(indices)} indices")
        return [(buf, indices[k])]

    def _covers(self, row: _Row, ctx: _Ctx, where: str, first):
        """Rule 3: every loop over VAR around the statement enters its row enough."""
        loops = {lp.var for lp in ctx.loops}
        if row.const < 0 or any(c < 0 for _, c in row.coefs):
            raise NotRowWise(f"{where} reaches row {tir.text(first[1])} of {first[0]}, a "
                             f"neighbouring row")
        starts = {lp.var: lp.start for lp in ctx.loops}
        for name, _ in row.coefs:
            start = starts.get(name)
            if not (isinstance(start, tir.Const) and isinstance(start.value, int) and
                    start.value >= 0):
                start = None
            if name not in loops or start is None:
                raise NotRowWise(f"{where} reaches row {tir.text(first[1])} of {first[0]}, "
                                 f"which depends on {name}, not a loop counting up from 0 or more")
        for lp in ctx.loops:
            if not lp.row:
                continue
            a, b = _lower_bound(lp.extent, self.var)
            c = row.coef(lp.var)
            slope = c * a - row.div
            if slope < 0 or slope + c * b + row.const < 0:
                raise NotRowWise(f"{where} runs inside a loop of {tir.text(lp.extent)} "
                                 f"iterations over {lp.var} that does not enter its row "
                                 f"{tir.text(first[1])} one to one: more iterations at a "
                                 f"larger {self.var} reach the same rows")

    def _only_guards(self, e, row: _Row | None, subst: dict, where: str):
        """Rule 4: VAR in `e` only inside the guard `ROW < VAR` (or `E < VAR * C`)."""
        if not self._mentions(e):
            return
        if row is not None and self._is_guard(e, row, subst):
            return
        if isinstance(e, tir.Var):
            raise NotRowWise(f"{where} uses {self.var} as a value, which a bucket changes")
        for c in tir.children(e):
            try:
                self._only_guards(c, row, subst, where)
            except NotRowWise as err:
                if str(err).endswith("which a bucket changes"):
                    raise NotRowWise(f"{where} computes {tir.text(e)} from {self.var}, which "
                                     f"a bucket changes") from None
                raise

    def _is_guard(self, e, row: _Row, subst: dict) -> bool:
        if not isinstance(e, tir.Op) or len(e.args) != 2:
            return False
        if e.op == "<":
            left, right = e.args
        elif e.op == ">":
            right, left = e.args
        else:
            return False
        if self._mentions(left):
            return False
        scale = 1
        if right != tir.Var(self.var):
            lin = _linear(right, {})
            if lin is None or set(lin[0]) != {self.var} or lin[1] != 0 or \
                    lin[0][self.var] <= 0:
                return False
            scale = lin[0][self.var]
        g = _row(left, subst)
        if g is None:
            return False
        return _Row(g.coefs, g.const, g.div * scale) == row

    def _no_var(self, e, ctx: _Ctx, what: str):
        if self._mentions(e):
            raise NotRowWise(f"{what} uses {self.var}, which a bucket changes")

    def _calls(self, e):
        for x in tir.walk(e):
            if isinstance(x, tir.Op) and x.op[0].isalpha() and x.op not in ("and", "or",
                                                                             "not", "neg"):
                name = x.op.rsplit(".", 1)[-1]
                if name not in _PURE_CALLS:
                    raise NotRowWise(f"it calls {x.op}, which this reader does not model")
            elif isinstance(x, tir.Op) and x.op.startswith("?"):
                raise NotRowWise(f"it has an expression this reader does not model "
                                 f"({x.op[1:]})")


# -- the launches of a module ------------------------------------------------------------------


def _shape_dims(sinfo) -> tuple | None:
    shape = getattr(sinfo, "shape", None)
    return tuple(shape) if isinstance(shape, tuple) else None


def launched_prim_vars(call: ir.Call, prim: ir.PrimFunc, var: str):
    """The PrimFunc's own names for the Relax variable `var` at this launch: the set of names
    found where a tensor argument has `var` as a dimension (None when no argument has).
    NotRowWise when the launch binds a PrimFunc variable to an expression of `var`, gives
    `var` as a value, or binds one of the names found to something else too."""
    kernel = read(prim)
    names: set = set()
    others: dict = {}  # prim name -> what else the launch binds it to
    tensors = [a for a in call.args if isinstance(a, ir.Var) and _shape_dims(a.sinfo)
               is not None]
    params = [p for p in prim.params if p.kind == "buffer"]
    for a in call.args:
        if not (isinstance(a, ir.Var) and _shape_dims(a.sinfo) is not None) and \
                _mentions_relax(a, var):
            raise NotRowWise(f"the launch gives it {var} as a value, which a bucket changes")
    found = False
    for arg, param in zip(tensors, params):
        dims = _shape_dims(arg.sinfo) or ()
        for d in dims:
            if not isinstance(d, ir.SymVar) and \
                    any(v.name == var for v in ir.prim_vars(d)):
                raise NotRowWise(f"its argument {arg.name} has the dimension "
                                 f"{_relax_text(d)}, an expression of {var}")
        buf = kernel.buffers.get(param.name)
        shape = buf.shape if buf is not None else ()
        if len(dims) != len(shape):
            continue
        for d, pdim in zip(dims, shape):
            is_var = isinstance(d, ir.SymVar) and d.name == var
            if is_var:
                found = True
                if isinstance(pdim, tir.Var):
                    names.add(pdim.name)
                else:
                    raise NotRowWise(f"its parameter {param.name} has the dimension "
                                     f"{tir.text(pdim)} where the launch passes {var}")
            elif isinstance(pdim, tir.Var):
                others.setdefault(pdim.name, _relax_text(d))
    if not found:
        return None
    both = sorted(n for n in names if n in others)
    if both:
        raise NotRowWise(f"the launch binds its {both[0]} to {var} and to {others[both[0]]}")
    return names


def _mentions_relax(e, var: str) -> bool:
    """Does a launch argument that is not a tensor (a shape, a prim value) mention `var`?"""
    if isinstance(e, ir.SymVar):
        return e.name == var
    try:
        return any(v.name == var for v in ir.prim_vars(e))
    except Exception:  # noqa: BLE001 -- prim_vars takes prim expressions only
        pass
    for field in ("values", "fields", "value"):
        sub = getattr(e, field, None)
        if isinstance(sub, tuple) and any(_mentions_relax(x, var) for x in sub):
            return True
        if sub is not None and not isinstance(sub, tuple) and sub is not e and \
                _mentions_relax(sub, var):
            return True
    return False


def _relax_text(e) -> str:
    """A Relax shape dimension in words (a reason's text, not TVMScript)."""
    if isinstance(e, ir.SymVar):
        return e.name
    if isinstance(e, ir.IntImm):
        return str(e.value)
    if isinstance(e, ir.PrimBinOp):
        return f"{_relax_text(e.lhs)} {e.op} {_relax_text(e.rhs)}"
    return type(e).__name__


class LaunchVerdicts:
    """The verdict of each launch of a module's kernels for the Relax variable `var`,
    computed once per (PrimFunc, its variable)."""

    def __init__(self, module: ir.Module, var: str):
        self.prims = {f.name: f for f in module.functions if isinstance(f, ir.PrimFunc)}
        self.var = var
        self._memo: dict = {}

    def of(self, call: ir.Call) -> RowVerdict | None:
        """The verdict for this launch; None when it launches no PrimFunc of the module or
        passes no tensor sized by the variable."""
        if not isinstance(call.op, ir.GlobalVarRef):
            return None
        prim = self.prims.get(call.op.name)
        if prim is None:
            return None
        try:
            names = launched_prim_vars(call, prim, self.var)
        except NotRowWise as e:
            return RowVerdict(prim.name, self.var, str(e))
        if names is None:
            return None
        if len(names) != 1:
            return RowVerdict(prim.name, self.var, f"its parameters name {self.var} as "
                              f"{', '.join(sorted(names))}, not as one variable")
        key = (prim.name, next(iter(names)))
        if key not in self._memo:
            self._memo[key] = row_wise(prim, key[1])
        return self._memo[key]


def kernel_verdicts(module: ir.Module, var: str, functions=None) -> dict:
    """{PrimFunc name: RowVerdict} for every PrimFunc that a Relax function of the module
    (of `functions`, when given) launches with a tensor sized by `var`: the first launch's
    verdict, or the first launch that is not row-wise (a kernel is row-wise here when every
    launch of it is)."""
    verdicts = LaunchVerdicts(module, var)
    out: dict = {}
    for f in module.relax_functions():
        if functions is not None and f.name not in functions:
            continue
        for block in f.blocks:
            for b in block.bindings:
                if not isinstance(b.value, ir.Call):
                    continue
                v = verdicts.of(b.value)
                if v is None:
                    continue
                if v.kernel not in out or (out[v.kernel].row_wise and not v.row_wise):
                    out[v.kernel] = v
    return out
