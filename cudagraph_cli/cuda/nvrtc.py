"""CUDA C to a cubin with NVRTC (cuda.bindings.nvrtc), cached on disk.

A cubin, not PTX: the NVRTC library (from the `nvidia-cuda-nvrtc` wheel or a CUDA toolkit) may
be newer than the machine's driver, and a driver rejects PTX from a newer toolkit, while it
loads machine code for its device. NVRTC needs no GPU, so kernels compile (and are tested) on
any machine that has the library.

NVRTC has no headers of its own beyond its built-in ones, and TVM's code for float16 and
bfloat16 includes `cuda_fp16.h` / `cuda_bf16.h`: for such a source the CUDA headers' folder is
added to the include path, as cuda-python's pathfinder finds it (the `nvidia-cuda-runtime`
wheel, $CUDA_HOME / $CUDA_PATH, /usr/local/cuda); without it the source cannot be compiled
here (NvrtcUnavailable, which says what to install).

The cache holds one file per (source, architecture, options, NVRTC version), named by their
SHA-256, under $CGRAPH_CACHE_DIR, else $XDG_CACHE_HOME/cgraph/kernels, else
~/.cache/cgraph/kernels; files are written atomically. A cache that cannot be written is
skipped, not an error.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from importlib import resources
from pathlib import Path

from ..diagnostics import Loc, SourceError

OPTIONS = ("--fmad=false", "-std=c++17")


class NvrtcUnavailable(RuntimeError):
    """cuda-python or the NVRTC library is missing: nothing can be compiled here."""


class CompileError(SourceError):
    """NVRTC rejected a source: located at its first error."""


def library_source() -> str:
    """The text of cgraph's kernel library (cuda/kernels.cu)."""
    return resources.files(__package__).joinpath("kernels.cu").read_text(encoding="utf-8")


def _nvrtc():
    try:
        from cuda.bindings import nvrtc
    except ImportError as e:
        raise NvrtcUnavailable("cuda-python is not installed (pip install cuda-python)") from e
    try:
        err, major, minor = nvrtc.nvrtcVersion()
    except Exception as e:  # the library itself is not found (cuda.pathfinder raises)
        raise NvrtcUnavailable(f"the NVRTC library is not found ({str(e).splitlines()[0]}); "
                               "pip install nvidia-cuda-nvrtc, or install a CUDA toolkit") from e
    if int(err):
        raise NvrtcUnavailable(f"NVRTC does not answer ({err})")
    return nvrtc, (int(major), int(minor))


def version() -> tuple[int, int]:
    return _nvrtc()[1]


def supported_archs() -> list[str]:
    """The `sm_XY` targets this NVRTC compiles for."""
    nvrtc, _ = _nvrtc()
    err, n = nvrtc.nvrtcGetNumSupportedArchs()
    err, archs = nvrtc.nvrtcGetSupportedArchs()
    return [f"sm_{a}" for a in archs]


def cache_dir() -> Path:
    if os.environ.get("CGRAPH_CACHE_DIR"):
        return Path(os.environ["CGRAPH_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cgraph" / "kernels"


# The CUDA toolkit headers TVM's CUDA code generator includes (float16, bfloat16, fp8 types).
_TOOLKIT_INCLUDE_RE = re.compile(r"^\s*#\s*include\s*<(cuda_fp16|cuda_bf16|cuda_fp8|cuda_fp6|"
                                 r"cuda_fp4)\.h>", re.MULTILINE)


def toolkit_headers_needed(source: str) -> list[str]:
    """The CUDA toolkit headers `source` includes that NVRTC does not have built in."""
    return sorted({m.group(1) + ".h" for m in _TOOLKIT_INCLUDE_RE.finditer(source)})


def cuda_include_dir() -> str | None:
    """The folder of the CUDA headers (cuda_fp16.h ...), or None."""
    try:
        from cuda import pathfinder
    except ImportError:
        return None
    try:
        found = pathfinder.locate_nvidia_header_directory("cudart")
    except Exception:  # noqa: BLE001 - pathfinder raises when nothing is found
        return None
    path = getattr(found, "abs_path", found)
    if path and os.path.isfile(os.path.join(path, "cuda_fp16.h")):
        return str(path)
    return None


def compile_cubin(source: str, arch: str, name: str = "kernels.cu",
                  options: tuple = OPTIONS, use_cache: bool = True) -> tuple[bytes, bool]:
    """(cubin, whether it came from the cache). `arch` is `sm_XY`."""
    nvrtc, ver = _nvrtc()
    headers = toolkit_headers_needed(source)
    if headers:
        include = cuda_include_dir()
        if include is None:
            raise NvrtcUnavailable(
                f"{name} includes {', '.join(headers)}, which NVRTC does not have built in: "
                "install the CUDA headers (pip install nvidia-cuda-runtime, or a CUDA toolkit "
                "with CUDA_HOME set)")
        # Part of the options, hence of the cache key: other headers, another cubin.
        options = (*options, f"--include-path={include}")
    key = hashlib.sha256("\0".join([source, arch, " ".join(options),
                                    f"nvrtc {ver[0]}.{ver[1]}"]).encode()).hexdigest()
    path = cache_dir() / f"{key}.cubin"
    if use_cache:
        try:
            data = path.read_bytes()
            if data.startswith(b"\x7fELF"):
                return data, True
        except OSError:
            pass
    cubin = _compile(nvrtc, source, arch, name, options)
    if use_cache:
        _store(path, cubin)
    return cubin, False


def _compile(nvrtc, source: str, arch: str, name: str, options: tuple) -> bytes:
    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _check(nvrtc, err, "nvrtcCreateProgram")
    try:
        opts = [f"--gpu-architecture={arch}".encode()] + [o.encode() for o in options]
        (result,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if int(result):
            err, size = nvrtc.nvrtcGetProgramLogSize(prog)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, log)
            raise _located(log.decode(errors="replace").rstrip("\0 \n"), name, source, arch)
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _check(nvrtc, err, "nvrtcGetCUBINSize")
        cubin = b" " * size
        (err,) = nvrtc.nvrtcGetCUBIN(prog, cubin)
        _check(nvrtc, err, "nvrtcGetCUBIN")
        return cubin
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _check(nvrtc, err, what: str) -> None:
    if int(err):
        raise NvrtcUnavailable(f"{what} failed: {err}")


# NVRTC's messages: `kernels.cu(12): error: identifier "x" is undefined`
_LOG_RE = re.compile(r"^(?P<file>[^\n(]*)\((?P<line>\d+)\): (?P<kind>error|catastrophic error)"
                     r": (?P<msg>.*)$", re.MULTILINE)


def _located(log: str, name: str, source: str, arch: str) -> CompileError:
    m = _LOG_RE.search(log)
    if m is None:
        first = next((ln for ln in log.splitlines() if ln.strip()), "compilation failed")
        return CompileError(f"NVRTC ({arch}): {first.strip()}", filename=name, source=source)
    line = int(m.group("line"))
    lines = source.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    col = len(text) - len(text.lstrip()) + 1
    # NVRTC marks the column with a caret line under the echoed source line: use it.
    after = log[m.end():].split("\n")
    if len(after) >= 3 and after[2].strip() == "^":
        col = after[2].index("^") + 1 - _indent_shift(after[1], text)
    return CompileError(f"NVRTC ({arch}): {m.group('msg').strip()}", Loc(line, max(col, 1)),
                        name, source)


def _indent_shift(echoed: str, original: str) -> int:
    """NVRTC echoes the line with its leading blanks kept, after two spaces."""
    return len(echoed) - len(echoed.lstrip(" ")) - (len(original) - len(original.lstrip(" ")))


def _store(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".cubin")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError:
        pass
