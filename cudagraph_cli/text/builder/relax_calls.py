"""The `R.*` calls: each operator's parameters, and the literal sugar of its arguments.

The calls cgraph models (memory allocation, packed calls, call_tir, the constructors of values)
are built by one function each, which converts literal sugar as TVM does (a bare `0` is
`R.prim_value(0)`, `"global"` an `R.str`, `"float32"` an `R.dtype`, defaults filled in); every
other `R.<op>` is checked against its signature recorded from TVM (relax_ops.py) and kept as
written. Builds calls and the values of their arguments.
"""

from __future__ import annotations

import difflib

from ... import ir
from ...diagnostics import SourceError
from ...ir.sinfo import deduce
from .. import syntax as S
from ..relax_ops import RELAX_OPS
from .checks import (
    bind_args, check_dtype, check_literal_ints, dtype_name, int_imm, is_literal, literal,
    no_kwargs,
)
from .prim_signatures import prim_param_sinfo
from .scopes import FunctionScope
from .struct_info import sinfo_text


class RelaxCallBuilder:
    """The `R.*` call part of ModuleBuilder."""

    def relax_call(self, node: S.Call, name: str, rest: str, fctx: FunctionScope):
        """`R.<rest>(...)`: a call cgraph models, built by its own function, or any other
        operator of TVM's, checked against its signature and kept as written."""
        builder = _RELAX_CALLS.get(rest)
        if builder is not None:
            if rest not in _OWN_SINFO_ARGS:
                # TVM 0.27 prints ty_args on R.builtin.alloc_tensor (set by
                # CallTIRRewrite) but its parser rejects them there, as on every call
                # built here: they are read (and checked) and dropped. They are
                # redundant: the call's struct info follows from its shape and dtype.
                kw = [k for k in node.kwargs if k.name in ("ty_args", "sinfo_args")]
                if kw:
                    self.read_sinfo_args(kw[-1], fctx)
                    node = S.Call(node.func, node.args,
                                  [k for k in node.kwargs if k not in kw], node.line,
                                  node.col)
            return builder(self, node, fctx)
        if rest in ("Tensor", "Tuple", "Shape", "Object", "Any", "Prim", "Callable"):
            raise SourceError(f"'{name}' is a struct info, not a value", node.loc)
        if rest in ("function", "dataflow", "output", "func_attr", "match_cast"):
            raise SourceError(f"'{name}' cannot be used here", node.loc)
        check_op_arguments(node, rest)
        return self._generic_op(node, "relax." + rest, fctx)

    def _generic_op(self, node: S.Call, op: str, fctx: FunctionScope) -> ir.Call:
        """An operator cgraph does not model: Relax values resolved, literals kept as written."""
        args = tuple(self._op_arg(a, fctx) for a in node.args)
        attrs = []
        sinfo_args: tuple = ()
        for k in node.kwargs:
            if k.name in ("ty_args", "sinfo_args", "out_sinfo"):
                sinfo_args = self.read_sinfo_args(k, fctx)
                continue
            attrs.append((k.name, self._op_arg(k.value, fctx)))
        return ir.Call(ir.Op(op), args, tuple(attrs), sinfo_args, node.loc)

    def _op_arg(self, node, fctx: FunctionScope):
        if is_literal(node):
            check_literal_ints(node)
            return literal(node)
        return self.expr(node, fctx)

    def read_sinfo_args(self, k: S.Kwarg, fctx: FunctionScope) -> tuple:
        if k.name == "sinfo_args":
            self.dialect.legacy += 1
        elif k.name == "ty_args":
            self.dialect.current += 1
        v = k.value
        if isinstance(v, (S.TupleLit, S.ListLit)):
            return tuple(self.sinfo(x, fctx) for x in v.items)
        return (self.sinfo(v, fctx),)

    # conversions of literal sugar, per parameter kind
    def _as_prim_value(self, node, fctx: FunctionScope):
        if isinstance(node, ir.PrimValue):
            return node
        if isinstance(node, S.Num):
            if isinstance(node.value, int):
                return ir.PrimValue(int_imm(node.value, "int64", node.loc), node.loc)
            return ir.PrimValue(ir.FloatImm(node.value, "float64"), node.loc)
        if isinstance(node, S.Const) and isinstance(node.value, bool):
            return ir.PrimValue(ir.IntImm(int(node.value), "bool"), node.loc)
        v = self.expr(node, fctx)
        # TVM converts only a primitive value: an object (a storage, an R.Any) is refused.
        given = self.effective_sinfo(v)
        if isinstance(v, ir.StringImm) or \
                (given is not None and not isinstance(given, ir.PrimSInfo)):
            raise SourceError("expected an integer (a literal or R.prim_value(...)), given "
                              f"{'a string' if isinstance(v, ir.StringImm) else sinfo_text(given)}",
                              node.loc)
        return v

    def _as_str(self, node, fctx: FunctionScope):
        if isinstance(node, ir.StringImm):
            return node
        if isinstance(node, S.Str):
            return ir.StringImm(node.value, node.loc)
        v = self.expr(node, fctx)
        if not isinstance(v, ir.StringImm):
            raise SourceError("expected a string literal (or R.str(...))", node.loc)
        return v

    def _as_dtype(self, node, fctx: FunctionScope):
        if isinstance(node, ir.DataTypeImm):
            return node
        if isinstance(node, S.Str):
            return ir.DataTypeImm(dtype_name(check_dtype(node.value, node.loc)), node.loc)
        v = self.expr(node, fctx)
        if not isinstance(v, ir.DataTypeImm):
            # TVM converts only a literal: a string or R.dtype(...), not a variable or R.str.
            raise SourceError("expected a dtype: a string literal such as \"float32\", or "
                              "R.dtype(...)", node.loc)
        return v

    def _as_alloc_shape(self, node, fctx: FunctionScope, literal_only: bool):
        """The shape of an alloc call: R.shape([...]), or (R.memory.alloc_tensor only) a
        variable holding a shape -- what TVM's struct info inference accepts."""
        v = self.expr(node, fctx)
        if isinstance(v, ir.ShapeExpr):
            return v
        given = deduce(v, self.signatures)
        if literal_only or not isinstance(given, ir.ShapeSInfo):
            raise SourceError("expected a shape: R.shape([...])" +
                              ("" if literal_only else " or a variable holding one") +
                              (f", given {sinfo_text(given)}" if given is not None else ""),
                              node.loc)
        return v

    def _as_shape(self, node, fctx: FunctionScope):
        if isinstance(node, (S.TupleLit, S.ListLit)):
            return ir.ShapeExpr(self.dims(node.items, fctx), node.loc)
        return self.expr(node, fctx)

    def _r_alloc_storage(self, node, fctx):
        size, dev, scope, dtype = bind_args(
            node, ["size", "virtual_device_index", "storage_scope", "dtype"], {}, 4)
        return ir.Call(ir.Op("relax.memory.alloc_storage"),
                       (self._as_shape(size, fctx), self._as_prim_value(dev, fctx),
                        self._as_str(scope, fctx), self._as_dtype(dtype, fctx)), (), (), node.loc)

    def _r_alloc_tensor(self, node, fctx):
        names = ["storage", "offset", "shape", "dtype", "runtime_device_ind"]
        for k in node.kwargs:  # older spelling of the last parameter
            if k.name == "runtime_device_index":
                k.name = "runtime_device_ind"
        storage, offset, shape, dtype, dev = bind_args(
            node, names, {"runtime_device_ind": ir.PrimValue(ir.IntImm(0))}, 4)
        return ir.Call(ir.Op("relax.memory.alloc_tensor"),
                       (self.expr(storage, fctx), self._as_prim_value(offset, fctx),
                        self._as_alloc_shape(shape, fctx, False), self._as_dtype(dtype, fctx),
                        self._as_prim_value(dev, fctx)), (), (), node.loc)

    def _r_kill(op, param):  # noqa: N805 - a factory used while building the class
        def build(self, node, fctx):
            (x,) = bind_args(node, [param], {}, 1)
            return ir.Call(ir.Op(op), (self.expr(x, fctx),), (), (), node.loc)
        return build

    def _r_builtin_alloc_tensor(self, node, fctx):
        shape, dtype, dev, scope = bind_args(
            node, ["shape", "dtype", "runtime_device_index", "storage_scope"],
            {"storage_scope": ir.StringImm("global")}, 3)
        return ir.Call(ir.Op("relax.builtin.alloc_tensor"),
                       (self._as_alloc_shape(shape, fctx, True), self._as_dtype(dtype, fctx),
                        self._as_prim_value(dev, fctx), self._as_str(scope, fctx)), (), (),
                       node.loc)

    def _r_null_value(self, node, fctx):
        bind_args(node, [], {}, 0)
        return ir.Call(ir.Op("relax.null_value"), (), (), (), node.loc)

    def _r_prim_value(self, node, fctx):
        (x,) = bind_args(node, ["value"], {}, 1)
        if isinstance(x, S.Const) and isinstance(x.value, bool):
            return ir.PrimValue(ir.IntImm(int(x.value), "bool"), node.loc)
        return ir.PrimValue(self.prim(x, fctx), node.loc)

    def _r_str(self, node, fctx):
        (x,) = bind_args(node, ["value"], {}, 1)
        if not isinstance(x, S.Str):
            raise SourceError("R.str takes a string literal", x.loc)
        return ir.StringImm(x.value, node.loc)

    def _r_dtype(self, node, fctx):
        (x,) = bind_args(node, ["value"], {}, 1)
        if not isinstance(x, S.Str):
            raise SourceError("R.dtype takes a string literal", x.loc)
        return ir.DataTypeImm(dtype_name(check_dtype(x.value, x.loc)), node.loc)

    def _r_shape(self, node, fctx):
        (x,) = bind_args(node, ["value"], {}, 1)
        if not isinstance(x, (S.ListLit, S.TupleLit)):
            raise SourceError("R.shape takes a list of dimensions", x.loc)
        return ir.ShapeExpr(self.dims(x.items, fctx), node.loc)

    def _r_tuple(self, node, fctx):
        no_kwargs(node, "R.tuple")
        return ir.Tuple(tuple(self.expr(a, fctx) for a in node.args), node.loc)

    def _r_const(self, node, fctx):
        value, dtype = bind_args(node, ["value", "dtype"], {}, 1)
        if not isinstance(value, (S.Num, S.Const)):
            raise SourceError("R.const: only scalar literals are supported", value.loc)
        if dtype is None:
            dt = "bool" if isinstance(value.value, bool) else \
                "int32" if isinstance(value.value, int) else "float32"
        elif isinstance(dtype, S.Str):
            dt = check_dtype(dtype.value, dtype.loc)
        else:
            raise SourceError("R.const: dtype must be a string", dtype.loc)
        if isinstance(value.value, int) and not isinstance(value.value, bool):
            int_imm(value.value, "int64", value.loc)
        return ir.Constant(value.value, dt, node.loc)

    def _r_extern(self, node, fctx):
        (x,) = bind_args(node, ["global_symbol"], {}, 1)
        if not isinstance(x, S.Str):
            raise SourceError("R.ExternFunc takes a string literal", x.loc)
        return ir.ExternFunc(x.value)

    def _func_name(self, node, what: str):
        if not node.args:
            raise SourceError(f"{what} needs a function name", node.loc)
        f = node.args[0]
        if isinstance(f, S.Str):
            return ir.ExternFunc(f.value)
        return None

    def _r_call_packed(self, node, fctx):
        func = self._func_name(node, "R.call_packed")
        if func is None:
            raise SourceError("R.call_packed: the function must be a string literal",
                              node.args[0].loc)
        args = tuple(self._packed_arg(a, fctx) for a in node.args[1:])
        attrs = []
        sinfo_args: tuple = ()
        for k in node.kwargs:
            if k.name in ("ty_args", "sinfo_args"):
                sinfo_args = self.read_sinfo_args(k, fctx)
            else:
                attrs.append((k.name, literal(k.value)))
        return ir.Call(func, args, tuple(attrs), sinfo_args, node.loc)

    def _packed_arg(self, node, fctx):
        """`convert_to_expr`: ints and bools -> int64, floats -> float64, str -> R.str."""
        if isinstance(node, (S.TupleLit, S.ListLit)):
            return ir.Tuple(tuple(self._packed_arg(x, fctx) for x in node.items), node.loc)
        return self.expr(node, fctx)

    def _r_call_pure_packed(self, node, fctx):
        call = self._r_call_packed(node, fctx)
        return ir.Call(ir.Op("relax.call_pure_packed"), (call.op,) + call.args, call.attrs,
                       call.sinfo_args, node.loc)

    def _r_call_builtin_with_ctx(self, node, fctx):
        func, args = None, None
        sinfo_args: tuple = ()
        pos = list(node.args)
        for k in node.kwargs:
            if k.name in ("ty_args", "sinfo_args"):
                sinfo_args = self.read_sinfo_args(k, fctx)
            elif k.name == "func" and func is None:
                pos.insert(0, k.value)
            elif k.name == "args":
                pos.append(k.value)
            else:
                raise SourceError(f"unexpected keyword argument '{k.name}'", k.loc)
        if len(pos) != 2:
            raise SourceError("R.call_builtin_with_ctx takes a function name and an argument "
                              "tuple", node.loc)
        f, a = pos
        func = ir.ExternFunc(f.value) if isinstance(f, S.Str) else self.expr(f, fctx)
        args = self._packed_arg(a, fctx)
        if not isinstance(args, ir.Tuple):
            args = ir.Tuple((args,), a.loc)
        return ir.Call(ir.Op("relax.call_builtin_with_ctx"), (func, args), (), sinfo_args,
                       node.loc)

    def _r_call_tir(op):  # noqa: N805 - factory for call_tir and call_dps_packed
        def build(self, node, fctx):
            names = ["gvar", "args", "out_sinfo", "tir_vars"]
            for k in node.kwargs:
                if k.name in ("func", "out_ty"):
                    k.name = "gvar" if k.name == "func" else "out_sinfo"
            gvar, args, out, tir_vars = bind_args(node, names, {}, 3)
            callee = ir.ExternFunc(gvar.value) if isinstance(gvar, S.Str) else \
                self.expr(gvar, fctx)
            arg_tuple = self._packed_arg(args, fctx)
            if not isinstance(arg_tuple, ir.Tuple):
                arg_tuple = ir.Tuple((arg_tuple,), args.loc)
            if isinstance(callee, ir.GlobalVarRef) and \
                    isinstance(self.signatures.get(callee.name), ir.PrimFunc):
                self.give_constants_sinfo(arg_tuple.fields, [
                    prim_param_sinfo(p) for p in self.signatures[callee.name].params])
            if isinstance(out, (S.ListLit, S.TupleLit)):
                outs = tuple(self.sinfo(x, fctx) for x in out.items)
                out_sinfo = outs[0] if len(outs) == 1 else ir.TupleSInfo(outs)
            else:
                out_sinfo = self.sinfo(out, fctx)
            call_args = (callee, arg_tuple)
            if tir_vars is not None:
                call_args += (self._as_shape(tir_vars, fctx),)
            return ir.Call(ir.Op(op), call_args, (), (out_sinfo,), node.loc)
        return build


_RELAX_CALLS = {
    "memory.alloc_storage": RelaxCallBuilder._r_alloc_storage,
    "memory.alloc_tensor": RelaxCallBuilder._r_alloc_tensor,
    "memory.kill_storage": RelaxCallBuilder._r_kill("relax.memory.kill_storage", "storage"),
    "memory.kill_tensor": RelaxCallBuilder._r_kill("relax.memory.kill_tensor", "tensor"),
    "builtin.alloc_tensor": RelaxCallBuilder._r_builtin_alloc_tensor,
    "null_value": RelaxCallBuilder._r_null_value,
    "prim_value": RelaxCallBuilder._r_prim_value,
    "str": RelaxCallBuilder._r_str,
    "dtype": RelaxCallBuilder._r_dtype,
    "shape": RelaxCallBuilder._r_shape,
    "tuple": RelaxCallBuilder._r_tuple,
    "const": RelaxCallBuilder._r_const,
    "ExternFunc": RelaxCallBuilder._r_extern,
    "call_packed": RelaxCallBuilder._r_call_packed,
    "call_pure_packed": RelaxCallBuilder._r_call_pure_packed,
    "call_builtin_with_ctx": RelaxCallBuilder._r_call_builtin_with_ctx,
    "call_tir": RelaxCallBuilder._r_call_tir("relax.call_tir"),
    "call_dps_packed": RelaxCallBuilder._r_call_tir("relax.call_dps_packed"),
}


_OWN_SINFO_ARGS = {"call_packed", "call_pure_packed", "call_builtin_with_ctx", "call_tir",
                   "call_dps_packed"}


# Older TVMScript spellings of keyword parameters cgraph also reads (see docs).
_LEGACY_KWARGS = {"sinfo_args": "ty_args", "out_sinfo": "out_ty"}


def check_op_arguments(node: S.Call, name: str):
    """`R.<name>(...)` against the operator's recorded TVM signature: an unknown operator, or
    arguments Python would not bind to its parameters, are errors, as they are in TVM."""
    params = RELAX_OPS.get(name)
    if params is None:
        close = difflib.get_close_matches(name, list(RELAX_OPS), n=1, cutoff=0.6)
        hint = f" (did you mean R.{close[0]}?)" if close else ""
        raise SourceError(f"unknown Relax operator 'R.{name}'{hint}", node.func.loc)
    positional: list[tuple[str, bool]] = []  # (name, has a default)
    keywords: set[str] = set()
    required_kw: list[str] = []
    var_args = var_kwargs = kw_only = False
    for p in params:
        if p == "*":
            kw_only = True
        elif p.startswith("**"):
            var_kwargs = True
        elif p.startswith("*"):
            var_args = kw_only = True
        else:
            optional = p.endswith("=")
            p = p.rstrip("=")
            pos_only = p.endswith("/")
            p = p.rstrip("/")
            if not kw_only:
                positional.append((p, optional))
            if not pos_only:
                keywords.add(p)
            if kw_only and not optional:
                required_kw.append(p)
    shown = f"R.{name}"
    if len(node.args) > len(positional) and not var_args:
        raise SourceError(f"{shown}() takes {len(positional)} positional argument"
                          f"{'s' if len(positional) != 1 else ''} but {len(node.args)} "
                          f"were given", node.args[len(positional)].loc)
    given = {p for (p, _), _a in zip(positional, node.args)}
    for k in node.kwargs:
        key = k.name
        if key not in keywords and _LEGACY_KWARGS.get(key) in keywords:
            key = _LEGACY_KWARGS[key]
        if key in given:
            raise SourceError(f"{shown}() got multiple values for argument '{k.name}'", k.loc)
        if key not in keywords and not var_kwargs:
            close = difflib.get_close_matches(key, sorted(keywords), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise SourceError(f"{shown}() got an unexpected keyword argument '{k.name}'"
                              f"{hint}", k.loc)
        given.add(key)
    missing = [p for p, optional in positional if not optional and p not in given] + \
        [p for p in required_kw if p not in given]
    if missing:
        raise SourceError(f"{shown}() is missing argument '{missing[0]}'", node.loc)

