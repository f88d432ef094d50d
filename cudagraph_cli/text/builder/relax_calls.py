"""The `R.*` calls: each operator's parameters, and the literal sugar of its arguments.

The calls cgraph models (memory allocation, packed calls, call_tir, the constructors of values)
are one table, RELAX_CALLS: each call's parameters, how each argument is read (literal sugar
converted as TVM does: a bare `0` is `R.prim_value(0)`, `"global"` an `R.str`, `"float32"` an
`R.dtype`), their defaults, and the operator the call is or the function that builds it; one
checker, `relax_call`, reads it. Every other `R.<op>` is checked against its signature recorded
from TVM (relax_ops.py) and kept as written. Builds calls and the values of their arguments.
"""

from __future__ import annotations

from collections import namedtuple

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
    """The `R.*` call part of ModuleBuilder; of the shared state, reads `signatures`, votes
    in `dialect`."""

    def relax_call(self, node: S.Call, name: str, rest: str, fctx: FunctionScope):
        """`R.<rest>(...)`: a call cgraph models, built by its own function, or any other
        operator of TVM's, checked against its signature and kept as written."""
        call = RELAX_CALLS.get(rest)
        if call is not None:
            if node.kwargs and not call.own_sinfo_args:
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
            if call.params is None:
                return call.build(self, node, fctx)
            if call.aliases and node.kwargs:
                aliases = dict(call.aliases)
                node = S.Call(node.func, node.args,
                              [S.Kwarg(aliases.get(k.name, k.name), k.value, k.line, k.col)
                               for k in node.kwargs], node.line, node.col)
            values = bind_args(node, call.names, call.defaults, call.required)
            args = tuple(self._read(p.kind, v, fctx) for p, v in zip(call.params, values))
            if call.build is None:
                return ir.Call(call.op_node, args, (), (), node.loc)
            return call.build(self, node, fctx, *args)
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
        if type(v) is ir.PrimValue:  # R.prim_value(...): its struct info is a PrimSInfo
            return v
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

    def _read(self, kind: str, node, fctx: FunctionScope):
        """An argument as its parameter's kind reads it (see `Param`); an optional one that
        was not given stays None."""
        if node is None or kind == "syntax":
            return node
        if kind == "expr":
            return self.expr(node, fctx)
        if kind == "shape":
            return self._as_shape(node, fctx)
        if kind == "shape_literal":
            return self._as_alloc_shape(node, fctx, True)
        if kind == "shape_or_var":
            return self._as_alloc_shape(node, fctx, False)
        if kind == "prim_value":
            return self._as_prim_value(node, fctx)
        if kind == "str":
            return self._as_str(node, fctx)
        if kind == "dtype":
            return self._as_dtype(node, fctx)
        if kind == "callee":
            return ir.ExternFunc(node.value) if isinstance(node, S.Str) else \
                self.expr(node, fctx)
        if kind == "arg_tuple":
            args = self._packed_arg(node, fctx)
            return args if isinstance(args, ir.Tuple) else ir.Tuple((args,), node.loc)
        if kind == "out_sinfo":
            if isinstance(node, (S.ListLit, S.TupleLit)):
                outs = tuple(self.sinfo(x, fctx) for x in node.items)
                return outs[0] if len(outs) == 1 else ir.TupleSInfo(outs)
            return self.sinfo(node, fctx)
        raise ValueError(f"unknown parameter kind {kind!r}")

    # ---- the calls that build more than an operator call (see RELAX_CALLS) ----------------

    def _r_prim_value(self, node, fctx, x):
        if isinstance(x, S.Const) and isinstance(x.value, bool):
            return ir.PrimValue(ir.IntImm(int(x.value), "bool"), node.loc)
        return ir.PrimValue(self.prim(x, fctx), node.loc)

    def _r_str(self, node, fctx, x):
        if not isinstance(x, S.Str):
            raise SourceError("R.str takes a string literal", x.loc)
        return ir.StringImm(x.value, node.loc)

    def _r_dtype(self, node, fctx, x):
        if not isinstance(x, S.Str):
            raise SourceError("R.dtype takes a string literal", x.loc)
        return ir.DataTypeImm(dtype_name(check_dtype(x.value, x.loc)), node.loc)

    def _r_shape(self, node, fctx, x):
        if not isinstance(x, (S.ListLit, S.TupleLit)):
            raise SourceError("R.shape takes a list of dimensions", x.loc)
        return ir.ShapeExpr(self.dims(x.items, fctx), node.loc)

    def _r_tuple(self, node, fctx):
        no_kwargs(node, "R.tuple")
        return ir.Tuple(tuple(self.expr(a, fctx) for a in node.args), node.loc)

    def _r_const(self, node, fctx, value, dtype):
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

    def _r_extern(self, node, fctx, x):
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

    def _r_to_vdevice(self, node, fctx):
        """`R.to_vdevice(x, dst_vdevice="llvm:0:global")`: the name resolved against the
        module's vdevices (vdevices.py) and kept as the attribute TVM prints."""
        data, dst = bind_args(node, ["data", "dst_vdevice"], {}, 2)
        x = self.expr(data, fctx)
        s = deduce(x, self.signatures)
        if s is not None and not isinstance(s, ir.TensorSInfo):
            raise SourceError(f"R.to_vdevice copies a tensor, not {sinfo_text(s)}", data.loc)
        return ir.Call(ir.Op("relax.to_vdevice"), (x,),
                       (("dst_vdevice", ir.Literal(self.resolve_vdevice(dst))),), (), node.loc)

    def _r_call_tir(op):  # noqa: N805 - factory for call_tir and call_dps_packed
        def build(self, node, fctx, callee, arg_tuple, out_sinfo, tir_vars):
            if isinstance(callee, ir.GlobalVarRef) and \
                    isinstance(self.signatures.get(callee.name), ir.PrimFunc):
                self.give_constants_sinfo(arg_tuple.fields, [
                    prim_param_sinfo(p) for p in self.signatures[callee.name].params])
            call_args = (callee, arg_tuple)
            if tir_vars is not None:
                call_args += (tir_vars,)
            return ir.Call(ir.Op(op), call_args, (), (out_sinfo,), node.loc)
        return build


class Param(namedtuple("Param", "name kind default", defaults=("syntax", None))):
    """One parameter of an `R.*` call cgraph models.

    kind: how its argument is read: "expr" (a Relax value), "shape" (a list of dimensions or a
    value), "shape_literal" (R.shape([...]) only), "shape_or_var" (that, or a var holding a
    shape), "prim_value" (a bare integer is R.prim_value), "str" (a bare string is R.str),
    "dtype" (a bare string is R.dtype), "callee" (a string is an extern function),
    "arg_tuple" (the arguments of call_tir: a tuple, or one value made a tuple), "out_sinfo"
    (struct info, or a list of them: a tuple), "syntax" (left to the call's `build`).
    default: the argument where none is given, made afresh for each call (a node is never
    shared by two calls)."""

    __slots__ = ()


class RelaxCall:
    """What cgraph knows of one `R.*` call it models, read by `RelaxCallBuilder.relax_call`.

    params: the parameters in order, the first `required` of them required; None where the
    call takes its arguments as Python's *args does (R.tuple, the packed calls), and `build`
    reads them. op: the operator called with the arguments read, where that is the whole
    call; build: otherwise what the call builds, given (builder, node, fctx, *arguments read).
    aliases: older spellings of keyword parameters (old name, name). own_sinfo_args: the call
    takes ty_args as its own; on every other call they are read (and checked) and dropped.
    The struct info each call gives is `ir.sinfo.deduce`'s (the IR's floor, below text)."""

    __slots__ = ("params", "required", "op", "build", "aliases", "own_sinfo_args", "names",
                 "defaults", "op_node")

    def __init__(self, params: tuple[Param, ...] | None, required: int = 0, op: str = "",
                 build=None, aliases: tuple[tuple[str, str], ...] = (),
                 own_sinfo_args: bool = False):
        self.params, self.required, self.op, self.build = params, required, op, build
        self.aliases, self.own_sinfo_args = aliases, own_sinfo_args
        # What `bind_args` takes, from `params`: their names, and name -> default; and the
        # one `ir.Op` of `op` (a frozen value) every call of it shares.
        self.names = tuple(p.name for p in params or ())
        self.defaults = {p.name: p.default for p in params or () if p.default}
        self.op_node = ir.Op(op) if op else None


def _call_tir(op: str) -> RelaxCall:
    return RelaxCall((Param("gvar", "callee"), Param("args", "arg_tuple"),
                      Param("out_sinfo", "out_sinfo"), Param("tir_vars", "shape")), 3,
                     op, RelaxCallBuilder._r_call_tir(op),
                     aliases=(("func", "gvar"), ("out_ty", "out_sinfo")), own_sinfo_args=True)


RELAX_CALLS = {
    "memory.alloc_storage": RelaxCall(
        (Param("size", "shape"), Param("virtual_device_index", "prim_value"),
         Param("storage_scope", "str"), Param("dtype", "dtype")), 4,
        "relax.memory.alloc_storage"),
    "memory.alloc_tensor": RelaxCall(
        (Param("storage", "expr"), Param("offset", "prim_value"),
         Param("shape", "shape_or_var"), Param("dtype", "dtype"),
         Param("runtime_device_ind", "prim_value", lambda: ir.PrimValue(ir.IntImm(0)))), 4,
        "relax.memory.alloc_tensor",
        aliases=(("runtime_device_index", "runtime_device_ind"),)),  # the older spelling
    "memory.kill_storage": RelaxCall((Param("storage", "expr"),), 1,
                                     "relax.memory.kill_storage"),
    "memory.kill_tensor": RelaxCall((Param("tensor", "expr"),), 1, "relax.memory.kill_tensor"),
    "builtin.alloc_tensor": RelaxCall(
        (Param("shape", "shape_literal"), Param("dtype", "dtype"),
         Param("runtime_device_index", "prim_value"),
         Param("storage_scope", "str", lambda: ir.StringImm("global"))), 3,
        "relax.builtin.alloc_tensor"),
    "null_value": RelaxCall((), 0, "relax.null_value"),
    "prim_value": RelaxCall((Param("value"),), 1, build=RelaxCallBuilder._r_prim_value),
    "str": RelaxCall((Param("value"),), 1, build=RelaxCallBuilder._r_str),
    "dtype": RelaxCall((Param("value"),), 1, build=RelaxCallBuilder._r_dtype),
    "shape": RelaxCall((Param("value"),), 1, build=RelaxCallBuilder._r_shape),
    "tuple": RelaxCall(None, build=RelaxCallBuilder._r_tuple),
    "const": RelaxCall((Param("value"), Param("dtype")), 1, build=RelaxCallBuilder._r_const),
    "ExternFunc": RelaxCall((Param("global_symbol"),), 1, build=RelaxCallBuilder._r_extern),
    "call_packed": RelaxCall(None, build=RelaxCallBuilder._r_call_packed,
                             own_sinfo_args=True),
    "call_pure_packed": RelaxCall(None, build=RelaxCallBuilder._r_call_pure_packed,
                                  own_sinfo_args=True),
    "call_builtin_with_ctx": RelaxCall(None, build=RelaxCallBuilder._r_call_builtin_with_ctx,
                                       own_sinfo_args=True),
    "to_vdevice": RelaxCall(None, build=RelaxCallBuilder._r_to_vdevice, own_sinfo_args=True),
    "call_tir": _call_tir("relax.call_tir"),
    "call_dps_packed": _call_tir("relax.call_dps_packed"),
}


# Older TVMScript spellings of keyword parameters cgraph also reads (see docs).
_LEGACY_KWARGS = {"sinfo_args": "ty_args", "out_sinfo": "out_ty"}


def check_op_arguments(node: S.Call, name: str):
    """`R.<name>(...)` against the operator's recorded TVM signature: an unknown operator, or
    arguments Python would not bind to its parameters, are errors, as they are in TVM."""
    params = RELAX_OPS.get(name)
    if params is None:
        import difflib  # an error's hint only: not loaded by every start

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
            import difflib  # an error's hint only: not loaded by every start

            close = difflib.get_close_matches(key, sorted(keywords), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise SourceError(f"{shown}() got an unexpected keyword argument '{k.name}'"
                              f"{hint}", k.loc)
        given.add(key)
    missing = [p for p, optional in positional if not optional and p not in given] + \
        [p for p in required_kw if p not in given]
    if missing:
        raise SourceError(f"{shown}() is missing argument '{missing[0]}'", node.loc)

