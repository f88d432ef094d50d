"""Every "which values can this variable take" question goes through proof/ranges.py: verify's
first run (its inputs' defaults, a guard's both sides), its bounds run, and `--shape`'s check
(api.check_shapes) all honour `tir_var_lower_bound` and `tir_non_negative_var` as well as
`tir_var_upper_bound`. A variable with a lower bound of 4 is never run below 4; a
non-negative one is run at 0 by the bounds run (its least value), and may be given 0."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cudagraph_cli import OverBound, api
from cudagraph_cli.exec.guard_check import guard_values
from cudagraph_cli.exec.inputs import Inputs
from cudagraph_cli.exec.verify import bound_values, verify
from cudagraph_cli.proof.ranges import Range, module_ranges
from cudagraph_cli.text.reader import parse_module
from conftest import run_cli
from test_verify_bounds import ORIGINAL

# test_verify_bounds's module: n in 1..64 (tir_var_upper_bound), x of n float32 values, copied
# through a tensor in a storage sized for 64; `attrs` adds to its attributes.
BOUNDED = '"tir_var_upper_bound": {"n": 64}'
assert ORIGINAL.count(BOUNDED) == 1
LOWER = ', "tir_var_lower_bound": {"n": 4}'
NON_NEGATIVE = ', "tir_non_negative_var": ["n"]'


def text(attrs: str = "") -> str:
    return ORIGINAL.replace(BOUNDED, BOUNDED + attrs)


def module(attrs: str = ""):
    return parse_module(text(attrs))


def test_module_ranges_read_the_three_attributes():
    assert module_ranges(module(), ["main"]) == {"n": Range(1, 64, "tir_var_upper_bound")}
    assert module_ranges(module(LOWER), ["main"])["n"].least == 4
    assert module_ranges(module(NON_NEGATIVE), ["main"])["n"].least == 0


def test_two_functions_take_the_values_where_both_hold():
    assert Range(4, None).both(Range(0, 8, "guard")) == Range(4, 8, "guard")
    assert Range(1, 32, "tir_var_upper_bound").both(Range(1, None)) == \
        Range(1, 32, "tir_var_upper_bound")


def test_the_inputs_defaults_start_at_the_least_value():
    for attrs, expected in (("", [1, 2]), (LOWER, [4, 5]), (NON_NEGATIVE, [1, 2])):
        f = module(attrs).function("main")
        inputs = Inputs(0, {})
        assert [inputs.syms(f, call)["n"] for call in range(3)] == expected + expected[:1]


def test_the_bounds_run_takes_the_least_value_never_below_it():
    # the value after the least, the upper bound, the least
    assert bound_values(module(), ["main"], {}, []) == {"n": [2, 64, 1]}
    assert bound_values(module(LOWER), ["main"], {}, []) == {"n": [5, 64, 4]}
    assert bound_values(module(NON_NEGATIVE), ["main"], {}, []) == {"n": [1, 64, 0]}


def test_a_guards_values_stay_within_the_range():
    # a guard n <= 8 (--capture-symbolic n:8): the least positive value, 9, 8, 10
    guards = [SimpleNamespace(bounds={"n": 8})]
    assert guard_values(guards, module_ranges(module(), ["main"])) == {"n": [1, 9, 8, 10]}
    assert guard_values(guards, module_ranges(module(LOWER), ["main"])) == \
        {"n": [4, 9, 8, 10]}
    assert guard_values(guards, module_ranges(module(NON_NEGATIVE), ["main"])) == \
        {"n": [1, 9, 8, 10]}
    assert guard_values(guards, {"n": Range(9, 64)}) == {"n": [9, 10]}


@pytest.mark.parametrize("attrs, first, bounds", [
    (LOWER, [4, 5], [5, 64, 4]),
    (NON_NEGATIVE, [1, 2], [1, 64, 0]),
])
def test_verify_runs_within_the_range(attrs, first, bounds):
    mod = module(attrs)
    report = verify(mod, parse_module(text(attrs)))
    assert report.equal, report.difference
    assert report.symbolic == {"n": first}
    assert report.bounds.values == {"n": bounds}


def test_check_shapes_refuses_a_value_under_the_least():
    api.check_shapes(module(LOWER), {"n": [4, 64]}, "m.relax")
    with pytest.raises(OverBound, match=r"n=1 is under main's tir_var_lower_bound \(n >= 4\) "
                                        r"in m.relax"):
        api.check_shapes(module(LOWER), {"n": [4, 1]}, "m.relax")
    api.check_shapes(module(NON_NEGATIVE), {"n": [0, 3]}, "m.relax")
    with pytest.raises(OverBound, match=r"n=0 is under main's least value \(a dimension is at "
                                        r"least 1; tir_non_negative_var allows 0\) \(n >= 1\)"):
        api.check_shapes(module(), {"n": [0]}, "m.relax")
    with pytest.raises(OverBound, match=r"n=65 is over main's tir_var_upper_bound"):
        api.check_shapes(module(NON_NEGATIVE), {"n": [65]}, "m.relax")


def test_the_command_line_refuses_a_shape_under_the_lower_bound(tmp_path):
    path = tmp_path / "m.relax"
    path.write_text(text(LOWER))
    r = run_cli("verify", str(path), str(path), "--shape", "n=1")
    assert r.returncode == 2
    assert b"n=1 is under main's tir_var_lower_bound (n >= 4)" in r.stderr
    assert run_cli("run", str(path), "--device", "cpu", "--shape", "n=4").returncode == 0
