"""Relax functions: headers and bodies, statement by statement.

Parameters and the return annotation, then the body in TVM's parser's order: bindings
(annotated, unpacked, `R.match_cast`), `if`/`else` (each branch a SeqExpr), dataflow blocks
and their outputs, functions nested in functions (closures). Keeps each function's scope (see
scopes.py) as names come and go; a binding without annotation gets the struct info TVM would
deduce. Builds Functions, bindings and blocks; expressions are expressions.py's.
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import Loc, SourceError
from ...ir.sinfo import deduce, erase_to_well_defined, is_void
from .. import syntax as S
from .checks import check_import, literal
from .prim_signatures import PRIM_DECORATORS
from .scopes import SYM_DTYPES, Closure, FunctionScope
from .struct_info import impossible_match, sinfo_text, static_tensor


class FunctionBuilder:
    """The Relax-function part of ModuleBuilder; of the shared state, reads `signatures`,
    writes `value_sinfo` and `in_binding_annotation`."""

    def relax_header(self, fd: S.FuncDef, d, fctx: FunctionScope) -> ir.Function:
        private = False
        pure = True
        if isinstance(d, S.Call):
            if d.args:
                raise SourceError("@R.function takes only keyword arguments", d.args[0].loc)
            for k in d.kwargs:
                if k.name == "private":
                    private = self._bool_kwarg(k)
                elif k.name == "pure":
                    pure = self._bool_kwarg(k)
                elif k.name == "check_well_formed":
                    self._bool_kwarg(k)
                else:
                    raise SourceError(f"unknown @R.function argument '{k.name}'", k.loc)
        # Names declared `m = T.int64()` anywhere in the body are symbolic in the whole function.
        for s in fd.body:
            if isinstance(s, S.Assign) and isinstance(s.target, S.Name) and \
                    isinstance(s.value, S.Call) and not s.value.args and not s.value.kwargs:
                dt = SYM_DTYPES.get(S.dotted(s.value.func) or "")
                if dt is not None:
                    fctx.sym_decl[s.target.id] = dt
                    fctx.sym_decl_loc[s.target.id] = s.loc
        params = []
        seen = set()
        for p in fd.params:
            if p.name in seen:
                raise SourceError(f"duplicate parameter '{p.name}'", p.loc)
            seen.add(p.name)
            if p.annotation is None:
                raise SourceError(f"parameter '{p.name}' needs a struct info annotation "
                                  "(e.g. `x: R.Tensor((4,), \"float32\")`)", p.loc)
            if p.default is not None:
                raise SourceError("Relax parameters cannot have default values", p.default.loc)
            sinfo = self.sinfo(p.annotation, fctx, define=True)
            var = ir.Var(p.name, sinfo, False, p.loc, True)
            params.append(var)
        ret = self.sinfo(fd.ret, fctx, define=True) if fd.ret is not None else None
        ret_loc = fd.ret.loc if fd.ret is not None else fd.loc
        return ir.Function(fd.name, params, ret, [], ir.Tuple(()), [], private, pure,
                           loc=fd.loc, ret_loc=ret_loc)

    @staticmethod
    def _bool_kwarg(k: S.Kwarg) -> bool:
        if isinstance(k.value, S.Const) and isinstance(k.value.value, bool):
            return k.value.value
        raise SourceError(f"'{k.name}' must be True or False", k.value.loc)

    def relax_body(self, fd: S.FuncDef, f: ir.Function, fctx: FunctionScope, class_name: str):
        """Bind the statements of `fd`'s body into `f`; consumes `fd.body` (see below)."""
        for p in f.params:
            fctx.scope[p.name] = p
        stmts = fd.body
        blocks = _Blocks()
        body_expr = None
        first_return: Loc | None = None
        for i, s in enumerate(stmts):
            if isinstance(s, S.Return):
                # TVM binds statements after the `return` too (they come out before it);
                # only a second `return` is an error.
                if first_return is not None:
                    raise SourceError("a Relax function has one `return` (the first is at "
                                      f"line {first_return.line})", s.loc)
                first_return = s.loc
                if s.value is None:
                    raise SourceError("a Relax function must return a value", s.loc)
                body_expr = self.expr(s.value, fctx, "value")
                continue
            if isinstance(s, S.With):
                blocks.dataflow(self._dataflow(s, fctx))
                continue
            blocks.bind(self.statement_bindings(s, f, fctx, class_name))
            # The body is read once: each statement's syntax is dropped once it is bound, so
            # that the syntax tree shrinks as the IR grows (both whole at once would be the
            # peak of reading a big function).
            stmts[i] = None
        if body_expr is None:
            raise SourceError(f"function '{f.name}' has no `return`", fd.loc)
        f.blocks = blocks.done()
        f.body = body_expr
        f.sym_vars = tuple(fctx.sym_order)
        if f.ret_sinfo is None:
            # Unannotated: what TVM would deduce; None if it involves unmodelled operators
            # (then the printer leaves it out again, and TVM deduces it on reading).
            ret = deduce(body_expr, self.signatures)
            if ret is not None:
                defined = {v for p in f.params for v in ir.sinfo_prim_vars(p.sinfo)}
                ret = erase_to_well_defined(ret, defined)
            f.ret_sinfo = ret
            f.ret_deduced = True

    def statement_bindings(self, s, f: ir.Function, fctx: FunctionScope, class_name: str) -> list:
        """One statement of a Relax function body -> its bindings (none, one, or one per name
        of `a, b = t`)."""
        if isinstance(s, S.Assign) and isinstance(s.target, (S.TupleLit, S.ListLit)):
            return self._unpack(s, fctx)
        binding = self._statement(s, f, fctx, class_name)
        return [] if binding is None else [binding]

    def _unpack(self, s: S.Assign, fctx: FunctionScope) -> list:
        """`a, b = value` as Python runs it in TVM's parser: a tuple (a literal, R.tuple(...))
        gives its fields themselves; a var holding a tuple gives `t[0]`, `t[1]`, ...; the
        counts must agree."""
        if s.annotation is not None:
            raise SourceError("only a single name can be annotated", s.target.loc)
        names = []
        for t in s.target.items:
            if not isinstance(t, S.Name) or "." in t.id:
                raise SourceError("can only unpack into names", t.loc)
            names.append(t)
        value = self.expr(s.value, fctx, "value")
        if isinstance(value, ir.Tuple):
            items = list(value.fields)
        elif isinstance(value, ir.Var):
            vs = self.effective_sinfo(value)
            if not isinstance(vs, ir.TupleSInfo):
                raise SourceError(f"cannot unpack '{value.name}': it is "
                                  f"{sinfo_text(vs)}, not a tuple", s.value.loc)
            items = [ir.TupleGetItem(value, i, s.loc) for i in range(len(vs.fields))]
        else:
            raise SourceError("cannot unpack a call's result here; bind it to a name first "
                              "(`t = ...`, then `a, b = t`)", s.value.loc)
        if len(items) < len(names):
            raise SourceError(f"not enough values to unpack (expected {len(names)}, got "
                              f"{len(items)})", s.loc)
        if len(items) > len(names):
            raise SourceError(f"too many values to unpack (expected {len(names)})", s.loc)
        out = []
        for t, item in zip(names, items):
            var = ir.Var(t.id, deduce(item, self.signatures), False, t.loc, False)
            out.append(ir.VarBinding(var, item, t.loc))
        # Python binds the names after evaluating the whole right-hand side: `a, b = b, a`.
        for b in out:
            fctx.scope[b.var.name] = b.var
        return out

    def _statement(self, s, f: ir.Function, fctx: FunctionScope, class_name: str):
        """One statement of a Relax function body -> a binding, or None (handled here)."""
        if isinstance(s, S.Pass):
            return None
        if isinstance(s, S.ExprStmt):
            v = s.value
            if isinstance(v, S.Call):
                name = S.dotted(v.func)
                if name == "R.func_attr":
                    if len(v.args) != 1 or not isinstance(v.args[0], S.DictLit):
                        raise SourceError("R.func_attr takes one dict", v.loc)
                    for k, val in v.args[0].items:
                        if not isinstance(k, S.Str):
                            raise SourceError("attribute names must be strings", k.loc)
                        f.attrs += ((k.value, literal(val)),)
                    return None
                if name == "R.output":
                    raise SourceError("R.output outside of a dataflow block", v.loc)
            if isinstance(v, S.Const) and v.value is None:
                return None  # TVM evaluates a bare `None` to nothing and moves on
            if isinstance(v, S.Str):
                raise SourceError("a string (docstring) is not a Relax statement; use a "
                                  "`#` comment", v.loc)
            if isinstance(v, (S.Num, S.Const, S.TupleLit, S.ListLit, S.DictLit)):
                raise SourceError("a Python value is not a Relax statement (bind it: "
                                  "`_ = ...`)", v.loc)
            value = self.expr(v, fctx, "value")
            sinfo = deduce(value, self.signatures)
            if isinstance(value, ir.GlobalVarRef):
                raise SourceError("a function reference is not a statement (call it, or bind "
                                  "it: `f = cls.name`)", v.loc)
            if sinfo is not None and not is_void(sinfo):
                raise SourceError("a non-void expression must be bound to a variable "
                                  f"(`_ = ...`); this one is {sinfo_text(sinfo)}", v.loc)
            loc = s.loc
            var = ir.Var("_", sinfo, False, loc, False)
            return ir.VarBinding(var, value, loc, bare=True)
        if isinstance(s, S.Assign):
            if not isinstance(s.target, S.Name) or "." in s.target.id:
                raise SourceError("can only bind a single name", s.target.loc)
            name = s.target.id
            v = s.value
            if isinstance(v, S.Name) and v.id in fctx.class_aliases | {class_name} and \
                    s.annotation is None:
                fctx.class_aliases.add(name)  # `cls = Module`
                return None
            if isinstance(v, S.Call) and not v.args and not v.kwargs and \
                    (S.dotted(v.func) or "") in SYM_DTYPES:
                fctx.sym(name, s.loc)  # `m = T.int64()`
                return None
            if isinstance(v, S.Lambda) and s.annotation is None:
                fctx.scope[name] = Closure(v)
                return None
            if isinstance(v, S.Call) and S.dotted(v.func) == "R.match_cast":
                if len(v.args) != 2:
                    raise SourceError("R.match_cast takes a value and a struct info", v.loc)
                value = self.expr(v.args[0], fctx, "value")
                target = self.sinfo(v.args[1], fctx, define=True)
                given = self.effective_sinfo(value)
                if impossible_match(target, given):
                    raise SourceError(f"R.match_cast can never succeed: a value of "
                                      f"{sinfo_text(given)} is never {sinfo_text(target)}",
                                      s.loc)
                var = ir.Var(name, target, False, s.loc, s.annotation is not None)
                if s.annotation is not None:
                    var.sinfo = self.sinfo(s.annotation, fctx)
                fctx.scope[name] = var
                return ir.MatchCast(var, value, target, s.loc)
            value = self.expr(v, fctx, "value")
            loc = s.loc  # one Loc for the var and its binding
            if s.annotation is not None:
                var = self._annotated_var(name, s, value, fctx, loc)
            else:
                var = ir.Var(name, deduce(value, self.signatures), False, loc, False)
            fctx.scope[name] = var
            return ir.VarBinding(var, value, loc)
        if isinstance(s, S.If):
            return self._if(s, f, fctx, class_name)
        if isinstance(s, S.FuncDef):
            return self._nested_function(s, fctx, class_name)
        if isinstance(s, S.Import):
            check_import(s)
            return None
        raise SourceError("unsupported statement in a Relax function", s.loc)

    def _annotated_var(self, name: str, s: S.Assign, value, fctx: FunctionScope,
                       loc: Loc) -> ir.Var:
        """The var of `name: annotation = value`. As TVM's normalizer, an annotation the value
        can never satisfy (another kind, dtype, rank or constant dimension) is an error."""
        self.in_binding_annotation = True
        try:
            sinfo = self.sinfo(s.annotation, fctx)
        finally:
            self.in_binding_annotation = False
        if type(value) is ir.Constant and value.meta is not None and value.sinfo is None and \
                static_tensor(sinfo):
            value.sinfo = sinfo
            value.dtype = sinfo.dtype
        given = self.effective_sinfo(value)
        if impossible_match(sinfo, given):
            raise SourceError(f"the annotation {sinfo_text(sinfo)} does not match the value, "
                              f"which is {sinfo_text(given)}", loc)
        var = ir.Var(name, sinfo, False, loc, True)
        self.value_sinfo[var] = given
        return var

    def effective_sinfo(self, e):
        """The struct info TVM gives `e`: for an annotated var, its value's (see
        `value_sinfo`) where that is known and more precise than the annotation."""
        if isinstance(e, ir.Var) and e in self.value_sinfo:
            given = self.value_sinfo[e]
            if given is not None and isinstance(e.sinfo, ir.ObjectSInfo):
                return given
        return deduce(e, self.signatures)

    def _if(self, s: S.If, f: ir.Function, fctx: FunctionScope, class_name: str) -> ir.VarBinding:
        """`if`/`else` as TVM 0.27's parser reads it: each branch ends by assigning the same
        name; that name is bound, after the `if`, to an If whose branches are SeqExprs.
        A branch's last value is the branch result itself when it is a leaf (a var, a
        constant, a tuple of those); otherwise it is bound first, to `<name>_then` or
        `<name>_else`. Names bound inside a branch are not visible after it."""
        if s.orelse is None:
            raise SourceError("Relax `if` needs an `else` branch", s.loc)
        if isinstance(s.cond, S.Const) and isinstance(s.cond.value, bool):
            cond = ir.PrimValue(ir.IntImm(int(s.cond.value), "bool"), s.cond.loc)
        else:
            cond = self.expr(s.cond, fctx, "value")
        csinfo = deduce(cond, self.signatures)
        if not _is_bool_condition(csinfo):
            raise SourceError("an `if` condition must be a bool scalar (R.Tensor((), \"bool\") "
                              "or R.Prim(\"bool\"))", s.cond.loc)
        branches = []
        for stmts, suffix in ((s.body, "_then"), (s.orelse, "_else")):
            saved = dict(fctx.scope)
            try:
                branches.append(self._branch(stmts, s, f, fctx, class_name, suffix))
            finally:
                fctx.scope = saved
        (then_seq, then_name), (else_seq, else_name) = branches
        if then_name != else_name:
            raise SourceError(f"both branches of an `if` must end by assigning the same name "
                              f"('{then_name}' in the first, '{else_name}' in the second)",
                              s.loc)  # where TVM locates it: the `if`
        value = ir.If(cond, then_seq, else_seq, s.loc)
        var = ir.Var(then_name, deduce(value, self.signatures), False, s.loc, False)
        fctx.scope[then_name] = var
        return ir.VarBinding(var, value, s.loc)

    def _branch(self, stmts: list, s: S.If, f: ir.Function, fctx: FunctionScope, class_name: str,
                suffix: str):
        """One branch of an `if` -> (SeqExpr, the name it assigns last)."""
        body = [x for x in stmts if not isinstance(x, S.Pass)]
        last = body[-1] if body else None
        if isinstance(last, S.If):
            # An `if` ending a branch: its var is the branch result, renamed as TVM does.
            seq, _ = self._branch_prefix(body[:-1], s, f, fctx, class_name)
            inner = self._if(last, f, fctx, class_name)
            name = inner.var.name
            inner.var.name = name + suffix
            self._append(seq, inner)
            seq.body = inner.var
            return seq, name
        if isinstance(last, S.ExprStmt):
            return self._branch_ending_in_call(body, s, f, fctx, class_name)
        if not isinstance(last, S.Assign) or not isinstance(last.target, S.Name) or \
                "." in last.target.id:
            where = last.loc if last is not None else s.loc
            raise SourceError("a branch of an `if` must end by assigning its result to a name "
                              "(`z = ...`)", where)
        seq, _ = self._branch_prefix(body[:-1], s, f, fctx, class_name)
        name = last.target.id
        value = self.expr(last.value, fctx, "value")
        if not _is_leaf(value):
            if last.annotation is not None:
                var = self._annotated_var(name + suffix, last, value, fctx, last.loc)
            else:
                var = ir.Var(name + suffix, deduce(value, self.signatures), False, last.loc,
                             False)
            self._append(seq, ir.VarBinding(var, value, last.loc))
            value = var
        seq.body = value
        return seq, name

    def _branch_ending_in_call(self, body: list, s: S.If, f: ir.Function, fctx: FunctionScope,
                               class_name: str):
        """A branch whose last statement is a call for its effect (`cls.kernel(x, y)`): TVM
        binds it to `_` like any such call, and that last binding's var is the branch result
        and names the `if`; being void, the result reads as R.tuple()."""
        last = body[-1]
        seq, _ = self._branch_prefix(body[:-1], s, f, fctx, class_name)
        binding = self._statement(last, f, fctx, class_name)
        if binding is None:
            raise SourceError("a branch of an `if` must end by assigning its result to a name "
                              "(`z = ...`) or by a call", last.loc)
        self._append(seq, binding)
        if is_void(binding.var.sinfo):
            seq.body = ir.Tuple((), last.loc)
        else:
            binding.bare = False
            seq.body = binding.var
        return seq, binding.var.name

    @staticmethod
    def _append(seq: ir.SeqExpr, binding):
        if not seq.blocks or seq.blocks[-1].is_dataflow:
            seq.blocks += (ir.BindingBlock((binding,), False, binding.loc),)
        else:
            last = seq.blocks[-1]
            seq.blocks = seq.blocks[:-1] + (ir.BindingBlock(last.bindings + (binding,), False,
                                                            last.loc),)

    def _branch_prefix(self, stmts: list, s: S.If, f: ir.Function, fctx: FunctionScope,
                       class_name: str):
        """The statements of a branch before its last one -> a SeqExpr without a result."""
        blocks = _Blocks()
        for x in stmts:
            if isinstance(x, S.Return):
                raise SourceError("`return` inside an `if` branch (assign the result to a "
                                  "name, and return it after the `if`)", x.loc)
            if isinstance(x, S.With):
                blocks.dataflow(self._dataflow(x, fctx))
                continue
            blocks.bind(self.statement_bindings(x, f, fctx, class_name))
        return ir.SeqExpr(blocks.done(), ir.Tuple(()), s.loc), None

    def _nested_function(self, fd: S.FuncDef, fctx: FunctionScope, class_name: str):
        """`@R.function def inner(...)` inside a function body: a local, private function,
        bound to the var `inner`; it may use the enclosing function's vars (a closure)."""
        if isinstance(fd.body, str) or (fd.decorators and (S.dotted(
                fd.decorators[-1].func if isinstance(fd.decorators[-1], S.Call)
                else fd.decorators[-1]) or "") in PRIM_DECORATORS):
            raise SourceError("inline prim_func is disallowed in Relax IR", fd.loc)
        kind, dargs = self.function_kind(fd)
        inner = FunctionScope(fd.name, fctx.class_aliases, fctx.sym_decl)
        inner.scope = dict(fctx.scope)
        inner.syms = dict(fctx.syms)
        g = self.relax_header(fd, dargs, inner)
        self.relax_body(fd, g, inner, class_name)
        g.is_private = True  # as TVM: a function inside another is never exported
        # The enclosing function's symbolic vars are the inner one's too.
        for v in inner.sym_order:
            if fctx.syms.get(v.name) is None:
                fctx.syms[v.name] = v
        var = ir.Var(fd.name, deduce(g, self.signatures), False, fd.loc, False)
        fctx.scope[fd.name] = var
        return ir.VarBinding(var, g, fd.loc)

    def _dataflow(self, w: S.With, fctx: FunctionScope) -> ir.BindingBlock:
        if not (isinstance(w.ctx, S.Call) and S.dotted(w.ctx.func) == "R.dataflow"):
            raise SourceError("only `with R.dataflow():` blocks are supported", w.ctx.loc)
        if w.as_name is not None:
            raise SourceError(f"`with R.dataflow() as {w.as_name}`: a dataflow block cannot be "
                              "bound to a name (write `with R.dataflow():`)", w.loc)
        bindings: list = []
        saved = dict(fctx.scope)
        outputs: list[ir.Var] | None = None
        dummy_f = ir.Function("", [], None, [], ir.Tuple(()))
        for s in w.body:
            if outputs is not None:
                raise SourceError("statement after R.output in a dataflow block", s.loc)
            if isinstance(s, S.ExprStmt) and isinstance(s.value, S.Call) and \
                    S.dotted(s.value.func) == "R.output":
                outputs = []
                for a in s.value.args:
                    if not isinstance(a, S.Name) or a.id not in fctx.scope:
                        raise SourceError("R.output takes variables bound in the block", a.loc)
                    outputs.append(fctx.scope[a.id])
                continue
            if isinstance(s, S.With):
                raise SourceError("nested `with` blocks are not supported", s.loc)
            bindings.extend(self.statement_bindings(s, dummy_f, fctx, ""))
        if dummy_f.attrs:
            raise SourceError("R.func_attr inside a dataflow block", w.loc)
        outs = set(outputs or ())
        for b in bindings:
            b.var.is_dataflow = b.var not in outs
        # After the block only its outputs stay visible.
        fctx.scope = saved
        for v in outputs or ():
            fctx.scope[v.name] = v
        return ir.BindingBlock(bindings, True, w.loc)


def _is_bool_condition(s) -> bool:
    if isinstance(s, ir.TensorSInfo):
        return s.dtype in ("bool", "") and s.ndim in (0, -1)
    if isinstance(s, ir.PrimSInfo):
        return s.dtype == "bool"
    return s is None or isinstance(s, ir.ObjectSInfo)


def _is_leaf(e) -> bool:
    """What TVM's normalizer leaves in place as a SeqExpr result (no binding of its own)."""
    t = type(e)
    if t is ir.Tuple:
        return all(_is_leaf(x) for x in e.fields)
    return t in (ir.Var, ir.Constant, ir.ShapeExpr, ir.PrimValue, ir.StringImm,
                 ir.DataTypeImm, ir.GlobalVarRef, ir.ExternFunc)


class _Blocks:
    """The blocks of a body as its statements are read: dataflow blocks as built, and the
    runs of bindings between them as plain blocks (a block's bindings are a tuple, known once
    the run ends)."""

    __slots__ = ("blocks", "current")

    def __init__(self):
        self.blocks: list = []  # BindingBlocks, and (bindings, loc) of the plain runs
        self.current: list | None = None

    def dataflow(self, block: ir.BindingBlock) -> None:
        self.current = None
        self.blocks.append(block)

    def bind(self, bindings) -> None:
        for binding in bindings:
            if self.current is None:
                self.current = []
                self.blocks.append((self.current, binding.loc))
            self.current.append(binding)

    def done(self) -> tuple:
        return tuple(b if isinstance(b, ir.BindingBlock) else ir.BindingBlock(b[0], False, b[1])
                     for b in self.blocks)