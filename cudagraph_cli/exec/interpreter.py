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

The KV-cache builtins keep each cache's contents as state across calls (`_cache_builtin`:
what an append writes, a later view or attention reads). Any other `vm.builtin.*` or packed
call runs as a synthetic kernel. A `vm.builtin.*` call made while capturing is noted for the
graph (`graph_host_calls`): it is host logic a replay does not run (verify reports it,
exec/ownership.py).

An external function that does host work on every call (the capture-safety table,
passes/capture_safety.toml: verdict never or host-state) runs, on the reference backend, with a
host state mixed into its kernel: the number of its calls so far ("counter": an RNG, a barrier
flag, an allocation), or a hash of its inputs as the host reads them ("data": relax.run.unique's
result). Run eagerly, each call computes its own; captured in a graph, the launch is recorded
with the state of the capture, and every replay uses that one -- a CUDA graph does not run host
code again. So a module that captured such a call computes something else than its original,
and `replayed_host_calls` names the call (verify reports its line).

Control flow runs as TVM's VM runs it: an `If` evaluates its condition (a one-element bool or
integer tensor, read back to the host, or an `R.Prim` value) and runs only the branch it
names, bindings and all; a function defined inside another is a closure over the enclosing
function's vars, and a call whose callee is that local var runs it. Neither changes the graph
semantics above: a `run_or_capture` inside a branch captures the first time that branch runs.
"""

from __future__ import annotations

import difflib
import math
import weakref
import zlib
from dataclasses import dataclass

import numpy as np

from .. import ir
from ..diagnostics import NO_LOC, Loc, out_of_memory
from ..passes.capture_safety import host_effect, prim_func_host_effect
from .backend import Backend, ExecError, Tensor, check_alloc_size, numpy_dtype
from .constants import constant_value
from .kernels import ELEMENTWISE, KernelSpec, packed_spec, prim_func_loads, prim_func_spec


@dataclass(frozen=True)
class HostObject:
    """An opaque runtime object (a KV cache, a null value, a packed call's object result).
    Equal objects are the same object: verify's input objects are equal across calls (a
    caller passes its KV cache again), and each KV cache a create call makes has its own
    name (numbered in the order made)."""

    name: str


# The kernel that folds a qkv appended to a paged cache's layer into the layer's digest.
PAGED_KV_APPEND = "vm.builtin.paged_kv_cache_append"


@dataclass(eq=False)
class CacheState:
    """What a KV-cache object holds across calls (TVM's runtime, src/runtime/vm/
    lm_support.cc and paged_kv_cache.cc): its storage on the backend, its capacity and how
    many bytes of it are filled (nn.KVCache: rows of `row_bytes`; a paged cache: one such
    state per layer, holding the digest of the `qkv` tensors appended to it)."""

    storage: object
    capacity: int  # bytes
    filled: int = 0  # bytes
    dtype: str = "uint8"
    row_bytes: int = 1


@dataclass(frozen=True)
class FuncRef:
    name: str


@dataclass(frozen=True)
class DType:
    name: str


@dataclass(frozen=True)
class PartialCall:
    """What `R.make_closure(f, (captured...))` makes: `invoke_closure` calls `f` with the
    captured values first (TVM's lambda-lifted closures)."""

    name: str
    captured: tuple


@dataclass(frozen=True, eq=False)
class Closure:
    """A nested Relax function with the vars (and symbolic values) of the function that
    defined it: what TVM's lambda lifting turns into a global function plus captured args."""

    function: ir.Function
    env: dict
    syms: dict



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


class Executor:
    def __init__(self, module: ir.Module, backend: Backend):
        self.module = module
        self.backend = backend
        self.functions = {f.name: f for f in module.functions}
        self._specs: dict[tuple, KernelSpec] = {}
        self.alloc_cache: dict[int, object] = {}
        # Indices whose allocation function is running: one that asks for its own index again
        # would recurse forever (TVM's pass writes such a module when it is run twice).
        self.allocating: set[int] = set()
        self.graphs: dict[tuple, tuple] = {}  # (index, shape) -> (graph, outputs)
        # What each graph was captured with: a replay reads these buffers, whatever it is
        # given. Holding them also keeps their addresses from being reused.
        self.graph_inputs: dict[tuple, tuple] = {}
        # on_replay(capture_function, index, captured_args, given_args), before each replay:
        # verify's ownership check looks at the addresses there.
        self.on_replay = None
        self.captures = 0
        self.replays = 0
        # The index of each graph launched (captured or replayed), when a list: verify checks
        # against it that a graph bounded by --capture-symbolic ran exactly within its bound.
        self.graph_log: list | None = None
        # (loc, message) of what ran only after the executor corrected the module, once a
        # location; the CLI prints them as located warnings.
        self.warnings: list[tuple[Loc, str]] = []
        self.binding_loc: Loc = NO_LOC
        self.in_elements = storages_sized_in_elements(module)
        # In such a module: each storage's size as declared, and its dtype.
        self.declared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        # id(constant) -> (constant, its tensor): each made once and kept, as TVM's VM keeps
        # its constant pool (a captured graph reads the tensor's address on every replay).
        self.constants: dict[int, tuple] = {}
        # Host work of external functions (the module docstring): modelled on the reference
        # backend only, where it changes no kernel's ABI (a user kernel of `cgraph run` takes
        # exactly its scalars).
        self.model_host_work = backend.name == "cpu"
        self.host_calls: dict[str, int] = {}  # symbol -> calls so far ("counter")
        self.capture_host_calls: list | None = None  # while capturing: (loc, symbol)
        self.graph_host_calls: dict[tuple, list] = {}  # graph key -> (loc, symbol)
        # (loc, symbol) of every host-work call a replay ran with its captured state
        self.replayed_host_calls: dict[tuple, None] = {}
        self._prim_host_work: dict[str, tuple | None] = {}
        # Stateful builtins (KV caches): object -> CacheState, or (object, layer) ->
        # CacheState for a paged cache; objects made by a call are numbered in order.
        self.cache_states: dict = {}
        self.objects_made = 0
        # on_capture(capture_function, index, args), before a capture: verify's ownership
        # check looks at the objects captured there. `replaying`: the key of the graph
        # being replayed, while on_replay runs.
        self.on_capture = None
        self.replaying: tuple | None = None

    def warn(self, message: str, loc: Loc | None = None) -> None:
        loc = self.binding_loc if loc is None else loc
        if all(w[0] != loc for w in self.warnings):
            self.warnings.append((loc, message))

    # ---- calling functions ---------------------------------------------------------------

    def call(self, name: str, args: list):
        f = self.functions.get(name)
        if not isinstance(f, ir.Function):
            raise ExecError(f"no Relax function '{name}' in the module")
        try:
            return self._run(f, list(args))
        except RecursionError:
            # Relax functions calling one another without end, or deeper than Python's stack
            # lets the executor follow: the module's doing, located where it was, not an input
            # nested too deeply for the reader.
            raise ExecError(f"calls nest too deeply while running '{name}' (a function that "
                            "calls itself without end?)", self.binding_loc) from None

    def _run(self, f: ir.Function, args: list):
        if len(args) != len(f.params):
            raise ExecError(f"'{f.name}' takes {len(f.params)} arguments, {len(args)} given",
                            f.loc)
        env: dict[ir.Var, object] = {}
        syms: dict[ir.SymVar, int] = {}
        # Variables standing alone first, over all parameters: a parameter of shape `2 * n`
        # may come before the one that gives `n` (a capture function's trailing shape_expr).
        for p, a in zip(f.params, args):
            _bind_alone(p.sinfo, a, syms)
        for p, a in zip(f.params, args):
            env[p] = a
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
            syms.setdefault(s.value, _integer(value, f"'{name}'"))

    def _match_dims(self, dims, actual, syms, loc, name):
        if len(dims) != len(actual):
            raise ExecError(f"'{name}' should have {len(dims)} dimensions, not {len(actual)}",
                            loc)
        # Variables first: a dimension such as `T.max(n - m, 1)` may come before `m`.
        for d, a in zip(dims, actual):
            if isinstance(d, ir.SymVar) and d not in syms:
                syms[d] = _integer(a, f"a dimension of '{name}'")
        for d, a in zip(dims, actual):
            if self._prim(d, syms) != a:
                raise ExecError(f"'{name}' has shape {tuple(actual)}, which does not match its "
                                "struct info", loc)

    # ---- expressions ---------------------------------------------------------------------

    def _eval(self, e, env: dict, syms: dict):
        t = type(e)
        if t is ir.Var:
            try:
                return env[e]
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
            return self._constant(e)
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
                self.binding_loc = b.loc
                try:
                    v = b.value
                    if type(v) is ir.Call and type(v.op) is ir.Op:
                        # An operator's result is allocated from its binding's struct info.
                        value = self._call(v, env, syms, b.var.sinfo)
                    else:
                        value = self._eval(v, env, syms)
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

    def _call_closure(self, closure: Closure, args: list):
        f = closure.function
        if len(args) != len(f.params):
            raise ExecError(f"'{f.name}' takes {len(f.params)} arguments, {len(args)} given",
                            f.loc)
        env = dict(closure.env)
        syms = dict(closure.syms)
        for p, a in zip(f.params, args):
            env[p] = a
            self._match(p.sinfo, a, syms, p.loc, p.name)
        self._bindings(f.blocks, env, syms)
        return self._eval(f.body, env, syms)

    def _prim(self, e, syms: dict):
        return eval_prim(e, lambda v: syms[v])

    def _call(self, c: ir.Call, env: dict, syms: dict, result_sinfo=None):
        """`result_sinfo`: the struct info of the var the call is bound to, when it is (an
        operator run as a kernel allocates its result from it)."""
        op = c.op
        args = c.args
        if isinstance(op, ir.Op):
            name = op.name
            if name in ("relax.memory.alloc_storage", "relax.vm.alloc_storage"):
                _arity(c, 1)
                size = self._shape(self._eval(args[0], env, syms), "alloc_storage's size")
                # relax.memory.alloc_storage(size, device, scope, dtype); relax.vm's
                # (size, device, dtype, scope)
                at = 3 if name == "relax.memory.alloc_storage" else 2
                dtype = self._eval(args[at], env, syms) if len(args) > at else None
                return self._alloc_storage(math.prod(size), dtype)
            if name in ("relax.memory.alloc_tensor", "relax.vm.alloc_tensor"):
                _arity(c, 4)
                storage = self._eval(args[0], env, syms)
                if not self.backend.is_storage(storage):
                    raise ExecError(f"alloc_tensor's first argument is {_describe(storage)}, "
                                    "not a storage")
                offset = _integer(self._eval(args[1], env, syms), "alloc_tensor's offset")
                shape = self._shape(self._eval(args[2], env, syms), "alloc_tensor's shape")
                dtype = self._dtype(self._eval(args[3], env, syms), "alloc_tensor")
                nbytes = math.prod(shape) * numpy_dtype(dtype).itemsize
                check_alloc_size(nbytes, "a tensor")
                declared = self.declared.get(storage)
                if declared is not None and 0 <= offset and offset + nbytes > declared[0] and \
                        offset + nbytes <= storage.nbytes:
                    self.warn(f"a tensor of {nbytes} bytes at offset {offset} does not fit its "
                              f"storage of {declared[0]} bytes; run with the storage grown to "
                              f"{storage.nbytes} bytes ({declared[0]} {declared[1]} elements): "
                              "this module sizes its storages in elements, as TVM's own test "
                              "modules do")
                return self.backend.view(storage, offset, shape, dtype)
            if name == "relax.builtin.alloc_tensor":
                _arity(c, 2)
                shape = self._shape(self._eval(args[0], env, syms), "alloc_tensor's shape")
                dtype = self._dtype(self._eval(args[1], env, syms), "alloc_tensor")
                check_alloc_size(math.prod(shape) * numpy_dtype(dtype).itemsize, "a tensor")
                return self.backend.alloc_tensor(shape, dtype)
            if name in ("relax.memory.kill_storage", "relax.memory.kill_tensor",
                        "relax.vm.kill_object"):
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
                if fname == ir.GET_CACHED_ALLOC:
                    return self._get_cached_alloc(inner)
                if fname == ir.RUN_OR_CAPTURE:
                    return self._run_or_capture(inner)
                # TVM's runtime registers these two and nothing else under vm.builtin.cuda_graph:
                # a misspelling would otherwise run as a synthetic kernel returning an opaque
                # object.
                if fname.startswith("vm.builtin.cuda_graph."):
                    close = difflib.get_close_matches(fname, ir.CUDA_GRAPH_BUILTINS, 1, 0.0)
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
            if name in OTHER_OPS:
                return self._other_op(c, env, syms)
            if name == "relax.to_vdevice":
                return self._to_vdevice(c, env, syms)
            reason = NOT_EXECUTED.get(name)
            if reason is not None:
                raise ExecError(f"operator '{name}' is not executed by the executor: {reason}")
            return self._operator(c, env, syms, result_sinfo)
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

    def _alloc_storage(self, size: int, dtype):
        """A storage of `size` bytes; in a module that sizes storages in elements, of `size`
        elements of its dtype (a warning says so where a tensor needs the difference)."""
        itemsize = 1
        if self.in_elements and isinstance(dtype, (DType, str)):
            itemsize = numpy_dtype(self._dtype(dtype, "alloc_storage")).itemsize
        storage = self.backend.alloc_storage(check_alloc_size(size * itemsize, "a storage"))
        if itemsize > 1:
            self.declared[storage] = (size, self._dtype(dtype, "alloc_storage"))
        return storage

    def _other_op(self, c: ir.Call, env: dict, syms: dict):
        """The operators besides memory and kernel calls that TVM leaves in a module between
        memory planning and its lowering to VM builtins (docs/EXECUTOR.md lists them)."""
        name = c.op.name
        if name == "relax.print":
            return ()  # R.print(*values, format=...): the executor prints nothing
        params = OTHER_OPS[name]
        given = list(c.args)
        named = dict(c.attrs)
        if len(given) > len(params):
            raise ExecError(f"'{name}' takes at most {len(params)} arguments, {len(given)} "
                            "given")
        values = []
        for i, p in enumerate(params):
            node = given[i] if i < len(given) else named.get(p.rstrip("="))
            if node is None:
                if not p.endswith("="):
                    raise ExecError(f"'{name}' is missing its argument '{p}'")
                values.append(None)
                continue
            v = self._eval(node, env, syms)
            values.append(None if isinstance(v, HostObject) and v.name == "null" else v)
        if name == "relax.reshape":
            return self._reshape(values[0], values[1], "R.reshape")
        if name == "relax.memory.view":
            return self._view(*values)
        if name == "relax.memory.ensure_zero_offset":
            return self._tensor(values[0], "ensure_zero_offset's argument")
        if name == "relax.vm.call_tir_dyn":
            return self._call_tir_dyn(values[0], values[1])
        if name == "relax.shape_of":
            return tuple(self._tensor(values[0], "shape_of's argument").shape)
        if name == "relax.tensor_to_shape":
            arr = self.backend.to_numpy(self._tensor(values[0], "tensor_to_shape's argument"))
            if arr.ndim != 1 or arr.dtype.kind not in "iu":
                raise ExecError(f"tensor_to_shape takes a 1-D integer tensor, not "
                                f"{_describe(values[0])}")
            return tuple(int(v) for v in arr)
        if name in ("relax.builtin.stop_lift_params", "relax.stop_lift_params"):
            return values[0]
        if name == "relax.assert_op":
            if not self._condition(values[0]):
                text = values[2] if isinstance(values[2], str) else ""
                raise ExecError(f"R.assert_op failed{': ' + text if text else ''}")
            return ()
        if name == "relax.make_closure":
            if not isinstance(values[0], FuncRef) or not isinstance(values[1], tuple):
                raise ExecError("make_closure takes a module function and a tuple")
            return PartialCall(values[0].name, values[1])
        # invoke_closure, invoke_pure_closure
        target, call_args = values[0], values[1]
        if not isinstance(call_args, tuple):
            raise ExecError(f"{name}'s arguments are {_describe(call_args)}, not a tuple")
        if isinstance(target, PartialCall):
            return self._call_global(target.name, list(target.captured + call_args))
        if isinstance(target, Closure):
            return self._call_closure(target, list(call_args))
        if isinstance(target, FuncRef):
            return self._call_global(target.name, list(call_args))
        raise ExecError(f"{name} calls {_describe(target)}, not a closure")

    def _operator(self, c: ir.Call, env: dict, syms: dict, result_sinfo):
        """Any other operator (`R.add`, `R.matmul`, ...: a module before LegalizeOps, or TVM's
        own pass tests) runs as a kernel launch, as LegalizeOps would make it one: it reads its
        tensor arguments and writes a result in fresh memory, allocated from the struct info
        of the var it is bound to (for an elementwise operator written without one, from its
        inputs). A known elementwise operator computes its meaning (exec/kernels.py), any
        other the synthetic kernel; its other arguments and attributes salt it."""
        name = c.op.name
        values = [self._eval(a, env, syms) for a in c.args]
        for v in _leaves(values):
            if self.backend.is_storage(v):
                raise ExecError(f"operator '{name}' is given a storage where a tensor goes")
        tensors, scalars, _ = _split(values)
        scalars += [f"{k}={a.value!r}" if isinstance(a, ir.Literal) else
                    f"{k}={self._eval(a, env, syms)!r}" for k, a in c.attrs]
        builtin = OPERATOR_KERNELS.get(name)
        out_sinfo = result_sinfo if _allocatable(result_sinfo) else \
            c.sinfo_args[0] if c.sinfo_args and _allocatable(c.sinfo_args[0]) else None
        if out_sinfo is None and builtin is not None:
            out_sinfo = _elementwise_result(tensors)
        if out_sinfo is None:
            raise ExecError(f"operator '{name}': the shape and dtype of its result are not "
                            "known (its binding carries no struct info, as TVM prints it)")
        if not _has_tensors(out_sinfo):
            raise ExecError(f"operator '{name}' returns no tensor: the executor runs an operator "
                            "as a kernel that writes its result")
        outs = self._alloc_like(out_sinfo, syms)
        flat, _, _ = _split([outs])
        n_in = len(tensors)
        key = ("operator", name, n_in, len(flat))
        spec = self._specs.get(key)
        if spec is None:
            fits = builtin is not None and ELEMENTWISE[builtin][0] == n_in and len(flat) == 1
            spec = self._specs[key] = KernelSpec(name, tuple(range(n_in, n_in + len(flat))),
                                                 builtin if fits else None)
        self._launch(spec, tensors + flat, scalars)
        return outs

    def _to_vdevice(self, c: ir.Call, env: dict, syms: dict) -> Tensor:
        """R.to_vdevice(x, dst_vdevice=...): a copy of x's bytes into a new tensor, as TVM's
        runtime copies between devices. The executor has one device, so host and device
        copies are the same copy; what the program can tell apart (a new tensor, x unchanged
        by later writes to it and the other way round) is kept. Inside a capture (TVM's pass
        lifts a copy whose input is static) the copy is part of the graph: each replay copies
        again into the tensor the capture made."""
        _arity(c, 1)
        x = self._tensor(self._eval(c.args[0], env, syms), "R.to_vdevice's data")
        self.backend.site = self.binding_loc
        return self.backend.copy(x)

    def _tensor(self, value, what: str) -> Tensor:
        if not isinstance(value, Tensor):
            raise ExecError(f"{what} is {_describe(value)}, not a tensor")
        return value

    def _reshape(self, x, shape, what: str) -> Tensor:
        """A view of the same bytes with another shape, as TVM's vm.builtin.reshape."""
        x = self._tensor(x, f"{what}'s data")
        if isinstance(shape, Tensor):
            raise ExecError(f"{what}'s shape is a tensor, not a shape")
        shape = self._shape(shape, f"{what}'s shape")
        if math.prod(shape) != math.prod(x.shape):
            raise ExecError(f"{what} of a tensor {tuple(x.shape)} ({math.prod(x.shape)} "
                            f"elements) to {shape} ({math.prod(shape)} elements)")
        return self.backend.tensor_view(x, 0, shape, x.dtype)

    def _view(self, x, shape, dtype, offset) -> Tensor:
        """R.memory.view: shape, dtype and byte offset relative to `x`, each defaulting to
        `x`'s own; the view may not reach past `x`'s bytes."""
        x = self._tensor(x, "R.memory.view's data")
        shape = tuple(x.shape) if shape is None else self._shape(shape, "R.memory.view's shape")
        dtype = x.dtype if dtype is None else self._dtype(dtype, "R.memory.view")
        offset = 0 if offset is None else _integer(offset, "R.memory.view's byte offset")
        return self.backend.tensor_view(x, offset, shape, dtype)

    def _call_tir_dyn(self, func, args) -> tuple:
        """R.vm.call_tir_dyn(f, (tensors..., shape)): f launched on the tensors, then each
        value of the trailing shape as a scalar (TVM's vm.builtin.call_tir_dyn)."""
        if not isinstance(func, FuncRef) or not isinstance(self.functions.get(func.name),
                                                           ir.PrimFunc):
            raise ExecError(f"call_tir_dyn calls {_describe(func)}, not a PrimFunc of the "
                            "module")
        if not isinstance(args, tuple) or not args or not isinstance(args[-1], tuple):
            raise ExecError("call_tir_dyn's arguments are not a tuple ending with a shape")
        self._launch_prim(self.functions[func.name], list(args[:-1]) + list(args[-1]))
        return ()

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
        # Scratch memory: TVM passes a kernel its workspace as a 1-D uint8 tensor, which the
        # kernel writes before it reads (so its earlier bytes reach no output).
        scratch = tuple(i for i, v in enumerate(given) if isinstance(v, Tensor) and
                        v.dtype == "uint8" and len(v.shape) == 1)
        key = (f.name, tuple(positions), len(values) + len(outputs), scratch)
        spec = self._specs.get(key)
        if spec is None:
            base = prim_func_spec(f)
            written = set(base.outputs)
            if scratch:
                read = prim_func_loads(f)
                written |= {i for i in scratch if i not in read}
            indices = tuple(positions.index(i) for i in sorted(written) if i in positions)
            builtin = base.builtin if written == set(base.outputs) else None
            spec = self._specs[key] = KernelSpec(base.name, indices, builtin, base.opaque)
        if self.model_host_work:
            if f.name not in self._prim_host_work:
                self._prim_host_work[f.name] = prim_func_host_effect(f)
            found = self._prim_host_work[f.name]
            if found is not None:
                ins = [t for i, t in enumerate(tensors) if i not in spec.outputs]
                scalars = scalars + [self._host_state(found[0], found[1], ins)]
        self._launch(spec, tensors, scalars)

    def _host_state(self, symbol: str, work: str, inputs: list) -> int:
        """The host state of a call of `symbol` that does host `work` (the module docstring),
        noted for the graph being captured."""
        if work == "data":
            state = 0
            for t in inputs:
                state = zlib.crc32(np.ascontiguousarray(self.backend.to_numpy(t)).tobytes(),
                                   state)
        else:
            state = self.host_calls.get(symbol, 0)
            self.host_calls[symbol] = state + 1
        if self.capture_host_calls is not None:
            self.capture_host_calls.append((self.binding_loc, symbol))
        return state

    def _launch(self, spec: KernelSpec, tensors: list, scalars: list) -> None:
        self.backend.site = self.binding_loc  # where each term it makes was made
        self.backend.launch(spec, tensors, scalars)
        for message in self.backend.take_warnings():
            self.warn(message)

    def _packed(self, name: str, values: list, sinfo_args: tuple, syms: dict):
        if name in VM_BUILTIN_OPS:
            return self._vm_builtin(name, values)
        if self.capture_host_calls is not None and name.startswith("vm.builtin.") and \
                not name.startswith("vm.builtin.cuda_graph."):
            # Host logic that runs on every call (a VM builtin): a replay does not run it.
            self.capture_host_calls.append((self.binding_loc, name))
        if name in CACHE_BUILTINS:
            return self._cache_builtin(name, values, sinfo_args)
        if name in SINGLE_WORKER_COLLECTIVES:
            return self._collective(name, values)
        ret = sinfo_args[0] if sinfo_args else ir.ObjectSInfo()
        for v in _leaves(values):
            if self.backend.is_storage(v):
                # A storage is no kernel argument; TVM's VM would hand the kernel a pointer
                # to an object, not to memory.
                raise ExecError(f"'{name}' is given a storage where a tensor goes")
        tensors, scalars, _ = _split(values)
        if self.model_host_work:
            # An object argument is part of what the call is given (its identity; what it
            # holds is not known): on the reference backend it salts the kernel.
            scalars += [f"object {v.name}" for v in _leaves(values) if isinstance(v, HostObject)]
        work = host_effect(name) if self.model_host_work else None
        if name in HOST_COMPUTED and self.model_host_work:
            return self._host_computed(name, tensors, scalars)
        if _has_tensors(ret):
            if work is not None:
                scalars = scalars + [self._host_state(name, work, tensors)]
            outs = self._alloc_like(ret, syms)
            flat, _, _ = _split([outs])
            n_in = len(tensors)
            spec = KernelSpec(name, tuple(range(n_in, n_in + len(flat))), None, True)
            self._launch(spec, tensors + flat, scalars)
            return outs
        if tensors:
            key = ("packed", name, len(tensors))
            spec = self._specs.get(key)
            if spec is None:
                spec = self._specs[key] = packed_spec(name, len(tensors))
            if work is not None:
                scalars = scalars + [self._host_state(name, work, tensors[:-1])]
            self._launch(spec, tensors, scalars)
        if isinstance(ret, ir.TupleSInfo) and not ret.fields:
            return ()
        return HostObject(f"{name}()")

    # ---- collectives: a disco session of one worker ---------------------------------------

    def _collective(self, name: str, values: list) -> HostObject:
        """A collective of TVM's disco as a session of one worker (worker 0, one group of
        one) runs it: every worker's contribution is this worker's, so the received tensor
        is the sent one, whatever the reduction (sum, prod, min, max or avg of one operand).
        A copy on the backend: in stream order, a node of the graph inside a capture."""
        want = SINGLE_WORKER_COLLECTIVES[name]
        if len(values) != want:
            raise ExecError(f"'{name}' takes {want} arguments, {len(values)} given")
        send = self._tensor(values[0], f"{name}'s sent data")
        recv = self._tensor(values[-1], f"{name}'s received data")
        if name == "runtime.disco.allreduce":
            # TVM's check (src/runtime/extra/disco/builtin.cc): ReduceKind 0 to 4
            kind = self._shape(values[1], f"{name}'s reduce kind")
            if len(kind) != 1 or not 0 <= kind[0] <= 4:
                raise ExecError(f"{name}'s reduce kind is {kind}, not one of 0 to 4 "
                                "(sum, prod, min, max, avg)")
        if send.dtype != recv.dtype or tuple(send.shape) != tuple(recv.shape):
            raise ExecError(f"'{name}' on one worker receives what it sends: a tensor "
                            f"{tuple(send.shape)} {send.dtype} into {tuple(recv.shape)} "
                            f"{recv.dtype}")
        self.backend.site = self.binding_loc
        self.backend.copy_into(send, recv)
        return HostObject(f"{name}()")

    # ---- stateful builtins: KV caches ---------------------------------------------------

    def _new_object(self, what: str) -> HostObject:
        self.objects_made += 1
        return HostObject(f"{what} #{self.objects_made}")

    def _cache_builtin(self, name: str, values: list, sinfo_args: tuple):
        """The KV-cache builtins, with the cache's contents kept across calls as TVM's
        runtime keeps them: what an append writes is what a later view or attention reads
        (bytes and terms alike: the copies and the attention kernel run on the backend)."""
        want = CACHE_BUILTINS[name]
        if want is not None and len(values) != want:
            raise ExecError(f"'{name}' takes {want} argument(s), {len(values)} given")
        if name == "vm.builtin.paged_attention_kv_cache_create":
            return self._new_object("paged_kv_cache")
        if name == "vm.builtin.attention_kv_cache_create":
            # TVM: the reserved storage, `init` appended, then the fill count set
            init = self._tensor(values[0], f"{name}'s initial data")
            reserve = self._shape(values[1], f"{name}'s reserved shape")
            fill = _integer(values[2], f"{name}'s fill count")
            cache = self._new_object("kv_cache")
            state = self._cache_state(cache, init, reserve)
            self._cache_write(cache, state, init, append=True)
            if fill >= 0:
                state.filled = fill * state.row_bytes
            return cache
        cache = values[0]
        if not isinstance(cache, HostObject) or cache.name == "null":
            raise ExecError(f"'{name}' is given {_describe(cache)}, not a KV cache")
        if name == "vm.builtin.attention_kv_cache_attention_with_fused_qkv":
            # (cache, layer, sm_scale, qkv, output): the layer's K and V are appended (the
            # whole qkv, of which they are a part), then attention reads every one appended.
            # What the layer holds is kept as its digest, not as every qkv appended: each
            # append makes a new digest from the last and the qkv (a kernel of its own, its
            # output as long as the longer of the two, so every byte of both reaches it), and
            # attention reads the qkv and the digest. Its output depends on every qkv appended
            # before, in order, in bytes and in terms (the digest's term is the chain of
            # appends), as TVM's does on the cache; the executor holds one digest a layer,
            # not the history (MLC-LLM's largest shapes append gigabytes over a run).
            layer = _integer(values[1], f"{name}'s layer")
            qkv = self._tensor(values[3], f"{name}'s qkv")
            out = self._tensor(values[4], f"{name}'s output")
            state = self.cache_states.get((cache, layer))
            held = [] if state is None else [
                self.backend.view(state.storage, 0, (state.filled,), "uint8")]
            size = max(_nbytes(qkv), 1, state.filled if state else 0)
            digest = self.backend.view(self.backend.alloc_storage(size), 0, (size,), "uint8")
            self._launch(KernelSpec(PAGED_KV_APPEND, (len(held) + 1,), None, False),
                         [*held, qkv, digest], [layer, f"object {cache.name}"])
            self.cache_states[(cache, layer)] = CacheState(digest.storage, size, size, "uint8")
            scalars = [layer] + ([values[2]] if _is_number(values[2]) else [])
            spec = KernelSpec(name, (2,), None, True)
            self._launch(spec, [qkv, digest, out], scalars + [f"object {cache.name}"])
            return HostObject(f"{name}()")
        if name == "vm.builtin.attention_kv_cache_view":
            shape = self._shape(values[1], f"{name}'s shape")
            state = self.cache_states.get(cache)
            if state is None:  # a cache the caller passed, viewed before any append
                ret = sinfo_args[0] if sinfo_args else None
                dtype = ret.dtype if isinstance(ret, ir.TensorSInfo) and ret.dtype else None
                if dtype is None:
                    raise ExecError(f"'{name}' views {_describe(cache)}, which nothing appended "
                                    "to, with no tensor struct info to say its dtype")
                like = Tensor(np.zeros(0, numpy_dtype(dtype)))
                state = self._cache_state(cache, like, shape)
            need = math.prod(shape) * numpy_dtype(state.dtype).itemsize
            if need > state.capacity:
                self._cache_grow(cache, state, need)
            return self.backend.view(state.storage, 0, shape, state.dtype)
        value = self._tensor(values[1], f"{name}'s value")
        state = self.cache_states.get(cache)
        if state is None:  # a cache the caller passed: what it held before is its own term
            state = self._cache_state(cache, value, tuple(value.shape))
        append = name == "vm.builtin.attention_kv_cache_append"
        self._cache_write(cache, state, value, append=append)
        return cache

    def _cache_state(self, cache: HostObject, like: Tensor, reserve: tuple) -> CacheState:
        item = numpy_dtype(like.dtype).itemsize
        size = max(check_alloc_size(math.prod(reserve) * item, "a KV cache"), 1)
        state = self.cache_states[cache] = CacheState(
            None, 0, 0, like.dtype,
            math.prod(reserve[1:]) * item)
        self._cache_grow(cache, state, size)
        return state

    def _cache_grow(self, cache: HostObject, state: CacheState, need: int) -> None:
        """At least `need` bytes of capacity (doubling, as TVM's runtime grows a cache): the
        old bytes copied, the new ones the cache's prior contents -- a deterministic kernel
        of the object's name and the offset, so that a view past what was appended reads
        written bytes, the same on every backend, and the same terms in both modules."""
        if need <= state.capacity and state.storage is not None and state.capacity:
            return
        capacity = max(2 * state.capacity, need)
        grown = self.backend.alloc_storage(check_alloc_size(capacity, "a KV cache"))
        self.backend.site = self.binding_loc
        if state.capacity:
            self.backend.copy_into(
                self.backend.view(state.storage, 0, (state.capacity,), "uint8"),
                self.backend.view(grown, 0, (state.capacity,), "uint8"))
        tail = self.backend.view(grown, state.capacity, (capacity - state.capacity,), "uint8")
        self._launch(KernelSpec("vm.builtin.kv_cache_prior_contents", (0,), None, False),
                     [tail], [cache.name, state.capacity])
        state.storage, state.capacity = grown, capacity

    def _cache_write(self, cache: HostObject, state: CacheState, value: Tensor,
                     append: bool) -> None:
        """`value`'s bytes after the filled ones (append), or from the start (update)."""
        n = _nbytes(value)
        at = state.filled if append else 0
        if at + n > state.capacity:
            self._cache_grow(cache, state, at + n)
        if n:
            self.backend.site = self.binding_loc
            self.backend.copy_into(value, self.backend.view(state.storage, at,
                                                            tuple(value.shape), value.dtype))
        state.filled = at + n

    def _host_computed(self, name: str, tensors: list, scalars: list):
        """relax.run.unique / relax.run.nonzero as TVM's Python functions compute them
        (python/tvm/relax/op/set.py: numpy_unique, numpy_nonzero): the input copied to the host,
        NumPy, a new tensor of the shape the data gives. A graph that captured the call returns
        the tensor of its capture on every replay (the host code does not run again)."""
        if len(tensors) != 1:
            raise ExecError(f"'{name}' takes one tensor, {len(tensors)} given")
        x = np.array(self.backend.to_numpy(tensors[0]))
        if self.capture_host_calls is not None:
            self.capture_host_calls.append((self.binding_loc, name))
        if name == "relax.run.nonzero":
            return self.backend.from_numpy(np.stack(np.atleast_1d(x).nonzero(), axis=0))
        # unique(x, sorted, return_index, return_inverse, return_counts[, axis])
        flags = [bool(v) for v in scalars[:4]]
        sort = flags[0] if flags else True
        axis = scalars[4] if len(scalars) > 4 and _is_number(scalars[4]) else None
        if any(flags[1:4]):
            # The result is then a tuple, which TVM's reorders when unsorted; no module of the
            # corpus asks for it.
            raise ExecError(f"the executor runs '{name}' for its unique values only (no "
                            "return_index, return_inverse or return_counts)")
        values = np.unique(x, axis=axis)
        if not sort:
            first = np.unique(x, return_index=True, axis=axis)[1]
            values = np.take(x, np.sort(first), axis=axis)
        return self.backend.from_numpy(np.ascontiguousarray(values))

    def _vm_builtin(self, name: str, values: list):
        """The VM builtins TVM lowers the view operators to, called by name."""
        want = VM_BUILTIN_OPS[name]
        if len(values) != want:
            raise ExecError(f"'{name}' takes {want} argument(s), {len(values)} given")
        if name == "vm.builtin.reshape":
            return self._reshape(values[0], values[1], name)
        if name == "vm.builtin.shape_of":
            return tuple(self._tensor(values[0], f"{name}'s argument").shape)
        if name == "vm.builtin.ensure_zero_offset":
            return self._tensor(values[0], f"{name}'s argument")
        return HostObject("null")  # vm.builtin.null_value

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
            if self.model_host_work:  # an object's identity, as for a packed call
                scalars += [f"object {v.name}" for v in _leaves(ins) if isinstance(v, HostObject)]
            work = host_effect(name) if self.model_host_work else None
            if work is not None:
                scalars = scalars + [self._host_state(name, work, tensors)]
            spec = KernelSpec(name, tuple(range(len(tensors), len(tensors) + len(flat))), None,
                              True)
            self._launch(spec, tensors + flat, scalars)
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
            raise ExecError(f"{ir.GET_CACHED_ALLOC} takes (function, index), {len(args)} "
                            "argument(s) given")
        func = self._capture_function(args[0], ir.GET_CACHED_ALLOC)
        index = _integer(args[1], f"{ir.GET_CACHED_ALLOC}'s index")
        cached = self.alloc_cache.get(index)
        if cached is None:
            if index in self.allocating:
                raise ExecError(f"{ir.GET_CACHED_ALLOC} asks for index {index} while '{func}' "
                                "is computing it: the allocation would recurse forever")
            self.allocating.add(index)
            try:
                cached = self.alloc_cache[index] = self._call_global(func, [])
            finally:
                self.allocating.discard(index)
        return cached

    def _capture_function(self, value, builtin: str) -> str:
        if not isinstance(value, FuncRef):
            raise ExecError(f"{builtin}'s first argument is {_describe(value)}, not a function")
        if not isinstance(self.functions.get(value.name), ir.Function):
            raise ExecError(f"{builtin} calls '{value.name}', which is not a Relax function of "
                            "the module")
        return value.name

    def _constant(self, e: ir.Constant):
        hit = self.constants.get(id(e))
        if hit is None:
            if e.meta is not None:  # metadata["<kind>"][i]: the text omits the data
                value = constant_value(e)
            else:
                value = np.asarray(e.value, dtype=numpy_dtype(e.dtype))
            hit = self.constants[id(e)] = (e, self.backend.from_numpy(value))
        return hit[1]

    def _load_constants(self, f: ir.Function) -> None:
        """Make `f`'s constants before a capture of it: copying data to the device is no
        graph's work (CUDA refuses the stream synchronisation it needs while capturing)."""
        exprs = [b.value for b in ir.nested_bindings(f.blocks)] + [f.body]
        for e in exprs:
            for x in ir.walk(e):
                if type(x) is ir.Constant:
                    self._constant(x)

    def _run_or_capture(self, args: tuple):
        """vm.builtin.cuda_graph.run_or_capture(capture_func, args, index[, shape])."""
        if len(args) not in (3, 4):
            raise ExecError(f"{ir.RUN_OR_CAPTURE} takes (function, arguments, index[, shape]), "
                            f"{len(args)} argument(s) given")
        func = self._capture_function(args[0], ir.RUN_OR_CAPTURE)
        if not isinstance(args[1], tuple):
            raise ExecError(f"{ir.RUN_OR_CAPTURE}'s arguments are {_describe(args[1])}, not a "
                            "tuple")
        index = _integer(args[2], f"{ir.RUN_OR_CAPTURE}'s index")
        shape = self._shape(args[3], f"{ir.RUN_OR_CAPTURE}'s shape") if len(args) == 4 else None
        key = (index, shape)
        if self.graph_log is not None:
            self.graph_log.append(index)
        entry = self.graphs.get(key)
        if entry is not None:
            graph, outputs = entry
            if self.on_replay is not None:
                self.replaying = key
                try:
                    self.on_replay(func, index, self.graph_inputs[key], args[1])
                finally:
                    self.replaying = None
            for call in self.graph_host_calls.get(key, ()):
                self.replayed_host_calls.setdefault(call, None)
            self.backend.replay(graph)
            self.replays += 1
            return outputs
        self._load_constants(self.functions[func])
        if self.on_capture is not None:
            self.on_capture(func, index, args[1])
        self.backend.begin_capture()
        self.capture_host_calls = []
        try:
            outputs = self._call_global(func, list(args[1]))
        except BaseException:
            try:  # end the capture, but report what broke it, not what ending it says
                self.backend.end_capture()
            except Exception:
                pass
            raise
        finally:
            host_calls, self.capture_host_calls = self.capture_host_calls, None
        if host_calls:
            self.graph_host_calls[key] = host_calls
        graph = self.backend.end_capture()
        self.graphs[key] = (graph, outputs)
        self.graph_inputs[key] = args[1]
        self.captures += 1
        return outputs


# Operators (besides memory and kernel calls) the executor runs -> their parameters, as
# relax_ops.py records them (a trailing `=`: optional).
OTHER_OPS = {
    "relax.reshape": ("x", "shape"),
    "relax.memory.view": ("data", "shape=", "dtype=", "relative_byte_offset="),
    "relax.memory.ensure_zero_offset": ("data",),
    "relax.vm.call_tir_dyn": ("func", "args"),
    "relax.shape_of": ("expr",),
    "relax.tensor_to_shape": ("expr",),
    "relax.builtin.stop_lift_params": ("x",),
    "relax.stop_lift_params": ("x",),
    "relax.print": (),  # any number of values
    "relax.assert_op": ("condition", "format_args=", "format="),
    "relax.make_closure": ("func", "args"),
    "relax.invoke_closure": ("closure", "args"),
    "relax.invoke_pure_closure": ("closure", "args"),
}

# The operators that run as the elementwise kernel of the same meaning (exec/kernels.py).
OPERATOR_KERNELS = {
    "relax.add": "add", "relax.subtract": "subtract", "relax.multiply": "multiply",
    "relax.divide": "divide", "relax.maximum": "maximum", "relax.minimum": "minimum",
    "relax.exp": "exp", "relax.nn.relu": "relu", "relax.negative": "negative",
    "relax.tanh": "tanh", "relax.sqrt": "sqrt", "relax.sigmoid": "sigmoid",
}

# Packed functions whose result the executor computes on the host, as TVM's do: their result's
# shape depends on the data (its struct info gives none to allocate).
HOST_COMPUTED = ("relax.run.unique", "relax.run.nonzero")

# The VM builtins those operators are lowered to, when a module calls them by name -> their
# number of arguments.
VM_BUILTIN_OPS = {"vm.builtin.reshape": 2, "vm.builtin.shape_of": 1,
                  "vm.builtin.ensure_zero_offset": 1, "vm.builtin.null_value": 0}

# The stateful builtins the executor models (KV caches: `_cache_builtin`) -> their number of
# arguments (None: checked there).
CACHE_BUILTINS = {
    "vm.builtin.attention_kv_cache_create": 3,
    "vm.builtin.attention_kv_cache_append": 2,
    "vm.builtin.attention_kv_cache_update": 2,
    "vm.builtin.attention_kv_cache_view": 2,
    "vm.builtin.paged_attention_kv_cache_create": None,
    "vm.builtin.attention_kv_cache_attention_with_fused_qkv": 5,
}

# The collectives of TVM's disco (src/runtime/extra/disco/builtin.cc, the names its
# relax.op.ccl operators lower to) the executor runs as a session of one worker runs them
# (`_collective`) -> their number of arguments: (send, [reduce kind,] in_group, recv).
SINGLE_WORKER_COLLECTIVES = {
    "runtime.disco.allreduce": 4,
    "runtime.disco.allgather": 3,
    "runtime.disco.broadcast_from_worker0": 3,
    "runtime.disco.scatter_from_worker0": 3,
    "runtime.disco.gather_to_worker0": 3,
}

# Operators TVM can leave in a module at this point that the executor does not run, and why.
NOT_EXECUTED = {
    "relax.hint_on_device": "it places data on a device, and the executor has one",
    "relax.call_py_func": "it calls a Python function the module does not contain",
    "relax.nonzero": "its result's shape depends on the data (relax.run.nonzero)",
    "relax.unique": "its result's shape depends on the data (relax.run.unique)",
    "relax.call_inplace_packed": "which arguments it writes is known only to its function",
    "relax.call_tir_inplace": "TVM lowers it before memory planning (CallTIRRewrite)",
    "relax.call_tir_with_grad": "TVM lowers it before memory planning (CallTIRRewrite)",
    "relax.wrap_param": "TVM removes it before memory planning",
}


def storages_sized_in_elements(module: ir.Module) -> bool:
    """Whether the module sizes storages in elements of their dtype, not in bytes: some
    storage of a constant size N holds, at offset 0, a tensor of exactly N elements wider
    than a byte. TVM's own test modules are written so (`alloc_storage(R.shape([8]), ...,
    "float32")` for 8 float32 values); a module that does it once is read so throughout."""
    sizes: dict[ir.Var, tuple] = {}  # var -> (N,), or a tuple of those for get_cached_alloc
    returned: dict[str, tuple] = {}  # function -> sizes of the storages it returns

    def size_of(e):
        if isinstance(e, ir.Var):
            return sizes.get(e)
        if isinstance(e, ir.TupleGetItem):
            t = size_of(e.tuple_value)
            if isinstance(t, tuple) and t and isinstance(t[0], tuple) and \
                    0 <= e.index < len(t):
                return t[e.index]
        if isinstance(e, ir.Tuple):
            return tuple(size_of(f) or () for f in e.fields)
        return None

    def const(e):
        if isinstance(e, ir.Literal) and isinstance(e.value, int):
            return e.value
        if isinstance(e, ir.PrimValue) and isinstance(e.value, ir.IntImm):
            return e.value.value
        return None

    def scan(f: ir.Function) -> bool:
        for block in f.blocks:
            for b in block.bindings:
                v = b.value
                if not isinstance(v, ir.Call):
                    s = size_of(v)
                    if s is not None:
                        sizes[b.var] = s
                    continue
                op = v.op.name if isinstance(v.op, ir.Op) else None
                if op == "relax.memory.alloc_storage" and ir.storage_size(v) is not None:
                    sizes[b.var] = (ir.storage_size(v),)
                elif ir.builtin_called(v) == ir.GET_CACHED_ALLOC and len(v.args) == 2 and \
                        isinstance(v.args[1], ir.Tuple) and v.args[1].fields and \
                        isinstance(v.args[1].fields[0], ir.GlobalVarRef):
                    got = returned.get(v.args[1].fields[0].name)
                    if got is not None:
                        sizes[b.var] = got
                elif op == "relax.memory.alloc_tensor" and len(v.args) >= 4:
                    n = size_of(v.args[0])
                    shape = v.args[2]
                    if not (isinstance(n, tuple) and len(n) == 1 and isinstance(n[0], int)
                            and const(v.args[1]) == 0 and isinstance(shape, ir.ShapeExpr)
                            and all(isinstance(d, ir.IntImm) for d in shape.values)):
                        continue
                    dtype = v.args[3]
                    name = dtype.value if isinstance(dtype, ir.DataTypeImm) else \
                        dtype.value if isinstance(dtype, ir.Literal) else None
                    count = math.prod(d.value for d in shape.values)
                    try:
                        wide = isinstance(name, str) and numpy_dtype(name).itemsize > 1
                    except ExecError:
                        wide = False
                    if wide and count == n[0]:
                        return True
        s = size_of(f.body)
        if isinstance(s, tuple) and s and isinstance(s[0], tuple):
            returned[f.name] = s
        return False

    functions = module.relax_functions()
    # Allocation functions first: the functions that call get_cached_alloc read their sizes.
    functions = sorted(functions, key=lambda f: not f.is_private)
    return any(scan(f) for f in functions)


PRIM_FUNCS = {"T.max": max, "T.min": min, "T.floordiv": lambda a, b: a // b,
              "T.floormod": lambda a, b: a % b, "T.ceildiv": lambda a, b: -(-a // b),
              "T.truncdiv": lambda a, b: int(a / b),
              "T.truncmod": lambda a, b: a - int(a / b) * b}


COMPARISONS = {"<=": lambda a, b: a <= b, "<": lambda a, b: a < b, ">=": lambda a, b: a >= b,
               ">": lambda a, b: a > b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
               "and": lambda a, b: bool(a) and bool(b)}


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
        if e.op == "/":
            return a / b
        # The comparisons and `and` of a bounded graph launch's guard (--capture-symbolic).
        return int(COMPARISONS[e.op](a, b))
    if t is ir.PrimCall:
        args = [eval_prim(a, value_of) for a in e.args]
        fn = PRIM_FUNCS.get(e.func)
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


def _split(values: list) -> tuple[list, list, list]:
    """Tensors (flattened through tuples, in order), scalars, and, for each top-level value
    that is a tensor, its position among the values."""
    tensors: list = []
    scalars: list = []
    positions: list = []
    for i, v in enumerate(values):
        if isinstance(v, Tensor):
            positions.append(i)
        _flatten_into(v, tensors, scalars)
    return tensors, scalars, positions


def _flatten_into(v, tensors: list, scalars: list) -> None:
    """A module-level function, not a closure: a recursive closure is a reference cycle, and
    the tensors it collected would live until the garbage collector runs (a real model's
    outputs are gigabytes)."""
    if isinstance(v, Tensor):
        tensors.append(v)
    elif isinstance(v, tuple):
        for x in v:
            _flatten_into(x, tensors, scalars)
    elif isinstance(v, (int, float, str, DType)):
        scalars.append(v.name if isinstance(v, DType) else v)


def _nbytes(t: Tensor) -> int:
    return math.prod(t.shape) * numpy_dtype(t.dtype).itemsize


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


def _allocatable(s) -> bool:
    """Whether a struct info says the shape and dtype of every tensor in it."""
    if isinstance(s, ir.TensorSInfo):
        return s.shape is not None and bool(s.dtype)
    if isinstance(s, ir.TupleSInfo):
        return all(_allocatable(f) for f in s.fields)
    return False


def _elementwise_result(tensors: list):
    """An elementwise operator's result: its inputs' shapes broadcast (NumPy's rule, which
    Relax's is), their one dtype; None when they have none or disagree."""
    if not tensors or len({t.dtype for t in tensors}) != 1:
        return None
    try:
        shape = np.broadcast_shapes(*[tuple(t.shape) for t in tensors])
    except ValueError:
        return None
    return ir.TensorSInfo(tuple(ir.IntImm(d, "int64") for d in shape), tensors[0].dtype,
                          len(shape))


def _has_tensors(s) -> bool:
    if isinstance(s, ir.TensorSInfo):
        return True
    if isinstance(s, ir.TupleSInfo):
        return any(_has_tensors(f) for f in s.fields)
    return False


