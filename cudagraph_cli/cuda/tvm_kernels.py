"""`cgraph kernels`: a module's own kernels, as TVM's CUDA code generator writes them, with a
launch manifest (cuda/launch_manifest.py, docs/KERNELS.md).

TVM sees only the PrimFuncs: cgraph reads the module (located errors), prints a module of its
PrimFuncs alone (their text is kept verbatim, with the module-level lines they need) and gives
that to `tvm.script.from_source`. They are lowered as `relax.build` lowers them for a cuda
target: global symbols attached (relax's AttachGlobalSymbol), the target bound, TVM's default
TIR pipeline (which splits host from device code), the device finalization passes, then the
CUDA code generator; its text reaches us through the `tvm_callback_cuda_postproc` hook, and
`tvm_callback_cuda_compile` is answered with nothing, so no CUDA toolkit is needed.

The manifest is read from what TVM's runtime itself would run: each host function's
`T.call_ffi_kernel(kernel, params..., launch values...)` calls, in order. Their arguments are
expressions of the host's variables; each is traced back through the host's let-bindings to
the PrimFunc's own parameters (a buffer's data pointer) and symbolic variables (a buffer
dimension or a scalar parameter), by object identity: TVM's passes bind the original
variables.

tvm is imported lazily: everything else in cgraph works without it.
"""

from __future__ import annotations

import importlib
import keyword
import re
import threading
import time
from dataclasses import dataclass, field

from .. import ir
from ..diagnostics import INSTALL_TVM, Loc, SourceError
from ..text.printer import print_module
from .launch_manifest import FUNCTIONS, Expr, HostLoop, Kernel, KernelParam, PrimKernels, \
    Workspace, render_comment, to_json

TVM_MISSING = f"cgraph kernels needs apache-tvm ({INSTALL_TVM})"
DEFAULT_ARCH = "sm_80"
_ARCH_RE = re.compile(r"^sm_\d+[a-z]?$")

# NVRTC without a CUDA toolkit has no headers: TVM's code includes libcu++'s integer types and
# type traits when compiled by NVRTC; these definitions stand in for them (docs/KERNELS.md).
RTC_PRELUDE = """\
#ifdef __CUDACC_RTC__
#define CGRAPH_NO_LIBCUXX_HEADERS 1
namespace cuda { namespace std {
typedef signed char int8_t; typedef short int16_t; typedef int int32_t;
typedef long long int64_t; typedef unsigned char uint8_t; typedef unsigned short uint16_t;
typedef unsigned int uint32_t; typedef unsigned long long uint64_t;
template <class T, class U> struct is_same { static constexpr bool value = false; };
template <class T> struct is_same<T, T> { static constexpr bool value = true; };
template <class T, class U> constexpr bool is_same_v = is_same<T, U>::value;
template <class T> struct is_integral { static constexpr bool value =
  is_same<T, bool>::value || is_same<T, char>::value || is_same<T, signed char>::value ||
  is_same<T, unsigned char>::value || is_same<T, short>::value ||
  is_same<T, unsigned short>::value || is_same<T, int>::value ||
  is_same<T, unsigned int>::value || is_same<T, long>::value ||
  is_same<T, unsigned long>::value || is_same<T, long long>::value ||
  is_same<T, unsigned long long>::value; };
template <class T> struct is_floating_point { static constexpr bool value =
  is_same<T, float>::value || is_same<T, double>::value; };
template <class T> struct is_signed { static constexpr bool value = T(-1) < T(0); };
template <class T> struct is_unsigned { static constexpr bool value = T(0) < T(-1); };
template <bool B, class T = void> struct enable_if {};
template <class T> struct enable_if<true, T> { typedef T type; };
template <bool B, class T, class F> struct conditional { typedef T type; };
template <class T, class F> struct conditional<false, T, F> { typedef F type; };
} }
#endif
"""
_LIBCUXX_INCLUDE_RE = re.compile(r"^(\s*)#include <cuda/std/(cstdint|type_traits)>\s*$",
                                 re.MULTILINE)


class TvmUnavailable(RuntimeError):
    """apache-tvm cannot be imported."""


@dataclass
class KernelSet:
    """What `cgraph kernels` writes: the .cu text (manifest, prelude, TVM's CUDA C)."""

    source: str
    prim_funcs: list  # PrimKernels, in the module's order
    arch: str
    lower_seconds: float = 0.0
    notes: list = field(default_factory=list)

    @property
    def kernel_count(self) -> int:
        return sum(len(p.kernels) for p in self.prim_funcs)


def import_tvm():
    try:
        tvm = importlib.import_module("tvm")
        importlib.import_module("tvm.script")
    except ImportError as e:
        raise TvmUnavailable(TVM_MISSING) from e
    return tvm


def prim_only_text(mod: ir.Module) -> str:
    """The module with its PrimFuncs only: what TVM is given."""
    prims = [f for f in mod.functions if isinstance(f, ir.PrimFunc)]
    return print_module(ir.Module(mod.name, prims, mod.decorator_args, list(mod.globals_text),
                                  list(mod.leading_comments), mod.dialect))


def lower_module(mod: ir.Module, name: str, arch: str = DEFAULT_ARCH) -> KernelSet:
    """The kernels of every PrimFunc of `mod`, for `arch` (sm_XY). Errors are SourceErrors
    located at the PrimFunc TVM rejected."""
    if not _ARCH_RE.match(arch):
        raise ValueError(f"expected an architecture like sm_80, not {arch!r}")
    prims = [f for f in mod.functions if isinstance(f, ir.PrimFunc)]
    header = {"module": name, "target": {"kind": "cuda", "arch": arch}}
    if not prims:
        return KernelSet(_cu_file(header, [], ""), [], arch,
                         notes=["the module has no PrimFunc: no kernels"])
    tvm = import_tvm()
    header["tvm"] = str(getattr(tvm, "__version__", "unknown"))
    t0 = time.perf_counter()
    tmod = _read_with_tvm(tvm, mod, prims, name)
    tmod, bound = _bind_host_blocks(tvm, tmod, prims, arch, name)
    host, device, code = _lower(tvm, tmod, prims, arch, name)
    result = [_prim_kernels(tvm, tmod[p.name], host.get(p.name), device, p, name,
                            bound.get(p.name, ()))
              for p in prims]
    seconds = time.perf_counter() - t0
    notes = [f"PrimFunc '{p}': TVM's schedule leaves {len(b)} block(s) outside GPU threads "
             f"({', '.join(b)}), which TVM's host code would run on the CPU; cgraph bound "
             "their spatial loops to GPU threads, as dlight's Fallback rule does"
             for p, b in bound.items()]
    notes += [f"PrimFunc '{p.name}': TVM's host code calls {', '.join(p.host_calls)}, a "
              "library function no kernels file holds; `cgraph run --kernels` runs cgraph's "
              "stand-in for it" for p in result if p.host_calls]
    return KernelSet(_cu_file(header, result, code), result, arch, seconds, notes)


def _cu_file(header: dict, prims: list, code: str) -> str:
    parts = [render_comment(to_json(prims, header)),
             "// Written by `cgraph kernels`: the CUDA C below the prelude is TVM's code\n"
             "// generator's, unchanged but for its libcu++ includes (see the prelude).\n"]
    if code:
        parts.append(RTC_PRELUDE)
        parts.append(_LIBCUXX_INCLUDE_RE.sub(
            lambda m: f"{m.group(1)}// cgraph: <cuda/std/{m.group(2)}> is in the prelude", code))
    return "\n".join(parts)


def _read_with_tvm(tvm, mod: ir.Module, prims: list, name: str):
    text = prim_only_text(mod)
    try:
        return tvm.script.from_source(text)
    except Exception as e:  # noqa: BLE001 - TVM's parser raises many kinds
        raise _blame(str(e), text, prims, name, "TVM cannot read") from None


def _first_line(message: str) -> str:
    """A TVM error's message without its traceback."""
    return next((ln.strip() for ln in message.splitlines()
                 if ln.strip() and not ln.startswith(("Traceback", "  File"))), message)


def _blame(message: str, text: str, prims: list, name: str, what: str) -> SourceError:
    """A TVM error, located at the PrimFunc it is about (by the printed text's line, or by
    the PrimFunc's name in the message)."""
    first = _first_line(message)
    culprit = None
    m = re.search(r"(?:line|:)\s*(\d+)", message)
    if m and text:
        line = int(m.group(1))
        starts = [(text.split("\n").index(ln) + 1, p) for p in prims
                  for ln in text.split("\n") if re.match(rf"\s*def {re.escape(p.name)}\(", ln)]
        before = [p for start, p in sorted(starts, key=lambda s: s[0]) if start <= line]
        culprit = before[-1] if before else None
    if culprit is None:
        culprit = next((p for p in prims if re.search(rf"\b{re.escape(p.name)}\b", message)),
                       None)
    loc = culprit.loc if culprit is not None else Loc(0, 0)
    who = f"PrimFunc '{culprit.name}'" if culprit is not None else "the PrimFuncs"
    return SourceError(f"{what} {who}: {first}", loc, name)


# ---- blocks a schedule left on the host ------------------------------------------------------

def _bind_host_blocks(tvm, tmod, prims: list, arch: str, name: str):
    """(module, {PrimFunc: names of the blocks bound}).

    TVM 0.27's dlight LowBatchGEMV, given a symbolic batch it pads (the mlc models' prefill and
    batch_decode matmuls), binds its main reduction to GPU threads but leaves the padding, the
    second reduction stage, the final reduction and the epilogue as plain loops at the
    PrimFunc's root, and marks
    the PrimFunc scheduled, so dlight's Fallback skips it. TVM's lowering puts those loops in
    the host function, where they would read and write device memory from the CPU. cgraph binds
    each such block's spatial loops to blockIdx.x/threadIdx.x, as Fallback does (its reduction
    loops stay serial inside a thread); TVM's schedule primitives check that the binding is
    legal. A PrimFunc with no thread binding at all is not scheduled: that stays an error
    (`_host_walk`)."""
    from tvm.target import Target

    s_tir = importlib.import_module("tvm.s_tir")
    max_threads = int(Target({"kind": "cuda", "arch": arch}).attrs["max_num_threads"])
    bound = {}
    for p in prims:
        func = tmod[p.name]
        if not _has_thread_binding(tvm, func.body):
            continue
        try:
            sch = s_tir.Schedule(func)
            root = sch.get_sblock("root")
            blocks = sch.get_child_blocks(root)
        except Exception:  # noqa: BLE001 - no root block: nothing cgraph can bind
            continue
        names = []
        for blk in blocks:
            loops = sch.get_loops(blk)
            if any(sch.get(lp).thread_binding is not None for lp in loops) or \
                    _has_thread_binding(tvm, sch.get(blk).body):
                continue
            try:
                _bind_block(tvm, sch, blk, loops, max_threads)
            except Exception as e:  # noqa: BLE001 - a TVM schedule error: located at p
                first = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
                raise _error(p, name, f"block '{sch.get(blk).name_hint}' is outside GPU "
                             f"threads and cgraph cannot bind it ({first})") from None
            names.append(str(sch.get(blk).name_hint))
        if names:
            tmod.update_func(tmod.get_global_var(p.name), sch.mod["main"])
            bound[p.name] = tuple(names)
    return tmod, bound


def _has_thread_binding(tvm, stmt) -> bool:
    import tvm_ffi

    found = []

    def visit_for(node):
        if node.kind == tvm.tirx.ForKind.THREAD_BINDING:
            found.append(node)

    def visit_attr(node):
        if node.attr_key in ("thread_extent", "virtual_thread"):
            found.append(node)

    tvm_ffi.structural_walk(stmt, [(tvm.tirx.For, visit_for), (tvm.tirx.AttrStmt, visit_attr)],
                            order="post")
    return bool(found)


def _bind_block(tvm, sch, blk, loops, max_threads: int) -> None:
    """dlight's Fallback for one block: spatial loops first, fused, split by the target's
    thread limit, bound to blockIdx.x and threadIdx.x; reduction loops after them, serial. A
    loop that is not (only) a spatial or (only) a reduction iterator's stays serial, last."""
    realize = sch.get(loops[-1]).body if loops else None
    uses = []  # (loop variable, kind of an iterator whose binding reads it)
    if realize is not None:
        if type(realize).__name__ != "SBlockRealize":
            raise ValueError("its loops are not perfectly nested")
        for iv, value in zip(realize.block.iter_vars, realize.iter_values):
            kind = {0: "S", 2: "R"}.get(int(iv.iter_type), "O")  # DataPar, CommReduce
            uses.extend((v, kind) for v in tvm.tirx.analysis.undefined_vars(value))
    s_loops, r_loops, o_loops = [], [], []
    for lp in loops:
        var = sch.get(lp).loop_var
        k = {kind for v, kind in uses if v.same_as(var)} or {"O"}
        {"S": s_loops, "R": r_loops}.get(next(iter(k)) if len(k) == 1 else "O",
                                         o_loops).append(lp)
    if not s_loops:
        s_loops.append(sch.add_unit_loop(blk))
    sch.reorder(*s_loops, *r_loops, *o_loops)
    bx, tx = sch.split(sch.fuse(*s_loops), factors=[None, max_threads])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")


_HOOK_LOCK = threading.Lock()


def _lower(tvm, tmod, prims: list, arch: str, name: str):
    """(host functions by PrimFunc name, device kernels by name, CUDA C)."""
    from tvm.target import Target

    build = importlib.import_module("tvm.tirx.build")
    host_kind = "llvm" if tvm.runtime.enabled("llvm") else "c"
    target = Target({"kind": "cuda", "arch": arch}).with_host(Target(host_kind))
    try:
        m = tvm.relax.transform.AttachGlobalSymbol()(tmod)
        m = tvm.tirx.transform.BindTarget(target)(m)
        pipeline, _, finalize_device = tvm.tirx.get_tir_pipeline("default")
        m = pipeline(m)
        host_mod, device_mods = build.split_host_device_mods(m)
    except Exception as e:  # noqa: BLE001
        raise _lowering_error(tvm, tmod, prims, arch, name, e) from None
    host = {gv.name_hint: f for gv, f in host_mod.functions.items()}
    device = {}
    codes = []
    for dev_target, device_mod in device_mods.items():
        try:
            dev_mod = finalize_device()(device_mod)
            device.update({gv.name_hint: f for gv, f in dev_mod.functions.items()})
            codes.append(_cuda_source(tvm, build, dev_mod, dev_target))
        except Exception as e:  # noqa: BLE001 - TVM's code generator raises many kinds
            what = f"TVM cannot generate CUDA C (cuda {arch}) for"
            culprit = _failing_prim(tvm, build, device_mod, dev_target, finalize_device, prims)
            if culprit is not None:
                raise _error(culprit, name, f"{what} its kernel: {_first_line(str(e))}") \
                    from None
            raise _blame(str(e), "", prims, name, what) from None
    return host, device, "\n".join(codes)


def _failing_prim(tvm, build, dev_mod, dev_target, finalize_device, prims):
    """The PrimFunc whose kernel TVM's code generator rejects, for the error's location: each
    kernel generated alone (only once the module failed); its PrimFunc is the one whose name
    the kernel's starts with (`<prim>_kernel`, `<prim>_kernel_1`, ...), the longest."""
    for gv, func in dev_mod.functions.items():
        one = tvm.IRModule({gv: func}, attrs=dev_mod.attrs)
        try:
            _cuda_source(tvm, build, finalize_device()(one), dev_target)
        except Exception:  # noqa: BLE001 - the failure being looked for
            owners = [p for p in prims if gv.name_hint.startswith(p.name + "_kernel")]
            return max(owners, key=lambda p: len(p.name)) if owners else None
    return None


def _lowering_error(tvm, tmod, prims, arch, name, e) -> SourceError:
    """The whole module failed: find the first PrimFunc that fails alone, for the location."""
    from tvm.target import Target

    target = Target({"kind": "cuda", "arch": arch}).with_host(Target("c"))
    pipeline, _, _ = tvm.tirx.get_tir_pipeline("default")
    for p in prims:
        one = tvm.IRModule({tmod.get_global_var(p.name): tmod[p.name]})
        try:
            pipeline(tvm.tirx.transform.BindTarget(target)(
                tvm.relax.transform.AttachGlobalSymbol()(one)))
        except Exception as e1:  # noqa: BLE001
            return _blame(str(e1), "", [p], name, f"TVM cannot lower (cuda {arch})")
    return _blame(str(e), "", prims, name, "TVM cannot lower")


def _cuda_source(tvm, build, dev_mod, dev_target) -> str:
    """TVM's CUDA C for a device module. The hooks are TVM's process-wide globals: they are
    set for this call only and put back as they were."""
    import tvm_ffi

    got = []

    def postproc(code, target=None):
        got.append(str(code))
        return code

    def compile_nothing(code, target=None):
        return b""  # the runtime module is discarded: only the text is wanted

    names = ("tvm_callback_cuda_postproc", "tvm_callback_cuda_compile")
    with _HOOK_LOCK:
        saved = {n: tvm_ffi.get_global_func(n, allow_missing=True) for n in names}
        try:
            tvm_ffi.register_global_func(names[0], postproc, override=True)
            tvm_ffi.register_global_func(names[1], compile_nothing, override=True)
            build.codegen_build(dev_mod, dev_target)
        finally:
            for n, f in saved.items():
                if f is None:
                    tvm_ffi.remove_global_func(n)
                else:
                    tvm_ffi.register_global_func(n, f, override=True)
    return got[-1] if got else ""


# ---- the manifest from TVM's lowered host code ----------------------------------------------

def _prim_kernels(tvm, original, host_func, device: dict, prim: ir.PrimFunc,
                  name: str, bound_blocks: tuple = ()) -> PrimKernels:
    E = tvm.tirx.expr
    params = []
    pointer_of = []  # (data var, PrimFunc parameter index)
    symbol = []  # (var, name)
    where = {}  # name -> (param index, dim | None)
    for i, p in enumerate(original.params):
        buf = p if isinstance(p.ty, tvm.tirx.BufferType) else None
        if buf is None and isinstance(p.ty, tvm.ir.PointerType):
            # A `T.handle` no buffer matches (TVM's stub PrimFuncs): a pointer, which the
            # call passes as a tensor, of no shape.
            params.append((p.name, "buffer"))
            pointer_of.append((p, i))
            continue
        if buf is None:
            params.append((p.name, "scalar"))
            symbol.append((p, p.name))
            where.setdefault(p.name, (i, None))
            continue
        params.append((p.name, "buffer"))
        pointer_of.append((buf, i))
        for d, extent in enumerate(buf.ty.shape):
            if isinstance(extent, E.Var):
                symbol.append((extent, extent.name))
                where.setdefault(extent.name, (i, d))
    kernels: list = []  # every launch, in the host's order
    steps: tuple = ()
    workspaces = []
    loop_names: set = set()
    host_calls: list = []
    if host_func is not None:
        lets, host_steps, allocs, decls = _host_walk(tvm, host_func.body, prim, name,
                                                     host_calls)
        tracer = _Tracer(tvm, lets, pointer_of, symbol, prim, name)
        tracer.decls = decls
        for buf in allocs:
            workspaces.append(_workspace(tvm, buf, tracer, prim, name))
            tracer.workspace_of.append((buf, len(workspaces) - 1))
        steps = _launch_steps(tvm, host_steps, device, tracer, prim, name, set(where),
                              kernels, loop_names)
        used_ws = {kp.workspace for k in kernels for kp in k.params}
        if any(j not in used_ws for j in range(len(workspaces))):
            unused = [w.name for j, w in enumerate(workspaces) if j not in used_ws]
            raise _error(prim, name, f"TVM's host code allocates {', '.join(unused)} but "
                         "passes it to no kernel")
    used = set()
    for k in kernels:
        for e in (*k.grid, *k.block, k.dynamic_shared,
                  *(kp.expr for kp in k.params if kp.expr is not None)):
            used |= e.names
    for w in workspaces:
        used |= w.nbytes.names
    used |= _loop_bound_names(steps)
    used -= loop_names  # a loop's variable is the loop's, not read from the call
    has_loop = any(isinstance(st, HostLoop) for st in steps)
    return PrimKernels(prim.name, tuple(params), {v: where[v] for v in sorted(used)},
                       tuple(kernels), tuple(workspaces), tuple(bound_blocks),
                       steps if has_loop else None, tuple(host_calls))


def _loop_bound_names(steps) -> set:
    out = set()
    for st in steps:
        if isinstance(st, HostLoop):
            out |= st.start.names | st.extent.names | _loop_bound_names(st.body)
    return out


def _launch_steps(tvm, host_steps: list, device: dict, tracer, prim, name, taken: set,
                  kernels: list, loop_names: set) -> tuple:
    """The host's launches and loops as the manifest's Kernel and HostLoop. A loop's variable
    keeps TVM's name unless a symbolic variable or an enclosing loop has it (then `_2`, `_3`,
    ...): the manifest reads variables by name. A loop that launches nothing is left out."""
    out = []
    for kind, node, body in host_steps:
        if kind == "launch":
            k = _kernel(tvm, node, device, tracer, prim, name)
            kernels.append(k)
            out.append(k)
            continue
        base = re.sub(r"\W", "_", str(node.loop_var.name)) or "i"
        if not re.match(r"[A-Za-z_]", base):
            base = "i_" + base
        var, n = base, 1
        while var in taken or var in FUNCTIONS or keyword.iskeyword(var):
            n += 1
            var = f"{base}_{n}"
        start = Expr.parse(tracer.text(node.min))
        extent = Expr.parse(tracer.text(node.extent))
        tracer.loops.append((node.loop_var, var))
        inner = _launch_steps(tvm, body, device, tracer, prim, name, taken | {var}, kernels,
                              loop_names)
        tracer.loops.pop()
        if inner:
            loop_names.add(var)
            out.append(HostLoop(var, start, extent, inner))
    return tuple(out)


def _workspace(tvm, buf, tracer, prim, name) -> Workspace:
    """A buffer TVM's host code allocates: what TVM's runtime gets from
    TVMBackendAllocWorkspace for each call (LowerTVMBuiltin asks for the product of its shape
    times the element's bytes)."""
    scope = str(buf.scope())
    if scope != "global":
        raise _error(prim, name, f"TVM's host code allocates '{buf.name}' in {scope} memory")
    dt = tvm.DataType(str(buf.dtype))
    elem = (dt.bits * dt.lanes + 7) // 8
    dims = [tracer.text(d) for d in buf.shape] or ["1"]
    return Workspace(str(buf.name), str(buf.dtype),
                     Expr.parse(" * ".join([*dims, str(elem)])))


def _error(prim: ir.PrimFunc, name: str, msg: str) -> SourceError:
    return SourceError(f"PrimFunc '{prim.name}': {msg}", prim.loc, name)


# Packed calls of TVM's host code (tvm/tirx/builtin.h), and the one every host function makes
# (SplitHostDevice's device setup), which is not work.
_PACKED_CALLS = ("tirx.tvm_call_packed", "tirx.tvm_call_cpacked", "tirx.tvm_call_packed_lowered",
                 "tirx.tvm_call_cpacked_lowered")
_SET_DEVICE = "__tvm_set_device"


def _host_walk(tvm, body, prim, name, host_calls: list):
    """The host function's let-bindings ((var, value) pairs), its launches and loops in order
    (steps: ("launch", call, None) and ("loop", For, steps of its body)), the buffers it
    allocates (per-call workspaces, in order) and its views of buffers. The packed functions
    it calls (a library's) are appended to `host_calls`."""
    lets: list = []  # (var, value): TIR vars compare by `same_as`, not by `==`
    allocs: list = []
    decls: list = []  # (buffer, its data): TVM's views of a buffer's memory
    tirx = tvm.tirx
    host_loop_kinds = (tirx.ForKind.SERIAL, tirx.ForKind.UNROLLED)

    def walk(node, steps: list, inside: str | None):
        """`inside`: None at the top or in a host loop's body, else what launches and
        allocations cannot be under (a condition, a while loop, an unusual loop)."""
        if node is None:
            return
        if isinstance(node, (list, tuple)) or type(node).__name__ == "Array":
            for x in node:
                walk(x, steps, inside)
            return
        if isinstance(node, (tirx.Bind, tirx.LetStmt, tirx.expr.Let)):
            lets.append((node.var, node.value))
        if isinstance(node, tirx.AllocBuffer):
            if steps is not top:
                raise _error(prim, name, "TVM's host code allocates a buffer inside a loop; "
                             "cgraph's manifest allocates a call's workspaces once, before "
                             "its launches")
            if inside:
                raise _error(prim, name, f"TVM's host code allocates a buffer {inside}; "
                             "cgraph's manifest has no such host code")
            allocs.append(node.buffer)
        if isinstance(node, tirx.DeclBuffer):
            decls.append((node.buffer, node.data))
        if isinstance(node, tvm.ir.Op) or not hasattr(node, "__class__"):
            return
        if type(node).__name__ == "BufferStore":
            raise _error(prim, name, "TVM's lowering leaves its work on the host: its loops "
                         "are not bound to GPU threads (relax.build schedules such PrimFuncs "
                         "with dlight first; give cgraph the scheduled module)")
        if type(node).__name__ == "Call" and getattr(node.op, "name", "") == \
                "tirx.call_ffi_kernel":
            if inside:
                raise _error(prim, name, f"TVM's host code launches a kernel {inside}; "
                             "cgraph's manifest has no such host code")
            steps.append(("launch", node, None))
        if type(node).__name__ == "Call" and getattr(node.op, "name", "") in _PACKED_CALLS \
                and node.args:
            callee = str(getattr(node.args[0], "value", node.args[0]))
            if callee != _SET_DEVICE and callee not in host_calls:
                host_calls.append(callee)
        if isinstance(node, tirx.For):
            step = node.step if getattr(node, "step", None) is not None else None
            if node.kind not in host_loop_kinds:
                where = inside or f"inside a {str(node.kind).split('.')[-1].lower()} loop"
            elif step is not None and not (isinstance(step, tirx.expr.IntImm)
                                           and int(step.value) == 1):
                where = inside or f"inside a loop of step {step}"
            else:
                where = inside
            for bound in (node.min, node.extent):
                walk(bound, steps, inside)
            body: list = []
            walk(node.body, body, where)
            if body:
                steps.append(("loop", node, body))
            return
        if isinstance(node, tirx.While):
            walk(node.condition, steps, inside)
            walk(node.body, steps, inside or "inside a while loop")
            return
        if isinstance(node, tirx.IfThenElse):
            walk(node.condition, steps, inside)
            cond = f"under a condition (`if {node.condition}`)"
            walk(node.then_case, steps, inside or cond)
            walk(node.else_case, steps, inside or cond)
            return
        for attr in ("seq", "body", "then_case", "else_case", "value", "args"):
            child = getattr(node, attr, None) if _has_field(node, attr) else None
            if child is not None and not isinstance(child, (str, int, float)):
                walk(child, steps, inside)

    top: list = []
    walk(body, top, None)
    return lets, top, allocs, decls


def _has_field(node, attr: str) -> bool:
    try:
        return attr in type(node).__annotations__ or hasattr(type(node), attr)
    except AttributeError:
        return False


def _lookup(pairs: list, var, by_name: bool = False):
    """The value paired with `var`: the same object, else (TVM's passes make new variables
    with the old names: the host's buffers and shape variables) the same name."""
    for v, value in pairs:
        if v.same_as(var):
            return value
    if by_name:
        for v, value in pairs:
            if v.name == var.name:
                return value
    return None


class _Tracer:
    """Host expressions -> manifest expressions of the PrimFunc's symbolic variables."""

    def __init__(self, tvm, lets, pointer_of, symbol, prim, name):
        self.tvm, self.lets, self.prim, self.name = tvm, lets, prim, name
        self.pointer_of = pointer_of
        self.symbol = symbol
        self.workspace_of: list = []  # (a buffer the host allocates, workspace index)
        self.decls: list = []  # (buffer, data): the host's decl_buffers
        self.loops: list = []  # (loop variable, its manifest name): the loops around a launch

    def pointer(self, e) -> KernelParam:
        """The PrimFunc buffer parameter or workspace whose data pointer `e` is."""
        E = self.tvm.tirx.expr
        # A workspace first, by identity alone: the host's decl_buffers of an allocation
        # (`x_1 = T.decl_buffer(..., data=x.data)`) lead to it, and a name proves nothing.
        cur = e
        for _ in range(100):
            if type(cur).__name__ == "Call" and getattr(cur.op, "name", "") == \
                    "tirx.buffer_data":
                cur = cur.args[0]
            if not isinstance(cur, E.Var):
                break
            j = _lookup(self.workspace_of, cur)
            if j is not None:
                return KernelParam(None, None, "handle", j)
            nxt = _lookup(self.decls, cur)
            cur = nxt if nxt is not None else _lookup(self.lets, cur)
            if cur is None:
                break
        for _ in range(100):
            if type(e).__name__ == "Call" and getattr(e.op, "name", "") == "tirx.buffer_data":
                e = e.args[0]
            if not isinstance(e, E.Var):
                break
            i = _lookup(self.pointer_of, e, by_name=True)
            if i is not None:
                return KernelParam(i, None, "handle")
            bound = _lookup(self.lets, e)
            if bound is None:
                break
            e = bound
        raise _error(self.prim, self.name, f"a kernel's pointer argument `{e}` is neither the "
                     "data of a buffer parameter nor a buffer TVM's host code allocates")

    def text(self, e, depth: int = 0) -> str:
        if depth > 200:
            raise _error(self.prim, self.name, "a launch expression nests too deeply")
        E = self.tvm.tirx.expr
        t = type(e)
        if t is E.IntImm:
            return str(int(e.value))
        if t is E.Var:
            # A loop's variable first, by identity: TVM's loops may reuse a name.
            for v, loop_name in reversed(self.loops):
                if v.same_as(e):
                    return loop_name
            nm = _lookup(self.symbol, e, by_name=True)
            if nm is not None:
                return nm
            bound = _lookup(self.lets, e)
            if bound is not None:
                return self.text(bound, depth + 1)
            raise _error(self.prim, self.name, f"launch value `{e.name}` is neither a symbolic "
                         "variable of the PrimFunc nor computed from them")
        if t is E.Cast:
            # TVM 0.27's Cast has no `dtype`: its type is `ty` (a PrimType).
            dtype = str(e.ty.dtype)
            if not dtype.startswith(("int", "uint")):
                raise _error(self.prim, self.name, f"launch value cast to {dtype}")
            return self.text(e.value, depth + 1)
        infix = {E.Add: "+", E.Sub: "-", E.Mul: "*", E.FloorDiv: "//", E.FloorMod: "%",
                 E.LT: "<", E.LE: "<=", E.GT: ">", E.GE: ">=", E.EQ: "==", E.NE: "!=",
                 E.And: "and", E.Or: "or", E.LShift: "<<", E.RShift: ">>"}
        if t in infix:
            return f"({self.text(e.a, depth + 1)} {infix[t]} {self.text(e.b, depth + 1)})"
        calls = {E.Min: "min", E.Max: "max", E.Div: "truncdiv", E.Mod: "truncmod"}
        if t in calls:
            return f"{calls[t]}({self.text(e.a, depth + 1)}, {self.text(e.b, depth + 1)})"
        if t is E.Select:
            return (f"select({self.text(e.condition, depth + 1)}, "
                    f"{self.text(e.true_value, depth + 1)}, {self.text(e.false_value, depth + 1)})")
        if t is E.Not:
            return f"(not {self.text(e.a, depth + 1)})"
        if _is_byte_offset(e):
            # A buffer with a symbolic elem_offset (`offset_factor=1`, nn.llm's paged KV
            # cache) reads it from its DLTensor's byte_offset. cgraph passes each tensor's
            # pointer with its offset already added (a view's pointer is its storage's plus
            # the offset), so the offset left for the kernel to add is 0.
            return "0"
        raise _error(self.prim, self.name, f"launch value `{e}` ({t.__name__}) is outside "
                     "cgraph's manifest expressions")


# DLTensor's fields as TVM's host code reads them (`tvm_struct_get(handle, 0, field)`):
# kArrByteOffset is 8 (tvm/tirx/builtin.h; TVM's own argument checks name it: `assert 0 ==
# tvm_struct_get(x_handle, 0, 8, "uint64"), "Invalid x.byte_offset"`).
_DLTENSOR_BYTE_OFFSET = 8


def _is_byte_offset(e) -> bool:
    return type(e).__name__ == "Call" and getattr(e.op, "name", "") == "tirx.tvm_struct_get" \
        and len(e.args) == 3 and int(getattr(e.args[2], "value", -1)) == _DLTENSOR_BYTE_OFFSET


_THREAD_TAG_RE = re.compile(r"^(blockIdx|threadIdx)\.([xyz])$")
DYN_SHARED_TAG = "tirx.use_dyn_shared_memory"


def _kernel(tvm, call, device: dict, tracer: _Tracer, prim, name) -> Kernel:
    kname = str(call.args[0].value)
    dev = device.get(kname)
    if dev is None:
        raise _error(prim, name, f"TVM's host code launches '{kname}', which it did not "
                     "generate")
    n = len(dev.params)
    values = list(call.args[1:])
    kparams = []
    for p, v in zip(dev.params, values[:n]):
        ty = str(p.ty)
        if not isinstance(p.ty, tvm.ir.PrimType) or "handle" in ty:
            kparams.append(tracer.pointer(v))
        else:
            kparams.append(KernelParam(None, Expr.parse(tracer.text(v)), str(p.ty.dtype)))
    tags = [str(t) for t in call.attrs.launch_params]
    extents = values[n:]
    grid, block = ["1"] * 3, ["1"] * 3
    shared = "0"
    k = 0
    for tag in tags:
        m = _THREAD_TAG_RE.match(tag)
        if m:
            (grid if m.group(1) == "blockIdx" else block)["xyz".index(m.group(2))] = \
                tracer.text(extents[k])
            k += 1
        elif tag == DYN_SHARED_TAG:
            shared = tracer.text(extents[k])
            k += 1
        else:
            raise _error(prim, name, f"kernel '{kname}' uses launch option '{tag}', which "
                         "cgraph's launcher does not implement")
    return Kernel(kname, tuple(kparams), tuple(Expr.parse(g) for g in grid),
                  tuple(Expr.parse(b) for b in block), Expr.parse(shared))
