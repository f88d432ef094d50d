"""Structural equality: equal up to local names; every kind of difference found and located."""

from __future__ import annotations

import pytest

from cudagraph_cli.text.difference import module_difference
from cudagraph_cli.text.reader import parse_module

BASE = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", 4), "float32"), w: R.Tensor((4,), "float32")) -> R.Tensor(("m", 4), "float32"):
        m = T.int64()
        R.func_attr({"relax.force_pure": True, "num_input": 1})
        cls = Module
        s: R.Any = R.memory.alloc_storage(R.shape([64]), 0, "global", "float32")
        a: R.Tensor((m, 4), "float32") = R.memory.alloc_tensor(s, 0, R.shape([m, 4]), "float32")
        _ = cls.g(x, a)
        t = (a, w)
        u = t[0]
        return u

    @R.function
    def g(x: R.Tensor(("n", 4), "float32"), y: R.Tensor(("n", 4), "float32")) -> R.Tuple:
        return R.tuple()
'''


def diff(a: str, b: str):
    return module_difference(parse_module(a), parse_module(b))


def test_renamed_locals_and_sugar_are_equal():
    renamed = (BASE.replace("a:", "buf:").replace(", a)", ", buf)").replace("(a, w)", "(buf, w)")
               .replace(" s:", " st:").replace("(s, 0", "(st, 0")
               .replace('"m"', '"k"').replace("(m, 4)", "(k, 4)").replace("[m, 4]", "[k, 4]")
               .replace("m = T.int64()", "k = T.int64()")
               .replace(', 0, "global", "float32")',
                        ', R.prim_value(0), R.str("global"), R.dtype("float32"))'))
    assert "buf" in renamed and "k = T.int64()" in renamed
    assert diff(BASE, renamed) is None


@pytest.mark.parametrize("old,new,expect", [
    ("R.shape([64])", "R.shape([65])", "binding 's'"),
    # (A float16 alloc under a float32 annotation is no longer read: TVM refuses it.)
    ("alloc_tensor(s, 0,", "alloc_tensor(s, 16,", "binding 'a'"),
    ("t[0]", "t[1]", "binding 'u'"),
    ('"num_input": 1', '"num_input": 2', 'attribute "num_input"'),
    ('"relax.force_pure": True, ', "", 'attribute "relax.force_pure"'),
    ("(a, w)", "(w, a)", "binding 't'"),
    ("_ = cls.g(x, a)", "_ = cls.g(a, x)", "binding '_'"),
    ("return u", "return t[0]", "return value"),
    ("        return u", "        v = u\n        return u", "block 0 has 5 bindings vs 6"),
    ("@R.function\n    def g", "@R.function(private=True)\n    def g", "private=True"),
    ('a: R.Tensor((m, 4), "float32")', 'a: R.Tensor(ndim=2, dtype="float32")',
     "struct info"),
    ('w: R.Tensor((4,), "float32")', 'w: R.Tensor((5,), "float32")', "parameter 1"),
])
def test_differences_are_found(old, new, expect):
    assert old in BASE
    d = diff(BASE, BASE.replace(old, new, 1))
    assert d is not None and expect in d.message, d and d.message


def test_symbolic_vars_must_map_consistently():
    text = ('@I.ir_module\nclass Module:\n    @R.function\n'
            '    def main(x: R.Tensor(("m", "n"), "float32")) -> R.Tensor(("m", "n"), "float32"):\n'
            '        return x\n')
    swapped = text.replace('-> R.Tensor(("m", "n")', '-> R.Tensor(("n", "m")')
    assert diff(text, text.replace('"m"', '"p"').replace('"n"', '"q"')) is None
    d = diff(text, swapped)
    assert d is not None and "return struct info" in d.message


def test_var_identity_matters_not_names():
    a = ('@I.ir_module\nclass Module:\n    @R.function\n'
         '    def main(x: R.Tensor((8,), "float32"), y: R.Tensor((8,), "float32")):\n'
         '        return x\n')
    d = diff(a, a.replace("return x", "return y"))
    assert d is not None and "return value" in d.message


def test_missing_function_and_locations():
    other = BASE.replace("def g(", "def h(").replace("cls.g(", "cls.h(")
    d = diff(BASE, other)
    assert d is not None and "'g' is only in the first module" in d.message
    assert d.loc_a.line == 16  # def g in BASE


def test_first_difference_is_located_in_both():
    other = BASE.replace("R.shape([64])", "R.shape([65])")
    d = diff(BASE, other)
    assert (d.loc_a.line, d.loc_b.line) == (8, 8)


def test_dataflow_vs_plain_block():
    a = ('@I.ir_module\nclass Module:\n    @R.function\n'
         '    def main(x: R.Tensor((8,), "float32")):\n'
         '        with R.dataflow():\n            y = x\n            R.output(y)\n'
         '        return y\n')
    b = a.replace("        with R.dataflow():\n            y = x\n            R.output(y)\n",
                  "        y = x\n")
    d = diff(a, b)
    assert d is not None and "dataflow" in d.message


def test_prim_func_bodies_by_text_or_ignored():
    a = ('@I.ir_module(s_tir=True)\nclass Module:\n    @T.prim_func(s_tir=True)\n'
         '    def k(a: T.Buffer((T.int64(2),), "float32")):\n'
         '        for i in range(T.int64(2)):\n            a[i] = T.float32(0)\n')
    reads = a.replace("a[i] = T.float32(0)", "T.reads()\n            a[i] = T.float32(0)")
    changed = a.replace("T.float32(0)", "T.float32(1)")
    assert diff(a, reads) is None
    assert "PrimFunc body differs" in diff(a, changed).message
    assert module_difference(parse_module(a), parse_module(changed), "ignore") is None
