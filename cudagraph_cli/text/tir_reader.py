"""A PrimFunc's TVMScript text read once into the model of ir/tir.py.

The body is Python syntax (TVMScript), parsed with `ast`; each statement and expression is
turned into the model's nodes. What the model has no node for is kept as `tir.Unknown` (a
statement) or as an `Op` named after the call, never dropped: the analyses refuse what they do
not know. `read(prim)` is cached per PrimFunc (a kernel launched a hundred times is read once).
"""

from __future__ import annotations

import ast
import functools

from .. import ir
from ..ir import tir

_DTYPES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                     "float16", "float32", "float64", "bfloat16", "bool", "float8_e4m3fn",
                     "float8_e5m2", "handle"})
_LOOPS = frozenset({"range", "serial", "parallel", "unroll", "vectorized", "thread_binding"})
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%",
           ast.Div: "/", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
           ast.LShift: "<<", ast.RShift: ">>"}
_CMPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_AXES = {"spatial": "S", "reduce": "R", "scan": "scan", "opaque": "opaque"}
_ALLOCS = frozenset({"alloc_buffer", "sblock_alloc_buffer"})
_BLOCKS = frozenset({"block", "sblock"})


def read(prim: ir.PrimFunc) -> tir.Kernel:
    """The model of `prim` (cached). A body that is not Python syntax gives a Kernel with
    `error` set and an empty body."""
    params = tuple((p.name, p.annotation, p.kind, p.shape, p.dtype) for p in prim.params)
    return _read(prim.name, params, prim.body)


@functools.lru_cache(maxsize=512)
def _read(name: str, params: tuple, body: str) -> tir.Kernel:
    params = tuple(ir.PrimParam(*p) for p in params)
    reader = _Reader()
    buffers: dict = {}
    scalars = []
    for p in params:
        if p.kind == "buffer":
            buffers[p.name] = reader.param_buffer(p)
        elif p.kind == "scalar":
            scalars.append(p.name)
    try:
        tree = ast.parse(body)
        stmts = reader.stmts(tree.body)
        error = None
    except SyntaxError:
        stmts, error = (), "its body cannot be read as TVMScript"
    except _Unreadable as e:
        stmts, error = (), str(e)
    for b in reader.buffers:
        buffers.setdefault(b.name, b)
    return tir.Kernel(name, tuple(p.name for p in params), buffers, tuple(scalars),
                      reader.decls, stmts, error)


class _Unreadable(Exception):
    pass


def _call_name(node) -> str | None:
    """`T.x.y(...)` -> "T.x.y", `range(...)` -> "range"; None for anything else."""
    if not isinstance(node, ast.Call):
        return None
    try:
        return ast.unparse(node.func)
    except Exception:  # noqa: BLE001 -- any unparsable callee is simply not a call we know
        return None


def _short(name: str | None) -> str | None:
    return name.rsplit(".", 1)[-1] if name else None


class _Reader:
    def __init__(self):
        self.buffers: list = []  # allocations and matches, anywhere
        self.decls: dict = {}

    # -- buffers ---------------------------------------------------------------------------

    def param_buffer(self, p: ir.PrimParam) -> tir.Buffer:
        try:
            call = ast.parse(p.annotation, mode="eval").body
        except SyntaxError:
            call = None
        if isinstance(call, ast.Call):
            return self.buffer_call(p.name, call, "param", shape_at=0)
        shape = tuple(self.expr(ast.parse(d, mode="eval").body) for d in p.shape or ())
        return tir.Buffer(p.name, shape, p.dtype, "param")

    def buffer_call(self, name: str, call: ast.Call, origin: str, shape_at: int,
                    source=None, handle=None) -> tir.Buffer:
        args = call.args
        shape = self.shape(args[shape_at]) if len(args) > shape_at else ()
        dtype = None
        if len(args) > shape_at + 1 and isinstance(args[shape_at + 1], ast.Constant):
            dtype = args[shape_at + 1].value
        kw = {k.arg: k.value for k in call.keywords}
        if isinstance(kw.get("dtype"), ast.Constant):
            dtype = kw["dtype"].value
        strides = kw.get("strides")
        offset = kw.get("elem_offset")
        scope = kw.get("scope")
        return tir.Buffer(
            name, shape, dtype, origin,
            strides=self.shape(strides) if strides is not None else None,
            elem_offset=self.expr(offset) if offset is not None else None,
            scope=scope.value if isinstance(scope, ast.Constant) else None,
            source=source, handle=handle)

    def shape(self, node) -> tuple:
        elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) else [node]
        return tuple(self.expr(e) for e in elts)

    # -- statements ------------------------------------------------------------------------

    def stmts(self, nodes) -> tuple:
        out = []
        for s in nodes:
            out.extend(self.stmt(s))
        return tuple(out)

    def stmt(self, s) -> list:
        if isinstance(s, ast.For):
            return [self.loop(s)]
        if isinstance(s, ast.With):
            return [self.with_(s)]
        if isinstance(s, ast.If):
            return [tir.If(self.expr(s.test), self.stmts(s.body), self.stmts(s.orelse))]
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            return self.assign(s)
        if isinstance(s, ast.Expr):
            name = _short(_call_name(s.value))
            if name == "func_attr":
                return []
            return [tir.Evaluate(self.expr(s.value))]
        if isinstance(s, ast.Pass):
            return []
        return [self.unknown(s)]

    def unknown(self, s) -> tir.Unknown:
        inner = getattr(s, "body", None)
        body = self.stmts(inner) if isinstance(inner, list) else ()
        if isinstance(getattr(s, "orelse", None), list):
            body += self.stmts(s.orelse)
        return tir.Unknown(ast.unparse(s).splitlines()[0], body)

    def loop(self, s: ast.For) -> tir.Stmt:
        call = s.iter
        name = _short(_call_name(call))
        targets = s.target.elts if isinstance(s.target, ast.Tuple) else [s.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            return self.unknown(s)
        body = self.stmts(s.body)
        if name == "grid":
            if len(call.args) != len(targets):
                return self.unknown(s)
            for t, e in reversed(list(zip(targets, call.args))):
                body = (tir.For(t.id, tir.Const(0), self.expr(e), "serial", body),)
            return body[0]
        if name not in _LOOPS or len(targets) != 1 or not call.args:
            return self.unknown(s)
        pos = [a for a in call.args]
        start, stop = (tir.Const(0), pos[0]) if len(pos) == 1 else (self.expr(pos[0]), pos[1])
        extent = self.expr(stop)
        if len(pos) > 1:
            extent = tir.Op("-", (extent, start)) if start != tir.Const(0) else extent
        kind = "serial" if name == "range" else name
        return tir.For(targets[0].id, start, extent, kind, body)

    def with_(self, s: ast.With) -> tir.Stmt:
        call = s.items[0].context_expr
        name = _short(_call_name(call))
        if name in _BLOCKS and len(s.items) == 1:
            return self.block(s, call)
        return self.unknown(s)

    def block(self, s: ast.With, call) -> tir.Stmt:
        name = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) \
            else "?"
        iters, reads, writes, init, body, allocs, matches = [], (), (), (), [], [], []
        where = None
        for st in s.body:
            v = st.value if isinstance(st, (ast.Expr, ast.Assign)) else None
            cname = _call_name(v) or ""
            short = _short(cname)
            if isinstance(st, ast.Assign) and cname.startswith("T.axis."):
                iters.extend(self.axes(st.targets[0], v))
            elif isinstance(st, ast.Expr) and short in ("reads", "writes"):
                regions = tuple(self.expr(a) for a in v.args)
                if short == "reads":
                    reads = regions
                else:
                    writes = regions
            elif isinstance(st, ast.Expr) and short == "where":
                where = self.expr(v.args[0])
            elif isinstance(st, ast.Expr) and short == "sblock_attr":
                continue
            elif isinstance(st, ast.With) and _short(_call_name(st.items[0].context_expr)) \
                    == "init":
                init = self.stmts(st.body)
            elif isinstance(st, ast.Assign) and short in _ALLOCS | {"match_buffer"} and \
                    isinstance(st.targets[0], ast.Name):
                buf = self.alloc(st.targets[0].id, v, short)
                (matches if short == "match_buffer" else allocs).append(buf)
            else:
                body.extend(self.stmt(st))
        return tir.Block(name, tuple(iters), reads, writes, where, init, tuple(body),
                         tuple(allocs), tuple(matches))

    def axes(self, target, call) -> list:
        kind = call.func.attr
        names = [t.id if isinstance(t, ast.Name) else ast.unparse(t)
                 for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        if kind == "remap" and len(call.args) == 2 and isinstance(call.args[0], ast.Constant):
            kinds = call.args[0].value
            bindings = call.args[1].elts if isinstance(call.args[1], (ast.List, ast.Tuple)) \
                else []
            if len(kinds) != len(names) or len(bindings) != len(names):
                raise _Unreadable(f"T.axis.remap({ast.unparse(call.args[0])}, ...) does not "
                                  f"match its {len(names)} names")
            # remap's iterators run over their loop's extent, known only at the loop
            return [tir.Iter(n, k if k in "SR" else k, None, self.expr(b))
                    for n, k, b in zip(names, kinds, bindings)]
        if kind in _AXES and len(names) == 1 and len(call.args) >= 2:
            return [tir.Iter(names[0], _AXES[kind], self.expr(call.args[0]),
                             self.expr(call.args[1]))]
        raise _Unreadable(f"a block iterator T.axis.{kind}(...) this reader does not know")

    def alloc(self, name: str, call: ast.Call, kind: str) -> tir.Buffer:
        if kind == "match_buffer":
            src = call.args[0] if call.args else None
            if isinstance(src, ast.Name):
                buf = self.buffer_call(name, call, "match", shape_at=1, handle=src.id)
            else:
                buf = self.buffer_call(name, call, "match", shape_at=1,
                                       source=self.expr(src) if src is not None else None)
        else:
            buf = self.buffer_call(name, call, "alloc", shape_at=0)
        self.buffers.append(buf)
        return buf

    def assign(self, s) -> list:
        target = s.targets[0] if isinstance(s, ast.Assign) else s.target
        if isinstance(s, ast.Assign) and len(s.targets) != 1:
            return [tir.Unknown(ast.unparse(s).splitlines()[0])]
        value = s.value
        short = _short(_call_name(value))
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            return [tir.Store(target.value.id, self.indices(target.slice), self.expr(value))]
        if not isinstance(target, ast.Name):
            return [tir.Unknown(ast.unparse(s).splitlines()[0])]
        if value is None:
            return [tir.Decl(target.id, ast.unparse(s.annotation))]
        if short in _ALLOCS or short == "match_buffer":
            return [tir.Alloc(self.alloc(target.id, value, short))]
        if short in _DTYPES and not value.args and not value.keywords:
            self.decls[target.id] = short
            return [tir.Decl(target.id, short)]
        return [tir.LetStmt(target.id, self.expr(value))]

    # -- expressions -----------------------------------------------------------------------

    def indices(self, node) -> tuple:
        elts = node.elts if isinstance(node, ast.Tuple) else [node]
        return tuple(self.expr(e) for e in elts)

    def expr(self, node):
        if isinstance(node, ast.Name):
            return tir.Var(node.id)
        if isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, str) and v.isidentifier():
                return tir.Var(v)  # a quoted dimension: ("seq_len", 48, 64)
            if isinstance(v, str):
                try:
                    return self.expr(ast.parse(v, mode="eval").body)
                except SyntaxError:
                    return tir.Const(v)
            return tir.Const(v)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return tir.Op(_BINOPS[type(node.op)], (self.expr(node.left), self.expr(node.right)))
        if isinstance(node, ast.UnaryOp):
            inner = self.expr(node.operand)
            if isinstance(node.op, ast.USub):
                if isinstance(inner, tir.Const) and isinstance(inner.value, (int, float)):
                    return tir.Const(-inner.value, inner.dtype)
                return tir.Op("neg", (inner,))
            if isinstance(node.op, ast.Not):
                return tir.Op("not", (inner,))
            if isinstance(node.op, ast.UAdd):
                return inner
            return tir.Op("~", (inner,))
        if isinstance(node, ast.BoolOp):
            op = "and" if isinstance(node.op, ast.And) else "or"
            return tir.Op(op, tuple(self.expr(v) for v in node.values))
        if isinstance(node, ast.Compare):
            if len(node.ops) != 1:
                parts = []
                left = node.left
                for op, right in zip(node.ops, node.comparators):
                    parts.append(tir.Op(_CMPS.get(type(op), "?cmp"),
                                        (self.expr(left), self.expr(right))))
                    left = right
                return tir.Op("and", tuple(parts))
            return tir.Op(_CMPS.get(type(node.ops[0]), "?cmp"),
                          (self.expr(node.left), self.expr(node.comparators[0])))
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            return tir.Load(node.value.id, self.indices(node.slice))
        if isinstance(node, ast.Slice):
            return tir.Slice(self.expr(node.lower) if node.lower else tir.Const(0),
                             self.expr(node.upper) if node.upper else None)
        if isinstance(node, ast.IfExp):
            return tir.Op("T.if_then_else", (self.expr(node.test), self.expr(node.body),
                                             self.expr(node.orelse)))
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            return tir.Op("tuple", tuple(self.expr(e) for e in node.elts))
        return tir.Op("?" + type(node).__name__, ())

    def call(self, node: ast.Call):
        name = _call_name(node) or "?"
        short = _short(name)
        if short in _DTYPES and len(node.args) == 1 and not node.keywords:
            arg = self.expr(node.args[0])
            if isinstance(arg, tir.Const):
                return tir.Const(arg.value, short)
        if short == "evaluate" and len(node.args) == 1:
            return self.expr(node.args[0])
        if short == "Let" and node.args:
            where = next((k.value for k in node.keywords if k.arg == "where"), None)
            if isinstance(where, ast.Dict):
                return tir.Let(tuple((ast.unparse(k), self.expr(v))
                                     for k, v in zip(where.keys, where.values)),
                               self.expr(node.args[0]))
        args = tuple(self.expr(a) for a in node.args)
        kwargs = tuple(tir.Op("=" + k.arg, (self.expr(k.value),)) for k in node.keywords
                       if k.arg is not None)
        return tir.Op(name, args + kwargs)
