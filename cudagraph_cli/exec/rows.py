"""Real rows kept apart from pad rows: verify's model of a row-wise kernel, for bucketed rewrites.

A bucketed rewrite (`--capture-buckets`, passes/buckets.py) runs a row-wise kernel over B rows
where the original runs it over v <= B; its v real rows must be what the original's are,
whatever the pad rows hold. The synthetic kernel (kernels.py) mixes all of its inputs into every
output byte, and a term (terms.py) is a function of whole arguments: both would call the real
rows different. So, when the rewritten module defines a bucket variable, the backend runs each
launch of a kernel that passes/row_wise.py finds row-wise over B rows where the call's real
size is v < B as two launches of the same kernel (B the launch's rows; v the value, in the
function's call, of the variable its row dimension is in the struct info of the call being
run: a capture function's `seq_len`, bound to the bucket by its shape parameter): the real rows [0, v), on the row-sized
arguments' first v rows and the whole of the others (weights), which is the original's launch
exactly, in bytes and in terms; then the pad rows [v, B). The split is made each time the launch
runs, a graph's replay included, at that call's v. A kernel that mixes rows stays one launch
over all B rows, so padding it shows as a difference.
"""

from __future__ import annotations

import math

from .. import ir
from ..ir import tir
from ..passes.buckets import derived_sym_vars
from ..passes.row_wise import row_wise
from ..proof.ranges import Derived, FunctionRanges
from ..text.tir_reader import read as read_tir
from .backend import Tensor


class RowSplit:
    """What a backend asks before running a launch (CpuBackend's): the launch's parts."""

    def __init__(self, executor, module: ir.Module):
        self.executor = executor
        self.prims = {f.name: f for f in module.functions if isinstance(f, ir.PrimFunc)}
        # bucket variable name -> the variable it is computed from
        self.buckets = {name: var for f in module.relax_functions()
                        for name, (var, _) in derived_sym_vars(f).items()}
        self.rows: dict = {}  # PrimFunc name -> {tensor index: row dimension} or None
        self.split: set = set()  # the kernels whose launches were split (verify reports them)
        self.busy = False

    def run(self, run_part, spec, tensors: list, scalars: list) -> bool:
        """Runs the launch as its real and pad rows (`run_part`: the backend's own run of one
        launch), if it is one to split; False if not."""
        if self.busy:
            return False
        parts = self.parts(spec, tensors)
        if parts is None:
            return False
        self.busy = True
        try:
            for part in parts:
                run_part(spec, part, scalars)
        finally:
            self.busy = False
        return True

    def parts(self, spec, tensors: list):
        f = self.prims.get(spec.name)
        if f is None:
            return None
        if f.name not in self.rows:
            self.rows[f.name] = tensor_row_dims(f)
        dims = self.rows[f.name]
        if not dims or any(t >= len(tensors) for t in dims):
            return None
        counts = {tensors[t].shape[d] if len(tensors[t].shape) > d else None
                  for t, d in dims.items()}
        if len(counts) != 1:
            return None
        rows = counts.pop()
        named = self.row_variable(spec, dims)
        real = self.real_rows(rows) if named is None else self.value_of(named, rows)
        if real is None:
            return None
        self.split.add(f.name)
        return [[_rows(self.executor.backend, x, dims[t], lo, hi) if t in dims else x
                 for t, x in enumerate(tensors)] for lo, hi in ((0, real), (real, rows))]

    def row_variable(self, spec, dims: dict) -> str | None:
        """The variable the launch's row-sized arguments have as their row dimension, read
        from the struct info of the call being run (a capture function's `seq_len`, bound to
        the bucket by its shape parameter); None when the call does not say."""
        b = getattr(self.executor, "binding", None)
        call = getattr(b, "value", None)
        if type(call) is not ir.Call or not isinstance(call.op, ir.GlobalVarRef) or \
                call.op.name != spec.name:
            return None
        args = [a for a in call.args if type(a) is ir.Var and type(a.sinfo) is ir.TensorSInfo]
        names = set()
        for t, d in dims.items():
            shape = args[t].sinfo.shape if t < len(args) else None
            dim = shape[d] if isinstance(shape, tuple) and d < len(shape) else None
            names.add(dim.name if type(dim) is ir.SymVar else None)
        return names.pop() if len(names) == 1 and None not in names else None

    def value_of(self, name: str, rows: int) -> int | None:
        """The real rows of a launch whose row dimension is the variable `name`: its value in
        the call being run, when less than the launch's rows (it runs at a bucket)."""
        values = {s.name: v for s, v in getattr(self.executor, "call_syms", {}).items()}
        real = values.get(name)
        return real if real is not None and 0 < real < rows else None

    def real_rows(self, rows) -> int | None:
        """v when `rows` is the value of a bucket variable of the call being run and v, the
        value of the variable it is computed from, is less."""
        values = {s.name: v for s, v in getattr(self.executor, "call_syms", {}).items()}
        for bucket, var in self.buckets.items():
            if values.get(bucket) == rows and var in values and 0 < values[var] < rows:
                return values[var]
        return None


def keep_rows_apart(executor, module: ir.Module) -> None:
    """The executor's backend splits the launches of row-wise kernels at the real rows."""
    executor.backend.row_split = RowSplit(executor, module)


def tensor_row_dims(f: ir.PrimFunc) -> dict | None:
    """{tensor argument index: its row dimension} when `f` is row-wise in exactly one of its
    variables (one that some buffer has as a dimension of its own), else None."""
    kernel = read_tir(f)
    candidates: list = []
    for p in f.params:
        b = kernel.buffers.get(p.name)
        for d in b.shape if b is not None else ():
            if isinstance(d, tir.Var) and d.name not in candidates:
                candidates.append(d.name)
    found = [v for v in (row_wise(f, var) for var in candidates) if v.row_wise and v.rows]
    if len(found) != 1:
        return None
    tensor_index = {p.name: k for k, p in
                    enumerate(p for p in f.params if p.kind in ("buffer", "handle"))}
    return {tensor_index[name]: dim for name, dim in found[0].rows if name in tensor_index}


def _rows(backend, t: Tensor, dim: int, lo: int, hi: int) -> Tensor:
    """Rows lo .. hi of `t` along `dim` (its leading varying dimension: only 1s before it)."""
    shape = tuple(t.shape)
    row_bytes = math.prod(shape[dim + 1:]) * t.array.dtype.itemsize
    return backend.tensor_view(t, lo * row_bytes, shape[:dim] + (hi - lo,) + shape[dim + 1:],
                               t.dtype)


def served_sizes(f: ir.Function, var: str, bucket: str, derived) -> dict:
    """{bucket value: the sizes it serves, ascending} over `var`'s range in `f` (proof/ranges.py:
    1 .. its tir_var_upper_bound), {} where the range has no largest value."""
    r = FunctionRanges(f).of(var)
    if r.most is None:
        return {}
    served: dict = {}
    for v in range(max(r.least, 1), r.most + 1):
        served.setdefault(derived.value(bucket, v), []).append(v)
    return served


def bucket_ends(module: ir.Module, functions, picked: dict) -> dict:
    """`picked` (variable -> values verify runs) with, for each variable a bucket of
    `functions` is computed from (passes/buckets.py), both ends of its first bucket that serves
    two sizes or more, appended: one graph captured at the lower end and replayed at the upper
    (a graph keyed by the bucket whose shapes are not bucketed computes the wrong rows there).
    The variable's values run over its range (proof/ranges.py). Two bucketed variables of one
    function may meet at one size: RowSplit tells a launch's real rows by the variable its row
    dimension is, not by its row count."""
    out = {k: list(v) for k, v in picked.items()}
    for f in module.relax_functions():
        if f.name not in functions:
            continue
        derived = Derived(f)
        for bucket, (var, _) in derived.exprs.items():
            served = served_sizes(f, var, bucket, derived)
            pair = next(((s[0], s[-1]) for b, s in served.items() if len(s) > 1), None)
            if pair is not None:
                values = out.setdefault(var, [])
                values += [v for v in pair if v not in values]
    return out


def every_bucket_ends(module: ir.Module, functions, values: dict) -> dict:
    """The bounds run's `values` (variable -> values, bound_values') with, for each variable a
    bucket of `functions` is computed from, both ends of every bucket that serves two sizes or
    more put just before the variable's upper bound, in order: each bucket's graph captured at
    its lowest size and replayed at its highest, the last one's at the bound (the largest
    padding). In a function that buckets two variables (Phi-2's batch_prefill: seq_len and
    batch_size) both get every bucket's ends."""
    out = {k: list(v) for k, v in values.items()}
    for f in module.relax_functions():
        if f.name not in functions:
            continue
        derived = Derived(f)
        for bucket, (var, _) in derived.exprs.items():
            served = served_sizes(f, var, bucket, derived)
            if var not in out or not served or max(served[max(served)]) not in out[var]:
                continue
            top = max(served[max(served)])
            ends = [(s[0], s[-1]) for _, s in sorted(served.items()) if len(s) > 1]
            for v in (v for pair in ends for v in pair):
                if v not in out[var]:
                    out[var].insert(out[var].index(top), v)
    return out
