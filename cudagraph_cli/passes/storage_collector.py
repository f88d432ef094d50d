"""Step 1 of the rewrite: storages whose tensors flow to a function's return value are never lifted.

A storage lifted into the shared `cuda_graph_alloc` is reused by every call (and, merged,
by other functions): a tensor returned to the caller must not live there. TVM's
OutputStorageCollector walks the bindings backwards from the returned vars through aliases
(`a = b`) and tuples (`t = (a, b)`), and takes the storage of every returned
`R.memory.alloc_tensor`. It does not follow tuple get-items (`a = t[0]`), so a storage can
reach the return value through one and still be lifted; cgraph follows them, to the field
taken (`follow_getitem=True`, always on in the pipeline; False reproduces TVM). It also takes
the arguments of a call to a Relax function as possibly returned: the callee may return one
of them (found by `cgraph verify` on generated modules). And a storage the function returns
itself (`return (storage, storage1)`) stays the caller's: TVM takes only the storages of
returned tensors, lifts a returned static storage, and the next call overwrites what the
caller holds (found by `cgraph verify` on fuzzed samples).

A second gap, also closed by `follow_getitem=True`: TVM visits the bindings of a dataflow block
forwards, not backwards (its visitor overrides only plain blocks), so a chain written in
order inside a dataflow block is not followed. A third: TVM's walk skips `u = R.match_cast(t,
...)`, so a storage returned as u is lifted; cgraph follows it to t. A fourth: TVM stops at
every call, views included (`v = R.reshape(a, ...)`, `R.memory.view`, `vm.builtin.reshape`),
so a storage returned through a view of one of its tensors is lifted; cgraph follows a view
to the tensor it views.

The same walk gives the vars whose value may be returned (`returned_values`): a call that
allocates its result (an operator, a packed call returning a tensor) and is bound to one of
them is not lifted either (correction 3), since a graph's result is the graph's memory,
written again by every replay. TVM lifts it.
"""

from __future__ import annotations

from .. import ir


def free_vars(e, out: list) -> list:
    """The vars used in `e`, appended to `out`."""
    out.extend(x for x in ir.walk(e) if type(x) is ir.Var)
    return out


def output_storages(f: ir.Function, follow_getitem: bool = True,
                    relax_functions: frozenset = frozenset()) -> set[ir.Var]:
    """The storage vars whose tensors may be returned by `f` (`relax_functions`: the
    names of the module's Relax functions, whose calls may return their arguments)."""
    return flow_to_return(f, follow_getitem, relax_functions)[1]


def returned_values(f: ir.Function, relax_functions: frozenset = frozenset()) -> set[ir.Var]:
    """The vars of `f` whose value may be returned, whole or in part (a tuple some fields of
    which are): the walk of `output_storages` with every correction on. The region planner
    keeps a call that allocates its result outside any graph when its var is one of these."""
    return flow_to_return(f, True, relax_functions)[0]


def flow_to_return(f: ir.Function, follow_getitem: bool,
                   relax_functions: frozenset) -> tuple[set[ir.Var], set[ir.Var]]:
    """(the vars whose value may be returned, whole or in part; the storages whose tensors
    may be), walking `f` backwards from its return value."""
    outputs: set[ir.Var] = set(free_vars(f.body, []))
    # With follow_getitem: tuples of which only some fields are returned (`r = t[0]`).
    partial: dict[ir.Var, set[int]] = {}  # var -> indices of its fields returned
    storages: set[ir.Var] = set()

    for b, branch in _backwards(f.blocks, follow_getitem):
        if branch is not None:
            # As TVM: each branch's result counts as returned (its visitor treats every
            # SeqExpr's result so), then the branch is walked backwards (the bindings that
            # follow from _backwards).
            outputs.update(free_vars(branch.body, []))
            continue
        if not isinstance(b, ir.VarBinding):
            # `u = R.match_cast(t, ...)` makes u the very value of t: returning u
            # returns t (TVM's collector looks only at var bindings).
            if follow_getitem and isinstance(b, ir.MatchCast) and \
                    (b.var in outputs or b.var in partial):
                if b.var in outputs:
                    outputs.update(free_vars(b.value, []))
                elif type(b.value) is ir.Var:
                    partial.setdefault(b.value, set()).update(partial[b.var])
            continue
        whole = b.var in outputs
        fields = partial.get(b.var)
        if not whole and not fields:
            continue
        v = b.value
        t = type(v)
        if t is ir.Var:
            if whole:
                outputs.add(v)
            else:
                partial.setdefault(v, set()).update(fields)
        elif t is ir.Tuple:
            for i, field in enumerate(v.fields):
                if type(field) is ir.Var and (whole or i in fields):
                    outputs.add(field)
                elif follow_getitem and (whole or i in fields):
                    # A nested tuple literal: all the vars in it (TVM skips these).
                    outputs.update(free_vars(field, []))
        elif t is ir.Call:
            memory = ir.memory_call(v)
            kind = memory.kind if memory is not None else None
            if whole and kind == ir.ALLOC_TENSOR and type(memory.aliased) is ir.Var:
                storages.add(memory.aliased)
            elif whole and follow_getitem and kind == ir.ALLOC_STORAGE:
                # The storage itself is returned (TVM looks only for tensors in one).
                storages.add(b.var)
            elif follow_getitem and kind is not None and memory.is_view:
                # A view shares its input's bytes: returning it returns them (TVM's
                # collector stops at any call, and lifts the input's storage).
                x = memory.aliased
                if whole:
                    outputs.update(free_vars(x, []))
                elif type(x) is ir.Var:
                    partial.setdefault(x, set()).update(fields)
            elif follow_getitem and isinstance(v.op, ir.GlobalVarRef) and \
                    v.op.name in relax_functions:
                # A Relax function may return (part of) an argument: what is passed in
                # may come back as the result (TVM does not look through calls).
                outputs.update(x for a in v.args for x in free_vars(a, []))
        elif t is ir.TupleGetItem and follow_getitem and type(v.tuple_value) is ir.Var:
            # The returned value is field `index` of the tuple (all of it if this var is
            # itself only partly returned: one level of precision is enough).
            partial.setdefault(v.tuple_value, set()).add(v.index)

    return outputs | set(partial), storages


def _backwards(blocks, follow_getitem: bool):
    """(binding, None) for each binding of `blocks` in the order flow_to_return walks them
    (backwards; a dataflow block forwards without follow_getitem, TVM's quirk); for an `If`,
    (None, branch) for each branch, followed by the branch's own bindings so walked. A
    generator, not a recursive closure: that would be a reference cycle."""
    for block in reversed(blocks):
        forwards = block.is_dataflow and not follow_getitem  # TVM's quirk, see above
        for b in (block.bindings if forwards else reversed(block.bindings)):
            if isinstance(b, ir.VarBinding) and type(b.value) is ir.If:
                for seq in (b.value.true_branch, b.value.false_branch):
                    yield None, seq
                    yield from _backwards(seq.blocks, follow_getitem)
            else:
                yield b, None


def collect(module: ir.Module, follow_getitem: bool = True,
            functions: tuple | None = None) -> dict[str, set[ir.Var]]:
    """The stage: `output_storages` of each Relax function (of those in `functions`, when
    given), by name."""
    relax_functions = frozenset(f.name for f in module.relax_functions())
    return {f.name: output_storages(f, follow_getitem, relax_functions)
            for f in module.relax_functions()
            if functions is None or f.name in functions}


def collect_returned_values(module: ir.Module,
                            functions: tuple | None = None) -> dict[str, set[ir.Var]]:
    """`returned_values` of each Relax function (of those in `functions`, when given), by
    name: for correction 3's calls that allocate their results."""
    relax_functions = frozenset(f.name for f in module.relax_functions())
    return {f.name: returned_values(f, relax_functions)
            for f in module.relax_functions()
            if functions is None or f.name in functions}
