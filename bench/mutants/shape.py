"""Shape mutants: rewrites that are right at the values of a symbolic variable a default run
used to take (1 and 2) and wrong at a larger one within the variable's bounds; and shape
controls, right at every value (a storage larger than needed).

* slot-short: a storage of the graphs' allocation (cuda_graph_alloc) given what its tensors
  need at 2, not at the bound: past 2 a tensor runs off its end (on a GPU, into whatever the
  allocator put next);
* offset-past: a tensor moved into the storage of another live one, just past what that one
  holds at 2: past 2 the two overlap;
* key-clamped: a graph keyed by `T.min(VAR, 2)` instead of VAR: the graph captured at 2
  replays at every larger value, with the buffers and shapes of 2;
* reshape-wrong: an `R.reshape` of an alloc'd tensor made a view of the same bytes (an
  alloc_tensor at the tensor's storage and offset) whose shape has `T.min(VAR, 2)` where VAR
  was, and so every reshape of that view: the same tensor at 1 and 2, fewer elements past 2
  (the kernel reading it sees a shorter tensor).

Each mutant carries the value that breaks it (`Mutant.breaks_at`, the smallest one) and its
proof is a run there: `shape_proof` runs verify at 1 and 2 (equal) and at 2 then the breaking
value (a difference); a candidate that fails either is not a mutant. The control: a storage
of the graphs' allocation made twice as large (`slot_larger`): more bytes than any tensor
needs at any value, and nothing else changed; and on the rewrite with `--capture-symbolic
VAR:MAX`, the guard's MAX raised to the function's tir_var_upper_bound (`guard_raised`): the
storages the guarded graph uses are planned at the upper bound, so every value up to it fits.

Built on the public functions with one bounded symbolic input (`shape_functions`: MLC's
prefill and embed, with seq_len; the small TVM test modules' `main`), slot-short,
offset-past and reshape-wrong on cgraph's rewrite, key-clamped on the rewrite with
`--capture-symbolic VAR` (every value of VAR its own graph).

Positions: the candidates of a class in the order of the function's bindings, split in
three (early, middle, late); a function with one candidate has only "early".
"""

from __future__ import annotations

import gc

from cudagraph_cli import api, ir
from cudagraph_cli.exec.backend import numpy_dtype
from cudagraph_cli.exec.prim import eval_prim
from cudagraph_cli.ir.sinfo import subst_prim

from .builder import Control, Mutant, NotBuildable
from .edits import edit_bindings, graph_call_parts, replace_args, reparsed, with_function
from .trace import const_int, top_bindings

SHAPE_CLASSES = ("slot-short", "offset-past", "key-clamped", "reshape-wrong")
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


def clamped(shape: ir.ShapeExpr, var: str) -> ir.ShapeExpr:
    """`shape` with `T.min(var, 2)` wherever `var` is."""
    two = {s: ir.PrimCall("T.min", (s, ir.IntImm(2, "int64")))
           for d in shape.values for s in ir.prim_vars(d) if s.name == var}
    return ir.ShapeExpr(tuple(subst_prim(d, two) for d in shape.values))


def reshape_wrong(model, original, rewritten, fname, var, top, position) -> Mutant:
    """An R.reshape of an alloc'd tensor made a view of its bytes (an alloc_tensor at the
    tensor's storage and offset) of the reshape's shape with T.min(var, 2) for var."""
    f = rewritten.function(fname)
    bs = top_bindings(f)
    alloc_of = {}  # var -> the relax.memory.alloc_tensor call that made it
    cands = []
    for pos, b in enumerate(bs):
        v = b.value
        if type(v) is ir.Call and v.op == ir.Op("relax.memory.alloc_tensor") and \
                const_int(v.args[1]) is not None:
            alloc_of[b.var] = v
        elif type(v) is ir.Var and v in alloc_of:
            alloc_of[b.var] = alloc_of[v]
        elif type(v) is ir.Call and v.op == ir.Op("relax.reshape") and \
                v.args[0] in alloc_of and type(v.args[1]) is ir.ShapeExpr:
            alloc = alloc_of[v.args[0]]
            target, dtype = v.args[1], alloc.args[3]
            short = clamped(target, var)
            if nbytes_at(target, dtype, var, 2) is None:
                continue
            brk = smallest_break(lambda n: nbytes_at(short, dtype, var, n) ==
                                 nbytes_at(target, dtype, var, n), var, top)
            if brk is not None:
                cands.append((pos, b, alloc, short, brk))
    if not cands:
        raise NotBuildable(f"no R.reshape of an alloc'd tensor with {var} in its shape")
    at_position(cands, position)  # NotBuildable where the position has no candidate of its own
    tried = []
    for pos, b, alloc, short, v in at_position_list(cands, position):
        view = replace_args(alloc, tuple(alloc.args[:2]) + (short,) + tuple(alloc.args[3:]))
        later = reshapes_of(bs, pos, var)
        edited = edit_bindings(f, dict([(pos, [ir.replace(b, value=view)])] + later))
        m = reparsed(with_function(rewritten, edited), f"{model}.reshape-wrong.{position}.relax")
        why = shape_proof(original, m, fname, var, v)
        if why is None:
            return Mutant(model, fname, "reshape-wrong", position, None,
                          f"{b.var.name} = R.reshape({b.value.args[0].name}) made a view of "
                          f"{alloc.args[0].name} at offset {const_int(alloc.args[1])} with "
                          f"T.min({var}, 2) for {var} in its shape" +
                          (f" (and in the {len(later)} reshapes of it)" if later else ""),
                          f"at {var} = {v} the view holds fewer elements than "
                          f"{b.value.args[0].name}", m, breaks_at={var: v})
        tried.append(why)
        if len(tried) >= 3:
            break
    raise NotBuildable(f"no reshape made a view of T.min({var}, 2) breaks only past 2: {tried}")


def reshapes_of(bs, pos: int, var: str) -> list:
    """(position, [binding]) edits clamping every later R.reshape of binding `pos`'s tensor,
    directly or through another such reshape: each keeps the element count of the view, so
    the kernel past them reads a shorter tensor rather than a reshape failing."""
    chain, edits = {bs[pos].var}, []
    for p in range(pos + 1, len(bs)):
        v = bs[p].value
        if type(v) is ir.Var and v in chain:
            chain.add(bs[p].var)
        elif type(v) is ir.Call and v.op == ir.Op("relax.reshape") and v.args[0] in chain \
                and type(v.args[1]) is ir.ShapeExpr:
            chain.add(bs[p].var)
            call = replace_args(v, (v.args[0], clamped(v.args[1], var)))
            edits.append((p, [ir.replace(bs[p], value=call)]))
    return edits


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


def guard_raised(model: str, bounded: ir.Module, fname: str) -> Control:
    """A control on a rewrite with --capture-symbolic VAR:MAX: the first guard's `VAR <= MAX`
    made `VAR <= BOUND`, the function's tir_var_upper_bound of VAR. Memory planning sizes the
    storages at the bound, so the graph replays right at every value up to it."""
    f = bounded.function(fname)
    bs = top_bindings(f)
    conds = {b.var: (p, b) for p, b in enumerate(bs) if type(b.value) is ir.PrimValue}
    for b in bs:
        if type(b.value) is not ir.If or b.value.cond not in conds:
            continue
        p, cb = conds[b.value.cond]
        test = cb.value.value
        bound_test = test.lhs if test.op == "and" else test
        if bound_test.op != "<=" or type(bound_test.lhs) is not ir.SymVar or \
                type(bound_test.rhs) is not ir.IntImm:
            continue
        var, old = bound_test.lhs.name, bound_test.rhs.value
        top = f.upper_bounds().get(var)
        if top is None or top <= old:
            raise NotBuildable(f"the guard's {var} <= {old} is at the bound ({top}) already")
        raised = ir.PrimBinOp("<=", bound_test.lhs, ir.IntImm(top, bound_test.rhs.dtype))
        new_test = ir.PrimBinOp("and", raised, test.rhs) if test.op == "and" else raised
        m = with_function(bounded, edit_bindings(f, {p: [ir.replace(
            cb, value=ir.replace(cb.value, value=new_test))]}))
        return Control(model, fname, "guard-raised",
                       f"the guard {var} <= {old} raised to {var} <= {top} (the "
                       f"tir_var_upper_bound)", reparsed(m, f"{model}.guard-raised.relax"))
    raise NotBuildable("no guard VAR <= MAX (a rewrite without --capture-symbolic VAR:MAX)")
