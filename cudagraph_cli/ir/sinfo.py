"""Struct info deduction: what TVM infers for a binding that carries no annotation.

Covers what post-memory-planning modules contain (memory ops, packed and builtin calls,
tuples, calls to module functions). For operators cgraph does not model the answer is None:
unknown, and struct-info comparisons involving it are skipped (see equality.py).
"""

from __future__ import annotations

from .. import ir
from .dtypes import canonical_dtype

VOID = ir.TupleSInfo(())


def is_void(s) -> bool:
    return isinstance(s, ir.TupleSInfo) and not s.fields


def deduce(e, functions: dict | None = None):
    """Struct info of expression `e`; `functions` maps global names to Function/PrimFunc."""
    t = type(e)
    if t is ir.Var:
        return e.sinfo
    if t is ir.Tuple:
        fields = tuple(deduce(f, functions) for f in e.fields)
        if any(f is None for f in fields):
            return None
        return ir.TupleSInfo(fields)
    if t is ir.TupleGetItem:
        s = deduce(e.tuple_value, functions)
        if isinstance(s, ir.TupleSInfo) and 0 <= e.index < len(s.fields):
            return s.fields[e.index]
        return None
    if t is ir.ShapeExpr:
        return ir.ShapeSInfo(tuple(e.values), len(e.values))
    if t is ir.PrimValue:
        v = e.value
        return ir.PrimSInfo(ir.prim_dtype(v), v)
    if t is ir.Constant:
        if e.meta is not None:
            return e.sinfo  # None until a kernel parameter or an annotation gives it
        return ir.TensorSInfo((), e.dtype, 0)
    if t in (ir.StringImm, ir.DataTypeImm, ir.ExternFunc):
        return ir.ObjectSInfo()
    if t is ir.Call:
        return _deduce_call(e, functions or {})
    if t is ir.If:
        a = deduce(e.true_branch.body, functions)
        b = deduce(e.false_branch.body, functions)
        return None if a is None or b is None else unify(a, b)
    if t is ir.SeqExpr:
        return deduce(e.body, functions)
    if t is ir.Function:
        if e.ret_sinfo is None:
            return None
        return ir.FuncSInfo(tuple(p.sinfo for p in e.params), e.ret_sinfo, e.is_pure)
    return None


def unify(a, b):
    """The most precise struct info both `a` and `b` satisfy (TVM's StructInfoLCA): what an
    If whose branches give `a` and `b` is."""
    if a == b:
        return a
    ta, tb = type(a), type(b)
    if ta is not tb:
        return ir.ObjectSInfo()
    if ta is ir.TensorSInfo:
        dtype = a.dtype if a.dtype == b.dtype else ""
        ndim = a.ndim if a.ndim == b.ndim else -1
        shape = a.shape if a.shape == b.shape else None
        return ir.TensorSInfo(shape, dtype, ndim, a.vdevice if a.vdevice == b.vdevice else "")
    if ta is ir.ShapeSInfo:
        ndim = a.ndim if a.ndim == b.ndim else -1
        return ir.ShapeSInfo(a.values if a.values == b.values else None, ndim)
    if ta is ir.PrimSInfo:
        if a.dtype != b.dtype:
            return ir.ObjectSInfo()
        return ir.PrimSInfo(a.dtype, a.value if a.value == b.value else None)
    if ta is ir.TupleSInfo:
        if len(a.fields) != len(b.fields):
            return ir.ObjectSInfo()
        return ir.TupleSInfo(tuple(unify(x, y) for x, y in zip(a.fields, b.fields)))
    return ir.ObjectSInfo()


def _deduce_call(call: ir.Call, functions: dict):
    op = call.op
    if isinstance(op, ir.Op):
        name = op.name
        if name in ("relax.memory.alloc_storage", "relax.null_value"):
            return ir.ObjectSInfo()
        if name in ("relax.memory.alloc_tensor", "relax.builtin.alloc_tensor"):
            shape = call.args[2] if name == "relax.memory.alloc_tensor" else call.args[0]
            dtype = call.args[3] if name == "relax.memory.alloc_tensor" else call.args[1]
            dt = dtype.value if isinstance(dtype, ir.DataTypeImm) else ""
            if isinstance(shape, ir.ShapeExpr):
                return ir.TensorSInfo(tuple(shape.values), dt, len(shape.values))
            return ir.TensorSInfo(None, dt, -1)
        if name in ("relax.memory.kill_storage", "relax.memory.kill_tensor"):
            return VOID
        if name == "relax.to_vdevice":
            # TVM's InferStructInfoToVDevice: the input's shape and dtype, on the new device
            x = deduce(call.args[0], functions) if call.args else None
            dst = dict(call.attrs).get("dst_vdevice")
            if isinstance(x, ir.TensorSInfo) and isinstance(dst, ir.Literal):
                return ir.TensorSInfo(x.shape, x.dtype, x.ndim, dst.value)
            return None
        if name in ("relax.reshape", "relax.memory.view") and not call.sinfo_args:
            # Views: TVM deduces them from their arguments, and a lifted unannotated view
            # needs its struct info in the capture function's signature (printed there).
            return _deduce_view(call, functions)
        if name in ("relax.call_builtin_with_ctx", "relax.call_pure_packed",
                    "relax.call_tir", "relax.call_dps_packed"):
            return call.sinfo_args[0] if call.sinfo_args else ir.ObjectSInfo()
        return call.sinfo_args[0] if call.sinfo_args else None
    if isinstance(op, ir.ExternFunc):
        return call.sinfo_args[0] if call.sinfo_args else ir.ObjectSInfo()
    if isinstance(op, ir.GlobalVarRef):
        f = functions.get(op.name)
        if isinstance(f, ir.PrimFunc):
            return VOID  # TVM: calling a PrimFunc directly yields the empty tuple
        if isinstance(f, ir.Function) and f.ret_sinfo is not None:
            return _instantiate(f, call, functions)
        return None
    if isinstance(op, ir.Var) and isinstance(op.sinfo, ir.FuncSInfo):
        return op.sinfo.ret if not ir.sinfo_prim_vars(op.sinfo.ret) else None
    return None


def _deduce_view(call: ir.Call, functions: dict):
    """R.reshape(x, shape) and R.memory.view(x, shape, dtype, offset), as TVM 0.27's
    InferStructInfoReshape / InferStructInfoView: the input's dtype (a view's own dtype when
    given) with the new shape (the input's, for a view given none). A reshape's -1 is the
    element count left over, computed only where every dimension is a constant; None where
    cgraph cannot tell (TVM knows more: symbolic arithmetic)."""
    args = call.args
    x = deduce(args[0], functions) if args else None
    if not isinstance(x, ir.TensorSInfo):
        return None
    dtype = x.dtype
    if call.op.name == "relax.memory.view" and len(args) > 2 and \
            isinstance(args[2], ir.DataTypeImm):
        dtype = args[2].value
    shape_arg = args[1] if len(args) > 1 else None
    if call.op.name == "relax.memory.view" and not isinstance(shape_arg, (ir.ShapeExpr, ir.Var)):
        return ir.TensorSInfo(x.shape, dtype, x.ndim, x.vdevice)  # no new shape: the input's
    if isinstance(shape_arg, ir.ShapeExpr):
        values = tuple(shape_arg.values)
    else:
        s = deduce(shape_arg, functions) if shape_arg is not None else None
        if not isinstance(s, ir.ShapeSInfo):
            return None
        if s.values is None:
            return ir.TensorSInfo(None, dtype, s.ndim, x.vdevice)
        values = tuple(s.values)
    holes = [i for i, d in enumerate(values) if isinstance(d, ir.IntImm) and d.value == -1]
    if holes:
        if len(holes) > 1 or x.shape is None or \
                not all(isinstance(d, ir.IntImm) for d in (*x.shape, *values)):
            return None
        total = 1
        for d in x.shape:
            total *= d.value
        known = 1
        for i, d in enumerate(values):
            if i != holes[0]:
                known *= d.value
        if known == 0 or total % known:
            return None
        dt = values[holes[0]].dtype
        values = values[:holes[0]] + (ir.IntImm(total // known, dt),) + values[holes[0] + 1:]
    return ir.TensorSInfo(values, dtype, len(values), x.vdevice)


def _instantiate(f: ir.Function, call: ir.Call, functions: dict):
    """The callee's return struct info with its symbolic vars bound from the arguments."""
    ret = f.ret_sinfo
    free = ir.sinfo_prim_vars(ret)
    if not free:
        return ret
    binding: dict = {}
    for p, a in zip(f.params, call.args):
        _match(p.sinfo, deduce(a, functions), binding)
    if any(v not in binding for v in free):
        return None
    return substitute(ret, binding)


def _match(param, arg, binding: dict):
    if isinstance(param, ir.TensorSInfo) and isinstance(arg, ir.TensorSInfo):
        if param.shape is not None and arg.shape is not None and \
                len(param.shape) == len(arg.shape):
            for p, a in zip(param.shape, arg.shape):
                if isinstance(p, ir.SymVar):
                    binding.setdefault(p, a)
    elif isinstance(param, ir.ShapeSInfo) and isinstance(arg, ir.ShapeSInfo):
        if param.values is not None and arg.values is not None:
            for p, a in zip(param.values, arg.values):
                if isinstance(p, ir.SymVar):
                    binding.setdefault(p, a)
    elif isinstance(param, ir.TupleSInfo) and isinstance(arg, ir.TupleSInfo):
        for p, a in zip(param.fields, arg.fields):
            _match(p, a, binding)


def substitute(s, binding: dict):
    """Struct info with symbolic vars replaced (`binding`: SymVar -> PrimExpr)."""
    if not binding:
        return s
    if isinstance(s, ir.TensorSInfo) and s.shape is not None:
        return ir.TensorSInfo(tuple(subst_prim(d, binding) for d in s.shape), s.dtype, s.ndim,
                              s.vdevice)
    if isinstance(s, ir.ShapeSInfo) and s.values is not None:
        return ir.ShapeSInfo(tuple(subst_prim(d, binding) for d in s.values), s.ndim)
    if isinstance(s, ir.TupleSInfo):
        return ir.TupleSInfo(tuple(substitute(f, binding) for f in s.fields))
    if isinstance(s, ir.PrimSInfo) and s.value is not None:
        return ir.PrimSInfo(s.dtype, subst_prim(s.value, binding))
    return s


def subst_prim(e, binding: dict):
    if isinstance(e, ir.SymVar):
        return binding.get(e, e)
    if isinstance(e, ir.PrimBinOp):
        return ir.PrimBinOp(e.op, subst_prim(e.lhs, binding), subst_prim(e.rhs, binding))
    if isinstance(e, ir.PrimCall):
        return ir.PrimCall(e.func, tuple(subst_prim(a, binding) for a in e.args))
    return e


def erase_to_well_defined(s, defined: set[ir.SymVar]):
    """Struct info with shapes that use symbolic vars outside `defined` made unknown,
    as TVM does for a function's deduced return struct info."""
    def ok(values) -> bool:
        return all(v in defined for d in values for v in ir.prim_vars(d))

    if isinstance(s, ir.TensorSInfo) and s.shape is not None and not ok(s.shape):
        return ir.TensorSInfo(None, s.dtype, s.ndim, s.vdevice)
    if isinstance(s, ir.ShapeSInfo) and s.values is not None and not ok(s.values):
        return ir.ShapeSInfo(None, s.ndim)
    if isinstance(s, ir.TupleSInfo):
        return ir.TupleSInfo(tuple(erase_to_well_defined(f, defined) for f in s.fields))
    if isinstance(s, ir.PrimSInfo) and s.value is not None and not ok((s.value,)):
        return ir.PrimSInfo(s.dtype)
    return s


def static_mismatch(param, arg) -> bool:
    """True where an argument of struct info `arg` can never match parameter `param`: what
    TVM's StructInfoBaseChecker calls a level-0 failure (a different kind of value, dtype,
    rank or constant dimension), which its normalizer rejects when the module is read.
    Differences that depend on symbolic values, and anything unknown, are not mismatches."""
    if param is None or arg is None or isinstance(param, (ir.ObjectSInfo, ir.FuncSInfo)):
        return False
    if type(arg) is not type(param):
        return True
    if isinstance(param, ir.TensorSInfo):
        if param.dtype and arg.dtype and \
                canonical_dtype(param.dtype) != canonical_dtype(arg.dtype):
            return True
        if param.ndim >= 0 and arg.ndim >= 0 and param.ndim != arg.ndim:
            return True
        return _dims_differ(param.shape, arg.shape)
    if isinstance(param, ir.ShapeSInfo):
        if param.ndim >= 0 and arg.ndim >= 0 and param.ndim != arg.ndim:
            return True
        return _dims_differ(param.values, arg.values)
    if isinstance(param, ir.PrimSInfo):
        return bool(param.dtype and arg.dtype and
                    canonical_dtype(param.dtype) != canonical_dtype(arg.dtype))
    if isinstance(param, ir.TupleSInfo):
        return len(param.fields) != len(arg.fields) or \
            any(static_mismatch(p, a) for p, a in zip(param.fields, arg.fields))
    return False


def _dims_differ(a, b) -> bool:
    if a is None or b is None:
        return False
    if len(a) != len(b):
        return True
    return any(isinstance(x, ir.IntImm) and isinstance(y, ir.IntImm) and x.value != y.value
               for x, y in zip(a, b))
