"""The static proof over bucket variables (proof/ranges.Derived): a variable a function defines
by `R.match_cast` of an expression of another (`nb` = (n + 7) // 8 * 8 below, as
`--capture-buckets` writes it) is read as its definition, so facts over it are decided from the
relation, and the two values a failure names are two real values. Each expected value is
derived by hand in the comment beside it.

The module: n in 1..20, so nb, the bucket, takes 8, 16 and 24 (n = 17..20 are in 24). A storage
of SIZE bytes holds `y`, (YDIM, 16) float16 (32 bytes a row), and `real`, the first ROWS rows of
it; the graph of `cap` is given `y` and keyed by KEY."""

from __future__ import annotations

import pytest

from cudagraph_cli import api, ir
from cudagraph_cli.proof.bound import prove_le
from cudagraph_cli.proof.facts import shape_facts
from cudagraph_cli.proof.ranges import FunctionRanges, Range

BUCKETED = """
@I.ir_module
class Module:
    @R.function(private=True)
    def cap(y: R.Tensor(("c", 16), dtype="float16")) -> R.Tuple:
        c = T.int64()
        R.func_attr({"relax.force_pure": True})
        _: R.Any = R.call_packed("kern", y)
        gv: R.Tuple = R.tuple()
        return gv

    @R.function
    def main(x: R.Tensor(("n", 16), dtype="float16")) -> R.Tuple:
        n = T.int64()
        nb = T.int64()
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 20}})
        cls = Module
        nb_value: R.Shape([(n + 7) // 8 * 8]) = R.shape([(n + 7) // 8 * 8])
        nb_shape: R.Shape([nb]) = R.match_cast(nb_value, R.Shape([nb]))
        storage: R.Object = R.memory.alloc_storage(R.shape([SIZE]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        y: R.Tensor((YDIM, 16), dtype="float16") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([YDIM, 16]), R.dtype("float16"))
        real: R.Tensor((ROWS, 16), dtype="float16") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([ROWS, 16]), R.dtype("float16"))
        g: R.Tuple = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", (cls.cap, (y,), R.prim_value(0), KEY), ty_args=(R.Tuple,))
        return g
"""


def module(size="768", ydim="nb", rows="n", key="R.shape([nb])"):
    text = BUCKETED.replace("SIZE", size).replace("YDIM", ydim).replace("ROWS", rows)
    return api.loads(text.replace("KEY", key))


def facts(kind: str, **edits):
    return [f for f in shape_facts(module(**edits)).facts if f.kind == kind]


def test_a_bucket_takes_the_values_of_its_definition():
    ranges = FunctionRanges(module().function("main"))
    assert ranges.of("nb") == Range(8, 24, "definition")
    # under a guard n <= 9, the bucket of 9 is 16
    assert ranges.under({"n": 9}).of("nb").most == 16


def test_bucket_sized_storage_and_the_real_rows_in_it_are_proved():
    # y: 32 * nb <= 768 (nb <= 24); real: 32 * n <= 32 * nb holds by the relation alone (taken
    # as free, n = 20 with nb = 8 would break it): tried at every n in 1..20.
    fits = facts("fits", size="nb * 32")
    assert [f.status for f in fits] == ["proved", "proved"], [f.message for f in fits]
    # every fact but the bucket fact, which needs a declared bucket list (below)
    assert all(f.status == "proved" for f in shape_facts(module()).facts if f.kind != "bucket")


LISTED = '"tir_var_upper_bound": {"n": 20}'


def bucket_fact(text: str):
    found = [f for f in shape_facts(api.loads(text)).facts if f.kind == "bucket"]
    assert len(found) == 1, found
    return found[0]


def test_the_bucket_fact_proves_the_definition_against_the_declared_list():
    text = BUCKETED.replace("SIZE", "768").replace("YDIM", "nb").replace("ROWS", "n") \
        .replace("KEY", "R.shape([nb])")
    # no list declared: nothing to prove it against
    f = bucket_fact(text)
    assert f.status == "unproven" and "declares no bucket list" in f.message
    # n = 17..20 are in 24, above the upper bound 20 (the storages hold 20 rows)
    f = bucket_fact(text.replace(LISTED, LISTED + ', "relax.rewrite_cuda_graph.buckets": '
                                 '{"n": [8, 16, 24]}'))
    assert (f.status, f.values, f.loc.line) == ("failed", {"n": 17}, 19), f  # the match_cast
    assert "above n's tir_var_upper_bound 20" in f.message
    # with the bound at 24 it holds: 1..8 -> 8, 9..16 -> 16, 17..24 -> 24
    right = text.replace(LISTED, '"tir_var_upper_bound": {"n": 24}, '
                         '"relax.rewrite_cuda_graph.buckets": {"n": [8, 16, 24]}')
    assert bucket_fact(right).status == "proved"
    # 16 not declared: n = 9 is in a bucket the rewrite does not mean to capture
    f = bucket_fact(right.replace("[8, 16, 24]", "[8, 24]"))
    assert (f.status, f.values) == ("failed", {"n": 9}) and "not one of the declared" in f.message
    # one row short at n = 8 alone: (n + 17) // 25 is 1 from n = 8, (n + 16) // 25 from 9
    f = bucket_fact(right.replace("(n + 7) // 8 * 8",
                                  "(n + 7) // 8 * 8 - (n + 17) // 25 + (n + 16) // 25"))
    assert (f.status, f.values) == ("failed", {"n": 8}) and "7 rows of the 8" in f.message


def test_a_bucket_past_its_storage_fails_at_a_real_value():
    # 704 bytes are 22 rows: the bucket of n = 17 is 24 (768 bytes). Taken as free, nb = 23
    # would be named: a value no n gives.
    [y, _] = facts("fits", size="704")
    assert y.status == "failed" and y.values == {"n": 17}, y.message


def test_real_rows_past_their_bucket_fail_at_the_first_such_value():
    # n + 1 rows in a storage of nb rows: n = 8 is a whole bucket, 9 rows in 8.
    [_, real] = facts("fits", size="nb * 32", rows="n + 1")
    assert real.status == "failed" and real.values == {"n": 8}, real.message


def test_a_key_of_the_bucket_for_shapes_of_the_bucket_is_proved():
    [f] = facts("key")
    assert f.status == "proved", f.message
    # the claim is over n alone: the bucket is its definition
    assert [v.name for e in f.claim[1] for v in ir.prim_vars(e, [])] == ["n"]


def test_a_key_of_the_bucket_for_shapes_of_the_real_size_names_two_sizes_of_one_bucket():
    # n = 1 and 2 are both in bucket 8: captured at 1 rows, replayed at 2.
    [f] = facts("key", ydim="n", size="768")
    assert f.status == "failed"
    assert f.message.startswith("at n = 1 and 2: one key (8), a graph captured at 1 replayed "
                                "at 2"), f.message


def test_a_key_of_the_real_size_for_shapes_of_the_bucket_is_proved():
    # The key recovers n, and nb is a function of n: right at every value (a graph for each
    # n where one for each bucket would do: a cost, not a wrong replay).
    [f] = facts("key", key="R.shape([n])")
    assert f.status == "proved", f.message


@pytest.mark.parametrize("lhs,rhs,status", [
    ("n % 4", "3", "proved"),  # floormod: tried at n = 1..20
    ("n % 8", "6", "failed"),  # n = 7
])
def test_what_no_direction_decides_is_tried_at_every_value(lhs, rhs, status):
    ranges = FunctionRanges(module().function("main"))
    got = prove_le(_prim(lhs), _prim(rhs), ranges.of, ranges.derived)
    assert got.status == status
    if status == "failed":
        assert got.at == {"n": 7}


def test_too_many_values_to_try_stay_unproven():
    got = prove_le(_prim("n % 4"), _prim("3"), lambda _: Range(1, 8193))
    assert got.status == "unproven"
    got = prove_le(_prim("n % 4"), _prim("3"), lambda _: Range(1, None))
    assert got.status == "unproven"


def _prim(text: str):
    """A PrimExpr of n as the reader reads it in a shape."""
    mod = api.loads(f"""
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), dtype="float32")) -> R.Shape:
        n = T.int64()
        s: R.Shape([{text}]) = R.shape([{text}])
        return s
""")
    return mod.functions[0].blocks[0].bindings[0].value.values[0]
