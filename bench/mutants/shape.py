"""Shape mutants: rewrites that are right at the values of a symbolic variable a default run
used to take (1 and 2) and wrong at a larger one within the variable's bounds; and shape
controls, right at every value (a storage larger than needed).

* slot-short: a storage of the graphs' allocation (cuda_graph_alloc) given what its tensors
  need at 2, not at the bound: past 2 a tensor runs off its end (on a GPU, into whatever the
  allocator put next);
* offset-past: a tensor moved into the storage of another live one, just past what that one
  holds at 2: past 2 the two overlap;
* key-clamped: a graph keyed by `T.min(VAR, 2)` instead of VAR: the graph captured at 2
  replays at every larger value, with the buffers and shapes of 2.

Each mutant carries the value that breaks it (`Mutant.breaks_at`, the smallest one) and its
proof is a run there: `shape_proof` runs verify at 1 and 2 (equal) and at 2 then the breaking
value (a difference); a candidate that fails either is not a mutant. The control: a storage
of the graphs' allocation made twice as large (`slot_larger`): more bytes than any tensor
needs at any value, and nothing else changed.

Built on the public functions with one bounded symbolic input (`shape_functions`: MLC's
prefill and embed, with seq_len; the small TVM test modules' `main`), slot-short and
offset-past on cgraph's rewrite, key-clamped on the rewrite with `--capture-symbolic VAR`
(every value of VAR its own graph).

Positions: the candidates of a class in the order of the function's bindings, split in
three (early, middle, late); a function with one candidate has only "early".
"""

from __future__ import annotations

import gc

from cudagraph_cli import api, ir
from cudagraph_cli.exec.backend import numpy_dtype
from cudagraph_cli.exec.prim import eval_prim

from .builder import Control, Mutant, NotBuildable
from .edits import edit_bindings, graph_call_parts, replace_args, reparsed, with_function
from .trace import const_int, top_bindings

SHAPE_CLASSES = ("slot-short", "offset-past", "key-clamped")
# The largest value a shape mutant's breaking value is searched up to (and the proof runs at).
SEARCH = 64


def single_var(f: ir.Function) -> tuple[str, int] | None:
    """(the one symbolic variable of `f`'s inputs, its tir_var_upper_bound), or None."""
    names = {v.name for p in f.params[: f.num_input] for v in ir.sinfo_prim_vars(p.sinfo)}
    if len(names) != 1:
        return None
    var = names.pop()
    top = f.upper_bounds().get(var)
    return (var, top) if top is not None and top > 2 else None


def shape_functions(rewritten: ir.Module) -> list[tuple[str, str, int]]:
    """(function, variable, bound) of each public function of one bounded symbolic input."""
    out = []
    for f in rewritten.relax_functions():
        if f.is_private:
            continue
        found = single_var(f)
        if found is not None:
            out.append((f.name, *found))
    return out


def nbytes_at(shape, dtype, var: str, v: int) -> int | None:
    """The bytes of a tensor of `shape` (a ShapeExpr) and `dtype` at `var` = v; None when
    another variable or an unknown dtype is in it."""
    if type(shape) is not ir.ShapeExpr or type(dtype) is not ir.DataTypeImm:
        return None
    n = numpy_dtype(dtype.value).itemsize
    for d in shape.values:
        try:
            n *= int(eval_prim(d, lambda s: {var: v}[s.name]))
        except Exception:  # noqa: BLE001 -- another variable, or not an integer
            return None
    return n


class Slots:
    """The graphs' allocation as one function of the module sees it: which var holds slot k
    of which allocation, the slot's size and binding, and the function's alloc_tensors into
    the storages of slots."""

    def __init__(self, module: ir.Module, fname: str):
        self.module = module
        f = module.function(fname)
        allocs = {}  # tuple var -> allocation function name
        self.slot_of = {}  # storage var -> (allocation function, k)
        self.uses = []  # (position, binding, storage var, offset, shape, dtype)
        for pos, b in enumerate(top_bindings(f)):
            v = b.value
            if ir.CachedAlloc.of(v) is not None:
                allocs[b.var] = ir.CachedAlloc.of(v).function_name
            elif type(v) is ir.TupleGetItem and v.tuple_value in allocs:
                self.slot_of[b.var] = (allocs[v.tuple_value], v.index)
            elif type(v) is ir.Call and v.op == ir.Op("relax.memory.alloc_tensor") and \
                    v.args[0] in self.slot_of and const_int(v.args[1]) is not None:
                self.uses.append((pos, b, v.args[0], const_int(v.args[1]), v.args[2],
                                  v.args[3]))

    def storage(self, slot) -> tuple[int, int, ir.Function] | None:
        """(binding position in the allocation function, size in bytes, the function) of
        slot `slot` = (allocation function, k), when its size is a constant."""
        fn = self.module.function(slot[0])
        bs = top_bindings(fn)
        body = fn.body
        fields = next((b.value.fields for b in bs if b.var is body and
                       type(b.value) is ir.Tuple), None)
        if fields is None or slot[1] >= len(fields):
            return None
        for pos, b in enumerate(bs):
            if b.var is fields[slot[1]] and type(b.value) is ir.Call and \
                    b.value.op == ir.Op("relax.memory.alloc_storage"):
                shape = b.value.args[0]
                if type(shape) is ir.ShapeExpr and len(shape.values) == 1 and \
                        type(shape.values[0]) is ir.IntImm:
                    return pos, shape.values[0].value, fn
        return None


def resized(slots: Slots, slot, size: int) -> ir.Module:
    """The module with slot `slot`'s storage of `size` bytes."""
    pos, _, fn = slots.storage(slot)
    b = top_bindings(fn)[pos]
    call = replace_args(b.value, (ir.ShapeExpr((ir.IntImm(size, "int64"),)),) +
                        tuple(b.value.args[1:]))
    return with_function(slots.module, edit_bindings(fn, {pos: [ir.replace(b, value=call)]}))


def at_position(cands: list, position: str) -> object:
    """The candidate of `position`: the first, middle or last of `cands`."""
    if not cands:
        raise NotBuildable("no candidate")
    i = {"early": 0, "middle": len(cands) // 2, "late": len(cands) - 1}[position]
    if position != "early" and i == 0:
        raise NotBuildable("one candidate only (it is the early one)")
    return cands[i]


def smallest_break(fits, var: str, top: int) -> int | None:
    """The smallest value in 3 .. min(top, SEARCH) at which `fits(v)` is False, or None."""
    for v in range(3, min(top, SEARCH) + 1):
        if not fits(v):
            return v
    return None


def shape_proof(original: ir.Module, module: ir.Module, fname: str, var: str,
                v: int) -> str | None:
    """Why `module` is no shape mutant of `fname` breaking at `var` = v, or None when it is
    one: verify equal at 1 and 2, a difference at 2 then v (a graph captured at 2 replays at
    v). A module that cannot run at 1 or 2 is no such mutant."""
    try:
        # By runs alone (facts=False): the facts of the text catch these mutants whatever
        # values run, and the proof here is that a run at `v` sees what one at 1, 2 does not.
        small = api.verify(original, module, calls=4, functions=[fname],
                           shapes={var: [1, 2]}, facts=False)
        if not small.equal:
            return f"differs at {var} = 1, 2 already ({small.difference.kind})"
        big = api.verify(original, module, calls=3, functions=[fname],
                         shapes={var: [2, v, 1]}, facts=False)
    except api.SourceError as e:
        return f"does not run: {e.message}"
    finally:
        gc.collect()
    if big.equal:
        return f"equal at {var} = {v} too"
    return None


def slot_short(model, original, rewritten, fname, var, top, position) -> Mutant:
    """A slot of the graphs' allocation cut to what `fname`'s tensors in it need at 2."""
    slots = Slots(rewritten, fname)
    cands = []
    for slot in dict.fromkeys(s for s in slots.slot_of.values()):
        found = slots.storage(slot)
        uses = [u for u in slots.uses if slots.slot_of[u[2]] == slot]
        if found is None or not uses:
            continue
        needs = [(lambda v, u=u: (None if nbytes_at(u[4], u[5], var, v) is None else
                                  u[3] + nbytes_at(u[4], u[5], var, v))) for u in uses]
        if any(n(2) is None for n in needs):
            continue
        at2 = max(n(2) for n in needs)
        if at2 >= found[1]:
            continue
        v = smallest_break(lambda v: max(n(v) for n in needs) <= at2, var, top)
        if v is not None:
            cands.append((uses[0][0], slot, at2, found[1], v, uses[0][1]))
    cands.sort(key=lambda c: c[0])
    _, slot, at2, size, v, b = at_position(cands, position)
    m = reparsed(resized(slots, slot, at2), f"{model}.slot-short.{position}.relax")
    why = shape_proof(original, m, fname, var, v)
    if why is not None:
        raise NotBuildable(f"slot {slot[1]} cut to {at2} bytes: {why}")
    return Mutant(model, fname, "slot-short", position, None,
                  f"{slot[0]}'s slot {slot[1]} of {size} bytes cut to {at2} (what "
                  f"{b.var.name} and the others in it need at {var} = 2)",
                  f"at {var} = {v} a tensor runs past the storage's end", m,
                  breaks_at={var: v})


def offset_past(model, original, rewritten, fname, var, top, position) -> Mutant:
    """A tensor moved into the storage of the tensor allocated last in another slot before
    it, just past what that one holds at 2."""
    slots = Slots(rewritten, fname)
    f = rewritten.function(fname)
    cands = []
    for i, (pos, b, storage, offset, shape, dtype) in enumerate(slots.uses):
        if nbytes_at(shape, dtype, var, 2) is None:
            continue
        before = {}
        for u in slots.uses[:i]:
            before[u[2]] = u  # the last tensor placed in each storage before b
        for other, u in before.items():
            if other is storage:
                continue
            held = nbytes_at(u[4], u[5], var, 2)
            if held is None:
                continue
            new_offset = u[3] + held
            v = smallest_break(lambda v: u[3] + nbytes_at(u[4], u[5], var, v) <= new_offset,
                               var, top)
            if v is not None:
                cands.append((pos, b, other, new_offset, v, u[1]))
    # Those that still fit their new storage at the bound first: wrong by the overlap alone.
    size = {s: slots.storage(slot) for s, slot in slots.slot_of.items()}
    cands.sort(key=lambda c: not fits_at(size.get(c[2]), c[3], c[1].value, var, top))
    tried = []
    for pos, b, other, new_offset, v, live in at_position_list(cands, position):
        call = replace_args(b.value, (other, ir.PrimValue(ir.IntImm(new_offset, "int64")))
                            + tuple(b.value.args[2:]))
        m = reparsed(with_function(rewritten, edit_bindings(f, {pos: [ir.replace(b, value=call)]})),
                     f"{model}.offset-past.{position}.relax")
        why = shape_proof(original, m, fname, var, v)
        if why is None:
            return Mutant(model, fname, "offset-past", position, None,
                          f"{b.var.name} placed in {other.name} at offset {new_offset}, just "
                          f"past {live.var.name} at {var} = 2",
                          f"at {var} = {v} it overlaps {live.var.name}", m,
                          breaks_at={var: v})
        tried.append(why)
        if len(tried) >= 3:
            break
    raise NotBuildable(f"no tensor moved past a live one breaks only past 2: {tried}")


def fits_at(storage, offset: int, call, var: str, top: int) -> bool:
    """Whether alloc_tensor `call` placed at `offset` fits `storage` (Slots.storage) at the
    bound."""
    need = nbytes_at(call.args[2], call.args[3], var, top)
    return storage is not None and need is not None and offset + need <= storage[1]


def at_position_list(cands: list, position: str) -> list:
    """The candidates from `position`'s on (at_position), then the earlier ones."""
    if not cands:
        return []
    i = {"early": 0, "middle": len(cands) // 2, "late": len(cands) - 1}[position]
    if position != "early" and i == 0:
        return []
    return cands[i:] + cands[:i][::-1]


def key_clamped(model, original, bounded, fname, var, top, position) -> Mutant:
    """A graph keyed by `var` (a rewrite with --capture-symbolic) keyed by T.min(var, 2)."""
    f = bounded.function(fname)
    cands = []
    for block_binding in key_bindings(f, var):
        cands.append(block_binding)
    if not cands:
        raise NotBuildable(f"no graph keyed by {var}")
    path, b, fields = at_position(cands, position)
    key = fields[3]
    clamp = ir.ShapeExpr(tuple(ir.PrimCall("T.min", (d, ir.IntImm(2, "int64")))
                               if type(d) is ir.SymVar and d.name == var else d
                               for d in key.values))
    call = replace_args(b.value, (b.value.args[0], ir.Tuple(tuple(fields[:3]) + (clamp,))))
    m = reparsed(with_function(bounded, replace_binding(f, path, ir.replace(b, value=call))),
                 f"{model}.key-clamped.{position}.relax")
    v = 3
    why = shape_proof(original, m, fname, var, v)
    if why is not None:
        raise NotBuildable(f"graph keyed by T.min({var}, 2): {why}")
    return Mutant(model, fname, "key-clamped", position, None,
                  f"the graph launched at line {b.loc.line} keyed by T.min({var}, 2)",
                  f"at {var} = {v} the graph captured at 2 replays", m, breaks_at={var: v})


def key_bindings(f: ir.Function, var: str):
    """(path, binding, run_or_capture's fields) of each graph launch keyed by `var`, at the
    top level or in an if's branch (a --capture-symbolic VAR:MAX guard); path: (top-level
    position, None) or (position, binding index in the then-branch's blocks)."""
    for pos, b in enumerate(top_bindings(f)):
        if type(b.value) is ir.If:
            for j, x in enumerate(x for blk in b.value.true_branch.blocks
                                  for x in blk.bindings):
                yield from _keyed((pos, j), x, var)
        else:
            yield from _keyed((pos, None), b, var)


def _keyed(path, b, var):
    fields = graph_call_parts(b) if type(b.value) is ir.Call else None
    if fields is not None and len(fields) == 4 and type(fields[3]) is ir.ShapeExpr and any(
            type(d) is ir.SymVar and d.name == var for d in fields[3].values):
        yield path, b, fields


def replace_binding(f: ir.Function, path, new) -> ir.Function:
    pos, j = path
    if j is None:
        return edit_bindings(f, {pos: [new]})
    b = top_bindings(f)[pos]
    branch = b.value.true_branch
    blocks, k = [], 0
    for blk in branch.blocks:
        xs = []
        for x in blk.bindings:
            xs.append(new if k == j else x)
            k += 1
        blocks.append(ir.replace(blk, bindings=tuple(xs)))
    value = ir.replace(b.value, true_branch=ir.replace(branch, blocks=tuple(blocks)))
    return edit_bindings(f, {pos: [ir.replace(b, value=value)]})


def slot_larger(model: str, rewritten: ir.Module, fname: str) -> Control:
    """A control: the first slot `fname` places tensors in, twice as large. More bytes than
    any tensor needs at any value: nothing else changes."""
    slots = Slots(rewritten, fname)
    for u in slots.uses:
        slot = slots.slot_of[u[2]]
        found = slots.storage(slot)
        if found is not None:
            m = resized(slots, slot, 2 * found[1])
            return Control(model, fname, "slot-larger",
                           f"{slot[0]}'s slot {slot[1]} of {found[1]} bytes made "
                           f"{2 * found[1]}", reparsed(m, f"{model}.slot-larger.relax"))
    raise NotBuildable("no slot of the graphs' allocation holds a tensor of this function")
