"""Module structure: the class, its functions in order, and what holds for the whole module.

`ModuleBuilder` is the builder: its parts live in the mixins it is made of, one file a job
(see __init__.py), and share the state set up here. This part reads the module level (imports,
`TypeVar`s, the class and its decorator, the class's `I.module_global_infos`, before any
function: struct info names its vdevices), reads every signature before any body (a function
may call one defined later), and at the end settles the dialect and checks that each metadata
constant learned its struct info.
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import Loc, SourceError
from .. import syntax as S
from .checks import check_import
from .dialect import Dialect
from .expressions import ExpressionBuilder, meta_text
from .functions import FunctionBuilder
from .prim_signatures import PRIM_DECORATORS, PrimFuncBuilder
from .relax_calls import RelaxCallBuilder
from .scopes import FunctionScope
from .struct_info import StructInfoBuilder
from .vdevices import VDeviceBuilder

_MODULE_DECORATORS = {"I.ir_module", "ir_module", "tvm.script.ir_module", "tvm.script.ir.ir_module",
                      "IRModule"}
_RELAX_DECORATORS = {"R.function", "relax.function", "tvm.script.relax.function"}


class ModuleBuilder(FunctionBuilder, ExpressionBuilder, RelaxCallBuilder, StructInfoBuilder,
                    PrimFuncBuilder, VDeviceBuilder):
    """Syntax tree -> `ir.Module`, in one pass; one instance a module."""

    def __init__(self):
        self.dialect = Dialect()
        self.signatures: dict[str, object] = {}  # function name -> ir.Function | ir.PrimFunc
        self.prim_params: dict[str, list] = {}  # PrimFunc name -> its parameters as struct info
        # An annotated var -> the struct info of the value bound to it: TVM keeps the value's
        # where it is more precise than the annotation (`y: R.Any = x` is a tensor), so the
        # argument checks use it; cgraph's var keeps the annotation as written. (A Var hashes
        # by identity: two vars of one name are two keys.)
        self.value_sinfo: dict[ir.Var, object] = {}
        self.in_binding_annotation = False  # TVM reads "m" in a shape only in a signature
        self.module: ir.Module | None = None
        # Metadata constants read so far: each must have learned its struct info (from a
        # kernel parameter or an annotation) by the end of the module.
        self.meta_constants: list[ir.Constant] = []
        # The module's vdevices (its global infos' "vdevice" entries) and the name TVM prints
        # for each: read before any function, whose struct info names them.
        self.vdevices: list[ir.VDevice] = []
        self.vdevice_names: list[str] = []

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
                self.dialect.decorator(d)
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
            elif isinstance(s, S.ExprStmt) and isinstance(s.value, S.Call) and \
                    S.dotted(s.value.func) in ("I.module_global_infos", "ir.module_global_infos"):
                if module.global_infos_loc.line:
                    raise SourceError("I.module_global_infos is given twice", s.loc)
                module.global_infos = self.global_infos(s)
                module.global_infos_loc = s.loc
                self.vdevices = [v for key, entries in module.global_infos
                                 if key == "vdevice" for v in entries]
                self.vdevice_names = ir.vdevice_names(module.global_infos)
            else:
                raise SourceError("only functions may appear in a module class", s.loc)
        # Signatures first: a function may call one defined later in the class.
        headers = []
        for fd in funcdefs:
            if fd.name in self.signatures:
                raise SourceError(f"function '{fd.name}' is defined twice", fd.loc)
            kind, dargs = self.function_kind(fd)
            if kind == "prim":
                f = self.prim_func(fd, dargs)
                self.signatures[fd.name] = f
                headers.append((fd, f, None))
            else:
                fctx = FunctionScope(fd.name, {cls.name}, module_syms)
                f = self.relax_header(fd, dargs, fctx)
                self.signatures[fd.name] = f
                headers.append((fd, f, fctx))
        for fd, f, fctx in headers:
            if fctx is not None:
                self.relax_body(fd, f, fctx, cls.name)
            module.functions += (f,)
        module.dialect = self.dialect.verdict()
        for c in self.meta_constants:
            if c.sinfo is None:
                raise SourceError(f"cannot tell the shape and dtype of {meta_text(c)}: the text "
                                  "omits its data; pass it to a PrimFunc (its parameter gives "
                                  "them) or bind it with an annotation", c.loc)
        return module

    def function_kind(self, fd: S.FuncDef) -> tuple[str, S.Node | None]:
        if not fd.decorators:
            raise SourceError(f"function '{fd.name}' needs a decorator (@R.function or "
                              "@T.prim_func)", fd.loc)
        d = fd.decorators[-1]
        name = S.dotted(d.func) if isinstance(d, S.Call) else S.dotted(d)
        if name in _RELAX_DECORATORS:
            if isinstance(fd.body, str):
                raise SourceError("internal: Relax function body read as TIR", fd.loc)
            return "relax", d
        if name in PRIM_DECORATORS:
            return "prim", d
        raise SourceError(f"unknown decorator '@{name or S.unparse(d)}' (expected @R.function "
                          "or @T.prim_func)", d.loc)
