"""Small unscheduled TIR kernels in a variable `n` of rows, from a grammar of patterns, and TVM
as the judge of whether a kernel keeps its rows apart (issue 50, item 2: the semantics check of
passes/row_wise.py).

`generate(cls, seed)` writes one kernel of pattern class `cls` (CLASSES) as TVMScript text: a
one-PrimFunc `@I.ir_module` that cgraph (`api.loads`) and TVM 0.27 (`tvm.script.from_source`)
both read. Row-sized buffers are declared either as handles matched in the body (`n =
T.int64()`, `a = T.match_buffer(var_a, (n, C))`, as TVM prints a PrimFunc) or as `T.Buffer((n,
C))` parameters with `n = TypeVar("n")` (as cgraph's samples spell them), drawn per kernel; the
rows may be dimension 1 (`(C, n)`). `n` stays symbolic, so one TVM build runs at any `n`. One
class (LAUNCHES) is a kernel in `n` and `m` inside a Relax function that launches it twice,
binding m once to a constant and once to the rows: cgraph judges it through
`kernel_verdicts(module, "seq")`, the runs bind m to the rows as the second launch does.

`judge(kernel, n, bucket, trials, seed)` is the oracle: it builds the kernel for llvm once (cached
by text), runs it at `n` rows and at `bucket > n` rows, where rows [0, n) of every row-sized
buffer hold the n-run's data and rows [n, bucket) fresh random data each trial (non-row buffers
identical), and compares rows [0, n) of every row-sized buffer and the whole of every non-row
buffer afterwards. Every buffer is an input and an output (what a kernel leaves unwritten must
also agree). The kernel is *truly row-wise* when they agree in every trial. Index buffers (a
gather's ids) hold valid indices in both runs: in a table, or in [0, rows) for ids into the rows
(the real rows' ids stay below n, so they name real rows).

    python tests/helpers/row_kernels.py CLASS SEED   # prints the kernel, TVM's and cgraph's verdict
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass
from functools import lru_cache

HEADER = """# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
"""


RELAX_HEADER = HEADER.replace(
    "# from tvm.script import tir as T\n",
    "# from tvm.script import tir as T\n# from tvm.script import relax as R\n")


def c(k: int) -> str:
    return f"T.int64({k})"


F0 = "T.float32(0.0)"


@dataclass(frozen=True)
class Param:
    """A kernel parameter: `dims` of "n", "m" and ints; `row` the dimension sized by n (or by m,
    which the launch binding class binds to the rows too; None: a non-row buffer); `high` for an
    int32 index buffer: its values' bound (an int, or "n": the run's rows)."""

    name: str
    dims: tuple
    dtype: str = "float32"
    high: object = None
    strides: tuple | None = None  # spelled in the declaration (compact: what TVM's runs pass)

    @property
    def row(self):
        rows = [i for i, d in enumerate(self.dims) if d in ("n", "m")]
        return rows[0] if rows else None

    def shape_text(self) -> str:
        dims = [d if isinstance(d, str) else c(d) for d in self.dims]
        return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"

    def declared(self) -> str:
        """The declaration's arguments after the buffer: shape, dtype and strides."""
        text = f'{self.shape_text()}, "{self.dtype}"'
        if self.strides is not None:
            text += ", strides=(" + ", ".join(d if isinstance(d, str) else c(d)
                                              for d in self.strides) + ")"
        return text

    def shape(self, rows: int) -> tuple:
        return tuple(rows if isinstance(d, str) else d for d in self.dims)


@dataclass
class Part:
    """One pattern's contribution: parameters, lines at the function body's indentation, the
    (n, C) float32 output a composition can feed to a second pattern, and the variant."""

    params: list
    lines: list
    out: str | None
    variant: str


@dataclass(frozen=True)
class Kernel:
    cls: str
    variant: str
    params: tuple
    lines: tuple
    name: str = "k"
    seed: int = 0
    launches: str | None = None  # a Relax `main` launching the kernel (the launch binding class)
    form: str = "handle"  # "handle": var_a: T.handle, a = T.match_buffer(var_a, (n, C));
    #                       "buffer": a: T.Buffer((n, C)), n a module-level TypeVar

    @property
    def text(self) -> str:
        """The PrimFunc alone: what TVM builds and runs."""
        return self.header(HEADER) + self.function_text()

    def header(self, header: str) -> str:
        if self.form == "handle":
            return header
        names = [v for v in ("n", "m") if any(v in p.dims for p in self.params)]
        head = "# from typing import TypeVar\n" + header.split("\n@I.ir_module")[0] + "\n"
        types = "".join(f'{v} = TypeVar("{v}")\n' for v in names)
        return head + types + "@I.ir_module\nclass Module:\n"

    @property
    def cgraph_text(self) -> str:
        """What cgraph judges: the PrimFunc, with the Relax function launching it if any."""
        if self.launches is None:
            return self.text
        return self.header(RELAX_HEADER) + self.function_text() + "\n" + self.launches

    def function_text(self) -> str:
        sig = []
        body = ["        n = T.int64()"] if self.form == "handle" else []
        if self.form == "handle" and any("m" in p.dims for p in self.params):
            body.append("        m = T.int64()")
        for p in self.params:
            if p.row is None or self.form == "buffer":
                sig.append(f"{p.name}: T.Buffer({p.declared()})")
            else:
                sig.append(f"var_{p.name}: T.handle")
                body.append(f"        {p.name} = T.match_buffer(var_{p.name}, {p.declared()})")
        head = f"    @T.prim_func(s_tir=True)\n    def {self.name}({', '.join(sig)}):\n"
        return head + "\n".join(body + list(self.lines)) + "\n"


def indent(lines: list, k: int) -> list:
    return [" " * (4 * k) + x for x in lines]


def block(name: str, iters: list, reads: str, writes: str, stmts: list, extra=()) -> list:
    """A `with T.sblock` at relative indentation 0: iterator lines, regions, `extra` (where,
    match_buffer, lets), then the statements."""
    out = [f'with T.sblock("{name}"):']
    out += indent(list(iters) + list(extra) + [f"T.reads({reads})", f"T.writes({writes})"]
                  + list(stmts), 1)
    return out


def loops(var_ext: list, body: list) -> list:
    """`for a, b in T.grid(...)` around `body` (both at relative indentation)."""
    names = ", ".join(v for v, _ in var_ext)
    exts = ", ".join(e for _, e in var_ext)
    head = (f"for {names} in T.grid({exts}):" if len(var_ext) > 1
            else f"for {names} in range({exts}):")
    return [head] + indent(body, 1)


def at_body(lines: list) -> list:
    return indent(lines, 2)


def row_in(p: str, a: str | None, C: int) -> tuple:
    """The (n, C) float32 input of a pattern: `a` when composed, else a new parameter."""
    if a is not None:
        return a, []
    return f"{p}a", [Param(f"{p}a", ("n", C))]


def elementwise_expr(rng, a: str, w: str, vi="vi", vj="vj") -> tuple:
    ops = [f"{a}[{vi}, {vj}] * {w}[{vj}]", f"{a}[{vi}, {vj}] + {w}[{vj}]",
           f"T.max({a}[{vi}, {vj}], {F0}) * {w}[{vj}]", f"T.exp({a}[{vi}, {vj}]) - {w}[{vj}]"]
    return rng.choice(ops), f"{a}[{vi}, {vj}], {w}[{vj}]"


# -- the patterns: each (rng, prefix, C, input or None) -> Part --------------------------------

def ss(n_iters: str = "SS", names=("i", "j")) -> str:
    vs = ", ".join("v" + x for x in names)
    return f'{vs} = T.axis.remap("{n_iters}", [{", ".join(names)}])'


def pat_elementwise(rng, p, C, a):
    a, params = row_in(p, a, C)
    w, b = f"{p}w", f"{p}b"
    expr, reads = elementwise_expr(rng, a, w)
    params += [Param(w, (C,)), Param(b, ("n", C))]
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}ew", [ss()], reads, f"{b}[vi, vj]", [f"{b}[vi, vj] = {expr}"]))
    return Part(params, at_body(body), b, "plain")


def pat_norm_cols(rng, p, C, a):
    a, params = row_in(p, a, C)
    w, b, acc = f"{p}w", f"{p}b", f"{p}acc"
    params += [Param(w, (C,)), Param(b, ("n", C))]
    s1 = block(f"{p}sq", [ss("SR", ("i", "k"))], f"{a}[vi, vk]", f"{acc}[vi]",
               ["with T.init():", f"    {acc}[vi] = {F0}",
                f"{acc}[vi] = {acc}[vi] + {a}[vi, vk] * {a}[vi, vk]"])
    s2 = block(f"{p}nrm", [ss()], f"{acc}[vi], {a}[vi, vj], {w}[vj]", f"{b}[vi, vj]",
               [f"{b}[vi, vj] = {a}[vi, vj] * T.rsqrt({acc}[vi] / T.float32({C}.0) + "
                f"T.float32(1.0)) * {w}[vj]"])
    body = [f'{acc} = T.sblock_alloc_buffer((n,), "float32")']
    body += loops([("i", "n"), ("k", c(C))], s1) + loops([("i", "n"), ("j", c(C))], s2)
    return Part(params, at_body(body), b, "rmsnorm")


def reduction(p, name, iters, kinds, reads, out_ix, expr, dst) -> list:
    names = tuple(v for v, _ in iters)
    return loops(iters, block(f"{p}{name}", [ss(kinds, names)], reads, f"{dst}[{out_ix}]",
                              ["with T.init():", f"    {dst}[{out_ix}] = {F0}",
                               f"{dst}[{out_ix}] = {dst}[{out_ix}] + {expr}"]))


def pat_reduce_cols(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}b"
    params += [Param(b, ("n",))]
    body = reduction(p, "rsum", [("i", "n"), ("k", c(C))], "SR", f"{a}[vi, vk]", "vi",
                     f"{a}[vi, vk]", b)
    return Part(params, at_body(body), None, "sum")


def pat_reduce_var_nonrow(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}s"
    params += [Param(b, (C,))]
    honest = rng.random() < 0.5
    reads = f"{a}[vi, vj]" if honest else f"{a}[{c(0)}, vj]"
    body = reduction(p, "csum", [("j", c(C)), ("i", "n")], "SR", reads, "vj", f"{a}[vi, vj]", b)
    return Part(params, at_body(body), None, "honest" if honest else "wrong regions")


def pat_reduce_var_row(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}b"
    params += [Param(b, ("n", C))]
    honest = rng.random() < 0.5
    reads = f"{a}[{c(0)}:n, vj]" if honest else f"{a}[vi, vj]"
    body = reduction(p, "tot", [("i", "n"), ("j", c(C)), ("k", "n")], "SSR", reads, "vi, vj",
                     f"{a}[vk, vj]", b)
    return Part(params, at_body(body), b, "honest" if honest else "wrong regions")


def pat_reduce_var_weights(rng, p, C, a):
    """The known false positive: a reduction of extent n over values without rows."""
    a, params = row_in(p, a, C)
    w, b = f"{p}w", f"{p}b"
    params += [Param(w, (C,)), Param(b, ("n", C))]
    body = reduction(p, "nw", [("i", "n"), ("j", c(C)), ("k", "n")], "SSR",
                     f"{a}[vi, vj], {w}[vj]", "vi, vj", f"{a}[vi, vj] * {w}[vj]", b)
    return Part(params, at_body(body), b, "sum over k < n of a[i] * w")


def pat_scan(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}b"
    params += [Param(b, ("n", C))]
    forward = rng.random() < 0.5
    honest = rng.random() < 0.5
    cond = "vk <= vi" if forward else "vk >= vi"
    reads = f"{a}[{c(0)}:n, vj]" if honest else f"{a}[vi, vj]"
    body = reduction(p, "scan", [("i", "n"), ("j", c(C)), ("k", "n")], "SSR", reads, "vi, vj",
                     f"T.if_then_else({cond}, {a}[vk, vj], {F0})", b)
    return Part(params, at_body(body), b,
                ("prefix" if forward else "suffix") + (" honest" if honest else " wrong regions"))


def pat_neighbour(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}b"
    params += [Param(b, ("n", C))]
    prev = rng.random() < 0.5
    honest = rng.random() < 0.5
    other = (f"T.if_then_else(vi >= {c(1)}, {a}[vi - {c(1)}, vj], {F0})" if prev
             else f"T.if_then_else(vi + {c(1)} < n, {a}[vi + {c(1)}, vj], {F0})")
    reads = f"{a}[{c(0)}:n, vj]" if honest else f"{a}[vi, vj]"
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}nb", [ss()], reads, f"{b}[vi, vj]",
                       [f"{b}[vi, vj] = {a}[vi, vj] + {other}"]))
    return Part(params, at_body(body), b,
                ("row i-1" if prev else "row i+1") + (" honest" if honest else " wrong regions"))


def pat_guarded_split(rng, p, C, a):
    """A fused loop over n * C elements split by a thread count and guarded (`T.where`), as
    scheduled GPU kernels are; or guarded one row short; or unsplit (no guard needed)."""
    a, params = row_in(p, a, C)
    w, b = f"{p}w", f"{p}b"
    params += [Param(w, (C,)), Param(b, ("n", C))]
    t = rng.choice([2, 4, 8, 256])
    guard = rng.choices(["n * C", "(n - 1) * C", "unsplit"], weights=[6, 2, 2])[0]
    f = f"f0 * {c(t)} + f1" if guard != "unsplit" else "f0"
    row_major = rng.random() < 0.7
    if row_major:
        it = [f"v0 = T.axis.spatial(n, ({f}) // {c(C)})",
              f"v1 = T.axis.spatial({c(C)}, ({f}) % {c(C)})"]
    else:
        it = [f"v0 = T.axis.spatial(n, ({f}) % n)", f"v1 = T.axis.spatial({c(C)}, ({f}) // n)"]
    expr, reads = elementwise_expr(rng, a, w, "v0", "v1")
    order = "row = f // C" if row_major else "row = f % n"
    if guard == "unsplit":
        blk = block(f"{p}split", it, reads, f"{b}[v0, v1]", [f"{b}[v0, v1] = {expr}"])
        body = loops([("f0", f"n * {c(C)}")], blk)
        return Part(params, at_body(body), b, f"unsplit, {order}")
    bound = f"n * {c(C)}" if guard == "n * C" else f"(n - {c(1)}) * {c(C)}"
    blk = block(f"{p}split", it, reads, f"{b}[v0, v1]", [f"{b}[v0, v1] = {expr}"],
                extra=[f"T.where({f} < {bound})"])
    body = [f"for f0 in range((n * {c(C)} + {c(t - 1)}) // {c(t)}):"]
    body += indent(loops([("f1", c(t))], blk), 1)
    short = "" if guard == "n * C" else ", guard one row short"
    return Part(params, at_body(body), b, f"threads {t}, {order}{short}")


def pat_let(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}b"
    params += [Param(b, ("n", C))]
    kind = rng.choice(["value", "row alias", "extent n - 1", "extent alias", "T.Let value",
                       "x = n as an inner loop's extent", "m = n outside, a value inside",
                       "x = n - 1 - i as the row read"])
    ext, pre, extra, stmt = "n", [], [], f"{b}[vi, vj] = {a}[vi, vj]"
    if kind == "value":
        extra = ["x = n"]
        stmt = f'{b}[vi, vj] = {a}[vi, vj] * T.Cast("float32", x)'
    elif kind == "row alias":
        extra = ["x = vi"]
        stmt = f"{b}[x, vj] = {a}[x, vj] + T.float32(1.0)"
    elif kind == "extent n - 1":
        pre, ext = [f"m = n - {c(1)}"], "m"
    elif kind.startswith("x = n - 1 - i"):
        extra = [f"x = n - {c(1)} - vi"]
        stmt = f"{b}[vi, vj] = {a}[x, vj]"
    elif kind.startswith("m = n outside"):
        pre = ["m = n"]
        stmt = f'{b}[vi, vj] = {a}[vi, vj] + T.Cast("float32", m)'
    elif kind.startswith("x = n as"):
        extra = ["x = n"]
        stmt = (f"{b}[vi, vj] = {F0}\nfor k in range(x):\n"
                f"    {b}[vi, vj] = {b}[vi, vj] + {a}[vi, vj]")
    elif kind == "extent alias":
        pre, ext = ["m = n"], "m"
    else:
        pre = ["x = T.int64()"]
        stmt = f'{b}[vi, vj] = T.Let({a}[vi, vj] * T.Cast("float32", x), where={{x: n}})'
    body = pre + loops([("i", ext), ("j", c(C))],
                       block(f"{p}let", [ss()], f"{a}[vi, vj]", f"{b}[vi, vj]", stmt.split("\n"),
                             extra))
    return Part(params, at_body(body), b, kind)


def pat_inner_loop(rng, p, C, a):
    a, params = row_in(p, a, C)
    w, b = f"{p}w", f"{p}b"
    params += [Param(w, (C,)), Param(b, ("n", C))]
    kind = rng.choice(["extent n, own row", "extent C, own row", "extent n, row k"])
    ext = c(C) if "extent C" in kind else "n"
    src = f"{a}[k, vj]" if "row k" in kind else f"{a}[vi, vj]"
    stmts = [f"{b}[vi, vj] = {F0}", f"for k in range({ext}):",
             f"    {b}[vi, vj] = {b}[vi, vj] + {src} * {w}[vj]"]
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}inner", [ss()], f"{a}[vi, vj], {w}[vj]", f"{b}[vi, vj]", stmts))
    return Part(params, at_body(body), b, kind)


def pat_match_buffer(rng, p, C, a):
    a, params = row_in(p, a, C)
    w, b = f"{p}w", f"{p}b"
    params += [Param(w, (C,)), Param(b, ("n", C))]
    kind = rng.choice(["own row", "row 0", "row n - 1 - i", "row min(i + 1, n - 1)"])
    row = {"own row": "vi", "row 0": c(0), "row n - 1 - i": f"n - {c(1)} - vi",
           "row min(i + 1, n - 1)": f"T.min(vi + {c(1)}, n - {c(1)})"}[kind]
    declared = row if rng.random() < 0.5 else "vi"
    mb = [f"s = T.match_buffer({a}[{row}, {c(0)}:{c(C)}], ({c(C)},), offset_factor=1)",
          f"o = T.match_buffer({b}[vi, {c(0)}:{c(C)}], ({c(C)},), offset_factor=1)"]
    stmts = [f"for j in range({c(C)}):", f"    o[j] = s[j] * {w}[j]"]
    blk = block(f"{p}mb", ["vi = T.axis.spatial(n, i)"],
                f"{a}[{declared}, {c(0)}:{c(C)}], {w}[{c(0)}:{c(C)}]",
                f"{b}[vi, {c(0)}:{c(C)}]", stmts, extra=[])
    # match_buffer lines come after the regions in TVM's printing
    blk = blk[:4] + indent(mb, 1) + blk[4:]
    return Part(params, at_body(loops([("i", "n")], blk)), b,
                kind + ("" if declared == row else ", declared own row"))


def pat_strides(rng, p, C, a):
    """Rows in dimension 1 of a (C, n) buffer, read through a match_buffer with strides (n, 1),
    or a (n, C) buffer with its strides spelled."""
    w, b = f"{p}w", f"{p}b"
    kind = rng.choice(["(C, n) column by strides (n, 1)",
                       "(C, n) column by strides (n, 1) of row 0",
                       "(n, C) strides (C, 1)", "(n, C) parameter with strides (C, 1)",
                       "(C, n) parameter with strides (n, 1)"])
    if "parameter" in kind:
        return strided_parameter(kind, p, C, w, b)
    if kind.startswith("(n, C)"):
        a, params = row_in(p, a, C)
        params += [Param(w, (C,)), Param(b, ("n", C))]
        mb = [f"s = T.match_buffer({a}[vi, {c(0)}:{c(C)}], ({c(1)}, {c(C)}), "
              f"strides=({c(C)}, {c(1)}), offset_factor=1)"]
        src, reads = "s[" + c(0) + ", j]", f"{a}[vi, {c(0)}:{c(C)}]"
    else:
        a = f"{p}t"
        params = [Param(a, (C, "n")), Param(w, (C,)), Param(b, ("n", C))]
        col = "vi" if "row 0" not in kind else c(0)
        mb = [f"s = T.match_buffer({a}[{c(0)}:{c(C)}, {col}], ({c(C)}, {c(1)}), "
              f"strides=(n, {c(1)}), offset_factor=1)"]
        src, reads = f"s[j, {c(0)}]", f"{a}[{c(0)}:{c(C)}, {col}]"
    blk = block(f"{p}st", ["vi = T.axis.spatial(n, i)"], f"{reads}, {w}[{c(0)}:{c(C)}]",
                f"{b}[vi, {c(0)}:{c(C)}]",
                [f"for j in range({c(C)}):", f"    {b}[vi, j] = {src} + {w}[j]"])
    blk = blk[:4] + indent(mb, 1) + blk[4:]
    return Part(params, at_body(loops([("i", "n")], blk)), b, kind)


def strided_parameter(kind: str, p: str, C: int, w: str, b: str) -> Part:
    """A parameter whose declaration spells its strides; read at the row iterator."""
    if kind.startswith("(n, C)"):
        src = Param(f"{p}a", ("n", C), strides=(C, 1))
        read = f"{src.name}[vi, vj]"
    else:
        src = Param(f"{p}t", (C, "n"), strides=("n", 1))
        read = f"{src.name}[vj, vi]"
    params = [src, Param(w, (C,)), Param(b, ("n", C))]
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}sp", [ss()], f"{read}, {w}[vj]", f"{b}[vi, vj]",
                       [f"{b}[vi, vj] = {read} * {w}[vj]"]))
    return Part(params, at_body(body), b, kind)


def pat_wrong_regions(rng, p, C, a):
    a, params = row_in(p, a, C)
    w, b, e = f"{p}w", f"{p}b", f"{p}e"
    params += [Param(w, (C,)), Param(b, ("n", C))]
    kind = rng.choice(["undeclared row n - 1", "undeclared weight", "undeclared own row of another",
                       "undeclared row 0"])
    other = {"undeclared row n - 1": f"{a}[n - {c(1)}, vj]", "undeclared weight": f"{w}[vj]",
             "undeclared own row of another": f"{e}[vi, vj]",
             "undeclared row 0": f"{a}[{c(0)}, vj]"}[kind]
    if "another" in kind:
        params.append(Param(e, ("n", C)))
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}wr", [ss()], f"{a}[vi, vj]", f"{b}[vi, vj]",
                       [f"{b}[vi, vj] = {a}[vi, vj] * {other}"]))
    return Part(params, at_body(body), b, kind)


def pat_var_value(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}b"
    params += [Param(b, ("n", C))]
    kind = rng.choice(["a * n", "a / (n + 1)", "condition i < n - 1", "condition i < n"])
    expr = {"a * n": f'{a}[vi, vj] * T.Cast("float32", n)',
            "a / (n + 1)": f'{a}[vi, vj] / T.Cast("float32", n + {c(1)})',
            "condition i < n - 1": f"T.if_then_else(vi < n - {c(1)}, {a}[vi, vj], {F0})",
            "condition i < n": f"T.if_then_else(vi < n, {a}[vi, vj], {F0})"}[kind]
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}vv", [ss()], f"{a}[vi, vj]", f"{b}[vi, vj]", [f"{b}[vi, vj] = {expr}"]))
    return Part(params, at_body(body), b, kind)


def pat_grow_extent(rng, p, C, a):
    a, params = row_in(p, a, C)
    b, o = f"{p}b", f"{p}o"
    kind = rng.choice(["min(n, 8) rows into a (8, C) buffer", "n - 1 rows from row i + 1",
                       "2n iterations of row i // 2", "n + 1 iterations guarded i < n",
                       "an outer loop of extent n around the rows",
                       "a reduction over min(n, C) columns"])
    if kind.startswith("min"):
        params.append(Param(o, (8, C)))
        it = ["vi = T.axis.spatial(8, i)", f"vj = T.axis.spatial({c(C)}, j)"]
        body = loops([("i", f"T.min(n, {c(8)})"), ("j", c(C))],
                     block(f"{p}gr", it, f"{a}[vi, vj]", f"{o}[vi, vj]",
                           [f"{o}[vi, vj] = {a}[vi, vj]"]))
        return Part(params, at_body(body), None, kind)
    params.append(Param(b, ("n", C)))
    if kind.startswith("a reduction over min"):
        body = reduction(p, "gr", [("i", "n"), ("j", c(C)), ("k", f"T.min(n, {c(C)})")], "SSR",
                         f"{a}[vi, {c(0)}:{c(C)}]", "vi, vj", f"{a}[vi, vk]", b)
        return Part(params, at_body(body), b, kind)
    if kind.startswith("an outer loop"):
        body = loops([("r", "n")], loops([("i", "n"), ("j", c(C))], block(
            f"{p}gr", [ss()], f"{a}[vi, vj], {b}[vi, vj]", f"{b}[vi, vj]",
            [f"{b}[vi, vj] = {b}[vi, vj] * T.float32(0.5) + {a}[vi, vj]"])))
        return Part(params, at_body(body), b, kind)
    if kind.startswith("n - 1"):
        ext, stmt = f"n - {c(1)}", f"{b}[vi, vj] = {a}[vi + {c(1)}, vj]"
        it = [f"vi = T.axis.spatial(n - {c(1)}, i)", f"vj = T.axis.spatial({c(C)}, j)"]
    elif kind.startswith("2n"):
        ext, stmt = f"n * {c(2)}", f"{b}[vi // {c(2)}, vj] = {a}[vi // {c(2)}, vj]"
        it = [f"vi = T.axis.spatial(n * {c(2)}, i)", f"vj = T.axis.spatial({c(C)}, j)"]
    else:
        ext, stmt = f"n + {c(1)}", f"if vi < n:\n{' ' * 20}{b}[vi, vj] = {a}[vi, vj]"
        it = [f"vi = T.axis.spatial(n + {c(1)}, i)", f"vj = T.axis.spatial({c(C)}, j)"]
    body = loops([("i", ext), ("j", c(C))],
                 block(f"{p}gr", it, f"{a}[vi, vj]", f"{b}[vi, vj]", stmt.split("\n")))
    return Part(params, at_body(body), b, kind)


def pat_index_from_var(rng, p, C, a):
    a, params = row_in(p, a, C)
    b = f"{p}b"
    params += [Param(b, ("n", C))]
    kind = rng.choice(["a[n - 1 - i]", "a[n - 1]", "b[n - 1 - i]", "a[i % n]",
                       "iterator bound to n - 1 - i, own row"])
    if kind.startswith("iterator"):
        it = [f"vi = T.axis.spatial(n, n - {c(1)} - i)", f"vj = T.axis.spatial({c(C)}, j)"]
        body = loops([("i", "n"), ("j", c(C))],
                     block(f"{p}ix", it, f"{a}[vi, vj]", f"{b}[vi, vj]",
                           [f"{b}[vi, vj] = {a}[vi, vj] * T.float32(3.0)"]))
        return Part(params, at_body(body), b, kind)
    src, dst = {"a[n - 1 - i]": (f"{a}[n - {c(1)} - vi, vj]", "vi"),
                "a[n - 1]": (f"{a}[n - {c(1)}, vj]", "vi"),
                "b[n - 1 - i]": (f"{a}[vi, vj]", f"n - {c(1)} - vi"),
                "a[i % n]": (f"{a}[vi % n, vj]", "vi")}[kind]
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}ix", [ss()], f"{a}[{c(0)}:n, vj]", f"{b}[{c(0)}:n, vj]",
                       [f"{b}[{dst}, vj] = {src}"]))
    return Part(params, at_body(body), b if dst == "vi" else None, kind)


def pat_gather(rng, p, C, a):
    ids, b, tab = f"{p}ids", f"{p}b", f"{p}tab"
    kind = rng.choice(["table[ids[i]]", "rows[ids[i]]"])
    params = [Param(ids, ("n",), "int32", 6 if kind.startswith("table") else "n"),
              Param(b, ("n", C))]
    if kind.startswith("table"):
        params.append(Param(tab, (6, C)))
        src = tab
    else:
        src, extra = row_in(p, a, C)
        params += extra
    body = loops([("i", "n"), ("j", c(C))],
                 block(f"{p}ga", [ss()],
                       f"{ids}[vi], {src}[{c(0)}:{c(6) if src == tab else 'n'}, vj]",
                       f"{b}[vi, vj]", [f'{b}[vi, vj] = {src}[T.Cast("int64", {ids}[vi]), vj]']))
    return Part(params, at_body(body), b, kind)


def pat_multi_row(rng, p, C, a):
    a, params = row_in(p, a, C)
    b, d, last = f"{p}b", f"{p}d", f"{p}last"
    kind = rng.choice(["two outputs, own row", "rows 2i and 2i + 1 guarded",
                       "own row and a last-row buffer"])
    params.append(Param(b, ("n", C)))
    if kind.startswith("two"):
        params.append(Param(d, ("n", C)))
        blk = block(f"{p}mr", [ss()], f"{a}[vi, vj]", f"{b}[vi, vj], {d}[vi, vj]",
                    [f"{b}[vi, vj] = {a}[vi, vj]", f"{d}[vi, vj] = {a}[vi, vj] * T.float32(2.0)"])
        body = loops([("i", "n"), ("j", c(C))], blk)
    elif kind.startswith("rows 2i"):
        two = f"vi * {c(2)}"
        blk = block(f"{p}mr", [f"vi = T.axis.spatial((n + {c(1)}) // {c(2)}, i)",
                              f"vj = T.axis.spatial({c(C)}, j)"],
                    f"{a}[{two}:{two} + {c(2)}, vj]", f"{b}[{two}:{two} + {c(2)}, vj]",
                    [f"{b}[{two}, vj] = {a}[{two}, vj]", f"if {two} + {c(1)} < n:",
                     f"    {b}[{two} + {c(1)}, vj] = {a}[{two} + {c(1)}, vj]"])
        body = loops([("i", f"(n + {c(1)}) // {c(2)}"), ("j", c(C))], blk)
    else:
        params.append(Param(last, (C,)))
        blk = block(f"{p}mr", [ss()], f"{a}[vi, vj]", f"{b}[vi, vj], {last}[vj]",
                    [f"{b}[vi, vj] = {a}[vi, vj]", f"{last}[vj] = {a}[vi, vj]"])
        body = loops([("i", "n"), ("j", c(C))], blk)
    return Part(params, at_body(body), b, kind)


def pat_scratch(rng, p, C, a):
    """Two blocks through a buffer the kernel allocates: row-sized and read at the own row or
    at row 0, or without rows (each row overwrites it; the last one wins)."""
    a, params = row_in(p, a, C)
    b, tmp = f"{p}b", f"{p}tmp"
    params += [Param(b, ("n", C))]
    kind = rng.choice(["(n, C) scratch, own row", "(n, C) scratch, row 0", "(C,) scratch"])
    rowed = not kind.startswith("(C,)")
    at = "vi, vj" if rowed else "vj"
    read = {"(n, C) scratch, own row": "vi, vj", "(n, C) scratch, row 0": f"{c(0)}, vj",
            "(C,) scratch": "vj"}[kind]
    shape = f"(n, {c(C)})" if rowed else f"({c(C)},)"
    first = block(f"{p}put", [ss()], f"{a}[vi, vj]", f"{tmp}[{at}]",
                  [f"{tmp}[{at}] = {a}[vi, vj] + T.float32(1.0)"])
    second = block(f"{p}get", [ss()], f"{tmp}[{read}]", f"{b}[vi, vj]",
                   [f"{b}[vi, vj] = {tmp}[{read}] * T.float32(2.0)"])
    body = [f'{tmp} = T.sblock_alloc_buffer({shape}, "float32")']
    body += loops([("i", "n"), ("j", c(C))], first) + loops([("i", "n"), ("j", c(C))], second)
    return Part(params, at_body(body), b, kind)


PATTERNS = {
    "elementwise": pat_elementwise,
    "norm over columns": pat_norm_cols,
    "reduction over columns": pat_reduce_cols,
    "reduction over VAR into a non-row buffer": pat_reduce_var_nonrow,
    "reduction over VAR into a row buffer": pat_reduce_var_row,
    "reduction of extent VAR over values without rows": pat_reduce_var_weights,
    "scan over rows": pat_scan,
    "neighbour rows": pat_neighbour,
    "guarded split": pat_guarded_split,
    "let": pat_let,
    "inner loop in a block": pat_inner_loop,
    "match_buffer": pat_match_buffer,
    "strides": pat_strides,
    "wrong declared regions": pat_wrong_regions,
    "VAR as a value": pat_var_value,
    "extents that grow with the bucket": pat_grow_extent,
    "index computed from VAR": pat_index_from_var,
    "gather": pat_gather,
    "several rows written at once": pat_multi_row,
    "through a scratch buffer": pat_scratch,
}
COMPOSITION = "composition of two patterns"
LAUNCHES = "one kernel, launches binding the variable differently"
CLASSES = tuple(PATTERNS) + (COMPOSITION, LAUNCHES)


def launch_binding(rng, C: int, seed: int) -> Kernel:
    """A kernel in n and m that a Relax function launches twice over `seq` rows: once with m
    bound to 4 (a weight's rows), once with m bound to seq too. The runs bind m as the launch
    that binds both does (m = n = the rows); cgraph judges the kernel through
    `kernel_verdicts(module, "seq")`, which the order of the launches must not change."""
    kind = rng.choice(["sum over k < m of e", "a * m"])
    both_first = rng.random() < 0.5
    params = (Param("a", ("n", C)), Param("e", ("m", C)), Param("b", ("n", C)))
    if kind.startswith("sum"):
        body = reduction("", "lb", [("i", "n"), ("j", c(C)), ("k", "m")], "SSR",
                         "a[vi, vj], e[0:m, vj]", "vi, vj", "a[vi, vj] + e[vk, vj]", "b")
    else:
        body = loops([("i", "n"), ("j", c(C))], block(
            "lb", [ss()], "a[vi, vj]", "b[vi, vj]",
            ['b[vi, vj] = a[vi, vj] * T.Cast("float32", m)']))
    calls = ["cls.k(x, y, b1)", "cls.k(x, x, b2)"]
    if both_first:
        calls.reverse()
    shape = f"R.Tensor((\"seq\", {C}), \"float32\")"
    main = ["    @R.function",
            f"    def main(x: {shape}, y: R.Tensor((4, {C}), \"float32\")) -> {shape}:",
            "        seq = T.int64()",
            "        R.func_attr({\"relax.force_pure\": True})",
            "        cls = Module",
            f"        b1 = R.builtin.alloc_tensor(R.shape([seq, {C}]), \"float32\", 0)",
            f"        b2 = R.builtin.alloc_tensor(R.shape([seq, {C}]), \"float32\", 0)",
            f"        {calls[0]}", f"        {calls[1]}", "        return b2"]
    variant = kind + (", m = seq launched first" if both_first else ", m = 4 launched first")
    return Kernel(LAUNCHES, variant, params, tuple(at_body(body)), seed=seed,
                  launches="\n".join(main) + "\n", form="buffer")


def generate(cls: str, seed: int) -> Kernel:
    """Kernel `seed` of class `cls` (deterministic)."""
    rng = random.Random(f"{cls}/{seed}")
    C = rng.choice([2, 3, 4])
    if cls == LAUNCHES:
        return launch_binding(rng, C, seed)
    form = rng.choice(["handle", "buffer"])
    if cls != COMPOSITION:
        part = PATTERNS[cls](rng, "", C, None)
        return Kernel(cls, part.variant, tuple(part.params), tuple(part.lines), seed=seed,
                      form=form)
    first, second = rng.choice(list(PATTERNS)), rng.choice(list(PATTERNS))
    p1 = PATTERNS[first](rng, "p_", C, None)
    chained = p1.out is not None and rng.random() < 0.7
    p2 = PATTERNS[second](rng, "q_", C, p1.out if chained else None)
    variant = f"{first} ({p1.variant}) {'then' if chained else 'beside'} {second} ({p2.variant})"
    return Kernel(cls, variant, tuple(p1.params + p2.params), tuple(p1.lines + p2.lines),
                  seed=seed, form=form)


# -- the oracle -------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def build(text: str):
    """The kernel built by TVM for llvm (one build runs at every n)."""
    import tvm
    from tvm.script import from_source
    from tvm_oracle import tvm_globals

    return tvm.compile(from_source(text, extra_vars=tvm_globals()), target="llvm")


def fill(param: Param, rows: int, rng):
    shape = param.shape(rows)
    if param.dtype == "int32":
        high = rows if param.high == "n" else param.high
        return rng.integers(0, high, size=shape).astype("int32")
    return rng.uniform(-2.0, 2.0, size=shape).astype("float32")


def real_rows(param: Param, x, n: int):
    if param.row is None:
        return x
    index = [slice(None)] * x.ndim
    index[param.row] = slice(0, n)
    return x[tuple(index)]


def padded(param: Param, real, bucket: int, rng):
    """`real` (the n-run's data) with rows [n, bucket) of fresh random data."""
    if param.row is None:
        return real.copy()
    out = fill(param, bucket, rng)
    real_rows(param, out, real.shape[param.row])[...] = real
    return out


def run(kernel: Kernel, arrays: list) -> list:
    import tvm

    f = build(kernel.text)[kernel.name]
    tensors = [tvm.runtime.tensor(x) for x in arrays]
    f(*tensors)
    return [t.numpy() for t in tensors]


@dataclass(frozen=True)
class Judgement:
    row_wise: bool
    detail: str = ""  # where the runs disagreed: "n=2 B=5: rows [0, n) of b differ"


def judge(kernel: Kernel, n: int, bucket: int, trials: int = 2, seed: int = 0) -> Judgement:
    """Whether rows [0, n) and non-row buffers agree between a run at n and runs at `bucket`
    rows with random pad rows (`trials` draws of the pad)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    inputs = [fill(p, n, rng) for p in kernel.params]
    small = run(kernel, inputs)
    for _ in range(trials):
        big = run(kernel, [padded(p, x, bucket, rng) for p, x in zip(kernel.params, inputs)])
        for p, s, b in zip(kernel.params, small, big):
            if not np.array_equal(s, real_rows(p, b, n), equal_nan=True):
                what = "rows [0, n) of" if p.row is not None else "the whole of"
                return Judgement(False, f"n={n} B={bucket}: {what} {p.name} differ")
    return Judgement(True)


def judge_sizes(kernel: Kernel, seed: int, trials: int = 2) -> Judgement:
    """`judge` at two (n, B) pairs drawn from n in 1..5, B in n+1..9 (seeded), and n = 1, B = 9."""
    rng = random.Random(seed)
    pairs = [(1, 9)]
    for _ in range(2):
        n = rng.randint(1, 5)
        pairs.append((n, rng.randint(n + 1, 9)))
    for i, (n, bucket) in enumerate(pairs):
        j = judge(kernel, n, bucket, trials, seed * 7 + i)
        if not j.row_wise:
            return j
    return Judgement(True)


def cgraph_verdict(kernel: Kernel):
    """cgraph's verdict (passes/row_wise.py) on the kernel's PrimFunc for n (for the Relax
    variable `seq` of its launches, when it has some)."""
    from cudagraph_cli import api, ir
    from cudagraph_cli.passes.row_wise import kernel_verdicts, row_wise

    module = api.loads(kernel.cgraph_text, name=f"<{kernel.cls} {kernel.seed}>")
    if kernel.launches is not None:
        return kernel_verdicts(module, "seq")[kernel.name]
    (prim,) = [f for f in module.functions if isinstance(f, ir.PrimFunc)]
    return row_wise(prim, "n")


def main(argv: list) -> int:
    kernel = generate(argv[0], int(argv[1]))
    print(kernel.text)
    print("# variant:", kernel.variant)
    print("# TVM runs:", judge_sizes(kernel, kernel.seed))
    print("# cgraph:", cgraph_verdict(kernel))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
