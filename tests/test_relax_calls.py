"""The table of the `R.*` calls cgraph models (text/builder/relax_calls.py) against TVM's
signatures as recorded in text/relax_ops.py, and the one checker that reads it."""

from __future__ import annotations

from cudagraph_cli import ir
from cudagraph_cli.text.builder.relax_calls import RELAX_CALLS
from cudagraph_cli.text.reader import parse_module
from cudagraph_cli.text.relax_ops import RELAX_OPS


def _positional(recorded: tuple) -> list[tuple[str, bool]]:
    """TVM's positional parameters as (name, has a default), up to *args or a bare *."""
    out = []
    for p in recorded:
        if p.startswith("*"):
            break
        out.append((p.rstrip("=").rstrip("/"), p.endswith("=")))
    return out


def test_each_modelled_call_binds_as_tvm_binds():
    """Where a call takes named parameters, they are TVM's in TVM's order (or an older
    spelling, through `aliases`), and the required ones are TVM's required ones. cgraph may
    read a parameter more than TVM 0.27 records (call_tir's older `tir_vars`) or fewer
    (R.ExternFunc's `ty` and `span`)."""
    checked = 0
    for name, call in RELAX_CALLS.items():
        assert name in RELAX_OPS, name
        if call.params is None:
            continue
        tvm = _positional(RELAX_OPS[name])
        spellings = {new: {new} for new in (p.name for p in call.params)}
        for old, new in call.aliases:
            spellings[new].add(old)
        for p, (tvm_name, _) in zip(call.params, tvm):
            assert tvm_name in spellings[p.name], (name, p.name, tvm_name)
        assert call.required == sum(1 for _, optional in tvm if not optional), name
        checked += 1
    # By hand: the memory calls, call_tir's `out_ty` read as `out_sinfo`, and the others.
    assert checked == 14
    assert [p.name for p in RELAX_CALLS["memory.alloc_tensor"].params] == \
        ["storage", "offset", "shape", "dtype", "runtime_device_ind"]
    assert RELAX_OPS["call_tir"] == ("gvar", "args", "out_ty")


def test_a_default_is_made_afresh_for_each_call():
    """Two R.memory.alloc_tensor calls without a device index each get their own
    R.prim_value(0): a node shared by two calls would be one object in two places."""
    mod = parse_module('''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")):
        s = R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")
        a = R.memory.alloc_tensor(s, 0, R.shape([4]), "float32")
        b = R.memory.alloc_tensor(s, 16, R.shape([4]), "float32", runtime_device_index=0)
        c = R.memory.alloc_tensor(s, 0, R.shape([4]), "float32")
        return x
''')
    calls = [b.value for b in mod.functions[0].blocks[0].bindings[1:]]
    devices = [c.args[4] for c in calls]
    assert all(isinstance(d, ir.PrimValue) and d.value.value == 0 for d in devices)
    assert devices[0] is not devices[2]
