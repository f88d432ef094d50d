"""Step 3 of the rewrite, after the planner: why each kernel launch left outside a graph is
there, in words. Reads plans only.

The region planner records, for every launch it leaves outside, its decision (`LeftOutside`:
not static, a vm.builtin or Relax callee, excluded, ...). For "not static" this step finds
the first argument that is not, and follows it back through the bindings to the root cause:
a function input, an `R.builtin.alloc_tensor`, a storage that flows to the return value or
whose size is not constant, an uncaptured symbolic variable. It asks the planner's
`StaticValues` what is static, so it can never disagree with the planner.

TVM explains nothing; `cgraph rewrite --explain` and `cgraph diff` print these.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import ir
from ..ir import callee_name
from .options import RewriteOptions
from .region_planner import LeftOutside, ModulePlan
from .storage_collector import free_vars


@dataclass
class Reason:
    """Why a kernel launch stays outside a graph."""

    function: str
    binding: object  # ir.VarBinding
    code: str
    message: str
    # What the reason is about, by name, so that reasons can be counted per function and say
    # which variable to look at (`symbolic-shape: 97 (seq_len)`): the symbolic variables of
    # symbolic-shape, the argument of param-input, non-static-input, dynamic-alloc and
    # unknown-shape, the storage of output-storage and dynamic-storage, the result of
    # returned-result, the callee of vm-builtin, relax-call, excluded, min-kernels and
    # open-dataflow-region, the function of function-not-selected, the external symbol of
    # unsafe-extern.
    names: tuple = ()
    # unsafe-extern: the capture-safety table's rule, {"symbol", "verdict", "rule", "source"}
    # ("rule": the table's pattern; verdict "unknown" and rule None under --strict-extern).
    rule: dict | None = None


def reason_counts(reasons) -> list[tuple[str, int, tuple]]:
    """(code, how many, the names they are about, first seen first) for `reasons` of one
    function: the aggregate that every view prints. Most frequent first, then by code."""
    counts: dict[str, int] = {}
    names: dict[str, dict] = {}
    for code, subjects in reasons:
        counts[code] = counts.get(code, 0) + 1
        names.setdefault(code, {}).update(dict.fromkeys(subjects))
    return [(c, counts[c], tuple(names[c])) for c in sorted(counts, key=lambda c: (-counts[c], c))]


def capture_hint(code: str, names) -> str:
    """The option that would capture launches left outside for `code`, naming their
    variables: `--capture-symbolic seq_len[:MAX]` for symbolic-shape (one option each
    variable; `:MAX` bounds how many graphs it makes), "" for any other code."""
    if code != "symbolic-shape" or not names:
        return ""
    return " ".join(f"--capture-symbolic {n}[:MAX]" for n in names)


def counted_text(code: str, n: int, names) -> str:
    """`symbolic-shape: 97 (seq_len) [--capture-symbolic seq_len[:MAX] would capture them]`:
    one code of a function's reasons in aggregate, as `rewrite --explain` prints it (the
    tables of `cgraph diff` print about_text's)."""
    hint = capture_hint(code, names)
    return f"{code}: {n}" + (f" ({names_text(names)})" if names else "") + \
        (f" [{hint} would capture them]" if hint else "")


def about_text(code: str, names) -> str:
    """What a code of a function's reasons is about, for the tables of `cgraph diff`: the
    names, then the option that would capture them (symbolic-shape)."""
    hint = capture_hint(code, names)
    return names_text(names) + (f"; {hint} would capture them" if hint else "")


def names_text(names, limit: int = 6) -> str:
    """`a, b, c` — at most `limit` names, then how many more (a layer loop names dozens)."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


# One code per kernel launch left outside a graph. A module that already launches CUDA graphs
# has none: it is not planned at all (passes.pipeline leaves it as it is, correction 1), and
# the report says so once, in a note for the whole module, rather than once per launch.
REASON_CODES = {
    "param-input": "an argument is a function input (a parameter before num_input)",
    "dynamic-alloc": "an argument is allocated by R.builtin.alloc_tensor (not planned memory)",
    "output-storage": "an argument lives in a storage that flows to the return value",
    "returned-result": "it allocates its result, which flows to the return value (in a graph, "
                       "the graph's memory: every replay writes it again)",
    "dynamic-storage": "an argument lives in a storage whose size is not constant",
    "symbolic-shape": "a shape uses a symbolic variable that is not captured",
    "unknown-shape": "an argument's shape is not known",
    "non-static-input": "an argument is computed outside any graph each call",
    "vm-builtin": "vm.builtin.* functions are never captured",
    "relax-call": "calls to Relax functions are never captured",
    "excluded": "the callee matches --exclude",
    "unsafe-extern": "it calls an external function that a CUDA graph cannot replay (it "
                     "allocates, synchronises, copies to the host or keeps host state: the "
                     "capture-safety table), or one unknown under --strict-extern",
    "min-kernels": "its region has fewer kernel launches than --min-kernels",
    "not-row-wise": "--capture-buckets: its region cannot run at a bucket of the variable (a "
                    "kernel mixes rows, or a tensor's rows are not a prefix of it), and the "
                    "variable is not captured otherwise",
        "function-not-selected": "the function is not in --function",
    "open-dataflow-region": "TVM leaves a region still open at the end of the function "
                            "(opened in a dataflow block) unlifted",
    "dataflow-block": "it, or an argument, is bound in a dataflow block, where nothing is "
                      "lifted (a graph launched there is an impure call in a dataflow block)",
}

DATAFLOW_WHY = ("a graph launched there would be an impure call inside the dataflow block, "
                "which TVM's well-formed check refuses (a module after memory planning, "
                "past ToNonDataflow, has no dataflow block)")


def explain(module: ir.Module, plan: ModulePlan, returned_storages: dict[str, set[ir.Var]],
            options: RewriteOptions) -> list[Reason]:
    """One `Reason` per launch the planner left outside, in the planner's order.
    `returned_storages`: the storage collector's result the planner was given."""
    return Explainer(module, plan, returned_storages, options).reasons()


class Explainer:
    def __init__(self, module: ir.Module, plan: ModulePlan,
                 returned_storages: dict[str, set[ir.Var]], options: RewriteOptions):
        self.plan = plan
        self.functions = {f.name: f for f in module.relax_functions()}
        self.returned_storages = returned_storages
        self.options = options
        self.statics = plan.statics
        # the function being explained: its bindings by var, parameters, returned storages
        self.fn: ir.Function | None = None
        self.defs: dict[ir.Var, object] = {}
        self.params: dict[ir.Var, int] = {}  # param -> index
        self.disabled_storages: set[ir.Var] = set()
        self.in_dataflow: set[ir.Var] = set()  # the function's vars bound in dataflow blocks

    def reasons(self) -> list[Reason]:
        return [self.reason(o) for o in self.plan.outside]

    def reason(self, o: LeftOutside) -> Reason:
        b = o.binding
        callee = callee_name(b.value) if isinstance(b.value, ir.Call) else None
        if o.cause == "function-not-selected":
            return Reason(o.function, b, o.cause, f"the function '{o.function}' is not in "
                          "--function", (o.function,))
        if o.cause == "open-dataflow-region":
            return Reason(o.function, b, o.cause, f"'{callee}': TVM leaves a region still open "
                          "at the end of the function (opened in a dataflow block) unlifted",
                          (callee,))
        if o.cause == "min-kernels":
            k = o.region.kernels
            return Reason(o.function, b, o.cause,
                          f"the region of '{callee}' has {k} kernel launch"
                          f"{'es' if k != 1 else ''}, fewer than --min-kernels "
                          f"{self.options.min_kernels}", (callee,))
        if o.cause == "not-row-wise":
            var, why, each = o.region.bucket_reason
            why = each.get(id(b), why)
            return Reason(o.function, b, o.cause, f"the region of '{callee}' cannot run at a "
                          f"bucket of {var}: {why}", (var,))
        call = b.value
        if o.cause == "vm-builtin":
            return Reason(o.function, b, o.cause, f"'{callee}' is a vm.builtin "
                                                  "function; those are never captured",
                          (callee,))
        if o.cause == "relax-call":
            return Reason(o.function, b, o.cause, f"'{callee}' is a Relax "
                                                  "function; calls to Relax functions are "
                                                  "never captured", (callee,))
        if o.cause == "excluded":
            return Reason(o.function, b, o.cause, f"'{callee}' matches --exclude", (callee,))
        if o.cause == "unsafe-extern":
            u = o.unsafe
            rule = {"symbol": u.symbol, "verdict": u.verdict,
                    "rule": None if u.rule is None else u.rule.pattern,
                    "source": None if u.rule is None else u.rule.source}
            return Reason(o.function, b, o.cause, u.text(), (u.symbol,), rule)
        if o.cause == "returned-result":
            return Reason(o.function, b, o.cause, f"'{callee}' allocates its result "
                          f"'{b.var.name}', which flows to the return value: lifted, it would "
                          "be the graph's memory, which the next call's replay overwrites "
                          "while the caller holds it", (b.var.name,))
        if o.cause == "dataflow-block":
            return Reason(o.function, b, o.cause, f"'{callee}' is called in a "
                          f"dataflow block: {DATAFLOW_WHY}", (callee,))
        self._enter(o.function)
        for a in call.args:
            found = self._why_not_static(a, 0)
            if found is not None:
                return Reason(o.function, b, *found)
        if isinstance(call.op, ir.Var):
            # The planner's one other "not static" with static arguments (region_planner
            # _classify): a call of a local function runs Relax code, never a graph.
            return Reason(o.function, b, "non-static-input", f"'{callee}' is a local function "
                          "value, computed each call; a call of it runs Relax code, never a "
                          "graph", (callee,))
        # Only past the depth limit of _why_not_static: the argument's cause is too far back.
        return Reason(o.function, b, "non-static-input", f"an argument of '{callee}' is "
                      "computed outside any graph each call (its cause lies more than 50 "
                      "bindings back)", (callee,))

    def _enter(self, name: str):
        if self.fn is not None and self.fn.name == name:
            return
        f = self.fn = self.functions[name]
        self.params = {p: i for i, p in enumerate(f.params)}
        self.disabled_storages = self.returned_storages.get(name, set())
        self.defs = {}
        self.in_dataflow = set()
        self._define(f.blocks)

    def _define(self, blocks):
        # The bindings the planner visits: branches of an `if` too, not nested functions.
        for block in blocks:
            for b in block.bindings:
                self.defs[b.var] = b
                if block.is_dataflow:
                    self.in_dataflow.add(b.var)
                if isinstance(b, ir.VarBinding) and type(b.value) is ir.If:
                    self._define(b.value.true_branch.blocks)
                    self._define(b.value.false_branch.blocks)

    def _why_not_static(self, e, depth: int, owner: str | None = None):
        """(code, message, names) for the first reason `e` is not static, or None if it is.
        `owner`: the variable a shape or offset argument `e` belongs to (alloc_tensor's)."""
        if depth > 50 or self.statics.expr(e):
            return None
        t = type(e)
        if t is ir.Tuple:
            for f in e.fields:
                r = self._why_not_static(f, depth + 1, owner)
                if r:
                    return r
            return None
        if t in (ir.PrimValue, ir.ShapeExpr):
            values = (e.value,) if t is ir.PrimValue else e.values
            syms = self._uncaptured([v for x in values for v in ir.prim_vars(x, [])])
            what = f"the shape of '{owner}'" if owner and t is ir.ShapeExpr else \
                f"an offset of '{owner}'" if owner else \
                "a shape argument" if t is ir.ShapeExpr else "a value argument"
            names = tuple(v.name for v in syms)
            return ("symbolic-shape", f"{what} uses {self._syms_text(syms)}, not captured "
                    "(not from a weight, not in relax.rewrite_cuda_graph.capture_symbolic_vars)"
                    + _would_capture(names), names)
        if t is not ir.Var:
            return ("non-static-input", f"an argument ({t.__name__}) is not a value fixed "
                    "across calls", ())
        name = e.name
        if e in self.statics.vars:
            s = e.sinfo
            if isinstance(s, ir.TensorSInfo) and s.shape is None:
                return ("unknown-shape", f"the shape of '{name}' is not known", (name,))
            syms = self._uncaptured(_sinfo_syms(s, []))
            names = tuple(v.name for v in syms)
            return ("symbolic-shape", f"the shape of '{name}' uses {self._syms_text(syms)}, not "
                    "captured (add it to relax.rewrite_cuda_graph.capture_symbolic_vars)"
                    + _would_capture(names), names)
        if e in self.params:
            if self.fn.attr("num_input") is None:
                why = "no num_input attribute, so every parameter is an input"
            else:
                why = f"before num_input={self.fn.num_input}"
            return ("param-input", f"'{name}' is an input of the function (parameter "
                    f"{self.params[e]}, {why}); its buffer changes between calls", (name,))
        b = self.defs.get(e)
        if b is None or not isinstance(b, ir.VarBinding):
            return ("non-static-input", f"'{name}' is computed outside any graph each call",
                    (name,))
        v = b.value
        if e in self.in_dataflow and self.options.no_graph_in_dataflow:
            # Correction 7: not static for being in the block, unless something else is the
            # reason (a function input, say), which is then the one given.
            for a in (v.args if isinstance(v, ir.Call) else free_vars(v, [])):
                r = self._why_not_static(a, depth + 1)
                if r:
                    return r
            return ("dataflow-block", f"'{name}' is bound in a dataflow block, where nothing is "
                    f"lifted: {DATAFLOW_WHY}", (name,))
        if isinstance(v, ir.Call) and isinstance(v.op, ir.Op):
            if v.op.name == "relax.builtin.alloc_tensor":
                return ("dynamic-alloc", f"'{name}' is allocated by R.builtin.alloc_tensor "
                        "each call (not statically planned memory)", (name,))
            if v.op.name == "relax.memory.alloc_tensor" and type(v.args[0]) is ir.Var:
                storage = v.args[0]
                if storage in self.disabled_storages:
                    return ("output-storage", f"'{name}' lives in storage '{storage.name}', "
                            "which flows to the return value", (storage.name,))
                sb = self.defs.get(storage)
                if storage not in self.statics.vars and sb is not None and \
                        isinstance(sb.value, ir.Call) and isinstance(sb.value.op, ir.Op) and \
                        sb.value.op.name == "relax.memory.alloc_storage":
                    size = self._uncaptured([x for a in sb.value.args[:1]
                                             for x in _expr_syms(a)])
                    why = f": it uses {self._syms_text(size)}" if size else ""
                    return ("dynamic-storage", f"'{name}' lives in storage '{storage.name}', "
                            f"whose size is not constant{why}", (storage.name,))
                for a in v.args[1:]:  # a static storage: the shape or offset is the reason
                    r = self._why_not_static(a, depth + 1, name)
                    if r:
                        return r
        if isinstance(v, ir.Var):
            return self._why_not_static(v, depth + 1)
        if isinstance(v, ir.TupleGetItem):
            return self._why_not_static(v.tuple_value, depth + 1)
        if isinstance(v, ir.Tuple):
            for a in v.fields:
                r = self._why_not_static(a, depth + 1)
                if r:
                    return r
        if isinstance(v, ir.Call):
            # The code stays non-static-input (the argument is made outside each call); the
            # words follow it back to what made it so (on a Llama prefill, an R.reshape to a
            # shape of seq_len), since its name alone says nothing.
            cause = None
            for a in v.args:
                cause = self._why_not_static(a, depth + 1)
                if cause:
                    break
            # Only the root cause: a chain of reshapes would otherwise repeat itself.
            root = cause[1].split(", because ", 1)[-1] if cause else ""
            return ("non-static-input", f"'{name}' is computed by '{callee_name(v)}' "
                    "outside any graph each call" + (f", because {root}" if root else ""),
                    (name,))
        return ("non-static-input", f"'{name}' is computed outside any graph each call",
                (name,))

    def _uncaptured(self, syms) -> list:
        """The symbolic variables of `syms` that are not captured, once each, in order."""
        out = []
        for v in syms:
            if v not in self.statics.syms and not any(v is o for o in out):
                out.append(v)
        return out

    def _syms_text(self, syms) -> str:
        """`seq_len (from the shape of parameter 'input_embed')`: each variable and the
        parameter it comes from, which is what a user changes or captures."""
        if not syms:
            return "a symbolic variable"
        parts = []
        for v in syms:
            source = next((p.name for p in self.fn.params
                           if any(x is v for x in _sinfo_syms(p.sinfo, []))), None)
            parts.append(f"{v.name} (from the shape of parameter '{source}')" if source
                         else v.name)
        return ("the symbolic variable " if len(syms) == 1 else "the symbolic variables ") + \
            ", ".join(parts)


def _would_capture(names) -> str:
    # The attribute is what a model's author writes; the option is what a user of cgraph
    # can give without editing the model.
    hint = capture_hint("symbolic-shape", names)
    return f"; {hint} would capture it" if hint else ""


def _expr_syms(e) -> list:
    t = type(e)
    if t is ir.ShapeExpr:
        return [v for x in e.values for v in ir.prim_vars(x, [])]
    if t is ir.PrimValue:
        return ir.prim_vars(e.value, [])
    return []


def _sinfo_syms(s, out: list) -> list:
    """The symbolic variables a struct info mentions, in order (repeats included)."""
    t = type(s)
    if t is ir.TensorSInfo and s.shape is not None:
        for d in s.shape:
            if not isinstance(d, (ir.IntImm, ir.FloatImm)):
                out += ir.prim_vars(d, [])
    elif t is ir.ShapeSInfo and s.values is not None:
        for d in s.values:
            if not isinstance(d, (ir.IntImm, ir.FloatImm)):
                out += ir.prim_vars(d, [])
    elif t is ir.TupleSInfo:
        for f in s.fields:
            _sinfo_syms(f, out)
    elif t is ir.PrimSInfo and s.value is not None and \
            not isinstance(s.value, (ir.IntImm, ir.FloatImm)):
        out += ir.prim_vars(s.value, [])
    return out
