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

Expressions are a small integer language: decimal literals, variable names, `+ - * // %`
(floor division and modulo, as TIR's FloorDiv and FloorMod), unary `-`, comparisons,
`and`/`or`/`not`, and the functions min, max, select(cond, a, b), truncdiv and truncmod.
"""

from __future__ import annotations

import ast
import ctypes
import json
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
           ast.Mod: lambda a, b: a % b}
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
class PrimKernels:
    name: str
    params: tuple  # (name, "buffer" | "scalar") in the PrimFunc's order
    vars: dict  # symbolic variable -> (param index, dimension or None for a scalar param)
    kernels: tuple  # Kernel, in launch order
    workspaces: tuple = ()  # Workspace, allocated for each call
    # Blocks TVM's schedule left unbound, which `cgraph kernels` bound to GPU threads.
    bound_blocks: tuple = ()


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
        entry["kernels"] = [{
            "name": k.name,
            "params": [_param_json(kp) for kp in k.params],
            "grid": [e.text for e in k.grid], "block": [e.text for e in k.block],
            "dynamic_shared_bytes": k.dynamic_shared.text} for k in p.kernels]
        out["prim_funcs"][p.name] = entry
    return out


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
            raise fail(f"PrimFunc '{pname}': {msg}") from None
    info = {k: v for k, v in obj.items() if k not in ("prim_funcs", "format")}
    return Manifest(out, info, loc)


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
    workspaces = []
    for w in p.get("workspaces", []):
        wname = str(w["name"])
        if not isinstance(w["dtype"], str):  # informative: "bytes" is the size
            raise ValueError(f"workspace '{wname}': dtype {w['dtype']!r}")
        workspaces.append(Workspace(wname, str(w["dtype"]), _expr(w["bytes"], variables)))
    kernels = []
    for k in p["kernels"]:
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
                kparams.append(KernelParam(None, _expr(q["expr"], variables), q["dtype"]))
        grid = tuple(_expr(e, variables) for e in k["grid"])
        block = tuple(_expr(e, variables) for e in k["block"])
        if len(grid) != 3 or len(block) != 3:
            raise ValueError(f"kernel '{kname}': grid and block have 3 dimensions each")
        kernels.append(Kernel(kname, tuple(kparams), grid, block,
                              _expr(k.get("dynamic_shared_bytes", "0"), variables)))
    return PrimKernels(pname, params, variables, tuple(kernels), tuple(workspaces),
                       tuple(str(b) for b in p.get("bound_by_cgraph", [])))


def _expr(text, variables: dict) -> Expr:
    e = Expr.parse(text)
    unknown = sorted(e.names - set(variables))
    if unknown:
        raise ValueError(f"expression {text!r} reads {', '.join(unknown)}, not a symbolic "
                         "variable of the PrimFunc")
    return e


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
    slot = _slots(prim)
    out = []
    for k in prim.kernels:
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
    return out
