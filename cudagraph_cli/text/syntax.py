"""The syntax tree: what the grammar read, before any meaning is given to it.

Python-shaped and dumb on purpose. `builder/` turns it into the IR, resolving names and
deciding what each call means. Every node carries the line and column it starts at.
"""

from __future__ import annotations

from ..diagnostics import Loc


class Node:
    __slots__ = ("line", "col")

    @property
    def loc(self) -> Loc:
        return Loc(self.line, self.col)


# ---- expressions -------------------------------------------------------------------------

class Name(Node):
    __slots__ = ("id",)

    def __init__(self, id: str, line: int, col: int):
        self.id, self.line, self.col = id, line, col


class Attr(Node):
    __slots__ = ("obj", "attr")

    def __init__(self, obj, attr: str, line: int, col: int):
        self.obj, self.attr, self.line, self.col = obj, attr, line, col


class Call(Node):
    __slots__ = ("func", "args", "kwargs")

    def __init__(self, func, args: list, kwargs: list, line: int, col: int):
        # kwargs: list of Kwarg
        self.func, self.args, self.kwargs, self.line, self.col = func, args, kwargs, line, col


class Kwarg(Node):
    __slots__ = ("name", "value")

    def __init__(self, name: str, value, line: int, col: int):
        self.name, self.value, self.line, self.col = name, value, line, col


class GetItem(Node):
    __slots__ = ("obj", "index")

    def __init__(self, obj, index, line: int, col: int):
        self.obj, self.index, self.line, self.col = obj, index, line, col


class Num(Node):
    __slots__ = ("value",)

    def __init__(self, value: int | float, line: int, col: int):
        self.value, self.line, self.col = value, line, col


class Str(Node):
    __slots__ = ("value",)

    def __init__(self, value: str, line: int, col: int):
        self.value, self.line, self.col = value, line, col


class Const(Node):
    """True, False or None."""

    __slots__ = ("value",)

    def __init__(self, value, line: int, col: int):
        self.value, self.line, self.col = value, line, col


class TupleLit(Node):
    __slots__ = ("items", "parens")

    def __init__(self, items: list, parens: bool, line: int, col: int):
        self.items, self.parens, self.line, self.col = items, parens, line, col


class ListLit(Node):
    __slots__ = ("items",)

    def __init__(self, items: list, line: int, col: int):
        self.items, self.line, self.col = items, line, col


class DictLit(Node):
    __slots__ = ("items",)

    def __init__(self, items: list, line: int, col: int):
        # items: list of (key, value) nodes
        self.items, self.line, self.col = items, line, col


class BinOp(Node):
    __slots__ = ("op", "lhs", "rhs")

    def __init__(self, op: str, lhs, rhs, line: int, col: int):
        self.op, self.lhs, self.rhs, self.line, self.col = op, lhs, rhs, line, col


class Neg(Node):
    __slots__ = ("operand",)

    def __init__(self, operand, line: int, col: int):
        self.operand, self.line, self.col = operand, line, col


class Lambda(Node):
    """`lambda a, b: body`; `params` are names."""

    __slots__ = ("params", "body")

    def __init__(self, params: list, body, line: int, col: int):
        self.params, self.body, self.line, self.col = params, body, line, col


# ---- statements --------------------------------------------------------------------------

class Assign(Node):
    __slots__ = ("target", "annotation", "value")

    def __init__(self, target, annotation, value, line: int, col: int):
        self.target, self.annotation, self.value = target, annotation, value
        self.line, self.col = line, col


class ExprStmt(Node):
    __slots__ = ("value",)

    def __init__(self, value, line: int, col: int):
        self.value, self.line, self.col = value, line, col


class Return(Node):
    __slots__ = ("value",)

    def __init__(self, value, line: int, col: int):
        self.value, self.line, self.col = value, line, col


class Pass(Node):
    __slots__ = ()

    def __init__(self, line: int, col: int):
        self.line, self.col = line, col


class Import(Node):
    """An import statement; `text` is its words joined by single spaces."""

    __slots__ = ("text",)

    def __init__(self, text: str, line: int, col: int):
        self.text, self.line, self.col = text, line, col


class Param(Node):
    __slots__ = ("name", "annotation", "default")

    def __init__(self, name: str, annotation, default, line: int, col: int):
        self.name, self.annotation, self.default = name, annotation, default
        self.line, self.col = line, col


class FuncDef(Node):
    """`def`; `body` is a list of statements, or the raw text of a PrimFunc body."""

    __slots__ = ("name", "params", "ret", "body", "decorators", "body_line")

    def __init__(self, name: str, params: list, ret, body, line: int, col: int, body_line: int):
        self.name, self.params, self.ret, self.body = name, params, ret, body
        self.decorators: list = []
        self.line, self.col, self.body_line = line, col, body_line


class ClassDef(Node):
    __slots__ = ("name", "body", "decorators")

    def __init__(self, name: str, body: list, line: int, col: int):
        self.name, self.body, self.line, self.col = name, body, line, col
        self.decorators: list = []


class With(Node):
    __slots__ = ("ctx", "as_name", "body")

    def __init__(self, ctx, as_name, body: list, line: int, col: int):
        self.ctx, self.as_name, self.body, self.line, self.col = ctx, as_name, body, line, col


class If(Node):
    """`if cond: body else: orelse`; an `elif` is an If alone in `orelse`. `orelse` is None
    when there is no `else` (TVM rejects that; the builder says so, located)."""

    __slots__ = ("cond", "body", "orelse")

    def __init__(self, cond, body: list, orelse: list | None, line: int, col: int):
        self.cond, self.body, self.orelse, self.line, self.col = cond, body, orelse, line, col


def dotted(node) -> str | None:
    """`R.memory.alloc_storage` for Attr(Attr(Name R, memory), alloc_storage); else None."""
    if type(node) is Name:  # the lexer reads a dotted name as one token: nearly every call
        return node.id
    parts = []
    while isinstance(node, Attr):
        parts.append(node.attr)
        node = node.obj
    if not isinstance(node, Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def unparse(node) -> str:
    """Canonical Python text of an expression (for PrimFunc signatures and attribute values)."""
    if isinstance(node, Name):
        return node.id
    if isinstance(node, Attr):
        return f"{unparse(node.obj)}.{node.attr}"
    if isinstance(node, Call):
        parts = [unparse(a) for a in node.args]
        parts += [f"{k.name}={unparse(k.value)}" for k in node.kwargs]
        return f"{unparse(node.func)}({', '.join(parts)})"
    if isinstance(node, GetItem):
        index = node.index
        if isinstance(index, TupleLit) and not index.parens:
            inner = ", ".join(unparse(i) for i in index.items)
        else:
            inner = unparse(index)
        return f"{unparse(node.obj)}[{inner}]"
    if isinstance(node, Num):
        return repr(node.value)
    if isinstance(node, Str):
        return quote(node.value)
    if isinstance(node, Const):
        return repr(node.value)
    if isinstance(node, TupleLit):
        if len(node.items) == 1:
            return f"({unparse(node.items[0])},)"
        return "(" + ", ".join(unparse(i) for i in node.items) + ")"
    if isinstance(node, ListLit):
        return "[" + ", ".join(unparse(i) for i in node.items) + "]"
    if isinstance(node, DictLit):
        return "{" + ", ".join(f"{unparse(k)}: {unparse(v)}" for k, v in node.items) + "}"
    if isinstance(node, BinOp):
        return f"{_operand(node.lhs, node.op, False)} {node.op} {_operand(node.rhs, node.op, True)}"
    if isinstance(node, Neg):
        return f"-{_operand(node.operand, 'neg', True)}"
    if isinstance(node, Lambda):
        head = " ".join(["lambda", ", ".join(node.params)]).rstrip()
        return f"{head}: {unparse(node.body)}"
    raise TypeError(f"cannot unparse {type(node).__name__}")


_PRECEDENCE = {"and": -1, "<=": 0, "<": 0, ">=": 0, ">": 0, "==": 0, "!=": 0,
               "+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2, "neg": 3}


def _operand(node, op: str, right: bool) -> str:
    text = unparse(node)
    if isinstance(node, BinOp):
        inner, outer = _PRECEDENCE[node.op], _PRECEDENCE[op]
        if inner < outer or (inner == outer and (right or inner == 0)):  # no chains
            return f"({text})"
    return text


def quote(value: str) -> str:
    """A double-quoted Python string literal."""
    out = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    out = out.replace("\r", "\\r").replace("\t", "\\t")
    return f'"{out}"'
