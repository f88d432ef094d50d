"""The abstract trace of a public function, and what follows from it.

`trace` interprets one public function abstractly, inlining the graphs it launches, into the
list of its kernel launches, each with the byte ranges it reads and writes (regions of
storages, of parameters, of fresh allocations). `reaching` gives, for every byte a launch
reads, which launch wrote it last (its reaching definition); `first_divergent_launch`
compares two traces by those definitions, which is how a mutant is proved wrong and a control
right without running either. The layers (`layer_for`, `at_position`) place a launch early,
in the middle or late in the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cudagraph_cli import ir
from cudagraph_cli.exec.backend import numpy_dtype
from cudagraph_cli.exec.interpreter import storages_sized_in_elements
from cudagraph_cli.exec.kernels import prim_func_spec
from cudagraph_cli.passes.capture_safety import body_calls

LAYER = re.compile(r"layers_(\d+)_")


@dataclass
class Tensor:
    base: tuple  # ("slot", alloc index, k) / ("storage", n) / ("param", i, ...) / ("fresh", n)
    lo: int
    hi: int
    name: str  # the name of the var it was first bound to (weights: their names)


@dataclass
class Storage:
    base: tuple
    nbytes: int


@dataclass
class Object:
    base: tuple


@dataclass
class Event:
    index: int
    kernel: str
    reads: list  # Tensor
    writes: list  # Tensor
    objects: list  # Object: objects given to the call (host state)
    function: str  # the function whose body has the binding
    binding: int  # its position in the function's top-level bindings
    launch: tuple | None  # (outer function, binding position, graph index) inside a graph
    layer: int | None = None
    names: tuple = ()  # the names of the vars it reads, as the function writes them
    # An argument the trace could not follow, or a kernel that calls an external function
    # (host state): no mutant or control is built on it.
    unknown: bool = False


@dataclass
class Trace:
    events: list
    outputs: list  # Tensor leaves of the returned value
    per_call: set  # bases of the inputs that are fresh on every call (before num_input)


def top_bindings(f: ir.Function) -> list:
    return [b for block in f.blocks for b in block.bindings]


def tensor_nbytes(s) -> int | None:
    if not isinstance(s, ir.TensorSInfo) or s.shape is None or not s.dtype:
        return None
    n = numpy_dtype(s.dtype).itemsize
    for d in s.shape:
        if type(d) is not ir.IntImm:
            return None
        n *= d.value
    return n


def shape_nbytes(shape, dtype) -> int | None:
    if type(shape) is not ir.ShapeExpr or type(dtype) is not ir.DataTypeImm:
        return None
    n = numpy_dtype(dtype.value).itemsize
    for d in shape.values:
        if type(d) is not ir.IntImm:
            return None
        n *= d.value
    return n


def const_int(e) -> int | None:
    if type(e) is ir.PrimValue and type(e.value) is ir.IntImm:
        return e.value.value
    return None


def leaves(v):
    if isinstance(v, tuple):
        for x in v:
            yield from leaves(x)
    else:
        yield v


class Tracer:
    def __init__(self, module: ir.Module):
        self.module = module
        self.in_elements = storages_sized_in_elements(module)
        self.events: list[Event] = []
        self.fresh = 0
        self.slots: dict[int, tuple] = {}

    def param_value(self, p: ir.Var, path: tuple, name: str):
        s = p.sinfo if isinstance(p, ir.Var) else p
        if isinstance(s, ir.TupleSInfo):
            return tuple(self.param_value(x, path + (i,), f"{name}[{i}]")
                         for i, x in enumerate(s.fields))
        if isinstance(s, ir.TensorSInfo):
            n = tensor_nbytes(s)
            return Tensor(("param",) + path, 0, n if n is not None else 1 << 62, name)
        if isinstance(s, ir.ObjectSInfo):
            return Object(("param",) + path)
        return None

    def run(self, fname: str) -> Trace:
        f = self.module.function(fname)
        env = {p: self.param_value(p, (i,), p.name) for i, p in enumerate(f.params)}
        per_call = {("param", i) for i in range(f.num_input)}
        self.body(f, env, None)
        out = self.eval(f.body, env)
        return Trace(self.events, [t for t in leaves(out) if isinstance(t, Tensor)], per_call)

    def body(self, f: ir.Function, env: dict, launch):
        for pos, b in enumerate(top_bindings(f)):
            value = b.value
            if type(value) is ir.If:
                # A bounded graph: the launch in the then-branch (the else-branch is the
                # same launches, eager); its result is the branch's.
                env[b.var] = self.branch(value.true_branch, f, env, pos, launch)
                continue
            env[b.var] = self.binding(b, f, env, pos, launch)
        return env

    def branch(self, seq: ir.SeqExpr, f, env, pos, launch):
        for block in seq.blocks:
            for b in block.bindings:
                env[b.var] = self.binding(b, f, env, pos, launch)
        return self.eval(seq.body, env)

    def eval(self, e, env):
        t = type(e)
        if t is ir.Var:
            return env.get(e)
        if t is ir.Tuple:
            return tuple(self.eval(x, env) for x in e.fields)
        if t is ir.TupleGetItem:
            v = self.eval(e.tuple_value, env)
            return v[e.index] if isinstance(v, tuple) and e.index < len(v) else None
        return None

    def binding(self, b, f: ir.Function, env: dict, pos: int, launch):
        v = b.value
        if type(v) is not ir.Call:
            x = self.eval(v, env)
            if isinstance(x, Tensor) and type(v) is ir.TupleGetItem and x.base[0] == "param":
                x = Tensor(x.base, x.lo, x.hi, b.var.name)  # a weight, by its name
            return x
        op = v.op
        builtin = ir.builtin_called(v)
        if builtin == ir.GET_CACHED_ALLOC:
            index = const_int(v.args[1].fields[1])
            alloc = self.module.function(v.args[1].fields[0].name)
            if index not in self.slots:
                sizes = []
                for ab in top_bindings(alloc):
                    if type(ab.value) is ir.Call and ab.value.op == ir.Op(
                            "relax.memory.alloc_storage"):
                        sizes.append(self.storage_bytes(ab.value))
                self.slots[index] = tuple(Storage(("slot", index, k), n)
                                          for k, n in enumerate(sizes))
            return self.slots[index]
        if builtin == ir.RUN_OR_CAPTURE:
            fields = v.args[1].fields
            capture = self.module.function(fields[0].name)
            args = [self.eval(a, env) for a in fields[1].fields]
            inner = {p: a for p, a in zip(capture.params, args)}
            for p, a in zip(capture.params, fields[1].fields):
                x = inner[p]
                if isinstance(x, Tensor) and type(a) is ir.Var:
                    inner[p] = x  # keeps the outer name (weights: their layer)
            self.body(capture, inner, (f.name, pos, const_int(fields[2])))
            return self.eval(capture.body, inner)
        if type(op) is ir.Op:
            name = op.name
            if name == "relax.memory.alloc_storage":
                self.fresh += 1
                return Storage(("storage", self.fresh), self.storage_bytes(v))
            if name == "relax.memory.alloc_tensor":
                st = self.eval(v.args[0], env)
                off = const_int(v.args[1]) or 0
                n = shape_nbytes(v.args[2], v.args[3])
                if isinstance(st, Storage):
                    # A symbolic size: the rest of the storage, to be safe.
                    return Tensor(st.base, off, off + n if n is not None else 1 << 62,
                                  b.var.name)
                return None
            if name == "relax.builtin.alloc_tensor":
                self.fresh += 1
                n = shape_nbytes(v.args[0], v.args[1]) or 1 << 62
                return Tensor(("fresh", self.fresh), 0, n, b.var.name)
            if name in ("relax.reshape", "relax.memory.view",
                        "relax.memory.ensure_zero_offset"):
                return self.eval(v.args[0], env)
            if name == "relax.call_builtin_with_ctx" and builtin is not None:
                values = [self.eval(a, env) for a in v.args[1].fields] \
                    if type(v.args[1]) is ir.Tuple else []
                return self.packed(builtin, values, v, b, f, pos, launch, env)
            return None
        if type(op) is ir.GlobalVarRef:
            callee = self.module.function(op.name)
            values = [self.eval(a, env) for a in v.args]
            if isinstance(callee, ir.PrimFunc):
                spec = prim_func_spec(callee)
                flat = [x for x in leaves(tuple(values))]
                tensors = [x for x in flat if isinstance(x, Tensor)]
                # prim_func_spec indexes the kernel's parameters; those are the leaves
                # given, scalars included.
                writes = [flat[i] for i in spec.outputs if i < len(flat)
                          and isinstance(flat[i], Tensor)]
                reads = [t for t in tensors if all(t is not w for w in writes)]
                self.add(op.name, reads, writes, [x for x in flat if isinstance(x, Object)],
                         f, pos, launch, v, env)
                if any(x is None for x in flat) or spec.opaque or body_calls(callee.body):
                    self.events[-1].unknown = True
                return ()
            return None
        if type(op) is ir.ExternFunc:
            values = [self.eval(a, env) for a in v.args]
            return self.packed(op.name, values, v, b, f, pos, launch, env)
        return None

    def packed(self, name, values, call, b, f, pos, launch, env):
        if name in ("vm.builtin.reshape", "vm.builtin.ensure_zero_offset"):
            return values[0] if values else None  # a view: reads no byte
        if name in ("vm.builtin.shape_of", "vm.builtin.null_value"):
            return None
        flat = list(leaves(tuple(values)))
        n_events = len(self.events)
        tensors = [x for x in flat if isinstance(x, Tensor)]
        objects = [x for x in flat if isinstance(x, Object)]
        ret = call.sinfo_args[0] if call.sinfo_args else None
        if ret is not None and any(isinstance(s, ir.TensorSInfo) for s in
                                   (ret.fields if isinstance(ret, ir.TupleSInfo) else (ret,))):
            self.fresh += 1
            n = tensor_nbytes(ret) or 1
            out = Tensor(("fresh", self.fresh), 0, n, b.var.name)
            self.add(name, tensors, [out], objects, f, pos, launch, call, env)
            return out
        if tensors:
            self.add(name, tensors[:-1], tensors[-1:], objects, f, pos, launch, call, env)
        for e in self.events[n_events:]:
            e.unknown = True  # a packed call: what it reads and keeps is its own
        if objects:
            return Object(("result", len(self.events)))
        return None

    def add(self, kernel, reads, writes, objects, f, pos, launch, call, env):
        names = tuple(t.name for t in reads)
        self.events.append(Event(len(self.events), kernel, list(reads), list(writes),
                                 list(objects), f.name, pos, launch, names=names))

    def storage_bytes(self, call: ir.Call) -> int:
        size = ir.storage_size(call) or 0
        if self.in_elements and len(call.args) > 3 and type(call.args[3]) is ir.DataTypeImm:
            size *= numpy_dtype(call.args[3].value).itemsize
        return size


def trace(module: ir.Module, fname: str) -> Trace:
    t = Tracer(module).run(fname)
    layer = None
    for e in t.events:
        found = [int(m.group(1)) for n in e.names for m in [LAYER.search(n)] if m]
        if found:
            layer = found[0]
        e.layer = layer
    return t


def overlap(a: Tensor, b: Tensor) -> bool:
    return a.base == b.base and a.lo < b.hi and b.lo < a.hi


def reaching(t: Trace) -> list[list[frozenset]]:
    """For each event, for each tensor it reads: the set of (writer event, lo, hi) of the
    bytes it reads (writer -1: the value at entry)."""
    written: dict[tuple, list] = {}  # base -> [(lo, hi, writer)], later ones last
    out = []
    for e in t.events:
        sets = []
        for r in e.reads:
            sets.append(frozenset(cover(written.get(r.base, []), r)))
        out.append(sets)
        for w in e.writes:
            written.setdefault(w.base, []).append((w.lo, w.hi, e.index))
    final = []
    for o in t.outputs:
        final.append(frozenset(cover(written.get(o.base, []), o)))
    out.append(final)
    return out


def cover(writes: list, r: Tensor):
    """(writer, lo, hi) of the last write of each byte range of r (relative to r)."""
    pieces = [(r.lo, r.hi)]
    found = []
    for lo, hi, w in reversed(writes):
        rest = []
        for a, b in pieces:
            x, y = max(a, lo), min(b, hi)
            if x < y:
                found.append((w, x - r.lo, y - r.lo))
                if a < x:
                    rest.append((a, x))
                if y < b:
                    rest.append((y, b))
            else:
                rest.append((a, b))
        pieces = rest
        if not pieces:
            break
    found.extend((-1, a - r.lo, b - r.lo) for a, b in pieces)
    return found


# ---- facts about a trace ----------------------------------------------------------------------


def tainted(t: Trace) -> set[int]:
    """The launches whose result depends on the call's fresh inputs or on an object's state:
    what a stale copy would get wrong (a launch of weights only computes the same every call)."""
    sets = reaching(t)
    out: set[int] = set()
    for e in t.events:
        if e.objects or any(r.base in t.per_call for r in e.reads) or any(
                w in out for s in sets[e.index] for w, _, _ in s):
            out.add(e.index)
    return out


def useful(t: Trace) -> set[int]:
    """The launches whose writes reach an output (through other launches)."""
    sets = reaching(t)
    out: set[int] = set()
    todo = [w for s in sets[-1] for w, _, _ in s if w >= 0]
    while todo:
        i = todo.pop()
        if i in out:
            continue
        out.add(i)
        todo.extend(w for s in sets[i] for w, _, _ in s if w >= 0)
    return out


def first_divergent_launch(a: Trace, b: Trace, order: list[int | None] | None = None):
    """The first launch of b (or "outputs") whose reaching definitions differ from those of
    the launch of a it stands for (`order[j]`: a's index of b's launch j; None: the same
    index), counting only launches of b whose result reaches b's outputs. None: none."""
    ra, rb = reaching(a), reaching(b)
    if order is None:
        if len(a.events) != len(b.events):
            raise ValueError("launch lists differ: give the order")
        order = list(range(len(b.events)))
    live = useful(b)
    back = {j: i for j, i in enumerate(order)}
    for j in range(len(rb)):
        last = j == len(rb) - 1
        if not last and j not in live:
            continue
        i = len(ra) - 1 if last else back[j]
        if i is None:
            continue
        got = [frozenset((back.get(w, -2) if w >= 0 else -1, lo, hi) for w, lo, hi in s)
               for s in rb[j]]
        if ra[i] != got:
            return "outputs" if last else b.events[j]
    return None


def position_of(layer, layers: list) -> str | None:
    if layer is None or not layers:
        return None
    if layer == layers[0]:
        return "early"
    if layer == layers[len(layers) // 2]:
        return "middle"
    if layer == layers[-1]:
        return "late"
    return None


def layer_for(t: Trace, position: str):
    layers = sorted({e.layer for e in t.events if e.layer is not None})
    if not layers:
        return None, layers
    return {"early": layers[0], "middle": layers[len(layers) // 2],
            "late": layers[-1]}[position], layers


def at_position(t: Trace, candidates: list, position: str) -> list:
    """The candidates (events, or tuples starting with one) at `position`, in the order to try:
    those of the position's layer; in a model without layers, all of them from the first
    (early), from the middle on (middle) or from the last backwards (late)."""
    target, layers = layer_for(t, position)
    if layers:
        return [c for c in candidates if (c[0] if isinstance(c, tuple) else c).layer == target]
    mid = len(candidates) // 2
    return {"early": candidates, "middle": candidates[mid:] + candidates[:mid],
            "late": list(reversed(candidates))}[position]
