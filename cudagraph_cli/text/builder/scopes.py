"""Scopes: what a name means inside a Relax function.

`FunctionScope` holds a function's names (Relax vars, and lambdas bound to a name), its
symbolic variables (declared `m = T.int64()`, by a string in a signature, or shared by the
module through `TypeVar`) and their order of definition; `Closure` is a lambda bound to a name.
Touches no IR but the `SymVar`s it creates.
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import Loc, SourceError
from .. import syntax as S


SYM_DTYPES = {"T.int64": "int64", "T.int32": "int32", "T.int16": "int16", "T.int8": "int8",
               "T.uint64": "uint64", "T.uint32": "uint32", "T.bool": "bool"}


class FunctionScope:
    """Per-function state: the scope of names and the symbolic variables."""

    def __init__(self, name: str, class_aliases: set[str], module_syms: dict[str, str]):
        self.name = name
        self.scope: dict[str, ir.Var] = {}
        self.syms: dict[str, ir.SymVar] = {}
        self.sym_decl: dict[str, str] = dict(module_syms)  # declared names -> dtype
        self.sym_decl_loc: dict[str, Loc] = {}  # where a body declares one (`n = T.int32()`)
        self.sym_order: list[ir.SymVar] = []
        self.class_aliases = set(class_aliases)

    def sym(self, name: str, loc: Loc, create: bool = True) -> ir.SymVar:
        v = self.syms.get(name)
        if v is None:
            if not create and name not in self.sym_decl:
                raise SourceError(f"undefined symbolic variable '{name}'", loc)
            v = ir.SymVar(name, self.sym_decl.get(name, "int64"))
            self.syms[name] = v
            self.sym_order.append(v)
        return v


class Closure:
    """A lambda bound to a name (`f = lambda a: a`): a Python value in TVM's parser, not a
    Relax one; a call to it is inlined where it is made."""

    __slots__ = ("node",)

    def __init__(self, node: S.Lambda):
        self.node = node
