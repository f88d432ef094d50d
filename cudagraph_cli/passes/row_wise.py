"""Which kernels treat the rows of a symbolic dimension independently, read from their TIR.

Bucketed capture (`--capture-buckets VAR:...`) runs a graph at a bucket `B >= v` rows, with the
rows past `v` holding whatever the storage held. That is sound for a kernel exactly when each
row `i` it writes is computed from row `i` of its row-sized inputs and from inputs without that
dimension (weights), and from nothing else: no reduction or scan across rows, no index
computed from VAR or read from memory, no value that uses VAR itself.

The decision reads the blocks' read and write regions (`T.reads(...)`, `T.writes(...)`), which
TVM prints for every block at this stage, the block iterators' kinds and bindings, and every
other use of VAR in the body. What it cannot read (a body without blocks, a store outside a
block, a pointer, a region it cannot parse) makes the kernel not row-wise, with the reason;
nothing is guessed. The PrimFunc body is Python syntax (TVMScript), read with `ast`.

`kernel_verdicts(module, var)` maps a Relax symbolic variable to each launched PrimFunc's own
variable through the launch's argument shapes (a PrimFunc names its variables as it likes:
`B`, `ntoken`, `seq_len`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from .. import ir

# Calls whose result reaches memory without a region: the analysis cannot follow them.
_OPAQUE_CALLS = frozenset({"address_of", "tvm_access_ptr", "call_extern", "call_packed",
                           "call_cpacked", "call_packed_lowered", "decl_buffer", "Buffer",
                           "tvm_stack_make_array", "call_intrin", "ptx_cp_async",
                           "reinterpret_pointer"})
_ALLOC_CALLS = frozenset({"alloc_buffer", "sblock_alloc_buffer", "match_buffer"})
_BLOCK_CALLS = frozenset({"block", "sblock"})
_LOOP_CALLS = frozenset({"grid", "serial", "parallel", "unroll", "vectorized",
                         "thread_binding", "range"})


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
    try:
        rows = _Kernel(prim, var).check()
    except NotRowWise as e:
        return RowVerdict(prim.name, var, str(e))
    return RowVerdict(prim.name, var, None, rows)


def _call_name(node) -> str | None:
    """`T.x.y(...)` -> "y"; None for anything but a call."""
    if not isinstance(node, ast.Call):
        return None
    f = node.func
    if isinstance(f, ast.Attribute):
        return f.attr
    if isinstance(f, ast.Name):
        return f.id
    return None


def _text(node) -> str:
    return ast.unparse(node)


def _dim_expr(text: str):
    """A dimension's text (`seq_len`, `"seq_len"`, `T.int64(4)`, `"B + 1"`) as an expression."""
    node = ast.parse(text.strip(), mode="eval").body
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        node = ast.parse(node.value, mode="eval").body
    return node


def _names(node) -> set:
    """Every variable name an expression mentions (quoted names included)."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier():
            out.add(n.value)
    return out


def _is_var(node, var: str) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value == var
    return isinstance(node, ast.Name) and node.id == var


def _covering(node, var: str) -> bool:
    """Is the extent `node` non-decreasing in `var` and at least... built only from `var`,
    constants, `+`, `*` and `//` (so that a loop over it covers every row at any bucket as it
    does at the real size)? `n - 8` is not."""
    if _is_var(node, var) or var not in _names(node):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.FloorDiv)):
        if isinstance(node.op, ast.FloorDiv) and var in _names(node.right):
            return False
        return _covering(node.left, var) and _covering(node.right, var)
    return False


@dataclass
class _Block:
    name: str
    iters: dict  # block var -> (kind "S"/"R"/..., binding expression or None)


class _Kernel:
    def __init__(self, prim: ir.PrimFunc, var: str):
        self.prim = prim
        self.var = var
        self.buffers: dict = {}  # buffer name -> tuple of dimension expressions
        self.params: dict = {}  # parameter (or its matched buffer) name -> True
        self.handles = {p.name for p in prim.params if p.kind == "handle"}

    # -- the buffers and their row dimension ---------------------------------------------

    def check(self) -> tuple:
        try:
            tree = ast.parse(self.prim.body)
        except SyntaxError:
            raise NotRowWise("its body cannot be read as TVMScript") from None
        for p in self.prim.params:
            if p.kind == "buffer":
                if p.shape is None:
                    raise NotRowWise(f"the shape of {p.name} is not given")
                self.buffers[p.name] = tuple(_dim_expr(d) for d in p.shape)
                self.params[p.name] = True
        self.blocks = 0
        self._statements(tree.body, scope=[])
        if not self.blocks:
            raise NotRowWise("it has no block with read and write regions")
        return tuple((name, self.row_dim(name)) for name in self.params
                     if self.row_dim(name) is not None)

    def row_dim(self, buffer: str) -> int | None:
        """The dimension of `buffer` sized by the variable, None when none is; NotRowWise for
        two, or for a parameter whose dimension is an expression of it or not its leading
        varying one (a view of the real rows is then not a prefix)."""
        dims = self.buffers[buffer]
        found = [i for i, d in enumerate(dims) if self.var in _names(d)]
        if not found:
            return None
        if len(found) > 1:
            raise NotRowWise(f"{buffer} has {len(found)} dimensions sized by {self.var}")
        k = found[0]
        if buffer in self.params:
            if not _is_var(dims[k], self.var):
                raise NotRowWise(f"dimension {k} of {buffer} is {_text(dims[k])}, not "
                                 f"{self.var}")
            if any(not self._is_one(d) for d in dims[:k]):
                raise NotRowWise(f"{self.var} is not the leading dimension of {buffer} "
                                 f"({', '.join(_text(d) for d in dims)})")
        return k

    @staticmethod
    def _is_one(d) -> bool:
        if isinstance(d, ast.Call) and len(d.args) == 1:
            d = d.args[0]
        return isinstance(d, ast.Constant) and d.value == 1

    # -- the walk ------------------------------------------------------------------------

    def _statements(self, stmts, scope: list):
        for s in stmts:
            self._statement(s, scope)

    def _statement(self, s, scope: list):
        self._no_pointer(s)
        if isinstance(s, ast.With):
            call = s.items[0].context_expr
            name = _call_name(call)
            if name in _BLOCK_CALLS:
                self._block(s, call, scope)
                return
            if name == "init":
                self._statements(s.body, scope)
                return
            raise NotRowWise(f"it uses `with {_text(call)}`, which this reader does not know")
        if isinstance(s, ast.For):
            for arg in getattr(s.iter, "args", []):
                self._extent(arg)
            self._statements(s.body, scope)
            return
        if isinstance(s, ast.If):
            self._value(s.test, scope)
            self._statements(s.body, scope)
            self._statements(s.orelse, scope)
            return
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self._assign(s, scope)
            return
        if isinstance(s, ast.Expr):
            if _call_name(s.value) in ("func_attr", "reads", "writes", "where"):
                return
            self._value(s.value, scope)
            return
        if isinstance(s, ast.Pass):
            return
        raise NotRowWise(f"it has a statement this reader does not know: "
                         f"{_text(s).splitlines()[0]}")

    def _no_pointer(self, s):
        for n in ast.walk(s):
            if _call_name(n) in _OPAQUE_CALLS:
                raise NotRowWise(f"it reaches memory through {_call_name(n)}, which has no "
                                 f"region")
            if isinstance(n, ast.Attribute) and n.attr in ("data", "access_ptr"):
                raise NotRowWise(f"it passes {_text(n)}, a pointer, which has no region")

    def _extent(self, node):
        if not _covering(node, self.var):
            raise NotRowWise(f"a loop runs over {_text(node)}, which does not cover every "
                             f"row at a larger {self.var}")

    def _assign(self, s, scope: list):
        target = s.targets[0] if isinstance(s, ast.Assign) else s.target
        value = s.value
        name = _call_name(value)
        if isinstance(target, ast.Name) and name in _ALLOC_CALLS:
            if name == "match_buffer":
                handle = _text(value.args[0])
                shape = value.args[1]
                dims = shape.elts if isinstance(shape, (ast.Tuple, ast.List)) else [shape]
                self.buffers[target.id] = tuple(dims)
                if handle in self.handles:
                    self.params[target.id] = True
                return
            shape = value.args[0]
            self.buffers[target.id] = tuple(shape.elts if isinstance(shape, (ast.Tuple, ast.List))
                                            else [shape])
            return
        if isinstance(target, ast.Subscript):
            if not scope:
                raise NotRowWise(f"it stores to {_text(target)} outside a block")
            self._value(value, scope)
            return
        if isinstance(target, (ast.Name, ast.Tuple)):
            # A variable declared (`n = T.int32()`) or a local scalar: its value is checked.
            if value is not None:
                self._value(value, scope)
            return
        raise NotRowWise(f"it assigns to {_text(target)}")

    # -- a block ---------------------------------------------------------------------------

    def _block(self, s, call, scope: list):
        block = _Block(_text(call.args[0]) if call.args else "?", {})
        reads = writes = where = None
        body = []
        for st in s.body:
            v = st.value if isinstance(st, (ast.Expr, ast.Assign)) else None
            name = _call_name(v)
            if isinstance(st, ast.Assign) and isinstance(v, ast.Call) and \
                    isinstance(v.func, ast.Attribute) and _text(v.func).startswith("T.axis."):
                self._iters(st.targets[0], v, block)
            elif isinstance(st, ast.Expr) and name == "reads":
                reads = v.args
            elif isinstance(st, ast.Expr) and name == "writes":
                writes = v.args
            elif isinstance(st, ast.Expr) and name == "where":
                where = v.args[0]
            else:
                body.append(st)
        if reads is None or writes is None:
            if block.name.strip("'\"") == "root" and not block.iters:
                self._statements(body, scope)
                return
            raise NotRowWise(f"block {block.name} has no read and write regions")
        self.blocks += 1
        inner = scope + [block]
        row = self._regions(block, reads, writes)
        if where is not None:
            self._value(where, inner, row)
        self._statements_in(body, inner, row)

    def _iters(self, target, call, block: _Block):
        kind_of = {"spatial": "S", "reduce": "R", "scan": "scan", "opaque": "opaque"}
        axis = call.func.attr
        names = [t.id for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        if axis == "remap":
            kinds = call.args[0].value
            bindings = call.args[1].elts
            for n, k, b in zip(names, kinds, bindings):
                block.iters[n] = (k, b)
        elif axis in kind_of:
            block.iters[names[0]] = (kind_of[axis], call.args[1] if len(call.args) > 1
                                     else None)
            dom = call.args[0]
            if self.var in _names(dom):
                self._extent(dom)
        else:
            raise NotRowWise(f"block {block.name} declares an iterator with T.axis.{axis}")
        for n in names:
            binding = block.iters[n][1]
            if binding is not None and self.var in _names(binding):
                raise NotRowWise(f"block {block.name}: iterator {n} is bound to "
                                 f"{_text(binding)}, an expression of {self.var}")

    def _region(self, node, block: _Block):
        """(buffer name, index expressions) of one region."""
        if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Name):
            raise NotRowWise(f"block {block.name}: cannot read the region {_text(node)}")
        buf = node.value.id
        if buf not in self.buffers:
            raise NotRowWise(f"block {block.name}: region of an unknown buffer {buf}")
        idx = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for i in idx:
            if self.var in _names(i):
                raise NotRowWise(f"block {block.name}: the region {_text(node)} has an index "
                                 f"computed from {self.var}")
            for n in ast.walk(i):
                if isinstance(n, ast.Subscript):
                    raise NotRowWise(f"block {block.name}: the region {_text(node)} has an "
                                     f"index read from memory ({_text(n)}): a pad row's "
                                     f"stale value could reach any row")
        return buf, idx

    def _row_index(self, buf, idx, block: _Block, what: str) -> str | None:
        k = self.row_dim(buf)
        if k is None:
            return None
        if k >= len(idx):
            raise NotRowWise(f"block {block.name}: the region of {buf} has {len(idx)} "
                             f"indices")
        i = idx[k]
        if not isinstance(i, ast.Name) or i.id not in block.iters:
            raise NotRowWise(f"block {block.name} {what} {buf} at row {_text(i)}, not at a "
                             f"block iterator")
        if block.iters[i.id][0] != "S":
            raise NotRowWise(f"block {block.name} {what} {buf} at row {i.id}, a reduction "
                             f"across the rows")
        return i.id

    def _regions(self, block: _Block, reads, writes) -> str | None:
        """The block's row iterator (None when it writes no row), after checking that every
        write and read keeps to it."""
        written = [self._region(w, block) for w in writes]
        read = [self._region(r, block) for r in reads]
        rows = {self._row_index(b, i, block, "writes") for b, i in written}
        row_writes = rows - {None}
        if len(row_writes) > 1:
            raise NotRowWise(f"block {block.name} writes rows {', '.join(sorted(row_writes))} "
                             f"at once")
        row = next(iter(row_writes), None)
        for b, idx in read:
            r = self._row_index(b, idx, block, "reads")
            if r is None:
                if row is not None and any(row in _names(i) for i in idx):
                    raise NotRowWise(f"block {block.name} reads {b}, which has no "
                                     f"{self.var} dimension, at a position computed from the "
                                     f"row {row}")
                continue
            if None in rows:
                w = next(bw for (bw, _), rw in zip(written, rows) if rw is None)
                raise NotRowWise(f"block {block.name} writes {w}, which has no {self.var} "
                                 f"dimension, from the rows of {b}: one value for every row "
                                 f"(a reduction across the rows, or scratch they share)")
            if r != row:
                raise NotRowWise(f"block {block.name} reads row {r} of {b} for row {row}")
        return row

    # -- values ----------------------------------------------------------------------------

    def _statements_in(self, stmts, scope: list, row: str | None):
        for s in stmts:
            self._no_pointer(s)
            if isinstance(s, ast.With) and _call_name(s.items[0].context_expr) in _BLOCK_CALLS:
                self._statement(s, scope)
            elif isinstance(s, ast.With):
                self._statements_in(s.body, scope, row)
            elif isinstance(s, ast.For):
                for arg in getattr(s.iter, "args", []):
                    self._extent(arg)
                self._statements_in(s.body, scope, row)
            elif isinstance(s, ast.If):
                self._value(s.test, scope, row)
                self._statements_in(s.body, scope, row)
                self._statements_in(s.orelse, scope, row)
            elif isinstance(s, ast.Assign) and _call_name(s.value) in _ALLOC_CALLS:
                self._assign(s, scope)
            elif isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                if s.value is not None:
                    self._value(s.value, scope, row)
                target = s.targets[0] if isinstance(s, ast.Assign) else s.target
                if isinstance(target, ast.Subscript):
                    self._value(target.slice, scope, row)
            elif isinstance(s, ast.Expr):
                self._value(s.value, scope, row)
            elif not isinstance(s, ast.Pass):
                raise NotRowWise(f"it has a statement this reader does not know: "
                                 f"{_text(s).splitlines()[0]}")

    def _value(self, node, scope: list, row: str | None = None):
        """NotRowWise when the expression uses the variable other than as `ROW < VAR` (a
        guard that holds for every real row at the real size and at any bucket)."""
        if self.var not in _names(node):
            return
        if self._row_guard(node, scope, row):
            return
        if _is_var(node, self.var):
            raise NotRowWise(f"a value uses {self.var} itself, which a bucket changes")
        for child in ast.iter_child_nodes(node):
            if self.var in _names(child):
                try:
                    self._value(child, scope, row)
                except NotRowWise as e:
                    if str(e).endswith("which a bucket changes"):
                        raise NotRowWise(f"the value {_text(node)} uses {self.var}, which a "
                                         f"bucket changes") from None
                    raise

    def _row_guard(self, node, scope: list, row: str | None) -> bool:
        """Is `node` `ROW < VAR`, or `E < VAR * C` where the row iterator is bound to
        `E // C` (a fused loop's guard)? Either holds for exactly the real rows, at the real
        size and at any bucket."""
        if row is None or not isinstance(node, ast.Compare) or len(node.ops) != 1 or \
                not isinstance(node.ops[0], ast.Lt):
            return False
        left, right = node.left, node.comparators[0]
        binding = scope[-1].iters.get(row, (None, None))[1]
        if _is_var(right, self.var):
            return (isinstance(left, ast.Name) and left.id == row) or \
                (binding is not None and ast.dump(binding) == ast.dump(left))
        if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Mult) and \
                _is_var(right.left, self.var) and self.var not in _names(right.right):
            return isinstance(binding, ast.BinOp) and isinstance(binding.op, ast.FloorDiv) and \
                ast.dump(binding.left) == ast.dump(left) and \
                ast.dump(binding.right) == ast.dump(right.right)
        return False


# -- the launches of a module ------------------------------------------------------------------


def _shape_dims(sinfo) -> tuple | None:
    shape = getattr(sinfo, "shape", None)
    return tuple(shape) if isinstance(shape, tuple) else None


def launched_prim_vars(call: ir.Call, prim: ir.PrimFunc, var: str):
    """The PrimFunc's own names for the Relax variable `var` at this launch: the set of names
    found where a tensor argument has `var` as a dimension (None when no argument has)."""
    names = set()
    tensors = [a for a in call.args if isinstance(a, ir.Var)]
    params = [p for p in prim.params if p.kind == "buffer"]
    if len(tensors) < len(params):
        params = params[:len(tensors)]
    found = False
    for arg, param in zip(tensors, params):
        dims = _shape_dims(arg.sinfo) or ()
        for d in dims:
            if not isinstance(d, ir.SymVar) and \
                    any(v.name == var for v in ir.prim_vars(d)):
                raise NotRowWise(f"its argument {arg.name} has the dimension "
                                 f"{_relax_text(d)}, an expression of {var}")
        if param.shape is None or len(dims) != len(param.shape):
            continue
        for d, ptext in zip(dims, param.shape):
            if isinstance(d, ir.SymVar) and d.name == var:
                found = True
                expr = _dim_expr(ptext)
                names.add(expr.id if isinstance(expr, ast.Name) else _text(expr))
    return names if found else None


def _relax_text(e) -> str:
    """A Relax shape dimension in words (a reason's text, not TVMScript)."""
    if isinstance(e, ir.SymVar):
        return e.name
    if isinstance(e, ir.IntImm):
        return str(e.value)
    if isinstance(e, ir.PrimBinOp):
        return f"{_relax_text(e.lhs)} {e.op} {_relax_text(e.rhs)}"
    return type(e).__name__


def kernel_verdicts(module: ir.Module, var: str, functions=None) -> dict:
    """{PrimFunc name: RowVerdict} for every PrimFunc that a Relax function of the module
    (of `functions`, when given) launches with a tensor sized by `var`."""
    prims = {f.name: f for f in module.functions if isinstance(f, ir.PrimFunc)}
    out: dict = {}
    for f in module.relax_functions():
        if functions is not None and f.name not in functions:
            continue
        for block in f.blocks:
            for b in block.bindings:
                call = b.value
                if not isinstance(call, ir.Call) or not isinstance(call.op, ir.GlobalVarRef):
                    continue
                prim = prims.get(call.op.name)
                if prim is None or prim.name in out:
                    continue
                try:
                    names = launched_prim_vars(call, prim, var)
                except NotRowWise as e:
                    out[prim.name] = RowVerdict(prim.name, var, str(e))
                    continue
                if names is None:
                    continue
                if len(names) != 1 or not next(iter(names)).isidentifier():
                    out[prim.name] = RowVerdict(
                        prim.name, var, f"its parameters name {var} as "
                        f"{', '.join(sorted(names))}, not as one variable")
                    continue
                out[prim.name] = row_wise(prim, next(iter(names)))
    return out
