"""The executor's symbolic expressions (exec/prim.py): every PrimExpr the reader accepts in a
Relax shape is evaluated, with the values worked out by hand beside each case; and the core's
binding of a closure's parameters (exec/interpreter.py), which runs as a function's does."""

from __future__ import annotations

import numpy as np
import pytest

from cudagraph_cli import ir
from cudagraph_cli.exec.backend import CpuBackend, ExecError
from cudagraph_cli.exec.interpreter import Executor
from cudagraph_cli.exec.prim import eval_prim
from cudagraph_cli.text.reader import parse_module

N, M = ir.SymVar("n"), ir.SymVar("m")


def I(v):  # noqa: E743 -- an integer constant, as the reader makes it
    return ir.IntImm(v, "int64")


def call(name, *args):
    return ir.PrimCall(name, args)


def value(e, n=7, m=-3):
    return eval_prim(e, {N: n, M: m}.__getitem__)


@pytest.mark.parametrize("expr,expected", [
    # T.max / T.min of two and of three operands
    (call("T.max", N, I(9)), 9), (call("T.min", N, I(9)), 7), (call("T.max", M, N, I(2)), 7),
    # floor division and modulo round toward minus infinity: -3 // 2 = -2, -3 % 2 = 1
    (call("T.floordiv", M, I(2)), -2), (call("T.floormod", M, I(2)), 1),
    # truncated ones toward zero: -3 / 2 -> -1, remainder -3 - (-1 * 2) = -1
    (call("T.truncdiv", M, I(2)), -1), (call("T.truncmod", M, I(2)), -1),
    # ceil(7 / 2) = 4
    (call("T.ceildiv", N, I(2)), 4),
    # T.if_then_else and T.Select: the second operand when the first holds, else the third
    (call("T.if_then_else", ir.PrimBinOp(">", N, I(2)), N, I(2)), 7),
    (call("T.if_then_else", ir.PrimBinOp(">", M, I(2)), M, I(2)), 2),
    (call("T.Select", ir.PrimBinOp("<=", N, I(7)), I(1), I(0)), 1),
    # only the branch chosen is evaluated: the other divides by zero
    (call("T.if_then_else", ir.PrimBinOp("==", N, I(7)), N, call("T.floordiv", N, I(0))), 7),
    # T.Cast to an integer type truncates toward zero, to bool tests non-zero
    (call("T.Cast", "int32", ir.PrimBinOp("/", N, I(2))), 3),
    (call("T.Cast", "int64", ir.PrimBinOp("/", M, I(2))), -1),
    (call("T.Cast", ir.StringImm("bool"), M), 1), (call("T.Cast", "float32", N), 7.0),
    # the comparisons and logic of a guard are 0 or 1
    (ir.PrimBinOp("and", ir.PrimBinOp("<", M, I(0)), ir.PrimBinOp(">=", N, I(7))), 1),
    (ir.PrimBinOp("or", ir.PrimBinOp("!=", N, I(7)), ir.PrimBinOp(">", M, I(0))), 0),
])
def test_every_prim_expression_of_a_shape_evaluates(expr, expected):
    got = value(expr)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("expr,message", [
    (call("T.floordiv", N, I(0)), r"division by zero in T.floordiv\(7, 0\)"),
    (ir.PrimBinOp("%", N, I(0)), r"division by zero in a symbolic expression \(7 % 0\)"),
    (call("T.max"), "T.max of nothing"),
    (call("T.if_then_else", N, N), "T.if_then_else takes 3 arguments, 2 given"),
    (call("T.Cast", "int32", ir.FloatImm(float("inf"))), "T.Cast of inf to int32"),
    (call("T.Cast", "handle", N), "T.Cast to 'handle'"),
    (call("T.exp", N), "cannot evaluate T.exp"),
    (ir.SymVar("k"), "symbolic variable 'k' has no value"),
])
def test_what_cannot_be_evaluated_is_a_located_error(expr, message):
    with pytest.raises(ExecError, match=message):
        value(expr)


def test_a_shape_with_if_then_else_binds_and_checks():
    """y's shape (n if n > 2 else 2, max(n, 3) // 2), read from TVMScript: for n = 1 it is
    (2, 1), for n = 5 (5, 2); a y of another shape is refused."""
    mod = parse_module('''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor((T.if_then_else(n > 2, n, 2), T.max(n, 3) // 2), "float32")) -> R.Tensor((T.if_then_else(n > 2, n, 2), T.max(n, 3) // 2), "float32"):
        return y
''')
    ex = Executor(mod, CpuBackend())
    b = ex.backend

    def run(n, shape):
        return ex.call("main", [b.from_numpy(np.zeros(n, np.float32)),
                                b.from_numpy(np.zeros(shape, np.float32))])

    assert run(1, (2, 1)).shape == (2, 1)
    assert run(5, (5, 2)).shape == (5, 2)
    with pytest.raises(ExecError, match=r"'y' has shape \(2, 2\), which does not match"):
        run(5, (2, 2))


def test_a_closure_binds_its_parameters_as_a_function_does():
    """A closure's first parameter has shape `2 * n`, the second gives `n`: the variables
    standing alone are bound over all parameters first, in a closure as in a function (a
    capture function's trailing shape_expr comes after the tensors it sizes)."""
    mod = parse_module('''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32"), s: R.Shape([2])) -> R.Tensor((4,), "float32"):
        @R.function
        def inner(a: R.Tensor(("2 * n",), "float32"), k: R.Shape(["n"])) -> R.Tensor(("2 * n",), "float32"):
            return a

        y: R.Tensor((4,), "float32") = inner(x, s)
        return y
''')
    ex = Executor(mod, CpuBackend())
    x = ex.backend.from_numpy(np.arange(4, dtype=np.float32))
    assert ex.call("main", [x, (2,)]) is x
    with pytest.raises(ExecError, match="which does not match its struct info"):
        ex.call("main", [x, (3,)])
