"""Well-formedness: what every module cgraph reads or writes must satisfy.

* every var is defined before it is used and used only where it is in scope (a dataflow var
  only inside its dataflow block; a var bound in an `if` branch only in that branch; a nested
  function's parameters and bindings only in it, which may use the enclosing function's
  vars), and no var is bound twice;
* every called or referenced global function exists in the module;
* every symbolic variable is defined (by a parameter's struct info or an `R.match_cast`)
  before it is used;
* every vdevice a struct info or an `R.to_vdevice` names is one of the module's (its global
  infos), as TVM's reader requires.

The reader already rejects undefined names; this check is what guards the passes' output.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import SourceError


def check_module(mod: ir.Module, only: set[str] | None = None) -> None:
    """Raise SourceError at the first violation (in the functions named in `only`, if given)."""
    globals_ = {f.name for f in mod.functions}
    vdevices = frozenset(ir.vdevice_names(mod.global_infos))
    for f in mod.relax_functions():
        if only is None or f.name in only:
            _Checker(f, globals_, vdevices).run()


def _sinfo_vdevices(s, out: list) -> list:
    """The vdevice names in a struct info."""
    if isinstance(s, ir.TensorSInfo):
        if s.vdevice:
            out.append(s.vdevice)
    elif isinstance(s, ir.TupleSInfo):
        for x in s.fields:
            _sinfo_vdevices(x, out)
    elif isinstance(s, ir.FuncSInfo):
        for x in s.params or ():
            _sinfo_vdevices(x, out)
        _sinfo_vdevices(s.ret, out)
    return out


class _Checker:
    def __init__(self, f: ir.Function, globals_: set[str], vdevices: frozenset = frozenset()):
        self.f = f
        self.globals = globals_
        self.vdevices = vdevices
        # Vars and symbolic vars hash by identity: two bindings of one name are two entries.
        self.defined: set[ir.Var] = set()  # in scope here
        self.bound: set[ir.Var] = set()  # bound so far, in scope or not
        self.dataflow_scope: set[ir.Var] | None = None
        self.syms: set[ir.SymVar] = set()
        self.loc = f.loc

    def run(self):
        f = self.f
        for p in f.params:
            self._define(p)
            self._define_syms(p.sinfo)
        for p in f.params:
            self._use_sinfo(p.sinfo)
        if f.ret_sinfo is not None:
            self.loc = f.ret_loc
            self._use_sinfo(f.ret_sinfo)
        self._blocks(f.blocks)
        self.loc = f.loc
        self._use(f.body)

    def _blocks(self, blocks: list):
        for block in blocks:
            outer = self.dataflow_scope
            self.dataflow_scope = set() if block.is_dataflow else None
            for b in block.bindings:
                self.loc = b.loc
                self._value(b)
                self.loc = b.loc
                if isinstance(b, ir.MatchCast):
                    self._define_syms(b.sinfo)
                if b.var.sinfo is not None:
                    self._use_sinfo(b.var.sinfo)
                if b.var.is_dataflow and not block.is_dataflow:
                    raise SourceError(f"dataflow var '{b.var.name}' outside a dataflow block",
                                      b.loc)
                self._define(b.var)
            if block.is_dataflow:
                # Dataflow vars end with their block.
                self.defined -= self.dataflow_scope
            self.dataflow_scope = outer

    def _value(self, b):
        """A binding's value; an If's branches and a nested function's body are scopes: what
        they bind is not visible after them (symbolic vars are: the reader shares them)."""
        v = b.value
        t = type(v)
        if t is ir.If:
            self._use(v.cond)
            for seq in (v.true_branch, v.false_branch):
                outer = set(self.defined)
                self._blocks(seq.blocks)
                self.loc = b.loc
                self._use(seq.body)
                self.defined = outer
        elif t is ir.Function:
            # A closure: the enclosing function's vars are visible in it, its own are not
            # outside it, and a dataflow block around it does not reach into it.
            outer, outer_dataflow = set(self.defined), self.dataflow_scope
            self.dataflow_scope = None
            for p in v.params:
                self._define(p)
                self._define_syms(p.sinfo)
            self.loc = v.loc
            for p in v.params:
                self._use_sinfo(p.sinfo)
            if v.ret_sinfo is not None:
                self._use_sinfo(v.ret_sinfo)
            self._blocks(v.blocks)
            self.loc = v.loc
            self._use(v.body)
            self.defined, self.dataflow_scope = outer, outer_dataflow
        else:
            self._use(v)

    def _define(self, v: ir.Var):
        if v in self.bound:  # anywhere in the function, out of scope now or not
            raise SourceError(f"var '{v.name}' is bound twice", v.loc)
        self.bound.add(v)
        self.defined.add(v)
        if v.is_dataflow and self.dataflow_scope is not None:
            self.dataflow_scope.add(v)

    def _define_syms(self, s):
        """Symbolic vars standing alone as a dimension are defined there."""
        for v in ir.definable_sym_vars(s):
            self.syms.add(v)

    def _use_sinfo(self, s):
        for name in _sinfo_vdevices(s, []):
            self._vdevice(name)
        for v in ir.sinfo_prim_vars(s):
            if v not in self.syms:
                raise SourceError(f"symbolic variable '{v.name}' is used but not defined by a "
                                  "parameter's shape or an R.match_cast", self.loc)

    def _use_prim(self, e):
        for v in ir.prim_vars(e):
            if v not in self.syms:
                raise SourceError(f"symbolic variable '{v.name}' is used but not defined by a "
                                  "parameter's shape or an R.match_cast", self.loc)

    def _use(self, e):
        t = type(e)
        if t is ir.Var:
            if e not in self.defined:
                raise SourceError(f"var '{e.name}' is used before it is defined or out of "
                                  "its scope", self.loc)
        elif t is ir.Call:
            op = e.op
            if isinstance(op, ir.GlobalVarRef):
                self._global(op)
            elif isinstance(op, ir.Var):
                self._use(op)
            for a in e.args:
                self._use(a)
            for _, v in e.attrs:
                self._use(v)
            for s in e.sinfo_args:
                self._use_sinfo(s)
            if type(op) is ir.Op and op.name == "relax.to_vdevice":
                for k, v in e.attrs:
                    if k == "dst_vdevice":
                        self._vdevice(v.value if isinstance(v, ir.Literal) else v)
        elif t is ir.Tuple:
            for a in e.fields:
                self._use(a)
        elif t is ir.TupleGetItem:
            self._use(e.tuple_value)
        elif t is ir.GlobalVarRef:
            self._global(e)
        elif t is ir.ShapeExpr:
            for v in e.values:
                self._use_prim(v)
        elif t is ir.PrimValue:
            self._use_prim(e.value)

    def _vdevice(self, name):
        if name not in self.vdevices:
            raise SourceError(f"vdevice {name!r} is not one of the module's global infos "
                              f"({', '.join(sorted(self.vdevices)) or 'none'})", self.loc)

    def _global(self, g: ir.GlobalVarRef):
        if g.name not in self.globals:
            raise SourceError(f"call to missing function '{g.name}' (not in this module)",
                              self.loc)
