"""The executor: runs a module's functions on a backend, with CUDA-graph semantics.

Memory ops become storages and views (`alloc_tensor` on a storage aliases it), PrimFunc and
packed calls become kernel launches (exec/kernels.py), and the VM builtins of a rewritten
module behave as TVM's runtime does:

* `vm.builtin.cuda_graph.get_cached_alloc(f, index)` runs the allocation function once and
  returns the same storages for that index on every later call;
* `vm.builtin.cuda_graph.run_or_capture(f, args, index[, shape])`: the first call for an
  (index, shape) runs `f` once while the backend records its launches, and returns its outputs;
  every later call replays the recorded launches on the recorded buffers and returns the same
  outputs, ignoring the arguments passed now -- exactly what a CUDA graph does.

Any other `vm.builtin.*` or packed call runs as a synthetic kernel.

Control flow runs as TVM's VM runs it: an `If` evaluates its condition (a one-element bool or
integer tensor, read back to the host, or an `R.Prim` value) and runs only the branch it
names, bindings and all; a function defined inside another is a closure over the enclosing
function's vars, and a call whose callee is that local var runs it. Neither changes the graph
semantics above: a `run_or_capture` inside a branch captures the first time that branch runs.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass

import numpy as np

from .. import ir
from .backend import Backend, ExecError, Tensor, check_alloc_size, numpy_dtype
from .constants import constant_value
from .kernels import KernelSpec, packed_spec, prim_func_spec

GET_CACHED_ALLOC = "vm.builtin.cuda_graph.get_cached_alloc"
RUN_OR_CAPTURE = "vm.builtin.cuda_graph.run_or_capture"
# TVM's runtime registers these and nothing else under vm.builtin.cuda_graph: a misspelling
# would otherwise run as a synthetic kernel returning an opaque object.
CUDA_GRAPH_BUILTINS = (GET_CACHED_ALLOC, RUN_OR_CAPTURE)


@dataclass(frozen=True)
class HostObject:
    """An opaque runtime object (a KV cache, a null value, a packed call's object result)."""

    name: str


@dataclass(frozen=True)
class FuncRef:
    name: str


@dataclass(frozen=True)
class DType:
    name: str


@dataclass(frozen=True, eq=False)
class Closure:
    """A nested Relax function with the vars (and symbolic values) of the function that
    defined it: what TVM's lambda lifting turns into a global function plus captured args."""

    function: ir.Function
    env: dict
    syms: dict


class Executor:
    def __init__(self, module: ir.Module, backend: Backend):
        self.module = module
        self.backend = backend
        self.functions = {f.name: f for f in module.functions}
        self._specs: dict[tuple, KernelSpec] = {}
        self.alloc_cache: dict[int, object] = {}
        self.graphs: dict[tuple, tuple] = {}  # (index, shape) -> (graph, outputs)
        self.captures = 0
        self.replays = 0

    # ---- calling functions ---------------------------------------------------------------

    def call(self, name: str, args: list):
        f = self.functions.get(name)
        if not isinstance(f, ir.Function):
            raise ExecError(f"no Relax function '{name}' in the module")
        return self._run(f, list(args))

    def _run(self, f: ir.Function, args: list):
        if len(args) != len(f.params):
            raise ExecError(f"'{f.name}' takes {len(f.params)} arguments, {len(args)} given",
                            f.loc)
        env: dict[int, object] = {}
        syms: dict[int, int] = {}
        for p, a in zip(f.params, args):
            env[id(p)] = a
            self._match(p.sinfo, a, syms, p.loc, p.name)
        self._bindings(f.blocks, env, syms)
        return self._eval(f.body, env, syms)

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
            syms.setdefault(id(s.value), _integer(value, f"'{name}'"))

    def _match_dims(self, dims, actual, syms, loc, name):
        if len(dims) != len(actual):
            raise ExecError(f"'{name}' should have {len(dims)} dimensions, not {len(actual)}",
                            loc)
        for d, a in zip(dims, actual):
            if isinstance(d, ir.SymVar) and id(d) not in syms:
                syms[id(d)] = _integer(a, f"a dimension of '{name}'")
            elif self._prim(d, syms) != a:
                raise ExecError(f"'{name}' has shape {tuple(actual)}, which does not match its "
                                "struct info", loc)

    # ---- expressions ---------------------------------------------------------------------

    def _eval(self, e, env: dict, syms: dict):
        t = type(e)
        if t is ir.Var:
            try:
                return env[id(e)]
            except KeyError:
                raise ExecError(f"'{e.name}' is used before it is defined") from None
        if t is ir.Call:
            return self._call(e, env, syms)
        if t is ir.Tuple:
            return tuple([self._eval(x, env, syms) for x in e.fields])
        if t is ir.TupleGetItem:
            value = self._eval(e.tuple_value, env, syms)
            if not isinstance(value, tuple):
                raise ExecError(f"[{e.index}] of {_describe(value)}, not a tuple")
            if not 0 <= e.index < len(value):
                raise ExecError(f"[{e.index}] of a tuple of {len(value)} item(s)")
            return value[e.index]
        if t is ir.ShapeExpr:
            return tuple([self._prim(v, syms) for v in e.values])
        if t is ir.PrimValue:
            return self._prim(e.value, syms)
        if t is ir.StringImm:
            return e.value
        if t is ir.DataTypeImm:
            return DType(e.value)
        if t is ir.GlobalVarRef:
            return FuncRef(e.name)
        if t is ir.ExternFunc:
            return HostObject(e.name)
        if t is ir.Constant:
            if e.meta is not None:  # metadata["<kind>"][i]: the text omits the data
                return self.backend.from_numpy(constant_value(e))
            return self.backend.from_numpy(np.asarray(e.value, dtype=numpy_dtype(e.dtype)))
        if t is ir.Literal:
            return e.value
        if t is ir.If:
            return self._if(e, env, syms)
        if t is ir.Function:
            # The env is shared, not copied: the function's body can only name vars defined
            # before it (the reader's scoping), and those never change.
            return Closure(e, env, syms)
        raise ExecError(f"cannot evaluate {t.__name__}")

    def _if(self, e: ir.If, env: dict, syms: dict):
        taken = e.true_branch if self._condition(self._eval(e.cond, env, syms)) \
            else e.false_branch
        self._bindings(taken.blocks, env, syms)
        return self._eval(taken.body, env, syms)

    def _condition(self, value) -> bool:
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
                try:
                    value = self._eval(b.value, env, syms)
                    if isinstance(b, ir.MatchCast):
                        self._match(b.sinfo, value, syms, b.loc, b.var.name)
                except ExecError as e:
                    if e.loc.line == 0:
                        e.loc = b.loc
                    raise
                env[id(b.var)] = value

    def _call_closure(self, closure: Closure, args: list):
        f = closure.function
        if len(args) != len(f.params):
            raise ExecError(f"'{f.name}' takes {len(f.params)} arguments, {len(args)} given",
                            f.loc)
        env = dict(closure.env)
        syms = dict(closure.syms)
        for p, a in zip(f.params, args):
            env[id(p)] = a
            self._match(p.sinfo, a, syms, p.loc, p.name)
        self._bindings(f.blocks, env, syms)
        return self._eval(f.body, env, syms)

    def _prim(self, e, syms: dict):
        t = type(e)
        if t is ir.IntImm or t is ir.FloatImm:
            return e.value
        if t is ir.SymVar:
            try:
                return syms[id(e)]
            except KeyError:
                raise ExecError(f"symbolic variable '{e.name}' has no value") from None
        if t is ir.PrimBinOp:
            a, b = self._prim(e.lhs, syms), self._prim(e.rhs, syms)
            if e.op in ("//", "%", "/") and b == 0:
                raise ExecError(f"division by zero in a symbolic expression ({a} {e.op} 0)")
            if e.op == "+":
                return a + b
            if e.op == "-":
                return a - b
            if e.op == "*":
                return a * b
            if e.op == "//":
                return a // b
            if e.op == "%":
                return a % b
            return a / b
        if t is ir.PrimCall:
            args = [self._prim(a, syms) for a in e.args]
            fn = {"T.max": max, "T.min": min, "T.floordiv": lambda a, b: a // b,
                  "T.floormod": lambda a, b: a % b, "T.ceildiv": lambda a, b: -(-a // b),
                  "T.truncdiv": lambda a, b: int(a / b),
                  "T.truncmod": lambda a, b: a - int(a / b) * b}.get(e.func)
            if fn is None:
                raise ExecError(f"cannot evaluate {e.func}")
            if e.func != "T.max" and e.func != "T.min":
                if len(args) != 2:
                    raise ExecError(f"{e.func} takes 2 arguments, {len(args)} given")
                if args[1] == 0:
                    raise ExecError(f"division by zero in {e.func}({args[0]}, 0)")
            elif not args:
                raise ExecError(f"{e.func} of nothing")
            return fn(*args)
        raise ExecError("cannot evaluate a symbolic expression")

    def _call(self, c: ir.Call, env: dict, syms: dict):
        op = c.op
        args = c.args
        if isinstance(op, ir.Op):
            name = op.name
            if name == "relax.memory.alloc_storage":
                _arity(c, 1)
                size = self._shape(self._eval(args[0], env, syms), "alloc_storage's size")
                return self.backend.alloc_storage(check_alloc_size(math.prod(size), "a storage"))
            if name == "relax.memory.alloc_tensor":
                _arity(c, 4)
                storage = self._eval(args[0], env, syms)
                if not self.backend.is_storage(storage):
                    raise ExecError(f"alloc_tensor's first argument is {_describe(storage)}, "
                                    "not a storage")
                offset = _integer(self._eval(args[1], env, syms), "alloc_tensor's offset")
                shape = self._shape(self._eval(args[2], env, syms), "alloc_tensor's shape")
                dtype = self._dtype(self._eval(args[3], env, syms), "alloc_tensor")
                check_alloc_size(math.prod(shape) * numpy_dtype(dtype).itemsize, "a tensor")
                return self.backend.view(storage, offset, shape, dtype)
            if name == "relax.builtin.alloc_tensor":
                _arity(c, 2)
                shape = self._shape(self._eval(args[0], env, syms), "alloc_tensor's shape")
                dtype = self._dtype(self._eval(args[1], env, syms), "alloc_tensor")
                check_alloc_size(math.prod(shape) * numpy_dtype(dtype).itemsize, "a tensor")
                return self.backend.alloc_tensor(shape, dtype)
            if name in ("relax.memory.kill_storage", "relax.memory.kill_tensor"):
                _arity(c, 1)
                self.backend.free(self._eval(args[0], env, syms))
                return ()
            if name == "relax.null_value":
                return HostObject("null")
            if name == "relax.call_builtin_with_ctx":
                _arity(c, 2)
                fn = args[0]
                inner = self._eval(args[1], env, syms)
                if not isinstance(inner, tuple):
                    raise ExecError(f"call_builtin_with_ctx's arguments are {_describe(inner)}, "
                                    "not a tuple")
                fname = fn.name if isinstance(fn, ir.ExternFunc) else "?"
                if fname == GET_CACHED_ALLOC:
                    return self._get_cached_alloc(inner)
                if fname == RUN_OR_CAPTURE:
                    return self._run_or_capture(inner)
                if fname.startswith("vm.builtin.cuda_graph."):
                    close = difflib.get_close_matches(fname, CUDA_GRAPH_BUILTINS, 1, 0.0)
                    raise ExecError(f"unknown CUDA-graph builtin '{fname}' (did you mean "
                                    f"'{close[0]}'?)")
                return self._packed(fname, list(inner), c.sinfo_args, syms)
            if name == "relax.call_pure_packed":
                _arity(c, 1)
                if not isinstance(args[0], ir.ExternFunc):
                    raise ExecError("call_pure_packed's first argument is not a function name")
                return self._packed(args[0].name, [self._eval(a, env, syms) for a in args[1:]],
                                    c.sinfo_args, syms)
            if name in ("relax.call_tir", "relax.call_dps_packed"):
                _arity(c, 2)
                return self._call_dps(c, env, syms)
            raise ExecError(f"operator '{name}' is not supported by the executor (modules after "
                            "memory planning call kernels, not operators)")
        values = [self._eval(a, env, syms) for a in args]
        if isinstance(op, ir.ExternFunc):
            return self._packed(op.name, values, c.sinfo_args, syms)
        if isinstance(op, ir.GlobalVarRef):
            return self._call_global(op.name, values)
        target = self._eval(op, env, syms)
        if isinstance(target, FuncRef):
            return self._call_global(target.name, values)
        if isinstance(target, Closure):
            return self._call_closure(target, values)
        raise ExecError("calling a value that is not a function")

    def _shape(self, value, what: str) -> tuple:
        """A shape the executor can allocate: a tuple of non-negative integers."""
        if not isinstance(value, tuple):
            raise ExecError(f"{what} is {_describe(value)}, not a shape")
        dims = tuple(_integer(d, what) for d in value)
        if any(d < 0 for d in dims):
            raise ExecError(f"{what} {dims} has a negative dimension")
        return dims

    @staticmethod
    def _dtype(value, what: str) -> str:
        if isinstance(value, DType):
            return value.name
        if isinstance(value, str):  # a dtype written as a bare string literal
            return value
        raise ExecError(f"{what}'s dtype is {_describe(value)}, not a dtype")

    def _call_global(self, name: str, values: list):
        f = self.functions.get(name)
        if isinstance(f, ir.PrimFunc):
            self._launch_prim(f, values)
            return ()
        if isinstance(f, ir.Function):
            return self._run(f, values)
        raise ExecError(f"call to missing function '{name}'")

    # ---- kernels -------------------------------------------------------------------------

    def _launch_prim(self, f: ir.PrimFunc, values: list, outputs: list = ()):
        given = values + list(outputs)
        leaves = list(_leaves(given))
        if len(leaves) != len(f.params):
            raise ExecError(f"kernel '{f.name}' takes {len(f.params)} argument(s), "
                            f"{len(leaves)} given")
        for i, (p, v) in enumerate(zip(f.params, leaves)):
            if p.kind == "buffer" and not isinstance(v, Tensor):
                raise ExecError(f"argument {i} of kernel '{f.name}' ('{p.name}', a buffer) is "
                                f"{_describe(v)}, not a tensor")
            if p.kind == "scalar" and not _is_number(v):
                raise ExecError(f"argument {i} of kernel '{f.name}' ('{p.name}', a scalar) is "
                                f"{_describe(v)}, not a number")
        tensors, scalars, positions = _split(given)
        key = (f.name, tuple(positions), len(values) + len(outputs))
        spec = self._specs.get(key)
        if spec is None:
            base = prim_func_spec(f)
            written = tuple(positions.index(i) for i in base.outputs if i in positions)
            spec = self._specs[key] = KernelSpec(base.name, written, base.builtin)
        self.backend.launch(spec, tensors, scalars)

    def _packed(self, name: str, values: list, sinfo_args: tuple, syms: dict):
        ret = sinfo_args[0] if sinfo_args else ir.ObjectSInfo()
        for v in _leaves(values):
            if self.backend.is_storage(v):
                # A storage is no kernel argument; TVM's VM would hand the kernel a pointer
                # to an object, not to memory.
                raise ExecError(f"'{name}' is given a storage where a tensor goes")
        tensors, scalars, _ = _split(values)
        if _has_tensors(ret):
            outs = self._alloc_like(ret, syms)
            flat, _, _ = _split([outs])
            n_in = len(tensors)
            spec = KernelSpec(name, tuple(range(n_in, n_in + len(flat))), None)
            self.backend.launch(spec, tensors + flat, scalars)
            return outs
        if tensors:
            key = ("packed", name, len(tensors))
            spec = self._specs.get(key)
            if spec is None:
                spec = self._specs[key] = packed_spec(name, len(tensors))
            self.backend.launch(spec, tensors, scalars)
        if isinstance(ret, ir.TupleSInfo) and not ret.fields:
            return ()
        return HostObject(f"{name}()")

    def _call_dps(self, c: ir.Call, env: dict, syms: dict):
        callee = c.args[0]
        ins = self._eval(c.args[1], env, syms)
        if not isinstance(ins, tuple):
            ins = (ins,)  # TVM's reader wraps a single argument into a tuple
        ins = list(ins)
        if len(c.args) > 2:
            ins.append(self._eval(c.args[2], env, syms))
        if not c.sinfo_args:
            raise ExecError("a destination-passing call without the struct info of its "
                            "outputs")
        outs = self._alloc_like(c.sinfo_args[0], syms)
        flat, _, _ = _split([outs])
        if isinstance(callee, ir.GlobalVarRef) and \
                isinstance(self.functions.get(callee.name), ir.PrimFunc):
            self._launch_prim(self.functions[callee.name], ins, flat)
        else:
            name = callee.name if hasattr(callee, "name") else "?"
            if any(self.backend.is_storage(v) for v in _leaves(ins)):
                raise ExecError(f"'{name}' is given a storage where a tensor goes")
            tensors, scalars, _ = _split(ins)
            spec = KernelSpec(name, tuple(range(len(tensors), len(tensors) + len(flat))), None)
            self.backend.launch(spec, tensors + flat, scalars)
        return outs

    def _alloc_like(self, s, syms: dict):
        if isinstance(s, ir.TensorSInfo):
            if s.shape is None or not s.dtype:
                raise ExecError("cannot allocate a result whose shape or dtype is unknown")
            shape = self._shape(tuple(self._prim(d, syms) for d in s.shape), "a result's shape")
            check_alloc_size(math.prod(shape) * numpy_dtype(s.dtype).itemsize, "a result")
            return self.backend.alloc_tensor(shape, s.dtype)
        if isinstance(s, ir.TupleSInfo):
            return tuple(self._alloc_like(f, syms) for f in s.fields)
        return HostObject("result")

    # ---- the CUDA-graph builtins ---------------------------------------------------------

    def _get_cached_alloc(self, args: tuple):
        """vm.builtin.cuda_graph.get_cached_alloc(alloc_func, index)."""
        if len(args) != 2:
            raise ExecError(f"{GET_CACHED_ALLOC} takes (function, index), {len(args)} "
                            "argument(s) given")
        func = self._capture_function(args[0], GET_CACHED_ALLOC)
        index = _integer(args[1], f"{GET_CACHED_ALLOC}'s index")
        cached = self.alloc_cache.get(index)
        if cached is None:
            cached = self.alloc_cache[index] = self._call_global(func, [])
        return cached

    def _capture_function(self, value, builtin: str) -> str:
        if not isinstance(value, FuncRef):
            raise ExecError(f"{builtin}'s first argument is {_describe(value)}, not a function")
        if not isinstance(self.functions.get(value.name), ir.Function):
            raise ExecError(f"{builtin} calls '{value.name}', which is not a Relax function of "
                            "the module")
        return value.name

    def _run_or_capture(self, args: tuple):
        """vm.builtin.cuda_graph.run_or_capture(capture_func, args, index[, shape])."""
        if len(args) not in (3, 4):
            raise ExecError(f"{RUN_OR_CAPTURE} takes (function, arguments, index[, shape]), "
                            f"{len(args)} argument(s) given")
        func = self._capture_function(args[0], RUN_OR_CAPTURE)
        if not isinstance(args[1], tuple):
            raise ExecError(f"{RUN_OR_CAPTURE}'s arguments are {_describe(args[1])}, not a "
                            "tuple")
        index = _integer(args[2], f"{RUN_OR_CAPTURE}'s index")
        shape = self._shape(args[3], f"{RUN_OR_CAPTURE}'s shape") if len(args) == 4 else None
        key = (index, shape)
        entry = self.graphs.get(key)
        if entry is not None:
            graph, outputs = entry
            self.backend.replay(graph)
            self.replays += 1
            return outputs
        self.backend.begin_capture()
        try:
            outputs = self._call_global(func, list(args[1]))
        except BaseException:
            try:  # end the capture, but report what broke it, not what ending it says
                self.backend.end_capture()
            except Exception:
                pass
            raise
        graph = self.backend.end_capture()
        self.graphs[key] = (graph, outputs)
        self.captures += 1
        return outputs


def _split(values: list) -> tuple[list, list, list]:
    """Tensors (flattened through tuples, in order), scalars, and, for each top-level value
    that is a tensor, its position among the values."""
    tensors: list = []
    scalars: list = []
    positions: list = []

    def walk(v, top: int | None):
        if isinstance(v, Tensor):
            if top is not None:
                positions.append(top)
            tensors.append(v)
        elif isinstance(v, tuple):
            for x in v:
                walk(x, None)
        elif isinstance(v, (int, float, str, DType)):
            scalars.append(v.name if isinstance(v, DType) else v)

    for i, v in enumerate(values):
        walk(v, i)
    return tensors, scalars, positions


def _arity(c: ir.Call, n: int) -> None:
    if len(c.args) < n:
        raise ExecError(f"'{c.op.name}' takes {n} arguments, {len(c.args)} given")


def _leaves(values):
    """The values, tuples flattened, in order."""
    for v in values:
        if isinstance(v, tuple):
            yield from _leaves(v)
        else:
            yield v


def _is_number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _integer(value, what: str) -> int:
    """An integer argument (an offset, an index, a dimension) as a Python int."""
    if isinstance(value, (bool, np.bool_)) or not _is_number(value):
        raise ExecError(f"{what} is {_describe(value)}, not an integer")
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or value != int(value):
            raise ExecError(f"{what} is {value}, not an integer")
    return int(value)


def _describe(value) -> str:
    """What a runtime value is, in words, for messages."""
    if isinstance(value, Tensor):
        return f"a tensor {tuple(value.shape)} {value.dtype}"
    if isinstance(value, tuple):
        return f"a tuple of {len(value)} item(s)"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return f"the number {value}"
    if isinstance(value, DType):
        return f"the dtype {value.name}"
    if isinstance(value, FuncRef):
        return f"the function '{value.name}'"
    if isinstance(value, HostObject):
        return f"an opaque object ({value.name})"
    if hasattr(value, "nbytes"):
        return f"a storage of {value.nbytes} bytes"
    return f"a {type(value).__name__}"


def _has_tensors(s) -> bool:
    if isinstance(s, ir.TensorSInfo):
        return True
    if isinstance(s, ir.TupleSInfo):
        return any(_has_tensors(f) for f in s.fields)
    return False


