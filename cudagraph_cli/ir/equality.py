"""Structural equality of Relax functions: equal up to the names of local variables.

The equality `tvm.ir.assert_structural_equal` applies: the same parameters, attributes, blocks
and bindings in the same order, the same calls and struct info, with local vars and symbolic
vars matched by position of definition rather than by name. Struct info that cgraph cannot
deduce (results of operators it does not model, left unannotated) is not compared.

What is compared is written once: `Encoder` says what each expression, PrimExpr and struct info
kind is made of, the `Matcher`'s walk what a function, block and binding is. The Matcher
compares two encoders' values and words the first difference; `structural_key` runs the same
walk over one function and keeps the values. So equal keys mean equal functions (the rewriter
shares lifted functions by key alone), and tests/test_equality_key.py holds the converse.

Whole modules, PrimFuncs (which cgraph keeps as text) and the words of a difference are a floor
up, in text/difference.py: ir knows nothing of text, so a `Matcher` that must explain itself is
given its `Wording` by its caller.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import Loc, NO_LOC


class Mismatch(Exception):
    """The first difference a `Matcher` found, located in both functions."""

    def __init__(self, message: str, loc_a: Loc = NO_LOC, loc_b: Loc = NO_LOC):
        super().__init__(message)
        self.message, self.loc_a, self.loc_b = message, loc_a, loc_b


class Wording:
    """How a difference names what differs; `mod` is the module the node comes from (its class
    name spells the calls to its functions). The interface; Unworded and text/difference.py's
    PrinterWording are the two there are. `sides`: what the two sides are called where a
    difference names one (the caller's names: `got`, `the golden x.relax`, two paths)."""

    sides = ("the first", "the second")

    def expr(self, e, mod: ir.Module) -> str:
        raise NotImplementedError

    def literal(self, v, mod: ir.Module) -> str:
        raise NotImplementedError

    def sinfo(self, s) -> str:
        raise NotImplementedError


class Unworded(Wording):
    """The wording of a caller that asks only whether two things are equal: none, so that a
    difference costs no printing."""

    def expr(self, e, mod: ir.Module) -> str:
        return ""

    def literal(self, v, mod: ir.Module) -> str:
        return ""

    def sinfo(self, s) -> str:
        return ""


# ---- the structure of expressions, PrimExprs and struct info -------------------------------

class Encoder:
    """What each kind of expression, PrimExpr and struct info compares, written once: one side's
    nodes as hashable values, equal exactly when the nodes are structurally equal.

    Vars stand for their place in definition order (`define`), symbolic vars for their place
    in order of first appearance, so names do not count; a var defined nowhere here (free) stands
    for itself. The `Matcher` compares two encoders' values in place; `structural_key` keeps one
    encoder's values. Anything this does not know (an If or a function in expression position,
    unknown struct info inside a compared one) is a fresh object, equal to nothing, not even a
    second encoding of itself: the Matcher has always found those different."""

    __slots__ = ("var_ids", "sym_ids", "memo")

    def __init__(self):
        self.var_ids: dict[ir.Var, int] = {}
        self.sym_ids: dict[ir.SymVar, int] = {}
        # By identity, not by value: struct info compares by value, and hashing it by value
        # would cost what the memo saves. The memo holds each struct info beside its encoding,
        # so no id here is reused by another object while the encoder lives.
        self.memo: dict[int, tuple] = {}

    def define(self, v: ir.Var) -> None:
        self.var_ids[v] = len(self.var_ids)

    def expr(self, e):
        t = type(e)
        if t is ir.Var:
            return self.var_ids.get(e, e)
        if t is ir.Call:
            expr = self.expr
            args = tuple([expr(x) for x in e.args])
            if e.attrs or e.sinfo_args:
                # Attributes by key, in any order.
                attrs = tuple(sorted([(k, expr(v)) for k, v in e.attrs], key=_first))
                return (t, expr(e.op), args, attrs,
                        tuple([self.sinfo(x) for x in e.sinfo_args]))
            return (t, expr(e.op), args)
        if t is ir.Tuple:
            return (t,) + tuple([self.expr(x) for x in e.fields])
        if t is ir.TupleGetItem:
            return (t, e.index, self.expr(e.tuple_value))
        if t is ir.ShapeExpr:
            return (t,) + tuple([self.prim(x) for x in e.values])
        if t is ir.PrimValue:
            return (t, self.prim(e.value))
        if t is ir.StringImm or t is ir.DataTypeImm:
            return (t, e.value)
        if t is ir.Constant:
            return (t, e.value, e.dtype, e.meta, e.sinfo)
        if t is ir.GlobalVarRef or t is ir.ExternFunc or t is ir.Op:
            return (t, e.name)
        if t is ir.Literal:
            return (t, _norm_literal(e.value))
        return object()

    def prim(self, e):
        t = type(e)
        if t is ir.SymVar:
            ids = self.sym_ids
            n = ids.get(e)
            if n is None:
                n = ids[e] = len(ids)
            return (t, n, e.dtype)
        if t is ir.IntImm or t is ir.FloatImm:
            return e  # compared by value, and holds no symbolic var
        if t is ir.PrimBinOp:
            return (t, e.op, self.prim(e.lhs), self.prim(e.rhs))
        if t is ir.PrimCall:
            return (t, e.func) + tuple([self.prim(x) for x in e.args])
        if t is ir.Literal:  # T.Cast's dtype
            return e
        return object()

    def sinfo(self, s):
        hit = self.memo.get(id(s))
        if hit is not None:
            return hit[1]
        key = self.sinfo_key(s)
        self.memo[id(s)] = (s, key)
        return key

    def sinfo_key(self, s):
        t = type(s)
        if t is ir.TensorSInfo:
            return (t, s.dtype, s.ndim,
                    None if s.shape is None else tuple([self.prim(x) for x in s.shape]),
                    s.vdevice)
        if t is ir.ObjectSInfo:
            return t
        if t is ir.TupleSInfo:
            return (t,) + tuple([self.sinfo(x) for x in s.fields])
        if t is ir.ShapeSInfo:
            return (t, s.ndim,
                    None if s.values is None else tuple([self.prim(x) for x in s.values]))
        if t is ir.PrimSInfo:
            return (t, s.dtype, None if s.value is None else self.prim(s.value))
        if t is ir.FuncSInfo:
            return (t, s.purity,
                    None if s.params is None else tuple([self.sinfo(x) for x in s.params]),
                    self.sinfo(s.ret))
        return object()  # None: unknown


def _first(pair):
    return pair[0]


# ---- Relax functions ----------------------------------------------------------------------

class Matcher:
    """Alpha-equivalence of two Relax functions, each side encoded by its own `Encoder`.

    The walk over functions, blocks and bindings below is the one description of a function's
    structure: every comparison it makes goes through `same`, `expr`, `sinfo`, `known_sinfo`
    and `define`, and `structural_key` runs this same walk with those noting instead of
    comparing. Public for the callers that need the mapping to outlive one comparison: verify
    matches the parameters of two functions one by one under a single mapping, and the
    rewriter compares struct info on its own (`sinfo`). Raises `Mismatch`;
    text/difference.py words and reports it."""

    def __init__(self, ma: ir.Module, mb: ir.Module, wording: Wording | None = None):
        self.enc_a, self.enc_b = Encoder(), Encoder()
        self.ma, self.mb = ma, mb
        self.words = wording if wording is not None else Unworded()

    # ---- the comparisons (structural_key's _Recorder notes them instead) -------------------

    def same(self, x, y) -> bool:
        """Plain facts: flags, counts, kinds."""
        return x == y

    def expr(self, a, b) -> bool:
        return self.enc_a.expr(a) == self.enc_b.expr(b)

    def sinfo(self, a, b) -> bool:
        return self.enc_a.sinfo(a) == self.enc_b.sinfo(b)

    def known_sinfo(self, a, b) -> bool:
        """Struct info cgraph could not deduce (None) on either side is not compared."""
        return a is None or b is None or self.sinfo(a, b)

    def define(self, va: ir.Var, vb: ir.Var) -> None:
        self.enc_a.define(va)
        self.enc_b.define(vb)

    # ---- the walk ------------------------------------------------------------------------

    def function(self, a: ir.Function, b: ir.Function):
        if not self.same(a.is_private, b.is_private):
            raise Mismatch(f"private={a.is_private} vs private={b.is_private}", a.loc, b.loc)
        if not self.same(a.is_pure, b.is_pure):
            raise Mismatch(f"pure={a.is_pure} vs pure={b.is_pure}", a.loc, b.loc)
        if not self.same(_attrs(a), _attrs(b)):
            self._attr_difference(a, b)
        if not self.same(len(a.params), len(b.params)):
            raise Mismatch(f"{len(a.params)} parameters vs {len(b.params)}", a.loc, b.loc)
        for i, (va, vb) in enumerate(zip(a.params, b.params)):
            if not self.sinfo(va.sinfo, vb.sinfo):
                raise Mismatch(f"parameter {i} ('{va.name}'): {self._s(va.sinfo)} vs "
                               f"{self._s(vb.sinfo)}", va.loc, vb.loc)
            self.define(va, vb)
        if not self.known_sinfo(a.ret_sinfo, b.ret_sinfo):
            raise Mismatch(f"return struct info: {self._s(a.ret_sinfo)} vs {self._s(b.ret_sinfo)}",
                           a.ret_loc, b.ret_loc)
        self.blocks(a.blocks, b.blocks, a.loc, b.loc)
        if not self.expr(a.body, b.body):
            raise Mismatch(f"return value: {self._expr_a(a.body)} vs {self._expr_b(b.body)}",
                           a.loc, b.loc)

    def _attr_difference(self, a: ir.Function, b: ir.Function):
        """The first attribute, by key, that differs (there is one)."""
        attrs_a = {k: v for k, v in a.attrs}
        attrs_b = {k: v for k, v in b.attrs}
        for k in sorted(set(attrs_a) | set(attrs_b)):
            if k not in attrs_b:
                raise Mismatch(f"attribute \"{k}\" is only in {self.words.sides[0]}", a.loc,
                               b.loc)
            if k not in attrs_a:
                raise Mismatch(f"attribute \"{k}\" is only in {self.words.sides[1]}", a.loc,
                               b.loc)
            if not _literal_eq(attrs_a[k], attrs_b[k]):
                raise Mismatch(f"attribute \"{k}\": {self._literal_a(attrs_a[k])} vs "
                               f"{self._literal_b(attrs_b[k])}", a.loc, b.loc)

    def blocks(self, blocks_a: list, blocks_b: list, loc_a, loc_b):
        if not self.same(len(blocks_a), len(blocks_b)):
            raise Mismatch(f"{len(blocks_a)} binding blocks vs {len(blocks_b)}", loc_a, loc_b)
        for i, (ba, bb) in enumerate(zip(blocks_a, blocks_b)):
            if not self.same(ba.is_dataflow, bb.is_dataflow):
                raise Mismatch(f"block {i} is {'dataflow' if ba.is_dataflow else 'plain'} vs "
                               f"{'dataflow' if bb.is_dataflow else 'plain'}", ba.loc, bb.loc)
            # Compared before the bindings (the key needs the count first) but reported after
            # the bindings both blocks have, which may differ first.
            same_count = self.same(len(ba.bindings), len(bb.bindings))
            n = min(len(ba.bindings), len(bb.bindings))
            for j in range(n):
                self.binding(ba.bindings[j], bb.bindings[j])
            if not same_count:
                extra = ba.bindings[n] if len(ba.bindings) > n else bb.bindings[n]
                side = "first" if len(ba.bindings) > n else "second"
                named = self.words.sides[0 if side == "first" else 1]
                raise Mismatch(f"block {i} has {len(ba.bindings)} bindings vs {len(bb.bindings)}; "
                               f"{named} goes on with `{self._binding_text(extra, side)}`",
                               extra.loc if side == "first" else loc_a,
                               extra.loc if side == "second" else loc_b)

    def branch_or_closure(self, a, b, what: str):
        """An If (both branches, in order) or a nested function, compared in place."""
        va, vb = a.value, b.value
        if type(va) is ir.Function:
            self.function(va, vb)
            return
        if not self.expr(va.cond, vb.cond):
            raise Mismatch(f"{what}: condition {self._expr_a(va.cond)} vs {self._expr_b(vb.cond)}",
                           a.loc, b.loc)
        for name, sa, sb in (("then", va.true_branch, vb.true_branch),
                             ("else", va.false_branch, vb.false_branch)):
            self.blocks(sa.blocks, sb.blocks, a.loc, b.loc)
            if not self.expr(sa.body, sb.body):
                raise Mismatch(f"{what}: the {name} branch gives {self._expr_a(sa.body)} vs "
                               f"{self._expr_b(sb.body)}", a.loc, b.loc)

    def binding(self, a, b):
        if not self.same(type(a), type(b)):
            raise Mismatch("a match_cast vs a plain binding", a.loc, b.loc)
        kind = type(a.value)
        if (kind is ir.If or kind is ir.Function) and self.same(kind, type(b.value)):
            self.branch_or_closure(a, b, _what(a))
        elif not self.expr(a.value, b.value):
            raise Mismatch(f"{_what(a)}: {self._expr_a(a.value)} vs {self._expr_b(b.value)}",
                           a.loc, b.loc)
        if type(a) is ir.MatchCast and not self.sinfo(a.sinfo, b.sinfo):
            raise Mismatch(f"{_what(a)}: match_cast to {self._s(a.sinfo)} vs {self._s(b.sinfo)}",
                           a.loc, b.loc)
        if not self.same(a.var.is_dataflow, b.var.is_dataflow):
            raise Mismatch(f"{_what(a)}: dataflow var vs output var", a.loc, b.loc)
        sa, sb = a.var.sinfo, b.var.sinfo
        if not self.known_sinfo(sa, sb):
            raise Mismatch(f"{_what(a)}: struct info {self._s(sa)} vs {self._s(sb)}", a.loc, b.loc)
        self.define(a.var, b.var)

    # ---- wording -------------------------------------------------------------------------

    def _binding_text(self, bnd, side: str) -> str:
        mod = self.ma if side == "first" else self.mb
        return f"{bnd.var.name} = {self.words.expr(bnd.value, mod)}"

    def _expr_a(self, e) -> str:
        return self.words.expr(e, self.ma)

    def _expr_b(self, e) -> str:
        return self.words.expr(e, self.mb)

    def _literal_a(self, v) -> str:
        return self.words.literal(v, self.ma)

    def _literal_b(self, v) -> str:
        return self.words.literal(v, self.mb)

    def _s(self, s) -> str:
        return "(unknown)" if s is None else self.words.sinfo(s)


class _Recorder(Matcher):
    """The Matcher's walk over one function (given as both sides), noting what each comparison
    would compare, in order, instead of comparing: so the key and the Matcher cannot disagree
    on what a function's structure is. Every comparison answers "same", so nothing is worded
    and the Matcher's wording state is never set up."""

    def __init__(self):  # not the Matcher's: see the docstring
        self.enc = Encoder()
        self.notes: list = []

    def same(self, x, y) -> bool:
        self.notes.append(x)
        return True

    def expr(self, a, b) -> bool:
        self.notes.append(self.enc.expr(a))
        return True

    def sinfo(self, a, b) -> bool:
        self.notes.append(self.enc.sinfo(a))
        return True

    def known_sinfo(self, a, b) -> bool:
        self.notes.append(None if a is None else self.enc.sinfo(a))
        return True

    def define(self, va: ir.Var, vb: ir.Var) -> None:
        self.enc.define(va)


def _attrs(f: ir.Function) -> tuple:
    """A function's attributes as comparable values, by key."""
    return tuple(sorted([(k, _norm_literal(v.value if isinstance(v, ir.Literal) else v))
                         for k, v in dict(f.attrs).items()], key=_first))


def _literal_eq(a, b) -> bool:
    va = a.value if isinstance(a, ir.Literal) else a
    vb = b.value if isinstance(b, ir.Literal) else b
    return _norm_literal(va) == _norm_literal(vb)


def _norm_literal(v):
    """Tuples and lists are both TVM Arrays; True is not the integer 1 in an attribute."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, tuple) and len(v) == 2 and v[0] in ("tuple", "list"):
        return ("array", tuple(_norm_literal(x) for x in v[1]))
    if isinstance(v, tuple) and len(v) == 2 and v[0] == "dict":
        return ("dict", tuple(sorted((repr(_norm_literal(k)), _norm_literal(x))
                                     for k, x in v[1])))
    return v


def functions_equal(a, b) -> bool:
    """Two functions structurally equal (as TVM's BlockBuilder deduplicates lifted ones)."""
    if isinstance(a, ir.PrimFunc) or isinstance(b, ir.PrimFunc):
        return False
    dummy = ir.Module("Module", [])
    try:
        Matcher(dummy, dummy).function(a, b)
    except Mismatch:
        return False
    return True


def structural_key(f: ir.Function) -> tuple:
    """A hashable key: what the `Matcher`'s walk compares, in its order, for `f` alone.

    Equal keys mean structurally equal functions. The converse holds but where one function
    has struct info cgraph could not deduce and the other has it there: the Matcher does not
    compare those (it cannot know), a key cannot leave a place open, so it says unknown."""
    r = _Recorder()
    r.function(f, f)
    return tuple(r.notes)


def _what(binding) -> str:
    """How a difference names a binding (made only for a difference: structural_key walks
    every binding of a module with the Matcher)."""
    return f"binding '{binding.var.name}'" if not binding.bare else "binding"
