"""Which external functions a CUDA graph may capture: the table capture_safety.toml, and the
verdict on one call. Reads IR only.

TVM's planner captures every call with static arguments to a PrimFunc or to an external
function but `vm.builtin.*`. A CUDA graph replays kernels only: an external function that
allocates, synchronises, copies to the host or keeps host state either breaks the capture or
replays what the host decided once (docs/REWRITE.md, correction 8). The table says, for each
known symbol (or glob), `never`, `host-state`, `workspace` (safe only when the call passes its
workspace), `conditional` or `safe`, with the reason and the source it comes from.

The region planner asks `CaptureSafety.judge(call)` for every kernel launch: an external
call by its symbol, a PrimFunc call by the packed and extern calls in its body (DispatchSortScan's
`T.call_packed("tvm.contrib.thrust.sort", ...)`), an operator by its name (`relax.to_vdevice`).
The reference executor asks `host_effect(symbol)` to model a call that does host work
(exec/launches.py): a graph replays it with the host state it had at capture.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .. import ir

TABLE_PATH = Path(__file__).with_name("capture_safety.toml")
VERDICTS = ("never", "host-state", "workspace", "conditional", "safe")
HOST_EFFECTS = ("counter", "data")
# What a function does to the rows of its tensors (passes/buckets.py): "elementwise", each
# element of its output from the same element of its inputs, so it keeps any dimension's rows
# apart, as a row-wise kernel does.
ROWS = ("elementwise",)


class TableError(ValueError):
    """The table file is malformed: a bug of cgraph's (it ships with the package)."""


@dataclass(frozen=True)
class Rule:
    pattern: str  # a glob over symbols, or an operator's name (is_op)
    verdict: str
    reason: str
    source: str
    is_op: bool = False
    host_effect: str | None = None  # never / host-state: what the executor models
    workspace_args: int | None = None  # workspace: the call's argument count with it
    workspace_last_uint8: bool = False  # workspace: a 1-D uint8 tensor last
    condition: str = ""  # conditional
    default: str = "capture"  # conditional: "capture" | "leave"
    rows: str | None = None  # ROWS: how it treats the rows of its tensors, where known

    def matches(self, symbol: str) -> bool:
        return symbol == self.pattern if self.is_op else fnmatch.fnmatchcase(symbol,
                                                                              self.pattern)

    @property
    def workspace_text(self) -> str:
        if self.workspace_args is not None:
            return f"{self.workspace_args} arguments, the workspace last"
        return "a 1-D uint8 tensor as its last argument"


@functools.cache
def load_table(path: str | None = None) -> tuple[Rule, ...]:
    """The rules, in the file's order (the first that matches decides)."""
    p = Path(path) if path is not None else TABLE_PATH
    with open(p, "rb") as fh:
        data = tomllib.load(fh)
    rules = []
    for i, r in enumerate(data.get("rule", [])):
        where = f"{p.name}: rule {i + 1}"
        if ("match" in r) == ("op" in r):
            raise TableError(f"{where}: give one of `match` and `op`")
        verdict = r.get("verdict")
        if verdict not in VERDICTS:
            raise TableError(f"{where}: verdict {verdict!r} is not one of {', '.join(VERDICTS)}")
        for key in ("reason", "source"):
            if not str(r.get(key, "")).strip():
                raise TableError(f"{where}: no {key}")
        rule = Rule(r.get("match", r.get("op")), verdict, r["reason"], r["source"],
                    is_op="op" in r, host_effect=r.get("host_effect"),
                    workspace_args=r.get("workspace_args"),
                    workspace_last_uint8=bool(r.get("workspace_last_uint8", False)),
                    condition=r.get("condition", ""), default=r.get("default", "capture"),
                    rows=r.get("rows"))
        if rule.rows is not None and rule.rows not in ROWS:
            raise TableError(f"{where}: rows must be one of {', '.join(ROWS)}")
        if verdict in ("never", "host-state") and rule.host_effect not in HOST_EFFECTS:
            raise TableError(f"{where}: host_effect must be one of {', '.join(HOST_EFFECTS)}")
        if verdict == "workspace" and rule.workspace_args is None and \
                not rule.workspace_last_uint8:
            raise TableError(f"{where}: a workspace rule says how to tell the workspace "
                             "(workspace_args or workspace_last_uint8)")
        if verdict == "conditional" and (not rule.condition or
                                         rule.default not in ("capture", "leave")):
            raise TableError(f"{where}: a conditional rule needs a condition and a default "
                             "(capture or leave)")
        rules.append(rule)
    return tuple(rules)


@functools.cache  # the executor asks for every packed call it runs
def rule_for(symbol: str, is_op: bool = False) -> Rule | None:
    for rule in load_table():
        if rule.is_op == is_op and rule.matches(symbol):
            return rule
    return None


def host_effect(symbol: str) -> str | None:
    """What an external function does on the host on every call, as the executor models it:
    "counter" (state that changes each call), "data" (a result the host computes from the
    data), or None (none, or not known)."""
    rule = rule_for(symbol)
    if rule is None or rule.verdict not in ("never", "host-state"):
        return None
    return rule.host_effect


@dataclass(frozen=True)
class Unsafe:
    """Why a call may not be captured: the external symbol and the rule (None: unknown under
    --strict-extern); `prim_func`: the PrimFunc whose body calls it, if any."""

    symbol: str
    rule: Rule | None
    prim_func: str | None = None
    arguments: int | None = None  # the call's argument count (workspace rules)

    @property
    def verdict(self) -> str:
        return "unknown" if self.rule is None else self.rule.verdict

    @property
    def why(self) -> str:
        r = self.rule
        if r is None:
            return "unknown external function, not captured under --strict-extern"
        if r.verdict == "never":
            return f"never captured: {r.reason}"
        if r.verdict == "host-state":
            return f"host state frozen into the graph: {r.reason}"
        if r.verdict == "workspace":
            has = f"; this call has {self.arguments}" if self.arguments is not None and \
                r.workspace_args is not None else ""
            return f"needs a workspace argument: {r.workspace_text}{has}: {r.reason}"
        return f"conditional, left outside by default: {r.condition}"

    def text(self) -> str:
        """`tvm.contrib.thrust.sort (needs a workspace argument: ...)`."""
        inside = f", called in PrimFunc '{self.prim_func}'" if self.prim_func else ""
        return f"{self.symbol}{inside} ({self.why})"


def judge_symbol(symbol: str, options, n_args: int | None = None,
                 last_is_workspace: bool = False, packed: bool = True) -> Unsafe | None:
    """The verdict on one call of an external `symbol`, or None when it may be captured.
    `n_args`: its argument count; `last_is_workspace`: its last argument is a 1-D uint8 tensor;
    `packed`: a packed call (False: a C function of a kernel's body, T.call_extern, which
    --strict-extern does not ask about: a device function such as `__shfl_sync`)."""
    if any(fnmatch.fnmatchcase(symbol, g) for g in options.trust_extern):
        return None
    rule = rule_for(symbol)
    if rule is None:
        return Unsafe(symbol, None) if options.strict_extern and packed else None
    if rule.verdict in ("never", "host-state"):
        return Unsafe(symbol, rule)
    if rule.verdict == "workspace":
        ok = n_args == rule.workspace_args if rule.workspace_args is not None else \
            last_is_workspace
        return None if ok else Unsafe(symbol, rule, arguments=n_args)
    if rule.verdict == "conditional" and rule.default == "leave":
        return Unsafe(symbol, rule)
    return None


# PrimFunc bodies are kept as text (ir.PrimFunc.body): the calls out of a kernel by name.
_PACKED_CALLS = ("call_packed", "tvm_call_packed", "call_cpacked", "tvm_call_cpacked",
                 "call_packed_lowered", "tvm_call_packed_lowered")
_EXTERN_CALLS = ("call_extern", "call_pure_extern")
_CALL_RE = re.compile(r"\bT\.(" + "|".join(_PACKED_CALLS + _EXTERN_CALLS) + r")\(")


@dataclass(frozen=True)
class BodyCall:
    kind: str  # the T.* function
    symbol: str
    arguments: tuple  # the arguments after the symbol, as text

    @property
    def packed(self) -> bool:
        return self.kind in _PACKED_CALLS


def body_calls(body: str) -> list[BodyCall]:
    """The packed and extern calls in a PrimFunc body's text, with their arguments."""
    out = []
    for m in _CALL_RE.finditer(body):
        args = _split_arguments(body, m.end())
        if args is None:
            continue
        kind = m.group(1)
        # T.call_extern(dtype, "name", ...): the name is the second argument
        at = 1 if kind in _EXTERN_CALLS else 0
        if len(args) <= at:
            continue
        name = args[at].strip()
        if len(name) < 2 or name[0] not in "\"'" or name[-1] != name[0]:
            continue
        out.append(BodyCall(kind, name[1:-1], tuple(a.strip() for a in args[at + 1:])))
    return out


def _split_arguments(text: str, start: int) -> list[str] | None:
    """The comma-separated arguments of a call whose `(` ends just before `start`."""
    depth, quote, args, begin = 0, None, [], start
    i = start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                last = text[begin:i]
                if last.strip() or args:
                    args.append(last)
                return args
            depth -= 1
        elif c == "," and depth == 0:
            args.append(text[begin:i])
            begin = i + 1
        i += 1
    return None


def _tir_workspace(arg: str) -> bool:
    """A T.tvm_stack_make_array of a 1-D uint8 buffer (as topi's thrust externs pass it)."""
    return "T.uint8(" in arg and arg.count("tvm_stack_make_shape(") == 1


def _relax_workspace(e) -> bool:
    s = getattr(e, "sinfo", None)
    return isinstance(s, ir.TensorSInfo) and s.dtype == "uint8" and s.shape is not None and \
        len(s.shape) == 1


class CaptureSafety:
    """The verdicts on a module's calls, PrimFunc bodies scanned once each."""

    def __init__(self, module: ir.Module, options):
        self.options = options
        self.prims = {f.name: f for f in module.functions if isinstance(f, ir.PrimFunc)}
        self._prim_verdicts: dict[str, Unsafe | None] = {}

    def judge(self, call: ir.Call) -> Unsafe | None:
        """None when `call`, a kernel launch, may be captured; else why not."""
        op = call.op
        if isinstance(op, ir.ExternFunc):
            return judge_symbol(op.name, self.options, len(call.args),
                                bool(call.args) and _relax_workspace(call.args[-1]))
        if isinstance(op, ir.GlobalVarRef):
            return self.judge_prim_func(op.name)
        if isinstance(op, ir.Op):
            if call.args and isinstance(call.args[0], ir.ExternFunc) and op.name in (
                    "relax.call_dps_packed", "relax.call_pure_packed",
                    "relax.call_inplace_packed"):
                rest = call.args[1:]
                return judge_symbol(call.args[0].name, self.options, len(rest),
                                    bool(rest) and _relax_workspace(rest[-1]))
            rule = rule_for(op.name, is_op=True)
            if rule is not None and rule.verdict in ("never", "host-state"):
                return Unsafe(op.name, rule)
        return None

    def judge_prim_func(self, name: str) -> Unsafe | None:
        if name not in self._prim_verdicts:
            verdict = None
            f = self.prims.get(name)
            if f is not None:
                for c in body_calls(f.body):
                    found = judge_symbol(c.symbol, self.options, len(c.arguments),
                                         bool(c.arguments) and _tir_workspace(c.arguments[-1]),
                                         packed=c.packed)
                    if found is not None:
                        verdict = Unsafe(found.symbol, found.rule, name, found.arguments)
                        break
            self._prim_verdicts[name] = verdict
        return self._prim_verdicts[name]


def prim_func_host_effect(f: ir.PrimFunc) -> tuple[str, str] | None:
    """(symbol, host effect) of the first call in a PrimFunc's body that has one."""
    for c in body_calls(f.body):
        work = host_effect(c.symbol) if c.packed else None
        if work is not None:
            return c.symbol, work
    return None
