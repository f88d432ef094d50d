"""`cgraph verify`: does a rewrite compute what the original computes?

Both modules run on the reference executor with the same inputs: every public function, called
`calls` times in turn, with fresh random inputs each call (weights, the parameters past
`num_input`, stay the same across calls and are shared by the functions position by
position, as a model's parameters are). A boolean scalar input (`R.Tensor((), "bool")` or
`R.Prim("bool")`, what an `if` tests) is not random: the j-th one of a call's inputs is True
on call n exactly when bit j of n is 0, so that 2^k calls take every combination of k
conditions, and with the default 4 calls both branches of each of the first two conditions
run, each after the other has (a graph captured in one branch, then replayed). After every call, every output returned so far by
either module is compared bit for bit, so a result that lives in graph-owned memory and is
overwritten by a later call (of any function) shows up.

A rewrite that bounds graphs (`--capture-symbolic VAR:MAX`: a graph launch guarded by
`VAR <= MAX`, passes/guards.py) runs with values of VAR on both sides of the bound unless
`--shape` gives VAR's: 1 and MAX (graphs, the second captured after the first, so that a graph
keyed without VAR would replay the wrong one), MAX + 1 and MAX + 2 (the eager path), within
the variable's `tir_var_upper_bound`, in the order 1, MAX + 1, MAX, MAX + 2, and then 1 again
(at least 5 calls: the graph captured at 1 replays after the one captured at MAX). After each call of a function with such a guard in its
body, verify checks that the graph ran exactly when the bound holds (a difference of kind
"guard": the guard inverted, the branches swapped).

Values can agree by chance (a result that depends only on weights is rewritten with the same
values by every call), so verify also checks ownership in both modules (exec/ownership.py): a
returned value in the allocation function's storages, or a graph input at an address other
than the captured one, is a difference of kind "ownership". A difference in values, being
the stronger evidence, is reported first; an ownership finding when every value agrees.
"""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass, field

import numpy as np

from .. import ir
from ..diagnostics import NO_LOC, Loc, SourceError
from ..ir.equality import Matcher
from ..passes.capture_safety import body_calls
from ..passes.guards import Guard, find_guards
from ..text.printer import Printer
from .backend import Backend, CpuBackend, ExecError, Tensor, check_alloc_size, numpy_dtype
from .handlers.cuda_graph import GraphRuntime
from .interpreter import Executor
from .ownership import OwnershipCheck
from .prim import eval_prim
from .values import DType, HostObject
from .terms import TermTable, explain


class ModuleMismatch(SourceError):
    """The two modules do not correspond (different public functions or signatures)."""


class ModuleFails(SourceError):
    """One of the two modules cannot run: `which` ("original" or "rewritten") says which, the
    location is in that module."""

    def __init__(self, which: str, error: SourceError):
        super().__init__(error.message, error.loc)
        self.which = which


@dataclass
class Difference:
    function: str
    call: int  # 0-based call number of the function whose output differs
    output: str  # path in the returned value: "", "[0]", "[1][2]"
    checked_after: str  # "f, call 3": the call after which the difference was seen
    element: tuple | None = None
    original: object = None
    rewritten: object = None
    message: str = ""
    # or "ownership": values agree, but memory is shared wrongly; or "terms": the bytes agree,
    # but what an output is made of differs (exec/terms.py), `loc` the kernel in `module`
    # whose argument diverges first (when known)
    kind: str = "values"
    module: str = "rewritten"  # for "ownership": the module it is in, located at `loc`
    loc: Loc = NO_LOC
    site: str = ""  # what `loc` points at, in words
    graph_input: str | None = None  # for "ownership": path in run_or_capture's arguments
    # For "values": an external call doing host work that a graph of the rewritten module
    # replayed with its state at capture (exec/interpreter.py), located at `loc` in `module`:
    # the likely cause, since a CUDA graph does not run host code again.
    host_call: str | None = None


@dataclass
class VerifyReport:
    functions: list
    calls: int
    difference: Difference | None = None
    captures: int = 0
    replays: int = 0
    launches_original: int = 0
    launches_rewritten: int = 0
    outputs_compared: int = 0
    # The values each symbolic variable took, in the order of the calls (the variables of
    # the functions that ran), and the guards of bounded graphs found: (function, graph
    # index, Guard.text()).
    symbolic: dict = field(default_factory=dict)
    guards: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    # ("original" | "rewritten", loc, message): what ran only after a correction, located
    warnings: list = field(default_factory=list)

    @property
    def equal(self) -> bool:
        return self.difference is None


def public_functions(mod: ir.Module) -> list[ir.Function]:
    return [f for f in mod.relax_functions() if not f.is_private]


def runnable_functions(mod: ir.Module) -> list[ir.Function]:
    """The public functions, or a SourceError at the module's header when there is none: a
    module cut off inside its PrimFuncs still reads (it is valid TVMScript), and running
    nothing must not look like a run that went well."""
    found = public_functions(mod)
    if found:
        return found
    relax = mod.relax_functions()
    if relax:
        why = f"its Relax functions ({', '.join(f.name for f in relax)}) are all private"
    else:
        prims = [f.name for f in mod.functions]
        why = ("it has no Relax function, only PrimFuncs (" + ", ".join(prims) + ")" if prims
               else "it has no function") + "; was the file cut off?"
    raise SourceError(f"nothing to run in module '{mod.name}': {why}", mod.loc)


def check_correspondence(a: ir.Module, b: ir.Module) -> list[str]:
    """The public functions both modules have, with the same signatures; else ModuleMismatch."""
    fa = {f.name: f for f in public_functions(a)}
    fb = {f.name: f for f in public_functions(b)}
    if set(fa) != set(fb):
        only_a = sorted(set(fa) - set(fb))
        only_b = sorted(set(fb) - set(fa))
        what = []
        if only_a:
            what.append(f"only the original has {', '.join(only_a)}")
        if only_b:
            what.append(f"only the rewritten module has {', '.join(only_b)}")
        raise ModuleMismatch("the modules have different public functions: " + "; ".join(what))
    for name, f in fa.items():
        g = fb[name]
        m = Matcher(a, b)
        if len(f.params) != len(g.params) or \
                not all(m.sinfo(p.sinfo, q.sinfo) for p, q in zip(f.params, g.params)):
            sig_a = ", ".join(Printer().sinfo(p.sinfo, True) for p in f.params)
            sig_b = ", ".join(Printer().sinfo(p.sinfo, True) for p in g.params)
            raise ModuleMismatch(f"'{name}' has different parameters in the rewritten module: "
                                 f"({sig_a}) vs ({sig_b})", f.loc)
    return [f.name for f in public_functions(a)]


class Inputs:
    """Random arguments from parameters' struct info; weights made once per function."""

    def __init__(self, seed: int, shapes: dict[str, list[int]]):
        self.rng = np.random.default_rng(seed)
        self.shapes = shapes

    def sym_values(self, call: int, names: list[str]) -> dict[str, int]:
        values = {}
        for n in names:
            choices = self.shapes.get(n, [1, 2])
            values[n] = choices[call % len(choices)]
        return values

    def syms(self, f: ir.Function, call: int) -> dict:
        """The values of the symbolic dimensions of `f`'s parameters for call number `call`
        (shared with `cgraph run`, which times a call per distinct set)."""
        return self.sym_values(call, sorted({v.name for p in f.params
                                             for v in ir.sinfo_prim_vars(p.sinfo)}))

    def fresh(self, f: ir.Function, call: int) -> list:
        """Host values for the inputs of a call (parameters before num_input)."""
        syms = self.syms(f, call)
        self.condition_call, self.conditions = call, 0
        try:
            return [self.param_value(p, syms) for p in f.params[:f.num_input]]
        finally:
            self.condition_call = None

    condition_call: int | None = None  # set while making a call's fresh inputs
    conditions = 0  # boolean scalars made so far for that call

    def condition(self) -> bool:
        """The next boolean scalar input: see the module docstring (random for weights)."""
        if self.condition_call is None:
            return bool(self.rng.integers(0, 2))
        j = self.conditions
        self.conditions += 1
        return (self.condition_call >> j) & 1 == 0

    def weights(self, f: ir.Function):
        """Host values for the weights (parameters from num_input on), one at a time."""
        syms = self.syms(f, 0)
        for p in f.params[f.num_input:]:
            yield self.param_value(p, syms)

    def param_value(self, p: ir.Var, syms: dict):
        try:
            return self.value(p.sinfo, syms, p.name)
        except SourceError as e:
            if e.loc.line == 0:
                e.loc = p.loc  # the parameter whose input cannot be made
            raise

    def value(self, s, syms: dict, name: str):
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
                return np.array(self.condition())
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
            return tuple(self.value(x, syms, f"{name}[{i}]") for i, x in enumerate(s.fields))
        if isinstance(s, ir.PrimSInfo) and s.dtype == "bool" and s.value is None:
            return self.condition()
        if isinstance(s, ir.PrimSInfo):
            return self.dim(s.value, syms, name) if s.value is not None else \
                int(self.rng.integers(1, 8))
        return HostObject(name)

    def dim(self, d, syms: dict, name: str) -> int:
        """A dimension's value: each free variable takes its value for this call (see
        sym_values), and an expression such as `T.max(n - m, 1)` is evaluated on them, so that
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


# An input of more values than this repeats a random block of this many (Repeating).
INPUT_BLOCK = 1 << 20


class Repeating:
    """A host input whose values repeat `block`, in `shape`: made dense only for a backend
    that cannot keep it as its block (the reference backend can: from_periodic)."""

    def __init__(self, block: np.ndarray, shape: tuple):
        self.block = block
        self.shape = shape

    def dense(self) -> np.ndarray:
        return np.resize(self.block, math.prod(self.shape)).reshape(self.shape)


def to_backend(backend: Backend, value, term: tuple | None = None):
    """A host value on a backend (arrays copied: each module gets its own buffers). `term`:
    on a backend that keeps terms (exec/terms.py), each tensor's term is `term` with the
    tensor's path in `value` appended to its last item (verify's inputs and weights are
    symbolic: two of equal sample bytes are still told apart)."""
    named = term is not None and getattr(backend, "terms", None) is not None
    if isinstance(value, Repeating):
        from_periodic = getattr(backend, "from_periodic", None)
        if from_periodic is not None:
            if named:
                return from_periodic(value.block.copy(), value.shape, term=term)
            return from_periodic(value.block.copy(), value.shape)
        value = value.dense()
    if isinstance(value, np.ndarray):
        if named:
            return backend.from_numpy(value.copy(), term=term)
        return backend.from_numpy(value.copy())
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


def compare_terms(a, b, path: str = ""):
    """None, or (path, signature of a, signature of b) for the first output whose terms
    differ."""
    if isinstance(a, tuple) and len(a) == 3 and isinstance(a[0], np.dtype):  # a signature
        return None if a == b else (path, a, b)
    if isinstance(a, tuple) and isinstance(b, tuple):
        for i, (x, y) in enumerate(zip(a, b)):
            r = compare_terms(x, y, f"{path}[{i}]")
            if r:
                return r
    return None


class Kept:
    """A tensor or storage a module returned, as verify keeps it for the checks after later
    calls: neither its bytes nor, on a backend that watches writes (the reference,
    CpuBackend.watch), its memory.

    The backend tells it right before anything writes those bytes (or their terms) again;
    until then they are what they were when both modules' outputs were compared equal, and so
    are their terms. At that first write it saves the bytes (what the other module's output
    held too when they were compared) and from then on holds the storage, so that each later
    check reads what it holds now. A returned value nothing else holds is freed, as the
    module's caller frees it; nothing can write it any more. So verify's memory grows with
    what the modules keep alive (and with outputs written after they were returned), not with
    every output returned: an LLM's logits at 2048 positions are 2 GiB a call.

    On a backend that cannot watch, it holds the value and reads it as it is now at every
    check, as verify always did."""

    def __init__(self, backend: Backend, value, storage, start: int, stop: int, shape: tuple,
                 dtype):
        self.backend = backend
        self.start, self.stop = start, stop
        self.shape, self.dtype = shape, dtype
        self.saved: np.ndarray | None = None  # the bytes before the first write
        watch = getattr(backend, "watch", None)
        if watch is not None and storage is not None:
            self.held = None
            self.storage = weakref.ref(storage)
            self.terms = self._signature(storage)
            watch(storage, self, start, stop)
        else:
            self.held = value
            self.storage = None
            self.terms = None

    @property
    def written(self) -> bool:
        """Whether what it holds may differ from what was compared (read it again)."""
        return self.held is not None

    def before_write(self, storage) -> None:
        """The backend is about to write the bytes (CpuBackend.watch)."""
        self.saved = self.backend.read_bytes(storage, self.start, self.stop, copy=True)
        self.held = storage

    def now(self, a: int, b: int) -> np.ndarray | None:
        """Bytes a .. b (from its start) as they are now, or None where they cannot be read:
        the value was freed (they are what they were when compared) or the backend cannot
        read a storage."""
        source = self.held if self.held is not None else (
            self.storage() if self.storage is not None else None)
        if source is None:
            return None
        if self.storage is not None:
            return self.backend.read_bytes(source, self.start + a, self.start + b)
        if isinstance(source, Tensor):
            return self.backend.to_numpy(source).reshape(-1).view(np.uint8)[a:b]
        data = self.backend.storage_bytes(source)
        return None if data is None else np.frombuffer(data, np.uint8)[a:b]

    def terms_now(self):
        """Its term signature as it is now (exec/terms.py; None without terms)."""
        if self.storage is None:
            backend, value = self.backend, self.held
            if isinstance(value, Tensor):
                sign = getattr(backend, "term_signature", None)
            else:
                sign = getattr(backend, "storage_signature", None)
            return sign(value) if sign is not None else None
        return self._signature(self.held) if self.held is not None else self.terms

    def _signature(self, storage):
        if getattr(storage, "terms", None) is None:
            return None
        if self.shape is None:  # a storage returned as such
            return self.backend.storage_signature(storage)
        return self.backend.term_signature(self.backend.view(storage, self.start, self.shape,
                                                             self.dtype))


def snapshot_value(backend: Backend, value):
    """A returned value as verify keeps it: tensors as ("tensor", shape, dtype, Kept),
    storages as ("storage", size, Kept), tuples item by item, others as they are."""
    if isinstance(value, Tensor):
        if getattr(backend, "watch", None) is None:  # a device: its bytes as NumPy gives them
            arr = backend.to_numpy(value)
            return ("tensor", arr.shape, str(arr.dtype),
                    Kept(backend, value, None, 0, arr.nbytes, arr.shape, str(arr.dtype)))
        return ("tensor", tuple(value.shape), str(value.dtype),
                Kept(backend, value, value.storage, value.offset,
                     value.offset + value.array.nbytes, tuple(value.shape), value.dtype))
    if backend.is_storage(value):
        storage = value if getattr(backend, "watch", None) is not None else None
        return ("storage", value.nbytes, Kept(backend, value, storage, 0, value.nbytes, None,
                                              None))
    if isinstance(value, tuple):
        return ("tuple", tuple(snapshot_value(backend, v) for v in value))
    return ("value", value)


def term_snapshot(snapshot):
    """What a kept value is made of now (exec/terms.py): each tensor's or storage's term
    signature, tuples item by item, None for anything else or a backend without terms."""
    if snapshot[0] in ("tensor", "storage"):
        return snapshot[-1].terms_now()
    if snapshot[0] == "tuple":
        return tuple(term_snapshot(v) for v in snapshot[1])
    return None


# Kept values are compared this many bytes at a time: a 2 GiB output is never copied whole.
COMPARE_CHUNK = 64 << 20


def first_difference(a: Kept, b: Kept, nbytes: int, fresh: bool):
    """The first byte at which what `a` and `b` hold differs, or None. After the call that
    returned them (`fresh`) both are read; later only those written since (Kept.written),
    an unwritten one that was freed holding what the other held before its first write.
    Also None where a side cannot be read (a device storage)."""
    if not fresh and not (a.written or b.written):
        return None
    for x in range(0, nbytes, COMPARE_CHUNK):
        y = min(nbytes, x + COMPARE_CHUNK)
        ca, cb = a.now(x, y), b.now(x, y)
        if ca is None:
            ca = b.saved[x:y] if b.saved is not None else None
        if cb is None:
            cb = a.saved[x:y] if a.saved is not None else None
        if ca is None or cb is None:
            return None
        if not np.array_equal(ca, cb):
            return x + int(np.flatnonzero(ca != cb)[0])
    return None


def compare_snapshots(a, b, path: str = "", fresh: bool = True):
    """None, or (path, element, original, rewritten, words) for the first difference
    between two kept values (first_difference says which bytes are read when)."""
    if a[0] != b[0]:
        return (path, None, a[0], b[0], f"a {a[0]} vs a {b[0]}")
    if a[0] == "tensor":
        if a[1] != b[1] or a[2] != b[2]:
            return (path, None, f"{a[1]} {a[2]}", f"{b[1]} {b[2]}", "shape or dtype differs")
        dt = numpy_dtype(a[2]) if a[2] != "bool" else np.dtype(np.bool_)
        nbytes = math.prod(a[1]) * dt.itemsize
        first_byte = first_difference(a[3], b[3], nbytes, fresh)
        if first_byte is None:
            return None
        flat = first_byte // max(dt.itemsize, 1)
        index = tuple(int(i) for i in np.unravel_index(flat, a[1])) if a[1] else ()
        return (path, index, element(a[3], b[3], flat, dt), element(b[3], a[3], flat, dt),
                "values differ")
    if a[0] == "storage":
        if a[1] != b[1]:
            return (path, None, f"{a[1]} bytes", f"{b[1]} bytes", "storage sizes differ")
        first = first_difference(a[2], b[2], a[1], fresh)
        if first is None:
            return None
        return (path, (first,), element(a[2], b[2], first, np.dtype(np.uint8)),
                element(b[2], a[2], first, np.dtype(np.uint8)), "storage bytes differ")
    if a[0] == "tuple":
        if len(a[1]) != len(b[1]):
            return (path, None, len(a[1]), len(b[1]), "tuple sizes differ")
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            r = compare_snapshots(x, y, f"{path}[{i}]", fresh)
            if r:
                return r
        return None
    va, vb = a[1], b[1]
    if isinstance(va, HostObject) and isinstance(vb, HostObject):
        return None
    if isinstance(va, DType) or isinstance(vb, DType) or va != vb:
        return None if va == vb else (path, None, va, vb, "values differ")
    return None


def element(kept: Kept, other: Kept, index: int, dt: np.dtype):
    """Element `index` (of dtype `dt`) of what `kept` holds now (see first_difference)."""
    a, b = index * dt.itemsize, (index + 1) * dt.itemsize
    raw = kept.now(a, b)
    if raw is None:
        raw = other.saved[a:b]
    return np.frombuffer(np.ascontiguousarray(raw).tobytes(), dtype=dt)[0]


def upper_bounds(module: ir.Module, names) -> dict[str, int]:
    """The smallest `tir_var_upper_bound` of each symbolic variable, over the functions
    `names` (of `module`) that declare one."""
    out: dict[str, int] = {}
    for name in names:
        f = module.function(name)
        for k, v in (f.upper_bounds() if isinstance(f, ir.Function) else {}).items():
            out[k] = min(out.get(k, v), v)
    return out


def guard_values(guards: list[Guard], uppers: dict[str, int]) -> dict[str, list[int]]:
    """For each variable a guard bounds from above (T, the largest value it allows: 7 for
    `n < 8`): 1, T + 1, T, T + 2 (as many of
    them as are distinct, positive and within the variable's upper bound), the values within
    the bound and above it taking turns."""
    thresholds: dict[str, int] = {}
    for g in guards:
        for name, value in g.bounds.items():
            thresholds.setdefault(name, value)
    out = {}
    for name, t in thresholds.items():
        top = uppers.get(name)
        values = []
        for v in (1, t + 1, t, t + 2):
            if v >= 1 and (top is None or v <= top) and v not in values:
                values.append(v)
        out[name] = values
    return out


def check_guards(guards: list[Guard], launched: list, syms: dict, fname: str,
                 call: int) -> Difference | None:
    """A difference of kind "guard" when a graph a guard bounds ran although a variable was
    above its bound, or (a guard in the function's own blocks, reached on every call) did not
    run although every variable was within: what a guard inverted or with its branches
    swapped does. `launched`: the indices of the graphs the call launched; `syms`: the
    values of the call's symbolic variables."""
    for g in guards:
        if g.function != fname or g.index is None:
            continue
        values = {name: syms.get(name) for name in g.bounds}
        if any(v is None for v in values.values()):
            continue
        within = all(values[name] <= bound for name, bound in g.bounds.items())
        ran = g.index in launched
        if ran == within or (not ran and not g.top_level):
            continue
        at = ", ".join(f"{name} = {values[name]}" for name in g.bounds)
        bound = " and ".join(f"{name} <= {b}" for name, b in g.bounds.items())
        where = "then" if g.graph_in_then else "else"
        if ran:
            why = f"ran at {at}, above its bound: a bounded graph runs only while {bound}"
        else:
            why = f"did not run at {at}, within its bound {bound}: its launches ran eagerly"
        message = (f"graph {g.index} ({g.capture or 'unnamed'}) {why} (its guard reads "
                   f"`{g.text()}`, the graph in its {where}-branch; --capture-symbolic "
                   f"VAR:MAX writes `VAR <= MAX` with the graph in the then-branch)")
        return Difference(fname, call, "", f"{fname}, call {call + 1}", message=message,
                          kind="guard", module="rewritten", loc=g.loc, site="the guarded if")
    return None


def verify(original: ir.Module, rewritten: ir.Module, calls: int = 4, seed: int = 0,
           shapes: dict | None = None, backend_factory=CpuBackend,
           functions: list[str] | None = None, progress=None) -> VerifyReport:
    """`functions`: the public functions to run (None: all; api.public_names checks the
    names). `progress(function, index, total, captures)`: called before each call of a
    function, `index` of `total` (0-based, over all functions' calls in the order they run),
    with the rewritten module's graph captures so far -- a real model's call takes seconds."""
    for which, mod in (("original", original), ("rewritten", rewritten)):
        try:
            runnable_functions(mod)
        except SourceError as e:
            raise ModuleFails(which, e) from None
    names = check_correspondence(original, rewritten)
    if functions is not None:
        names = [n for n in names if n in functions]
    guards = [g for g in find_guards(rewritten) if g.function in names]
    picked = {k: v for k, v in guard_values(guards, upper_bounds(original, names)).items()
              if k not in (shapes or {})}
    shapes = {**picked, **(shapes or {})}
    if picked:
        # Every value once, then the first again: the graph captured at 1 is replayed after
        # the one captured at MAX (a graph keyed without the variable shows at MAX already).
        calls = max(calls, max(len(v) for v in picked.values()) + 1)
    inputs = Inputs(seed, shapes)
    # The original runs with initialization tracking: a module that reads memory nothing
    # wrote has undefined results, and is reported as such rather than compared.
    # On the reference backend both modules keep terms in one table (exec/terms.py): what
    # each output is made of, compared with the bytes.
    table = TermTable() if backend_factory is CpuBackend else None
    ex_a = Executor(original, CpuBackend(track_init=True, terms=table)
                    if backend_factory is CpuBackend else backend_factory())
    ex_b = Executor(rewritten, CpuBackend(terms=table) if backend_factory is CpuBackend
                    else backend_factory())
    term_difference: Difference | None = None
    report = VerifyReport(names, calls, guards=[(g.function, g.index, g.text()) for g in guards])
    results: list = []  # (function, call, original's output, rewritten's): snapshot_value
    weights = Weights(inputs, [ex_a.backend, ex_b.backend])
    graphs_a, graphs_b = ex_a.state(GraphRuntime), ex_b.state(GraphRuntime)
    owners = (("original", OwnershipCheck(original, graphs_a)),
              ("rewritten", OwnershipCheck(rewritten, graphs_b)))
    for call in range(calls):
        for i, name in enumerate(names):
            if progress is not None:
                progress(name, call * len(names) + i, calls * len(names), graphs_b.captures)
            f = original.function(name)
            for _, check in owners:
                check.calling(name, call)
            w_a, w_b = weights.of(f)
            fresh = inputs.fresh(f, call)
            syms = inputs.syms(f, call)
            for k, v in syms.items():
                seen = report.symbolic.setdefault(k, [])
                if v not in seen:
                    seen.append(v)
            args_a = [to_backend(ex_a.backend, v, ("input", name, call, p.name))
                      for p, v in zip(f.params, fresh)] + w_a
            args_b = [to_backend(ex_b.backend, v, ("input", name, call, p.name))
                      for p, v in zip(f.params, fresh)] + w_b
            try:
                out_a = ex_a.call(name, args_a)
            except ExecError as e:
                raise ModuleFails("original", e) from None
            graphs_b.log = []
            try:
                out_b = ex_b.call(name, args_b)
            except ExecError as e:
                finding = owners[1][1].first
                if finding is None or (finding.function, finding.call) != (name, call):
                    raise ModuleFails("rewritten", e) from None
                # A graph replayed with wrong inputs in this very call (a graph keyed without
                # a variable it is given): that, not the failure it leads to, is the cause.
                report.difference = Difference(
                    finding.function, finding.call, finding.output,
                    f"{name}, call {call + 1}", message=f"{finding.message} (the rewritten "
                    f"module then fails: {e.message})", kind="ownership", module="rewritten",
                    loc=finding.loc, site=finding.site, graph_input=finding.graph_input)
                return _finish(report, ex_a, ex_b)
            # Checked after the values: a difference in them is the stronger evidence.
            wrong_path = check_guards(guards, graphs_b.log, syms, name, call)
            owners[0][1].returned(graphs_a, out_a)
            owners[1][1].returned(graphs_b, out_b)
            # Kept, not held: an output nothing else holds is freed after this call's
            # comparison (Kept says why that is exact).
            results.append((name, call, snapshot_value(ex_a.backend, out_a),
                            snapshot_value(ex_b.backend, out_b)))
            for k, (fname, c, a, b) in enumerate(results):
                found = compare_snapshots(a, b, fresh=k == len(results) - 1)
                report.outputs_compared += 1
                if found:
                    path, element, va, vb, words = found
                    report.difference = Difference(fname, c, path, f"{name}, call {call + 1}",
                                                   element, va, vb, words)
                    if graphs_b.replayed_host_calls:
                        loc, symbol = next(iter(graphs_b.replayed_host_calls))
                        d = report.difference
                        d.host_call, d.loc, d.site = symbol, loc, f"'{symbol}'"
                        if not loc.line:
                            # A rewrite in memory (`rewrite --verify`) has no lines of its
                            # own: the call as the original writes it.
                            d.module, d.loc = "original", _call_site(original, symbol)
                    return _finish(report, ex_a, ex_b)
            del out_a, out_b, args_a, args_b
            if wrong_path is not None:
                report.difference = wrong_path
                return _finish(report, ex_a, ex_b)
            if term_difference is None and table is not None:
                term_difference = _term_difference(table, ex_a, ex_b, results,
                                                   f"{name}, call {call + 1}")
    # The first finding in the order of the run, the original's first when both have one at
    # the same call (sorted is stable).
    found = sorted(((c.first.call, names.index(c.first.function), which, c.first)
                    for which, c in owners if c.first is not None), key=lambda t: t[:2])
    if found:
        _, _, which, o = found[0]
        report.difference = Difference(o.function, o.call, o.output,
                                       f"{o.function}, call {o.call + 1}", message=o.message,
                                       kind="ownership", module=which, loc=o.loc, site=o.site,
                                       graph_input=o.graph_input)
    elif term_difference is not None:
        report.difference = term_difference
    return _finish(report, ex_a, ex_b)


def _term_difference(table: TermTable, ex_a: Executor, ex_b: Executor, results: list,
                     after: str) -> Difference | None:
    """The first output returned so far whose bytes agree but whose terms differ, explained
    down to the first kernel argument that diverges (exec/terms.py), or None."""
    for fname, c, a, b in results:
        found = compare_terms(term_snapshot(a), term_snapshot(b))
        if found is None:
            continue
        path, sa, sb = found
        if sa is None or sb is None:
            continue
        words, loc = explain(table, sa, sb, ex_a.backend.term_sites,
                             ex_b.backend.term_sites)
        return Difference(fname, c, path, after, message=words, kind="terms",
                          module="rewritten", loc=loc or NO_LOC,
                          site="the kernel whose argument differs")
    return None


def _call_site(mod: ir.Module, symbol: str) -> Loc:
    """Where `mod` first calls the external function `symbol` (directly, or through a
    PrimFunc whose body calls it), or NO_LOC."""
    prims = {f.name for f in mod.functions if isinstance(f, ir.PrimFunc)
             and any(c.symbol == symbol for c in body_calls(f.body))}
    for f in mod.relax_functions():
        for b in ir.nested_bindings(f.blocks):
            v = b.value
            if type(v) is ir.Call and (
                    (isinstance(v.op, ir.ExternFunc) and v.op.name == symbol) or
                    (isinstance(v.op, ir.GlobalVarRef) and v.op.name in prims)):
                return b.loc
    return NO_LOC


def _finish(report: VerifyReport, ex_a: Executor, ex_b: Executor) -> VerifyReport:
    report.warnings = [("original", loc, m) for loc, m in ex_a.warnings] + \
        [("rewritten", loc, m) for loc, m in ex_b.warnings]
    report.captures = ex_b.state(GraphRuntime).captures
    report.replays = ex_b.state(GraphRuntime).replays
    report.launches_original = getattr(ex_a.backend, "launch_count", 0)
    report.launches_rewritten = getattr(ex_b.backend, "launch_count", 0)
    return report
