"""A TVM IRModule as cgraph's IR, read from TVM's objects (no printing of Relax functions).

The IR made is the one cgraph's text reader makes of `mod.script()` (tests/test_tvm_in_memory.py
compares the two with cgraph's structural equality, function by function): the functions in
the order TVM prints them (PrimFuncs, then Relax functions, by name, `main` last), each binding's
var annotated where TVM's printer writes an annotation (every binding but a call_tir or
call_dps_packed, and a void call it prints as a bare statement), the struct info cgraph deduces
where it writes none, metadata constants numbered in printing order.

What the text would give that objects do not: source locations (the pass locates its errors by
printing the module on the error path only, tvm/__init__.py), and PrimFunc bodies, which cgraph
keeps as text and reads only for the packed and extern calls a kernel makes (the
capture-safety table): those are printed, each PrimFunc on its own (`f.script()`, TVM's C++
printer), the Relax functions never.

Each IR node read from a TVM object is linked to it (`Links`): where the rewrite keeps a node,
to_tvm.py hands back the TVM object itself. An `if` is read as cgraph's reader reads TVM's
`if`/`else`, a function bound in a body as its nested `@R.function`, `R.to_vdevice`'s attribute
as the vdevice's printed name, any other operator's attributes as (field, literal) pairs of
TVM's attributes object, a module-level ExternFunc left out (the output is built over the
input module, which keeps it). Constructs this reader does not know (a PrimExpr beyond
PRIM_BINOPS, PRIM_CALLS and Cast, a reference to a module-level ExternFunc: docs/TVM.md lists them) raise `Unsupported`; the pass then warns
(TextRouteWarning) and takes the text route (tvm/__init__.py).
"""

from __future__ import annotations

from .. import ir
from ..ir.sinfo import deduce, is_void
from ..text.builder.relax_calls import RELAX_CALLS

CONST_KIND = "ir.GenericConst"  # what TVM's printer names its metadata constants
DPS_CALLS = ("relax.call_tir", "relax.call_dps_packed")  # printed without an annotation
PRIM_BINOPS = {"Add": "+", "Sub": "-", "Mul": "*", "FloorDiv": "//", "FloorMod": "%",
               "LE": "<=", "LT": "<", "GE": ">=", "GT": ">", "EQ": "==", "NE": "!=",
               "And": "and"}
# TVM's PrimExpr nodes read as cgraph's PrimCalls of their operands (those TVM prints as a call;
# `Div` and `Mod`, its truncating division of integers, as the functions that make them; `Or`,
# `Not`, the shifts and the bitwise operators, which TVM prints as `or`, `not`, `<<`, `&`, ...,
# by the functions that make them too: cgraph's text reader reads none of these, the executor
# evaluates none, and the rewrite only carries them).
PRIM_CALLS = {"Max": ("T.max", ("a", "b")), "Min": ("T.min", ("a", "b")),
              "Div": ("T.truncdiv", ("a", "b")), "Mod": ("T.truncmod", ("a", "b")),
              "Select": ("T.Select", ("condition", "true_value", "false_value")),
              "Or": ("T.Or", ("a", "b")), "Not": ("T.Not", ("a",)),
              "LShift": ("T.shift_left", ("a", "b")), "RShift": ("T.shift_right", ("a", "b")),
              "BitwiseAnd": ("T.bitwise_and", ("a", "b")),
              "BitwiseOr": ("T.bitwise_or", ("a", "b")),
              "BitwiseXor": ("T.bitwise_xor", ("a", "b")),
              "BitwiseNot": ("T.bitwise_not", ("a",))}
# TIR intrinsics (a tirx.Call of the op) read as the T.* function TVM prints
PRIM_INTRINSICS = {"prim.if_then_else": "T.if_then_else"}
# Relax operators whose calls cgraph's reader builds without the ty_args TVM prints (it checks
# and drops them: the call's struct info follows from its arguments).
DROPPED_TY_ARGS = frozenset({
    "relax.memory.alloc_storage", "relax.memory.alloc_tensor", "relax.memory.kill_storage",
    "relax.memory.kill_tensor", "relax.builtin.alloc_tensor", "relax.null_value"})


class Unsupported(Exception):
    """A construct the in-memory reader does not read (the text route does)."""


class Links:
    """cgraph IR node -> the TVM object it was read from. Vars, calls, bindings and constants
    by the node (they compare by identity); struct info by the identity of the object read,
    kept alive here (value nodes compare by value: two equal ones may stand for two TVM
    objects with different symbolic vars)."""

    def __init__(self):
        self.vars: dict = {}  # ir.Var -> relax Var
        self.bindings: dict = {}  # binding -> relax binding
        self.calls: dict = {}  # ir.Call -> relax Call
        self.constants: dict = {}  # ir.Constant -> relax constant
        self.syms: dict = {}  # ir.SymVar -> tir Var
        self.types: dict = {}  # id(struct info) -> (struct info, relax type)
        self.functions: dict = {}  # name -> (GlobalVar, TVM function, ir function)
        # Relax functions whose R.builtin.alloc_tensor calls carry ty_args (TVM's
        # StaticPlanBlockMemory gives each its own type; cgraph's IR drops them)
        self.typed_allocs: set = set()
        self.vdevices: dict = {}  # the name TVM prints for a vdevice -> the module's VDevice
        self.nested: dict = {}  # ir.Function bound in a body -> relax Function
        # (operator name, cgraph's attrs) -> the TVM attributes object read with them
        self.call_attrs: dict = {}

    def type_of(self, s):
        found = self.types.get(id(s))
        return found[1] if found is not None and found[0] is s else None


def printing_order(mod) -> list:
    """(GlobalVar, function) in the order TVM's printer writes them: `main` last, PrimFuncs,
    then Relax functions, each group by name."""
    import tvm

    def key(item):
        gv, f = item
        if gv.name_hint == "main":
            rank = 1000
        elif isinstance(f, tvm.tirx.PrimFunc):
            rank = 1
        elif isinstance(f, tvm.relax.ExternFunc):
            rank = 2
        else:
            rank = 3
        return rank, gv.name_hint

    return sorted(mod.functions.items(), key=key)


class Reader:
    """One module's reading (see the module docstring)."""

    def __init__(self, mod):
        import tvm
        from tvm import relax

        self.tvm, self.relax = tvm, relax
        self.mod = mod
        self.links = Links()
        self.signatures: dict = {}  # name -> ir.Function | ir.PrimFunc (what deduce reads)
        self.vdevices = self._vdevices()
        self.constants: list = []  # tensor constants in printing order (metadata index)
        self.others: set = set()  # module functions neither PrimFunc nor Relax function
        # per function
        self.vars: dict = {}  # relax Var id -> ir.Var
        self.syms: dict = {}  # name -> ir.SymVar (the text's scoping: by name)
        self.sym_order: list = []
        self.current = ""  # the function whose body is being read
        self.type_cache: dict = {}  # TVM type id -> (type, struct info), per function
        self._scopes: dict = {}  # function name -> its scope, from its header to its body
        # the classes dispatched on, looked up once
        e = tvm.ir.expr
        self.Var, self.DataflowVar = tvm.ir.expr.Var, relax.DataflowVar
        self.Call, self.GlobalVar, self.Tuple = e.Call, e.GlobalVar, e.Tuple
        self.TupleGetItem, self.StringImm, self.GenericConst = \
            e.TupleGetItem, e.StringImm, e.GenericConst
        self.ShapeExpr, self.ExternFunc, self.Op = relax.ShapeExpr, relax.ExternFunc, tvm.ir.Op
        self.IntImm, self.FloatImm = tvm.tirx.IntImm, tvm.tirx.FloatImm
        t = relax.type
        self.TensorType, self.ShapeType, self.TupleType = t.TensorType, t.ShapeType, \
            tvm.ir.type.TupleType
        self.AnyType, self.ObjectType, self.FuncType, self.PrimType = \
            t.AnyType, t.ObjectType, t.FuncType, tvm.ir.type.PrimType
        self.StringType = tvm.ir.type.StringType
        self.MatchCast, self.DataflowBlock = relax.MatchCast, relax.DataflowBlock
        self.If, self.Function, self.DictAttrs = relax.If, relax.Function, tvm.ir.DictAttrs

    def _vdevices(self) -> list:
        """(TVM VDevice, ir.VDevice, the name TVM prints for it) of the module's vdevices."""
        infos = self.mod.global_infos
        entries = list(infos["vdevice"]) if infos is not None and "vdevice" in infos else []
        if not entries:
            return []
        ours = []
        for v in entries:
            target = v.target.export() if v.target is not None else {}
            ours.append(ir.VDevice(literal_value(target, sort=True), int(v.vdevice_id),
                                   str(v.memory_scope)))
        names = ir.vdevice_names([("vdevice", tuple(ours))])
        self.links.vdevices = dict(zip(names, entries))
        return list(zip(entries, ours, names))

    # ---- the module ---------------------------------------------------------------------

    def module(self) -> ir.Module:
        order = printing_order(self.mod)
        prims = self.prim_funcs([(gv, f) for gv, f in order
                                 if isinstance(f, self.tvm.tirx.PrimFunc)])
        functions = []
        bodies = []
        for gv, f in order:
            name = gv.name_hint
            if isinstance(f, self.tvm.tirx.PrimFunc):
                g = prims[name]
            elif isinstance(f, self.relax.Function):
                g = self.header(name, f)
                bodies.append((f, g))
            else:
                # a module-level ExternFunc (`my_ext = R.ExternFunc("my_ext")`): nothing for
                # the rewrite; the output is built over the input module, which keeps it
                self.others.add(name)
                continue
            self.signatures[name] = g
            self.links.functions[name] = (gv, f, g)
            functions.append(g)
        for f, g in bodies:
            self.body(f, g)
        global_infos = ((("vdevice", tuple(v[1] for v in self.vdevices)),)
                        if self.vdevices else ())
        return ir.Module("Module", functions, global_infos=global_infos)

    def prim_funcs(self, items) -> dict:
        """name -> ir.PrimFunc, from TVM's printing of each PrimFunc on its own: its
        signature read by cgraph's reader (one small module of the signatures), its body the
        text below the signature."""
        from ..text.reader import parse_module

        headers = ["@I.ir_module", "class Module:"]
        bodies = {}
        for gv, f in items:
            name = gv.name_hint
            lines = f.script(name=name).split("\n")
            at, end = signature_lines(lines)
            headers += ["    " + (lines[at - 1] if at else "@T.prim_func")]
            headers += ["    " + line for line in lines[at:end]]
            headers.append("        T.evaluate(0)")
            bodies[name] = "\n".join(line[4:] if line.startswith("    ") else line
                                     for line in lines[end:]).rstrip("\n")
        if not bodies:
            return {}
        signatures = parse_module("\n".join(headers) + "\n")
        return {f.name: ir.replace(f, body=bodies[f.name]) for f in signatures.functions}

    def header(self, name: str, f) -> ir.Function:
        self.vars, self.syms, self.sym_order, self.type_cache = {}, {}, [], {}
        params = self.params(f)
        ret = self.sinfo(f.ret_ty)
        attrs = []
        private = True
        for key in sorted(f.attrs.keys()) if f.attrs is not None else ():
            value = f.attrs[key]
            if key == "global_symbol":
                private = False
                if str(value) == name:
                    continue  # printed as the function's name
            attrs.append((str(key), ir.Literal(literal_value(value, sort=True))))
        g = ir.Function(name, params, ret, [], ir.Tuple(()), attrs, private, bool(f.is_pure))
        g.sym_vars = tuple(self.sym_order)
        # the body's scope starts from the signature's
        self._scopes[name] = (self.vars, self.syms, self.sym_order, self.type_cache)
        return g

    def params(self, f) -> list:
        """A function's parameters as cgraph's vars, each linked to TVM's and in scope."""
        params = []
        for p in f.params[:]:
            v = ir.Var(p.name, self.sinfo(p.ty), False, ir.NO_LOC, True)
            self.vars[p.id_] = v
            self.links.vars[v] = p
            params.append(v)
        return params

    def body(self, f, g: ir.Function) -> None:
        self.current = g.name
        self.vars, self.syms, self.sym_order, self.type_cache = self._scopes.pop(g.name)
        seq = f.body
        g.blocks = self.blocks(seq)
        g.body = self.expr(seq.body)
        g.sym_vars = tuple(self.sym_order)

    def blocks(self, seq) -> tuple:
        blocks = []
        for block in seq.blocks[:]:
            dataflow = isinstance(block, self.DataflowBlock)
            bindings = tuple([self.binding(b, dataflow) for b in block.bindings[:]])
            blocks.append(ir.BindingBlock(bindings, dataflow))
        return tuple(blocks)

    def seq(self, seq) -> ir.SeqExpr:
        """A branch of an `if`: its result the SeqExpr's body (TVM's normalizer leaves a leaf
        there; cgraph's reader reads the branch's last assignment so)."""
        return ir.SeqExpr(self.blocks(seq), self.expr(seq.body))

    def nested_function(self, name: str, f) -> ir.Function:
        """A function bound inside a body, as cgraph's reader reads `@R.function def name`
        there: private, a closure over the enclosing scope (its vars and symbolic vars), the
        symbolic vars it declares first becoming the enclosing function's too."""
        outer = (self.vars, self.syms, self.sym_order, self.type_cache)
        self.vars, self.syms, self.sym_order = dict(outer[0]), dict(outer[1]), []
        self.type_cache = dict(outer[3])
        try:
            params = self.params(f)
            ret = self.sinfo(f.ret_ty)
            attrs = tuple((str(key), ir.Literal(literal_value(f.attrs[key], sort=True)))
                          for key in (sorted(f.attrs.keys()) if f.attrs is not None else ())
                          if str(key) != "global_symbol")
            g = ir.Function(name, params, ret, [], ir.Tuple(()), attrs, True, bool(f.is_pure))
            g.blocks = self.blocks(f.body)
            g.body = self.expr(f.body.body)
            g.sym_vars = tuple(self.sym_order)
            inner = self.sym_order
        finally:
            self.vars, self.syms, self.sym_order, self.type_cache = outer
        for s in inner:
            self.syms.setdefault(s.name, s)
        self.links.nested[g] = f
        return g

    def binding(self, b, dataflow: bool):
        var = b.var
        value = b.value
        if isinstance(b, self.MatchCast):
            sinfo = self.sinfo(var.ty)
            v = ir.Var(var.name, sinfo, isinstance(var, self.DataflowVar), ir.NO_LOC, True)
            out = ir.MatchCast(v, self.expr(value), self.sinfo(b.ty))
        elif type(value) is self.If:
            # as cgraph's reader reads TVM's `if`/`else`: the var after the `if`, unannotated
            e = ir.If(self.expr(value.cond), self.seq(value.true_branch),
                      self.seq(value.false_branch))
            v = ir.Var(var.name, deduce(e, self.signatures), isinstance(var, self.DataflowVar),
                       ir.NO_LOC, False)
            out = ir.VarBinding(v, e, ir.NO_LOC, False)
        elif type(value) is self.Function:
            e = self.nested_function(var.name, value)
            v = ir.Var(var.name, deduce(e, self.signatures), isinstance(var, self.DataflowVar),
                       ir.NO_LOC, False)
            out = ir.VarBinding(v, e, ir.NO_LOC, False)
        else:
            e = self.expr(value)
            bare = is_void_type(self, value.ty) and is_void_type(self, var.ty)
            if bare:  # never an output: a dataflow var in a dataflow block, as the text's
                v = ir.Var("_", deduce(e, self.signatures), dataflow, ir.NO_LOC, False)
            elif isinstance(value, self.Call) and isinstance(value.op, self.Op) and \
                    value.op.name in DPS_CALLS:
                v = ir.Var(var.name, deduce(e, self.signatures),
                           isinstance(var, self.DataflowVar), ir.NO_LOC, False)
            else:
                v = ir.Var(var.name, self.sinfo(var.ty), isinstance(var, self.DataflowVar),
                           ir.NO_LOC, True)
                if type(e) is ir.Constant and e.meta is not None and e.sinfo is None:
                    e.sinfo = v.sinfo
            out = ir.VarBinding(v, e, ir.NO_LOC, bare)
        self.vars[var.id_] = v
        self.links.vars[v] = var
        self.links.bindings[out] = b
        return out

    # ---- expressions ----------------------------------------------------------------------

    def expr(self, e):
        t = type(e)
        if t is self.Var or t is self.DataflowVar:
            v = self.vars.get(e.id_)
            if v is None:  # a TIR var in Relax position: a prim value
                return ir.PrimValue(self.prim(e))
            return ir.Tuple(()) if is_void(v.sinfo) else v
        if t is self.Call:
            op = e.op
            if type(op) is self.Op and not op.name.startswith("relax."):
                return ir.PrimValue(self.prim(e))  # a TIR intrinsic: T.if_then_else(...)
            return self.call(e)
        if t is self.GlobalVar:
            return self.global_var(e)
        if t is self.Tuple:
            return ir.Tuple(tuple([self.expr(x) for x in e.fields[:]]))
        if t is self.TupleGetItem:
            return ir.TupleGetItem(self.expr(e.tuple_value), int(e.index))
        if t is self.ShapeExpr:
            return ir.ShapeExpr(self.dims(e.values[:]))
        if t is self.StringImm:
            return ir.StringImm(str(e.value))
        if t is self.GenericConst:
            return self.constant(e)
        if t is self.ExternFunc:
            return ir.ExternFunc(str(e.global_symbol))
        if self.tvm.ir.is_prim_expr(e):
            return ir.PrimValue(self.prim(e))
        raise Unsupported(f"an expression of type {t.__name__}")

    def global_var(self, gv):
        if gv.name_hint in self.others:
            raise Unsupported(f"a reference to the module-level {gv.name_hint}, neither a "
                              "PrimFunc nor a Relax function")
        return ir.GlobalVarRef(gv.name_hint)

    def constant(self, e):
        value = e.value
        if isinstance(value, self.tvm.DataType) or type(value).__name__ == "dtype":
            return ir.DataTypeImm(str(value))
        shape = getattr(value, "shape", None)
        if shape is None:
            raise Unsupported(f"a constant holding {type(value).__name__}")
        dtype = str(value.dtype)
        if len(shape) == 0:
            c = ir.Constant(value.numpy().item(), dtype)
        else:
            index = next((i for i, o in enumerate(self.constants) if o.same_as(e)), None)
            if index is None:
                index = len(self.constants)
                self.constants.append(e)
            c = ir.Constant(None, dtype, ir.NO_LOC, (CONST_KIND, index),
                            ir.TensorSInfo(tuple(ir.IntImm(int(d)) for d in shape), dtype,
                                           len(shape)))
        self.links.constants[c] = e
        return c

    def call(self, e):
        op = e.op
        args = e.args
        attrs = ()
        if e.attrs is not None and (type(e.attrs) is not self.DictAttrs or len(e.attrs.keys())):
            attrs = self.call_attrs(op, e.attrs)
        ty_args = e.ty_args
        sinfo_args = tuple([self.sinfo(s) for s in ty_args[:]]) if ty_args else ()
        t = type(op)
        literal_args = False
        if t is self.Op:
            name = op.name
            if name in DROPPED_TY_ARGS:
                if sinfo_args and name == "relax.builtin.alloc_tensor":
                    self.links.typed_allocs.add(self.current)
                sinfo_args = ()
            callee = ir.Op(name)
            literal_args = name[6:] not in RELAX_CALLS
        elif t is self.GlobalVar:
            callee = self.global_var(op)
        elif t is self.ExternFunc:
            callee = ir.ExternFunc(str(op.global_symbol))
        elif t is self.Var or t is self.DataflowVar:
            callee = self.vars.get(op.id_)
            if callee is None:
                raise Unsupported("a call of an unknown var")
        else:
            raise Unsupported(f"a call of {t.__name__}")
        if literal_args:
            # an operator cgraph's reader does not model keeps a Python literal as written:
            # TVM prints an int64 or float64 constant, and a bool, bare
            c = ir.Call(callee, tuple([self.op_arg(a) for a in args[:]]), attrs, sinfo_args)
        else:
            c = ir.Call(callee, tuple([self.expr(a) for a in args[:]]), attrs, sinfo_args)
        self.links.calls[c] = e
        if attrs:
            self.links.call_attrs[callee.name, attrs] = e.attrs
        return c

    def call_attrs(self, op, attrs) -> tuple:
        """A call's operator attributes as cgraph's reader keeps them: R.to_vdevice's
        destination by the name TVM prints for it; any other operator's (`R.permute_dims(x,
        axes=[1, 0])`, a dict of attributes) as (field, Literal) pairs, the fields of TVM's
        attributes object in its declared order, each value as literal_value reads it. The
        rewrite keeps such a call as it is, outside graphs (cgraph models no operator with
        attributes), and to_tvm.py hands the TVM attributes object back (`Links.call_attrs`)."""
        if type(op) is self.Op and op.name == "relax.to_vdevice":
            d = attrs.dst_vdevice
            target = d.target.export() if d.target is not None else {}
            ours = ir.VDevice(literal_value(target, sort=True), int(d.vdevice_id),
                              str(d.memory_scope))
            name = next((name for _, v, name in self.vdevices if v == ours), None)
            if name is None:
                raise Unsupported("R.to_vdevice to a vdevice the module's global infos lack")
            return (("dst_vdevice", ir.Literal(name)),)
        if type(attrs) is self.DictAttrs:
            keys = [str(k) for k in attrs.keys()]
        else:
            info = getattr(type(attrs), "__tvm_ffi_type_info__", None)
            if info is None:
                raise Unsupported(f"a call with attributes ({type(attrs).__name__})")
            keys = [f.name for f in info.fields]
        return tuple((k, ir.Literal(attribute_value(attrs[k] if type(attrs) is self.DictAttrs
                                                    else getattr(attrs, k))))
                     for k in keys)

    def op_arg(self, e):
        t = type(e)
        if t is self.IntImm or t is self.FloatImm:
            dtype = str(e.ty)
            if dtype == "bool":
                return ir.Literal(bool(e.value))
            if dtype in ("int64", "float64"):
                return ir.Literal(int(e.value) if t is self.IntImm else float(e.value))
        return self.expr(e)

    # ---- struct info and PrimExprs --------------------------------------------------------

    def sinfo(self, ty):
        if ty is None:
            return None
        key = ty.id_
        found = self.type_cache.get(key)
        if found is not None:
            return found[1]
        s = self._sinfo(ty)
        self.type_cache[key] = (ty, s)
        self.links.types[id(s)] = (s, ty)
        return s

    def _sinfo(self, ty):
        t = type(ty)
        if t is self.TensorType:
            shape = ty.shape
            dims = None
            if shape is not None:
                if type(shape) is self.ShapeExpr:
                    dims = self.dims(shape.values[:])
                # else a shape held in a var (`R.Tensor(s, "float32")`, after a reshape to a
                # shape value): cgraph models no such shape; read as unknown, of its ndim (a
                # call using it is then left outside graphs: unknown-shape)
            dtype = ty.dtype
            dt = "" if dtype is None else str(dtype)
            vdevice = ""
            if ty.vdevice is not None:
                # by identity: TVM 0.27's VDevice.same_as recurses without end
                key = ty.vdevice.id_
                vdevice = next((name for v, _, name in self.vdevices if v.id_ == key), None)
                if vdevice is None:
                    raise Unsupported("a vdevice the module's global infos lack")
            return ir.TensorSInfo(dims, dt, int(ty.ndim) if dims is None else len(dims),
                                  vdevice)
        if t is self.AnyType or t is self.ObjectType or t is self.StringType:
            # a string value (`R.str`, I.StringType()) is an object to the rewrite
            return ir.ObjectSInfo()
        if t is self.TupleType:
            return ir.TupleSInfo(tuple([self._sinfo(f) for f in ty.fields[:]]))
        if t is self.ShapeType:
            values = ty.values
            if values is None:
                return ir.ShapeSInfo(None, int(ty.ndim))
            dims = self.dims(values[:])
            return ir.ShapeSInfo(dims, len(dims))
        if t is self.PrimType:
            return ir.PrimSInfo(str(ty.dtype))
        if t is self.FuncType:
            params = ty.params
            return ir.FuncSInfo(None if params is None else
                                tuple([self._sinfo(p) for p in params[:]]),
                                self._sinfo(ty.ret), bool(ty.purity))
        raise Unsupported(f"struct info of type {t.__name__}")

    def dims(self, values) -> tuple:
        out = []
        for d in values:
            e = self.prim(d)
            if type(e) is ir.IntImm and e.dtype not in ("int64", "bool"):
                e = ir.IntImm(e.value, "int64")  # TVM holds shape dimensions as int64
            out.append(e)
        return tuple(out)

    def prim(self, e):
        t = type(e)
        if t is self.IntImm:
            return ir.IntImm(int(e.value), str(e.ty.dtype if hasattr(e.ty, "dtype") else e.ty))
        if t is self.Var:
            name = e.name
            s = self.syms.get(name)
            if s is None:
                s = ir.SymVar(name, str(e.ty.dtype if hasattr(e.ty, "dtype") else e.ty))
                self.syms[name] = s
                self.sym_order.append(s)
                self.links.syms[s] = e
            return s
        if t is self.FloatImm:
            return ir.FloatImm(float(e.value), str(e.ty))
        name = t.__name__
        op = PRIM_BINOPS.get(name)
        if op is not None:
            return ir.PrimBinOp(op, self.prim(e.a), self.prim(e.b))
        call = PRIM_CALLS.get(name)
        if call is not None:
            return ir.PrimCall(call[0], tuple([self.prim(getattr(e, f)) for f in call[1]]))
        if name == "Cast":
            return ir.PrimCall("T.Cast", (ir.Literal(str(e.ty)), self.prim(e.value)))
        if name == "Call":
            func = PRIM_INTRINSICS.get(str(e.op.name))
            if func is not None:
                return ir.PrimCall(func, tuple([self.prim(a) for a in e.args[:]]))
            raise Unsupported(f"a PrimExpr {e.op.name}(...)")
        raise Unsupported(f"a PrimExpr of type {name}")


def signature_lines(lines: list) -> tuple[int, int]:
    """(first, past the last) of the lines of a PrimFunc's signature in TVM's printing of it:
    from its `def` to the line that ends it (its brackets closed, a `:` last), one line or
    several."""
    at = next(i for i, line in enumerate(lines) if line.startswith("def "))
    depth = 0
    for end in range(at, len(lines)):
        line = lines[end]
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
        if depth <= 0 and line.rstrip().endswith(":"):
            return at, end + 1
    raise Unsupported("a PrimFunc signature without its end")


def is_void_type(reader: Reader, ty) -> bool:
    return type(ty) is reader.TupleType and len(ty.fields) == 0


def literal_value(v, sort: bool = False):
    """A TVM attribute value as cgraph's reader keeps the printed literal (checks.literal):
    bool, int, float, str; ("dict", pairs) with keys sorted as TVM prints them; ("list",
    items)."""
    import tvm_ffi

    if isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, tvm_ffi.container.Map) or isinstance(v, dict):
        pairs = [(literal_value(k), literal_value(x, sort)) for k, x in v.items()]
        if sort:
            pairs.sort(key=lambda kv: str(kv[0]))
        return ("dict", tuple(pairs))
    if isinstance(v, (tvm_ffi.container.Array, list, tuple)):
        return ("list", tuple(literal_value(x, sort) for x in v))
    value = getattr(v, "value", None)
    if isinstance(value, (bool, int, float, str)):
        return value
    raise Unsupported(f"an attribute value of type {type(v).__name__}")


def attribute_value(v):
    """An operator attribute's value as a literal: literal_value's, None, a dtype by its
    name, anything else (a PrimExpr, an object) by TVM's printing of it: the value is handed
    back to TVM as the object it was (to_tvm.py), the literal only names it."""
    import tvm

    if v is None:
        return None
    if isinstance(v, tvm.DataType) or type(v).__name__ == "dtype":
        return str(v)
    try:
        return literal_value(v)
    except Unsupported:
        return str(v)


def read_module(mod) -> tuple:
    """(cgraph's IR of `mod`, its Links). Unsupported for what this reader does not read."""
    r = Reader(mod)
    module = r.module()
    return module, r.links
