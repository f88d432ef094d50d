"""cgraph's rewrite as TVM objects, built directly (no text, no TVM reader).

Every node of the rewritten module that cgraph kept from its reading of the input (from_tvm.py's
`Links`: a var, a binding, a call, a constant, a struct info, a whole function) is handed back
as the TVM object it was read from; only what cgraph made is built: the lifted functions, and
in each rewritten function the graph launches, the redefinitions of their outputs, the guards.
The module is built as TVM's own pass builds it, with a BlockBuilder over the input module:
the lifted functions added (`add_func`: a new GlobalVar with the function's type), the
rewritten ones updated in place (`update_func`: the input's GlobalVars, attrs and global
infos kept), each function normalized first (the struct info of each new call deduced by TVM,
as its pass's BlockBuilder does).
"""

from __future__ import annotations

from .. import ir
from .from_tvm import Links, Unsupported

PRIM_BINOPS = {"+": "Add", "-": "Sub", "*": "Mul", "//": "FloorDiv", "%": "FloorMod",
               "<=": "LE", "<": "LT", ">=": "GE", ">": "GT", "==": "EQ", "!=": "NE",
               "and": "And"}
# cgraph's PrimCalls (from_tvm.PRIM_CALLS, the text reader's T.* calls) as the tirx functions
# that make them; T.Cast apart (its first argument is the dtype)
PRIM_MAKERS = {"T.max": "Max", "T.min": "Min", "T.truncdiv": "truncdiv",
               "T.truncmod": "truncmod", "T.floordiv": "floordiv", "T.floormod": "floormod",
               "T.ceildiv": "ceildiv", "T.Select": "Select", "T.if_then_else": "if_then_else",
               "T.Or": "Or", "T.Not": "Not", "T.shift_left": "shift_left",
               "T.shift_right": "shift_right", "T.bitwise_and": "bitwise_and",
               "T.bitwise_or": "bitwise_or", "T.bitwise_xor": "bitwise_xor",
               "T.bitwise_not": "bitwise_not"}
ALLOC_TENSOR = "relax.builtin.alloc_tensor"


class Writer:
    """The TVM objects of one rewritten module (see the module docstring)."""

    def __init__(self, links: Links, typed_allocs: set):
        import tvm
        from tvm import relax

        self.tvm, self.relax = tvm, relax
        self.links = links
        # functions whose R.builtin.alloc_tensor calls carry ty_args (StaticPlanBlockMemory
        # gives each its own type; TVM's pass keeps them, so a copy keeps them too)
        self.typed_allocs = typed_allocs
        self.global_vars: dict = {name: gv for name, (gv, _, _) in links.functions.items()}
        self.vars: dict = {}  # new ir.Var -> relax Var
        self.syms: dict = {}  # new ir.SymVar -> tir Var
        self.ops: dict = {}
        self.externs: dict = {}
        self.current = ""  # the function being built (for typed_allocs)

    # ---- functions ----------------------------------------------------------------------

    def function(self, f: ir.Function, source: str):
        """The relax.Function of `f`; `source`: the input function it was rewritten or lifted
        from (its attrs are the base of `f`'s)."""
        relax = self.relax
        self.current = source
        original = self.links.functions.get(f.name)
        params = [self.var(p) for p in f.params]
        blocks = [self.block(b) for b in f.blocks]
        body = relax.SeqExpr(blocks, self.expr(f.body))
        ret = self.type(f.ret_sinfo) if f.ret_sinfo is not None else None
        out = relax.Function(params, body, ret, f.is_pure)
        base = original[1].attrs if original is not None else None
        old = dict(original[2].attrs) if original is not None else {}
        attrs = {str(k): v for k, v in base.items()} if base is not None else {}
        for key, value in f.attrs:
            if key not in old or old[key] != value:
                attrs[key] = self.attr_value(value)
        for key in old:
            if key not in dict(f.attrs):
                raise Unsupported(f"an attribute the rewrite removed ({key})")
        if attrs:
            out = out.with_attrs(attrs)
        return out

    def attr_value(self, v):
        value = v.value if isinstance(v, ir.Literal) else v
        if isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, tuple) and len(value) == 2 and value[0] in ("list", "tuple"):
            return [self.attr_value(x) for x in value[1]]  # the bucket lists (buckets.py)
        if isinstance(value, tuple) and len(value) == 2 and value[0] == "dict" and \
                all(isinstance(k, str) for k, _ in value[1]):
            return {k: self.attr_value(x) for k, x in value[1]}
        raise Unsupported(f"a new attribute value {value!r}")

    def block(self, b: ir.BindingBlock):
        bindings = [self.binding(x) for x in b.bindings]
        return self.relax.DataflowBlock(bindings) if b.is_dataflow else \
            self.relax.BindingBlock(bindings)

    def binding(self, b):
        kept = self.links.bindings.get(b)
        if kept is not None:
            return kept
        value = self.expr(b.value)
        if type(b) is ir.MatchCast:
            return self.relax.MatchCast(self.var(b.var), value, self.type(b.sinfo))
        if b.var.sinfo is None and b.var not in self.links.vars and b.var not in self.vars:
            # no struct info cgraph could deduce: the var takes what TVM deduces of the value
            value = self.relax.BlockBuilder().normalize(value)
            self.vars[b.var] = self._new_var(b.var, value.ty)
        return self.relax.VarBinding(self.var(b.var), value)

    def var(self, v: ir.Var):
        kept = self.links.vars.get(v)
        if kept is not None:
            return kept
        made = self.vars.get(v)
        if made is None:
            made = self._new_var(v, self.type(v.sinfo) if v.sinfo is not None else None)
            self.vars[v] = made
        return made

    def _new_var(self, v: ir.Var, ty):
        cls = self.relax.DataflowVar if v.is_dataflow else self.relax.Var
        return cls(v.name, ty)

    # ---- expressions ----------------------------------------------------------------------

    def expr(self, e):
        tvm = self.tvm
        t = type(e)
        if t is ir.Var:
            return self.var(e)
        if t is ir.Call:
            kept = self.links.calls.get(e)
            return kept if kept is not None else self.call(e)
        if t is ir.Tuple:
            return tvm.ir.Tuple([self.expr(x) for x in e.fields])
        if t is ir.TupleGetItem:
            return tvm.ir.TupleGetItem(self.expr(e.tuple_value), e.index)
        if t is ir.GlobalVarRef:
            return self.global_vars[e.name]
        if t is ir.ShapeExpr:
            return self.relax.ShapeExpr([self.prim(x) for x in e.values])
        if t is ir.PrimValue:
            return self.prim(e.value)
        if t is ir.StringImm:
            return tvm.ir.expr.StringImm(e.value)
        if t is ir.DataTypeImm:
            return tvm.ir.GenericConst(tvm.DataType(e.value), self.relax.AnyType())
        if t is ir.Constant:
            kept = self.links.constants.get(e)
            if kept is not None:
                return kept
            if e.meta is None:
                return self.relax.const(e.value, e.dtype)
            raise Unsupported("a metadata constant not read from the module")
        if t is ir.ExternFunc:
            return self.extern(e.name)
        if t is ir.Literal:
            value = e.value
            if isinstance(value, bool):
                return tvm.tirx.IntImm("bool", int(value))
            if isinstance(value, int):
                return tvm.tirx.IntImm("int64", value)
            if isinstance(value, float):
                return tvm.tirx.FloatImm("float64", value)
            raise Unsupported(f"a literal argument {value!r}")
        if t is ir.If:
            return self.relax.If(self.expr(e.cond), self.seq(e.true_branch),
                                 self.seq(e.false_branch))
        if t is ir.SeqExpr:
            return self.seq(e)
        if t is ir.Function:
            # a function bound inside a body: cgraph's planner leaves it as written
            # (docs/REWRITE.md), so it is the input's object
            kept = self.links.nested.get(e)
            if kept is not None:
                return kept
        raise Unsupported(f"a {t.__name__} in the rewrite")

    def seq(self, s: ir.SeqExpr):
        return self.relax.SeqExpr([self.block(b) for b in s.blocks], self.expr(s.body))

    def extern(self, name: str):
        f = self.externs.get(name)
        if f is None:
            f = self.externs[name] = self.relax.ExternFunc(name)
        return f

    def call(self, c: ir.Call):
        tvm = self.tvm
        op = c.op
        t = type(op)
        if t is ir.Op:
            callee = self.ops.get(op.name)
            if callee is None:
                callee = self.ops[op.name] = tvm.ir.Op.get(op.name)
        elif t is ir.GlobalVarRef:
            callee = self.global_vars[op.name]
        elif t is ir.ExternFunc:
            callee = self.extern(op.name)
        else:
            callee = self.var(op)
        attrs = None
        if c.attrs:
            # a call the rewrite remade (new arguments) keeps the attributes object it was
            # read with
            attrs = self.links.call_attrs.get((op.name, c.attrs))
            if attrs is None:
                raise Unsupported("a new call with attributes")
        args = [self.expr(a) for a in c.args]
        ty_args = [self.type(s) for s in c.sinfo_args] if c.sinfo_args else None
        call = tvm.ir.Call(callee, args, attrs, ty_args)
        if t is ir.Op and op.name == ALLOC_TENSOR and not ty_args and \
                self.current in self.typed_allocs:
            call = self.relax.BlockBuilder().normalize(call)
            call = tvm.ir.Call(callee, args, None, [call.ty])
        return call

    # ---- struct info and PrimExprs --------------------------------------------------------

    def type(self, s):
        kept = self.links.type_of(s)
        if kept is not None:
            return kept
        rt = self.relax.type
        t = type(s)
        if t is ir.TensorSInfo:
            vdevice = None
            if s.vdevice:
                vdevice = self.links.vdevices.get(s.vdevice)
                if vdevice is None:
                    raise Unsupported(f"a tensor type on vdevice {s.vdevice}, not the module's")
            shape = None if s.shape is None else [self.prim(d) for d in s.shape]
            return rt.TensorType(shape, s.dtype or None, vdevice,
                                 s.ndim if shape is None else -1)
        if t is ir.ObjectSInfo:
            return rt.AnyType()
        if t is ir.TupleSInfo:
            return self.tvm.ir.type.TupleType([self.type(f) for f in s.fields])
        if t is ir.ShapeSInfo:
            if s.values is None:
                return rt.ShapeType(None, s.ndim)
            return rt.ShapeType([self.prim(d) for d in s.values])
        if t is ir.PrimSInfo:
            if s.value is not None:
                raise Unsupported("a new R.Prim(value=...)")
            return self.tvm.ir.PrimType(s.dtype)
        if t is ir.FuncSInfo:
            params = None if s.params is None else [self.type(p) for p in s.params]
            return rt.FuncType(params, self.type(s.ret), s.purity)
        raise Unsupported(f"struct info {t.__name__}")

    def prim(self, e):
        tvm = self.tvm
        t = type(e)
        if t is ir.IntImm:
            return tvm.tirx.IntImm(e.dtype, e.value)
        if t is ir.SymVar:
            kept = self.links.syms.get(e)
            if kept is not None:
                return kept
            made = self.syms.get(e)
            if made is None:
                made = self.syms[e] = tvm.tirx.Var(e.name, e.dtype)
            return made
        if t is ir.FloatImm:
            return tvm.tirx.FloatImm(e.dtype, e.value)
        if t is ir.PrimBinOp:
            return getattr(tvm.tirx, PRIM_BINOPS[e.op])(self.prim(e.lhs), self.prim(e.rhs))
        if t is ir.PrimCall:
            if e.func == "T.Cast" and len(e.args) == 2 and type(e.args[0]) is ir.Literal:
                return tvm.tirx.Cast(str(e.args[0].value), self.prim(e.args[1]))
            maker = PRIM_MAKERS.get(e.func)
            if maker is not None:
                return getattr(tvm.tirx, maker)(*[self.prim(a) for a in e.args])
        raise Unsupported(f"a PrimExpr {e!r}")


def build_module(mod, out: ir.Module, links: Links, changed: set, lifted_from: dict):
    """The IRModule of `out` (cgraph's rewrite of `mod`): the input's functions where `out`
    has them unchanged, `changed` (names) rebuilt, the lifted functions (name -> the function
    lifted from, "" for the allocation function) added."""
    from tvm import relax

    writer = Writer(links, links.typed_allocs)
    bb = relax.BlockBuilder(mod)
    by_name = {f.name: f for f in out.functions}
    # lifted functions first: the rewritten ones call them
    for name, source in lifted_from.items():
        f = writer.function(by_name[name], source)
        gv = bb.add_func(bb.normalize(f), name)
        if gv.name_hint != name:
            raise Unsupported(f"TVM named the lifted function {gv.name_hint}, not {name}")
        writer.global_vars[name] = gv
    for name in changed:
        if name in lifted_from:
            continue
        gv = links.functions[name][0]
        bb.update_func(gv, bb.normalize(writer.function(by_name[name], name)))
    return bb.get()
