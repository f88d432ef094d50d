"""Row independence of a TIR kernel read by TVM 0.27 itself: a second reader, for the tests.

cgraph decides in passes/row_wise.py whether a kernel is row-wise in a variable VAR (each real
row r < VAR of every output is the same when the kernel runs at VAR = n or at VAR = B > n with
arbitrary pad rows). This module decides it again from TVM's own parse of the kernel
(`tvm.script.from_source`), with TVM's IR nodes and `tvm.sym.Analyzer` (TVM 0.27's arith), and
shares nothing with cgraph. Declared regions (`T.reads`, `T.writes`) are never read: only the
body is.

The rule, conservative (what it does not model is "not row-wise", with the reason):

- Row-sized buffers: parameters with one dimension exactly VAR, only extent-1 dimensions before
  it, VAR in no stride or offset; local allocations with one dimension that uses VAR (non-
  decreasing in it). Any other buffer that mentions VAR is refused.
- Each store to a row-sized buffer has a row R: its row index with the block iterators replaced
  by their bindings (the analyzer's substitution). Every load of a row-sized buffer in its
  value, its indices, the conditions above it (`if`, `T.where`) and the lets it uses has row R.
  No index reads memory.
- VAR appears in a value only as a guard `R < VAR`, or `E < VAR * C` with R = E // C.
- A loop whose extent uses VAR (its minimum must not) has an extent non-decreasing in VAR, and
  every store to a row-sized buffer under it has an R that uses the loop variable, grows with
  it, and reaches VAR once the loop passes its extent at VAR (the analyzer proves R >= VAR
  there): so a bucket's extra iterations only touch pad rows. A block iterator whose domain uses
  VAR must be the row of every store of its block.
- A store to a buffer without rows reads no row-sized buffer and uses VAR nowhere. Under a loop
  over VAR, the buffer is allocated inside that loop, or every iteration stores the same values
  at the same places (a weight's tile in shared memory: no loop over VAR in the value, index or
  condition, no read of a buffer stored inside such a loop).
- No index (through a let too), block binding or loop bound read from memory; calls: pure
  intrinsics only (no pointer, no extern, no packed call); a statement or expression not listed
  here is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import tvm
from tvm import s_tir, sym, tirx
from tvm.ir import expr as ir_expr
from tvm.ir.prim import expr as prim

_PURE_KINDS = (0, 1)  # CallEffectKind: ExprAnnotation, Pure
_OPAQUE_OPS = frozenset({"tirx.address_of", "tirx.tvm_access_ptr", "tirx.call_extern",
                         "tirx.call_pure_extern", "tirx.call_packed", "tirx.call_cpacked",
                         "tirx.call_llvm_intrin", "tirx.call_llvm_pure_intrin",
                         "tirx.tvm_stack_make_array", "tirx.reinterpret", "tirx.ptx_cp_async"})
_BINARY = (prim.Add, prim.Sub, prim.Mul, prim.Div, prim.Mod, prim.FloorDiv, prim.FloorMod,
           prim.Min, prim.Max, prim.EQ, prim.NE, prim.LT, prim.LE, prim.GT, prim.GE, prim.And,
           prim.Or, prim.BitwiseAnd, prim.BitwiseOr, prim.BitwiseXor, prim.LShift, prim.RShift)


class NotRowWise(Exception):
    """Why a kernel is not row-wise, in words."""


def row_wise(func: tirx.PrimFunc, var_name: str) -> tuple[bool, str]:
    """(True, why) when `func` is row-wise in its variable `var_name`, else (False, reason)."""
    try:
        return True, _Kernel(func, var_name).check()
    except NotRowWise as e:
        return False, str(e)


def uses(e, v) -> bool:
    """Does expression `e` mention the variable `v` (by identity)?"""
    found = []

    def visit(x):
        if isinstance(x, ir_expr.Var) and x.same_as(v):
            found.append(x)
    _post_order(e, visit)
    return bool(found)


def _children(e) -> list:
    """The operand expressions of `e`; NotRowWise for a node this reader does not model."""
    if isinstance(e, (ir_expr.Var, prim.IntImm, prim.FloatImm, ir_expr.StringImm)):
        return []
    if isinstance(e, _BINARY):
        return [e.a, e.b]
    if isinstance(e, (prim.Not, prim.BitwiseNot)):
        return [e.a]
    if isinstance(e, prim.Cast):
        return [e.value]
    if isinstance(e, prim.Select):
        return [e.condition, e.true_value, e.false_value]
    if isinstance(e, ir_expr.TensorLoad):
        return list(e.indices)
    if isinstance(e, ir_expr.Call):
        return list(e.args)
    if isinstance(e, prim.Let):
        return [e.value, e.body]
    if isinstance(e, prim.Ramp):
        return [e.base, e.stride]
    if isinstance(e, prim.Broadcast):
        return [e.value]
    raise NotRowWise(f"an expression this reader does not model: {type(e).__name__}")


def _post_order(e, visit):
    for c in _children(e):
        _post_order(c, visit)
    visit(e)


def _nondecreasing(e, v) -> bool:
    """Is `e` non-decreasing in `v` by its form (+, * and // by non-negative constants, min,
    max, casts)? False when unsure."""
    if not uses(e, v):
        return True
    if isinstance(e, ir_expr.Var):
        return True
    if isinstance(e, (prim.Add, prim.Min, prim.Max)):
        return _nondecreasing(e.a, v) and _nondecreasing(e.b, v)
    if isinstance(e, prim.Sub):
        return _nondecreasing(e.a, v) and not uses(e.b, v)
    if isinstance(e, prim.Mul):
        for x, k in ((e.a, e.b), (e.b, e.a)):
            if isinstance(k, prim.IntImm) and k.value >= 0:
                return _nondecreasing(x, v)
        return False
    if isinstance(e, prim.FloorDiv):
        return isinstance(e.b, prim.IntImm) and e.b.value > 0 and _nondecreasing(e.a, v)
    if isinstance(e, prim.Cast):
        return "int" in _dtype(e) and _nondecreasing(e.value, v)
    return False


@dataclass
class _Loop:
    var: object
    min: object
    extent: object
    over_rows: bool  # its extent uses VAR


@dataclass
class _Scope:
    """What a store sees above it: loops, conditions (`if`, `T.where`), and the block
    iterators whose domain uses VAR (each must be the store's row)."""
    loops: tuple = ()
    conditions: tuple = ()
    row_iters: tuple = ()  # (iterator var, its binding)


@dataclass
class _Uses:
    row_loads: list = field(default_factory=list)  # (buffer name, row index)
    guards: list = field(default_factory=list)  # (lhs, rhs) of `lhs < rhs`, rhs using VAR
    var_values: list = field(default_factory=list)  # expressions using VAR as a value
    exprs: list = field(default_factory=list)  # what was scanned, lets expanded


def strip_cast(e):
    while isinstance(e, prim.Cast):
        e = e.value
    return e


def _text(e) -> str:
    return " ".join(str(e).split())


class _Kernel:
    """One decision: the kernel `func` in its variable named `var_name`."""

    def __init__(self, func, var_name: str):
        self.func = func
        self.name = var_name
        self.ana = sym.Analyzer()
        self.row_dim: dict = {}  # buffer -> index of its row dimension
        self.plain: dict = {}  # buffer without rows -> loop depth of its allocation
        self.lets: list = []  # (let variable, value)

    def check(self) -> str:
        self.var = self._find_var()
        if self.var is None:
            return f"{self.name} does not occur in it"
        for p in self.func.params:  # a scalar parameter that is VAR is checked where used
            if is_buffer(p):
                self._buffer(p, depth=0, param=True)
        self.stored_in_row_loops = _stored_in_loops_over(self.func.body, self.var, False)
        self._stmt(self.func.body, _Scope())
        rows = ", ".join(f"{b.name}[{k}]" for b, k in self.row_dim.items())
        return f"row-wise in {self.name} (rows: {rows or 'none'})"

    def _find_var(self):
        found: list = []

        def visit(x):
            if isinstance(x, ir_expr.Var) and x.name == self.name and \
                    not any(x.same_as(f) for f in found):
                found.append(x)
        for p in self.func.params:
            if is_buffer(p):
                for e in [*p.shape, *p.strides, p.elem_offset]:
                    _post_order(e, visit)
            else:
                visit(p)
        if len(found) > 1:
            raise NotRowWise(f"{len(found)} different variables are named {self.name}")
        return found[0] if found else None

    # -- buffers -----------------------------------------------------------------------------

    def _buffer(self, buf, depth: int, param: bool):
        for e in [*buf.strides, buf.elem_offset]:
            if e is not None and uses(e, self.var):
                raise NotRowWise(f"{buf.name} has a stride or offset that uses {self.name}: "
                                 f"{_text(e)}")
        dims = [i for i, d in enumerate(buf.shape) if uses(d, self.var)]
        if not dims:
            self.plain[buf] = depth
            return
        if len(dims) > 1:
            raise NotRowWise(f"{buf.name} has {len(dims)} dimensions that use {self.name}")
        k = dims[0]
        d = buf.shape[k]
        if param:
            if not strip_cast(d).same_as(self.var):
                raise NotRowWise(f"dimension {k} of parameter {buf.name} is {_text(d)}, not "
                                 f"{self.name}")
            before = [x for x in buf.shape[:k]
                      if not (isinstance(x, prim.IntImm) and x.value == 1)]
            if before:
                raise NotRowWise(f"{self.name} is not the leading dimension of {buf.name} "
                                 f"({_text(list(buf.shape))})")
        elif not _nondecreasing(d, self.var):
            raise NotRowWise(f"the local buffer {buf.name} has rows {_text(d)}, not "
                             f"non-decreasing in {self.name}")
        self.row_dim[buf] = k

    def _known(self, buf):
        if buf not in self.row_dim and buf not in self.plain:
            raise NotRowWise(f"it accesses {buf.name}, a buffer this reader did not see "
                             f"declared")

    # -- statements ----------------------------------------------------------------------------

    def _stmt(self, s, scope: _Scope):
        if isinstance(s, tirx.SeqStmt):
            for x in s.seq:
                self._stmt(x, scope)
        elif isinstance(s, s_tir.SBlockRealize):
            self._block(s, scope)
        elif isinstance(s, tirx.For):
            self._for(s, scope)
        elif isinstance(s, tirx.BufferStore):
            self._store(s, scope)
        elif isinstance(s, tirx.IfThenElse):
            inner = _Scope(scope.loops, scope.conditions + (s.condition,), scope.row_iters)
            self._stmt(s.then_case, inner)
            if s.else_case is not None:
                self._stmt(s.else_case, inner)
        elif isinstance(s, tirx.Bind):
            if uses(s.value, self.var):
                raise NotRowWise(f"{s.var.name} = {_text(s.value)} uses {self.name} as a value")
            self._scan(s.value, _Uses())  # its calls and indices are checked here
            self.lets.append((s.var, s.value))
        elif isinstance(s, tirx.AllocBuffer):
            self._buffer(s.buffer, depth=len(scope.loops), param=False)
        elif isinstance(s, tirx.AttrStmt):
            if isinstance(s.value, ir_expr.Expr) and uses(s.value, self.var):
                raise NotRowWise(f"the attribute {s.attr_key} uses {self.name}")
            self._stmt(s.body, scope)
        elif isinstance(s, tirx.Evaluate):
            self._scan(s.value, _Uses())  # a pure call stores nothing; any other is refused
        else:
            raise NotRowWise(f"a statement this reader does not model: {type(s).__name__}")

    def _for(self, s, scope: _Scope):
        if s.step is not None and not (isinstance(s.step, prim.IntImm) and s.step.value == 1):
            raise NotRowWise(f"loop {s.loop_var.name} has a step {_text(s.step)}")
        if uses(s.min, self.var):
            raise NotRowWise(f"loop {s.loop_var.name} starts at {_text(s.min)}, which uses "
                             f"{self.name}")
        if self._reads_memory(s.min) or self._reads_memory(s.extent):
            raise NotRowWise(f"loop {s.loop_var.name} has bounds read from memory")
        over = uses(s.extent, self.var)
        if over and not _nondecreasing(s.extent, self.var):
            raise NotRowWise(f"loop {s.loop_var.name} runs over {_text(s.extent)}, not "
                             f"non-decreasing in {self.name}")
        self.ana.bind(s.loop_var, tvm.ir.Range.from_min_extent(s.min, s.extent))
        loop = _Loop(s.loop_var, s.min, s.extent, over)
        self._stmt(s.body, _Scope(scope.loops + (loop,), scope.conditions, scope.row_iters))

    def _block(self, realize, scope: _Scope):
        block = realize.block
        row_iters = scope.row_iters
        for iv, value in zip(block.iter_vars, realize.iter_values):
            if uses(value, self.var):
                raise NotRowWise(f"block {block.name_hint}: iterator {iv.var.name} is bound to "
                                 f"{_text(value)}, which uses {self.name}")
            if self._reads_memory(value):
                raise NotRowWise(f"block {block.name_hint}: iterator {iv.var.name} is bound to "
                                 f"{_text(value)}, read from memory")
            self._scan(value, _Uses())
            dom = iv.dom
            if uses(dom.min, self.var):
                raise NotRowWise(f"block {block.name_hint}: iterator {iv.var.name} starts at "
                                 f"{_text(dom.min)}")
            if uses(dom.extent, self.var):
                if not _nondecreasing(dom.extent, self.var):
                    raise NotRowWise(f"block {block.name_hint}: iterator {iv.var.name} runs "
                                     f"over {_text(dom.extent)}")
                row_iters = row_iters + ((iv.var, value),)
            self.ana.bind(iv.var, value)
        for buf in block.alloc_buffers:
            self._buffer(buf, depth=len(scope.loops), param=False)
        for m in block.match_buffers:
            self._match(m, block, scope)
        conditions = scope.conditions
        if not (isinstance(realize.predicate, prim.IntImm) and realize.predicate.value == 1):
            conditions = conditions + (realize.predicate,)
        inner = _Scope(scope.loops, conditions, row_iters)
        if block.init is not None:
            self._stmt(block.init, inner)
        self._stmt(block.body, inner)

    def _match(self, m, block, scope: _Scope):
        source = m.source
        src_buf = getattr(source, "buffer", None) or getattr(source, "source", None)
        if src_buf is None or src_buf in self.row_dim or any(
                uses(e, self.var) for r in source.region for e in (r.min, r.extent)):
            raise NotRowWise(f"block {block.name_hint}: match_buffer {m.buffer.name} of a "
                             f"row-sized buffer or of a region that uses {self.name}")
        self._buffer(m.buffer, depth=self.plain.get(src_buf, 0), param=False)
        if m.buffer in self.row_dim:
            raise NotRowWise(f"block {block.name_hint}: match_buffer {m.buffer.name} has rows")

    # -- a store and what it reads ---------------------------------------------------------------

    def _store(self, s, scope: _Scope):
        buf = s.buffer
        self._known(buf)
        u = _Uses(exprs=[s.value, *s.indices, *scope.conditions])
        for e in list(u.exprs):
            self._scan(e, u)
        for i in s.indices:
            if self._reads_memory(i):
                raise NotRowWise(f"a store to {buf.name} has an index read from memory: "
                                 f"{_text(i)}")
        k = self.row_dim.get(buf)
        if k is None:
            self._plain_store(buf, u, scope)
            return
        row = self.ana.simplify(s.indices[k])
        where = f"the store to {buf.name} at row {_text(row)}"
        if uses(row, self.var):
            raise NotRowWise(f"{where}: the row uses {self.name}")
        if u.var_values:
            raise NotRowWise(f"{where} uses {self.name} as a value: {_text(u.var_values[0])}")
        for name, r in u.row_loads:
            if not self._same(r, row):
                raise NotRowWise(f"{where} reads row {_text(self.ana.simplify(r))} of {name}")
        for lhs, rhs in u.guards:
            if not self._guard(lhs, rhs, row):
                raise NotRowWise(f"{where} is under `{_text(lhs)} < {_text(rhs)}`, not a guard "
                                 f"of its row")
        for it, binding in scope.row_iters:
            if not self._same(binding, row):
                raise NotRowWise(f"{where}: block iterator {it.name} ranges over "
                                 f"{self.name} and is not its row")
        self._covers(row, scope.loops, where)

    def _plain_store(self, buf, u: _Uses, scope: _Scope):
        where = f"the store to {buf.name} (no {self.name} rows)"
        if u.row_loads:
            name, r = u.row_loads[0]
            raise NotRowWise(f"{where} reads {name} at row {_text(self.ana.simplify(r))}: one "
                             f"value for every row (a reduction across rows, or shared scratch)")
        if u.var_values or u.guards:
            raise NotRowWise(f"{where} uses {self.name} as a value")
        if scope.row_iters:
            raise NotRowWise(f"{where} is in a block iterating over {self.name}")
        depth = self.plain[buf]
        for i, loop in enumerate(scope.loops):
            if loop.over_rows and depth <= i:
                self._same_every_iteration(buf, u, scope, where)
                return

    def _same_every_iteration(self, buf, u: _Uses, scope: _Scope, where: str):
        """A buffer without rows, allocated outside a loop over VAR and stored inside it (a
        tile of a weight in shared memory): sound when every iteration stores the same values
        at the same places, so that the number of iterations does not show. The value, indices
        and conditions then use no loop over VAR and read no buffer stored inside one."""
        row_loops = [loop for loop in scope.loops if loop.over_rows]
        for e in [*u.exprs]:
            for loop in row_loops:
                if uses(e, loop.var):
                    raise NotRowWise(f"{where} is inside the loop {loop.var.name} over "
                                     f"{_text(loop.extent)}, which allocates it outside, and "
                                     f"uses {loop.var.name}")
            for b in _loaded(e):
                if b in self.stored_in_row_loops:
                    raise NotRowWise(f"{where} is inside the loop over {self.name}, which "
                                     f"allocates it outside, and reads {b.name}, stored in "
                                     f"such a loop")

    def _scan(self, e, u: _Uses):
        """Record in `u` the row-sized loads, guards and uses of VAR of the expression `e`
        (lets followed); NotRowWise for an opaque call or an index read from memory."""
        if isinstance(e, prim.LT) and uses(e.b, self.var) and not uses(e.a, self.var):
            u.guards.append((e.a, e.b))
            self._scan(e.a, u)
            return
        if isinstance(e, ir_expr.Var):
            if e.same_as(self.var):
                u.var_values.append(e)
            for v, value in self.lets:
                if v.same_as(e):
                    u.exprs.append(value)
                    self._scan(value, u)
            return
        if isinstance(e, ir_expr.TensorLoad):
            self._load(e, u)
        elif isinstance(e, ir_expr.Call):
            self._call(e)
        elif isinstance(e, prim.Let):
            self.lets.append((e.var, e.value))
        for c in _children(e):
            self._scan(c, u)

    def _load(self, e, u: _Uses):
        buf = e.source
        self._known(buf)
        for i in e.indices:
            if self._reads_memory(i):
                raise NotRowWise(f"a load of {buf.name} has an index read from memory: "
                                 f"{_text(i)}")
        k = self.row_dim.get(buf)
        if k is not None:
            u.row_loads.append((buf.name, e.indices[k]))

    def _reads_memory(self, e) -> bool:
        """Does `e` load from a buffer, directly or through a let?"""
        if _loaded(e):
            return True
        return any(uses(e, v) and self._reads_memory(value) for v, value in self.lets)

    def _call(self, e):
        op = e.op
        if not isinstance(op, tvm.ir.Op):
            raise NotRowWise(f"it calls {_text(op)}, which this reader does not model")
        kind = op.get_attr("TCallEffectKind")
        if op.name in _OPAQUE_OPS or kind is None or int(kind) not in _PURE_KINDS:
            raise NotRowWise(f"it calls {op.name}, which this reader does not model")
        for a in e.args:
            ty = str(getattr(a, "ty", "")).lower()
            if "handle" in ty or "ptr" in ty:
                raise NotRowWise(f"it passes a pointer to {op.name}")

    # -- the analyzer's part -----------------------------------------------------------------------

    def _same(self, a, b) -> bool:
        a, b = self.ana.simplify(a), self.ana.simplify(b)
        if _dtype(a) != _dtype(b):
            a, b = tirx.Cast("int64", a), tirx.Cast("int64", b)
        return self.ana.can_prove_equal(a, b)

    def _guard(self, lhs, rhs, row) -> bool:
        """Is `lhs < rhs` `ROW < VAR`, or `E < VAR * C` with ROW = E // C? Either holds for
        exactly the real rows, at the real size and at any bucket."""
        rhs = strip_cast(rhs)
        if rhs.same_as(self.var):
            return self._same(lhs, row)
        if isinstance(rhs, prim.Mul):
            for v, c in ((rhs.a, rhs.b), (rhs.b, rhs.a)):
                if strip_cast(v).same_as(self.var) and isinstance(c, prim.IntImm) and c.value > 0:
                    return self._same(tirx.floordiv(lhs, tirx.const(c.value, _dtype(lhs))), row)
        return False

    def _covers(self, row, loops, where: str):
        """Every loop over VAR feeds the row and, past its extent at VAR, reaches only rows >=
        VAR: a bucket's extra iterations touch pad rows alone."""
        for loop in loops:
            if not loop.over_rows:
                continue
            if not uses(row, loop.var):
                raise NotRowWise(f"{where} is inside the loop {loop.var.name} over "
                                 f"{_text(loop.extent)}, which does not feed its row")
            if not _nondecreasing(row, loop.var):
                raise NotRowWise(f"{where}: the row does not grow with loop {loop.var.name}")
            past = sym.Analyzer()
            for other in loops:
                if other is loop:
                    past.bind(other.var, other.min + other.extent)
                elif other.over_rows:
                    past.bind(other.var, other.min)
                else:
                    past.bind(other.var, tvm.ir.Range.from_min_extent(other.min, other.extent))
            past.bind(self.var, tvm.ir.Range.from_min_extent(1, 1 << 30))
            reached = past.simplify(row)
            if not past.can_prove(reached >= _like(self.var, reached),
                                  sym.ProofStrength.SYMBOLIC_BOUND):
                raise NotRowWise(f"{where}: past the extent {_text(loop.extent)} of loop "
                                 f"{loop.var.name} the row is {_text(reached)}, not proved >= "
                                 f"{self.name}")


def _like(v, other):
    return v if _dtype(v) == _dtype(other) else tirx.Cast(_dtype(other), v)


def _dtype(e) -> str:
    return str(getattr(e.ty, "dtype", e.ty))


def is_buffer(p) -> bool:
    """Is the parameter `p` a buffer (TVM 0.27: a Var of BufferType), not a scalar?"""
    return isinstance(getattr(p, "ty", None), tirx.BufferType)


def _loaded(e) -> list:
    """The buffers that expression `e` loads from."""
    found: list = []
    _post_order(e, lambda x: found.append(x.source) if isinstance(x, ir_expr.TensorLoad)
                else None)
    return found


def _stored_in_loops_over(s, var, inside: bool) -> set:
    """The buffers stored by `s` inside a loop whose extent uses `var` (`inside`: `s` is)."""
    if isinstance(s, tirx.BufferStore):
        return {s.buffer} if inside else set()
    if isinstance(s, tirx.For):
        return _stored_in_loops_over(s.body, var, inside or uses(s.extent, var))
    if isinstance(s, s_tir.SBlockRealize):
        inside = inside or any(uses(iv.dom.extent, var) for iv in s.block.iter_vars)
        parts = [s.block.body] + ([s.block.init] if s.block.init is not None else [])
    elif isinstance(s, tirx.SeqStmt):
        parts = list(s.seq)
    elif isinstance(s, tirx.IfThenElse):
        parts = [s.then_case] + ([s.else_case] if s.else_case is not None else [])
    elif isinstance(s, tirx.AttrStmt):
        parts = [s.body]
    else:
        return set()
    out: set = set()
    for p in parts:
        out |= _stored_in_loops_over(p, var, inside)
    return out
