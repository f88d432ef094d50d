"""The reader's meaning checks against TVM 0.27's reader (`tvm.script.from_source`).

Each case is a few lines put into one small module; beside it are TVM's verdict (recorded once
with TVM 0.27.0.post1, and asserted again by `test_tvm_verdict` where TVM is installed) and,
where cgraph rejects, the location counted by hand from the lines shown. Line numbers: HEAD is
lines 1-10, so a case's first line is line 11; columns count from 1.
"""

from __future__ import annotations

import math

import pytest

from cudagraph_cli import ir
from cudagraph_cli.diagnostics import SourceError
from cudagraph_cli.ir.dtypes import is_dtype
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.text.printer import print_module
from cudagraph_cli.text.relax_ops import RELAX_OPS

HEAD = '''@I.ir_module
class Module:
    @T.prim_func
    def exp(a: T.Buffer((T.int64(2), T.int64(4)), "float32"), b: T.Buffer((T.int64(2), T.int64(4)), "float32")):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
'''
STORAGE = '        s = R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")\n'
BIG = 2 ** 80  # 1208925819614629174706176


def body(*lines: str) -> str:
    return HEAD + "".join(ln + "\n" for ln in lines) + "        return x\n"


# (id, text, TVM 0.27's verdict, cgraph's location (line, col) or None when it reads it,
#  a word the message must contain)
CASES = [
    # ---- 1. operators: one table, an unknown name names the closest known one
    ("unknown-op-typo", body("        a = R.memory.kil_tensor(x)"), "reject", (11, 13),
     "did you mean R.memory.kill_tensor"),
    ("unknown-op-made-up", body("        a = R.totally_made_up(x)"), "reject", (11, 13),
     "unknown Relax operator 'R.totally_made_up'"),
    ("known-unmodelled-op", body("        a = R.add(x, x)"), "accept", None, ""),
    ("known-op-keyword", body("        a = R.nn.relu(data=x)"), "accept", None, ""),
    # `R.add(x, x, foo=1)`: col 25 is `foo`.
    ("unknown-keyword", body("        a = R.add(x, x, foo=1)"), "reject", (11, 25),
     "unexpected keyword argument 'foo'"),
    # col 25: the third argument.
    ("too-many-arguments", body("        a = R.add(x, x, x)"), "reject", (11, 25),
     "takes 2 positional arguments but 3"),
    ("missing-argument", body("        a = R.add(x)"), "reject", (11, 13), "missing argument 'x2'"),
    ("kill-tensor-keyword-tensor", body(STORAGE.rstrip("\n"),
                                        "        _ = R.memory.kill_tensor(tensor=x)"),
     "accept", None, ""),
    # col 34: `x=` of `R.memory.kill_tensor(x=x)`.
    ("kill-tensor-keyword-x", body("        _ = R.memory.kill_tensor(x=x)"), "reject", (11, 34),
     "unexpected keyword argument 'x'"),
    # ---- 2. what TVM rejects
    ("docstring-in-body", body('        """doc"""'), "reject", (11, 9), "docstring"),
    ("number-statement", body("        1"), "reject", (11, 9), "not a Relax statement"),
    ("tuple-statement", body("        (x, x)"), "reject", (11, 10), "not a Relax statement"),
    ("non-void-statement", body('        R.call_pure_packed("f", x, ty_args=R.Tensor((2, 4), "float32"))'),
     "reject", (11, 9), "must be bound"),
    ("void-statement", body('        R.call_packed("f", x, ty_args=R.Tuple())'), "accept", None, ""),
    ("none-statement", body("        None"), "accept", None, ""),
    ("function-reference-statement", body("        cls.exp"), "reject", (11, 9), "reference"),
    # `y: R.Tensor((2, 4), "flaot32") = x`: the string starts at col 29.
    ("unknown-dtype-tensor", body('        y: R.Tensor((2, 4), "flaot32") = x'), "reject", (11, 29),
     "unknown dtype 'flaot32' (did you mean float32?)"),
    ("unknown-dtype-R.dtype", body('        y = R.dtype("flaot32")'), "reject", (11, 21),
     "unknown dtype"),
    ("unknown-dtype-alloc", body('        s = R.memory.alloc_storage(R.shape([32]), 0, "global", "flaot32")'),
     "reject", (11, 64), "unknown dtype"),
    ("permissive-dtype", body('        y = R.dtype("int3")', '        z = R.dtype("float32x4")'),
     "accept", None, ""),
    # `t = R.memory.alloc_tensor(s, 0, s, "float32")`: the second `s` is col 41.
    ("storage-where-shape-goes", body(STORAGE.rstrip("\n"),
                                      '        t = R.memory.alloc_tensor(s, 0, s, "float32")'),
     "reject", (12, 41), "expected a shape"),
    ("shape-variable-is-a-shape", body(STORAGE.rstrip("\n"), "        sh = R.shape([2, 4])",
                                       '        t = R.memory.alloc_tensor(s, 0, sh, "float32")'),
     "accept", None, ""),
    # `[` is col 41; the parser places a list literal at its first item (col 42).
    ("list-where-shape-goes", body(STORAGE.rstrip("\n"),
                                   '        t = R.memory.alloc_tensor(s, 0, [2, 4], "float32")'),
     "reject", (12, 42), "expected a shape"),
    ("builtin-alloc-shape-variable", body("        sh = R.shape([2, 4])",
                                          '        t = R.builtin.alloc_tensor(sh, "float32", 0)'),
     "reject", (12, 36), "expected a shape: R.shape"),
    ("tensor-where-offset-goes", body(STORAGE.rstrip("\n"),
                                      '        t = R.memory.alloc_tensor(s, x, R.shape([2, 4]), "float32")'),
     "reject", (12, 38), "expected an integer"),
    ("string-where-offset-goes", body(STORAGE.rstrip("\n"),
                                      '        t = R.memory.alloc_tensor(s, "a", R.shape([2, 4]), "float32")'),
     "reject", (12, 38), "expected an integer"),
    ("variable-where-dtype-goes", body(STORAGE.rstrip("\n"),
                                       '        t = R.memory.alloc_tensor(s, 0, R.shape([2, 4]), x)'),
     "reject", (12, 58), "expected a dtype"),
    ("int-where-scope-goes", body('        s = R.memory.alloc_storage(R.shape([32]), 0, 1, "float32")'),
     "reject", (11, 54), "expected a string"),
    ("tensor-where-device-goes", body('        s = R.memory.alloc_storage(R.shape([32]), x, "global", "float32")'),
     "reject", (11, 51), "expected an integer"),
    ("kill-tensor-of-storage", body(STORAGE.rstrip("\n"), "        _ = R.memory.kill_tensor(s)"),
     "accept", None, ""),
    # `R.shape([<BIG>])`: the literal starts at col 45.
    ("int-beyond-int64-shape", body(f'        s = R.memory.alloc_storage(R.shape([{BIG}]), 0, "global", "float32")'),
     "reject", (11, 45), "out of range for int64"),
    ("int-beyond-int64-tensor", body(f'        y: R.Tensor(({BIG},), "float32") = x'), "reject",
     (11, 22), "out of range"),
    ("int-2**63", body("        y = R.prim_value(9223372036854775808)"), "reject", (11, 26),
     "out of range"),
    ("int-max-int64", body("        y = R.prim_value(9223372036854775807)"), "accept", None, ""),
    ("int-min-int64", body("        y = R.prim_value(-9223372036854775808)"), "accept", None, ""),
    ("int-product-beyond-int64", body("        y = R.shape([4294967296 * 4294967296])"), "reject",
     (11, 22), "out of range"),
    # `T.int32(3000000000)`: the literal is col 34.
    ("int-beyond-int32", body("        y = R.prim_value(T.int32(3000000000))"), "reject", (11, 34),
     "out of range for int32"),
    ("kernel-too-few-arguments", body("        _ = cls.exp(x)"), "reject", (11, 13),
     "takes 2 arguments"),
    ("kernel-too-many-arguments", body("        _ = cls.exp(x, x, x)"), "reject", (11, 13),
     "takes 2 arguments"),
    # `_ = cls.exp(x, y)`: `y` is col 24.
    ("kernel-dtype", body('        y = R.builtin.alloc_tensor(R.shape([2, 4]), "float16", 0)',
                          "        _ = cls.exp(x, y)"), "reject", (12, 24), "float16"),
    ("kernel-static-shape", body('        y = R.builtin.alloc_tensor(R.shape([2, 5]), "float32", 0)',
                                 "        _ = cls.exp(x, y)"), "reject", (12, 24), "(2, 5)"),
    ("kernel-rank", body('        y = R.builtin.alloc_tensor(R.shape([8]), "float32", 0)',
                         "        _ = cls.exp(x, y)"), "reject", (12, 24), "does not match"),
    ("kernel-storage", body(STORAGE.rstrip("\n"), "        _ = cls.exp(x, s)"), "reject",
     (12, 24), "does not match"),
    ("kernel-tuple", body("        _ = cls.exp(x, (x, x))"), "reject", (11, 25), "does not match"),
    ("kernel-unknown-dtype", body("        y: R.Tensor((2, 4)) = x", "        _ = cls.exp(x, y)"),
     "accept", None, ""),
    ("kernel-unknown-shape", body('        y: R.Tensor(dtype="float32", ndim=2) = x',
                                  "        _ = cls.exp(x, y)"), "accept", None, ""),
    ("kernel-matches", body("        _ = cls.exp(x, x)"), "accept", None, ""),
    # ---- 3. what TVM reads
    ("statement-after-return", HEAD + "        return x\n        y = R.add(x, x)\n", "accept",
     None, ""),
    ("second-return", HEAD + "        return x\n        return x\n", "reject", (12, 9),
     "one `return`"),
    ("undecorated-module-class", '''class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")):
        return x
''', "accept", None, ""),
    ("class-docstring", '''@I.ir_module
class Module:
    """A module."""
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32")):
        return x
''', "accept", None, ""),
    # ---- 4. non-finite floats
    ("prim-value-1e400", body("        y = R.prim_value(1e400)"), "accept", None, ""),
    ("prim-value-inf-string", body('        y = R.prim_value(T.float64("inf"))',
                                   '        z = R.prim_value(T.float64("-inf"))',
                                   '        w = R.prim_value(T.float64("nan"))'), "accept", None, ""),
    ("prim-value-float-call", body('        y = R.prim_value(T.float64(float("inf")))'), "accept",
     None, ""),
    # `T.float64("abc")`: the string is col 36.
    ("prim-value-bad-float-string", body('        y = R.prim_value(T.float64("abc"))'), "reject",
     (11, 36), "could not convert"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_cgraph_verdict(case):
    _id, text, tvm_verdict, at, words = case
    if at is None:
        assert tvm_verdict == "accept"
        parse_module(text)
        return
    assert tvm_verdict == "reject"
    with pytest.raises(SourceError) as e:
        parse_module(text)
    assert (e.value.loc.line, e.value.loc.col) == at, e.value.message
    assert words in e.value.message


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_tvm_verdict(tvm, case):
    """The recorded verdicts are TVM's."""
    from tvm.script import from_source

    _id, text, tvm_verdict, _at, _words = case
    try:
        from_source(text)
        got = "accept"
    except Exception:  # noqa: BLE001 - any rejection by TVM's reader
        got = "reject"
    assert got == tvm_verdict


def test_statement_after_return_is_bound_before_it():
    # TVM binds `y` and still returns `x`; the printed module has the binding first.
    mod = parse_module(HEAD + "        return x\n        y = R.add(x, x)\n")
    main = [f for f in mod.relax_functions() if f.name == "main"][0]
    assert [b.var.name for blk in main.blocks for b in blk.bindings] == ["y"]
    assert isinstance(main.body, ir.Var) and main.body.name == "x"


def test_non_finite_floats_print_as_tvm_reads_them():
    text = body("        y = R.prim_value(1e400)", "        z = R.prim_value(-1e400)",
                '        w = R.prim_value(T.float32("nan"))')
    out = print_module(parse_module(text))
    assert 'R.prim_value(T.float64("inf"))' in out
    assert 'R.prim_value(T.float64("-inf"))' in out
    assert 'R.prim_value(T.float32("nan"))' in out
    again = print_module(parse_module(out))
    assert again == out
    values = [b.value.value.value for f in parse_module(out).relax_functions()
              for blk in f.blocks for b in blk.bindings if isinstance(b.value, ir.PrimValue)]
    assert values[0] == math.inf and values[1] == -math.inf and math.isnan(values[2])


def test_non_finite_floats_round_trip_through_tvm(tvm):
    from tvm.script import from_source

    # No PrimFunc: printing one converts its dialect, which is not what this is about.
    text = "\n".join([
        "@I.ir_module",
        "class Module:",
        "    @R.function",
        '    def main(x: R.Tensor((2, 4), dtype="float32")) -> R.Tensor((2, 4), dtype="float32"):',
        "        y = R.prim_value(1e400)",
        "        z = R.prim_value(-1e400)",
        '        w = R.prim_value(T.float64("nan"))',
        "        return x",
    ]) + "\n"
    tvm.ir.assert_structural_equal(from_source(text), from_source(print_module(parse_module(text))))


def test_modelled_operators_are_in_the_table():
    for name in ("memory.alloc_storage", "memory.alloc_tensor", "memory.kill_storage",
                 "memory.kill_tensor", "builtin.alloc_tensor", "null_value", "prim_value", "str",
                 "dtype", "shape", "tuple", "const", "ExternFunc", "call_packed",
                 "call_pure_packed", "call_builtin_with_ctx", "call_tir", "call_dps_packed"):
        assert name in RELAX_OPS, name
    # The signatures are TVM's: `R.add(x1, x2)`, `R.memory.kill_tensor(tensor)`.
    assert RELAX_OPS["add"] == ("x1", "x2")
    assert RELAX_OPS["memory.kill_tensor"] == ("tensor",)


def test_table_is_what_tvm_has(tvm):
    """relax_ops.py is what tests/helpers/record_relax_ops.py records from the installed TVM."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "record_relax_ops", Path(__file__).parent / "helpers" / "record_relax_ops.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.record() == RELAX_OPS


# Prefixes and suffixes whose combinations cover each branch of the dtype parser.
_DTYPE_PREFIXES = ["int", "uint", "float", "bfloat", "bool", "handle", "void", "f", "i", "u",
                   "b", "bf", "fp", "e", "x", "custom", "Float", "flaot", "float8_e4m3fn",
                   "float8_e5m2", "float4_e2m1fn", "float6_e3m2fn", "float16_e4m3fn"]
_DTYPE_SUFFIXES = ["", "8", "16", "32", "255", "256", "0", "x4", "8x4", "32x4", "xvscalex4",
                   "32xvscalex4", "x65535", "x65536", "x1", "x0", "x", "32x", " ", "-8",
                   "8x4x2", "99999999999"]


def test_dtype_rules_by_hand():
    for ok in ("float32", "int", "float", "bool", "handle", "void", "", "int3", "float32x4",
               "i32", "bf16", "float8_e4m3fn", "int8xvscalex4"):
        assert is_dtype(ok), ok
    for bad in ("flaot32", "Float32", "float 32", "int256", "float32x0", "float32x65536",
                "e4m3_float8", "i", "void32", "float8_e4m3fn8"):
        assert not is_dtype(bad), bad


def test_dtype_rules_are_tvms(tvm):
    for p in _DTYPE_PREFIXES:
        for s in _DTYPE_SUFFIXES:
            try:
                tvm.DataType(p + s)
                theirs = True
            except Exception:  # noqa: BLE001 - TVM's parser rejects it
                theirs = False
            assert is_dtype(p + s) == theirs, p + s
