"""Calls of a module's public functions on one or more executors with the same arguments: the
weights (made once, shared: inputs.Weights), the fresh inputs of each call (inputs.Inputs),
the calls, and the outputs kept for comparison (compare.snapshot_value). verify, `cgraph run
--device cpu` (api.run_cpu) and the GPU run (cuda/gpu_run.py) drive their calls with it."""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from .compare import snapshot_value
from .inputs import Inputs, Weights, to_backend


@dataclass
class PreparedCall:
    function: ir.Function
    call: int  # 0-based call number of the function
    syms: dict  # the values of its parameters' symbolic variables (name -> value)
    fresh: list  # the host values of its inputs (the parameters before num_input)
    weights: list  # for each executor, its weight arguments
    args: list  # for each executor, its arguments: the inputs on its backend, the weights


class CallDriver:
    """`named`: each input's term names it (verify's inputs on backends that keep terms:
    exec/terms.py), so that two inputs of equal sample bytes are still told apart."""

    def __init__(self, executors: list, seed: int, shapes: dict, named: bool = False):
        self.executors = executors
        self.inputs = Inputs(seed, shapes)
        self.weights = Weights(self.inputs, [ex.backend for ex in executors])
        self.named = named

    def schedule(self, functions: list, calls: int, progress=None, captures=None):
        """(call number, function) in the order they run: the functions in turn, `calls`
        times. `progress(function, index, total, captures())`, before each."""
        total = calls * len(functions)
        for call in range(calls):
            for i, f in enumerate(functions):
                if progress is not None:
                    progress(f.name, call * len(functions) + i, total,
                             captures() if captures is not None else 0)
                yield call, f

    def prepare(self, f: ir.Function, call: int) -> PreparedCall:
        """The arguments of call number `call` of `f` on every executor: the weights first,
        then the inputs (the order the random values are drawn in)."""
        weights = self.weights.of(f)
        fresh = self.inputs.fresh(f, call)
        args = [[to_backend(ex.backend, v, ("input", f.name, call, p.name) if self.named
                            else None) for p, v in zip(f.params, fresh)] + w
                for ex, w in zip(self.executors, weights)]
        return PreparedCall(f, call, self.inputs.syms(f, call), fresh, weights, args)

    def run(self, prepared: PreparedCall, k: int):
        """Executor k's call (ExecError when its module cannot run)."""
        return self.executors[k].call(prepared.function.name, prepared.args[k])

    def keep(self, k: int, value):
        """Executor k's output as verify keeps it (compare.snapshot_value)."""
        return snapshot_value(self.executors[k].backend, value)
