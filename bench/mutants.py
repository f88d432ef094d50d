"""Rewrites that are wrong by construction, and rewrites that are right (issue 31, item 4).

A mutation suite for `cgraph verify`. It starts from a correct pair, ORIGINAL (a module before
the CUDA-graph rewrite) and REWRITTEN (cgraph's rewrite of it, `cudagraph_cli.api.rewrite`,
printed and read back), and makes:

* mutants: modules that compute something else than ORIGINAL, each with its class, its
  position (early / middle / late layer), the function and binding it changes, and why it is
  wrong (`Mutant.proof`);
* controls: modules that compute what ORIGINAL computes (other correct rewrites, and REWRITTEN
  with two independent launches swapped), which verify must find equal.

Every module is printed and read back (`api.loads`: parsed and checked well formed), so a mutant
is a text cgraph accepts, and the suite works on what a user would hand verify.

How a mutant is known to be wrong, without running it: `trace` interprets one public function
abstractly, inlining the graphs it launches, into the list of its kernel launches, each with the
byte ranges it reads and writes (regions of storages, of parameters, of fresh allocations).
From that list follows, for every byte a launch reads, which launch wrote it last (its
reaching definition). A kernel is treated as an unknown function of what it reads, so a mutant
whose reaching definitions differ from REWRITTEN's at a launch whose result flows on computes,
for some kernel bodies and inputs, another value. The kernel-level classes are proved that way
(`first_difference`); the graph-level classes by what a replay does (it reads the addresses
and the host state of its capture): see each builder. A control that swaps two launches is proved
independent the same way: disjoint regions, no read of what the other writes.

Layers: a launch's layer is N of the first `layers_N_` in the names of the weights it reads
(inside a graph, through the names the launch passes for the capture's parameters: a capture
function shared by several layers is one layer per launch); a launch that reads no weight
belongs to the layer of the launch before it. Early = the first layer, middle = the middle
one, late = the last; a model without `layers_N_` weights (the convnets, the MLP) has its
launches split in three by order instead.

Wherever a mutation would change a capture function that several launches share, the capture
function is copied (`NAME_mutant`) and only the chosen launch calls the copy: the mutant is
wrong at that layer only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cudagraph_cli import api, ir
from cudagraph_cli.exec.backend import numpy_dtype
from cudagraph_cli.exec.interpreter import storages_sized_in_elements
from cudagraph_cli.exec.kernels import prim_func_spec
from cudagraph_cli.passes.capture_safety import body_calls

CLASSES = (
    "drop",            # a kernel launch dropped
    "reorder",         # a producer moved after its reader
    "wrong-arg",       # a launch reads another live tensor of the same shape and dtype
    "overlap-offset",  # an alloc_tensor moved onto a live tensor (another storage, an offset)
    "overlap-slot",    # two live storages take the same cuda_graph_alloc slot
    "storage-twice",   # one storage passed to a graph for two of its storage parameters
    "frozen-input",    # a launch reading a per-call input moved into a graph
    "frozen-object",   # a call given the KV cache (an object) moved into a graph
    "output-index",    # a graph launch's output taken at another index
    "graph-owned-return",  # a returned value allocated in graph-owned storage
    "guard-inverted",  # --capture-symbolic VAR:MAX: the bound's test inverted
    "graph-unkeyed",   # a graph keyed by VAR launched without VAR in its key
)
POSITIONS = ("early", "middle", "late")

LAYER = re.compile(r"layers_(\d+)_")


@dataclass
class Mutant:
    model: str
    function: str  # the public function that runs it
    kind: str  # one of CLASSES
    position: str  # early / middle / late
    layer: int | None
    site: str  # which binding, in words
    proof: str  # why it is wrong
    module: ir.Module = field(repr=False)


@dataclass
class Control:
    model: str
    function: str | None  # None: every public function
    name: str
    proof: str
    module: ir.Module = field(repr=False)
    original: ir.Module | None = field(default=None, repr=False)  # None: the model's


class NotBuildable(Exception):
    """This class cannot be built at this position of this model (the message says why)."""


# ---- the abstract trace -----------------------------------------------------------------------


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


# ---- editing modules --------------------------------------------------------------------------


def reparsed(module: ir.Module, name: str) -> ir.Module:
    """The module as text, read back: what verify gets from a file (parse + well-formed)."""
    return api.loads(api.print_module(module), name=name)


def with_function(module: ir.Module, f: ir.Function, *, after: str | None = None):
    """`module` with `f` in place of its namesake, or added after the function `after`."""
    fs = list(module.functions)
    names = [g.name for g in fs]
    if f.name in names:
        fs[names.index(f.name)] = f
    else:
        fs.insert(names.index(after) if after in names else len(fs), f)
    return ir.replace(module, functions=tuple(fs))


def edit_bindings(f: ir.Function, edits: dict) -> ir.Function:
    """f with its top-level binding at position p replaced by the list edits[p]."""
    blocks, pos = [], 0
    for block in f.blocks:
        new = []
        for b in block.bindings:
            new.extend(edits.get(pos, [b]))
            pos += 1
        blocks.append(ir.replace(block, bindings=tuple(new)))
    return ir.replace(f, blocks=tuple(blocks))


def replace_args(call: ir.Call, args) -> ir.Call:
    return ir.replace(call, args=tuple(args))


def graph_call_parts(b) -> tuple | None:
    """(capture name, args tuple expr, index expr, rest) of a run_or_capture binding."""
    v = b.value
    if ir.builtin_called(v) != ir.RUN_OR_CAPTURE:
        return None
    return v.args[1].fields


def retarget(module: ir.Module, fname: str, pos: int, capture: ir.Function,
             extra_args=()) -> ir.Module:
    """The launch at (fname, pos) calls `capture` (added to the module) with `extra_args`
    appended to its arguments."""
    f = module.function(fname)
    b = top_bindings(f)[pos]
    v = b.value
    fields = v.args[1].fields
    inner = ir.Tuple(tuple(fields[1].fields) + tuple(extra_args))
    new_fields = (ir.GlobalVarRef(capture.name), inner) + tuple(fields[2:])
    call = replace_args(v, (v.args[0], ir.Tuple(new_fields)))
    f = edit_bindings(f, {pos: [ir.replace(b, value=call)]})
    module = with_function(module, capture, after=fields[0].name)
    return with_function(module, f)


def clone_capture(module: ir.Module, name: str, body_edit, new_params=()) -> ir.Function:
    """A copy of the capture function `name`, `NAME_mutant`, with `body_edit(f)` applied and
    `new_params` appended to its parameters."""
    f = module.function(name)
    g = body_edit(f)
    return ir.replace(g, name=f"{name}_mutant", params=tuple(f.params) + tuple(new_params))


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


def first_difference(a: Trace, b: Trace, order: list[int | None] | None = None):
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


# ---- the mutants ------------------------------------------------------------------------------


class Builder:
    """Makes the mutants and controls of one model's function."""

    def __init__(self, model: str, original: ir.Module, rewritten: ir.Module, function: str):
        self.model = model
        self.original = original
        self.rewritten = rewritten
        self.function = function
        self.trace = trace(rewritten, function)
        self.tainted = tainted(self.trace)
        self.useful = useful(self.trace)
        self.sets = reaching(self.trace)
        self.tries = 0

    # -- helpers

    def binding(self, module, fname, pos):
        return top_bindings(module.function(fname))[pos]

    def edit_body(self, module, e: Event, edit) -> ir.Module:
        """`edit(function)` applied where the launch e is: its function, or (inside a graph) a
        copy of its capture that only e's launch calls."""
        f = module.function(e.function)
        if e.launch is None:
            return with_function(module, edit(f))
        clone = ir.replace(edit(f), name=f"{f.name}_mutant")
        return retarget(module, e.launch[0], e.launch[1], clone)

    def finish(self, kind, position, e_or_layer, site, proof, module) -> Mutant:
        layer = e_or_layer.layer if isinstance(e_or_layer, Event) else e_or_layer
        text_name = f"{self.model}.{kind}.{position}.relax"
        return Mutant(self.model, self.function, kind, position, layer, site, proof,
                      reparsed(module, text_name))

    def where(self, e: Event) -> str:
        inside = f" in graph {e.launch[2]} ({e.function})" if e.launch else ""
        return f"{e.kernel} (layer {e.layer}{inside})"

    def proved(self, module, order=None):
        self.tries += 1
        return first_difference(self.trace, trace(module, self.function), order)

    def readers_of(self, e: Event) -> list[Event]:
        return [x for x in self.trace.events[e.index + 1:]
                if any(w == e.index for s in self.sets[x.index] for w, _, _ in s)]

    def kernel_events(self, prim_only=True) -> list[Event]:
        out = []
        for e in self.trace.events:
            callee = self.rewritten.function(e.kernel)
            if prim_only and not isinstance(callee, ir.PrimFunc):
                continue
            out.append(e)
        return out

    # -- kernel-level classes

    def drop(self, position):
        cands = [e for e in self.kernel_events(False) if e.index in self.tainted
                 and e.index in self.useful and self.readers_of(e) and not e.objects]
        for e in at_position(self.trace, cands, position):
            if self.used_in(e.function, self.binding(self.rewritten, e.function,
                                                     e.binding).var):
                continue  # the launch's result is a var read later: dropping it breaks
            m = self.edit_body(self.rewritten, e, lambda f: edit_bindings(f, {e.binding: []}))
            order = [i for i in range(len(self.trace.events)) if i != e.index]
            found = self.proved(m, order)
            if found is not None:
                return self.finish("drop", position, e, f"{self.where(e)} dropped",
                                   f"its readers now read what was there before "
                                   f"({self.describe(found)})", m)
        raise NotBuildable("no launch of fresh data whose result is read")

    def describe(self, found) -> str:
        return "the outputs" if found == "outputs" else \
            f"first at launch {found.index}, {found.kernel}, layer {found.layer}"

    def reorder(self, position):
        cands = []
        for e in self.kernel_events(False):
            if e.index not in self.tainted or e.objects:
                continue
            for r in self.readers_of(e):
                if (r.function, r.launch) == (e.function, e.launch) and r.index in self.useful:
                    cands.append((e, r))
                    break
        for e, r in at_position(self.trace, cands, position):
            f = self.binding(self.rewritten, e.function, e.binding)
            if f.var.name != "_" and not getattr(f, "bare", False):
                continue
            p_binding = top_bindings(self.rewritten.function(e.function))[e.binding]
            r_binding = top_bindings(self.rewritten.function(e.function))[r.binding]
            m = self.edit_body(self.rewritten, e, lambda g: edit_bindings(
                g, {e.binding: [], r.binding: [r_binding, p_binding]}))
            order = [i for i in range(len(self.trace.events)) if i != e.index]
            order.insert(order.index(r.index) + 1, e.index)
            found = self.proved(m, order)
            if found is not None:
                return self.finish("reorder", position, e, f"{self.where(e)} moved after its "
                                   f"reader {r.kernel}", f"{r.kernel} reads the bytes before "
                                   f"{e.kernel} writes them ({self.describe(found)})", m)
        raise NotBuildable("no launch of fresh data read later in the same body")

    def scope(self, fname: str, pos: int) -> list[ir.Var]:
        """The vars defined before the binding at `pos` of `fname`: parameters, bindings."""
        f = self.rewritten.function(fname)
        return list(f.params) + [b.var for b in top_bindings(f)[:pos]]

    def wrong_arg(self, position):
        cands = [e for e in self.kernel_events() if e.index in self.useful and e.reads]
        for e in at_position(self.trace, cands, position):
            b = self.binding(self.rewritten, e.function, e.binding)
            call = b.value
            spec = prim_func_spec(self.rewritten.function(e.kernel))
            for i, a in enumerate(call.args):
                if type(a) is not ir.Var or not isinstance(a.sinfo, ir.TensorSInfo) or \
                        i in spec.outputs:
                    continue
                own = {w.name for w in e.writes}
                for y in self.scope(e.function, e.binding):
                    if y is a or y.sinfo != a.sinfo or y.name == "_" or y.name in own:
                        continue
                    args = list(call.args)
                    args[i] = y
                    new = ir.replace(b, value=replace_args(call, args))
                    m = self.edit_body(self.rewritten, e,
                                       lambda f: edit_bindings(f, {e.binding: [new]}))
                    found = self.proved(m)
                    if found is not None:
                        return self.finish(
                            "wrong-arg", position, e,
                            f"{self.where(e)} reads {y.name} for {a.name}",
                            f"another tensor of the same shape and dtype "
                            f"({self.describe(found)})", m)
                    if self.tries > 400:
                        raise NotBuildable("gave up")
        raise NotBuildable("no argument with another tensor of its type in scope")

    # -- storage classes

    def alloc_binding(self, f: ir.Function, name: str):
        """The position and binding of `R.memory.alloc_tensor` bound to `name` in f."""
        for pos, b in enumerate(top_bindings(f)):
            if b.var.name == name and type(b.value) is ir.Call and \
                    b.value.op == ir.Op("relax.memory.alloc_tensor"):
                return pos, b
        return None, None

    def overlap_offset(self, position):
        cands = [e for e in self.kernel_events(False) if e.index in self.useful and e.writes]
        for e in at_position(self.trace, cands, position):
            f = self.rewritten.function(e.function)
            pos_a, a = self.alloc_binding(f, e.writes[0].name)
            if a is None:
                continue
            need = e.writes[0].hi - e.writes[0].lo
            # Live tensors: allocated in the same body before, read after e.
            for pos_y, y in enumerate(top_bindings(f)[:pos_a]):
                if type(y.value) is not ir.Call or y.value.op != ir.Op(
                        "relax.memory.alloc_tensor"):
                    continue
                if y.value.args[0] is a.value.args[0] and \
                        const_int(y.value.args[1]) == const_int(a.value.args[1]):
                    continue  # A's own place
                size = shape_nbytes(y.value.args[2], y.value.args[3])
                if size is None or size < need:
                    continue
                new = ir.replace(a, value=replace_args(
                    a.value, (y.value.args[0], y.value.args[1]) + tuple(a.value.args[2:])))
                m = self.edit_body(self.rewritten, e,
                                   lambda g: edit_bindings(g, {pos_a: [new]}))
                found = self.proved(m)
                if found is not None:
                    return self.finish(
                        "overlap-offset", position, e,
                        f"{a.var.name} (written by {self.where(e)}) placed where "
                        f"{y.var.name} is ({y.value.args[0].name}, offset "
                        f"{const_int(y.value.args[1])})",
                        f"its bytes and a tensor live at the same time overlap "
                        f"({self.describe(found)})", m)
                if self.tries > 400:
                    raise NotBuildable("gave up")
        raise NotBuildable("no live tensor of a body that an output of this layer fits on")

    def graph_launches(self) -> list[tuple[Event, int]]:
        """(first launch inside, binding position) of each graph launch of the function."""
        seen, out = set(), []
        for e in self.trace.events:
            if e.launch is not None and e.launch not in seen and e.launch[0] == self.function:
                seen.add(e.launch)
                out.append((e, e.launch[1]))
        return out

    def storage_twice(self, position):
        f = self.rewritten.function(self.function)
        env = self.storage_vars()
        for e, pos in at_position(self.trace, self.graph_launches(), position):
            b = top_bindings(f)[pos]
            fields = graph_call_parts(b)
            args = list(fields[1].fields)
            stores = [(i, a) for i, a in enumerate(args) if a in env]
            for i, a in stores:
                for j, c in stores:
                    if c is a or env[c].nbytes < env[a].nbytes:
                        continue
                    args2 = list(args)
                    args2[i] = c
                    call = replace_args(b.value, (b.value.args[0], ir.Tuple(
                        (fields[0], ir.Tuple(args2)) + tuple(fields[2:]))))
                    m = with_function(self.rewritten, edit_bindings(
                        f, {pos: [ir.replace(b, value=call)]}))
                    found = self.proved(m)
                    if found is not None:
                        return self.finish(
                            "storage-twice", position, e,
                            f"graph {e.launch[2]} ({e.function}) given {c.name} for "
                            f"{a.name}", f"two of its storages are one "
                            f"({self.describe(found)})", m)
        raise NotBuildable("no graph launch with two storages that can be one")

    def storage_vars(self) -> dict:
        """The vars of the function bound to a graph-owned storage -> its Storage."""
        f = self.rewritten.function(self.function)
        tracer = Tracer(self.rewritten)
        env = {p: tracer.param_value(p, (i,), p.name) for i, p in enumerate(f.params)}
        out = {}
        for pos, b in enumerate(top_bindings(f)):
            if type(b.value) is ir.If:
                continue
            if type(b.value) is ir.Call and ir.builtin_called(b.value) == ir.RUN_OR_CAPTURE:
                continue  # no need to run the graphs to find the storages
            try:
                env[b.var] = tracer.binding(b, f, env, pos, None)
            except Exception:
                env[b.var] = None
            if isinstance(env[b.var], Storage):
                out[b.var] = env[b.var]
        return out

    def overlap_slot(self, position):
        """Two storages of the allocation function made one: `storageX = gv[k]` reads another
        slot that is as large. Wrong wherever the two hold live tensors at once: the position
        is where the first launch reads other bytes."""
        f = self.rewritten.function(self.function)
        env = self.storage_vars()
        made = []
        for pos, b in enumerate(top_bindings(f)):
            if b.var not in env or type(b.value) is not ir.TupleGetItem:
                continue
            for k in range(8):
                if k == b.value.index:
                    continue
                alt = self.slot_size(b.value.tuple_value, k, env)
                if alt is None or alt < env[b.var].nbytes:
                    continue
                new = ir.replace(b, value=ir.TupleGetItem(b.value.tuple_value, k))
                m = with_function(self.rewritten, edit_bindings(f, {pos: [new]}))
                found = self.proved(m)
                if found is None:
                    continue
                layer = None if found == "outputs" else found.layer
                _, layers = layer_for(self.trace, "early")
                if position_of(layer, layers) == position or (
                        not layers and position == "early"):
                    return self.finish("overlap-slot", position, layer,
                                       f"{b.var.name} = {b.value.tuple_value.name}[{k}] "
                                       f"(was [{b.value.index}])",
                                       f"two live storages in one slot "
                                       f"({self.describe(found)})", m)
                made.append(layer)
        raise NotBuildable(f"a slot shared shows first at layers {sorted(set(map(str, made)))}")

    def slot_size(self, tuple_var, k, env):
        for v, st in env.items():
            if st.base[0] == "slot" and st.base[2] == k:
                return st.nbytes
        alloc = next((b for b in top_bindings(self.rewritten.function(self.function))
                      if b.var is tuple_var), None)
        if alloc is None or ir.builtin_called(alloc.value) != ir.GET_CACHED_ALLOC:
            return None
        fn = self.rewritten.function(alloc.value.args[1].fields[0].name)
        sizes = [Tracer(self.rewritten).storage_bytes(ab.value) for ab in top_bindings(fn)
                 if type(ab.value) is ir.Call and ab.value.op == ir.Op(
                     "relax.memory.alloc_storage")]
        return sizes[k] if k < len(sizes) else None

    # -- graph-level classes

    def independent(self, e: Event, between: list[Event]) -> bool:
        return all(not any(overlap(w, x) for w in e.writes for x in o.reads + o.writes) and
                   not any(overlap(r, w) for r in e.reads for w in o.writes) for o in between)

    def move_into_graph(self, e: Event):
        """e (an eager launch of the function) moved into the graph launched right after it
        (first in it) or right before it (last in it): a module, and the graph index."""
        f = self.rewritten.function(self.function)
        bs = top_bindings(f)
        b = bs[e.binding]
        if self.used(b.var):
            return None  # its result (a new cache object) is read eagerly: it stays there
        ev = self.trace.events
        after = next((x for x in ev[e.index + 1:] if x.launch is not None
                      and x.launch[0] == self.function), None)
        before = next((x for x in reversed(ev[:e.index]) if x.launch is not None
                       and x.launch[0] == self.function), None)
        args = [a for a in dict.fromkeys(x for x in ir.walk(b.value) if type(x) is ir.Var)]
        if after is not None and self.independent(e, ev[e.index + 1:after.index]) and \
                type(bs[after.launch[1]].value) is ir.Call:
            params = [ir.Var(f"{a.name}_frozen", a.sinfo) for a in args]
            inner = self.substitute(b, dict(zip(args, params)))
            capture = self.rewritten.function(graph_call_parts(bs[after.launch[1]])[0].name)
            clone = clone_capture(self.rewritten, capture.name,
                                  lambda g: self.prepend(g, inner), params)
            m = retarget(self.rewritten, self.function, after.launch[1], clone, args)
            m = with_function(m, edit_bindings(m.function(self.function), {e.binding: []}))
            return m, after.launch[2]
        if before is None or not self.independent(e, [
                x for x in ev[before.index + 1:e.index] if x.launch != before.launch]):
            return None
        pos_g = before.launch[1]
        g_binding = bs[pos_g]
        if type(g_binding.value) is not ir.Call:
            return None
        capture = self.rewritten.function(graph_call_parts(g_binding)[0].name)
        ret = next(x for x in top_bindings(capture) if x.var is capture.body)
        defined_before = set(self.scope(self.function, pos_g))
        mapping, params, extra = {}, [], []
        for a in args:
            src = next((x for x in bs if x.var is a), None)
            if a in defined_before:
                p = ir.Var(f"{a.name}_frozen", a.sinfo)
                mapping[a] = p
                params.append(p)
                extra.append(a)
            elif src is not None and type(src.value) is ir.TupleGetItem and \
                    src.value.tuple_value is g_binding.var:
                mapping[a] = ret.value.fields[src.value.index]
            else:
                return None
        inner = self.substitute(b, mapping)
        clone = clone_capture(self.rewritten, capture.name, lambda g: self.append(g, inner),
                              params)
        m = retarget(self.rewritten, self.function, pos_g, clone, extra)
        m = with_function(m, edit_bindings(m.function(self.function), {e.binding: []}))
        return m, before.launch[2]

    def used(self, var) -> bool:
        return self.used_in(self.function, var)

    def used_in(self, fname: str, var) -> bool:
        f = self.rewritten.function(fname)
        exprs = [x.value for x in ir.nested_bindings(f.blocks)] + [f.body]
        return any(x is var for e in exprs for x in ir.walk(e)) or any(
            x is var for e in exprs if type(e) is ir.If for x in ir.walk(e.cond))

    @staticmethod
    def substitute(b, mapping):
        """The binding b with the vars of `mapping` replaced in its value (at any depth)."""
        def sub(e):
            t = type(e)
            if t is ir.Var:
                return mapping.get(e, e)
            if t is ir.Call:
                return ir.replace(e, args=tuple(sub(a) for a in e.args))
            if t is ir.Tuple:
                return ir.replace(e, fields=tuple(sub(x) for x in e.fields))
            if t is ir.TupleGetItem:
                return ir.replace(e, tuple_value=sub(e.tuple_value))
            return e
        return ir.VarBinding(ir.Var(b.var.name, b.var.sinfo), sub(b.value))

    @staticmethod
    def prepend(g: ir.Function, binding) -> ir.Function:
        first = g.blocks[0]
        blocks = (ir.replace(first, bindings=(binding,) + tuple(first.bindings)),) + \
            tuple(g.blocks[1:])
        return ir.replace(g, blocks=blocks)

    @staticmethod
    def append(g: ir.Function, binding) -> ir.Function:
        last = g.blocks[-1]
        bs = list(last.bindings)
        bs.insert(len(bs) - 1, binding)  # before the returned tuple
        return ir.replace(g, blocks=tuple(g.blocks[:-1]) + (ir.replace(last, bindings=bs),))

    def frozen_input(self, position):
        cands = [e for e in self.trace.events if e.launch is None and not e.objects and
                 e.function == self.function and any(r.base in self.trace.per_call
                                                     for r in e.reads)]
        return self.frozen("frozen-input", position, cands,
                           lambda e: f"it reads the call's input "
                           f"{next(r.name for r in e.reads if r.base in self.trace.per_call)}"
                           ", which each call passes at a new address; a replay reads the "
                           "buffer of the capture's call")

    def frozen_object(self, position):
        cands = [e for e in self.trace.events if e.launch is None and e.objects and
                 e.function == self.function]
        return self.frozen("frozen-object", position, cands,
                           lambda e: f"{e.kernel} is given an object (the KV cache) and runs "
                           "host logic per call; a replay runs none of it and keeps the "
                           "object of the capture")

    def frozen(self, kind, position, cands, why):
        for e in at_position(self.trace, cands, position):
            made = self.move_into_graph(e)
            if made is None:
                continue
            m, index = made
            return self.finish(kind, position, e, f"{self.where(e)} moved into graph {index}",
                               why(e), m)
        raise NotBuildable("no eager launch of that kind next to a graph" if cands else
                           "no eager launch of that kind")

    def output_index(self, position):
        f = self.rewritten.function(self.function)
        bs = top_bindings(f)
        for e, pos in at_position(self.trace, self.graph_launches(), position):
            g = bs[pos]
            if type(g.value) is not ir.Call or not g.value.sinfo_args:
                continue
            fields = g.value.sinfo_args[0].fields
            for p, b in enumerate(bs):
                if type(b.value) is not ir.TupleGetItem or b.value.tuple_value is not g.var:
                    continue
                i = b.value.index
                others = sorted((j for j in range(len(fields)) if j != i and
                                 fields[j] == fields[i]), key=lambda j: abs(j - i))
                for j in others:
                    new = ir.replace(b, value=ir.TupleGetItem(g.var, j))
                    m = with_function(self.rewritten, edit_bindings(f, {p: [new]}))
                    found = self.proved(m)
                    if found is not None:
                        return self.finish("output-index", position, e,
                                           f"{b.var.name} = {g.var.name}[{j}] (was [{i}]) "
                                           f"after graph {e.launch[2]}",
                                           f"another output of the graph "
                                           f"({self.describe(found)})", m)
        raise NotBuildable("no graph at this position has two outputs of one type")

    def graph_owned_return(self, position):
        if position != "late":
            raise NotBuildable("returned values are made after the last layer")
        f = self.rewritten.function(self.function)
        bs = top_bindings(f)
        stores = self.storage_vars()
        for out in self.trace.outputs:
            if out.base[0] != "fresh":
                continue
            pos, b = next(((p, x) for p, x in enumerate(bs) if x.var.name == out.name),
                          (None, None))
            if b is None or type(b.value) is not ir.Call or \
                    b.value.op != ir.Op("relax.builtin.alloc_tensor"):
                continue
            producer = next((e for e in reversed(self.trace.events)
                             if any(w.base == out.base for w in e.writes)), None)
            if producer is None or producer.index not in self.tainted:
                continue
            scope = set(self.scope(self.function, pos))
            for s, st in stores.items():
                if s not in scope or st.nbytes < out.hi - out.lo or st.base[0] != "slot":
                    continue
                value = ir.Call(ir.Op("relax.memory.alloc_tensor"),
                                (s, ir.PrimValue(ir.IntImm(0)), b.value.args[0],
                                 b.value.args[1], ir.PrimValue(ir.IntImm(0))))
                m = with_function(self.rewritten, edit_bindings(
                    f, {pos: [ir.replace(b, value=value)]}))
                if self.proved(m) is not None:
                    continue  # it would also overwrite a live tensor: another class
                return self.finish("graph-owned-return", position, producer,
                                   f"{b.var.name} (returned) allocated in {s.name}, slot "
                                   f"{st.base[2]} of the graphs' storages",
                                   f"the next call's {producer.kernel} overwrites the value "
                                   "returned before", m)
        raise NotBuildable("no returned tensor of fresh data allocated per call")

    # -- guards (a rewrite with --capture-symbolic VAR:MAX)

    def guarded(self, position):
        f = self.rewritten.function(self.function)
        bs = top_bindings(f)
        for e, pos in at_position(self.trace, self.graph_launches(), position):
            if type(bs[pos].value) is ir.If:
                return e, pos, bs[pos]
        raise NotBuildable("no guarded graph (a rewrite without --capture-symbolic VAR:MAX)")

    def guard_inverted(self, position):
        e, pos, b = self.guarded(position)
        f = self.rewritten.function(self.function)
        bs = top_bindings(f)
        cond = b.value.cond
        p, cb = next((p, x) for p, x in enumerate(bs) if x.var is cond)
        test = cb.value.value
        flipped = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}
        if test.op == "and":
            new_test = ir.PrimBinOp(flipped[test.lhs.op], test.lhs.lhs, test.lhs.rhs)
            new_test = ir.PrimBinOp("and", new_test, test.rhs)
        else:
            new_test = ir.PrimBinOp(flipped[test.op], test.lhs, test.rhs)
        new = ir.replace(cb, value=ir.replace(cb.value, value=new_test))
        m = with_function(self.rewritten, edit_bindings(f, {p: [new]}))
        return self.finish("guard-inverted", position, e,
                           f"the guard of graph {e.launch[2]} tests the opposite",
                           "the graph runs above its bound, with the shapes of its capture", m)

    def graph_unkeyed(self, position):
        try:
            e, pos, b = self.guarded(position)
        except NotBuildable:
            return self.unkeyed_unbounded(position)
        f = self.rewritten.function(self.function)
        branch = b.value.true_branch
        blocks = []
        for block in branch.blocks:
            new = []
            for x in block.bindings:
                fields = graph_call_parts(x) if type(x.value) is ir.Call else None
                if fields is not None and len(fields) == 4:
                    call = replace_args(x.value, (x.value.args[0], ir.Tuple(fields[:3])))
                    x = ir.replace(x, value=call)
                new.append(x)
            blocks.append(ir.replace(block, bindings=tuple(new)))
        value = ir.replace(b.value, true_branch=ir.replace(branch, blocks=tuple(blocks)))
        m = with_function(self.rewritten,
                          edit_bindings(f, {pos: [ir.replace(b, value=value)]}))
        return self.finish("graph-unkeyed", position, e,
                           f"graph {e.launch[2]} launched without its shape key",
                           "the graph captured at one value of the variable replays at "
                           "another", m)

    def unkeyed_unbounded(self, position):
        """A graph keyed by a variable (run_or_capture's fourth argument: TVM's
        capture_symbolic_vars, or --capture-symbolic VAR) launched without the key."""
        f = self.rewritten.function(self.function)
        bs = top_bindings(f)
        for e, pos in at_position(self.trace, self.graph_launches(), position):
            x = bs[pos]
            fields = graph_call_parts(x) if type(x.value) is ir.Call else None
            if fields is None or len(fields) != 4:
                continue
            call = replace_args(x.value, (x.value.args[0], ir.Tuple(fields[:3])))
            m = with_function(self.rewritten,
                              edit_bindings(f, {pos: [ir.replace(x, value=call)]}))
            return self.finish("graph-unkeyed", position, e,
                               f"graph {e.launch[2]} launched without its shape key",
                               "the graph captured at one value of the variable replays at "
                               "another", m)
        raise NotBuildable("no graph keyed by a symbolic variable")

    # -- controls

    def reorder_control(self, position) -> Control:
        """Two launches of one body with nothing between them and no data or storage in
        common (disjoint regions; neither reads what the other writes; no object), swapped;
        the trace confirms every launch reads what it read."""
        ev = self.trace.events
        cands = []
        for a, b in zip(ev, ev[1:]):
            if (a.function, a.launch) != (b.function, b.launch) or a.objects or b.objects or \
                    a.unknown or b.unknown:
                continue
            if not isinstance(self.rewritten.function(a.kernel), ir.PrimFunc) or \
                    not isinstance(self.rewritten.function(b.kernel), ir.PrimFunc):
                continue
            if self.independent(a, [b]):
                cands.append((a, b))
        for a, b in at_position(self.trace, cands, position):
            body = top_bindings(self.rewritten.function(a.function))
            m = self.edit_body(self.rewritten, a, lambda g: edit_bindings(
                g, {a.binding: [], b.binding: [body[b.binding], body[a.binding]]}))
            order = list(range(len(ev)))
            order[a.index], order[b.index] = b.index, a.index
            if self.proved(m, order) is None:
                return Control(self.model, self.function,
                               f"reorder-independent.{position}",
                               f"{self.where(a)} moved after {self.where(b)}: disjoint "
                               "regions, no read of the other's writes",
                               reparsed(m, f"{self.model}.control.relax"))
        raise NotBuildable("no two adjacent independent launches in one body")


BUILDERS = {
    "drop": Builder.drop, "reorder": Builder.reorder, "wrong-arg": Builder.wrong_arg,
    "overlap-offset": Builder.overlap_offset, "overlap-slot": Builder.overlap_slot,
    "storage-twice": Builder.storage_twice, "frozen-input": Builder.frozen_input,
    "frozen-object": Builder.frozen_object, "output-index": Builder.output_index,
    "graph-owned-return": Builder.graph_owned_return,
    "guard-inverted": Builder.guard_inverted, "graph-unkeyed": Builder.graph_unkeyed,
}
GUARD_CLASSES = ("guard-inverted", "graph-unkeyed")


# ---- the suite --------------------------------------------------------------------------------

REAL_SIZE = ("mlc_llama_1b", "mlc_qwen2_0_5b", "mlc_llama_8b")
# The bounded rewrite the guard classes start from, per model family: MLC's prefill is keyed by
# seq_len (docs/REWRITE.md uses seq_len:256); a small model's first symbolic input, bound 2.
MLC_BOUND = ("prefill", "seq_len", 256)


def real_models(root) -> list[tuple[str, str, str]]:
    """(group, name, path of the .before.relax) of the corpus: real-size first."""
    from pathlib import Path

    real = Path(root) / "samples" / "real"
    out = [("real-size", n, str(real / f"{n}.before.relax")) for n in REAL_SIZE]
    for p in sorted(real.glob("*.before.relax")) + sorted(
            (real / "capture_safety").glob("*.before.relax")):
        name = p.name[: -len(".before.relax")]
        if name not in REAL_SIZE:
            out.append(("small", name if p.parent == real else f"capture_safety/{name}",
                        str(p)))
    return out


def rewrite_text(original: ir.Module, name: str, options=None) -> ir.Module:
    return reparsed(api.rewrite(original, options)[0], name)


def mutant_functions(model: str, rewritten: ir.Module) -> list[str]:
    """The public functions mutated: decode for the MLC models (the per-token function; the
    same layers repeat in prefill and batch_decode), every function that runs a kernel in the
    small ones."""
    if model in REAL_SIZE:
        return ["decode"]
    out = []
    for f in rewritten.relax_functions():
        if not f.is_private and trace(rewritten, f.name).events:
            out.append(f.name)
    return out


def bounded_options(model: str, original: ir.Module):
    """(function, RewriteOptions with a --capture-symbolic VAR:MAX) for the guard classes, or
    None when no function has a symbolic input to bound."""
    from cudagraph_cli.passes.options import RewriteOptions

    if model in REAL_SIZE:
        fn, var, bound = MLC_BOUND
        return fn, RewriteOptions(capture_symbolic=(f"{var}:{bound}",))
    for f in original.relax_functions():
        if f.is_private:
            continue
        names = [v.name for p in f.params[: f.num_input] for v in ir.sinfo_prim_vars(p.sinfo)]
        for var in dict.fromkeys(names):
            try:
                rw = api.rewrite(original, RewriteOptions(capture_symbolic=(f"{var}:2",)))[0]
            except Exception:
                continue
            from cudagraph_cli.passes.guards import find_guards

            if any(g.function == f.name for g in find_guards(rw)):
                return f.name, RewriteOptions(capture_symbolic=(f"{var}:2",))
    return None


def mutants_of(model: str, original: ir.Module, classes=CLASSES, positions=POSITIONS,
               functions=None):
    """Every mutant of the model's rewrite: yields Mutant, or (kind, position, function,
    NotBuildable) where the class cannot be built there."""
    rewritten = rewrite_text(original, f"{model}.rewritten.relax")
    kernel_classes = [c for c in classes if c not in GUARD_CLASSES]
    for fn in functions or mutant_functions(model, rewritten):
        builder = Builder(model, original, rewritten, fn)
        seen = set()
        for kind in kernel_classes:
            for position in positions:
                yield from made(builder, kind, position, seen)
    guard_classes = [c for c in classes if c in GUARD_CLASSES]
    if guard_classes:
        bounded = bounded_options(model, original)
        if bounded is None:
            for kind in guard_classes:
                for position in positions:
                    yield (kind, position, None, NotBuildable(
                        "no function has a symbolic input to bound"))
            return
        fn, options = bounded
        builder = Builder(model, original, rewrite_text(original, f"{model}.bounded.relax",
                                                         options), fn)
        seen = set()
        for kind in guard_classes:
            for position in positions:
                yield from made(builder, kind, position, seen)


def made(builder: Builder, kind: str, position: str, seen: set):
    try:
        m = BUILDERS[kind](builder, position)
    except NotBuildable as e:
        yield (kind, position, builder.function, e)
        return
    except api.SourceError as e:  # the generator's bug: said, not hidden
        yield (kind, position, builder.function, NotBuildable(
            f"GENERATOR BUG: the mutant does not read back: {e.message}"))
        return
    key = (kind, m.site)
    if key in seen:  # a small model: the same site for two positions
        yield (kind, position, builder.function, NotBuildable(f"same site as another "
                                                              f"position ({m.site})"))
        return
    seen.add(key)
    yield m


def controls_of(model: str, original: ir.Module, after_path: str | None,
                positions=POSITIONS, functions=None):
    """The correct modules of a model: cgraph's rewrites with each option, TVM's output, and
    REWRITTEN with two independent launches swapped. Yields Control, or (name, NotBuildable)."""
    from pathlib import Path

    from cudagraph_cli.passes.options import RewriteOptions

    variants = [("cgraph default", RewriteOptions()),
                ("--compat tvm", RewriteOptions.tvm_compat()),
                ("--min-kernels 2", RewriteOptions(min_kernels=2))]
    bounded = bounded_options(model, original)
    if bounded is not None:
        var_bound = bounded[1].capture_symbolic[0]
        var = var_bound[0] if isinstance(var_bound, tuple) else str(var_bound).split(":")[0]
        bound = var_bound[1] if isinstance(var_bound, tuple) else None
        variants.append((f"--capture-symbolic {var}:{bound}", bounded[1]))
        variants.append((f"--capture-symbolic {var}", RewriteOptions(capture_symbolic=(var,))))
    # capture_safety/: TVM's own captures of calls that a graph cannot replay (the
    # capture-safety table of docs/REWRITE.md): its outputs there are wrong on purpose.
    tvm_correct = not model.startswith("capture_safety/")
    if not tvm_correct:
        variants = [v for v in variants if v[0] != "--compat tvm"]
    if not tvm_correct:
        yield ("--compat tvm", NotBuildable("TVM's capture of an unsafe call: wrong"))
        yield ("TVM after.relax", NotBuildable("TVM's capture of an unsafe call: wrong"))
    for name, options in variants:
        try:
            module = rewrite_text(original, f"{model}.{name}.relax", options)
        except Exception as e:  # an option this model cannot take (a located error)
            yield (name, NotBuildable(f"the rewrite refuses: {str(e).splitlines()[0]}"))
            continue
        yield Control(model, None, name, "cgraph's own rewrite", module)
    if after_path and Path(after_path).exists() and tvm_correct:
        yield Control(model, None, "TVM after.relax", "TVM 0.27's RewriteCUDAGraph",
                      api.load(after_path))
    rewritten = rewrite_text(original, f"{model}.rewritten.relax")
    for fn in functions or mutant_functions(model, rewritten):
        builder = Builder(model, original, rewritten, fn)
        seen = set()
        for position in positions:
            try:
                c = builder.reorder_control(position)
            except NotBuildable as e:
                yield (f"reorder-independent.{position}", e)
                continue
            if c.proof in seen:
                continue
            seen.add(c.proof)
            yield c
