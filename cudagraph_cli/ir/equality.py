"""Structural equality of Relax functions: equal up to the names of local variables.

The equality `tvm.ir.assert_structural_equal` applies: the same parameters, attributes, blocks
and bindings in the same order, the same calls and struct info, with local vars and symbolic
vars matched by position of definition rather than by name. Struct info that cgraph cannot
deduce (results of operators it does not model, left unannotated) is not compared.

Whole modules, PrimFuncs (which cgraph keeps as text) and the words of a difference are a floor
up, in text/difference.py: ir knows nothing of text, so a `Matcher` that must explain itself is
given its `Wording` by its caller.
"""

from __future__ import annotations

from typing import Protocol

from .. import ir
from ..diagnostics import Loc, NO_LOC


class Mismatch(Exception):
    """The first difference a `Matcher` found, located in both functions."""

    def __init__(self, message: str, loc_a: Loc = NO_LOC, loc_b: Loc = NO_LOC):
        super().__init__(message)
        self.message, self.loc_a, self.loc_b = message, loc_a, loc_b


class Wording(Protocol):
    """How a difference names what differs; `mod` is the module the node comes from (its class
    name spells the calls to its functions)."""

    def expr(self, e, mod: ir.Module) -> str: ...

    def literal(self, v, mod: ir.Module) -> str: ...

    def sinfo(self, s) -> str: ...


class Unworded:
    """The wording of a caller that asks only whether two things are equal: none, so that a
    difference costs no printing."""

    def expr(self, e, mod: ir.Module) -> str:
        return ""

    def literal(self, v, mod: ir.Module) -> str:
        return ""

    def sinfo(self, s) -> str:
        return ""


# ---- Relax functions ----------------------------------------------------------------------

class Matcher:
    """Alpha-equivalence of two Relax functions: vars and symbolic vars mapped a -> b.

    Public for the callers that need the mapping to outlive one comparison: verify matches the
    parameters of two functions one by one under a single mapping, and the rewriter compares
    struct info on its own (`sinfo`). Raises `Mismatch`; text/difference.py words and reports it."""

    def __init__(self, ma: ir.Module, mb: ir.Module, wording: Wording | None = None):
        # Vars and symbolic vars hash by identity: a var of `a` -> the var of `b` it stands for.
        self.vars: dict[ir.Var, ir.Var] = {}
        self.syms: dict[ir.SymVar, ir.SymVar] = {}
        self.syms_back: dict[ir.SymVar, ir.SymVar] = {}
        self.ma, self.mb = ma, mb
        self.words = wording if wording is not None else Unworded()

    def function(self, a: ir.Function, b: ir.Function):
        if a.is_private != b.is_private:
            raise Mismatch(f"private={a.is_private} vs private={b.is_private}", a.loc, b.loc)
        if a.is_pure != b.is_pure:
            raise Mismatch(f"pure={a.is_pure} vs pure={b.is_pure}", a.loc, b.loc)
        attrs_a = {k: v for k, v in a.attrs}
        attrs_b = {k: v for k, v in b.attrs}
        for k in sorted(set(attrs_a) | set(attrs_b)):
            if k not in attrs_b:
                raise Mismatch(f"attribute \"{k}\" is only in the first", a.loc, b.loc)
            if k not in attrs_a:
                raise Mismatch(f"attribute \"{k}\" is only in the second", a.loc, b.loc)
            if not _literal_eq(attrs_a[k], attrs_b[k]):
                raise Mismatch(f"attribute \"{k}\": {self._literal_a(attrs_a[k])} vs "
                            f"{self._literal_b(attrs_b[k])}", a.loc, b.loc)
        if len(a.params) != len(b.params):
            raise Mismatch(f"{len(a.params)} parameters vs {len(b.params)}", a.loc, b.loc)
        for i, (va, vb) in enumerate(zip(a.params, b.params)):
            if not self.sinfo(va.sinfo, vb.sinfo):
                raise Mismatch(f"parameter {i} ('{va.name}'): {self._s(va.sinfo)} vs "
                            f"{self._s(vb.sinfo)}", va.loc, vb.loc)
            self.vars[va] = vb
        if a.ret_sinfo is not None and b.ret_sinfo is not None and \
                not self.sinfo(a.ret_sinfo, b.ret_sinfo):
            raise Mismatch(f"return struct info: {self._s(a.ret_sinfo)} vs {self._s(b.ret_sinfo)}",
                        a.ret_loc, b.ret_loc)
        self.blocks(a.blocks, b.blocks, a.loc, b.loc)
        if not self.expr(a.body, b.body):
            raise Mismatch(f"return value: {self._expr_a(a.body)} vs {self._expr_b(b.body)}",
                        a.loc, b.loc)

    def blocks(self, blocks_a: list, blocks_b: list, loc_a, loc_b):
        if len(blocks_a) != len(blocks_b):
            raise Mismatch(f"{len(blocks_a)} binding blocks vs {len(blocks_b)}", loc_a, loc_b)
        for i, (ba, bb) in enumerate(zip(blocks_a, blocks_b)):
            if ba.is_dataflow != bb.is_dataflow:
                raise Mismatch(f"block {i} is {'dataflow' if ba.is_dataflow else 'plain'} vs "
                            f"{'dataflow' if bb.is_dataflow else 'plain'}", ba.loc, bb.loc)
            n = min(len(ba.bindings), len(bb.bindings))
            for j in range(n):
                self.binding(ba.bindings[j], bb.bindings[j])
            if len(ba.bindings) != len(bb.bindings):
                extra = ba.bindings[n] if len(ba.bindings) > n else bb.bindings[n]
                side = "first" if len(ba.bindings) > n else "second"
                raise Mismatch(f"block {i} has {len(ba.bindings)} bindings vs {len(bb.bindings)}; "
                            f"the {side} goes on with `{self._binding_text(extra, side)}`",
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

    def binding(self, a, b):
        if type(a) is not type(b):
            raise Mismatch("a match_cast vs a plain binding", a.loc, b.loc)
        what = f"binding '{a.var.name}'" if not a.bare else "binding"
        if type(a.value) in (ir.If, ir.Function) and type(a.value) is type(b.value):
            self.branch_or_closure(a, b, what)
        elif not self.expr(a.value, b.value):
            raise Mismatch(f"{what}: {self._expr_a(a.value)} vs {self._expr_b(b.value)}",
                        a.loc, b.loc)
        if isinstance(a, ir.MatchCast) and not self.sinfo(a.sinfo, b.sinfo, define=True):
            raise Mismatch(f"{what}: match_cast to {self._s(a.sinfo)} vs {self._s(b.sinfo)}",
                        a.loc, b.loc)
        if a.var.is_dataflow != b.var.is_dataflow:
            raise Mismatch(f"{what}: dataflow var vs output var", a.loc, b.loc)
        sa, sb = a.var.sinfo, b.var.sinfo
        if sa is not None and sb is not None and not self.sinfo(sa, sb):
            raise Mismatch(f"{what}: struct info {self._s(sa)} vs {self._s(sb)}", a.loc, b.loc)
        self.vars[a.var] = b.var

    # ---- expressions ---------------------------------------------------------------------

    def expr(self, a, b) -> bool:
        ta = type(a)
        if ta is not type(b):
            return False
        if ta is ir.Var:
            m = self.vars.get(a)
            return m is b if m is not None else a is b
        if ta is ir.Call:
            if type(a.op) is not type(b.op):
                return False
            if ta is not type(b) or len(a.args) != len(b.args):
                return False
            if isinstance(a.op, ir.Var):
                if not self.expr(a.op, b.op):
                    return False
            elif a.op.name != b.op.name:
                return False
            if not all(self.expr(x, y) for x, y in zip(a.args, b.args)):
                return False
            if len(a.attrs) != len(b.attrs):
                return False
            attrs_b = dict(b.attrs)
            for k, v in a.attrs:
                if k not in attrs_b or not self.expr(v, attrs_b[k]):
                    return False
            if len(a.sinfo_args) != len(b.sinfo_args):
                return False
            return all(self.sinfo(x, y) for x, y in zip(a.sinfo_args, b.sinfo_args))
        if ta is ir.Tuple:
            return len(a.fields) == len(b.fields) and \
                all(self.expr(x, y) for x, y in zip(a.fields, b.fields))
        if ta is ir.TupleGetItem:
            return a.index == b.index and self.expr(a.tuple_value, b.tuple_value)
        if ta is ir.ShapeExpr:
            return len(a.values) == len(b.values) and \
                all(self.prim(x, y) for x, y in zip(a.values, b.values))
        if ta is ir.PrimValue:
            return self.prim(a.value, b.value)
        if ta in (ir.StringImm, ir.DataTypeImm):
            return a.value == b.value
        if ta is ir.Constant:
            return a.value == b.value and a.dtype == b.dtype and a.meta == b.meta and \
                a.sinfo == b.sinfo
        if ta in (ir.GlobalVarRef, ir.ExternFunc, ir.Op):
            return a.name == b.name
        if ta is ir.Literal:
            return _literal_eq(a, b)
        return False

    def prim(self, a, b, define: bool = True) -> bool:
        ta = type(a)
        if ta is not type(b):
            return False
        if ta is ir.SymVar:
            m = self.syms.get(a)
            if m is not None:
                return m is b
            back = self.syms_back.get(b)
            if back is not None or not define or a.dtype != b.dtype:
                return False
            self.syms[a] = b
            self.syms_back[b] = a
            return True
        if ta is ir.IntImm or ta is ir.FloatImm:
            return a.value == b.value and a.dtype == b.dtype
        if ta is ir.PrimBinOp:
            return a.op == b.op and self.prim(a.lhs, b.lhs, define) and \
                self.prim(a.rhs, b.rhs, define)
        if ta is ir.PrimCall:
            return a.func == b.func and len(a.args) == len(b.args) and \
                all(self.prim(x, y, define) for x, y in zip(a.args, b.args))
        return False

    def sinfo(self, a, b, define: bool = True) -> bool:
        ta = type(a)
        if ta is not type(b):
            return False
        if ta is ir.ObjectSInfo:
            return True
        if ta is ir.TensorSInfo:
            if a.dtype != b.dtype or a.ndim != b.ndim:
                return False
            if (a.shape is None) != (b.shape is None):
                return False
            return a.shape is None or all(self.prim(x, y, define)
                                          for x, y in zip(a.shape, b.shape))
        if ta is ir.ShapeSInfo:
            if a.ndim != b.ndim or (a.values is None) != (b.values is None):
                return False
            return a.values is None or all(self.prim(x, y, define)
                                           for x, y in zip(a.values, b.values))
        if ta is ir.TupleSInfo:
            return len(a.fields) == len(b.fields) and \
                all(self.sinfo(x, y, define) for x, y in zip(a.fields, b.fields))
        if ta is ir.PrimSInfo:
            if a.dtype != b.dtype:
                return False
            if a.value is None or b.value is None:
                return a.value is None and b.value is None
            return self.prim(a.value, b.value, define)
        if ta is ir.FuncSInfo:
            if a.purity != b.purity or (a.params is None) != (b.params is None):
                return False
            if a.params is not None and (len(a.params) != len(b.params) or not all(
                    self.sinfo(x, y, define) for x, y in zip(a.params, b.params))):
                return False
            return self.sinfo(a.ret, b.ret, define)
        return False


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
    """A hashable key with: structurally equal functions have equal keys (vars and symbolic
    vars are numbered by definition, names ignored). Used to find duplicates in linear time;
    `functions_equal` confirms."""
    var_ids: dict[ir.Var, int] = {}
    sym_ids: dict[ir.SymVar, int] = {}

    def prim(e):
        t = type(e)
        if t is ir.SymVar:
            return ("s", sym_ids.setdefault(e, len(sym_ids)), e.dtype)
        if t is ir.PrimBinOp:
            return (e.op, prim(e.lhs), prim(e.rhs))
        if t is ir.PrimCall:
            return (e.func,) + tuple(prim(a) for a in e.args)
        return (t.__name__, e.value, e.dtype)

    # By identity, not by the struct info: it compares by value, and hashing it by value
    # would cost what the memo saves.
    memo: dict[int, tuple] = {}

    def sinfo(s):
        key = memo.get(id(s))
        if key is None:
            key = memo[id(s)] = sinfo_key(s)
        return key

    def sinfo_key(s):
        t = type(s)
        if s is None:
            return None
        if t is ir.TensorSInfo:
            return ("T", s.dtype, s.ndim, None if s.shape is None else tuple(map(prim, s.shape)))
        if t is ir.ShapeSInfo:
            return ("S", s.ndim, None if s.values is None else tuple(map(prim, s.values)))
        if t is ir.TupleSInfo:
            return ("U",) + tuple(map(sinfo, s.fields))
        if t is ir.PrimSInfo:
            return ("P", s.dtype, None if s.value is None else prim(s.value))
        if t is ir.FuncSInfo:
            return ("F", s.purity, None if s.params is None else tuple(map(sinfo, s.params)),
                    sinfo(s.ret))
        return (t.__name__,)

    def expr(e):
        t = type(e)
        if t is ir.Var:
            return var_ids.get(e, -1)  # an int stands for a var: by definition order
        if t is ir.Call:
            op = e.op
            op = expr(op) if type(op) is ir.Var else op.name
            args = tuple([expr(a) for a in e.args])
            if e.attrs or e.sinfo_args:
                return ("c", op, args,
                        tuple(sorted((k, repr(expr(v))) for k, v in e.attrs)),
                        tuple([sinfo(x) for x in e.sinfo_args]))
            return ("c", op, args)
        if t is ir.Tuple:
            return ("t",) + tuple([expr(x) for x in e.fields])
        if t is ir.TupleGetItem:
            return ("g", e.index, expr(e.tuple_value))
        if t is ir.ShapeExpr:
            return ("sh",) + tuple([prim(x) for x in e.values])
        if t is ir.PrimValue:
            return ("pv", prim(e.value))
        if t is ir.Literal:
            return ("l", repr(_norm_literal(e.value)))
        if t in (ir.StringImm, ir.DataTypeImm):
            return (t.__name__, e.value)
        if t is ir.Constant:
            return ("k", repr(e.value), e.dtype, e.meta)
        return (t.__name__, getattr(e, "name", None))

    params = []
    for p in f.params:
        params.append(sinfo(p.sinfo))
        var_ids[p] = len(var_ids)
    blocks = []
    for block in f.blocks:
        items = []
        for b in block.bindings:
            value = expr(b.value)
            extra = sinfo(b.sinfo) if isinstance(b, ir.MatchCast) else None
            items.append((value, extra, sinfo(b.var.sinfo), b.var.is_dataflow))
            var_ids[b.var] = len(var_ids)
        blocks.append((block.is_dataflow, tuple(items)))
    attrs = tuple(sorted((k, repr(_norm_literal(v.value if isinstance(v, ir.Literal) else v)))
                         for k, v in f.attrs))
    return (f.is_private, f.is_pure, attrs, tuple(params), sinfo(f.ret_sinfo), tuple(blocks),
            expr(f.body))
