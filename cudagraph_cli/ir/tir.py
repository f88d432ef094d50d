"""A PrimFunc's body as data: buffers, loops, blocks, stores, lets and expressions.

cgraph keeps a PrimFunc as text (`ir.PrimFunc.body`); text/tir_reader.py reads that text once
into this model, and every question about what a kernel does (which buffers it writes, which
rows it reads: passes/row_wise.py, exec/kernels.py, exec/rows.py) is asked of the model.

The model keeps what the analyses need and says what it does not model: a construct the reader
does not know becomes an `Unknown` statement (or `Call` with its name) with its text, so that an
analysis can refuse with a reason instead of guessing. Expressions are four shapes: a name, a
constant, an operation (`Op`: arithmetic, comparison, boolean, or a call `T.name(...)`) and a
buffer load; `Let` is TVMScript's `T.Let(body, where={v: value})`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# -- expressions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Const:
    value: object  # int, float, bool or str (a dtype, a thread tag)
    dtype: str | None = None


@dataclass(frozen=True)
class Op:
    """An operation: `op` is a Python operator (`+ - * // % / < <= > >= == != and or not neg`)
    or a call's name (`T.Cast`, `T.exp`, `T.if_then_else`, ...); `args` its operands."""

    op: str
    args: tuple


@dataclass(frozen=True)
class Slice:
    """`start:stop` inside an index (a region, or a vector access)."""

    start: object
    stop: object


@dataclass(frozen=True)
class Load:
    buffer: str
    indices: tuple  # expressions or Slices


@dataclass(frozen=True)
class Let:
    """`T.Let(body, where={var: value, ...})`."""

    bindings: tuple  # ((name, value), ...)
    body: object


Expr = Var | Const | Op | Load | Let | Slice


def children(e) -> tuple:
    """The sub-expressions of `e`."""
    if isinstance(e, Op):
        return e.args
    if isinstance(e, Load):
        return e.indices
    if isinstance(e, Slice):
        return (e.start, e.stop)
    if isinstance(e, Let):
        return tuple(v for _, v in e.bindings) + (e.body,)
    return ()


def walk(e):
    """`e` and every expression inside it, parents first."""
    stack = [e]
    while stack:
        x = stack.pop()
        if x is None:
            continue
        yield x
        stack.extend(reversed(children(x)))


def names(e) -> set:
    """Every variable name `e` mentions."""
    return {x.name for x in walk(e) if isinstance(x, Var)}


def text(e) -> str:
    """`e` in TVMScript-like words, for reasons."""
    out = _text(e)
    if isinstance(e, Op) and out.startswith("(") and out.endswith(")"):
        return out[1:-1]
    return out


def _text(e) -> str:
    if isinstance(e, Var):
        return e.name
    if isinstance(e, Const):
        return repr(e.value) if isinstance(e.value, str) else str(e.value)
    if isinstance(e, Load):
        return f"{e.buffer}[{', '.join(_text(i) for i in e.indices)}]"
    if isinstance(e, Slice):
        return f"{_text(e.start)}:{_text(e.stop)}"
    if isinstance(e, Let):
        where = ", ".join(f"{n}: {_text(v)}" for n, v in e.bindings)
        return f"T.Let({_text(e.body)}, where={{{where}}})"
    if e.op in ("not", "neg"):
        return f"{'not ' if e.op == 'not' else '-'}{_text(e.args[0])}"
    if e.op[0].isalpha() and e.op not in ("and", "or"):
        return f"{e.op}({', '.join(_text(a) for a in e.args)})"
    return "(" + f" {e.op} ".join(_text(a) for a in e.args) + ")"


# -- buffers and statements ------------------------------------------------------------------


@dataclass(frozen=True)
class Buffer:
    """A buffer the kernel names: a parameter, an allocation or a `match_buffer`.
    `origin`: "param", "alloc" or "match"; for a match, `source` is the matched region (a Load
    whose indices may be Slices) and `handle` the parameter it matches, if one."""

    name: str
    shape: tuple
    dtype: str | None = None
    origin: str = "param"
    strides: tuple | None = None
    elem_offset: object = None
    scope: str | None = None
    source: Load | None = None
    handle: str | None = None


@dataclass(frozen=True)
class Iter:
    """A block iterator: `kind` S (spatial), R (reduce), scan, opaque; `dom` its extent."""

    name: str
    kind: str
    dom: object
    binding: object


@dataclass(frozen=True)
class For:
    var: str
    start: object
    extent: object
    kind: str  # serial, parallel, unroll, vectorized, thread_binding
    body: tuple


@dataclass(frozen=True)
class Block:
    name: str
    iters: tuple
    reads: tuple  # declared regions (Loads), never trusted over the body
    writes: tuple
    where: object
    init: tuple
    body: tuple
    allocs: tuple  # Buffers allocated in the block
    matches: tuple  # Buffers matched in the block


@dataclass(frozen=True)
class Store:
    buffer: str
    indices: tuple
    value: object


@dataclass(frozen=True)
class LetStmt:
    """`x = value` (or `x: T.int32 = value`): x is `value` for the rest of its sequence."""

    var: str
    value: object


@dataclass(frozen=True)
class Decl:
    """`n = T.int64()`: a variable declared, not bound (the kernel's size variables)."""

    var: str
    dtype: str


@dataclass(frozen=True)
class If:
    cond: object
    then: tuple
    orelse: tuple


@dataclass(frozen=True)
class Evaluate:
    value: object


@dataclass(frozen=True)
class Alloc:
    buffer: Buffer


@dataclass(frozen=True)
class Unknown:
    """A statement the reader does not model (`with T.launch_thread(...)`, `while`, ...), with
    its first line and the statements inside it, read as far as they go."""

    text: str
    body: tuple = ()


Stmt = For | Block | Store | LetStmt | Decl | If | Evaluate | Alloc | Unknown


def stmt_children(s) -> tuple:
    """The statements directly inside `s`."""
    if isinstance(s, For):
        return s.body
    if isinstance(s, Block):
        return s.init + s.body
    if isinstance(s, If):
        return s.then + s.orelse
    if isinstance(s, Unknown):
        return s.body
    return ()


def walk_stmts(stmts):
    """Every statement of `stmts` and inside them, parents first."""
    stack = list(reversed(stmts))
    while stack:
        s = stack.pop()
        yield s
        stack.extend(reversed(stmt_children(s)))


@dataclass(frozen=True)
class Kernel:
    """A PrimFunc read: its buffers by name (parameters, allocations and matches anywhere),
    its scalar parameters, its declared variables and its body."""

    name: str
    params: tuple  # parameter names, in order
    buffers: dict = field(hash=False)
    scalars: tuple = ()  # scalar parameter names
    decls: dict = field(default_factory=dict, hash=False)  # declared name -> dtype
    body: tuple = ()
    error: str | None = None  # why the body could not be read at all

    def stores(self) -> set:
        """The parameters the body stores to (through match_buffer too)."""
        out = set()
        for s in walk_stmts(self.body):
            if isinstance(s, Store):
                out.add(self.param_of(s.buffer))
        out.discard(None)
        return out

    def loaded(self) -> set:
        """The parameters some expression of the body loads from (through matches too)."""
        out = set()
        for s in walk_stmts(self.body):
            for e in stmt_exprs(s):
                for x in walk(e):
                    if isinstance(x, Load):
                        out.add(self.param_of(x.buffer))
        out.discard(None)
        return out

    def param_of(self, buffer: str) -> str | None:
        """The parameter `buffer` is, or is matched from; None for an allocation."""
        seen = set()
        while buffer not in seen:
            seen.add(buffer)
            b = self.buffers.get(buffer)
            if b is None:
                return buffer if buffer in self.params else None
            if b.origin == "param":
                return b.name
            if b.origin == "match":
                if b.handle is not None:
                    return b.handle
                if b.source is not None:
                    buffer = b.source.buffer
                    continue
            return None
        return None


def stmt_exprs(s) -> tuple:
    """The expressions a statement holds itself (not those of the statements inside it)."""
    if isinstance(s, For):
        return (s.start, s.extent)
    if isinstance(s, Block):
        return tuple(i.dom for i in s.iters) + tuple(i.binding for i in s.iters) + \
            s.reads + s.writes + (s.where,) + \
            tuple(b.source for b in s.matches)
    if isinstance(s, Store):
        return s.indices + (s.value,)
    if isinstance(s, LetStmt):
        return (s.value,)
    if isinstance(s, If):
        return (s.cond,)
    if isinstance(s, Evaluate):
        return (s.value,)
    return ()
