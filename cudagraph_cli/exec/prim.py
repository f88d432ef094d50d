"""The value of a symbolic expression (a PrimExpr in a Relax shape or `R.prim_value`): what
the executor binds and checks shapes with, and what verify makes inputs from.

Every PrimExpr the reader accepts in a Relax shape is evaluated here (text/builder/
struct_info.py lists the calls it accepts): integers and floats, the arithmetic and
comparison operators, `T.max`/`T.min`, the divisions (`T.floordiv`, `T.floormod`,
`T.ceildiv`, `T.truncdiv`, `T.truncmod`), `T.Select` and `T.if_then_else`, and `T.Cast`."""

from __future__ import annotations

import math

from .. import ir
from .backend import ExecError

ARITHMETIC = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
              "//": lambda a, b: a // b, "%": lambda a, b: a % b, "/": lambda a, b: a / b}

# The comparisons and logic of a bounded graph launch's guard (--capture-symbolic): 0 or 1.
COMPARISONS = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
               ">": lambda a, b: a > b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
               "and": lambda a, b: bool(a) and bool(b), "or": lambda a, b: bool(a) or bool(b)}

# T.* calls of two operands that divide: the second may not be zero.
DIVISIONS = {"T.floordiv": lambda a, b: a // b, "T.floormod": lambda a, b: a % b,
             "T.ceildiv": lambda a, b: -(-a // b), "T.truncdiv": lambda a, b: int(a / b),
             "T.truncmod": lambda a, b: a - int(a / b) * b}

# T.* calls that choose between their last two operands by the first (T.Select evaluates
# both in TVM, T.if_then_else only the one chosen: the value is the same).
CHOICES = ("T.Select", "T.if_then_else")


def eval_prim(e, value_of):
    """The value of a symbolic expression; `value_of(var)` gives each SymVar's value (a
    KeyError: the variable has none)."""
    t = type(e)
    if t is ir.IntImm or t is ir.FloatImm:
        return e.value
    if t is ir.SymVar:
        try:
            return value_of(e)
        except KeyError:
            raise ExecError(f"symbolic variable '{e.name}' has no value") from None
    if t is ir.PrimBinOp:
        a, b = eval_prim(e.lhs, value_of), eval_prim(e.rhs, value_of)
        if e.op in ("//", "%", "/") and b == 0:
            raise ExecError(f"division by zero in a symbolic expression ({a} {e.op} 0)")
        fn = ARITHMETIC.get(e.op)
        if fn is not None:
            return fn(a, b)
        fn = COMPARISONS.get(e.op)
        if fn is None:
            raise ExecError(f"cannot evaluate the operator '{e.op}'")
        return int(fn(a, b))
    if t is ir.PrimCall:
        return _call(e, value_of)
    raise ExecError("cannot evaluate a symbolic expression")


def _call(e: ir.PrimCall, value_of):
    name, nodes = e.func, e.args
    if name == "T.Cast":
        return _cast(nodes, value_of)
    if name in CHOICES:
        if len(nodes) != 3:
            raise ExecError(f"{name} takes 3 arguments, {len(nodes)} given")
        chosen = nodes[1] if eval_prim(nodes[0], value_of) else nodes[2]
        return eval_prim(chosen, value_of)
    args = [eval_prim(a, value_of) for a in nodes]
    if name in ("T.max", "T.min"):
        if not args:
            raise ExecError(f"{name} of nothing")
        return max(args) if name == "T.max" else min(args)
    fn = DIVISIONS.get(name)
    if fn is None:
        raise ExecError(f"cannot evaluate {name}")
    if len(args) != 2:
        raise ExecError(f"{name} takes 2 arguments, {len(args)} given")
    if args[1] == 0:
        raise ExecError(f"division by zero in {name}({args[0]}, 0)")
    return fn(*args)


def _cast(nodes: tuple, value_of):
    """`T.Cast(dtype, x)`: x converted as TVM converts it: to an integer type by truncation
    toward zero (a float that is not finite has no integer value), to bool by being non-zero,
    to a float type as a float."""
    if len(nodes) != 2:
        raise ExecError(f"T.Cast takes a dtype and a value, {len(nodes)} argument(s) given")
    dtype = _dtype_name(nodes[0])
    value = eval_prim(nodes[1], value_of)
    if dtype.startswith("bool"):
        return int(bool(value))
    if dtype.startswith(("int", "uint")):
        if isinstance(value, float) and not math.isfinite(value):
            raise ExecError(f"T.Cast of {value} to {dtype}: not a number of that type")
        return int(value)
    if dtype.startswith(("float", "bfloat")):
        return float(value)
    raise ExecError(f"T.Cast to '{dtype}': not a dtype the executor evaluates")


def _dtype_name(node) -> str:
    """A dtype operand of T.Cast: a string, or a node holding one (its `value` or `name`)."""
    if isinstance(node, str):
        return node
    for attr in ("value", "name"):
        v = getattr(node, attr, None)
        if isinstance(v, str):
            return v
    raise ExecError("T.Cast's first argument is not a dtype")
