"""cgraph's row-wise verdicts (passes/row_wise.py) against a second reader built on TVM 0.27
(tests/helpers/tvm_row_wise.py: TVM's TVMScript parser, its IR nodes and its analyzer; nothing of
cgraph's).

For every module of samples/ (the real-size corpus samples/real/mlc_*, before and after,
included) and tests/buckets/, and every Relax symbolic variable its functions use as a tensor
dimension, cgraph's `kernel_verdicts(module, var)` is compared with TVM's reading of each
kernel, with the variable each launch binds (read here from the launch's argument shapes and
TVM's parameters, not from cgraph's verdict). A kernel cgraph calls row-wise and TVM's reader
does not fails the test, with TVM's reason; the other way round is counted, not failed (TVM's
reader accepts some kernels cgraph refuses, e.g. a gather, which cgraph refuses for its pad
rows' indices). Then a self-test of the TVM reader on hand-written kernels: what it must refuse
and what it must accept.

Cost: TVM reads a kernel at about 3 ms a line (more with the machine shared): each kernel text
is read once, whatever the number of modules it appears in (the before and after files of a
model share theirs, and models share most), and only the kernels some function launches with a
tensor sized by a symbolic variable (those cgraph decides on) are read.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cudagraph_cli import api, ir
from cudagraph_cli.passes.row_wise import kernel_verdicts

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_FILES = sorted((ROOT / "samples").rglob("*.relax")) + \
    sorted((ROOT / "tests" / "buckets").glob("*.relax"))
# The modules cgraph reads and TVM's parser does not (cgraph's own dialect, TVM's printing
# quirks): each is named, with the error's first line, when this count changes.
UNREAD_BY_TVM = 0
# A Relax function cgraph cannot load is a bug elsewhere: none is expected.

pytestmark = pytest.mark.tvm

END = "    @R.function\n    def cgraph_tvm_reader_end() -> R.Tuple:\n        return R.tuple()\n"


def split_prim_funcs(text: str) -> tuple[str, dict]:
    """The module's header (what precedes `@I.ir_module`, comments dropped: its TypeVars) and
    {PrimFunc name: its text, decorator included}, cut at class indentation."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith("@I.ir_module"))
    header = "".join(line for line in lines[:start] if not line.startswith("#"))
    chunks: dict = {}
    current = name = None
    for line in lines[start + 2:]:
        at_class = line.startswith("    ") and not line.startswith("     ") and line.strip()
        if at_class and not line.startswith("    def "):
            if current is not None:
                chunks[name] = "".join(current)
            current = [line] if line.startswith("    @T.prim_func") else None
            continue
        if current is not None:
            if line.startswith("    def "):
                name = line[len("    def "):line.index("(")]
            current.append(line)
    if current is not None:
        chunks[name] = "".join(current)
    return header, chunks


def tvm_read(header: str, chunks: list) -> dict:
    """TVM's reading of the kernels `chunks` under `header`: {name: tirx.PrimFunc}. The
    module-TypeVar clash of TVM's own dumps is resolved as tests/helpers/tvm_oracle.py does; a
    Relax function closes the module (that resolution ends at the next function)."""
    from cudagraph_cli.tvm import on_a_short_stack
    from tvm_oracle import tvm_parse_own_dump

    text = header + "@I.ir_module\nclass Module:\n" + "".join(chunks) + END
    mod = on_a_short_stack(tvm_parse_own_dump, text)
    return {gv.name_hint: f for gv, f in mod.functions.items()
            if gv.name_hint != "cgraph_tvm_reader_end"}


def relax_dim_vars(mod) -> list:
    """The symbolic variables the module's Relax functions use in tensor shapes."""
    names = set()

    def shape_vars(sinfo):
        shape = getattr(sinfo, "shape", None)
        for d in shape if isinstance(shape, tuple) else ():
            names.update(v.name for v in ir.prim_vars(d))
    for f in mod.relax_functions():
        for p in f.params:
            shape_vars(p.sinfo)
        for block in f.blocks:
            for b in block.bindings:
                shape_vars(getattr(b.var, "sinfo", None))
                for x in ir.walk(b.value):
                    shape_vars(getattr(x, "sinfo", None))
    return sorted(names)


def launch_bindings(mod, prim_name: str, var: str, tvm_func) -> set:
    """What each launch of `prim_name` binds the Relax variable `var` to, as TVM's parameters
    name it: a set of kernel variable names, or of phrases for what the reader cannot decide
    ("an expression", "a scalar argument")."""
    from tvm_row_wise import _is_buffer, _strip_cast
    from tvm.ir import expr as ir_expr

    params = [p for p in tvm_func.params if _is_buffer(p)]
    found = set()
    for f in mod.relax_functions():
        for block in f.blocks:
            for b in block.bindings:
                call = b.value
                if not isinstance(call, ir.Call) or not isinstance(call.op, ir.GlobalVarRef) \
                        or call.op.name != prim_name:
                    continue
                tensors = [a for a in call.args if isinstance(a, ir.Var)
                           and isinstance(getattr(a.sinfo, "shape", None), tuple)]
                for a in call.args:
                    if a not in tensors and any(v.name == var for x in ir.walk(a)
                                                for v in ir.prim_vars(x)):
                        found.add(f"{var} as a scalar argument")
                for arg, param in zip(tensors, params):
                    for d, pd in zip(arg.sinfo.shape, param.shape):
                        if not any(v.name == var for v in ir.prim_vars(d)):
                            continue
                        pd = _strip_cast(pd)
                        if isinstance(d, ir.SymVar) and isinstance(pd, ir_expr.Var):
                            found.add(pd.name)
                        else:
                            found.add(f"{var} bound to an expression ({arg.name}: "
                                      f"{' '.join(str(pd).split())})")
    return found


def compare_module(path: Path, kernels: dict, parsed: dict) -> list:
    """[(file, var, kernel, cgraph row-wise?, TVM row-wise?, TVM's reason)] for every kernel
    cgraph decides on in `path`. `kernels` maps a kernel's text to TVM's reading (filled here,
    each text read once); `parsed` collects the files TVM could not read."""
    from tvm_row_wise import row_wise

    mod = api.load(path)
    header, chunks = split_prim_funcs(path.read_text())
    verdicts = {v: kernel_verdicts(mod, v) for v in relax_dim_vars(mod)}
    wanted = {k for vs in verdicts.values() for k in vs}
    missing = [chunks[k] for k in sorted(wanted) if chunks[k] not in kernels]
    if missing:
        try:
            read = tvm_read(header, missing)
        except Exception as e:  # TVM's DiagnosticError, or what its parser raises
            parsed[path] = str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
            return []
        for text in missing:
            kernels[text] = read[text.split("    def ", 1)[1].split("(", 1)[0]]
    rows = []
    for var, vs in verdicts.items():
        for name, verdict in sorted(vs.items()):
            func = kernels[chunks[name]]
            bound = launch_bindings(mod, name, var, func)
            decided = [row_wise(func, b) if b.isidentifier() else (False, b)
                       for b in sorted(bound)] or [(False, f"no launch binds {var}")]
            bad = [why for ok, why in decided if not ok]
            rows.append((path.relative_to(ROOT).as_posix(), var, name, verdict.row_wise,
                         not bad, bad[0] if bad else decided[0][1]))
    return rows


@pytest.fixture(scope="module")
def compared() -> tuple:
    """Every module compared once: (rows as compare_module gives them, {file: TVM's error})."""
    kernels: dict = {}
    unread: dict = {}
    rows = []
    for path in SAMPLE_FILES:
        rows += compare_module(path, kernels, unread)
    return rows, unread
