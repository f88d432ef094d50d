"""The launch manifest of a kernels file (`cgraph kernels`): how a PrimFunc call launches its
device kernels. No TVM here: `cgraph run --kernels` reads it on any machine.

The manifest is a JSON object in a C comment at the top of the .cu file (docs/KERNELS.md):

    /* cgraph-launch-manifest
    {"format": 1, "prim_funcs": {"NAME": {...}}, ...}
    */

Per PrimFunc: its parameters (name, buffer or scalar), where each symbolic variable is read at
a call (a dimension of a buffer parameter, or a scalar parameter), the per-call workspaces its
host code allocates (intermediate buffers in global memory: name, dtype, bytes as an
expression), and its kernels in launch order, each with its parameters in the kernel's order
(a PrimFunc buffer parameter's pointer, a workspace's pointer, or a scalar expression), grid
and block dimensions and dynamic shared memory bytes as expressions of the symbolic variables.
The launch list may hold host loops (TVM's scheduled scans launch a kernel per round): a loop
has a variable, a start and an extent, and a body of launches and loops, in which the loop's
variable is read as the symbolic variables are.

Expressions are a small integer language: decimal literals, variable names, `+ - * // %`
(floor division and modulo, as TIR's FloorDiv and FloorMod), `<< >>` (TIR's shift_left and
shift_right), unary `-`, comparisons, `and`/`or`/`not`, and the functions min, max,
select(cond, a, b), truncdiv and truncmod.
"""

from __future__ import annotations

import ast
import ctypes
import json
import keyword
import re
from dataclasses import dataclass

from ..diagnostics import Loc, SourceError

TAG = "cgraph-launch-manifest"
FORMAT = 1
# Scalar kernel parameters as cuLaunchKernel reads them (the kernel's C parameter types).
SCALAR_CTYPES = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
                 "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16,
                 "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "bool": ctypes.c_bool,
                 "float32": ctypes.c_float, "float64": ctypes.c_double}
FUNCTIONS = ("min", "max", "select", "truncdiv", "truncmod")


class ManifestError(SourceError):
    """A kernels file whose manifest cannot be used: located in the .cu file."""


# ---- expressions ---------------------------------------------------------------------------

_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
           ast.Mod: lambda a, b: a % b, ast.LShift: lambda a, b: a << b,
           ast.RShift: lambda a, b: a >> b}
# TVM's host code shifts 64-bit integers (LLVM's shl/ashr): a count outside 0..63 has no value.
_SHIFT_BITS = 64
_CMPS = {ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b, ast.Gt: lambda a, b: a > b,
         ast.GtE: lambda a, b: a >= b, ast.Eq: lambda a, b: a == b,
         ast.NotEq: lambda a, b: a != b}


def _truncdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _call(name: str, args: list):
    if name == "min":
        return min(args)
    if name == "max":
        return max(args)
    if name == "select":
        return args[1] if args[0] else args[2]
    if name == "truncdiv":
        return _truncdiv(args[0], args[1])
    return args[0] - _truncdiv(args[0], args[1]) * args[1]  # truncmod


@dataclass(frozen=True)
class Expr:
    """A parsed manifest expression: `text` and the variables it reads."""

    text: str
    tree: ast.Expression
    names: frozenset

    @staticmethod
    def parse(text: str) -> "Expr":
        """Raises ValueError on anything outside the expression language."""
        if not isinstance(text, str):
            raise ValueError(f"an expression is a string, not {type(text).__name__}")
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            raise ValueError(f"cannot read expression {text!r}") from None
        names = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Call):
                if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS \
                        or node.keywords:
                    raise ValueError(f"expression {text!r}: only {', '.join(FUNCTIONS)} may "
                                     "be called")
                want = 3 if node.func.id == "select" else 2
                if len(node.args) != want:
                    raise ValueError(f"expression {text!r}: {node.func.id} takes {want} "
                                     "arguments")
            elif isinstance(node, ast.Constant):
                if type(node.value) is not int:
                    raise ValueError(f"expression {text!r}: only integer literals")
            elif not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Compare,
                                       ast.BoolOp, ast.Load, ast.USub, ast.Not, ast.And,
                                       ast.Or, *_BINOPS, *_CMPS)):
                raise ValueError(f"expression {text!r}: {type(node).__name__} is not part "
                                 "of the manifest's expression language")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                names.discard(node.func.id)
            if isinstance(node, ast.Compare) and len(node.ops) != 1:
                raise ValueError(f"expression {text!r}: chained comparison")
        return Expr(text, tree, frozenset(names))

    def evaluate(self, env: dict) -> int:
        return int(self._eval(self.tree.body, env))

    def evaluate_float(self, env: dict) -> float:
        """For a float kernel parameter: TVM passes a PrimFunc's float scalar parameter
        through, and `evaluate` would truncate it."""
        return float(self._eval(self.tree.body, env))

    def _eval(self, node, env):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return env[node.id]
        if isinstance(node, ast.BinOp):
            a, b = self._eval(node.left, env), self._eval(node.right, env)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and b == 0:
                raise ZeroDivisionError(f"{self.text}: division by zero")
            if isinstance(node.op, (ast.LShift, ast.RShift)) and not 0 <= b < _SHIFT_BITS:
                raise ValueError(f"{self.text}: a shift by {b} (TVM's host code shifts 64-bit "
                                 "integers: 0 to 63)")
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.UnaryOp):
            v = self._eval(node.operand, env)
            return -v if isinstance(node.op, ast.USub) else int(not v)
        if isinstance(node, ast.Compare):
            return int(_CMPS[type(node.ops[0])](self._eval(node.left, env),
                                                 self._eval(node.comparators[0], env)))
        if isinstance(node, ast.BoolOp):
            values = [self._eval(v, env) for v in node.values]
            return int(all(values) if isinstance(node.op, ast.And) else any(values))
        return _call(node.func.id, [self._eval(a, env) for a in node.args])


# ---- the manifest --------------------------------------------------------------------------

@dataclass(frozen=True)
class KernelParam:
    """One parameter of a device kernel, in the kernel's order: the pointer of PrimFunc
    parameter `param` (a buffer), the pointer of the call's workspace `workspace`, or the value
    of `expr` as `dtype`."""

    param: int | None
    expr: Expr | None
    dtype: str  # "handle" for a pointer
    workspace: int | None = None

    @property
    def is_pointer(self) -> bool:
        return self.param is not None or self.workspace is not None


@dataclass(frozen=True)
class Workspace:
    """An intermediate buffer in global memory that TVM's host code allocates for each call
    (TVMBackendAllocWorkspace) and passes to the PrimFunc's kernels: `nbytes` is an expression
    of the symbolic variables."""

    name: str
    dtype: str
    nbytes: Expr


@dataclass(frozen=True)
class Kernel:
    name: str
    params: tuple
    grid: tuple  # 3 Expr: x, y, z
    block: tuple  # 3 Expr
    dynamic_shared: Expr


@dataclass(frozen=True)
class HostLoop:
    """A loop of TVM's host code around launches: `var` takes start, start + 1, ...,
    start + extent - 1 (none when extent <= 0), and each value runs `body` (Kernel and HostLoop,
    in order) once. start and extent read the symbolic variables and the enclosing loops'
    variables; the body's expressions read `var` too."""

    var: str
    start: Expr
    extent: Expr
    body: tuple


@dataclass(frozen=True)
class PrimKernels:
    name: str
    params: tuple  # (name, "buffer" | "scalar") in the PrimFunc's order
    vars: dict  # symbolic variable -> (param index, dimension or None for a scalar param)
    kernels: tuple  # Kernel, every one the PrimFunc launches, in the host code's order
    workspaces: tuple = ()  # Workspace, allocated for each call
    # Blocks TVM's schedule left unbound, which `cgraph kernels` bound to GPU threads.
    bound_blocks: tuple = ()
    # The host code's launches and loops (Kernel and HostLoop) in order, where it has a loop;
    # None where it launches `kernels` once each, in order.
    steps: tuple | None = None
    # Packed functions TVM's host code calls (a library's: thrust's scan, cuBLAS's matmul),
    # which no kernels file holds: `cgraph run --kernels` runs cgraph's stand-in instead.
    host_calls: tuple = ()

    @property
    def launch_steps(self) -> tuple:
        return self.kernels if self.steps is None else self.steps

    @property
    def has_loops(self) -> bool:
        return self.steps is not None


@dataclass(frozen=True)
class Manifest:
    prim_funcs: dict  # name -> PrimKernels
    info: dict  # everything else of the JSON object (module, target, tvm version)
    loc: Loc

    def kernel_names(self) -> list[str]:
        return [k.name for p in self.prim_funcs.values() for k in p.kernels]


def to_json(prim_funcs: list, info: dict) -> dict:
    """The manifest as the JSON object written in the .cu file."""
    out = {"format": FORMAT, **info, "prim_funcs": {}}
    for p in prim_funcs:
        entry = {
            "params": [{"name": n, "kind": k} for n, k in p.params],
            "vars": {v: ({"param": i, "dim": d} if d is not None else {"param": i})
                     for v, (i, d) in p.vars.items()}}
        if p.workspaces:
            entry["workspaces"] = [{"name": w.name, "dtype": w.dtype, "bytes": w.nbytes.text}
                                   for w in p.workspaces]
        if p.bound_blocks:
            entry["bound_by_cgraph"] = list(p.bound_blocks)
        if p.host_calls:
            entry["host_calls"] = list(p.host_calls)
        entry["kernels"] = [_step_json(k) for k in p.launch_steps]
        out["prim_funcs"][p.name] = entry
    return out


def _step_json(step) -> dict:
    if isinstance(step, HostLoop):
        return {"loop": step.var, "start": step.start.text, "extent": step.extent.text,
                "body": [_step_json(s) for s in step.body]}
    return {"name": step.name,
            "params": [_param_json(kp) for kp in step.params],
            "grid": [e.text for e in step.grid], "block": [e.text for e in step.block],
            "dynamic_shared_bytes": step.dynamic_shared.text}


def _param_json(kp: KernelParam) -> dict:
    if kp.param is not None:
        return {"param": kp.param}
    if kp.workspace is not None:
        return {"workspace": kp.workspace}
    return {"expr": kp.expr.text, "dtype": kp.dtype}


def render_comment(obj: dict) -> str:
    # One line per PrimFunc: diffs of two kernels files stay readable.
    lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in obj.items() if k != "prim_funcs"]
    prims = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in obj.get("prim_funcs", {}).items()]
    lines.append(' "prim_funcs": {' + ("\n" + ",\n".join(prims) + "\n }" if prims else "}"))
    text = "{\n" + ",\n".join(lines) + "\n}"
    # "*/" would end the comment; inside a JSON string "\/" is the same "/".
    text = text.replace("*/", "*\\/")
    return f"/* {TAG}\n{text}\n*/\n"


_BLOCK_RE = re.compile(r"/\*\s*" + re.escape(TAG) + r"\s*\n(?P<json>.*?)\*/", re.DOTALL)


def read_manifest(source: str, name: str) -> Manifest | None:
    """The manifest of a kernels file, or None when it has none (hand-written kernels)."""
    m = _BLOCK_RE.search(source)
    if m is None:
        return None
    line = source.count("\n", 0, m.start()) + 1
    loc = Loc(line, m.start() - (source.rfind("\n", 0, m.start()) + 1) + 1)

    def fail(msg: str, where: Loc = loc):
        return ManifestError(f"launch manifest: {msg}", where, name, source)

    try:
        obj = json.loads(m.group("json"))
    except json.JSONDecodeError as e:
        body_line = source.count("\n", 0, m.start("json")) + 1
        raise fail(f"not JSON ({e.msg})", Loc(body_line + e.lineno - 1, e.colno)) from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise fail(f"expected a JSON object with \"format\": {FORMAT}")
    prims = obj.get("prim_funcs")
    if not isinstance(prims, dict):
        raise fail("\"prim_funcs\" must be an object")
    out = {}
    defined = set(_defined_kernels(source))
    for pname, p in prims.items():
        try:
            out[pname] = _prim(pname, p, defined)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            msg = e.args[0] if isinstance(e, ValueError) and e.args else \
                f"malformed entry ({type(e).__name__}: {e})"
            raise fail(f"PrimFunc '{pname}': {msg}",
                       _entry_loc(source, m.start("json"), m.end("json"), pname) or loc) \
                from None
    info = {k: v for k, v in obj.items() if k not in ("prim_funcs", "format")}
    return Manifest(out, info, loc)


def _entry_loc(source: str, start: int, end: int, pname: str) -> Loc | None:
    """Where PrimFunc `pname`'s entry starts in the manifest (render_comment writes one line
    per PrimFunc), or None."""
    found = re.compile(r"^\s*" + re.escape(json.dumps(pname)) + r"\s*:", re.MULTILINE).search(
        source, start, end)
    if found is None:
        return None
    at = found.start() + len(found.group(0)) - len(found.group(0).lstrip())
    return Loc(source.count("\n", 0, at) + 1, at - (source.rfind("\n", 0, at) + 1) + 1)


_KERNEL_DEF_RE = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*'
                            r'\([^)]*\)\s+)?([A-Za-z_]\w*)\s*\(')


def _defined_kernels(source: str) -> list[str]:
    return _KERNEL_DEF_RE.findall(source)


def _prim(pname: str, p: dict, defined: set) -> PrimKernels:
    params = tuple((str(q["name"]), q["kind"]) for q in p["params"])
    for n, kind in params:
        if kind not in ("buffer", "scalar"):
            raise ValueError(f"parameter '{n}' has kind {kind!r} (buffer or scalar)")
    variables = {}
    for v, where in p.get("vars", {}).items():
        i = int(where["param"])
        d = where.get("dim")
        if not 0 <= i < len(params):
            raise ValueError(f"variable '{v}' reads parameter {i}; there are {len(params)}")
        if (d is None) != (params[i][1] == "scalar"):
            raise ValueError(f"variable '{v}': a dimension of a buffer or a scalar parameter")
        variables[v] = (i, None if d is None else int(d))
    top = _Scope(variables, {}, _loop_vars(p["kernels"]))
    workspaces = []
    for w in p.get("workspaces", []):
        wname = str(w["name"])
        if not isinstance(w["dtype"], str):  # informative: "bytes" is the size
            raise ValueError(f"workspace '{wname}': dtype {w['dtype']!r}")
        workspaces.append(Workspace(wname, str(w["dtype"]), top.expr(w["bytes"])))
    kernels: list = []  # every kernel, in the host code's order
    steps = _steps(p["kernels"], top, params, workspaces, defined, kernels)
    has_loop = any(isinstance(st, HostLoop) for st in steps)
    host_calls = p.get("host_calls", [])
    if not isinstance(host_calls, list) or not all(isinstance(c, str) for c in host_calls):
        raise ValueError("\"host_calls\" is a list of function names")
    return PrimKernels(pname, params, variables, tuple(kernels), tuple(workspaces),
                       tuple(str(b) for b in p.get("bound_by_cgraph", [])),
                       steps if has_loop else None, tuple(host_calls))


_IDENT_RE = re.compile(r"^[A-Za-z_]\w*$")


def _loop_vars(entries) -> set:
    """The variables of every loop in a launch list, however deep (for error messages)."""
    out = set()
    for e in entries if isinstance(entries, list) else ():
        if isinstance(e, dict) and "loop" in e:
            out.add(str(e["loop"]))
            out |= _loop_vars(e.get("body"))
    return out


@dataclass(frozen=True)
class _Scope:
    """What an expression may read: the symbolic variables, the variables of the loops around
    it (`loops`), and for the error message, every loop variable of the PrimFunc."""

    variables: dict
    loops: dict  # loop variable -> its depth
    all_loop_vars: set

    def expr(self, text) -> Expr:
        e = Expr.parse(text)
        unknown = sorted(e.names - set(self.variables) - set(self.loops))
        stray = [v for v in unknown if v in self.all_loop_vars]
        if stray:
            raise ValueError(f"expression {text!r} reads '{stray[0]}', the variable of a loop "
                             "it is not inside")
        if unknown:
            raise ValueError(f"expression {text!r} reads {', '.join(unknown)}, not a symbolic "
                             "variable of the PrimFunc")
        return e


def _steps(entries: list, scope: _Scope, params: tuple, workspaces: list, defined: set,
           kernels: list) -> tuple:
    """A launch list (a PrimFunc's `kernels`, or a loop's `body`): kernels and loops in order;
    every kernel is appended to `kernels` too."""
    if not isinstance(entries, list):
        raise ValueError("a launch list is a JSON array")
    out = []
    for e in entries:
        if "loop" in e:
            var = e["loop"]
            if not isinstance(var, str) or not _IDENT_RE.match(var) or var in FUNCTIONS \
                    or keyword.iskeyword(var):
                raise ValueError(f"loop variable {var!r} is not a name")
            if var in scope.variables or var in scope.loops:
                raise ValueError(f"loop variable '{var}' is already "
                                 + ("a symbolic variable" if var in scope.variables else
                                    "the variable of an enclosing loop"))
            start, extent = scope.expr(e["start"]), scope.expr(e["extent"])
            inner = _Scope(scope.variables, {**scope.loops, var: len(scope.loops)},
                           scope.all_loop_vars)
            body = _steps(e["body"], inner, params, workspaces, defined, kernels)
            out.append(HostLoop(var, start, extent, body))
            continue
        k = _kernel(e, scope, params, workspaces, defined)
        kernels.append(k)
        out.append(k)
    return tuple(out)


def _kernel(k: dict, scope: _Scope, params: tuple, workspaces: list, defined: set) -> Kernel:
    kname = str(k["name"])
    if kname not in defined:
        raise ValueError(f"kernel '{kname}' is not defined in the file")
    kparams = []
    for q in k["params"]:
        if "param" in q:
            i = int(q["param"])
            if not 0 <= i < len(params) or params[i][1] != "buffer":
                raise ValueError(f"kernel '{kname}': parameter {i} is not a buffer")
            kparams.append(KernelParam(i, None, "handle"))
        elif "workspace" in q:
            j = int(q["workspace"])
            if not 0 <= j < len(workspaces):
                raise ValueError(f"kernel '{kname}': workspace {j}; the PrimFunc has "
                                 f"{len(workspaces)}")
            kparams.append(KernelParam(None, None, "handle", j))
        else:
            if q["dtype"] not in SCALAR_CTYPES:
                raise ValueError(f"kernel '{kname}': scalar type {q['dtype']!r}")
            kparams.append(KernelParam(None, scope.expr(q["expr"]), q["dtype"]))
    grid = tuple(scope.expr(e) for e in k["grid"])
    block = tuple(scope.expr(e) for e in k["block"])
    if len(grid) != 3 or len(block) != 3:
        raise ValueError(f"kernel '{kname}': grid and block have 3 dimensions each")
    return Kernel(kname, tuple(kparams), grid, block,
                  scope.expr(k.get("dynamic_shared_bytes", "0")))


# ---- a call's launches ---------------------------------------------------------------------

@dataclass
class PlannedLaunch:
    """One cuLaunchKernel of a manifest kernel: the packed parameters (ctypes objects, in the
    kernel's order), grid and block (x, y, z), dynamic shared memory bytes."""

    kernel: str
    args: list
    grid: tuple
    block: tuple
    shared_bytes: int


def bind_vars(prim: PrimKernels, tensors: list, scalars: list) -> dict:
    """The symbolic variables' values at a call: `tensors` are the call's tensor arguments
    (the PrimFunc's buffer parameters, in order), `scalars` its numbers (its scalar
    parameters, in order)."""
    slot = _slots(prim)
    env = {}
    for v, (i, d) in prim.vars.items():
        kind, k = slot[i]
        # A scalar parameter keeps its type: a float (a rope scale) reaches a float kernel
        # parameter whole.
        env[v] = int(tensors[k].shape[d]) if kind == "buffer" else \
            (scalars[k] if isinstance(scalars[k], float) else int(scalars[k]))
    return env


def _slots(prim: PrimKernels) -> list:
    """For each PrimFunc parameter: (kind, its index among the call's tensors or scalars)."""
    counts = {"buffer": 0, "scalar": 0}
    out = []
    for _, kind in prim.params:
        out.append((kind, counts[kind]))
        counts[kind] += 1
    return out


def _check_call(prim: PrimKernels, tensors: list, scalars: list) -> None:
    n_buf = sum(1 for _, k in prim.params if k == "buffer")
    n_sc = len(prim.params) - n_buf
    if len(tensors) != n_buf or len(scalars) < n_sc:
        raise ValueError(f"'{prim.name}' takes {n_buf} buffer(s) and {n_sc} scalar(s); the "
                         f"call gives {len(tensors)} and {len(scalars)}")


def workspace_bytes(prim: PrimKernels, tensors: list, scalars: list) -> list[int]:
    """The bytes of each workspace a call of `prim` needs, in the manifest's order."""
    _check_call(prim, tensors, scalars)
    env = bind_vars(prim, tensors, scalars)
    return [max(0, w.nbytes.evaluate(env)) for w in prim.workspaces]


def plan_prim_call(prim: PrimKernels, tensors: list, scalars: list,
                   workspaces: list = ()) -> list:
    """The launches of one call of `prim`, in order (tensors: DeviceTensor-like, `.ptr`;
    workspaces: the device pointers of the call's workspaces, allocated by the caller at the
    sizes `workspace_bytes` gives, alive until the last launch has run)."""
    _check_call(prim, tensors, scalars)
    if len(workspaces) != len(prim.workspaces):
        raise ValueError(f"'{prim.name}' needs {len(prim.workspaces)} workspace(s); "
                         f"{len(workspaces)} given")
    env = bind_vars(prim, tensors, scalars)
    out: list = []
    _plan_steps(prim.launch_steps, env, tensors, workspaces, _slots(prim), out)
    return out


def _plan_steps(steps: tuple, env: dict, tensors: list, workspaces: list, slot: list,
                out: list) -> None:
    for step in steps:
        if isinstance(step, HostLoop):
            start = step.start.evaluate(env)
            for value in range(start, start + step.extent.evaluate(env)):
                _plan_steps(step.body, {**env, step.var: value}, tensors, workspaces, slot, out)
            continue
        k = step
        args = []
        for kp in k.params:
            if kp.param is not None:
                args.append(ctypes.c_uint64(tensors[slot[kp.param][1]].ptr))
            elif kp.workspace is not None:
                args.append(ctypes.c_uint64(workspaces[kp.workspace]))
            elif kp.dtype.startswith("float"):
                args.append(SCALAR_CTYPES[kp.dtype](kp.expr.evaluate_float(env)))
            else:
                args.append(SCALAR_CTYPES[kp.dtype](kp.expr.evaluate(env)))
        # TVM's runtime launches a dimension of size 0 or less as 1 (LaunchParamConfig).
        grid = tuple(max(1, e.evaluate(env)) for e in k.grid)
        block = tuple(max(1, e.evaluate(env)) for e in k.block)
        out.append(PlannedLaunch(k.name, args, grid, block,
                                 max(0, k.dynamic_shared.evaluate(env))))
