"""How the executor finds what runs a call: handlers registered by name, as xDSL's interpreter
registers each dialect's `@impl(Op)` functions.

Two kinds of call name a handler:

* a Relax operator, `R.reshape(x, shape)` (`relax.reshape`): `@operator(name)`; the handler
  gets an `OpCall` and evaluates the arguments it needs (some are names, not values: the
  function of `call_pure_packed`). With `params=`, the executor evaluates them first, the
  positional arguments and then the attributes by name (a trailing `=`: optional, None when
  absent or R.null_value()), into `OpCall.values`;
* a function called by name, `R.call_packed("vm.builtin.reshape", ...)` and the builtins of
  `R.call_builtin_with_ctx`: `@function(name)`; the handler gets a `FunctionCall` whose
  arguments are evaluated.

`ANY` names the handler of every name no other handler registered (an operator runs as a
kernel, a packed function as a synthetic kernel). The handlers live in exec/handlers/, one
file a family; docs/EXECUTOR.md says how to add one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .. import ir

ANY = "*"


@dataclass(frozen=True)
class Handler:
    run: Callable  # run(executor, call) -> the call's value
    params: tuple | None = None  # an operator's parameters, evaluated before `run`
    min_args: int | None = None  # an operator's fewest positional arguments
    arity: int | None = None  # a function's number of arguments


# Relax operator name -> its handler; packed function name -> its handler.
OPERATORS: dict[str, Handler] = {}
FUNCTIONS: dict[str, Handler] = {}


def _register(table: dict, names: tuple, handler: Handler) -> None:
    for name in names:
        if name in table:
            raise RuntimeError(f"two executor handlers for '{name}'")
        table[name] = handler


def operator(*names: str, params: tuple | None = None, min_args: int | None = None):
    """Register the decorated `run(executor, OpCall)` for the Relax operators `names`."""
    def register(run: Callable) -> Callable:
        _register(OPERATORS, names, Handler(run, params=params, min_args=min_args))
        return run
    return register


def function(*names: str, arity: int | None = None):
    """Register the decorated `run(executor, FunctionCall)` for the functions `names`."""
    def register(run: Callable) -> Callable:
        _register(FUNCTIONS, names, Handler(run, arity=arity))
        return run
    return register


@dataclass
class OpCall:
    """A call of a Relax operator, as its handler sees it."""

    name: str
    node: ir.Call
    env: dict  # the vars of the running function (and its enclosing ones)
    syms: dict  # the values of its symbolic variables
    result: object  # the struct info of the var the call is bound to, if any
    values: list | None = None  # the declared params, evaluated

    @property
    def args(self) -> tuple:
        return self.node.args


@dataclass
class FunctionCall:
    """A call of a function by name (a packed function, a VM builtin), as its handler sees
    it."""

    name: str
    values: list  # the arguments, evaluated
    sinfo_args: tuple  # the struct info the call declares for its result
    syms: dict
