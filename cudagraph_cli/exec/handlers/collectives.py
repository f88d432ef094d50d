"""The collectives of TVM's disco (src/runtime/extra/disco/builtin.cc, the names its
relax.op.ccl operators lower to), as a session of one worker (worker 0, one group of one)
runs them: every worker's contribution is this worker's, so the received tensor is the sent
one, whatever the reduction (sum, prod, min, max or avg of one operand). A copy on the
backend: in stream order, a node of the graph inside a capture."""

from __future__ import annotations

from ..backend import ExecError
from ..registry import FunctionCall, function
from ..values import HostObject, as_shape, as_tensor


def single_worker(ex, call: FunctionCall, want: int) -> HostObject:
    """(send, [reduce kind,] in_group, recv): `want` arguments."""
    name, values = call.name, call.values
    if len(values) != want:
        raise ExecError(f"'{name}' takes {want} arguments, {len(values)} given")
    send = as_tensor(values[0], f"{name}'s sent data")
    recv = as_tensor(values[-1], f"{name}'s received data")
    if name == "runtime.disco.allreduce":
        # TVM's check (src/runtime/extra/disco/builtin.cc): ReduceKind 0 to 4
        kind = as_shape(values[1], f"{name}'s reduce kind")
        if len(kind) != 1 or not 0 <= kind[0] <= 4:
            raise ExecError(f"{name}'s reduce kind is {kind}, not one of 0 to 4 "
                            "(sum, prod, min, max, avg)")
    if send.dtype != recv.dtype or tuple(send.shape) != tuple(recv.shape):
        raise ExecError(f"'{name}' on one worker receives what it sends: a tensor "
                        f"{tuple(send.shape)} {send.dtype} into {tuple(recv.shape)} "
                        f"{recv.dtype}")
    ex.backend.site = ex.binding_loc
    ex.backend.copy_into(send, recv)
    return HostObject(f"{name}()")


@function("runtime.disco.allreduce")
def allreduce(ex, call: FunctionCall):
    return single_worker(ex, call, 4)


@function("runtime.disco.allgather", "runtime.disco.broadcast_from_worker0",
          "runtime.disco.scatter_from_worker0", "runtime.disco.gather_to_worker0")
def one_to_one(ex, call: FunctionCall):
    return single_worker(ex, call, 3)
