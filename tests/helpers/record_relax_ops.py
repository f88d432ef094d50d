"""Record the Relax operators TVMScript's `R` namespace resolves to, from TVM 0.27.

Run once with TVM installed; it rewrites cudagraph_cli/text/relax_ops.py, which is plain data that
cgraph reads without TVM:

    python tests/helpers/record_relax_ops.py

A name is recorded when `R.<name>` (or `R.<module>.<name>` for the operator submodules) is a
Python function: the parser calls it with the evaluated arguments, so Python's own binding
rules -- how many positional arguments, which keyword names -- decide what TVM accepts.
"""

from __future__ import annotations

import inspect
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "cudagraph_cli" / "text" / "relax_ops.py"

# The attribute modules of `R` that hold operators (`R.memory.alloc_storage`); the others
# (`R.parser`, `R.entry`, `R.frame`, `R.ir`) are the parser's own machinery.
OP_MODULES = ("builtin", "ccl", "dist", "grad", "image", "memory", "nn", "vision", "vm")


def params_of(fn) -> tuple[str, ...]:
    """The signature in Python's notation: `x`, `axis=` (has a default), `*args`, `*`
    (keyword-only parameters follow), `**kwargs`."""
    out: list[str] = []
    star = False
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            out.append("*" + p.name)
            star = True
        elif p.kind is p.VAR_KEYWORD:
            out.append("**" + p.name)
        else:
            if p.kind is p.KEYWORD_ONLY and not star:
                out.append("*")
                star = True
            name = p.name if p.kind is not p.POSITIONAL_ONLY else p.name + "/"
            out.append(name + ("=" if p.default is not p.empty else ""))
    return tuple(out)


def is_recordable(obj) -> bool:
    if not callable(obj) or inspect.ismodule(obj):
        return False
    if not (getattr(obj, "__module__", "") or "").startswith("tvm"):
        return False  # typing helpers re-exported by a module (`Optional`, `Union`)
    try:
        inspect.signature(obj)
    except (TypeError, ValueError):
        return False
    return True


def record() -> dict[str, tuple[str, ...]]:
    from tvm.script.parser import relax as R

    table: dict[str, tuple[str, ...]] = {}
    for name in dir(R):
        if name.startswith("_"):
            continue
        obj = getattr(R, name)
        if inspect.ismodule(obj):
            if name not in OP_MODULES:
                continue
            for sub in dir(obj):
                o = getattr(obj, sub)
                if not sub.startswith("_") and not inspect.isclass(o) and is_recordable(o):
                    table[f"{name}.{sub}"] = params_of(o)
        elif is_recordable(obj):
            table[name] = params_of(obj)
    return dict(sorted(table.items()))


def render(table: dict[str, tuple[str, ...]]) -> str:
    import tvm

    lines = [
        '"""The Relax operators and functions TVMScript\'s `R` namespace resolves to, with their',
        "parameters, recorded from TVM " + tvm.__version__ + " by tests/helpers/record_relax_ops.py (do not edit;",
        "run that script again).",
        "",
        "Each entry is `R.<name>` without the `R.` -> its parameters in Python's notation: `x`",
        "(required), `axis=` (has a default), `x/` (positional only), `*args`, a bare `*`",
        "(keyword-only parameters follow), `**kwargs`.",
        '"""',
        "",
        "TVM_VERSION = " + repr(tvm.__version__),
        "",
        "RELAX_OPS: dict[str, tuple[str, ...]] = {",
    ]
    for name, params in table.items():
        line = f"    {name!r}: {params!r},"
        if len(line) <= 99:
            lines.append(line)
            continue
        lines.append(f"    {name!r}: (")
        row = "       "
        for p in params:
            item = f" {p!r},"
            if len(row) + len(item) > 99:
                lines.append(row)
                row = "       "
            row += item
        lines.append(row)
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    OUT.write_text(render(record()))
    print(f"wrote {OUT}")
