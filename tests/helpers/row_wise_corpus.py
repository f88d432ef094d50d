"""cgraph's row-wise verdicts beside TVM's reading of the same kernels (tests/helpers/
tvm_row_wise.py), module by module: what tests/test_row_wise_tvm_reader.py and
bench/bench_row_wise_tvm_reader.py compare. cgraph is used to load the Relax module and for its
`kernel_verdicts`; which kernel variable each launch binds is read here, from the launch's
argument shapes and TVM's parameters.

TVM reads a kernel at about 3 ms a line on one free core: each kernel text is read once,
whatever the number of modules it appears in (a model's before and after files share theirs,
and models share most), and only the kernels some function launches with a tensor sized by a
symbolic variable (those cgraph decides on) are read.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from cudagraph_cli import api, ir
from cudagraph_cli.passes.row_wise import kernel_verdicts

END = "    @R.function\n    def cgraph_tvm_reader_end() -> R.Tuple:\n        return R.tuple()\n"


def split_prim_funcs(text: str) -> tuple[str, dict]:
    """The module's header (what precedes the class, comments dropped: its TypeVars; the
    decorator and the class line) and {PrimFunc name: its text, decorator included}, cut at
    class indentation."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("@") and "ir_module" in line)
    header = "".join(line for line in lines[:start] if not line.startswith("#")) + \
        lines[start] + "class Module:\n"
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

    text = header + "".join(chunks) + END
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
    from tvm_row_wise import is_buffer, strip_cast
    from tvm.ir import expr as ir_expr

    params = [p for p in tvm_func.params if is_buffer(p)]
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
                        pd = strip_cast(pd)
                        if isinstance(d, ir.SymVar) and isinstance(pd, ir_expr.Var):
                            found.add(pd.name)
                        else:
                            found.add(f"{var} bound to an expression ({arg.name}: "
                                      f"{' '.join(str(pd).split())})")
    return found


def compare_module(label: str, text: str, kernels: dict, parsed: dict) -> list:
    """[(label, var, kernel, cgraph row-wise?, TVM row-wise?, TVM's reason)] for every kernel
    cgraph decides on in the module `text`. `kernels` maps a kernel's text to TVM's reading,
    and (text, kernel variable) to TVM's verdict (filled here: each text read and decided
    once); `parsed` collects the modules TVM could not read, with its error."""
    from tvm_row_wise import row_wise

    mod = api.loads(text, name=label)
    header, chunks = split_prim_funcs(text)
    verdicts = {v: kernel_verdicts(mod, v) for v in relax_dim_vars(mod)}
    wanted = {k for vs in verdicts.values() for k in vs}
    missing = [chunks[k] for k in sorted(wanted) if chunks[k] not in kernels]
    if missing:
        try:
            read = tvm_read(header, missing)
        except Exception as e:  # TVM's DiagnosticError, or what its parser raises
            parsed[label] = str(e).strip().splitlines()[0] if str(e).strip() else repr(e)
            return []
        for chunk in missing:
            kernels[chunk] = read[chunk.split("    def ", 1)[1].split("(", 1)[0]]
    rows = []
    for var, vs in verdicts.items():
        for name, verdict in sorted(vs.items()):
            chunk = chunks[name]
            bound = launch_bindings(mod, name, var, kernels[chunk])
            for b in bound:  # a kernel's verdict in a variable is the same in every module
                if b.isidentifier() and (chunk, b) not in kernels:
                    kernels[(chunk, b)] = row_wise(kernels[chunk], b)
            decided = [kernels[(chunk, b)] if b.isidentifier() else (False, b)
                       for b in sorted(bound)] or [(False, f"no launch binds {var}")]
            bad = [why for ok, why in decided if not ok]
            rows.append((label, var, name, verdict.row_wise,
                         not bad, bad[0] if bad else decided[0][1]))
    return rows


def summary(rows: list) -> tuple[dict, list]:
    """({(module, var): {"kernels": n, "cgraph": row-wise by cgraph, "both": confirmed by TVM}},
    [kernels only TVM's reader calls row-wise]) of compare_module's rows."""
    counts: Counter = Counter()
    tvm_only = []
    for file, var, kernel, cg, tvm, _ in rows:
        counts[(file, var, "cgraph")] += cg
        counts[(file, var, "both")] += cg and tvm
        counts[(file, var, "kernels")] += 1
        if tvm and not cg:
            tvm_only.append(f"{file}: {kernel} in {var}")
    per_module: dict = defaultdict(dict)
    for (file, var, what), n in counts.items():
        per_module[(file, var)][what] = n
    return per_module, tvm_only
