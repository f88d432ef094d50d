"""Property: for generated modules, fmt is a fixed point, `check` finds the formatted module
equal to the original, and (with TVM) TVM reads both as the same module.

The generator writes each construct in several spellings (literal sugar or wrappers, bare
or parenthesized tuples, bare call statements, names rebound, dataflow blocks, symbolic
shapes), so that a spelling the reader normalizes wrongly shows up as a difference.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cudagraph_cli.text.difference import module_difference
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.text.printer import print_module
from tvm_oracle import tvm_equal, tvm_parse

DTYPES = ["float32", "float16", "int32"]


@st.composite
def modules(draw):
    n_funcs = draw(st.integers(1, 3))
    funcs = []
    dyn = draw(st.booleans())  # one signature for all functions, so that calls type-check
    dtype = draw(st.sampled_from(DTYPES))
    for fi in range(n_funcs):
        shape_sig = '("n", 4)' if dyn else "(8, 4)"
        shape_body = "(n, 4)" if dyn else "(8, 4)"
        shape_expr = "R.shape([n, 4])" if dyn else "R.shape([8, 4])"
        lines = []
        if dyn:
            lines.append("n = T.int64()")
        attrs = ['"relax.force_pure": True']
        if draw(st.booleans()):
            attrs.append('"num_input": 1')
        lines.append("R.func_attr({" + ", ".join(attrs) + "})")
        lines.append("cls = Module")
        live = ["x"]  # tensors that may be used
        storages = []
        n_stmts = draw(st.integers(1, 12))
        dataflow_at = draw(st.integers(0, n_stmts)) if draw(st.booleans()) else -1
        for i in range(n_stmts):
            if i == dataflow_at:
                a, b = draw(st.sampled_from(live)), f"df{i}"
                lines += ["with R.dataflow():", f"    tmp{i} = ({a}, {a})",
                          f"    {b} = tmp{i}[1]", f"    R.output({b})"]
                live.append(b)
                continue
            kind = draw(st.sampled_from(["storage", "tensor", "packed", "tuple", "bare",
                                         "rebind", "builtin", "kill"]))
            if kind == "storage" or (kind in ("tensor", "kill") and not storages):
                name = f"s{i}"
                size = draw(st.sampled_from([64, 128, 256]))
                if draw(st.booleans()):
                    args = f'R.shape([{size}]), 0, "global", "{dtype}"'
                else:
                    args = (f'R.shape([{size}]), R.prim_value(0), R.str("global"), '
                            f'R.dtype("{dtype}")')
                ann = draw(st.sampled_from(["", ": R.Any", ": R.Object"]))
                lines.append(f"{name}{ann} = R.memory.alloc_storage({args})")
                storages.append(name)
            elif kind == "tensor":
                name = f"t{i}"
                s = draw(st.sampled_from(storages))
                extra = draw(st.sampled_from(["", ", 0", ", R.prim_value(0)"]))
                ann = draw(st.sampled_from(["", f': R.Tensor({shape_body}, "{dtype}")']))
                lines.append(f'{name}{ann} = R.memory.alloc_tensor({s}, 0, {shape_expr}, '
                             f'"{dtype}"{extra})')
                live.append(name)
            elif kind == "builtin":
                name = f"b{i}"
                scope = draw(st.sampled_from(["", ', "global"', ', R.str("global")']))
                lines.append(f'{name} = R.builtin.alloc_tensor({shape_expr}, "{dtype}", 0'
                             f'{scope})')
                live.append(name)
            elif kind == "packed":
                args = ", ".join(draw(st.lists(st.sampled_from(live), min_size=1, max_size=3)))
                lit = draw(st.sampled_from(["", ", 1", ", R.prim_value(2)", ', "s"',
                                            ', R.dtype("float32")']))
                ty = draw(st.sampled_from(["ty_args=(R.Tuple,)", "sinfo_args=(R.Tuple,)",
                                           "ty_args=R.Tuple"]))
                lines.append(f'_ = R.call_packed("kernel{i}", {args}{lit}, {ty})')
            elif kind == "bare":
                a = draw(st.sampled_from(live))
                lines.append(f'R.call_packed("side{i}", {a}, ty_args=(R.Tuple,))')
            elif kind == "tuple":
                a, b = draw(st.sampled_from(live)), draw(st.sampled_from(live))
                form = draw(st.sampled_from([f"({a}, {b})", f"{a}, {b}", f"R.tuple({a}, {b})"]))
                lines.append(f"tup{i} = {form}")
                lines.append(f"g{i} = tup{i}[{draw(st.integers(0, 1))}]")
                live.append(f"g{i}")
            elif kind == "rebind":
                a = draw(st.sampled_from(live))
                lines.append(f"x = {a}")  # shadows the parameter from here on
            elif kind == "kill":
                lines.append(f"_ = R.memory.kill_storage({draw(st.sampled_from(storages))})")
        if fi > 0 and draw(st.booleans()):
            lines.append(f"_ = cls.f0({draw(st.sampled_from(live))})")
        ret = draw(st.sampled_from(live))
        lines.append(f"return {ret}")
        deco = draw(st.sampled_from(["@R.function", "@R.function(private=True)"])) \
            if fi > 0 else "@R.function"
        sig = f'def f{fi}(x: R.Tensor({shape_sig}, "{dtype}"))'
        body = "\n".join("        " + ln for ln in "\n".join(lines).split("\n"))
        funcs.append(f"    {deco}\n    {sig}:\n{body}\n")
    order = draw(st.permutations(range(n_funcs)))
    return "@I.ir_module\nclass Module:\n" + "\n".join(funcs[i] for i in order)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_fmt_fixed_point_and_equal(text):
    mod = parse_module(text)
    once = print_module(mod)
    assert print_module(parse_module(once)) == once
    assert module_difference(mod, parse_module(once)) is None
    legacy = print_module(mod, "legacy")
    assert module_difference(mod, parse_module(legacy)) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(modules())
def test_tvm_reads_formatted_module_as_original(tvm, text):
    current = text.replace("sinfo_args=", "ty_args=").replace("R.Object", "R.Any")
    once = print_module(parse_module(current))
    assert tvm_equal(tvm_parse(once), tvm_parse(current)) is None
