"""The executor's core: runs a module's functions on a backend, binding by binding.

It walks what every function has -- parameters and their symbolic shapes, bindings, `if`
branches, nested functions (closures), calls of other functions and of PrimFuncs -- and knows
no operator: a call of a Relax operator or of a function by name runs the handler registered
for that name (exec/registry.py; the handlers, one file a family, are in exec/handlers/:
memory, Relax operators, packed calls, KV caches, collectives, the CUDA-graph runtime).
docs/EXECUTOR.md says what each does, and how to add one.

Control flow runs as TVM's VM runs it: an `If` evaluates its condition (a one-element bool or
integer tensor, read back to the host, or an `R.Prim` value) and runs only the branch it
names, bindings and all; a function defined inside another is a closure over the enclosing
function's vars, and a call whose callee is that local var runs it.
"""

from __future__ import annotations

import math

import numpy as np

from .. import ir
from ..diagnostics import NO_LOC, Loc, out_of_memory
from .backend import Backend, ExecError, Tensor, check_alloc_size, numpy_dtype
from .constants import constant_value
from .handlers import FUNCTIONS, OPERATORS
from .handlers.memory import storages_sized_in_elements
from .kernels import KernelSpec
from .launches import launch_prim
from .prim import eval_prim
from .registry import ANY, FunctionCall, OpCall
from .values import Closure, DType, FuncRef, HostObject, as_shape, describe, integer

# bench/mutants.py reads storages_sized_in_elements from here.
__all__ = ["Executor", "storages_sized_in_elements"]


class Executor:
    def __init__(self, module: ir.Module, backend: Backend):
        self.module = module
        self.backend = backend
        self.functions = {f.name: f for f in module.functions}
        # (loc, message) of what ran only after the executor corrected the module, once a
        # location; the CLI prints them as located warnings.
        self.warnings: list[tuple[Loc, str]] = []
        self.binding_loc: Loc = NO_LOC
        self.binding = None
        # id(constant) -> (constant, its tensor): each made once and kept, as TVM's VM keeps
        # its constant pool (a captured graph reads the tensor's address on every replay).
        self.constants: dict[int, tuple] = {}
        # What each family of handlers keeps across calls, by its class (`state`).
        self.states: dict[type, object] = {}

    def state(self, kind: type):
        """The executor's one instance of `kind` (made with `kind()` when first asked for):
        what a family of handlers keeps across calls (the graphs captured, the KV caches)."""
        found = self.states.get(kind)
        if found is None:
            found = self.states[kind] = kind()
        return found

    def warn(self, message: str, loc: Loc | None = None) -> None:
        loc = self.binding_loc if loc is None else loc
        if all(w[0] != loc for w in self.warnings):
            self.warnings.append((loc, message))

    # ---- calling functions ---------------------------------------------------------------

    def call(self, name: str, args: list):
        f = self.functions.get(name)
        if not isinstance(f, ir.Function):
            raise ExecError(f"no Relax function '{name}' in the module")
        # The call's symbolic values, by the function's SymVars (rows.py reads its real sizes)
        self.call_syms: dict = {}
        try:
            return self._enter(f, list(args), {}, self.call_syms)
        except RecursionError:
            # Relax functions calling one another without end, or deeper than Python's stack
            # lets the executor follow: the module's doing, located where it was, not an input
            # nested too deeply for the reader.
            raise ExecError(f"calls nest too deeply while running '{name}' (a function that "
                            "calls itself without end?)", self.binding_loc) from None

    def call_global(self, name: str, values: list):
        """A call of the module's function `name`: a PrimFunc is a kernel launch."""
        f = self.functions.get(name)
        if isinstance(f, ir.PrimFunc):
            launch_prim(self, f, values)
            return ()
        if isinstance(f, ir.Function):
            return self._enter(f, values, {}, {})
        raise ExecError(f"call to missing function '{name}'")

    def call_closure(self, closure: Closure, values: list):
        return self._enter(closure.function, values, dict(closure.env), dict(closure.syms))

    def _enter(self, f: ir.Function, args: list, env: dict, syms: dict):
        """Run `f` on `args` with `env` and `syms` (empty, or a closure's)."""
        if len(args) != len(f.params):
            raise ExecError(f"'{f.name}' takes {len(f.params)} arguments, {len(args)} given",
                            f.loc)
        # Variables standing alone first, over all parameters: a parameter of shape `2 * n`
        # may come before the one that gives `n` (a capture function's trailing shape_expr).
        for p, a in zip(f.params, args):
            _bind_alone(p.sinfo, a, syms)
        for p, a in zip(f.params, args):
            env[p] = a
            self._match(p.sinfo, a, syms, p.loc, p.name)
        self._bindings(f.blocks, env, syms)
        return self.eval(f.body, env, syms)

    def _match(self, s, value, syms: dict, loc, name: str):
        """Bind symbolic vars from an argument's actual shape; check what is known."""
        if isinstance(s, ir.TensorSInfo):
            if not isinstance(value, Tensor):
                raise ExecError(f"'{name}' should be a tensor", loc)
            if s.shape is not None:
                self._match_dims(s.shape, value.shape, syms, loc, name)
            elif s.ndim >= 0 and s.ndim != len(value.shape):
                raise ExecError(f"'{name}' should have {s.ndim} dimensions", loc)
        elif isinstance(s, ir.ShapeSInfo) and s.values is not None:
            if not isinstance(value, tuple):
                raise ExecError(f"'{name}' should be a shape", loc)
            self._match_dims(s.values, value, syms, loc, name)
        elif isinstance(s, ir.TupleSInfo) and isinstance(value, tuple):
            for i, (fs, fv) in enumerate(zip(s.fields, value)):
                self._match(fs, fv, syms, loc, f"{name}[{i}]")
        elif isinstance(s, ir.PrimSInfo) and isinstance(s.value, ir.SymVar):
            syms.setdefault(s.value, integer(value, f"'{name}'"))

    def _match_dims(self, dims, actual, syms, loc, name):
        if len(dims) != len(actual):
            raise ExecError(f"'{name}' should have {len(dims)} dimensions, not {len(actual)}",
                            loc)
        # Variables first: a dimension such as `T.max(n - m, 1)` may come before `m`.
        for d, a in zip(dims, actual):
            if isinstance(d, ir.SymVar) and d not in syms:
                syms[d] = integer(a, f"a dimension of '{name}'")
        for d, a in zip(dims, actual):
            if self.prim(d, syms) != a:
                raise ExecError(f"'{name}' has shape {tuple(actual)}, which does not match its "
                                "struct info", loc)

    # ---- expressions ---------------------------------------------------------------------

    def eval(self, e, env: dict, syms: dict):
        t = type(e)
        if t is ir.Var:
            try:
                return env[e]
            except KeyError:
                raise ExecError(f"'{e.name}' is used before it is defined") from None
        if t is ir.Call:
            return self._call(e, env, syms)
        if t is ir.Tuple:
            return tuple([self.eval(x, env, syms) for x in e.fields])
        if t is ir.TupleGetItem:
            value = self.eval(e.tuple_value, env, syms)
            if not isinstance(value, tuple):
                raise ExecError(f"[{e.index}] of {describe(value)}, not a tuple")
            if not 0 <= e.index < len(value):
                raise ExecError(f"[{e.index}] of a tuple of {len(value)} item(s)")
            return value[e.index]
        if t is ir.ShapeExpr:
            return tuple([self.prim(v, syms) for v in e.values])
        if t is ir.PrimValue:
            return self.prim(e.value, syms)
        if t is ir.StringImm:
            return e.value
        if t is ir.DataTypeImm:
            return DType(e.value)
        if t is ir.GlobalVarRef:
            return FuncRef(e.name)
        if t is ir.ExternFunc:
            return HostObject(e.name)
        if t is ir.Constant:
            return self.constant(e)
        if t is ir.Literal:
            return e.value
        if t is ir.If:
            taken = e.true_branch if self.condition(self.eval(e.cond, env, syms)) \
                else e.false_branch
            self._bindings(taken.blocks, env, syms)
            return self.eval(taken.body, env, syms)
        if t is ir.Function:
            return Closure(e, dict(env), syms)
        raise ExecError(f"cannot evaluate {t.__name__}")

    def condition(self, value) -> bool:
        """As TVM's VM reads an If's condition: a tensor's one element, or a prim value."""
        if isinstance(value, Tensor):
            arr = self.backend.to_numpy(value)
            if arr.size != 1 or arr.dtype.kind not in "biu":
                raise ExecError(f"an if condition must be one bool or integer element, not a "
                                f"{arr.dtype} tensor of shape {tuple(arr.shape)}")
            return bool(arr.reshape(-1)[0])
        if isinstance(value, (bool, int, np.integer, np.bool_)):
            return bool(value)
        raise ExecError("an if condition must be a bool tensor or an R.Prim value")

    def _bindings(self, blocks: list, env: dict, syms: dict):
        """Evaluate the bindings of a function, a branch or a closure's body into `env`."""
        for block in blocks:
            for b in block.bindings:
                self.binding_loc = b.loc
                self.binding = b  # the binding being run (rows.py reads a launch's arguments)
                try:
                    v = b.value
                    if type(v) is ir.Call and type(v.op) is ir.Op:
                        # An operator's result is allocated from its binding's struct info.
                        value = self._call(v, env, syms, b.var.sinfo)
                    else:
                        value = self.eval(v, env, syms)
                    if isinstance(b, ir.MatchCast):
                        self._match(b.sinfo, value, syms, b.loc, b.var.name)
                except ExecError as e:
                    if e.loc.line == 0:
                        e.loc = b.loc
                    raise
                except MemoryError as e:
                    # What the machine (or its limit) cannot hold: an input-level error at
                    # the innermost binding that asked, not a bug.
                    raise ExecError(out_of_memory(e), b.loc) from None
                env[b.var] = value

    def prim(self, e, syms: dict):
        return eval_prim(e, syms.__getitem__)

    # ---- calls ---------------------------------------------------------------------------

    def _call(self, c: ir.Call, env: dict, syms: dict, result_sinfo=None):
        """`result_sinfo`: the struct info of the var the call is bound to, when it is (an
        operator run as a kernel allocates its result from it)."""
        op = c.op
        if isinstance(op, ir.Op):
            return self._call_operator(c, env, syms, result_sinfo)
        values = [self.eval(a, env, syms) for a in c.args]
        if isinstance(op, ir.ExternFunc):
            return self.call_function(op.name, values, c.sinfo_args, syms)
        if isinstance(op, ir.GlobalVarRef):
            return self.call_global(op.name, values)
        target = self.eval(op, env, syms)
        if isinstance(target, FuncRef):
            return self.call_global(target.name, values)
        if isinstance(target, Closure):
            return self.call_closure(target, values)
        raise ExecError("calling a value that is not a function")

    def _call_operator(self, c: ir.Call, env: dict, syms: dict, result_sinfo):
        name = c.op.name
        handler = OPERATORS.get(name) or OPERATORS[ANY]
        if handler.min_args is not None and len(c.args) < handler.min_args:
            raise ExecError(f"'{name}' takes {handler.min_args} arguments, {len(c.args)} given")
        call = OpCall(name, c, env, syms, result_sinfo)
        if handler.params is not None:
            call.values = self._params(call, handler.params)
        return handler.run(self, call)

    def _params(self, call: OpCall, params: tuple) -> list:
        """An operator's declared parameters, evaluated: positional, then by name."""
        given, named = list(call.args), dict(call.node.attrs)
        if len(given) > len(params):
            raise ExecError(f"'{call.name}' takes at most {len(params)} arguments, "
                            f"{len(given)} given")
        values = []
        for i, p in enumerate(params):
            node = given[i] if i < len(given) else named.get(p.rstrip("="))
            if node is None:
                if not p.endswith("="):
                    raise ExecError(f"'{call.name}' is missing its argument '{p}'")
                values.append(None)
                continue
            v = self.eval(node, call.env, call.syms)
            values.append(None if isinstance(v, HostObject) and v.name == "null" else v)
        return values

    def call_function(self, name: str, values: list, sinfo_args: tuple, syms: dict):
        """A call of the function `name` (a packed function, a VM builtin) on `values`."""
        handler = FUNCTIONS.get(name) or FUNCTIONS[ANY]
        if handler.arity is not None and len(values) != handler.arity:
            raise ExecError(f"'{name}' takes {handler.arity} argument(s), {len(values)} given")
        return handler.run(self, FunctionCall(name, values, sinfo_args, syms))

    # ---- what handlers share -------------------------------------------------------------

    def launch(self, spec: KernelSpec, tensors: list, scalars: list) -> None:
        """One kernel launch on the backend, located at the binding being run."""
        self.backend.site = self.binding_loc  # where each term it makes was made
        self.backend.launch(spec, tensors, scalars)
        for message in self.backend.take_warnings():
            self.warn(message)

    def alloc_like(self, s, syms: dict):
        """Fresh tensors of struct info `s` (an opaque object for what holds no tensor)."""
        if isinstance(s, ir.TensorSInfo):
            if s.shape is None or not s.dtype:
                raise ExecError("cannot allocate a result whose shape or dtype is unknown")
            shape = as_shape(tuple(self.prim(d, syms) for d in s.shape), "a result's shape")
            check_alloc_size(math.prod(shape) * numpy_dtype(s.dtype).itemsize, "a result")
            return self.backend.alloc_tensor(shape, s.dtype)
        if isinstance(s, ir.TupleSInfo):
            return tuple(self.alloc_like(f, syms) for f in s.fields)
        return HostObject("result")

    def constant(self, e: ir.Constant):
        hit = self.constants.get(id(e))
        if hit is None:
            if e.meta is not None:  # metadata["<kind>"][i]: the text omits the data
                value = constant_value(e)
            else:
                value = np.asarray(e.value, dtype=numpy_dtype(e.dtype))
            hit = self.constants[id(e)] = (e, self.backend.from_numpy(value))
        return hit[1]

    def load_constants(self, f: ir.Function) -> None:
        """Make `f`'s constants before a capture of it: copying data to the device is no
        graph's work (CUDA refuses the stream synchronisation it needs while capturing)."""
        exprs = [b.value for b in ir.nested_bindings(f.blocks)] + [f.body]
        for e in exprs:
            for x in ir.walk(e):
                if type(x) is ir.Constant:
                    self.constant(x)


def _bind_alone(s, value, syms: dict) -> None:
    """Bind the symbolic variables that stand alone as a dimension of an argument (or as an
    R.Prim's value) from its actual value; what does not fit is left to Executor._match,
    which reports it."""
    if isinstance(s, ir.TensorSInfo) and isinstance(value, Tensor) and s.shape is not None:
        dims, actual = s.shape, value.shape
    elif isinstance(s, ir.ShapeSInfo) and s.values is not None and isinstance(value, tuple):
        dims, actual = s.values, value
    elif isinstance(s, ir.TupleSInfo) and isinstance(value, tuple):
        for fs, fv in zip(s.fields, value):
            _bind_alone(fs, fv, syms)
        return
    else:
        return
    if len(dims) == len(actual):
        for d, a in zip(dims, actual):
            if isinstance(d, ir.SymVar) and d not in syms and isinstance(a, (int, np.integer)):
                syms[d] = int(a)
