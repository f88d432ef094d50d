"""The data: a Relax module after memory planning, and what can be asked of it.

nodes.py (the IR nodes, re-exported here so that `from cudagraph_cli import ir; ir.Var` reads
as one namespace), dtypes.py (what a dtype name means), sinfo.py (struct info: deduction,
erasure, substitution), wellformed.py (the checks TVM's well-formedness makes), equality.py
(structural equality, TVM's `assert_structural_equal`), memory.py (the memory constructs in
every spelling: what a call allocates, aliases or releases). Nothing here reads or writes text:
equality's messages are worded by its caller (text/difference.py).
"""

# A node's location in its source travels with the node: ir.NO_LOC for one cgraph made.
from ..diagnostics import NO_LOC, Loc
from .nodes import (
    BOOL_OPS, CUDA_GRAPH_BUILTINS, GET_CACHED_ALLOC, RUN_OR_CAPTURE, builtin_called, callee_name,
    builtin_call, builtin_target, resolve, storage_size, CachedAlloc, GraphLaunch, literal_int, Binding, BindingBlock, Call, Constant, DataTypeImm, Expr, ExternFunc, FloatImm,
    FuncSInfo, Function, GlobalVarRef, If, IntImm, Literal, MatchCast, Module, ObjectSInfo, Op,
    PrimBinOp, PrimCall, PrimExpr, PrimFunc, PrimParam, PrimSInfo, PrimValue, SeqExpr,
    ShapeExpr, ShapeSInfo, StringImm, StructInfo, SymVar, TensorSInfo, Tuple, TupleGetItem,
    TupleSInfo, Var, VarBinding, VDevice, definable_sym_vars, field_names, nested_bindings,
    prim_vars, prim_dtype, replace, sinfo_prim_vars, vdevice_names, walk,
)
from .memory import (
    ALIASING_KINDS, ALLOC_STORAGE, ALLOC_TENSOR, KILL, RESHAPE, VIEW, VIEW_KINDS, ZERO_OFFSET,
    MemoryCall, aliased, memory_call, spellings, viewed,
)

__all__ = [
    "Loc", "NO_LOC",
    "BOOL_OPS", "CUDA_GRAPH_BUILTINS", "GET_CACHED_ALLOC", "RUN_OR_CAPTURE", "builtin_called",
    "builtin_call", "builtin_target", "resolve", "callee_name", "storage_size", "CachedAlloc", "GraphLaunch", "literal_int",
    "Binding", "BindingBlock", "Call", "Constant", "DataTypeImm", "Expr",
    "ExternFunc", "FloatImm", "FuncSInfo", "Function", "GlobalVarRef", "If", "IntImm",
    "Literal", "MatchCast", "Module", "ObjectSInfo", "Op", "PrimBinOp", "PrimCall", "PrimExpr",
    "PrimFunc", "PrimParam", "PrimSInfo", "PrimValue", "SeqExpr", "ShapeExpr", "ShapeSInfo",
    "StringImm", "StructInfo", "SymVar", "TensorSInfo", "Tuple", "TupleGetItem", "TupleSInfo",
    "Var", "VarBinding", "VDevice", "definable_sym_vars", "field_names", "nested_bindings",
    "prim_vars", "prim_dtype", "replace", "sinfo_prim_vars", "vdevice_names", "walk",
    "ALIASING_KINDS", "ALLOC_STORAGE", "ALLOC_TENSOR", "KILL", "RESHAPE", "VIEW", "VIEW_KINDS",
    "ZERO_OFFSET", "MemoryCall", "aliased", "memory_call", "spellings", "viewed",
]
