"""The binding memo: a body line's IR, built once, then copied for the lines that mean the same.

A 2048-layer decode function is 78,000 body lines of a dozen shapes (line_templates.py reads
each shape with the grammar once). Building each line's IR the general way (names resolved,
literal sugar converted, arguments checked against their parameters, struct info deduced) is
a hundred small steps a line. Most lines repeat another's meaning: `allocN: R.Tensor(...) =
R.memory.alloc_tensor(storageK, ...)` is the same binding for every N, given that `storageK`
is a var of the same struct info. The memo builds a line of a given *key* the general way,
then turns the binding it made into a small function (generated Python source) that makes the
same binding for any later line of that key, with that line's vars, names and columns.

A line's key, for a line read by a line template (a `syntax.Pending`): its template and its
runs (names, numbers, strings) as written, except
- the name it binds (`allocN`), left out: it names the new var and nothing else;
- each bare name that is a Relax var in scope: its struct info (by identity: the memo interns
  struct infos, so that equal ones are one object), the struct info TVM gives its value
  (`value_sinfo`), and the first run that has the same text (`add(x, x)` and `add(x, y)` are
  two keys).
A run that names no var is in the key as written. A line that names a class alias (`cls`) or
a lambda is built the general way.

Why a copy is what the general way would make (tests/test_binding_memo.py builds every
sample, generated modules, TVM's model dumps, mutants and random bodies both ways, and
compares the IR node for node, positions and sharing included):
- The general build of the line a key is learnt from is watched (views on the function's
  names and symbolic variables). The key is learnt only if that build looked up no name but
  the line's bare names, looked up each var it took by that var's name, read none of those
  names as a symbolic variable and neither table whole, changed nothing but the scope, the
  value struct infos and the dialect votes (which a copy repeats), and made one
  `VarBinding`. Otherwise (a declaration, `cls = Module`, a metadata constant,
  `R.func_attr`, an error) the key is built the general way every time.
- Every Relax var in the binding is one of the line's looked-up vars, or the new one. Nodes
  compared by value (struct infos, PrimExprs, ops) and symbolic vars are shared, as the
  general way shares them; every other node is made anew, its position moved by the lengths
  of the line's runs before it, as line_templates.py moves a syntax node.
- Run on its own line, the copy must give back the binding the general way made, field by
  field, or the key is never learnt.
- After any statement built the general way that declares a symbolic variable or a class
  alias, the memo is emptied. It lives for one function body, while the signatures of the
  module's functions stay as they are.
"""

from __future__ import annotations

from itertools import accumulate
from operator import itemgetter

from ... import ir
from ...diagnostics import NO_LOC, Loc
from ...ir.nodes import FrozenNode, Node, ValueNode
from .. import syntax as S
from .scopes import FunctionScope

# A key is learnt the second time it comes; a line whose key comes once is built the general
# way. Learning costs what building 10 to 20 lines does (compiling the copy), so a function
# body learns nothing before its LEARN_FROM-th templated line (TVM's Llama dump: 44 lines in
# its biggest function, where learning cost more than it saved), then at most TRIES_FREE
# keys and one more per TRIES_EVERY lines (a 2048-layer decode function learns 18).
LEARN_AT = 2
LEARN_FROM = 256
TRIES_FREE = 48
TRIES_EVERY = 64

# The keys counted at most at once (each holds its line's runs).
SEEN_MAX = 4096
_NOT_SEEN = object()
# The nodes a copy makes anew (compared by identity, as the general way makes them).
_FRESH = (ir.VarBinding, ir.Call, ir.Tuple, ir.TupleGetItem, ir.ShapeExpr, ir.PrimValue,
          ir.StringImm, ir.DataTypeImm)
_PLAIN = (str, int, float, bool, type(None))


def _no_runs(runs: tuple) -> tuple:
    return ()


class _NoMemo(Exception):
    """The line's binding cannot be copied (see the module's notes)."""


class LineShape:
    """What the memo needs of a line template: the run it binds, its bare-name runs, and the
    lengths of the text between runs (to place each node)."""

    __slots__ = ("target", "name_runs", "seps", "literals")

    def __init__(self, target: int | None, name_runs: tuple, seps: tuple):
        self.target, self.name_runs, self.seps = target, name_runs, seps
        # The other runs, as written: a line's key has them as they are.
        others = [j for j in range(len(seps) - 1) if j != target and j not in name_runs]
        self.literals = itemgetter(*others) if others else _no_runs


def line_shape(s: S.Pending, node) -> LineShape | None:
    """The shape of `s`'s template, from `node`, the statement it makes; None if the memo
    never takes it (only `name = value`, `name: annotation = value` and bare calls)."""
    seps = getattr(s.make, "seps", None)
    if seps is None:
        return None
    runs = s.runs
    starts = _starts(seps, runs)
    target = None
    if type(node) is S.Assign:
        t = node.target
        if type(t) is not S.Name or "." in t.id or t.col != s.col or runs[:1] != (t.id,):
            return None
        target = 0
    elif type(node) is not S.ExprStmt:
        return None
    names = []
    for n in _names(node.value if target is None else (node.annotation, node.value)):
        if n.line != s.line:
            return None
        offset = n.col - s.col
        if offset not in starts or runs[starts.index(offset)] != n.id:
            return None
        names.append(starts.index(offset))
    return LineShape(target, tuple(sorted(set(names))), seps)


def _starts(seps: tuple, runs: tuple) -> list[int]:
    """Each run's offset in its line."""
    out, at = [], 0
    for sep, run in zip(seps, runs):
        at += sep
        out.append(at)
        at += len(run)
    return out


def _names(x):
    """The bare (undotted) names in a syntax tree."""
    if type(x) is S.Name:
        if "." not in x.id:
            yield x
    elif isinstance(x, S.Node):
        for c in type(x).__mro__:
            for field in getattr(c, "__slots__", ()):
                if field not in ("line", "col"):
                    yield from _names(getattr(x, field))
    elif type(x) in (list, tuple):
        for i in x:
            yield from _names(i)


class _Reads:
    """A view of a dict that records the keys asked of it; `whole` if it was read whole."""

    __slots__ = ("d", "keys_read", "whole")

    def __init__(self, d: dict):
        self.d, self.keys_read, self.whole = d, set(), False

    def get(self, k, default=None):
        self.keys_read.add(k)
        return self.d.get(k, default)

    def __getitem__(self, k):
        self.keys_read.add(k)
        return self.d[k]

    def __contains__(self, k):
        self.keys_read.add(k)
        return k in self.d

    def __setitem__(self, k, v):
        self.d[k] = v

    def __delitem__(self, k):
        self.whole = True
        del self.d[k]

    def __iter__(self):
        self.whole = True
        return iter(self.d)

    def __len__(self):
        self.whole = True
        return len(self.d)

    def __getattr__(self, name):  # keys(), items(), copy(), ...: the whole dict
        self.whole = True
        return getattr(self.d, name)


class BindingMemo:
    """The memo of one Relax function body; `bind` takes each line a template read."""

    def __init__(self, builder, f: ir.Function, fctx: FunctionScope, class_name: str,
                 shapes: dict, sinfos: dict):
        self.builder, self.f, self.fctx, self.class_name = builder, f, fctx, class_name
        self.shapes = shapes  # template -> LineShape | None, for the module
        self.sinfos = sinfos  # struct info -> the one object for it, for the module
        self.entries: dict = {}  # key -> _Entry, or None: built the general way
        self.seen: dict = {}
        self.stamp = self._stamp()
        self.lines = self.tries = self.learnt = self.copied = 0

    def _stamp(self) -> tuple:
        fctx = self.fctx
        return len(fctx.syms), len(fctx.sym_decl), len(fctx.class_aliases)

    def intern(self, sinfo):
        """One object for each struct info value (keys compare struct infos by identity)."""
        if sinfo is None:
            return None
        return self.sinfos.setdefault(sinfo, sinfo)

    def bind(self, s: S.Pending) -> list | None:
        """The bindings of line `s`, or None if the memo does not take its kind of statement
        (the caller builds it)."""
        shape = self.shapes.get(s.make, _NOT_SEEN)
        if shape is _NOT_SEEN:
            node = s.node()
            shape = self.shapes[s.make] = line_shape(s, node)
            if shape is None:
                return None
        elif shape is None:
            return None
        self.lines += 1
        if self.lines < LEARN_FROM:  # nothing learnt yet, nothing to copy: no key to make
            return self._general(s)
        runs = s.runs
        refs = []
        marks = []
        scope = self.fctx.scope
        aliases = self.fctx.class_aliases
        value_sinfo = self.builder.value_sinfo
        for j in shape.name_runs:
            name = runs[j]
            if name in aliases:  # `x = cls` makes an alias, whatever `cls` is in scope
                return self._general(s)
            v = scope.get(name)
            if v is None:
                marks.append(name)
            elif type(v) is ir.Var:
                marks.append((id(v.sinfo), id(value_sinfo.get(v)), runs.index(name)))
                refs.append(v)
            else:
                return self._general(s)
        key = (s.make, shape.literals(runs), *marks)
        entry = self.entries.get(key)
        if entry is not None:
            self.copied += 1
            return [entry.copy(self, runs, refs, s.line, s.col)]
        if key in self.entries:  # never memoized
            return self._general(s)
        seen = self.seen.get(key, 0) + 1
        if len(self.seen) >= SEEN_MAX:  # a body of lines that each mean something else
            self.seen.clear()
        self.seen[key] = seen
        if seen < LEARN_AT or self.tries >= TRIES_FREE + self.lines // TRIES_EVERY:
            return self._general(s)
        self.tries += 1
        return self._learn(s, shape, key, refs)

    def _general(self, s: S.Pending) -> list:
        """Line `s` built the general way; its vars' struct infos interned, so that the lines
        that use them have keys in common."""
        bindings = self.builder.statement_bindings(s.node(), self.f, self.fctx, self.class_name)
        value_sinfo = self.builder.value_sinfo
        for binding in bindings:
            var = binding.var
            var.sinfo = self.intern(var.sinfo)
            if var in value_sinfo:
                value_sinfo[var] = self.intern(value_sinfo[var])
        self.after_general()
        return bindings

    def after_general(self) -> None:
        """After a statement built the general way (here or by the caller): if it declared a
        symbolic variable or an alias, what names mean changed, and the memo is emptied."""
        stamp = self._stamp()
        if stamp != self.stamp:
            self.entries.clear()
            self.seen.clear()
            self.stamp = stamp

    def _learn(self, s: S.Pending, shape: LineShape, key: tuple, refs: list) -> list:
        """Build line `s` the general way, watched, and make its key's entry if it can."""
        b, fctx = self.builder, self.fctx
        watched = object.__new__(FunctionScope)
        watched.__dict__.update(fctx.__dict__)
        views = watched.scope, watched.syms, watched.sym_decl = (
            _Reads(fctx.scope), _Reads(fctx.syms), _Reads(fctx.sym_decl))
        before = (self._stamp(), len(fctx.sym_order), len(b.meta_constants), self.f.attrs,
                  b.dialect.legacy, b.dialect.current)
        try:
            bindings = b.statement_bindings(s.node(), self.f, watched, self.class_name)
        finally:
            for name, value in watched.__dict__.items():  # what the statement reassigned
                if value is not fctx.__dict__.get(name) and value not in views:
                    setattr(fctx, name, value)
        self.entries[key] = None
        if self._stamp() != self.stamp:
            self.after_general()
            return bindings
        if (watched.scope, watched.syms, watched.sym_decl) != views or \
                any(v.whole for v in views) or len(bindings) != 1 or \
                type(bindings[0]) is not ir.VarBinding or \
                before[:4] != (self._stamp(), len(fctx.sym_order), len(b.meta_constants),
                               self.f.attrs):
            return bindings
        names = {s.runs[j] for j in shape.name_runs}
        looked_up = {v.name for v in refs}
        scope_reads = views[0].keys_read
        sym_reads = views[1].keys_read | views[2].keys_read
        if not looked_up <= scope_reads <= names or sym_reads & looked_up:
            return bindings
        binding = bindings[0]
        var = binding.var
        var.sinfo = self.intern(var.sinfo)
        given = b.value_sinfo.get(var, _NOT_SEEN)
        if given is not _NOT_SEEN:
            given = b.value_sinfo[var] = self.intern(given)
        votes = (b.dialect.legacy - before[4], b.dialect.current - before[5])
        try:
            entry = _Entry(binding, shape, s, refs, given, votes)
        except _NoMemo:
            return bindings
        if not _same_binding(entry.make(s.runs, refs, s.line, s.col), binding, var):
            return bindings
        # The key's looked-up struct infos stay alive with the entry: their ids are its key.
        entry.pins = [(v.sinfo, b.value_sinfo.get(v)) for v in refs]
        self.entries[key] = entry
        self.learnt += 1
        return bindings


class _Entry:
    """A key's copy: `make(runs, refs, line, col)` -> the line's binding, and what binding it
    changes besides (the scope, the value's struct info, the dialect votes)."""

    __slots__ = ("make", "target", "given", "votes", "pins")

    def __init__(self, binding: ir.VarBinding, shape: LineShape, s: S.Pending, refs: list,
                 given, votes: tuple):
        self.target = shape.target
        self.given = given
        self.votes = votes
        self.make = _compile(_Writer(binding, shape, s, refs).source())

    def copy(self, memo: BindingMemo, runs: tuple, refs: list, line: int, col: int):
        binding = self.make(runs, refs, line, col)
        var = binding.var
        if self.target is not None:
            memo.fctx.scope[var.name] = var
        if self.given is not _NOT_SEEN:
            memo.builder.value_sinfo[var] = self.given
        if self.votes != (0, 0):
            d = memo.builder.dialect
            d.legacy += self.votes[0]
            d.current += self.votes[1]
        return binding


def _compile(source: tuple):
    text, constants = source
    namespace = {"ir": ir, "L": Loc, "NO_LOC": NO_LOC, "k": constants, "_acc": accumulate}
    exec(compile(text, "<binding memo>", "exec"), namespace)
    return namespace["make"]


class _Writer:
    """The source of a copy: `v` the line's runs, `w` its looked-up vars, `ln` its line, `c`
    the column of its first character, `a` the running lengths of its runs."""

    def __init__(self, binding: ir.VarBinding, shape: LineShape, s: S.Pending, refs: list):
        self.binding, self.shape, self.s = binding, shape, s
        self.refs = {}
        for i, v in enumerate(refs):
            self.refs.setdefault(id(v), i)
        self.starts = _starts(shape.seps, s.runs)
        self.lengths = [0, *accumulate(map(len, s.runs))]
        self.constants: list = []
        self.locs: dict = {}  # Loc -> the local name the copy makes it in

    def source(self) -> tuple:
        var = self.binding.var
        name = "v[0]" if self.shape.target is not None and var.name == self.s.runs[0] else \
            self.constant(var.name)
        var_src = (f"ir.Var({name}, {self.constant(var.sinfo)}, "
                   f"{self.constant(var.is_dataflow)}, {self.value(var.loc)}, "
                   f"{self.constant(var.annotated)})")
        body = self.node(self.binding, var_src)
        head = "".join(f"    {local} = L(ln, {col})\n" for local, col in self.locs.values())
        uses_a = "a[" in head
        text = ("def make(v, w, ln, c):\n" +
                ("    a = [0, *_acc(map(len, v))]\n" if uses_a else "") +
                head + f"    return {body}\n")
        return text, self.constants

    def constant(self, x) -> str:
        self.constants.append(x)
        return f"k[{len(self.constants) - 1}]"

    def loc(self, loc: Loc) -> str:
        if loc == NO_LOC:  # a node of a default argument, made anew at each call
            return "NO_LOC"
        if loc not in self.locs:
            line, col = loc
            if line != self.s.line:
                raise _NoMemo
            offset = col - self.s.col
            before = sum(1 for start in self.starts if start < offset)
            fixed = offset - self.lengths[before]
            where = f"c + {fixed} + a[{before}]" if before else f"c + {fixed}"
            self.locs[loc] = (f"l{len(self.locs)}", where)
        return self.locs[loc][0]

    def value(self, x) -> str:
        t = type(x)
        if t is Loc:
            return self.loc(x)
        if t is ir.Var:
            i = self.refs.get(id(x))
            if i is None:
                raise _NoMemo  # a var the line does not name
            return f"w[{i}]"
        if t is tuple:
            return "(" + "".join(self.value(i) + ", " for i in x) + ")"
        if t in _PLAIN or isinstance(x, (ValueNode, ir.SymVar)):
            return self.constant(x)
        if t in _FRESH:
            return self.node(x)
        raise _NoMemo

    def node(self, x, var_src: str | None = None) -> str:
        t = type(x)
        args = []
        for field in ir.field_names(t):
            if var_src is not None and field == "var":
                args.append(var_src)
            else:
                args.append(self.value(getattr(x, field)))
        return f"ir.{t.__name__}({', '.join(args)})"


def _same_binding(a: ir.VarBinding, b: ir.VarBinding, var: ir.Var) -> bool:
    """The copy `a` against the binding `b` the general way made: the new vars alike, every
    other var the same object, every value node the same object, the rest equal field by
    field, positions included."""

    def same(x, y) -> bool:
        if type(x) is not type(y):
            return False
        t = type(x)
        if x is var or y is var:
            return False
        if t is ir.Var:
            return x is y
        if t is tuple:
            return len(x) == len(y) and all(map(same, x, y))
        if isinstance(x, (ValueNode, ir.SymVar)):
            return x is y
        if isinstance(x, (Node, FrozenNode)):
            return all(same(getattr(x, f), getattr(y, f)) for f in ir.field_names(t))
        return x == y

    va, vb = a.var, b.var
    return (type(va) is ir.Var and va is not vb and va.name == vb.name and
            va.sinfo is vb.sinfo and va.is_dataflow == vb.is_dataflow and va.loc == vb.loc and
            va.annotated == vb.annotated and same(a.value, b.value) and a.loc == b.loc and
            a.bare == b.bare)
