"""Expressions: a Relax value from the syntax tree, names resolved.

Names (vars, symbolic vars, `cls.f`), literals (ints as int64 prim values, strings), tuples
and indexing, metadata constants, calls: to a module function (its arguments checked against
the parameters as TVM's normalizer does), to a lambda (inlined), to a Relax var; `R.*` calls
are relax_calls.py's, `T.*` expressions struct_info.py's. Builds expressions only.
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import SourceError
from ...ir.sinfo import deduce, is_void, static_mismatch
from .. import syntax as S
from .checks import int_imm, no_kwargs
from .prim_signatures import prim_param_sinfo
from .scopes import Closure, FunctionScope
from .struct_info import sinfo_text, static_tensor


class ExpressionBuilder:
    """The expression part of ModuleBuilder; of the shared state, reads `signatures` and
    `module`, fills the `prim_params` cache, records `meta_constants`."""

    def expr(self, node, fctx: FunctionScope, ctx: str = "value"):
        """A Relax expression. `ctx` is "value", or "packed" (convert_to_expr rules)."""
        t = type(node)
        if t is S.Name:
            name = node.id
            if "." in name:
                return self._dotted_value(node, fctx)
            var = fctx.scope.get(name)
            if var is not None:
                if type(var) is not ir.Var:
                    if type(var) is Closure:
                        raise SourceError(f"'{name}' is a lambda, not a Relax value (call it)",
                                          node.loc)
                    return var  # a lambda's parameter: the value it was called with
                if is_void(var.sinfo):
                    return ir.Tuple((), node.loc)  # as TVM's normalizer does
                return var
            if name in fctx.syms or name in fctx.sym_decl:
                return ir.PrimValue(fctx.sym(name, node.loc), node.loc)
            if name == "metadata":
                raise SourceError(METADATA_FORM, node.loc)
            raise SourceError(f"undefined variable '{name}'", node.loc)
        if t is S.Call:
            return self._call(node, fctx)
        if t is S.TupleLit or t is S.ListLit:
            return ir.Tuple(tuple(self.expr(x, fctx, ctx) for x in node.items), node.loc)
        if t is S.GetItem:
            if _metadata_root(node) and fctx.scope.get("metadata") is None:
                return self._metadata_constant(node)
            base = self.expr(node.obj, fctx)
            idx = node.index
            if not isinstance(idx, S.Num) or not isinstance(idx.value, int):
                raise SourceError("tuple index must be an integer literal", idx.loc)
            bs = deduce(base, self.signatures)
            if isinstance(bs, (ir.TensorSInfo, ir.ShapeSInfo, ir.PrimSInfo, ir.FuncSInfo)):
                # TVM's normalizer: "The type of Tuple must be TupleType" (an R.Any may still
                # hold a tuple, so only a value known to be something else is refused).
                raise SourceError("only a tuple can be indexed; this value is "
                                  f"{sinfo_text(bs)}", node.loc)
            if isinstance(bs, ir.TupleSInfo) and not 0 <= idx.value < len(bs.fields):
                raise SourceError(f"index {idx.value} out of range: the tuple has "
                                  f"{len(bs.fields)} field{'s' if len(bs.fields) != 1 else ''}",
                                  idx.loc)
            return ir.TupleGetItem(base, idx.value, node.loc)
        if t is S.Num:
            if isinstance(node.value, int):
                return ir.PrimValue(int_imm(node.value, "int64", node.loc), node.loc)
            return ir.PrimValue(ir.FloatImm(node.value, "float64"), node.loc)
        if t is S.Const:
            if node.value is None:
                raise SourceError("None is not a Relax value (use R.null_value())", node.loc)
            return ir.PrimValue(ir.IntImm(int(node.value), "int64"), node.loc)
        if t is S.Str:
            return ir.StringImm(node.value, node.loc)
        if t is S.BinOp or t is S.Neg:
            return ir.PrimValue(self.prim(node, fctx), node.loc)
        if t is S.DictLit:
            raise SourceError("a dict is not a Relax value", node.loc)
        if t is S.Lambda:
            raise SourceError("a lambda is not a Relax value (call it, or bind it to a name "
                              "and call that)", node.loc)
        raise SourceError("unsupported expression", node.loc)

    def _dotted_value(self, node: S.Name, fctx: FunctionScope):
        head, _, rest = node.id.partition(".")
        if head in fctx.class_aliases or (self.module and head == self.module.name):
            if "." in rest:
                raise SourceError(f"unknown module member '{rest}'", node.loc)
            return ir.GlobalVarRef(rest)
        if node.id in ("R.Any", "R.Object", "R.Tensor", "R.Tuple", "R.Shape"):
            raise SourceError(f"'{node.id}' is a struct info, not a value", node.loc)
        if head == "R":
            raise SourceError(f"'{node.id}' must be called", node.loc)
        if head == "T":
            raise SourceError(f"'{node.id}' is a TIR name, not a Relax value", node.loc)
        var = fctx.scope.get(head)
        if var is not None:
            raise SourceError(f"attribute access on variable '{head}' is not supported",
                              node.loc)
        if head == "metadata":
            raise SourceError(METADATA_FORM, node.loc)
        raise SourceError(f"undefined variable '{head}'", node.loc)

    def _metadata_constant(self, node: S.GetItem) -> ir.Constant:
        """`metadata["<kind>"][<index>]`: a constant of the module's metadata table, which
        TVM's printer refers to by kind and index and omits (its struct info comes later)."""
        inner = node.obj
        if not (isinstance(inner, S.GetItem) and isinstance(inner.obj, S.Name) and
                isinstance(inner.index, S.Str) and isinstance(node.index, S.Num) and
                isinstance(node.index.value, int) and not isinstance(node.index.value, bool)
                and node.index.value >= 0):
            raise SourceError(METADATA_FORM, node.loc)
        c = ir.Constant(None, "", inner.obj.loc, (inner.index.value, node.index.value))
        self.meta_constants.append(c)
        return c

    @staticmethod
    def give_constants_sinfo(args, params):
        """Metadata constants passed to a PrimFunc take the struct info of their parameter,
        when it is a buffer of known dtype and constant shape (TVM: the constant's own)."""
        for arg, param in zip(args, params):
            if type(arg) is ir.Constant and arg.meta is not None and arg.sinfo is None and \
                    static_tensor(param):
                arg.sinfo = param
                arg.dtype = param.dtype

    def _call(self, node: S.Call, fctx: FunctionScope):
        if isinstance(node.func, S.Lambda):
            return self._inline_lambda(node.func, node, fctx)
        name = S.dotted(node.func)
        if name is None:
            raise SourceError("unsupported call", node.loc)
        head, _, rest = name.partition(".")
        if head in fctx.class_aliases or (self.module and head == self.module.name):
            if not rest or "." in rest:
                raise SourceError(f"unknown module member '{rest}'", node.loc)
            no_kwargs(node, name)
            args = tuple(self.expr(a, fctx) for a in node.args)
            self._check_global_call(node, name, rest, args)
            return ir.Call(ir.GlobalVarRef(rest), args, (), (), node.loc)
        if head == "R":
            return self.relax_call(node, name, rest, fctx)
        if head == "T":
            return ir.PrimValue(self.prim(node, fctx), node.loc)
        if "." not in name:
            var = fctx.scope.get(name)
            if type(var) is Closure:
                return self._inline_lambda(var.node, node, fctx)
            if var is not None:
                no_kwargs(node, name)
                return ir.Call(var, tuple(self.expr(a, fctx) for a in node.args), (), (),
                               node.loc)
            raise SourceError(f"undefined function '{name}'", node.func.loc)
        raise SourceError(f"unknown function '{name}'", node.func.loc)

    def _inline_lambda(self, lam: S.Lambda, node: S.Call, fctx: FunctionScope):
        """A call to a lambda, as Python runs it in TVM's parser: the arguments are evaluated,
        then the body, with the parameters naming those values (and other names as at the
        call, Python's late binding)."""
        if len(node.args) > len(lam.params):
            raise SourceError(f"the lambda takes {len(lam.params)} argument"
                              f"{'s' if len(lam.params) != 1 else ''}, {len(node.args)} given",
                              node.args[len(lam.params)].loc)
        bound = {p: self.expr(a, fctx) for p, a in zip(lam.params, node.args)}
        for k in node.kwargs:
            if k.name not in lam.params:
                raise SourceError(f"the lambda has no parameter '{k.name}'", k.loc)
            if k.name in bound:
                raise SourceError(f"the lambda got two values for '{k.name}'", k.loc)
            bound[k.name] = self.expr(k.value, fctx)
        missing = [p for p in lam.params if p not in bound]
        if missing:
            raise SourceError(f"the lambda is missing argument '{missing[0]}'", node.loc)
        saved = fctx.scope
        fctx.scope = {**saved, **bound}
        try:
            return self.expr(lam.body, fctx)
        finally:
            fctx.scope = saved

    def _check_global_call(self, node: S.Call, name: str, callee: str, args: tuple):
        """What TVM's normalizer checks on a call to a module function: the argument count,
        and each argument against its parameter where they differ statically (dtype, rank,
        a constant dimension, the kind of value); symbolic differences are left to run time."""
        f = self.signatures.get(callee)
        if isinstance(f, ir.PrimFunc):
            params = self.prim_params.get(callee)
            if params is None:  # once per PrimFunc: a model calls each kernel many times
                params = self.prim_params[callee] = [prim_param_sinfo(p) for p in f.params]
        elif isinstance(f, ir.Function):
            params = [p.sinfo for p in f.params]
        else:
            return  # a missing function: the well-formedness check names it
        if isinstance(f, ir.PrimFunc):
            self.give_constants_sinfo(args, params)
        if len(args) != len(params):
            raise SourceError(f"'{name}' takes {len(params)} argument"
                              f"{'s' if len(params) != 1 else ''} ({callee}'s parameters), "
                              f"{len(args)} given", node.loc)
        for i, (param, arg) in enumerate(zip(params, args)):
            if param is None:
                continue
            given = self.effective_sinfo(arg)
            # TVM's well-formedness check wants each argument to be of its parameter's kind
            # already: an object (a storage, a string, an R.Any) is no tensor.
            if static_mismatch(param, given) or (isinstance(given, ir.ObjectSInfo) and
                                                 not isinstance(param, ir.ObjectSInfo)):
                raise SourceError(f"argument {i} of '{name}' does not match its parameter: "
                                  f"expected {sinfo_text(param)}, given {sinfo_text(given)}",
                                  node.args[i].loc)


METADATA_FORM = ("'metadata' is TVM's table of omitted constants: only "
                 "metadata[\"<kind>\"][<index>] reads one")


def meta_text(c: ir.Constant) -> str:
    """`metadata["ir.GenericConst"][0]`, as TVM prints a metadata constant."""
    kind, index = c.meta
    return f"metadata[{S.quote(kind)}][{index}]"


def _metadata_root(node) -> bool:
    while isinstance(node, S.GetItem):
        node = node.obj
    return isinstance(node, S.Name) and node.id == "metadata"
