"""The guard of a graph launch bounded by `--capture-symbolic VAR:MAX`, read back from a module.

The rewriter (rewriter.py, `guarded`) writes each such launch as

    cond: R.Prim("bool") = R.prim_value(seq_len <= 256)
    if cond:
        gv1: R.Tuple(...) = R.call_builtin_with_ctx("vm.builtin.cuda_graph.run_or_capture", ...)
        gv2: R.Tuple(...) = gv1
    else:
        <the region's own bindings>
        gv2: R.Tuple(...) = (out0, out1, ...)
    out0 = gv2[0]
    ...

(several bounded variables: `a <= 256 and b <= 8`). This module finds that form in any module
(cgraph's output, or one edited by hand), for `cgraph diff` (which counts the graph path) and
`cgraph verify` (which checks that the graph runs exactly while the bound holds). It reads the
form loosely on purpose -- any comparison of a symbolic variable with a constant, the graph in
either branch -- so that a guard written wrongly is still found, and verify can say how it
runs wrongly.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir


@dataclass(frozen=True)
class Guard:
    """One guarded graph launch in a function's body (at any depth of its `if`s)."""

    function: str
    index: int | None  # the run_or_capture index of the graph (None: not a constant)
    capture: str  # the capture function it launches ("" when not named)
    # (symbolic variable name, operator, constant) for each comparison of the condition,
    # `seq_len <= 256` -> ("seq_len", "<=", 256); the condition is their conjunction.
    terms: tuple
    graph_in_then: bool  # the graph is in the then-branch (as the rewriter writes it)
    top_level: bool  # in the function's own blocks, so that it runs on every call
    loc: object = ir.NO_LOC  # the `if`

    @property
    def bounds(self) -> dict[str, int]:
        """The largest value of each variable for which the graph is meant to run:
        `n <= 8` and `n < 9` (or `9 > n`) mean 8. A comparison the other way, `n > 8` or
        `n >= 9` (an inverted guard), is read as the bound it inverts, so that verify reports
        the graph running above it; several terms on one variable, the least."""
        out: dict[str, int] = {}
        for name, op, value in self.terms:
            most = value - 1 if op in ("<", ">=") else value
            out[name] = min(most, out.get(name, most))
        return out

    def text(self) -> str:
        return " and ".join(f"{name} {op} {value}" for name, op, value in self.terms)


def launches_graph(seq: ir.SeqExpr) -> bool:
    """Does a branch launch a graph (run_or_capture) in its own blocks?"""
    return any(ir.builtin_called(b.value) == ir.RUN_OR_CAPTURE
               for block in seq.blocks for b in block.bindings)


def graph_branch(value) -> ir.SeqExpr | None:
    """The branch of a guarded launch that launches the graph: `value` is an If one branch of
    which launches a graph and the other not. None for any other value (a model's own `if`)."""
    if type(value) is not ir.If:
        return None
    then, other = launches_graph(value.true_branch), launches_graph(value.false_branch)
    if then == other:
        return None
    return value.true_branch if then else value.false_branch


def graph_path(blocks, eager: bool = False) -> list:
    """The bindings of `blocks` as a call takes them on the graph path: each guarded launch
    replaced by the bindings of its graph branch (what `cgraph diff` counts: the launches of
    a call within the bounds). `eager`: the path of a call above the bounds instead, each
    guarded launch replaced by the branch that runs the region's launches."""
    out = []
    for block in blocks:
        for b in block.bindings:
            seq = graph_branch(b.value)
            if seq is None:
                out.append(b)
            else:
                if eager:
                    seq = b.value.false_branch if seq is b.value.true_branch \
                        else b.value.true_branch
                out.extend(graph_path(seq.blocks, eager))
    return out


def guard_terms(e) -> tuple | None:
    """The comparisons a guard's condition `e` (a PrimExpr) is the conjunction of, each as
    (symbolic variable name, operator, constant) with the variable on the left:
    `seq_len <= 256` -> ("seq_len", "<=", 256), `256 >= seq_len` the same. A conjunction is
    `a and b` (as TVM 0.27 prints tir.And) or `T.And(a, b)`. None when `e` is anything else
    (a part that compares no symbolic variable with a constant, a disjunction): no guard.
    The one reader of a guard's condition (find_guards; report/graph_cost.py's bounds)."""
    out: list = []
    return tuple(out) if _terms(e, out) else None


_FLIPPED = {"<=": ">=", "<": ">", ">=": "<=", ">": "<"}


def _terms(e, out: list) -> bool:
    if isinstance(e, ir.PrimBinOp) and e.op == "and":
        return _terms(e.lhs, out) and _terms(e.rhs, out)
    if isinstance(e, ir.PrimCall) and e.func == "T.And" and e.args:
        return all(_terms(a, out) for a in e.args)
    if isinstance(e, ir.PrimBinOp) and e.op in ir.BOOL_OPS:
        if isinstance(e.lhs, ir.SymVar) and isinstance(e.rhs, ir.IntImm):
            out.append((e.lhs.name, e.op, e.rhs.value))
            return True
        if isinstance(e.rhs, ir.SymVar) and isinstance(e.lhs, ir.IntImm):
            out.append((e.rhs.name, _FLIPPED.get(e.op, e.op), e.lhs.value))
            return True
    return False


def largest_values(terms) -> dict[str, int]:
    """{VAR: the largest value `terms` (guard_terms') allow it}, for each variable they bound
    from above: `VAR <= C` and `VAR == C` allow C, `VAR < C` allows C - 1; several terms on
    one variable, the least of them. Terms that bound nothing from above (`>=`, `>`, `!=`) are
    left out."""
    out: dict[str, int] = {}
    for name, op, value in terms:
        most = value - 1 if op == "<" else value if op in ("<=", "==") else None
        if most is not None:
            out[name] = min(most, out.get(name, most))
    return out


def _graph_call(seq: ir.SeqExpr):
    for block in seq.blocks:
        for b in block.bindings:
            if ir.builtin_called(b.value) == ir.RUN_OR_CAPTURE:
                return b.value
    return None


def find_guards(module: ir.Module) -> list[Guard]:
    """Every guarded graph launch of the module's Relax functions, in text order."""
    found: list[Guard] = []
    for f in module.relax_functions():
        _scan(f.name, f.blocks, True, found)
    return found


def _scan(fname: str, blocks, top: bool, found: list) -> None:
    conds: dict = {}  # var -> the PrimExpr of its R.prim_value
    for block in blocks:
        for b in block.bindings:
            v = b.value
            if type(v) is ir.PrimValue:
                conds[b.var] = v.value
                continue
            if type(v) is not ir.If:
                continue
            seq = graph_branch(v)
            terms = guard_terms(conds[v.cond]) \
                if seq is not None and type(v.cond) is ir.Var and v.cond in conds else None
            if terms is not None:
                launch = ir.GraphLaunch.of(_graph_call(seq))
                index = launch.index_value if launch is not None else None
                capture = (launch.function_name if launch is not None else None) or ""
                found.append(Guard(fname, index, capture, terms,
                                   seq is v.true_branch, top, b.loc))
            for branch in (v.true_branch, v.false_branch):
                _scan(fname, branch.blocks, False, found)
