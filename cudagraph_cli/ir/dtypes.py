"""Which strings are data types: the rules of TVM 0.27's dtype parser (tvm-ffi's
`TVMFFIDataTypeFromString`), which TVMScript applies to every dtype it reads.

The parser is more permissive than the names TVM prints: `int`, `float` and `uint` alone,
any bit width up to 255 (`int3`, `float17`), lanes (`float32x4`, `int8xvscalex4`), the short
spellings `i32`, `u8`, `f16`, `bf16`, and the named low-precision floats. tests/test_builder_checks.py
compares this with TVM's own parser on a corpus when TVM is installed.
"""

from __future__ import annotations

import functools
import re

# Low-precision float formats, by name; they take lanes but no bit width.
NAMED_FLOATS = ("float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
                 "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
                 "float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn")

_DTYPE = re.compile(
    r"void"
    r"|(?:" + "|".join(NAMED_FLOATS) + r")(?:x(?P<nlanes>\d+))?"
    r"|(?:int|uint|float|bfloat|bool|handle)(?P<bits>\d*)(?:x(?P<lanes>\d+)|xvscalex(?P<vs>\d+))?"
    r"|(?:i|u|f|bf)(?P<sbits>\d+)(?:x(?P<slanes>\d+)|xvscalex(?P<svs>\d+))?")

_MAX_BITS = 255  # bits are a uint8_t
_MAX_LANES = 65535  # lanes are a uint16_t


@functools.lru_cache(maxsize=1024)
def is_dtype(text: str) -> bool:
    """True when TVM 0.27 reads `text` as a data type (the empty string is the void type)."""
    if text == "":
        return True
    m = _DTYPE.fullmatch(text)
    if m is None:
        return False
    bits = m.group("bits") or m.group("sbits")
    if bits and int(bits) > _MAX_BITS:
        return False
    for g in ("nlanes", "lanes", "vs", "slanes", "svs"):
        lanes = m.group(g)
        if lanes is not None and not 1 <= int(lanes) <= _MAX_LANES:
            return False
    return True


@functools.lru_cache(maxsize=64)
def int_range(dtype: str) -> tuple[int, int]:
    """The values an integer literal of `dtype` may take, as TVM checks them on reading
    (`Literal value ... exceeds range of int32`); every other type is held to int64."""
    m = re.fullmatch(r"int(\d+)", dtype)
    bits = int(m.group(1)) if m and 1 <= int(m.group(1)) <= 64 else 64
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


_SHORT = {"i": "int", "u": "uint", "f": "float", "bf": "bfloat"}
_DEFAULT_BITS = {"int": "32", "uint": "32", "float": "32", "bfloat": "16"}


@functools.lru_cache(maxsize=1024)  # a module spells a handful of dtypes thousands of times
def canonical_dtype(text: str) -> str:
    """The name TVM prints for a dtype it reads (`f32` is float32, `int` is int32), so that
    two spellings of one type compare equal; text that is no dtype comes back unchanged."""
    m = re.fullmatch(r"(bf|i|u|f|int|uint|float|bfloat)(\d*)((?:x|xvscalex)\d+)?", text)
    if m is None:
        return text
    base = _SHORT.get(m.group(1), m.group(1))
    if not m.group(2) and len(m.group(1)) <= 2:
        return text  # `i` alone is no dtype
    return base + (m.group(2) or _DEFAULT_BITS[base]) + (m.group(3) or "")
