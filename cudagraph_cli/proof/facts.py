"""What a module's text proves about its memory for every value of its symbolic variables.

Read from the text alone, without running a byte (proof/bound.py decides each
inequality over the ranges of proof/ranges.py):

- **fits**: every tensor placed in a storage (`R.memory.alloc_tensor(storage, offset, shape,
  dtype)`) lies within it: offset + bytes <= the storage's size, for a storage of the
  function's own (`R.memory.alloc_storage(R.shape([BYTES]), ...)`, sizes in bytes; in
  elements where the original module sizes them so: verify reads both modules in the
  original's unit, as the executor does, handlers/memory.py) or a slot of the shared
  allocation fetched through `vm.builtin.cuda_graph.get_cached_alloc`;
- **view**: every view (`R.memory.view`, `R.reshape` of a tensor) lies within its tensor;
- **disjoint**: two tensors of one storage that are alive at the same time never share a
  byte. A tensor is alive from its `alloc_tensor` to its last use: a call that reads or writes
  it through an alias, a view, a tuple item (that item only) or a graph launch (a capture
  function's body is walked where it is launched, its parameters bound to the launch's
  arguments: what its replay touches), or its return (a returned tensor stays alive past the
  call). A tensor no call touches holds no bytes; a kill, an alias, a tuple are no use. A use
  keeps a tensor alive only on its own path: not for a tensor of the other branch of one
  `if`, nor under a guard no value satisfies together with the use's (the graph branch of
  `n <= 8` and the eager branch of another guard on `n <= 8`). A carve of the storage, offset
  and row layout of the tensor placed there last, at a bucket's rows or back at the real ones,
  is that tensor (`same_tensor`);
- **returned**: a tensor a function returns never sits in a shared allocation's slot that a
  function of the module (itself on a later call, or another: prefill, then decode) places
  tensors in: the next call overwrites what the caller still holds;
- **key**: every graph launch's key (`run_or_capture`'s `R.shape([...])`) determines every
  symbolic value its graph depends on (proof/keys.py): no two values share a key while
  their graphs differ;
- **bucket** (proof/buckets.py): each bucket variable's definition is at least its variable, at
  most its upper bound and one of the declared buckets, for every value a graph keyed by it
  runs at;
- **unit** (verify's pair, `prove_modules`): a rewrite that alone looks sized in elements,
  where the original sizes its storages in bytes, fails it.

Each fact is proved (for every value within the ranges: the then-branch of a guard
`VAR <= MAX` narrows VAR's largest value, its else-branch raises VAR's least to MAX + 1),
failed (with the smallest values that break it) or unproven (with its expression and why: a
variable with no upper bound, an expression that is not monotone, a size the text does not
give). What the walk does not read is unproven too, at its binding, never skipped: a tensor
whose storage it does not resolve, a graph launch it does not follow (its arguments not a
tuple written there, its capture function not in the module, 8 launches deep).

A fact the original fails too -- the same kind, function and subject, by position (the n-th
tensor placed, view or launch of the function's walk), not by name: a module that shares
memory so on purpose, as tests/helpers/module_gen.py's do -- is no difference between the two
(ModuleShapes.failure).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import Loc
from ..exec.backend import ExecError
from ..exec.handlers.memory import element_sized_witness, storages_sized_in_elements
from ..exec.prim import eval_prim
from .bound import prove_le
from ..passes.buckets import declared_buckets
from .buckets import prove_bucket
from .keys import key_text, pair_text, prove_key
from .ranges import FunctionRanges, Range, else_floors, guard_bounds
from .sizes import (dtype_arg, itemsize, launch_dependencies, launch_key, prim_arg,
                    product, show, tensor_bytes, values_text)


@dataclass
class ShapeFact:
    kind: str  # "fits" | "view" | "disjoint" | "returned" | "key" | "bucket" | "unit"
    function: str  # the public function whose call it concerns
    loc: Loc  # the binding (the alloc_tensor, the view, the later of two tensors, the launch)
    status: str  # "proved" | "failed" | "unproven"
    message: str = ""  # failed: at the smallest breaking values; unproven: the expression
    values: dict = field(default_factory=dict)  # failed: the smallest breaking values
    # What it is about, by position (matches a fact across modules, whatever the names): the
    # place in the function's walk of its tensors (the n-th alloc_tensor run), of its view or
    # of its graph launch.
    subject: tuple = ()
    # What a proved fact claims, for tests to evaluate at any values (tests/
    # test_shape_facts_sampled.py): ("le", lhs, rhs, ranges): lhs <= rhs; ("key", key,
    # dependencies, ranges): one key, one set of dependencies; ("bucket", var, definition,
    # declared buckets, upper bound, the Range of var): proof/buckets.py.
    claim: tuple = field(default=(), repr=False)

    def key(self) -> tuple:
        return (self.kind, self.function, self.subject)


@dataclass
class ShapeFacts:
    facts: list = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for f in self.facts if f.status == status)

    @property
    def failed(self) -> list:
        return [f for f in self.facts if f.status == "failed"]

    @property
    def unproven(self) -> list:
        return [f for f in self.facts if f.status == "unproven"]


# ---- the abstract values --------------------------------------------------------------------

class Storage:
    __slots__ = ("key", "size", "name")

    def __init__(self, key, size, name: str):
        self.key, self.size, self.name = key, size, name  # size: PrimExpr of bytes, or None


class Placed:
    """A tensor placed in a storage: what its bytes are, when it is alive, on which path."""

    __slots__ = ("storage", "offset", "nbytes", "born", "last", "path", "ranges", "loc",
                 "name", "returned", "last_loc", "used", "uses", "position")

    def __init__(self, storage, offset, nbytes, born, path, ranges, loc, name, position):
        self.storage, self.offset, self.nbytes = storage, offset, nbytes
        self.position = position  # the n-th tensor placed in the function's walk
        self.born = self.last = born
        self.path, self.ranges, self.loc, self.name = path, ranges, loc, name
        self.returned = False
        self.last_loc = loc
        self.used = False  # a tensor nothing reads or writes touches no byte
        self.uses: list = []  # (seq, path, ranges, loc) of each use: where it is alive


class Tensors(frozenset):
    """A value that is (a view of) one of these placed tensors."""


class TupleV(tuple):
    """A tuple of abstract values."""


def _merge(a, b):
    if type(a) is TupleV and type(b) is TupleV and len(a) == len(b):
        return TupleV(_merge(x, y) for x, y in zip(a, b))
    if isinstance(a, Tensors) or isinstance(b, Tensors):
        return Tensors((a if isinstance(a, Tensors) else frozenset()) |
                       (b if isinstance(b, Tensors) else frozenset()))
    return a if a is b else None


def _flatten(v, out: set) -> set:
    if isinstance(v, Tensors):
        out |= v
    elif type(v) is TupleV:
        for x in v:
            _flatten(x, out)
    return out


# ---- one module ------------------------------------------------------------------------------

class _Walk:
    """The facts of one module: each public function walked once, capture functions inlined
    at their launches."""

    def __init__(self, module: ir.Module, functions=None, in_elements: bool | None = None):
        self.module = module
        self.functions = functions
        self.in_elements = storages_sized_in_elements(module) if in_elements is None \
            else in_elements
        self.facts: list[ShapeFact] = []
        self.shared: dict = {}  # (alloc function, index) -> TupleV of Storage
        self.returned: list = []  # (function, Placed) held past the call in a shared slot
        self.writers: dict = {}  # shared storage key -> [(function, Placed)]

    def run(self) -> ShapeFacts:
        for f in self.module.relax_functions():
            if not f.is_private and (self.functions is None or f.name in self.functions):
                self.function(f)
        for fname, t in self.returned:
            for other, u in self.writers.get(t.storage.key, ()):
                self.facts.append(ShapeFact(
                    "returned", fname, t.loc, "failed", subject=(t.position,), message=
                    f"'{t.name}' is returned by {fname} from slot {t.storage.name} of the "
                    f"shared allocation, where {other} places '{u.name}' "
                    f"({u.loc.line and f'line {u.loc.line}' or 'its binding'}): the next "
                    "call overwrites what the caller holds"))
                break
        return ShapeFacts(self.facts)

    # -- a function's call --
    def function(self, f: ir.Function) -> None:
        self.fname = f.name
        self.seq = 0
        self.placed: list[Placed] = []
        self.ids: dict = {}  # id(Placed) -> Placed
        self.last_placed: dict = {}  # storage key -> (carve_key, the Placed) placed last
        self.subject: tuple = ()
        self.ifs = 0
        self.counts = {"tensor": 0, "view": 0, "launch": 0}  # positions in the walk
        env: dict = {}
        self.defs: dict = {}
        ranges = FunctionRanges(f)
        self.keyed: dict = {}  # bucket variable -> [ranges of each graph launch keyed by it]
        self.defined: dict = {}  # bucket variable -> the binding that defines it
        self.blocks(f.blocks, env, ranges, (), 0)
        out = _flatten(self.value(f.body, env), set())
        end = self.seq + 1
        for t in self.placed:
            if id(t) in out:
                t.last, t.returned = end, True
                t.uses.append((end, (), ranges, f.loc))
                if t.storage.key[0] == "shared":
                    self.returned.append((f.name, t))
            if t.storage.key[0] == "shared":
                self.writers.setdefault(t.storage.key, []).append((f.name, t))
        self.overlaps()
        self.bucket_facts(f, ranges)

    def bucket_facts(self, f: ir.Function, ranges) -> None:
        """The bucket fact of each bucket variable `f` defines (proof/buckets.py), over its
        variable's values at the graph launches keyed by it."""
        declared = declared_buckets(f)
        for bucket, (var, expr) in ranges.derived.exprs.items():
            self.subject = ("bucket", var)
            listed = declared.get(var)
            at = [r.of(var) for r in self.keyed.get(bucket, ())]
            if at:
                tops = [r.most for r in at]
                domain = Range(min(r.least for r in at), None if None in tops else max(tops))
            else:
                whole = ranges.of(var)
                top = whole.most if whole.most is None or not listed else \
                    min(whole.most, max(listed))
                domain = Range(whole.least, top)
            upper = ranges.upper.get(var)
            got = prove_bucket(bucket, var, expr, listed, upper, domain)
            loc = self.defined.get(bucket, f.loc)
            claim = ("bucket", var, expr, listed, upper, domain) \
                if got.status == "proved" else ()
            self.add("bucket", loc, got.status, got.message,
                     {var: got.value} if got.value is not None else None, claim)

    def blocks(self, blocks, env, ranges, path, depth) -> None:
        for block in blocks:
            for b in block.bindings:
                self.seq += 1
                self.defs[b.var] = b.value
                if type(b.value) in (ir.Call, ir.If):
                    self.use(b.value, env, b.loc, path, ranges)
                value = b.value
                if type(b) is ir.MatchCast:
                    env[b.var] = self.value(value, env)
                    for d in getattr(b.sinfo, "values", None) or ():
                        if type(d) is ir.SymVar and d.name in ranges.derived.exprs:
                            self.defined.setdefault(d.name, b.loc)
                    continue
                env[b.var] = self.binding(b, env, ranges, path, depth)

    def use(self, value, env, loc, path, ranges) -> None:
        """The tensors `value` reads or writes, alive until now. A call uses its arguments
        (a tuple item only that item), an `if` its condition, a return what it returns;
        an alias, a tuple, a view or reshape, what a branch or a graph gives back (each used
        where it is read) and a kill use nothing."""
        t = type(value)
        if t is ir.If:
            value = value.cond
        elif t is ir.Call:
            memory = ir.memory_call(value)
            if memory is not None and (memory.is_view or memory.kind == ir.KILL) or \
                    ir.builtin_called(value) == ir.RUN_OR_CAPTURE:
                # A view or a release uses no byte; a graph launch uses what its capture
                # function's body uses.
                return
            value = ir.Tuple(tuple(value.args) + tuple(v for _, v in value.attrs))
        for i in self.used(value, env, set()):
            t = self.ids[i]
            t.last, t.last_loc, t.used = self.seq, loc, True
            t.uses.append((self.seq, path, ranges, loc))

    def used(self, e, env, out: set) -> set:
        t = type(e)
        if t is ir.Var or t is ir.TupleGetItem:
            return _flatten(self.value(e, env), out)
        if t is ir.Tuple:
            for x in e.fields:
                self.used(x, env, out)
        elif t is ir.Call:
            for x in e.args:
                self.used(x, env, out)
        return out

    def value(self, e, env):
        t = type(e)
        if t is ir.Var:
            return env.get(e)
        if t is ir.Tuple:
            return TupleV(self.value(x, env) for x in e.fields)
        if t is ir.TupleGetItem:
            v = self.value(e.tuple_value, env)
            return v[e.index] if type(v) is TupleV and e.index < len(v) else None
        return None

    def binding(self, b, env, ranges, path, depth):
        v = b.value
        t = type(v)
        if t is ir.If:
            return self.branches(b, env, ranges, path, depth)
        if t is not ir.Call:
            return self.value(v, env)
        name = v.op.name if type(v.op) is ir.Op else None
        if name in ("relax.memory.alloc_storage", "relax.vm.alloc_storage"):
            return self.storage(b, v, name)
        if name in ("relax.memory.alloc_tensor", "relax.vm.alloc_tensor"):
            return self.tensor(b, v, env, ranges, path)
        memory = ir.memory_call(v)
        if memory is not None and memory.is_view:
            if memory.kind != ir.ZERO_OFFSET:
                self.view_fact(b, memory, ranges)
            return self.value(memory.aliased, env)
        cached = ir.CachedAlloc.of(v)
        if cached is not None:
            return self.cached(cached)
        launch = ir.GraphLaunch.of(v)
        if launch is not None:
            return self.launch(b, launch, env, ranges, path, depth)
        if ir.builtin_called(v) == ir.RUN_OR_CAPTURE:
            self.subject = (self.next("launch"),)
            for kind in ("key", "disjoint"):
                self.add(kind, b.loc, "unproven", f"the graph launch of '{b.var.name}' is "
                         "not followed: its items are not a tuple written at the launch")
            return None
        self.opaque(b, v, env)
        return None

    def opaque(self, b, v: ir.Call, env) -> None:
        """A call whose result the walk takes as fresh memory, though it may be an alias of a
        placed tensor it is given (a packed function, a Relax function, a closure): unproven,
        as the lifetime of that tensor is not known past it. A kernel (a PrimFunc), a Relax
        operator and the host's `relax.run.*` make their results."""
        op = v.op
        if not _holds_tensor(b.var.sinfo) or type(op) is ir.Op or (
                type(op) is ir.ExternFunc and op.name.startswith("relax.run.")):
            return
        given = self.used(ir.Tuple(tuple(v.args)), env, set())
        if given and not (type(op) is ir.GlobalVarRef and
                          not isinstance(self.module.function(op.name), ir.Function)):
            names = ", ".join(sorted(f"'{self.ids[i].name}'" for i in given))
            self.add("disjoint", b.loc, "unproven", f"'{b.var.name}' is the result of a call "
                     f"the prover does not read, given {names}: whether it aliases them, and "
                     "so how long they are alive, is not known")

    def branches(self, b, env, ranges, path, depth):
        v = b.value
        self.ifs += 1
        here = (self.fname, self.ifs)
        out = []
        for side, (seq, r) in enumerate((
                (v.true_branch, ranges.under(guard_bounds(v.cond, self.defs))),
                (v.false_branch, ranges.under({}, else_floors(v.cond, self.defs))))):
            if r.empty():
                continue  # a branch no value within the bounds takes
            self.blocks(seq.blocks, env, r, path + ((here, side),), depth)
            out.append(self.value(seq.body, env))
        return _merge(*out) if len(out) == 2 else out[0] if out else None

    def storage(self, b, v: ir.Call, name: str):
        size = None
        shape = v.args[0] if v.args else None
        if type(shape) is ir.ShapeExpr and len(shape.values) == 1:
            size = shape.values[0]
            if self.in_elements:
                at = 3 if name == "relax.memory.alloc_storage" else 2
                item = itemsize(dtype_arg(v.args[at])) if len(v.args) > at else None
                size = ir.PrimBinOp("*", size, ir.IntImm(item)) if item else size
        return Storage(("local", id(b)), size, b.var.name)

    def tensor(self, b, v: ir.Call, env, ranges, path):
        storage = self.value(v.args[0], env)
        self.subject = (self.next("tensor"),)
        if type(storage) is not Storage:
            # A tensor in memory the walk does not know: neither its fit nor who else uses
            # those bytes is read.
            self.add("fits", b.loc, "unproven", f"'{b.var.name}': its storage is not one "
                     "the text resolves (an alloc_storage of the function, a slot of the "
                     "shared allocation)")
            return None
        offset, shape = prim_arg(v.args[1]), v.args[2] if len(v.args) > 2 else None
        item = itemsize(dtype_arg(v.args[3])) if len(v.args) > 3 else None
        nbytes = product(shape.values, item) \
            if type(shape) is ir.ShapeExpr and item is not None else None
        key = self.carve_key(offset, shape, v, ranges.derived)
        t = self.same_tensor(storage, key, nbytes, ranges.derived)
        if t is None:
            t = Placed(storage, offset, nbytes, self.seq, path, ranges, b.loc, b.var.name,
                       self.subject[0])
            self.placed.append(t)
            self.ids[id(t)] = t
        self.last_placed[storage.key] = (key, t)
        if offset is None or nbytes is None or storage.size is None:
            self.add("fits", b.loc, "unproven", f"'{b.var.name}' in {storage.name}: "
                     "the text gives no constant size, offset or shape")
        else:
            self.prove("fits", b.loc, ir.PrimBinOp("+", offset, nbytes), storage.size, ranges,
                       lambda at, lhs, rhs: (
                           f"a tensor of {lhs - at_(offset, at):,} bytes at offset "
                           f"{at_(offset, at):,} in a storage of {rhs:,} bytes "
                           f"('{b.var.name}' in {storage.name})"),
                       f"offset + bytes of '{b.var.name}' <= size of {storage.name}")
        return Tensors((id(t),))

    def same_tensor(self, storage, key, nbytes, derived):
        """The placed tensor this carve is, or None: a bucketed rewrite carves a tensor again
        from the same storage and offset, with the same dtype and row layout, at the bucket's
        rows for a graph (`a_b` of `a`, passes/buckets.py) or at the real rows after it. Its
        first rows are that tensor's bytes, not a second tensor's, so it is that tensor, now
        as long as the longer of the two (the bucket's rows: at least the real ones, by the
        bucket fact). Only when it is the last tensor placed in the storage; and a carve of the
        same shape again is a second tensor (the very case of the disjoint fact)."""
        last = self.last_placed.get(storage.key)
        if last is None or key is None or last[0] is None:
            return None
        (layout, dims), p = last
        if layout != key[0] or dims == key[1]:
            return None
        if derived.names_in(nbytes) and not derived.names_in(p.nbytes):
            p.nbytes = nbytes
        return p

    def carve_key(self, offset, shape, v: ir.Call, derived):
        """((offset, dtype, the dims with each bucket variable read as its variable), the
        dims as written), or None."""
        if offset is None or type(shape) is not ir.ShapeExpr or len(v.args) < 4:
            return None
        dims = tuple(show(d) for d in shape.values)
        rows = tuple(derived.exprs[d.name][0] if type(d) is ir.SymVar and d.name in
                     derived.exprs else show(d) for d in shape.values)
        return (show(offset), dtype_arg(v.args[3]), rows), dims

    def view_fact(self, b, memory: ir.MemoryCall, ranges) -> None:
        x = memory.aliased
        sinfo = x.sinfo if type(x) is ir.Var else None
        base = tensor_bytes(sinfo)
        self.subject = (self.next("view"),)
        if memory.kind == ir.RESHAPE:
            shape = memory.arg("shape")
            item = itemsize(sinfo.dtype) if type(sinfo) is ir.TensorSInfo else None
            nbytes = product(shape.values, item) \
                if type(shape) is ir.ShapeExpr and item else None
            offset = ir.IntImm(0)
        else:
            shape, dtype = memory.arg("shape"), memory.arg("dtype")
            off = memory.arg("relative_byte_offset")
            offset = ir.IntImm(0) if off is None else prim_arg(off)
            dims = shape.values if type(shape) is ir.ShapeExpr else \
                (sinfo.shape if type(sinfo) is ir.TensorSInfo else None)
            dt = dtype_arg(dtype) if dtype is not None else \
                (sinfo.dtype if type(sinfo) is ir.TensorSInfo else None)
            item = itemsize(dt)
            nbytes = product(dims, item) if dims is not None and item else None
        if base is None or nbytes is None or offset is None:
            self.add("view", b.loc, "unproven",
                     f"'{b.var.name}': the text gives no shape for the view or its tensor")
            return
        self.prove("view", b.loc, ir.PrimBinOp("+", offset, nbytes), base, ranges,
                   lambda at, lhs, rhs: (
                       f"a view of {lhs - at_(offset, at):,} bytes at offset "
                       f"{at_(offset, at):,} of a tensor of {rhs:,} bytes ('{b.var.name}' "
                       f"of '{x.name}')"),
                   f"offset + bytes of '{b.var.name}' <= bytes of '{x.name}'")

    def cached(self, cached: ir.CachedAlloc):
        fn, index = cached.function_name, cached.index_value
        key = (fn, index)
        if key not in self.shared:
            alloc = self.module.function(fn) if fn else None
            value = None
            if isinstance(alloc, ir.Function):
                env: dict = {}
                for b in ir.nested_bindings(alloc.blocks):
                    v = b.value
                    if type(v) is ir.Call and type(v.op) is ir.Op and \
                            v.op.name in ("relax.memory.alloc_storage", "relax.vm.alloc_storage"):
                        env[b.var] = self.storage(b, v, v.op.name)
                    else:
                        env[b.var] = self.value(v, env)
                value = self.value(alloc.body, env)
                if type(value) is TupleV:
                    value = TupleV(
                        Storage(("shared", fn, index, i), s.size, f"{fn}[{i}]")
                        if type(s) is Storage else s for i, s in enumerate(value))
            self.shared[key] = value
        return self.shared[key]

    def launch(self, b, launch: ir.GraphLaunch, env, ranges, path, depth):
        self.subject = (self.next("launch"),)
        self.key_fact(b, launch, ranges)
        capture = self.module.function(launch.function_name or "")
        args = launch.args
        why = None if isinstance(capture, ir.Function) else \
            f"its capture function '{launch.function_name}' is not in the module"
        if why is None and type(args) is not ir.Tuple:
            why = "its arguments are not a tuple written at the launch"
        if why is None and depth >= 8:
            why = "it is launched from within 8 graph launches"
        if why is not None:
            # What the graph's replay touches is not walked: the lifetimes of the tensors
            # passed to it are not known past here.
            self.add("disjoint", b.loc, "unproven", f"the graph launch of '{b.var.name}' is "
                     f"not followed: {why}")
            return None
        inner: dict = {}
        for p, a in zip(capture.params, args.fields):
            inner[p] = self.value(a, env)
        self.blocks(capture.blocks, inner, ranges, path, depth + 1)
        return self.value(capture.body, inner)

    def key_fact(self, b, launch: ir.GraphLaunch, ranges) -> None:
        """The launch's key determines what its graph depends on (proof/keys.py)."""
        key, deps, why = launch_key(launch, self.defs), [], None
        if key is None:
            why = "its key is not a shape the text gives"
        else:
            deps, why = launch_dependencies(launch.args)
            deps = [d for d in deps if ir.prim_vars(d, [])]  # a constant never differs
        if why is not None:
            self.add("key", b.loc, "unproven", f"the key of the graph launch of "
                     f"'{b.var.name}': {why}")
            return
        for name in {n for k in key for n in ranges.derived.names_in(k)}:
            self.keyed.setdefault(name, []).append(ranges)
        got = prove_key(tuple(key), deps, ranges.of, ranges.derived)
        if got.status == "proved":
            derived = ranges.derived  # the claim over the free variables alone
            claim = ("key", tuple(map(derived.substituted, key)),
                     [derived.substituted(d) for d in deps], ranges)
            self.add("key", b.loc, "proved", "", claim=claim)
        elif got.status == "unproven":
            self.add("key", b.loc, "unproven", f"{key_text(key)} of the graph launch of "
                     f"'{b.var.name}' determines {', '.join(show(d) for d in deps)}: {got.why}")
        else:
            self.add("key", b.loc, "failed", f"{pair_text(got.pair, got.key_value)} (the "
                     f"graph launch of '{b.var.name}', keyed by {key_text(key)}, depends on "
                     f"{', '.join(dict.fromkeys(show(d) for d in deps))})", got.pair[1])

    def next(self, what: str) -> int:
        self.counts[what] += 1
        return self.counts[what]

    # -- facts --
    def add(self, kind, loc, status, message, values=None, claim=()) -> None:
        self.facts.append(ShapeFact(kind, self.fname, loc, status, message, values or {},
                                    self.subject, claim))

    def prove(self, kind, loc, lhs, rhs, ranges, say, expression) -> bool:
        """Adds the fact; False when it fails."""
        got = prove_le(lhs, rhs, ranges.of, ranges.derived)
        if got.status == "proved":
            # the claim over the free variables alone: a bucket is its definition
            claim = ("le", ranges.derived.substituted(lhs), ranges.derived.substituted(rhs),
                     ranges)
            self.add(kind, loc, "proved", "", claim=claim)
        elif got.status == "unproven":
            self.add(kind, loc, "unproven", f"{expression}: {show(lhs)} <= {show(rhs)} "
                     f"({got.why})")
        else:
            shown = {n: got.at[n] for n in got.moving} or {}
            where = f"at {values_text(shown)}: " if shown else ""
            self.add(kind, loc, "failed", where + say(got.at, got.lhs, got.rhs), shown)
        return got.status != "failed"

    def overlaps(self) -> None:
        """Two tensors of one storage alive at once: their bytes are disjoint."""
        groups: dict = {}
        for t in self.placed:
            if t.used or t.returned:
                groups.setdefault(t.storage.key, []).append(t)
        for tensors in groups.values():
            tensors.sort(key=lambda t: t.born)
            alive: list[Placed] = []
            for b in tensors:
                alive = [a for a in alive if a.last > b.born]
                for a in alive:
                    if not _exclusive(a.path, b.path):
                        self.disjoint(a, b)
                alive.append(b)

    def disjoint(self, a: Placed, b: Placed) -> None:
        self.subject = tuple(sorted((a.position, b.position)))
        if None in (a.offset, b.offset, a.nbytes, b.nbytes):
            self.add("disjoint", b.loc, "unproven",
                     f"'{b.name}' and '{a.name}' in {b.storage.name}: no constant offsets")
            return
        # a is alive when b is placed where a use of it comes later on a path b's can go
        # with (not the other branch of one `if`, not outside a guard b is within): the
        # values where both paths hold, for each such use's path.
        seen: set = set()
        for seq, path, where, loc in a.uses:
            if seq <= b.born or _exclusive(path, b.path):
                continue
            ranges = b.ranges.both(a.ranges).both(where)
            key = (tuple(sorted(ranges.guard.items())), tuple(sorted(ranges.floor.items())))
            if key in seen or ranges.empty():
                continue
            seen.add(key)
            if not self.apart(a, b, ranges, loc):
                return

    def apart(self, a: Placed, b: Placed, ranges, last: Loc) -> bool:
        """Prove a's and b's bytes disjoint over `ranges`; False when that fails."""
        try:
            low = {v.name: ranges.of(v.name).least
                   for e in (a.offset, b.offset) for v in ir.prim_vars(e, [])}
            first, second = (a, b) if at_(a.offset, low) <= at_(b.offset, low) else (b, a)
        except ExecError:
            first, second = a, b
        sub = ranges.derived.substituted  # a bucket's bytes from its variable's value
        still = "returned" if a.returned and last is a.uses[-1][3] else \
            f"used at line {last.line}" if last.line else "used later"
        return self.prove(
            "disjoint", b.loc, ir.PrimBinOp("+", first.offset, first.nbytes), second.offset,
            ranges,
            lambda at, lhs, rhs: (
                f"'{b.name}' ({at_(sub(b.nbytes), at):,} bytes at offset "
                f"{at_(sub(b.offset), at):,}) overlaps '{a.name}' ({at_(sub(a.nbytes), at):,} "
                f"bytes at offset {at_(sub(a.offset), at):,}) in {b.storage.name} while "
                f"'{a.name}' is alive ({still})"),
            f"'{first.name}' ends before '{second.name}' begins in {b.storage.name}")


def _holds_tensor(s) -> bool:
    t = type(s)
    return t is ir.TensorSInfo or (t is ir.TupleSInfo and any(map(_holds_tensor, s.fields)))


def _exclusive(p: tuple, q: tuple) -> bool:
    """Are two paths in different branches of one `if` (never both taken in one call)?"""
    sides = dict(p)
    return any(k in sides and sides[k] != s for k, s in q)


def at_(e, values: dict) -> int:
    return eval_prim(e, lambda v: values.get(v.name, 0))


def shape_facts(module: ir.Module, functions=None,
                in_elements: bool | None = None) -> ShapeFacts:
    """The facts of `module`'s public functions (module docstring), or of those named in
    `functions`; its storages sized in elements when `in_elements` (None: as the module
    itself looks, handlers/memory.py)."""
    return _Walk(module, functions, in_elements).run()


def unit_fact(rewritten: ir.Module, in_elements: bool) -> ShapeFact | None:
    """The failed fact of a rewrite that alone looks sized in elements (a storage of N
    holding N elements wider than a byte) where the original sizes its storages in bytes
    (`in_elements` False): the two disagree on the unit, and in the original's the storage
    is short."""
    found = None if in_elements else element_sized_witness(rewritten)
    if found is None:
        return None
    fname, b, n, dtype = found
    size = n * itemsize(dtype)
    return ShapeFact("unit", fname, b.loc, "failed", (
        f"'{b.var.name}' ({n:,} {dtype} elements, {size:,} bytes) at offset 0 in a storage "
        f"of {n:,}: the rewritten module sizes this storage in elements, the original sizes "
        f"every storage in bytes; in bytes, as both are read, it is {size - n:,} bytes "
        "short"), subject=("unit",))


@dataclass
class ModuleShapes:
    """verify's facts: the rewritten module's, and the original's (None when verify was
    given one module object twice)."""

    rewritten: ShapeFacts
    original: ShapeFacts | None

    def failure(self) -> tuple | None:
        """("rewritten", the first failed fact of the rewritten module that the original
        does not fail too), or None. A fact the original fails as well (the same kind, function
        and tensors) is the original's, kept by the rewrite: no difference between them."""
        kept = {f.key() for f in self.original.failed} if self.original is not None else set()
        found = [f for f in self.rewritten.failed if f.key() not in kept]
        return ("rewritten", found[0]) if found else None

    def count(self, status: str) -> int:
        return sum(f.count(status) for f in (self.rewritten, self.original) if f is not None)

    def by_kind(self) -> dict:
        """{kind: {"proved": n, "failed": n, "unproven": n}} over both modules, the kinds in
        the order they first come."""
        out: dict = {}
        for facts in (self.rewritten, self.original):
            for f in facts.facts if facts is not None else ():
                out.setdefault(f.kind, {"proved": 0, "failed": 0, "unproven": 0})[f.status] += 1
        return out

    def kept(self) -> list:
        """(module, fact) for each failed fact that is no difference: the original's (a
        module that shares memory so on purpose), and the rewritten module's copies of them."""
        if self.failure() is not None:
            return []
        return [(which, fact) for which, facts in (("original", self.original),
                                                   ("rewritten", self.rewritten))
                if facts is not None for fact in facts.failed]

    def unproven(self) -> list:
        """(module, fact) for each unproven fact."""
        return [(which, fact) for which, facts in (("rewritten", self.rewritten),
                                                   ("original", self.original))
                if facts is not None for fact in facts.unproven]


def prove_modules(original: ir.Module, rewritten: ir.Module, functions) -> ModuleShapes:
    """The facts of the functions `functions` of both modules (verify's), both read in the
    original's unit (handlers/memory.py, read_storages_as), the disagreement on it first."""
    in_elements = storages_sized_in_elements(original)
    facts = shape_facts(rewritten, functions, in_elements)
    if original is rewritten:
        return ModuleShapes(facts, None)
    unit = unit_fact(rewritten, in_elements)
    if unit is not None:
        facts.facts.insert(0, unit)
    return ModuleShapes(facts, shape_facts(original, functions, in_elements))
