"""Literals and the checks of TVM's reader that need no scope.

Python literals kept as written (attributes, arguments of unmodelled operators), dtype names,
integer ranges, `float("inf")`, the one import TVMScript allows, and the binding of a call's
arguments to parameter names. Reads syntax; builds only literals and integer constants.
"""

from __future__ import annotations


from ... import ir
from ...diagnostics import Loc, SourceError
from ...ir.dtypes import int_range, is_dtype
from .. import syntax as S


_DTYPE_ALIASES = {"float": "float32", "int": "int32", "handle": "handle"}


def dtype_name(s: str) -> str:
    return _DTYPE_ALIASES.get(s, s)


def is_literal(node) -> bool:
    t = type(node)
    if t in (S.Num, S.Str, S.Const) or _is_float_call(node):
        return True
    if t in (S.TupleLit, S.ListLit):
        return all(is_literal(x) for x in node.items)
    if t is S.DictLit:
        return all(is_literal(k) and is_literal(v) for k, v in node.items)
    return False


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


KNOWN_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                 "uint64", "float16", "bfloat16", "float32", "float64", "handle",
                 "float8_e4m3fn", "float8_e5m2")


def check_dtype(text: str, loc: Loc) -> str:
    """`text` if TVM reads it as a dtype, else a located error naming the closest dtype."""
    if is_dtype(text):
        return text
    import difflib  # an error's hint only: not loaded by every start

    close = difflib.get_close_matches(text, KNOWN_DTYPES, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise SourceError(f"unknown dtype '{text}'{hint}", loc)


_FUTURE_ANNOTATIONS = "from __future__ import annotations"


def check_import(s: S.Import) -> None:
    """TVM's parser evaluates no imports (the names I, R, T are given to it); it accepts only
    the one its printer may emit, and refuses every other, wherever it stands."""
    if s.text != _FUTURE_ANNOTATIONS:
        raise SourceError(f"only '{_FUTURE_ANNOTATIONS}' may be imported (TVMScript provides "
                          "I, R and T itself)", s.loc)


# One IntImm per literal: they are frozen values, and a module writes the same few (0, 1,
# 4096) hundreds of thousands of times.
_INT_IMMS: dict[tuple, ir.IntImm] = {}


def int_imm(value: int, dtype: str, loc: Loc) -> ir.IntImm:
    """An integer literal of `dtype`; TVM rejects one outside the type (int64 at most)."""
    key = (value, dtype, type(value))
    imm = _INT_IMMS.get(key)
    if imm is not None:
        return imm
    lo, hi = int_range(dtype)
    if not lo <= value <= hi:
        raise SourceError(f"integer {value} is out of range for {dtype} "
                          f"([{lo}, {hi}])", loc)
    imm = _INT_IMMS[key] = ir.IntImm(value, dtype)
    return imm


def check_literal_ints(node):
    if isinstance(node, S.Num) and isinstance(node.value, int):
        int_imm(node.value, "int64", node.loc)
    elif isinstance(node, (S.TupleLit, S.ListLit)):
        for x in node.items:
            check_literal_ints(x)


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


def no_kwargs(node: S.Call, name: str):
    if node.kwargs:
        raise SourceError(f"'{name}' takes no keyword arguments", node.kwargs[0].loc)


def bind_args(node: S.Call, names, defaults: dict, required: int):
    """Bind a call's positional and keyword arguments to parameter names; `defaults` makes
    the value of a parameter not given (name -> function of no arguments), else None."""
    args = node.args
    if len(args) > len(names):
        raise SourceError(f"too many arguments ({len(args)} given, at most "
                          f"{len(names)})", args[len(names)].loc)
    if not node.kwargs:  # the common case: positional arguments only
        if len(args) < required:
            raise SourceError(f"missing argument '{names[len(args)]}'", node.loc)
        if len(args) == len(names):
            return list(args)
        return [*args, *(defaults[n]() if n in defaults else None for n in names[len(args):])]
    bound: dict[str, S.Node] = {}
    for n, a in zip(names, args):
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
    return [bound[n] if n in bound else defaults[n]() if n in defaults else None
            for n in names]
