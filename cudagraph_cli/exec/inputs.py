"""A call's arguments: random inputs made from the parameters' struct info, the weights made
once and shared (`Weights`), and host values put on a backend (`to_backend`).

Fresh random inputs each call; weights, the parameters past `num_input`, stay the same across
calls and are shared by the functions position by position, as a model's parameters are. A
boolean scalar input (`R.Tensor((), "bool")` or `R.Prim("bool")`, what an `if` tests) is not
random: the j-th one of a call's inputs is True on call n exactly when bit j of n is 0, so that
2^k calls take every combination of k conditions (`Conditions`)."""

from __future__ import annotations

import math

import numpy as np

from .. import ir
from ..diagnostics import SourceError
from ..proof.ranges import FunctionRanges
from ..text.printer import Printer
from .backend import Backend, ExecError, check_alloc_size, numpy_dtype
from .functions import ModuleMismatch
from .prim import eval_prim
from .values import HostObject


class Inputs:
    """Random arguments from parameters' struct info; weights made once per function."""

    def __init__(self, seed: int, shapes: dict[str, list[int]]):
        self.rng = np.random.default_rng(seed)
        self.shapes = shapes

    def syms(self, f: ir.Function, call: int) -> dict:
        """The values of the symbolic dimensions of `f`'s parameters for call number `call`
        (shared with `cgraph run`, which times a call per distinct set): those `shapes` gives,
        taken in turn; else the first values of the variable's range in `f`
        (proof/ranges.py: 1 and 2 for a dimension, its `tir_var_lower_bound` and the next
        where it has one)."""
        ranges = FunctionRanges(f)
        values = {}
        for n in sorted({v.name for p in f.params for v in ir.sinfo_prim_vars(p.sinfo)}):
            choices = self.shapes.get(n) or ranges.of(n).first_values()
            values[n] = choices[call % len(choices)]
        return values

    def fresh(self, f: ir.Function, call: int) -> list:
        """Host values for the inputs of a call (parameters before num_input)."""
        syms = self.syms(f, call)
        conditions = Conditions(call)
        return [self.param_value(p, syms, conditions) for p in f.params[:f.num_input]]

    def weights(self, f: ir.Function):
        """Host values for the weights (parameters from num_input on), one at a time."""
        syms = self.syms(f, 0)
        for p in f.params[f.num_input:]:
            yield self.param_value(p, syms)

    def param_value(self, p: ir.Var, syms: dict, conditions: "Conditions | None" = None):
        try:
            return self.value(p.sinfo, syms, p.name, conditions)
        except SourceError as e:
            if e.loc.line == 0:
                e.loc = p.loc  # the parameter whose input cannot be made
            raise

    def condition(self, conditions: "Conditions | None") -> bool:
        """The next boolean scalar input: a call's (Conditions), random for weights."""
        return conditions.next() if conditions is not None else bool(self.rng.integers(0, 2))

    def value(self, s, syms: dict, name: str, conditions: "Conditions | None" = None):
        if isinstance(s, ir.TensorSInfo):
            if s.shape is None:
                raise ModuleMismatch(f"cannot make an input for '{name}': its shape is not "
                                     "known")
            shape = tuple(self.dim(d, syms, name) for d in s.shape)
            dt = numpy_dtype(s.dtype or "float32")  # no dtype given: float32
            if any(d < 0 for d in shape):
                raise ModuleMismatch(f"cannot make an input for '{name}': its shape {shape} has "
                                     "a negative dimension")
            if shape == () and dt.kind == "b":
                return np.array(self.condition(conditions))
            size = math.prod(shape)
            check_alloc_size(size * dt.itemsize, f"the input '{name}', {shape} {dt},")
            # Big tensors (weights of real models) repeat a random block of 2^20 values:
            # generating hundreds of MB of random numbers would dominate a verify run, and
            # the reference backend keeps a repeating tensor as its block (kernels.Periodic).
            n = min(size, INPUT_BLOCK)
            if dt.kind == "f":
                block = self.rng.standard_normal(n, dtype=np.float32).astype(dt)
            elif dt.kind == "b":
                block = self.rng.integers(0, 2, n).astype(dt)
            else:
                block = self.rng.integers(0, 8, n).astype(dt)
            return block.reshape(shape) if n == size else Repeating(block, shape)
        if isinstance(s, ir.ShapeSInfo) and s.values is not None:
            return tuple(self.dim(d, syms, name) for d in s.values)
        if isinstance(s, ir.TupleSInfo):
            return tuple(self.value(x, syms, f"{name}[{i}]", conditions)
                         for i, x in enumerate(s.fields))
        if isinstance(s, ir.PrimSInfo) and s.dtype == "bool" and s.value is None:
            return self.condition(conditions)
        if isinstance(s, ir.PrimSInfo):
            return self.dim(s.value, syms, name) if s.value is not None else \
                int(self.rng.integers(1, 8))
        return HostObject(name)

    def dim(self, d, syms: dict, name: str) -> int:
        """A dimension's value: each free variable takes its value for this call (see
        syms), and an expression such as `T.max(n - m, 1)` is evaluated on them, so that
        it agrees with the other parameters' dimensions."""
        if isinstance(d, ir.IntImm):
            return d.value
        if isinstance(d, ir.SymVar):
            return syms[d.name]
        try:
            value = eval_prim(d, lambda v: syms[v.name])
        except ExecError as e:
            raise ModuleMismatch(f"cannot make an input for '{name}': {e.message}") from None
        if isinstance(value, float) and value != int(value):
            raise ModuleMismatch(f"cannot make an input for '{name}': a dimension evaluates to "
                                 f"{value}, not an integer")
        return int(value)


class Conditions:
    """The boolean scalar inputs of one call, made in turn: the j-th is True on call n
    exactly when bit j of n is 0 (the module docstring)."""

    def __init__(self, call: int):
        self.call = call
        self.made = 0

    def next(self) -> bool:
        j = self.made
        self.made += 1
        return (self.call >> j) & 1 == 0


# An input of more values than this repeats a random block of this many (Repeating).
INPUT_BLOCK = 1 << 20


class Repeating:
    """A host input whose values repeat `block`, in `shape`: made dense only by a backend
    that cannot keep it as its block (Backend.from_periodic; the reference backend keeps
    it so)."""

    def __init__(self, block: np.ndarray, shape: tuple):
        self.block = block
        self.shape = shape


def to_backend(backend: Backend, value, term: tuple | None = None):
    """A host value on a backend (arrays copied: each module gets its own buffers). `term`:
    on a backend that keeps terms (exec/terms.py), each tensor's term is `term` with the
    tensor's path in `value` appended to its last item (verify's inputs and weights are
    symbolic: two of equal sample bytes are still told apart)."""
    named = term if backend.terms is not None else None
    if isinstance(value, Repeating):
        return backend.from_periodic(value.block.copy(), value.shape, term=named)
    if isinstance(value, np.ndarray):
        return backend.from_numpy(value.copy(), term=named)
    if isinstance(value, tuple):
        return tuple(to_backend(backend, v, None if term is None else
                                term[:-1] + (f"{term[-1]}[{i}]",))
                     for i, v in enumerate(value))
    return value


class Weights:
    """Weights on the device: made once, the same buffers on every call, and shared by all
    functions, position by position (a model's functions get the same parameters). A graph
    that captured a weight replays it: that is the contract of num_input, so the inputs must
    keep it too."""

    def __init__(self, inputs: Inputs, backends: list):
        self.inputs = inputs
        self.backends = backends
        self.slots: dict[tuple, list] = {}

    def of(self, f: ir.Function) -> list[list]:
        """For each backend, the weight arguments of `f`."""
        num_input = f.num_input
        out: list[list] = [[] for _ in self.backends]
        hosts = None
        for i, p in enumerate(f.params[num_input:]):
            key = (i, repr(Printer().sinfo(p.sinfo, True)))
            if key not in self.slots:
                if hosts is None:
                    hosts = self.inputs.weights(f)
                    for _ in range(i):
                        next(hosts)
                host = next(hosts)
                slot = len(self.slots)
                self.slots[key] = [to_backend(b, host, ("weight", slot, p.name))
                                   for b in self.backends]
                del host
            elif hosts is not None:
                next(hosts)
            for j in range(len(self.backends)):
                out[j].append(self.slots[key][j])
        return out
