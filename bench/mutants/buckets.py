"""Bucket mutants (issue 45), built on a rewrite with `--capture-buckets VAR:auto`: wrong
rewrites that look like bucketed ones, each proved wrong by a run, and the controls.

* bucket-row-mixed: a kernel that mixes rows (not row-wise: passes/row_wise.py) padded with the
  rest of its region, as a rewrite that trusted every kernel to be row-wise makes it (MLC's
  `index`, the last token's row: at a bucket it reads a pad row);
* bucket-key-only: a graph keyed by the bucket whose capture runs at the real size (its inputs
  and shape argument the real ones): captured at one size, replayed at another of its bucket
  with the shapes of the first;
* bucket-view-offset: the real rows a bucketed graph hands on carved one row further into
  their storage: not a prefix of what the graph wrote;
* bucket-past-storage: a storage of the graphs' allocation that a bucketed graph carves cut to
  the rows of the bucket before the last: the last bucket runs past its end;
* bucket-formula-short (issue 50): the bucket's definition one row short at one declared
  bucket Bi (Bi - 1 there): its proof is the definition computed at Bi, and the bucket fact
  (proof/buckets.py) catches it, in functions that bucket two variables too;
* bucket-row-count (issue 50): a row-wise kernel of the original rewritten to sum over the row
  count (`b[i] = sum over k < n of a[i] * w`), in both modules, and bucketed: its real rows
  change at a bucket. Not caught yet (NOT_CAUGHT_YET): passes/row_wise.py calls it row-wise.

The proof is a run: verify (by runs alone) finds the bucketed rewrite equal and the mutant
different at `proof_values` (the two ends of a bucket that serves two sizes, for the last
class the last bucket's). The text is edited where the printed rewrite has the construct, so
a mutant is a text cgraph reads back. Positions: the candidates in text order split in three.
Controls: the bucketed rewrite, one with a shorter explicit list, and (reread_control) one of a
module whose eager code reads a bucketed region's input again after it.
"""

from __future__ import annotations

import contextlib
import gc
import re

from cudagraph_cli import api, ir
from cudagraph_cli.exec.prim import eval_prim
from cudagraph_cli.passes import buckets as bucket_pass
from cudagraph_cli.passes.options import RewriteOptions, auto_buckets
from cudagraph_cli.passes.row_wise import RowVerdict, kernel_verdicts

from .builder import Control, Mutant, NotBuildable
from .edits import reparsed

BUCKET_CLASSES = ("bucket-row-mixed", "bucket-key-only", "bucket-view-offset",
                  "bucket-past-storage", "bucket-formula-short", "bucket-row-count")
# Not caught yet: passes/row_wise.py calls the summed kernel row-wise, and so does verify's
# split of its launches (exec/rows.py), a false "equal" until row independence is read from
# what the body does (issue 50, item 1).
NOT_CAUGHT_YET = ("bucket-row-count",)


def bucketed(original: ir.Module, var: str, name: str, sizes: str = "auto") -> str:
    """The rewrite with --capture-buckets VAR:sizes, as text."""
    out, _ = api.rewrite(original, RewriteOptions(capture_buckets=(f"{var}:{sizes}",)))
    return api.print_module(reparsed(out, name))


def proof_values(top: int, last: bool = False) -> list:
    """Both ends of the first bucket of `auto` up to `top` that serves two sizes (3, 4), or of
    the last one: one graph captured at the first value and replayed at the second."""
    sizes = auto_buckets(top)
    pairs = [(lo + 1, hi) for lo, hi in zip(sizes, sizes[1:]) if hi - lo > 1]
    if not pairs:
        raise NotBuildable(f"no bucket of 1..{top} serves two sizes")
    return list(pairs[-1] if last else pairs[0])


def proof(original: ir.Module, text: str, fname: str, var: str, values: list) -> str | None:
    """Why `text` is no mutant (None when it is one): verify, by runs alone, at `values`."""
    try:
        got = api.verify(original, api.loads(text), calls=len(values), functions=[fname],
                         shapes={var: values}, facts=False)
    except api.SourceError as e:
        return f"does not run: {e.message}"
    finally:
        gc.collect()
    return f"equal at {var} = {values}" if got.equal else None


def _at(cands: list, position: str):
    if not cands:
        raise NotBuildable("no candidate")
    wanted = {"early": 1, "late": 2, "middle": 3}[position]
    if len(cands) < wanted:
        raise NotBuildable(f"{len(cands)} candidate(s): no {position} one")
    return cands[{"early": 0, "middle": len(cands) // 2, "late": len(cands) - 1}[position]]


def _mutant(model, original, fname, var, kind, position, site, why, text, values) -> Mutant:
    failed = proof(original, text, fname, var, values)
    if failed is not None:
        raise NotBuildable(f"{kind}: {failed}")
    return Mutant(model, fname, kind, position, None, site, why,
                  api.loads(text, name=f"{model}.{kind}.{position}.relax"), breaks_at=None)


@contextlib.contextmanager
def trusting(kernel: str | None):
    """The rewrite's row verdicts forced to row-wise, for `kernel` (every kernel when None),
    the others as passes/row_wise.py reads them: a rewrite that trusts them, as a wrong one
    would. Over `kernel_verdicts` (a table by kernel name), or over `LaunchVerdicts.of` (a
    verdict per launch) where passes/buckets.py asks that instead."""
    if hasattr(bucket_pass, "LaunchVerdicts"):
        cls = bucket_pass.LaunchVerdicts
        real_of = cls.of

        def of(self, call):
            if kernel is None or ir.callee_name(call) == kernel:
                return RowVerdict(ir.callee_name(call), self.var, None)
            return real_of(self, call)

        cls.of = of
        try:
            yield
        finally:
            cls.of = real_of
        return
    real = bucket_pass.kernel_verdicts

    def verdicts(module, name, functions=None):
        found = real(module, name, functions)
        return {k: RowVerdict(k, name, None) if kernel in (None, k) else v
                for k, v in {**found, **({kernel: None} if kernel else {})}.items()}

    bucket_pass.kernel_verdicts = verdicts
    try:
        yield
    finally:
        bucket_pass.kernel_verdicts = real


def row_mixed(model, original, fname, var, top, position) -> Mutant:
    if position != "early":
        raise NotBuildable("one candidate: the rewrite that trusts every kernel")
    mixed = [k for k, v in kernel_verdicts(original, var).items() if not v.row_wise]
    if not mixed:
        raise NotBuildable(f"every kernel of {var} is row-wise")
    with trusting(None):
        text = bucketed(original, var, f"{model}.row-mixed.relax")
    return _mutant(model, original, fname, var, "bucket-row-mixed", position,
                   f"{', '.join(mixed)} padded with their regions",
                   "a kernel that mixes rows reads pad rows at a bucket", text,
                   proof_values(top))


_LAUNCH = re.compile(r"\(cls\.(\w+), \((.*?)\), R\.prim_value\((\d+)\), "
                     r"R\.shape\(\[(\w+_bucket)\]\)\)")


def key_only(model, original, fname, var, top, position) -> Mutant:
    text = bucketed(original, var, f"{model}.buckets.relax")
    cands = [m for m in _LAUNCH.finditer(text) if "_b," in m.group(2) + ","]
    m = _at(cands, position)
    args = re.sub(r"\b(\w+)_b\b", r"\1", m.group(2)).replace(
        f"R.shape([{m.group(4)}])", f"R.shape([{var}])")
    new = (f"(cls.{m.group(1)}, ({args}), R.prim_value({m.group(3)}), "
           f"R.shape([{m.group(4)}]))")
    return _mutant(model, original, fname, var, "bucket-key-only", position,
                   f"graph {m.group(3)} ({m.group(1)})",
                   "keyed by the bucket, captured at the real size: replayed at another size "
                   "of its bucket with the first one's shapes",
                   text[:m.start()] + new + text[m.end():], proof_values(top))


_VIEW = re.compile(r"(\w+_view: R\.Tensor\(\(([^)]*)\), dtype=\"(\w+)\"\) = "
                   r"R\.memory\.alloc_tensor\(\w+, R\.prim_value\()(\d+)(\))")


def view_offset(model, original, fname, var, top, position) -> Mutant:
    text = bucketed(original, var, f"{model}.buckets.relax")
    m = _at(list(_VIEW.finditer(text)), position)
    dims = [d.strip() for d in m.group(2).split(",")]
    k = dims.index(var)
    row = 1
    for d in dims[k + 1:]:
        row *= int(d)
    row *= {"float16": 2, "float32": 4, "int32": 4, "int64": 8}.get(m.group(3), 4)
    new = f"{m.group(1)}{int(m.group(4)) + row}{m.group(5)}"
    return _mutant(model, original, fname, var, "bucket-view-offset", position,
                   m.group(1).split(":")[0], "the real rows handed on start one row late",
                   text[:m.start()] + new + text[m.end():], proof_values(top))


_STORAGE = re.compile(r"(\w+): R\.Any = R\.memory\.alloc_storage\(R\.shape\(\[(\d+)\]\)")


def past_storage(model, original, fname, var, top, position) -> Mutant:
    text = bucketed(original, var, f"{model}.buckets.relax")
    carved = set(re.findall(r"_b: R\.Tensor\(.*?\) = R\.memory\.alloc_tensor\((\w+),", text))
    alloc = text[text.index("def cuda_graph_alloc"):]
    alloc = alloc[:alloc.index("return")]
    cands = [m for m in _STORAGE.finditer(alloc) if m.group(1) in carved]
    m = _at(cands, position)
    sizes = auto_buckets(top)
    cut = int(m.group(2)) * sizes[-2] // sizes[-1]
    start = text.index("def cuda_graph_alloc") + m.start(2)
    wrong = text[:start] + str(cut) + text[start + len(m.group(2)):]
    return _mutant(model, original, fname, var, "bucket-past-storage", position,
                   f"storage {m.group(1)} cut to {cut} bytes",
                   f"the last bucket, {sizes[-1]} rows, runs past its end",
                   wrong, proof_values(top, last=True))


def bucketed_all(original: ir.Module, specs: tuple, name: str) -> str:
    """The rewrite with --capture-buckets for each of `specs` (`VAR:sizes`), as text."""
    out, _ = api.rewrite(original, RewriteOptions(capture_buckets=tuple(specs)))
    return api.print_module(reparsed(out, name))


def _function_text(text: str, fname: str) -> tuple:
    """(start, end) of function `fname`'s text in `text`."""
    start = text.index(f"    def {fname}(")
    nxt = text.find("\n    @", start)
    return start, len(text) if nxt < 0 else nxt


def formula_short(model, original, fname, var, top, position, specs=None) -> Mutant:
    """The bucket of VAR one row short at one declared bucket Bi: `bucket(Bi) = Bi - 1`,
    by two more quotients of the definition's form, `(VAR + K - 1 - Bi) // K` (1 when
    VAR > Bi) less `(VAR + K - Bi) // K` (1 when VAR >= Bi), K = upper + 1. `specs`: the
    --capture-buckets of the rewrite (VAR:auto alone by default; two variables of one
    function for Gemma-2's batch_prefill)."""
    specs = specs or (f"{var}:auto",)
    text = bucketed_all(original, specs, f"{model}.buckets.relax")
    sizes = auto_buckets(top)
    bi = _at([b for b in sizes if b >= 2], position)
    lo, hi = _function_text(text, fname)
    found = re.search(rf"{var}_bucket\w*_value: R\.Shape\(\[(.*?)\]\) = "
                      rf"R\.shape\(\[(.*?)\]\)\n", text[lo:hi])
    if found is None:
        raise NotBuildable(f"{fname} defines no bucket of {var}")
    k = top + 1
    short = (f" + ({var} + {k - 1 - bi}) // {k} - ({var} + {k - bi}) // {k}")
    line = found.group(0).replace(found.group(1), found.group(1) + short)
    wrong = text[:lo + found.start()] + line + text[lo + found.end():]
    module = api.loads(wrong, name=f"{model}.bucket-formula-short.{position}.relax")
    # The proof is the definition computed at Bi (a run may not show it: the row the graph
    # leaves out may hold the right bytes already, or feed no output).
    got = {name: eval_prim(expr, lambda _: bi) for name, (source, expr) in
           bucket_pass.derived_sym_vars(module.function(fname)).items() if source == var}
    if list(got.values()) != [bi - 1]:
        raise NotBuildable(f"bucket-formula-short: the edited bucket of {var} is {got} at {bi}")
    return Mutant(model, fname, "bucket-formula-short", position, None,
                  f"the bucket of {var} = {bi}", f"{var} = {bi} runs at {bi - 1} rows",
                  module, breaks_at={var: bi})


_ROW_WISE_BODY = re.compile(
    r"(        for )(\w+), (\w+) in T\.grid\((\w+), ([^)]*?\))\):\n"
    r"(            with T\.sblock\(\"\w+\"\):\n)"
    r"                (\w+), (\w+) = T\.axis\.remap\(\"SS\", \[\w+, \w+\]\)\n"
    r"(                T\.reads\(.*\)\n)"
    r"                T\.writes\((\w+\[\w+, \w+\])\)\n"
    r"                \w+\[\w+, \w+\] = (.*)\n")


def row_count(model, original, fname, var, top, position) -> Mutant:
    """A kernel whose real rows depend on the row count, in both modules: a row-wise kernel
    `b[i, j] = f(i, j)` of the original rewritten as `b[i, j] = sum over k < VAR of f(i, j)`
    (issue 50's reproduction), then bucketed as a rewrite that trusts it to keep rows apart
    does: at a bucket each real row is B * f, not v * f. Unscheduled two-loop kernels only
    (tests/buckets/rows.relax's `scale`)."""
    m = _at([m for m in _ROW_WISE_BODY.finditer(api.print_module(original))
             if m.group(4) == var], position)
    store, value = m.group(10), m.group(11)
    body = (f"{m.group(1)}{m.group(2)}, {m.group(3)}, k in T.grid({m.group(4)}, "
            f"{m.group(5)}, {var}):\n{m.group(6)}"
            f"                {m.group(7)}, {m.group(8)}, vk = T.axis.remap(\"SSR\", "
            f"[{m.group(2)}, {m.group(3)}, k])\n{m.group(9)}"
            f"                T.writes({store})\n"
            f"                with T.init():\n"
            f"                    {store} = T.float32(0.0)\n"
            f"                {store} = {store} + {value}\n")
    text = api.print_module(original)
    counted = api.loads(text[:m.start()] + body + text[m.end():],
                        name=f"{model}.row-count.original.relax")
    kernel = re.findall(r"def (\w+)\(", text[:m.start()])[-1]
    with trusting(kernel):  # that kernel called row-wise, as row_wise.py did
        text = bucketed(counted, var, f"{model}.row-count.relax")
    return Mutant(model, fname, "bucket-row-count", position, None,
                  f"kernel {kernel} summed over {var} rows",
                  f"at a bucket B each real row is B * f, not {var} * f",
                  api.loads(text, name=f"{model}.bucket-row-count.relax"), original=counted)


def reread_control(model: str, original: ir.Module, var: str) -> Control:
    """A right bucketed rewrite of a module whose eager code reads a bucketed region's input
    again after the region (tests/buckets/reread.relax): the carve at the bucket's rows and
    the input are one tensor, so verify finds it equal (issue 50's false overlap)."""
    return Control(model, None, f"--capture-buckets {var}:auto, an input read again after",
                   "cgraph's own rewrite", api.loads(bucketed(original, var,
                                                              f"{model}.buckets.relax")))


BUCKET_BUILDERS = {"bucket-row-mixed": row_mixed, "bucket-key-only": key_only,
                   "bucket-view-offset": view_offset, "bucket-past-storage": past_storage,
                   "bucket-formula-short": formula_short, "bucket-row-count": row_count}


def bucket_controls(model, original, fname, var, top) -> list:
    """The bucketed rewrite, and one with the first three buckets only: right at every size."""
    out = [Control(model, fname, f"--capture-buckets {var}:auto", "cgraph's own rewrite",
                   api.loads(bucketed(original, var, f"{model}.buckets.relax")))]
    short = ",".join(map(str, auto_buckets(top)[:3]))
    out.append(Control(model, fname, f"--capture-buckets {var}:{short}",
                       "cgraph's own rewrite", api.loads(bucketed(
                           original, var, f"{model}.buckets-short.relax", short))))
    return out
