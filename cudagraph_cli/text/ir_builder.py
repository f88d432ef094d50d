"""Syntax tree -> IR: names resolved, literal sugar normalized, struct info deduced.

This is where TVMScript's meaning lives, following what TVM 0.27's parser and normalizer do:

* literal sugar: a bare `0` argument of `R.memory.alloc_storage` is `R.prim_value(0)`, its
  `"global"` an `R.str`, its `"float32"` an `R.dtype`; `R.memory.alloc_tensor` gets its default
  `runtime_device_index` 0 and `R.builtin.alloc_tensor` its default scope "global";
  `R.call_packed` arguments convert as TVM's `convert_to_expr` does (ints -- bools too -- to
  int64, floats to float64, strings to `R.str`);
* a use of a variable whose struct info is the empty tuple is the empty tuple `R.tuple()`;
* symbolic shape arithmetic folds constants (`2 * 4` is 8, `m * 1` is `m`);
* a binding without annotation gets the struct info TVM would deduce, where cgraph can.

Errors are `SourceError`s located at the offending node.
"""

from __future__ import annotations

import difflib
import re

from .. import ir
from ..diagnostics import Loc, SourceError
from ..ir.dtypes import NAMED_FLOATS, int_range, is_dtype
from ..ir.sinfo import deduce, erase_to_well_defined, is_void, static_mismatch
from . import syntax as S
from .parser import parse_syntax
from .relax_ops import RELAX_OPS

_MODULE_DECORATORS = {"I.ir_module", "ir_module", "tvm.script.ir_module", "tvm.script.ir.ir_module",
                      "IRModule"}
_RELAX_DECORATORS = {"R.function", "relax.function", "tvm.script.relax.function"}
_PRIM_DECORATORS = {"T.prim_func", "tir.prim_func", "tirx.prim_func", "tvm.script.tir.prim_func",
                    "tvm.script.tirx.prim_func"}
_SYM_DTYPES = {"T.int64": "int64", "T.int32": "int32", "T.int16": "int16", "T.int8": "int8",
               "T.uint64": "uint64", "T.uint32": "uint32", "T.bool": "bool"}
_PRIM_TYPE_CALLS = {"T.int64", "T.int32", "T.int16", "T.int8", "T.uint64", "T.uint32",
                    "T.uint16", "T.uint8", "T.float64", "T.float32", "T.float16", "T.bfloat16",
                    "T.bool"}
_PRIM_FUNCS = {"T.max", "T.min", "T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod",
               "T.if_then_else", "T.Cast", "T.ceildiv"}
_LEGACY_PRIM_BODY = re.compile(r"\bT\.(?:block|alloc_buffer|block_attr)\(|\"tir\.noalias\"")
_CURRENT_PRIM_BODY = re.compile(r"\bT\.sblock\(|\"tirx\.noalias\"")


class _Dialect:
    """Evidence of which TVMScript dialect the text is written in."""

    def __init__(self):
        self.legacy = 0
        self.current = 0


class _Function:
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


class _Closure:
    """A lambda bound to a name (`f = lambda a: a`): a Python value in TVM's parser, not a
    Relax one; a call to it is inlined where it is made."""

    __slots__ = ("node",)

    def __init__(self, node: S.Lambda):
        self.node = node


class ModuleBuilder:
    def __init__(self):
        self.dialect = _Dialect()
        self.signatures: dict[str, object] = {}  # function name -> ir.Function | ir.PrimFunc
        self.prim_params: dict[str, list] = {}  # PrimFunc name -> its parameters as struct info
        # id(var) -> struct info of the value bound to an annotated var: TVM keeps the value's
        # where it is more precise than the annotation (`y: R.Any = x` is a tensor), so the
        # argument checks use it; cgraph's var keeps the annotation as written.
        self.value_sinfo: dict[int, object] = {}
        self.in_binding_annotation = False  # TVM reads "m" in a shape only in a signature
        self.module: ir.Module | None = None
        # Metadata constants read so far: each must have learned its struct info (from a
        # kernel parameter or an annotation) by the end of the module.
        self.meta_constants: list[ir.Constant] = []

    # ---- module level --------------------------------------------------------------------

    def build(self, stmts: list, leading_comments: list[str]) -> ir.Module:
        classes = [s for s in stmts if isinstance(s, S.ClassDef)]
        module_syms: dict[str, str] = {}
        globals_text: list[str] = []
        for s in stmts:
            if isinstance(s, S.Import):
                check_import(s)
                continue
            if isinstance(s, (S.Pass, S.ClassDef)):
                continue
            if isinstance(s, S.Assign) and isinstance(s.target, S.Name) and \
                    isinstance(s.value, S.Call) and S.dotted(s.value.func) == "TypeVar":
                # TVM 0.27 prints `m = TypeVar("m")` for symbolic vars shared by functions.
                module_syms[s.target.id] = "int64"
                globals_text.append(f"{s.target.id} = {S.unparse(s.value)}")
                continue
            if isinstance(s, S.FuncDef):
                raise SourceError("function outside of a module class (expected "
                                  "`@I.ir_module` and `class Module:`)", s.loc)
            raise SourceError("unsupported statement at module level", s.loc)
        if not classes:
            raise SourceError("no module found (expected `@I.ir_module` and `class Module:`)",
                              Loc(1, 1))
        if len(classes) > 1:
            raise SourceError("more than one module in the file", classes[1].loc)
        cls = classes[0]
        decorator_args = ""
        # No decorator: TVM 0.27's from_source still returns the class as an IRModule.
        for d in cls.decorators:
            name = S.dotted(d.func) if isinstance(d, S.Call) else S.dotted(d)
            if name not in _MODULE_DECORATORS:
                raise SourceError(f"unknown decorator '@{name or S.unparse(d)}' on module "
                                  "(expected @I.ir_module)", d.loc)
            if name == "tvm.script.ir_module":
                self.dialect.legacy += 1
            if isinstance(d, S.Call):
                decorator_args = ", ".join(
                    [S.unparse(a) for a in d.args] +
                    [f"{k.name}={S.unparse(k.value)}" for k in d.kwargs])
                if any(k.name == "s_tir" for k in d.kwargs):
                    self.dialect.current += 1
        module = ir.Module(cls.name, [], decorator_args, globals_text, leading_comments,
                           loc=cls.loc)
        self.module = module
        funcdefs = []
        for s in cls.body:
            if isinstance(s, S.FuncDef):
                funcdefs.append(s)
            elif isinstance(s, S.Pass) or (isinstance(s, S.ExprStmt) and
                                           isinstance(s.value, S.Str)):
                continue  # a class docstring: TVM reads it and drops it
            else:
                raise SourceError("only functions may appear in a module class", s.loc)
        # Signatures first: a function may call one defined later in the class.
        headers = []
        for fd in funcdefs:
            if fd.name in self.signatures:
                raise SourceError(f"function '{fd.name}' is defined twice", fd.loc)
            kind, dargs = self._function_kind(fd)
            if kind == "prim":
                f = self._prim_func(fd, dargs)
                self.signatures[fd.name] = f
                headers.append((fd, f, None))
            else:
                fctx = _Function(fd.name, {cls.name}, module_syms)
                f = self._relax_header(fd, dargs, fctx)
                self.signatures[fd.name] = f
                headers.append((fd, f, fctx))
        for fd, f, fctx in headers:
            if fctx is not None:
                self._relax_body(fd, f, fctx, cls.name)
            module.functions += (f,)
        module.dialect = "legacy" if self.dialect.legacy > self.dialect.current else "current"
        for c in self.meta_constants:
            if c.sinfo is None:
                raise SourceError(f"cannot tell the shape and dtype of {meta_text(c)}: the text "
                                  "omits its data; pass it to a PrimFunc (its parameter gives "
                                  "them) or bind it with an annotation", c.loc)
        return module

    def _function_kind(self, fd: S.FuncDef) -> tuple[str, S.Node | None]:
        if not fd.decorators:
            raise SourceError(f"function '{fd.name}' needs a decorator (@R.function or "
                              "@T.prim_func)", fd.loc)
        d = fd.decorators[-1]
        name = S.dotted(d.func) if isinstance(d, S.Call) else S.dotted(d)
        if name in _RELAX_DECORATORS:
            if isinstance(fd.body, str):
                raise SourceError("internal: Relax function body read as TIR", fd.loc)
            return "relax", d
        if name in _PRIM_DECORATORS:
            return "prim", d
        raise SourceError(f"unknown decorator '@{name or S.unparse(d)}' (expected @R.function "
                          "or @T.prim_func)", d.loc)

    # ---- PrimFuncs -----------------------------------------------------------------------

    def _prim_func(self, fd: S.FuncDef, d) -> ir.PrimFunc:
        if not isinstance(fd.body, str):
            raise SourceError("internal: PrimFunc body not captured", fd.loc)
        dargs = ""
        if isinstance(d, S.Call):
            dargs = ", ".join([S.unparse(a) for a in d.args] +
                              [f"{k.name}={S.unparse(k.value)}" for k in d.kwargs])
            if any(k.name == "s_tir" for k in d.kwargs):
                self.dialect.current += 1
        for p in fd.params:
            if p.annotation is not None:
                check_tir_dtype_names(p.annotation)
        if fd.ret is not None:
            check_tir_dtype_names(fd.ret)
        check_tir_dtype_names_in_body(fd.body, fd.body_line)
        if _LEGACY_PRIM_BODY.search(fd.body):
            self.dialect.legacy += 1
        if _CURRENT_PRIM_BODY.search(fd.body):
            self.dialect.current += 1
        params = []
        for p in fd.params:
            if p.annotation is None:
                params.append(ir.PrimParam(p.name, "", "other"))
                continue
            ann = p.annotation
            text = S.unparse(ann)
            head = S.dotted(ann.func) if isinstance(ann, S.Call) else S.dotted(ann)
            shape = dtype = None
            kind = "other"
            if head in ("T.Buffer", "T.buffer", "T.handle", "T.Ptr"):
                kind = "buffer" if head.lower() == "t.buffer" else "handle"
            elif head in _PRIM_TYPE_CALLS:
                kind = "scalar"
                dtype = head[2:]
            if kind == "buffer" and isinstance(ann, S.Call):
                if ann.args:
                    dims = ann.args[0]
                    if isinstance(dims, (S.TupleLit, S.ListLit)):
                        shape = tuple(S.unparse(x) for x in dims.items)
                    else:
                        shape = (S.unparse(dims),)
                if len(ann.args) > 1 and isinstance(ann.args[1], S.Str):
                    dtype = check_dtype(ann.args[1].value, ann.args[1].loc)
                for k in ann.kwargs:
                    if k.name == "dtype" and isinstance(k.value, S.Str):
                        dtype = check_dtype(k.value.value, k.value.loc)
                if dtype is None:
                    dtype = "float32"
            params.append(ir.PrimParam(p.name, text, kind, shape, dtype))
        ret = S.unparse(fd.ret) if fd.ret is not None else None
        return ir.PrimFunc(fd.name, params, _dedent_body(fd.body), dargs, ret, loc=fd.loc)

    # ---- Relax functions -----------------------------------------------------------------

    def _relax_header(self, fd: S.FuncDef, d, fctx: _Function) -> ir.Function:
        private = False
        pure = True
        if isinstance(d, S.Call):
            if d.args:
                raise SourceError("@R.function takes only keyword arguments", d.args[0].loc)
            for k in d.kwargs:
                if k.name == "private":
                    private = self._bool_kwarg(k)
                elif k.name == "pure":
                    pure = self._bool_kwarg(k)
                elif k.name == "check_well_formed":
                    self._bool_kwarg(k)
                else:
                    raise SourceError(f"unknown @R.function argument '{k.name}'", k.loc)
        # Names declared `m = T.int64()` anywhere in the body are symbolic in the whole function.
        for s in fd.body:
            if isinstance(s, S.Assign) and isinstance(s.target, S.Name) and \
                    isinstance(s.value, S.Call) and not s.value.args and not s.value.kwargs:
                dt = _SYM_DTYPES.get(S.dotted(s.value.func) or "")
                if dt is not None:
                    fctx.sym_decl[s.target.id] = dt
                    fctx.sym_decl_loc[s.target.id] = s.loc
        params = []
        seen = set()
        for p in fd.params:
            if p.name in seen:
                raise SourceError(f"duplicate parameter '{p.name}'", p.loc)
            seen.add(p.name)
            if p.annotation is None:
                raise SourceError(f"parameter '{p.name}' needs a struct info annotation "
                                  "(e.g. `x: R.Tensor((4,), \"float32\")`)", p.loc)
            if p.default is not None:
                raise SourceError("Relax parameters cannot have default values", p.default.loc)
            sinfo = self.sinfo(p.annotation, fctx, define=True)
            var = ir.Var(p.name, sinfo, False, p.loc, True)
            params.append(var)
        ret = self.sinfo(fd.ret, fctx, define=True) if fd.ret is not None else None
        ret_loc = fd.ret.loc if fd.ret is not None else fd.loc
        return ir.Function(fd.name, params, ret, [], ir.Tuple(()), [], private, pure,
                           loc=fd.loc, ret_loc=ret_loc)

    @staticmethod
    def _bool_kwarg(k: S.Kwarg) -> bool:
        if isinstance(k.value, S.Const) and isinstance(k.value.value, bool):
            return k.value.value
        raise SourceError(f"'{k.name}' must be True or False", k.value.loc)

    def _relax_body(self, fd: S.FuncDef, f: ir.Function, fctx: _Function, class_name: str):
        for p in f.params:
            fctx.scope[p.name] = p
        stmts = fd.body
        blocks: list = []
        current: list | None = None
        body_expr = None
        first_return: Loc | None = None
        for i, s in enumerate(stmts):
            if isinstance(s, S.Return):
                # TVM binds statements after the `return` too (they come out before it);
                # only a second `return` is an error.
                if first_return is not None:
                    raise SourceError("a Relax function has one `return` (the first is at "
                                      f"line {first_return.line})", s.loc)
                first_return = s.loc
                if s.value is None:
                    raise SourceError("a Relax function must return a value", s.loc)
                body_expr = self.expr(s.value, fctx, "value")
                continue
            if isinstance(s, S.With):
                current = None
                blocks.append(self._dataflow(s, fctx))
                continue
            for binding in self._bindings(s, f, fctx, class_name):
                if current is None:
                    current = []  # a plain block's bindings: see _plain_blocks
                    blocks.append((current, binding.loc))
                current.append(binding)
        if body_expr is None:
            raise SourceError(f"function '{f.name}' has no `return`", fd.loc)
        f.blocks = _plain_blocks(blocks)
        f.body = body_expr
        f.sym_vars = tuple(fctx.sym_order)
        if f.ret_sinfo is None:
            # Unannotated: what TVM would deduce; None if it involves unmodelled operators
            # (then the printer leaves it out again, and TVM deduces it on reading).
            ret = deduce(body_expr, self.signatures)
            if ret is not None:
                defined = {id(v) for p in f.params for v in ir.sinfo_prim_vars(p.sinfo)}
                ret = erase_to_well_defined(ret, defined)
            f.ret_sinfo = ret
            f.ret_deduced = True

    def _bindings(self, s, f: ir.Function, fctx: _Function, class_name: str) -> list:
        """One statement of a Relax function body -> its bindings (none, one, or one per name
        of `a, b = t`)."""
        if isinstance(s, S.Assign) and isinstance(s.target, (S.TupleLit, S.ListLit)):
            return self._unpack(s, fctx)
        binding = self._statement(s, f, fctx, class_name)
        return [] if binding is None else [binding]

    def _unpack(self, s: S.Assign, fctx: _Function) -> list:
        """`a, b = value` as Python runs it in TVM's parser: a tuple (a literal, R.tuple(...))
        gives its fields themselves; a var holding a tuple gives `t[0]`, `t[1]`, ...; the
        counts must agree."""
        if s.annotation is not None:
            raise SourceError("only a single name can be annotated", s.target.loc)
        names = []
        for t in s.target.items:
            if not isinstance(t, S.Name) or "." in t.id:
                raise SourceError("can only unpack into names", t.loc)
            names.append(t)
        value = self.expr(s.value, fctx, "value")
        if isinstance(value, ir.Tuple):
            items = list(value.fields)
        elif isinstance(value, ir.Var):
            vs = self.effective_sinfo(value)
            if not isinstance(vs, ir.TupleSInfo):
                raise SourceError(f"cannot unpack '{value.name}': it is "
                                  f"{_sinfo_text(vs)}, not a tuple", s.value.loc)
            items = [ir.TupleGetItem(value, i, s.loc) for i in range(len(vs.fields))]
        else:
            raise SourceError("cannot unpack a call's result here; bind it to a name first "
                              "(`t = ...`, then `a, b = t`)", s.value.loc)
        if len(items) < len(names):
            raise SourceError(f"not enough values to unpack (expected {len(names)}, got "
                              f"{len(items)})", s.loc)
        if len(items) > len(names):
            raise SourceError(f"too many values to unpack (expected {len(names)})", s.loc)
        out = []
        for t, item in zip(names, items):
            var = ir.Var(t.id, deduce(item, self.signatures), False, t.loc, False)
            out.append(ir.VarBinding(var, item, t.loc))
        # Python binds the names after evaluating the whole right-hand side: `a, b = b, a`.
        for b in out:
            fctx.scope[b.var.name] = b.var
        return out

    def _statement(self, s, f: ir.Function, fctx: _Function, class_name: str):
        """One statement of a Relax function body -> a binding, or None (handled here)."""
        if isinstance(s, S.Pass):
            return None
        if isinstance(s, S.ExprStmt):
            v = s.value
            if isinstance(v, S.Call):
                name = S.dotted(v.func)
                if name == "R.func_attr":
                    if len(v.args) != 1 or not isinstance(v.args[0], S.DictLit):
                        raise SourceError("R.func_attr takes one dict", v.loc)
                    for k, val in v.args[0].items:
                        if not isinstance(k, S.Str):
                            raise SourceError("attribute names must be strings", k.loc)
                        f.attrs += ((k.value, literal(val)),)
                    return None
                if name == "R.output":
                    raise SourceError("R.output outside of a dataflow block", v.loc)
            if isinstance(v, S.Const) and v.value is None:
                return None  # TVM evaluates a bare `None` to nothing and moves on
            if isinstance(v, S.Str):
                raise SourceError("a string (docstring) is not a Relax statement; use a "
                                  "`#` comment", v.loc)
            if isinstance(v, (S.Num, S.Const, S.TupleLit, S.ListLit, S.DictLit)):
                raise SourceError("a Python value is not a Relax statement (bind it: "
                                  "`_ = ...`)", v.loc)
            value = self.expr(v, fctx, "value")
            sinfo = deduce(value, self.signatures)
            if isinstance(value, ir.GlobalVarRef):
                raise SourceError("a function reference is not a statement (call it, or bind "
                                  "it: `f = cls.name`)", v.loc)
            if sinfo is not None and not is_void(sinfo):
                raise SourceError("a non-void expression must be bound to a variable "
                                  f"(`_ = ...`); this one is {_sinfo_text(sinfo)}", v.loc)
            var = ir.Var("_", sinfo, False, s.loc, False)
            return ir.VarBinding(var, value, s.loc, bare=True)
        if isinstance(s, S.Assign):
            if not isinstance(s.target, S.Name) or "." in s.target.id:
                raise SourceError("can only bind a single name", s.target.loc)
            name = s.target.id
            v = s.value
            if isinstance(v, S.Name) and v.id in fctx.class_aliases | {class_name} and \
                    s.annotation is None:
                fctx.class_aliases.add(name)  # `cls = Module`
                return None
            if isinstance(v, S.Call) and not v.args and not v.kwargs and \
                    (S.dotted(v.func) or "") in _SYM_DTYPES:
                fctx.sym(name, s.loc)  # `m = T.int64()`
                return None
            if isinstance(v, S.Lambda) and s.annotation is None:
                fctx.scope[name] = _Closure(v)
                return None
            if isinstance(v, S.Call) and S.dotted(v.func) == "R.match_cast":
                if len(v.args) != 2:
                    raise SourceError("R.match_cast takes a value and a struct info", v.loc)
                value = self.expr(v.args[0], fctx, "value")
                target = self.sinfo(v.args[1], fctx, define=True)
                given = self.effective_sinfo(value)
                if impossible_match(target, given):
                    raise SourceError(f"R.match_cast can never succeed: a value of "
                                      f"{_sinfo_text(given)} is never {_sinfo_text(target)}",
                                      s.loc)
                var = ir.Var(name, target, False, s.loc, s.annotation is not None)
                if s.annotation is not None:
                    var.sinfo = self.sinfo(s.annotation, fctx)
                fctx.scope[name] = var
                return ir.MatchCast(var, value, target, s.loc)
            value = self.expr(v, fctx, "value")
            if s.annotation is not None:
                var = self._annotated_var(name, s, value, fctx, s.loc)
            else:
                var = ir.Var(name, deduce(value, self.signatures), False, s.loc, False)
            fctx.scope[name] = var
            return ir.VarBinding(var, value, s.loc)
        if isinstance(s, S.If):
            return self._if(s, f, fctx, class_name)
        if isinstance(s, S.FuncDef):
            return self._nested_function(s, fctx, class_name)
        if isinstance(s, S.Import):
            check_import(s)
            return None
        raise SourceError("unsupported statement in a Relax function", s.loc)

    def _annotated_var(self, name: str, s: S.Assign, value, fctx: _Function,
                       loc: Loc) -> ir.Var:
        """The var of `name: annotation = value`. As TVM's normalizer, an annotation the value
        can never satisfy (another kind, dtype, rank or constant dimension) is an error."""
        self.in_binding_annotation = True
        try:
            sinfo = self.sinfo(s.annotation, fctx)
        finally:
            self.in_binding_annotation = False
        if type(value) is ir.Constant and value.meta is not None and value.sinfo is None and \
                static_tensor(sinfo):
            value.sinfo = sinfo
            value.dtype = sinfo.dtype
        given = self.effective_sinfo(value)
        if impossible_match(sinfo, given):
            raise SourceError(f"the annotation {_sinfo_text(sinfo)} does not match the value, "
                              f"which is {_sinfo_text(given)}", loc)
        var = ir.Var(name, sinfo, False, loc, True)
        self.value_sinfo[id(var)] = given
        return var

    def effective_sinfo(self, e):
        """The struct info TVM gives `e`: for an annotated var, its value's (see
        `value_sinfo`) where that is known and more precise than the annotation."""
        if isinstance(e, ir.Var) and id(e) in self.value_sinfo:
            given = self.value_sinfo[id(e)]
            if given is not None and isinstance(e.sinfo, ir.ObjectSInfo):
                return given
        return deduce(e, self.signatures)

    def _if(self, s: S.If, f: ir.Function, fctx: _Function, class_name: str) -> ir.VarBinding:
        """`if`/`else` as TVM 0.27's parser reads it: each branch ends by assigning the same
        name; that name is bound, after the `if`, to an If whose branches are SeqExprs.
        A branch's last value is the branch result itself when it is a leaf (a var, a
        constant, a tuple of those); otherwise it is bound first, to `<name>_then` or
        `<name>_else`. Names bound inside a branch are not visible after it."""
        if s.orelse is None:
            raise SourceError("Relax `if` needs an `else` branch", s.loc)
        if isinstance(s.cond, S.Const) and isinstance(s.cond.value, bool):
            cond = ir.PrimValue(ir.IntImm(int(s.cond.value), "bool"), s.cond.loc)
        else:
            cond = self.expr(s.cond, fctx, "value")
        csinfo = deduce(cond, self.signatures)
        if not _is_bool_condition(csinfo):
            raise SourceError("an `if` condition must be a bool scalar (R.Tensor((), \"bool\") "
                              "or R.Prim(\"bool\"))", s.cond.loc)
        branches = []
        for stmts, suffix in ((s.body, "_then"), (s.orelse, "_else")):
            saved = dict(fctx.scope)
            try:
                branches.append(self._branch(stmts, s, f, fctx, class_name, suffix))
            finally:
                fctx.scope = saved
        (then_seq, then_name), (else_seq, else_name) = branches
        if then_name != else_name:
            raise SourceError(f"both branches of an `if` must end by assigning the same name "
                              f"('{then_name}' in the first, '{else_name}' in the second)",
                              s.loc)  # where TVM locates it: the `if`
        value = ir.If(cond, then_seq, else_seq, s.loc)
        var = ir.Var(then_name, deduce(value, self.signatures), False, s.loc, False)
        fctx.scope[then_name] = var
        return ir.VarBinding(var, value, s.loc)

    def _branch(self, stmts: list, s: S.If, f: ir.Function, fctx: _Function, class_name: str,
                suffix: str):
        """One branch of an `if` -> (SeqExpr, the name it assigns last)."""
        body = [x for x in stmts if not isinstance(x, S.Pass)]
        last = body[-1] if body else None
        if isinstance(last, S.If):
            # An `if` ending a branch: its var is the branch result, renamed as TVM does.
            seq, _ = self._branch_prefix(body[:-1], s, f, fctx, class_name)
            inner = self._if(last, f, fctx, class_name)
            name = inner.var.name
            inner.var.name = name + suffix
            self._append(seq, inner)
            seq.body = inner.var
            return seq, name
        if isinstance(last, S.ExprStmt):
            return self._branch_ending_in_call(body, s, f, fctx, class_name)
        if not isinstance(last, S.Assign) or not isinstance(last.target, S.Name) or \
                "." in last.target.id:
            where = last.loc if last is not None else s.loc
            raise SourceError("a branch of an `if` must end by assigning its result to a name "
                              "(`z = ...`)", where)
        seq, _ = self._branch_prefix(body[:-1], s, f, fctx, class_name)
        name = last.target.id
        value = self.expr(last.value, fctx, "value")
        if not _is_leaf(value):
            if last.annotation is not None:
                var = self._annotated_var(name + suffix, last, value, fctx, last.loc)
            else:
                var = ir.Var(name + suffix, deduce(value, self.signatures), False, last.loc,
                             False)
            self._append(seq, ir.VarBinding(var, value, last.loc))
            value = var
        seq.body = value
        return seq, name

    def _branch_ending_in_call(self, body: list, s: S.If, f: ir.Function, fctx: _Function,
                               class_name: str):
        """A branch whose last statement is a call for its effect (`cls.kernel(x, y)`): TVM
        binds it to `_` like any such call, and that last binding's var is the branch result
        and names the `if`; being void, the result reads as R.tuple()."""
        last = body[-1]
        seq, _ = self._branch_prefix(body[:-1], s, f, fctx, class_name)
        binding = self._statement(last, f, fctx, class_name)
        if binding is None:
            raise SourceError("a branch of an `if` must end by assigning its result to a name "
                              "(`z = ...`) or by a call", last.loc)
        self._append(seq, binding)
        if is_void(binding.var.sinfo):
            seq.body = ir.Tuple((), last.loc)
        else:
            binding.bare = False
            seq.body = binding.var
        return seq, binding.var.name

    @staticmethod
    def _append(seq: ir.SeqExpr, binding):
        if not seq.blocks or seq.blocks[-1].is_dataflow:
            seq.blocks += (ir.BindingBlock((binding,), False, binding.loc),)
        else:
            last = seq.blocks[-1]
            seq.blocks = seq.blocks[:-1] + (ir.BindingBlock(last.bindings + (binding,), False,
                                                            last.loc),)

    def _branch_prefix(self, stmts: list, s: S.If, f: ir.Function, fctx: _Function,
                       class_name: str):
        """The statements of a branch before its last one -> a SeqExpr without a result."""
        blocks: list = []
        current: list | None = None
        for x in stmts:
            if isinstance(x, S.Return):
                raise SourceError("`return` inside an `if` branch (assign the result to a "
                                  "name, and return it after the `if`)", x.loc)
            if isinstance(x, S.With):
                current = None
                blocks.append(self._dataflow(x, fctx))
                continue
            for binding in self._bindings(x, f, fctx, class_name):
                if current is None:
                    current = []  # a plain block's bindings: see _plain_blocks
                    blocks.append((current, binding.loc))
                current.append(binding)
        return ir.SeqExpr(_plain_blocks(blocks), ir.Tuple(()), s.loc), None

    def _nested_function(self, fd: S.FuncDef, fctx: _Function, class_name: str):
        """`@R.function def inner(...)` inside a function body: a local, private function,
        bound to the var `inner`; it may use the enclosing function's vars (a closure)."""
        if isinstance(fd.body, str) or (fd.decorators and (S.dotted(
                fd.decorators[-1].func if isinstance(fd.decorators[-1], S.Call)
                else fd.decorators[-1]) or "") in _PRIM_DECORATORS):
            raise SourceError("inline prim_func is disallowed in Relax IR", fd.loc)
        kind, dargs = self._function_kind(fd)
        inner = _Function(fd.name, fctx.class_aliases, fctx.sym_decl)
        inner.scope = dict(fctx.scope)
        inner.syms = dict(fctx.syms)
        g = self._relax_header(fd, dargs, inner)
        self._relax_body(fd, g, inner, class_name)
        g.is_private = True  # as TVM: a function inside another is never exported
        # The enclosing function's symbolic vars are the inner one's too.
        for v in inner.sym_order:
            if fctx.syms.get(v.name) is None:
                fctx.syms[v.name] = v
        var = ir.Var(fd.name, deduce(g, self.signatures), False, fd.loc, False)
        fctx.scope[fd.name] = var
        return ir.VarBinding(var, g, fd.loc)

    def _dataflow(self, w: S.With, fctx: _Function) -> ir.BindingBlock:
        if not (isinstance(w.ctx, S.Call) and S.dotted(w.ctx.func) == "R.dataflow"):
            raise SourceError("only `with R.dataflow():` blocks are supported", w.ctx.loc)
        if w.as_name is not None:
            raise SourceError(f"`with R.dataflow() as {w.as_name}`: a dataflow block cannot be "
                              "bound to a name (write `with R.dataflow():`)", w.loc)
        bindings: list = []
        saved = dict(fctx.scope)
        outputs: list[ir.Var] | None = None
        dummy_f = ir.Function("", [], None, [], ir.Tuple(()))
        for s in w.body:
            if outputs is not None:
                raise SourceError("statement after R.output in a dataflow block", s.loc)
            if isinstance(s, S.ExprStmt) and isinstance(s.value, S.Call) and \
                    S.dotted(s.value.func) == "R.output":
                outputs = []
                for a in s.value.args:
                    if not isinstance(a, S.Name) or a.id not in fctx.scope:
                        raise SourceError("R.output takes variables bound in the block", a.loc)
                    outputs.append(fctx.scope[a.id])
                continue
            if isinstance(s, S.With):
                raise SourceError("nested `with` blocks are not supported", s.loc)
            bindings.extend(self._bindings(s, dummy_f, fctx, ""))
        if dummy_f.attrs:
            raise SourceError("R.func_attr inside a dataflow block", w.loc)
        out_ids = {id(v) for v in outputs or ()}
        for b in bindings:
            b.var.is_dataflow = id(b.var) not in out_ids
        # After the block only its outputs stay visible.
        fctx.scope = saved
        for v in outputs or ():
            fctx.scope[v.name] = v
        return ir.BindingBlock(bindings, True, w.loc)

    # ---- expressions ---------------------------------------------------------------------

    def expr(self, node, fctx: _Function, ctx: str = "value"):
        """A Relax expression. `ctx` is "value", or "packed" (convert_to_expr rules)."""
        t = type(node)
        if t is S.Name:
            name = node.id
            if "." in name:
                return self._dotted_value(node, fctx)
            var = fctx.scope.get(name)
            if var is not None:
                if type(var) is not ir.Var:
                    if type(var) is _Closure:
                        raise SourceError(f"'{name}' is a lambda, not a Relax value (call it)",
                                          node.loc)
                    return var  # a lambda's parameter: the value it was called with
                if is_void(var.sinfo):
                    return ir.Tuple((), node.loc)  # as TVM's normalizer does
                return var
            if name in fctx.syms or name in fctx.sym_decl:
                return ir.PrimValue(fctx.sym(name, node.loc), node.loc)
            if name == "metadata":
                raise SourceError(METADATA_FORM, node.loc)
            raise SourceError(f"undefined variable '{name}'", node.loc)
        if t is S.Call:
            return self._call(node, fctx)
        if t is S.TupleLit or t is S.ListLit:
            return ir.Tuple(tuple(self.expr(x, fctx, ctx) for x in node.items), node.loc)
        if t is S.GetItem:
            if _metadata_root(node) and fctx.scope.get("metadata") is None:
                return self._metadata_constant(node)
            base = self.expr(node.obj, fctx)
            idx = node.index
            if not isinstance(idx, S.Num) or not isinstance(idx.value, int):
                raise SourceError("tuple index must be an integer literal", idx.loc)
            bs = deduce(base, self.signatures)
            if isinstance(bs, (ir.TensorSInfo, ir.ShapeSInfo, ir.PrimSInfo, ir.FuncSInfo)):
                # TVM's normalizer: "The type of Tuple must be TupleType" (an R.Any may still
                # hold a tuple, so only a value known to be something else is refused).
                raise SourceError("only a tuple can be indexed; this value is "
                                  f"{_sinfo_text(bs)}", node.loc)
            if isinstance(bs, ir.TupleSInfo) and not 0 <= idx.value < len(bs.fields):
                raise SourceError(f"index {idx.value} out of range: the tuple has "
                                  f"{len(bs.fields)} field{'s' if len(bs.fields) != 1 else ''}",
                                  idx.loc)
            return ir.TupleGetItem(base, idx.value, node.loc)
        if t is S.Num:
            if isinstance(node.value, int):
                return ir.PrimValue(int_imm(node.value, "int64", node.loc), node.loc)
            return ir.PrimValue(ir.FloatImm(node.value, "float64"), node.loc)
        if t is S.Const:
            if node.value is None:
                raise SourceError("None is not a Relax value (use R.null_value())", node.loc)
            return ir.PrimValue(ir.IntImm(int(node.value), "int64"), node.loc)
        if t is S.Str:
            return ir.StringImm(node.value, node.loc)
        if t is S.BinOp or t is S.Neg:
            return ir.PrimValue(self.prim(node, fctx), node.loc)
        if t is S.DictLit:
            raise SourceError("a dict is not a Relax value", node.loc)
        if t is S.Lambda:
            raise SourceError("a lambda is not a Relax value (call it, or bind it to a name "
                              "and call that)", node.loc)
        raise SourceError("unsupported expression", node.loc)

    def _dotted_value(self, node: S.Name, fctx: _Function):
        head, _, rest = node.id.partition(".")
        if head in fctx.class_aliases or (self.module and head == self.module.name):
            if "." in rest:
                raise SourceError(f"unknown module member '{rest}'", node.loc)
            return ir.GlobalVarRef(rest)
        if node.id in ("R.Any", "R.Object", "R.Tensor", "R.Tuple", "R.Shape"):
            raise SourceError(f"'{node.id}' is a struct info, not a value", node.loc)
        if head == "R":
            raise SourceError(f"'{node.id}' must be called", node.loc)
        if head == "T":
            raise SourceError(f"'{node.id}' is a TIR name, not a Relax value", node.loc)
        var = fctx.scope.get(head)
        if var is not None:
            raise SourceError(f"attribute access on variable '{head}' is not supported",
                              node.loc)
        if head == "metadata":
            raise SourceError(METADATA_FORM, node.loc)
        raise SourceError(f"undefined variable '{head}'", node.loc)

    def _metadata_constant(self, node: S.GetItem) -> ir.Constant:
        """`metadata["<kind>"][<index>]`: a constant of the module's metadata table, which
        TVM's printer refers to by kind and index and omits (its struct info comes later)."""
        inner = node.obj
        if not (isinstance(inner, S.GetItem) and isinstance(inner.obj, S.Name) and
                isinstance(inner.index, S.Str) and isinstance(node.index, S.Num) and
                isinstance(node.index.value, int) and not isinstance(node.index.value, bool)
                and node.index.value >= 0):
            raise SourceError(METADATA_FORM, node.loc)
        c = ir.Constant(None, "", inner.obj.loc, (inner.index.value, node.index.value))
        self.meta_constants.append(c)
        return c

    @staticmethod
    def _give_constants_sinfo(args, params):
        """Metadata constants passed to a PrimFunc take the struct info of their parameter,
        when it is a buffer of known dtype and constant shape (TVM: the constant's own)."""
        for arg, param in zip(args, params):
            if type(arg) is ir.Constant and arg.meta is not None and arg.sinfo is None and \
                    static_tensor(param):
                arg.sinfo = param
                arg.dtype = param.dtype

    def _call(self, node: S.Call, fctx: _Function):
        if isinstance(node.func, S.Lambda):
            return self._inline_lambda(node.func, node, fctx)
        name = S.dotted(node.func)
        if name is None:
            raise SourceError("unsupported call", node.loc)
        head, _, rest = name.partition(".")
        if head in fctx.class_aliases or (self.module and head == self.module.name):
            if not rest or "." in rest:
                raise SourceError(f"unknown module member '{rest}'", node.loc)
            self._no_kwargs(node, name)
            args = tuple(self.expr(a, fctx) for a in node.args)
            self._check_global_call(node, name, rest, args)
            return ir.Call(ir.GlobalVarRef(rest), args, (), (), node.loc)
        if head == "R":
            builder = _RELAX_CALLS.get(rest)
            if builder is not None:
                if rest not in _OWN_SINFO_ARGS:
                    # TVM 0.27 prints ty_args on R.builtin.alloc_tensor (set by
                    # CallTIRRewrite) but its parser rejects them there, as on every call
                    # built here: they are read (and checked) and dropped. They are
                    # redundant: the call's struct info follows from its shape and dtype.
                    kw = [k for k in node.kwargs if k.name in ("ty_args", "sinfo_args")]
                    if kw:
                        self._sinfo_args(kw[-1], fctx)
                        node = S.Call(node.func, node.args,
                                      [k for k in node.kwargs if k not in kw], node.line,
                                      node.col)
                return builder(self, node, fctx)
            if rest in ("Tensor", "Tuple", "Shape", "Object", "Any", "Prim", "Callable"):
                raise SourceError(f"'{name}' is a struct info, not a value", node.loc)
            if rest in ("function", "dataflow", "output", "func_attr", "match_cast"):
                raise SourceError(f"'{name}' cannot be used here", node.loc)
            check_op_arguments(node, rest)
            return self._generic_op(node, "relax." + rest, fctx)
        if head == "T":
            return ir.PrimValue(self.prim(node, fctx), node.loc)
        if "." not in name:
            var = fctx.scope.get(name)
            if type(var) is _Closure:
                return self._inline_lambda(var.node, node, fctx)
            if var is not None:
                self._no_kwargs(node, name)
                return ir.Call(var, tuple(self.expr(a, fctx) for a in node.args), (), (),
                               node.loc)
            raise SourceError(f"undefined function '{name}'", node.func.loc)
        raise SourceError(f"unknown function '{name}'", node.func.loc)

    def _inline_lambda(self, lam: S.Lambda, node: S.Call, fctx: _Function):
        """A call to a lambda, as Python runs it in TVM's parser: the arguments are evaluated,
        then the body, with the parameters naming those values (and other names as at the
        call, Python's late binding)."""
        if len(node.args) > len(lam.params):
            raise SourceError(f"the lambda takes {len(lam.params)} argument"
                              f"{'s' if len(lam.params) != 1 else ''}, {len(node.args)} given",
                              node.args[len(lam.params)].loc)
        bound = {p: self.expr(a, fctx) for p, a in zip(lam.params, node.args)}
        for k in node.kwargs:
            if k.name not in lam.params:
                raise SourceError(f"the lambda has no parameter '{k.name}'", k.loc)
            if k.name in bound:
                raise SourceError(f"the lambda got two values for '{k.name}'", k.loc)
            bound[k.name] = self.expr(k.value, fctx)
        missing = [p for p in lam.params if p not in bound]
        if missing:
            raise SourceError(f"the lambda is missing argument '{missing[0]}'", node.loc)
        saved = fctx.scope
        fctx.scope = {**saved, **bound}
        try:
            return self.expr(lam.body, fctx)
        finally:
            fctx.scope = saved

    def _check_global_call(self, node: S.Call, name: str, callee: str, args: tuple):
        """What TVM's normalizer checks on a call to a module function: the argument count,
        and each argument against its parameter where they differ statically (dtype, rank,
        a constant dimension, the kind of value); symbolic differences are left to run time."""
        f = self.signatures.get(callee)
        if isinstance(f, ir.PrimFunc):
            params = self.prim_params.get(callee)
            if params is None:  # once per PrimFunc: a model calls each kernel many times
                params = self.prim_params[callee] = [prim_param_sinfo(p) for p in f.params]
        elif isinstance(f, ir.Function):
            params = [p.sinfo for p in f.params]
        else:
            return  # a missing function: the well-formedness check names it
        if isinstance(f, ir.PrimFunc):
            self._give_constants_sinfo(args, params)
        if len(args) != len(params):
            raise SourceError(f"'{name}' takes {len(params)} argument"
                              f"{'s' if len(params) != 1 else ''} ({callee}'s parameters), "
                              f"{len(args)} given", node.loc)
        for i, (param, arg) in enumerate(zip(params, args)):
            if param is None:
                continue
            given = self.effective_sinfo(arg)
            # TVM's well-formedness check wants each argument to be of its parameter's kind
            # already: an object (a storage, a string, an R.Any) is no tensor.
            if static_mismatch(param, given) or (isinstance(given, ir.ObjectSInfo) and
                                                 not isinstance(param, ir.ObjectSInfo)):
                raise SourceError(f"argument {i} of '{name}' does not match its parameter: "
                                  f"expected {_sinfo_text(param)}, given {_sinfo_text(given)}",
                                  node.args[i].loc)

    @staticmethod
    def _no_kwargs(node: S.Call, name: str):
        if node.kwargs:
            raise SourceError(f"'{name}' takes no keyword arguments", node.kwargs[0].loc)

    def _generic_op(self, node: S.Call, op: str, fctx: _Function) -> ir.Call:
        """An operator cgraph does not model: Relax values resolved, literals kept as written."""
        args = tuple(self._op_arg(a, fctx) for a in node.args)
        attrs = []
        sinfo_args: tuple = ()
        for k in node.kwargs:
            if k.name in ("ty_args", "sinfo_args", "out_sinfo"):
                sinfo_args = self._sinfo_args(k, fctx)
                continue
            attrs.append((k.name, self._op_arg(k.value, fctx)))
        return ir.Call(ir.Op(op), args, tuple(attrs), sinfo_args, node.loc)

    def _op_arg(self, node, fctx: _Function):
        if _is_literal(node):
            _check_literal_ints(node)
            return literal(node)
        return self.expr(node, fctx)

    def _sinfo_args(self, k: S.Kwarg, fctx: _Function) -> tuple:
        if k.name == "sinfo_args":
            self.dialect.legacy += 1
        elif k.name == "ty_args":
            self.dialect.current += 1
        v = k.value
        if isinstance(v, (S.TupleLit, S.ListLit)):
            return tuple(self.sinfo(x, fctx) for x in v.items)
        return (self.sinfo(v, fctx),)

    def _args(self, node: S.Call, names: list[str], defaults: dict, required: int):
        """Bind a call's positional and keyword arguments to parameter names."""
        bound: dict[str, S.Node] = {}
        if len(node.args) > len(names):
            raise SourceError(f"too many arguments ({len(node.args)} given, at most "
                              f"{len(names)})", node.args[len(names)].loc)
        for n, a in zip(names, node.args):
            bound[n] = a
        for k in node.kwargs:
            if k.name not in names:
                raise SourceError(f"unexpected keyword argument '{k.name}'", k.loc)
            if k.name in bound:
                raise SourceError(f"argument '{k.name}' given twice", k.loc)
            bound[k.name] = k.value
        for n in names[:required]:
            if n not in bound:
                raise SourceError(f"missing argument '{n}'", node.loc)
        return [bound.get(n, defaults.get(n)) for n in names]

    # conversions of literal sugar, per parameter kind
    def _as_prim_value(self, node, fctx: _Function):
        if isinstance(node, ir.PrimValue):
            return node
        if isinstance(node, S.Num):
            if isinstance(node.value, int):
                return ir.PrimValue(int_imm(node.value, "int64", node.loc), node.loc)
            return ir.PrimValue(ir.FloatImm(node.value, "float64"), node.loc)
        if isinstance(node, S.Const) and isinstance(node.value, bool):
            return ir.PrimValue(ir.IntImm(int(node.value), "bool"), node.loc)
        v = self.expr(node, fctx)
        # TVM converts only a primitive value: an object (a storage, an R.Any) is refused.
        given = self.effective_sinfo(v)
        if isinstance(v, ir.StringImm) or \
                (given is not None and not isinstance(given, ir.PrimSInfo)):
            raise SourceError("expected an integer (a literal or R.prim_value(...)), given "
                              f"{'a string' if isinstance(v, ir.StringImm) else _sinfo_text(given)}",
                              node.loc)
        return v

    def _as_str(self, node, fctx: _Function):
        if isinstance(node, ir.StringImm):
            return node
        if isinstance(node, S.Str):
            return ir.StringImm(node.value, node.loc)
        v = self.expr(node, fctx)
        if not isinstance(v, ir.StringImm):
            raise SourceError("expected a string literal (or R.str(...))", node.loc)
        return v

    def _as_dtype(self, node, fctx: _Function):
        if isinstance(node, ir.DataTypeImm):
            return node
        if isinstance(node, S.Str):
            return ir.DataTypeImm(_dtype_name(check_dtype(node.value, node.loc)), node.loc)
        v = self.expr(node, fctx)
        if not isinstance(v, ir.DataTypeImm):
            # TVM converts only a literal: a string or R.dtype(...), not a variable or R.str.
            raise SourceError("expected a dtype: a string literal such as \"float32\", or "
                              "R.dtype(...)", node.loc)
        return v

    def _as_alloc_shape(self, node, fctx: _Function, literal_only: bool):
        """The shape of an alloc call: R.shape([...]), or (R.memory.alloc_tensor only) a
        variable holding a shape -- what TVM's struct info inference accepts."""
        v = self.expr(node, fctx)
        if isinstance(v, ir.ShapeExpr):
            return v
        given = deduce(v, self.signatures)
        if literal_only or not isinstance(given, ir.ShapeSInfo):
            raise SourceError("expected a shape: R.shape([...])" +
                              ("" if literal_only else " or a variable holding one") +
                              (f", given {_sinfo_text(given)}" if given is not None else ""),
                              node.loc)
        return v

    def _as_shape(self, node, fctx: _Function):
        if isinstance(node, (S.TupleLit, S.ListLit)):
            return ir.ShapeExpr(self.dims(node.items, fctx), node.loc)
        return self.expr(node, fctx)

    def dims(self, items: list, fctx: _Function, define: bool = False) -> tuple:
        """The dimensions of a shape: TVM holds every one to int64 (`the value in ShapeType
        can only have dtype of int64`): it widens an integer constant (`T.int32(3)` is 3), and
        refuses a float or a variable of another type."""
        out = []
        for x in items:
            e = self.prim(x, fctx, define)
            if isinstance(e, ir.IntImm) and e.dtype not in ("int64", "bool"):
                e = int_imm(e.value, "int64", x.loc)
            bad = _non_int64_leaf(e)
            if bad is not None:
                if isinstance(bad, ir.SymVar):
                    decl = fctx.sym_decl_loc.get(bad.name)
                    where = f" (declared at line {decl.line})" if decl is not None else ""
                    what = f"'{bad.name}' is {bad.dtype}{where}"
                else:
                    what = f"{bad.value!r} is {bad.dtype}"
                raise SourceError(f"a shape dimension must be an int64 integer; {what}", x.loc)
            out.append(e)
        return tuple(out)

    # ---- R.* calls that cgraph models ----------------------------------------------------

    def _r_alloc_storage(self, node, fctx):
        size, dev, scope, dtype = self._args(
            node, ["size", "virtual_device_index", "storage_scope", "dtype"], {}, 4)
        return ir.Call(ir.Op("relax.memory.alloc_storage"),
                       (self._as_shape(size, fctx), self._as_prim_value(dev, fctx),
                        self._as_str(scope, fctx), self._as_dtype(dtype, fctx)), (), (), node.loc)

    def _r_alloc_tensor(self, node, fctx):
        names = ["storage", "offset", "shape", "dtype", "runtime_device_ind"]
        for k in node.kwargs:  # older spelling of the last parameter
            if k.name == "runtime_device_index":
                k.name = "runtime_device_ind"
        storage, offset, shape, dtype, dev = self._args(
            node, names, {"runtime_device_ind": ir.PrimValue(ir.IntImm(0))}, 4)
        return ir.Call(ir.Op("relax.memory.alloc_tensor"),
                       (self.expr(storage, fctx), self._as_prim_value(offset, fctx),
                        self._as_alloc_shape(shape, fctx, False), self._as_dtype(dtype, fctx),
                        self._as_prim_value(dev, fctx)), (), (), node.loc)

    def _r_kill(op, param):  # noqa: N805 - a factory used while building the class
        def build(self, node, fctx):
            (x,) = self._args(node, [param], {}, 1)
            return ir.Call(ir.Op(op), (self.expr(x, fctx),), (), (), node.loc)
        return build

    def _r_builtin_alloc_tensor(self, node, fctx):
        shape, dtype, dev, scope = self._args(
            node, ["shape", "dtype", "runtime_device_index", "storage_scope"],
            {"storage_scope": ir.StringImm("global")}, 3)
        return ir.Call(ir.Op("relax.builtin.alloc_tensor"),
                       (self._as_alloc_shape(shape, fctx, True), self._as_dtype(dtype, fctx),
                        self._as_prim_value(dev, fctx), self._as_str(scope, fctx)), (), (),
                       node.loc)

    def _r_null_value(self, node, fctx):
        self._args(node, [], {}, 0)
        return ir.Call(ir.Op("relax.null_value"), (), (), (), node.loc)

    def _r_prim_value(self, node, fctx):
        (x,) = self._args(node, ["value"], {}, 1)
        if isinstance(x, S.Const) and isinstance(x.value, bool):
            return ir.PrimValue(ir.IntImm(int(x.value), "bool"), node.loc)
        return ir.PrimValue(self.prim(x, fctx), node.loc)

    def _r_str(self, node, fctx):
        (x,) = self._args(node, ["value"], {}, 1)
        if not isinstance(x, S.Str):
            raise SourceError("R.str takes a string literal", x.loc)
        return ir.StringImm(x.value, node.loc)

    def _r_dtype(self, node, fctx):
        (x,) = self._args(node, ["value"], {}, 1)
        if not isinstance(x, S.Str):
            raise SourceError("R.dtype takes a string literal", x.loc)
        return ir.DataTypeImm(_dtype_name(check_dtype(x.value, x.loc)), node.loc)

    def _r_shape(self, node, fctx):
        (x,) = self._args(node, ["value"], {}, 1)
        if not isinstance(x, (S.ListLit, S.TupleLit)):
            raise SourceError("R.shape takes a list of dimensions", x.loc)
        return ir.ShapeExpr(self.dims(x.items, fctx), node.loc)

    def _r_tuple(self, node, fctx):
        self._no_kwargs(node, "R.tuple")
        return ir.Tuple(tuple(self.expr(a, fctx) for a in node.args), node.loc)

    def _r_const(self, node, fctx):
        value, dtype = self._args(node, ["value", "dtype"], {}, 1)
        if not isinstance(value, (S.Num, S.Const)):
            raise SourceError("R.const: only scalar literals are supported", value.loc)
        if dtype is None:
            dt = "bool" if isinstance(value.value, bool) else \
                "int32" if isinstance(value.value, int) else "float32"
        elif isinstance(dtype, S.Str):
            dt = check_dtype(dtype.value, dtype.loc)
        else:
            raise SourceError("R.const: dtype must be a string", dtype.loc)
        if isinstance(value.value, int) and not isinstance(value.value, bool):
            int_imm(value.value, "int64", value.loc)
        return ir.Constant(value.value, dt, node.loc)

    def _r_extern(self, node, fctx):
        (x,) = self._args(node, ["global_symbol"], {}, 1)
        if not isinstance(x, S.Str):
            raise SourceError("R.ExternFunc takes a string literal", x.loc)
        return ir.ExternFunc(x.value)

    def _func_name(self, node, what: str):
        if not node.args:
            raise SourceError(f"{what} needs a function name", node.loc)
        f = node.args[0]
        if isinstance(f, S.Str):
            return ir.ExternFunc(f.value)
        return None

    def _r_call_packed(self, node, fctx):
        func = self._func_name(node, "R.call_packed")
        if func is None:
            raise SourceError("R.call_packed: the function must be a string literal",
                              node.args[0].loc)
        args = tuple(self._packed_arg(a, fctx) for a in node.args[1:])
        attrs = []
        sinfo_args: tuple = ()
        for k in node.kwargs:
            if k.name in ("ty_args", "sinfo_args"):
                sinfo_args = self._sinfo_args(k, fctx)
            else:
                attrs.append((k.name, literal(k.value)))
        return ir.Call(func, args, tuple(attrs), sinfo_args, node.loc)

    def _packed_arg(self, node, fctx):
        """`convert_to_expr`: ints and bools -> int64, floats -> float64, str -> R.str."""
        if isinstance(node, (S.TupleLit, S.ListLit)):
            return ir.Tuple(tuple(self._packed_arg(x, fctx) for x in node.items), node.loc)
        return self.expr(node, fctx)

    def _r_call_pure_packed(self, node, fctx):
        call = self._r_call_packed(node, fctx)
        return ir.Call(ir.Op("relax.call_pure_packed"), (call.op,) + call.args, call.attrs,
                       call.sinfo_args, node.loc)

    def _r_call_builtin_with_ctx(self, node, fctx):
        func, args = None, None
        sinfo_args: tuple = ()
        pos = list(node.args)
        for k in node.kwargs:
            if k.name in ("ty_args", "sinfo_args"):
                sinfo_args = self._sinfo_args(k, fctx)
            elif k.name == "func" and func is None:
                pos.insert(0, k.value)
            elif k.name == "args":
                pos.append(k.value)
            else:
                raise SourceError(f"unexpected keyword argument '{k.name}'", k.loc)
        if len(pos) != 2:
            raise SourceError("R.call_builtin_with_ctx takes a function name and an argument "
                              "tuple", node.loc)
        f, a = pos
        func = ir.ExternFunc(f.value) if isinstance(f, S.Str) else self.expr(f, fctx)
        args = self._packed_arg(a, fctx)
        if not isinstance(args, ir.Tuple):
            args = ir.Tuple((args,), a.loc)
        return ir.Call(ir.Op("relax.call_builtin_with_ctx"), (func, args), (), sinfo_args,
                       node.loc)

    def _r_call_tir(op):  # noqa: N805 - factory for call_tir and call_dps_packed
        def build(self, node, fctx):
            names = ["gvar", "args", "out_sinfo", "tir_vars"]
            for k in node.kwargs:
                if k.name in ("func", "out_ty"):
                    k.name = "gvar" if k.name == "func" else "out_sinfo"
            gvar, args, out, tir_vars = self._args(node, names, {}, 3)
            callee = ir.ExternFunc(gvar.value) if isinstance(gvar, S.Str) else \
                self.expr(gvar, fctx)
            arg_tuple = self._packed_arg(args, fctx)
            if not isinstance(arg_tuple, ir.Tuple):
                arg_tuple = ir.Tuple((arg_tuple,), args.loc)
            if isinstance(callee, ir.GlobalVarRef) and \
                    isinstance(self.signatures.get(callee.name), ir.PrimFunc):
                self._give_constants_sinfo(arg_tuple.fields, [
                    prim_param_sinfo(p) for p in self.signatures[callee.name].params])
            if isinstance(out, (S.ListLit, S.TupleLit)):
                outs = tuple(self.sinfo(x, fctx) for x in out.items)
                out_sinfo = outs[0] if len(outs) == 1 else ir.TupleSInfo(outs)
            else:
                out_sinfo = self.sinfo(out, fctx)
            call_args = (callee, arg_tuple)
            if tir_vars is not None:
                call_args += (self._as_shape(tir_vars, fctx),)
            return ir.Call(ir.Op(op), call_args, (), (out_sinfo,), node.loc)
        return build

    # ---- symbolic integer expressions ----------------------------------------------------

    def prim(self, node, fctx: _Function, define: bool = False):
        t = type(node)
        if t is S.Num:
            if isinstance(node.value, int):
                return int_imm(node.value, "int64", node.loc)
            return ir.FloatImm(node.value, "float64")
        if t is S.Name:
            if "." in node.id:
                raise SourceError(f"'{node.id}' is not a symbolic integer", node.loc)
            if node.id in fctx.syms or node.id in fctx.sym_decl:
                return fctx.sym(node.id, node.loc)
            raise SourceError(f"undefined symbolic variable '{node.id}'", node.loc)
        if t is S.Str:
            if self.in_binding_annotation:
                raise SourceError("a shape written as a string is only allowed in function "
                                  "parameters and return annotations (declare `m = "
                                  "T.int64()` and write `m`)", node.loc)
            text = node.value.strip()
            if re.fullmatch(r"[A-Za-z_]\w*", text):
                if not define and text not in fctx.syms and text not in fctx.sym_decl:
                    fctx.sym_decl[text] = "int64"
                return fctx.sym(text, node.loc)
            try:
                stmts = parse_syntax(text + "\n")
            except SourceError:
                raise SourceError(f"cannot read shape expression {text!r}", node.loc) from None
            if len(stmts) != 1 or not isinstance(stmts[0], S.ExprStmt):
                raise SourceError(f"cannot read shape expression {text!r}", node.loc)
            _relocate(stmts[0].value, node.line, node.col)
            return self.prim(_names_to_strs(stmts[0].value), fctx, define)
        if t is S.BinOp:
            e = fold(node.op, self.prim(node.lhs, fctx, define),
                     self.prim(node.rhs, fctx, define))
            if isinstance(e, ir.IntImm):
                int_imm(e.value, e.dtype, node.loc)  # Python folds literals before TVM sees them
            return e
        if t is S.Neg:
            if isinstance(node.operand, S.Num) and isinstance(node.operand.value, int):
                return int_imm(-node.operand.value, "int64", node.loc)  # -2**63 is in range
            return fold("*", ir.IntImm(-1), self.prim(node.operand, fctx, define))
        if t is S.Const and isinstance(node.value, bool):
            return ir.IntImm(int(node.value), "bool")
        if t is S.Call:
            name = S.dotted(node.func)
            if name in _PRIM_TYPE_CALLS:
                if len(node.args) != 1 or node.kwargs:
                    raise SourceError(f"{name} takes one value", node.loc)
                dtype = name[2:]
                a = node.args[0]
                if isinstance(a, S.Const) and isinstance(a.value, bool):
                    return ir.IntImm(int(a.value), dtype)
                if isinstance(a, S.Num):
                    if dtype.startswith(("int", "uint", "bool")):
                        if not isinstance(a.value, int):
                            raise SourceError(f"{name} needs an integer", a.loc)
                        return int_imm(a.value, dtype, a.loc)
                    return ir.FloatImm(float(a.value), dtype)
                value = python_float(a)
                if value is not None and not dtype.startswith(("int", "uint", "bool")):
                    return ir.FloatImm(value, dtype)  # T.float64("inf"), as TVM prints it
                raise SourceError(f"{name} takes a literal", a.loc)
            if name == "float":
                value = python_float(node)
                if value is None:
                    raise SourceError("float() takes a number or a string such as \"inf\"",
                                      node.loc)
                return ir.FloatImm(value, "float64")
            if name in _PRIM_FUNCS:
                if node.kwargs:
                    raise SourceError(f"{name} takes no keyword arguments", node.kwargs[0].loc)
                return ir.PrimCall(name, tuple(self.prim(a, fctx, define) for a in node.args))
            raise SourceError(f"'{name}' is not a symbolic integer expression", node.loc)
        raise SourceError("expected a symbolic integer expression", node.loc)

    # ---- struct info ---------------------------------------------------------------------

    def sinfo(self, node, fctx: _Function, define: bool = False):
        t = type(node)
        if t is S.Name:
            name = node.id
            if name in ("R.Any", "R.Object"):
                if name == "R.Object":
                    self.dialect.legacy += 1
                else:
                    self.dialect.current += 1
                return ir.ObjectSInfo()
            if name == "R.Tensor":
                return ir.TensorSInfo()
            if name == "R.Tuple":
                return ir.TupleSInfo(())
            if name == "R.Shape":
                return ir.ShapeSInfo()
            if name in _PRIM_TYPE_CALLS:
                return ir.PrimSInfo(name[2:])
            raise SourceError(f"unknown struct info '{name}'", node.loc)
        if t is S.Call:
            name = S.dotted(node.func)
            if name in ("R.Any", "R.Object"):
                self._args(node, [], {}, 0)
                return ir.ObjectSInfo()
            if name == "R.Tensor":
                shape, dtype, ndim = self._args(node, ["shape", "dtype", "ndim"], {}, 0)
                for k in node.kwargs:
                    if k.name not in ("shape", "dtype", "ndim"):
                        raise SourceError(f"unexpected keyword argument '{k.name}'", k.loc)
                dims = None
                if isinstance(shape, S.Str) and dtype is None:  # R.Tensor("float32", ndim=2)
                    shape, dtype = None, shape
                if shape is not None and not (isinstance(shape, S.Const) and shape.value is None):
                    if not isinstance(shape, (S.TupleLit, S.ListLit)):
                        raise SourceError("tensor shape must be a tuple", shape.loc)
                    dims = self.dims(shape.items, fctx, define)
                dt = ""
                if dtype is not None:
                    if not isinstance(dtype, S.Str):
                        raise SourceError("dtype must be a string", dtype.loc)
                    dt = _dtype_name(check_dtype(dtype.value, dtype.loc))
                nd = -1
                if ndim is not None:
                    if not isinstance(ndim, S.Num) or not isinstance(ndim.value, int):
                        raise SourceError("ndim must be an integer", ndim.loc)
                    nd = int_imm(ndim.value, "int64", ndim.loc).value
                if dims is not None:
                    if nd not in (-1, len(dims)):
                        raise SourceError("ndim does not match the shape", node.loc)
                    nd = len(dims)
                return ir.TensorSInfo(dims, dt, nd)
            if name == "R.Tuple":
                self._no_kwargs(node, name)
                return ir.TupleSInfo(tuple(self.sinfo(a, fctx, define) for a in node.args))
            if name == "R.Shape":
                values, ndim = self._args(node, ["values", "ndim"], {}, 0)
                if values is not None:
                    if not isinstance(values, (S.TupleLit, S.ListLit)):
                        raise SourceError("R.Shape takes a list of dimensions", values.loc)
                    dims = self.dims(values.items, fctx, define)
                    return ir.ShapeSInfo(dims, len(dims))
                nd = ndim.value if isinstance(ndim, S.Num) else -1
                return ir.ShapeSInfo(None, nd)
            if name == "R.Prim":
                dtype, value = self._args(node, ["dtype", "value"], {}, 0)
                if value is not None:
                    pv = self.prim(value, fctx, define)
                    return ir.PrimSInfo(_prim_dtype(pv), pv)
                if not isinstance(dtype, S.Str):
                    raise SourceError("R.Prim takes a dtype string", node.loc)
                return ir.PrimSInfo(check_dtype(dtype.value, dtype.loc))
            if name == "R.Callable":
                params, ret, purity = self._args(node, ["params", "ret", "purity"], {}, 0)
                ps = None
                if params is not None:
                    if not isinstance(params, (S.TupleLit, S.ListLit)):
                        raise SourceError("R.Callable takes a tuple of parameters", params.loc)
                    ps = tuple(self.sinfo(p, fctx, define) for p in params.items)
                r = self.sinfo(ret, fctx, define) if ret is not None else ir.ObjectSInfo()
                pure = True
                if purity is not None:
                    pure = bool(getattr(purity, "value", True))
                return ir.FuncSInfo(ps, r, pure)
            raise SourceError(f"unknown struct info '{name or S.unparse(node.func)}'", node.loc)
        raise SourceError("expected a struct info (R.Tensor, R.Tuple, R.Any, ...)", node.loc)


_RELAX_CALLS = {
    "memory.alloc_storage": ModuleBuilder._r_alloc_storage,
    "memory.alloc_tensor": ModuleBuilder._r_alloc_tensor,
    "memory.kill_storage": ModuleBuilder._r_kill("relax.memory.kill_storage", "storage"),
    "memory.kill_tensor": ModuleBuilder._r_kill("relax.memory.kill_tensor", "tensor"),
    "builtin.alloc_tensor": ModuleBuilder._r_builtin_alloc_tensor,
    "null_value": ModuleBuilder._r_null_value,
    "prim_value": ModuleBuilder._r_prim_value,
    "str": ModuleBuilder._r_str,
    "dtype": ModuleBuilder._r_dtype,
    "shape": ModuleBuilder._r_shape,
    "tuple": ModuleBuilder._r_tuple,
    "const": ModuleBuilder._r_const,
    "ExternFunc": ModuleBuilder._r_extern,
    "call_packed": ModuleBuilder._r_call_packed,
    "call_pure_packed": ModuleBuilder._r_call_pure_packed,
    "call_builtin_with_ctx": ModuleBuilder._r_call_builtin_with_ctx,
    "call_tir": ModuleBuilder._r_call_tir("relax.call_tir"),
    "call_dps_packed": ModuleBuilder._r_call_tir("relax.call_dps_packed"),
}


METADATA_FORM = ("'metadata' is TVM's table of omitted constants: only "
                 "metadata[\"<kind>\"][<index>] reads one")


def meta_text(c: ir.Constant) -> str:
    """`metadata["ir.GenericConst"][0]`, as TVM prints a metadata constant."""
    kind, index = c.meta
    return f"metadata[{S.quote(kind)}][{index}]"


def static_tensor(s) -> bool:
    """A tensor struct info of known dtype and constant shape: what a constant has."""
    return isinstance(s, ir.TensorSInfo) and bool(s.dtype) and s.shape is not None and \
        all(isinstance(d, ir.IntImm) for d in s.shape)


def _metadata_root(node) -> bool:
    while isinstance(node, S.GetItem):
        node = node.obj
    return isinstance(node, S.Name) and node.id == "metadata"


_OWN_SINFO_ARGS = {"call_packed", "call_pure_packed", "call_builtin_with_ctx", "call_tir",
                   "call_dps_packed"}

# ---- helpers ------------------------------------------------------------------------------

def impossible_match(annotation, given) -> bool:
    """True where no value of struct info `given` can have struct info `annotation`: TVM's
    level-0 failure. An object (R.Any) or unknown value may turn out to be anything."""
    if given is None or isinstance(given, ir.ObjectSInfo):
        return False
    if isinstance(annotation, ir.TupleSInfo) and isinstance(given, ir.TupleSInfo):
        return len(annotation.fields) != len(given.fields) or \
            any(impossible_match(a, g) for a, g in zip(annotation.fields, given.fields))
    return static_mismatch(annotation, given)


def _non_int64_leaf(e):
    """The first constant or variable of a shape dimension that is not an int64, or None."""
    if isinstance(e, ir.PrimBinOp):
        return _non_int64_leaf(e.lhs) or _non_int64_leaf(e.rhs)
    if isinstance(e, ir.IntImm) and e.dtype == "bool":
        return None  # Python's True and False are ints; TVM takes them as 1 and 0
    if isinstance(e, (ir.IntImm, ir.FloatImm, ir.SymVar)) and e.dtype != "int64":
        return e
    return None


def _is_bool_condition(s) -> bool:
    if isinstance(s, ir.TensorSInfo):
        return s.dtype in ("bool", "") and s.ndim in (0, -1)
    if isinstance(s, ir.PrimSInfo):
        return s.dtype == "bool"
    return s is None or isinstance(s, ir.ObjectSInfo)


def _is_leaf(e) -> bool:
    """What TVM's normalizer leaves in place as a SeqExpr result (no binding of its own)."""
    t = type(e)
    if t is ir.Tuple:
        return all(_is_leaf(x) for x in e.fields)
    return t in (ir.Var, ir.Constant, ir.ShapeExpr, ir.PrimValue, ir.StringImm,
                 ir.DataTypeImm, ir.GlobalVarRef, ir.ExternFunc)


_DTYPE_ALIASES = {"float": "float32", "int": "int32", "handle": "handle"}


def _dtype_name(s: str) -> str:
    return _DTYPE_ALIASES.get(s, s)


def _prim_dtype(e) -> str:
    if isinstance(e, (ir.IntImm, ir.FloatImm, ir.SymVar)):
        return e.dtype
    return "int64"


def fold(op: str, a, b):
    """Build `a op b` as TVM's PrimExpr operators do: constants folded, identities removed."""
    ai = isinstance(a, ir.IntImm) and a.dtype != "bool"
    bi = isinstance(b, ir.IntImm) and b.dtype != "bool"
    if ai and bi and a.dtype == b.dtype:
        x, y = a.value, b.value
        if op == "+":
            return ir.IntImm(x + y, a.dtype)
        if op == "-":
            return ir.IntImm(x - y, a.dtype)
        if op == "*":
            return ir.IntImm(x * y, a.dtype)
        if op == "//" and y != 0:
            return ir.IntImm(x // y, a.dtype)
        if op == "%" and y != 0:
            return ir.IntImm(x % y, a.dtype)
    if op == "+":
        if bi and b.value == 0:
            return a
        if ai and a.value == 0:
            return b
    elif op == "-":
        if bi and b.value == 0:
            return a
    elif op == "*":
        if bi and b.value == 1:
            return a
        if ai and a.value == 1:
            return b
    elif op == "//":
        if bi and b.value == 1:
            return a
    return ir.PrimBinOp(op, a, b)


def _is_literal(node) -> bool:
    t = type(node)
    if t in (S.Num, S.Str, S.Const) or _is_float_call(node):
        return True
    if t in (S.TupleLit, S.ListLit):
        return all(_is_literal(x) for x in node.items)
    if t is S.DictLit:
        return all(_is_literal(k) and _is_literal(v) for k, v in node.items)
    return False


def _plain_blocks(blocks: list) -> tuple:
    """The blocks of a body: dataflow blocks as built, plain ones from the (bindings, loc)
    pairs gathered while reading (a block's bindings are a tuple, known once it ends)."""
    return tuple(b if isinstance(b, ir.BindingBlock) else ir.BindingBlock(b[0], False, b[1])
                 for b in blocks)


def literal(node) -> ir.Literal:
    """A Python literal value, kept as written (attributes, unmodelled operator arguments)."""
    return ir.Literal(_literal_value(node))


def _is_float_call(node) -> bool:
    """`float("inf")`: how the printer writes a non-finite float literal."""
    return isinstance(node, S.Call) and S.dotted(node.func) == "float" and \
        len(node.args) == 1 and not node.kwargs and isinstance(node.args[0], S.Str)


def _literal_value(node):
    t = type(node)
    if t in (S.Num, S.Str, S.Const):
        return node.value
    if _is_float_call(node):
        return python_float(node)
    if t is S.TupleLit:
        return ("tuple", tuple(_literal_value(x) for x in node.items))
    if t is S.ListLit:
        return ("list", tuple(_literal_value(x) for x in node.items))
    if t is S.DictLit:
        return ("dict", tuple((_literal_value(k), _literal_value(v)) for k, v in node.items))
    return ("expr", S.unparse(node))


def _relocate(node, line: int, col: int):
    """Give a sub-parsed node (from a string) the location of the string."""
    if isinstance(node, S.Node):
        node.line, node.col = line, col
        for attr in ("lhs", "rhs", "operand", "func", "obj"):
            child = getattr(node, attr, None)
            if child is not None:
                _relocate(child, line, col)
        for child in getattr(node, "args", ()) or ():
            _relocate(child, line, col)


def _names_to_strs(node):
    """Names inside a string shape ("m * 2") define symbolic vars like "m" does."""
    if isinstance(node, S.Name) and "." not in node.id:
        return S.Str(node.id, node.line, node.col)
    if isinstance(node, S.BinOp):
        node.lhs, node.rhs = _names_to_strs(node.lhs), _names_to_strs(node.rhs)
    elif isinstance(node, S.Neg):
        node.operand = _names_to_strs(node.operand)
    return node


def _dedent_body(text: str) -> str:
    """A PrimFunc body with its block indentation removed (relative indentation kept)."""
    lines = text.split("\n")
    indent = None
    for ln in lines:
        stripped = ln.lstrip(" \t")
        if stripped and not stripped.startswith("#"):
            indent = len(ln) - len(stripped)
            break
    if indent is None:
        indent = 0
    out = []
    for ln in lines:
        ln = ln.rstrip()
        lead = len(ln) - len(ln.lstrip(" \t"))
        out.append(ln[min(lead, indent):])
    while out and not out[-1]:
        out.pop()
    while out and not out[0]:
        out.pop(0)
    return "\n".join(out)


# ---- checks against what TVM 0.27 reads ---------------------------------------------------

_KNOWN_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "bfloat16", "float32", "float64", "handle",
                 "float8_e4m3fn", "float8_e5m2")

# Older TVMScript spellings of keyword parameters cgraph also reads (see docs).
_LEGACY_KWARGS = {"sinfo_args": "ty_args", "out_sinfo": "out_ty"}


# `T.int64`, `T.float32x4`, `T.int65`: a TIR name that reads as a dtype, which TVM looks up
# as an attribute of T. T has fewer of them than the dtype parser reads (no `T.int65`, though
# "int65" is a dtype): these are all of them in TVM 0.27 (`dir(tvm.script.parser.tirx)`).
_TIR_DTYPE_CANDIDATE = re.compile(r"(?:u?int|b?float|bool)\d+\w*")
_TIR_DTYPE_IN_TEXT = re.compile(r"\bT\.((?:u?int|b?float|bool)\d+\w*)")
_TIR_DTYPE_ATTRS = frozenset(
    [base + lanes
     for base in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64", *NAMED_FLOATS)
     for lanes in ("", "x2", "x4", "x8", "x16", "x32", "x64")] + ["bfloat16"])


def check_tir_dtype_names(node) -> None:
    """A located error at the first `T.<dtype>` in a PrimFunc signature whose dtype is not one."""
    if isinstance(node, S.Attr):
        if isinstance(node.obj, S.Name) and node.obj.id == "T":
            _check_tir_dtype_name(node.attr, node.loc)
        check_tir_dtype_names(node.obj)
    elif isinstance(node, S.Name):
        head, _, rest = node.id.partition(".")
        if head == "T" and rest:
            _check_tir_dtype_name(rest, node.loc)
    elif isinstance(node, S.Call):
        check_tir_dtype_names(node.func)
        for a in node.args:
            check_tir_dtype_names(a)
        for k in node.kwargs:
            check_tir_dtype_names(k.value)
    elif isinstance(node, (S.TupleLit, S.ListLit)):
        for x in node.items:
            check_tir_dtype_names(x)
    elif isinstance(node, S.GetItem):
        check_tir_dtype_names(node.obj)
        check_tir_dtype_names(node.index)
    elif isinstance(node, S.BinOp):
        check_tir_dtype_names(node.lhs)
        check_tir_dtype_names(node.rhs)
    elif isinstance(node, S.Neg):
        check_tir_dtype_names(node.operand)


def check_tir_dtype_names_in_body(body: str, first_line: int) -> None:
    """The same for a PrimFunc body, which cgraph keeps as text (comments skipped; a string
    naming `T.int65` would be refused too, a price worth not tokenizing every body)."""
    for m in _TIR_DTYPE_IN_TEXT.finditer(body):
        if m.group(1) in _TIR_DTYPE_ATTRS:
            continue
        line_start = body.rfind("\n", 0, m.start()) + 1
        if "#" in body[line_start:m.start()]:
            continue
        loc = Loc(first_line + body.count("\n", 0, m.start()), m.start() - line_start + 1)
        _check_tir_dtype_name(m.group(1), loc)


def _check_tir_dtype_name(name: str, loc: Loc) -> None:
    if _TIR_DTYPE_CANDIDATE.fullmatch(name) and name not in _TIR_DTYPE_ATTRS:
        close = difflib.get_close_matches(name, _KNOWN_DTYPES, n=1)
        hint = f" (did you mean T.{close[0]}?)" if close else ""
        raise SourceError(f"unknown TIR dtype 'T.{name}'{hint}", loc)


def check_dtype(text: str, loc: Loc) -> str:
    """`text` if TVM reads it as a dtype, else a located error naming the closest dtype."""
    if is_dtype(text):
        return text
    close = difflib.get_close_matches(text, _KNOWN_DTYPES, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise SourceError(f"unknown dtype '{text}'{hint}", loc)


_FUTURE_ANNOTATIONS = "from __future__ import annotations"


def check_import(s: S.Import) -> None:
    """TVM's parser evaluates no imports (the names I, R, T are given to it); it accepts only
    the one its printer may emit, and refuses every other, wherever it stands."""
    if s.text != _FUTURE_ANNOTATIONS:
        raise SourceError(f"only '{_FUTURE_ANNOTATIONS}' may be imported (TVMScript provides "
                          "I, R and T itself)", s.loc)


def int_imm(value: int, dtype: str, loc: Loc) -> ir.IntImm:
    """An integer literal of `dtype`; TVM rejects one outside the type (int64 at most)."""
    lo, hi = int_range(dtype)
    if not lo <= value <= hi:
        raise SourceError(f"integer {value} is out of range for {dtype} "
                          f"([{lo}, {hi}])", loc)
    return ir.IntImm(value, dtype)


def _check_literal_ints(node):
    if isinstance(node, S.Num) and isinstance(node.value, int):
        int_imm(node.value, "int64", node.loc)
    elif isinstance(node, (S.TupleLit, S.ListLit)):
        for x in node.items:
            _check_literal_ints(x)


def python_float(node) -> float | None:
    """The value of `float(...)`, `"inf"` or a number where a float is expected, as Python
    evaluates it in TVM's parser (`float("1e400")` is inf); None if it is none of these."""
    if isinstance(node, S.Num):
        return float(node.value)
    if isinstance(node, S.Neg):
        v = python_float(node.operand)
        return None if v is None else -v
    if isinstance(node, S.Str):
        try:
            return float(node.value)
        except ValueError:
            raise SourceError(f"could not convert string to float: {node.value!r}",
                              node.loc) from None
    if isinstance(node, S.Call) and S.dotted(node.func) == "float" and not node.kwargs and \
            len(node.args) <= 1:
        return python_float(node.args[0]) if node.args else 0.0
    return None


def check_op_arguments(node: S.Call, name: str):
    """`R.<name>(...)` against the operator's recorded TVM signature: an unknown operator, or
    arguments Python would not bind to its parameters, are errors, as they are in TVM."""
    params = RELAX_OPS.get(name)
    if params is None:
        close = difflib.get_close_matches(name, list(RELAX_OPS), n=1, cutoff=0.6)
        hint = f" (did you mean R.{close[0]}?)" if close else ""
        raise SourceError(f"unknown Relax operator 'R.{name}'{hint}", node.func.loc)
    positional: list[tuple[str, bool]] = []  # (name, has a default)
    keywords: set[str] = set()
    required_kw: list[str] = []
    var_args = var_kwargs = kw_only = False
    for p in params:
        if p == "*":
            kw_only = True
        elif p.startswith("**"):
            var_kwargs = True
        elif p.startswith("*"):
            var_args = kw_only = True
        else:
            optional = p.endswith("=")
            p = p.rstrip("=")
            pos_only = p.endswith("/")
            p = p.rstrip("/")
            if not kw_only:
                positional.append((p, optional))
            if not pos_only:
                keywords.add(p)
            if kw_only and not optional:
                required_kw.append(p)
    shown = f"R.{name}"
    if len(node.args) > len(positional) and not var_args:
        raise SourceError(f"{shown}() takes {len(positional)} positional argument"
                          f"{'s' if len(positional) != 1 else ''} but {len(node.args)} "
                          f"were given", node.args[len(positional)].loc)
    given = {p for (p, _), _a in zip(positional, node.args)}
    for k in node.kwargs:
        key = k.name
        if key not in keywords and _LEGACY_KWARGS.get(key) in keywords:
            key = _LEGACY_KWARGS[key]
        if key in given:
            raise SourceError(f"{shown}() got multiple values for argument '{k.name}'", k.loc)
        if key not in keywords and not var_kwargs:
            close = difflib.get_close_matches(key, sorted(keywords), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise SourceError(f"{shown}() got an unexpected keyword argument '{k.name}'"
                              f"{hint}", k.loc)
        given.add(key)
    missing = [p for p, optional in positional if not optional and p not in given] + \
        [p for p in required_kw if p not in given]
    if missing:
        raise SourceError(f"{shown}() is missing argument '{missing[0]}'", node.loc)


def _static_int(text: str) -> int | None:
    """A buffer dimension written as a constant (`4`, `T.int64(4)`), else None (symbolic)."""
    m = re.fullmatch(r"(?:T\.u?int(?:8|16|32|64)\()?\s*(-?\d+)\s*\)?", text.strip())
    if m is None or (text.strip().startswith("T.") != text.strip().endswith(")")):
        return None
    return int(m.group(1))


def prim_param_sinfo(p: ir.PrimParam):
    """The struct info TVM gives a PrimFunc parameter when Relax calls it: a buffer is a
    tensor of its dtype and shape, a handle any object, a scalar a primitive of its dtype;
    None where cgraph cannot tell."""
    if p.kind == "handle":
        return ir.ObjectSInfo()
    if p.kind == "scalar" and p.dtype:
        return ir.PrimSInfo(p.dtype)
    if p.kind == "buffer":
        if p.shape is None:
            return ir.TensorSInfo(None, p.dtype or "", -1)
        dims = []
        for d in p.shape:
            v = _static_int(d)
            dims.append(ir.IntImm(v, "int64") if v is not None else ir.SymVar(d, "int64"))
        return ir.TensorSInfo(tuple(dims), p.dtype or "", len(dims))
    return None


def _sinfo_text(s) -> str:
    from .printer import Printer

    if s is None:
        return "unknown"
    try:
        return Printer().sinfo(s)
    except TypeError:
        return type(s).__name__
