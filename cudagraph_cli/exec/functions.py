"""Which functions of a module run, and whether two modules correspond: what verify, `cgraph
run` and the API check before anything runs."""

from __future__ import annotations

from .. import ir
from ..diagnostics import SourceError
from ..ir.equality import Matcher
from ..text.printer import Printer


class ModuleMismatch(SourceError):
    """The two modules do not correspond (different public functions or signatures)."""



def public_functions(mod: ir.Module) -> list[ir.Function]:
    return [f for f in mod.relax_functions() if not f.is_private]


def runnable_functions(mod: ir.Module) -> list[ir.Function]:
    """The public functions, or a SourceError at the module's header when there is none: a
    module cut off inside its PrimFuncs still reads (it is valid TVMScript), and running
    nothing must not look like a run that went well."""
    found = public_functions(mod)
    if found:
        return found
    relax = mod.relax_functions()
    if relax:
        why = f"its Relax functions ({', '.join(f.name for f in relax)}) are all private"
    else:
        prims = [f.name for f in mod.functions]
        why = ("it has no Relax function, only PrimFuncs (" + ", ".join(prims) + ")" if prims
               else "it has no function") + "; was the file cut off?"
    raise SourceError(f"nothing to run in module '{mod.name}': {why}", mod.loc)


def check_correspondence(a: ir.Module, b: ir.Module) -> list[str]:
    """The public functions both modules have, with the same signatures; else ModuleMismatch."""
    fa = {f.name: f for f in public_functions(a)}
    fb = {f.name: f for f in public_functions(b)}
    if set(fa) != set(fb):
        only_a = sorted(set(fa) - set(fb))
        only_b = sorted(set(fb) - set(fa))
        what = []
        if only_a:
            what.append(f"only the original has {', '.join(only_a)}")
        if only_b:
            what.append(f"only the rewritten module has {', '.join(only_b)}")
        raise ModuleMismatch("the modules have different public functions: " + "; ".join(what))
    for name, f in fa.items():
        g = fb[name]
        m = Matcher(a, b)
        if len(f.params) != len(g.params) or \
                not all(m.sinfo(p.sinfo, q.sinfo) for p, q in zip(f.params, g.params)):
            sig_a = ", ".join(Printer().sinfo(p.sinfo, True) for p in f.params)
            sig_b = ", ".join(Printer().sinfo(p.sinfo, True) for p in g.params)
            raise ModuleMismatch(f"'{name}' has different parameters in the rewritten module: "
                                 f"({sig_a}) vs ({sig_b})", f.loc)
    return [f.name for f in public_functions(a)]
