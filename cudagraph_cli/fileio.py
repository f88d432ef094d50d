"""Reading inputs and writing outputs the way the CLI promises (docs/CLI.md).

Inputs: a path or `-` (stdin), UTF-8, at most MAX_INPUT_BYTES; a FIFO, a device or stdin is
read to its end. Every failure is a SourceError naming the file (and the line and column of
a bad byte).

Outputs: a path or `-` (stdout), always UTF-8. Where the path names a regular file (or
nothing yet), the output is written atomically: a temporary file beside the real target
(through symlinks), then a rename; the old file's mode, and its owner where the process may
set it, carry over. On any error nothing is written and an existing file is untouched.
Anything else that exists -- a character or block device, a FIFO, /dev/stdout, /dev/fd/N --
is opened and written in place: renaming over it would replace, say, /dev/null with a
regular file. An output never replaces an input.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys

from .diagnostics import Loc, SourceError

# A module is text a person or a compiler wrote; past this, reading it (and the parse after)
# would only end in a MemoryError. The tests lower it.
MAX_INPUT_BYTES = 1 << 30

CHUNK_BYTES = 1 << 20

# Where a path is one of this process's open file descriptors under another name.
FD_DIR_RE = re.compile(r"^/proc/(?:self|thread-self|\d+)(?:/task/\d+)?/fd$|^/dev/fd$")


def describe_size(n: int) -> str:
    if n >= 1 << 30 and n % (1 << 30) == 0:
        return f"{n >> 30} GiB"
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    return f"{n} bytes"


def too_large(name: str) -> SourceError:
    return SourceError(f"input larger than {describe_size(MAX_INPUT_BYTES)}; not a module "
                       "cgraph can read", filename=name)


def read_limited(fh, name: str) -> bytes:
    """All of `fh`, in chunks, refused as soon as it passes MAX_INPUT_BYTES."""
    chunks, total = [], 0
    while True:
        chunk = fh.read(min(CHUNK_BYTES, MAX_INPUT_BYTES + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_INPUT_BYTES:
            raise too_large(name)


def read_text(path: str, keep_line_ends: bool = False) -> tuple[str, str]:
    """(text, display name) of an input file, or of stdin for `-`. `keep_line_ends`: the
    text as read (`cgraph diff --format unified`, whose left side is the input's own bytes);
    else CRLF made LF."""
    if path == "-":
        name = "<stdin>"
        try:
            data = read_limited(sys.stdin.buffer, name)
        except OSError as e:
            raise SourceError(f"cannot read: {e.strerror or e}", filename=name) from None
    else:
        name = path
        if os.path.isdir(path):
            raise SourceError("is a directory, not a module file", filename=name)
        try:
            with open(path, "rb") as fh:
                st = os.fstat(fh.fileno())
                # A regular file says its size: refuse before reading a byte.
                if stat.S_ISREG(st.st_mode) and st.st_size > MAX_INPUT_BYTES:
                    raise too_large(name)
                data = read_limited(fh, name)
        except FileNotFoundError:
            raise SourceError("no such file", filename=name) from None
        except PermissionError:
            raise SourceError("permission denied", filename=name) from None
        except OSError as e:
            if e.errno == errno.ENXIO and is_socket(path):
                raise SourceError("is a socket; cgraph reads files, FIFOs and devices",
                                  filename=name) from None
            raise SourceError(f"cannot read: {e.strerror or e}", filename=name) from None
    # A byte-order mark is left to the reader (parser.parse_module), which drops one: dropping
    # it here too would let a file with two pass, which Python and TVM refuse.
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        line_start = data.rfind(b"\n", 0, e.start) + 1
        # Columns count characters, as everywhere else: decode the line up to the bad byte.
        col = len(data[line_start:e.start].decode("utf-8", "replace")) + 1
        shown = data[: e.start].decode("utf-8", "replace") + "\ufffd"
        raise SourceError(f"not UTF-8 text (byte 0x{data[e.start]:02x})", Loc(line, col),
                          name, shown) from None
    return (text if keep_line_ends else text.replace("\r\n", "\n")), name


def is_socket(path: str) -> bool:
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def own_fd(path: str) -> int | None:
    """N when `path` reaches /proc/self/fd/N or /dev/fd/N (/dev/stdout, `>(cmd)`), else None.

    Such a path is a descriptor this process already holds; writing to it, rather than
    reopening it, keeps the shell's append mode and offset (`-o /dev/stdout >> log`).
    """
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        parent = os.path.realpath(os.path.dirname(p))
        base = os.path.basename(p)
        if FD_DIR_RE.match(parent) and base.isdigit():
            if parent.startswith("/proc/") and parent.split("/")[2] not in (
                    "self", "thread-self", str(os.getpid())):
                return None
            return int(base)
        try:
            target = os.readlink(p)
        except OSError:
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), target))
    return None


def cannot_write(path: str, e: OSError) -> SourceError:
    return SourceError(f"cannot write: {e.strerror or e}", filename=path)


def check_output(path: str, inputs: tuple[str, ...] = ()) -> None:
    """Raise now the SourceError that write_text(path, ...) would raise for what `path` is,
    before a command reads its inputs or runs anything: `rewrite --verify -o missing/x` used
    to verify for minutes and then say the directory does not exist. What only the write
    itself can find (a full disk, a FIFO with no reader) is still found then."""
    output_kind(path, inputs)


def output_kind(path: str, inputs: tuple[str, ...] = ()):
    """How write_text writes `path`: ("stdout", None), ("fd", N), ("atomic", old stat or
    None) or ("in place", None); a SourceError for a path it refuses (the same words up
    front, from check_output, as at the write)."""
    if path == "-":
        return "stdout", None
    for inp in inputs:
        if inp != "-" and os.path.exists(path) and same_file(inp, path):
            raise SourceError("refusing to overwrite an input file (write elsewhere, then "
                              "move it)", filename=path)
    fd = own_fd(path)
    if fd is not None:
        return "fd", fd
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None  # a new file, or a dangling symlink: the file it names is created
    except OSError as e:
        raise cannot_write(path, e) from None
    if st is None or stat.S_ISREG(st.st_mode):
        directory = os.path.dirname(os.path.realpath(path))
        if not os.path.isdir(directory):
            raise SourceError("cannot write: the directory does not exist", filename=path)
        # The temporary file is made in that directory: it must take a new file. (access()
        # answers for the real user, as the kernel will when mkstemp runs; a read-only
        # filesystem answers EROFS.)
        if not os.access(directory, os.W_OK | os.X_OK):
            err = errno.EROFS if is_read_only(directory) else errno.EACCES
            raise cannot_write(path, OSError(err, os.strerror(err))) from None
        return "atomic", st
    if stat.S_ISDIR(st.st_mode):
        raise SourceError("is a directory; cannot write the output there", filename=path)
    if stat.S_ISSOCK(st.st_mode):
        raise SourceError("is a socket; cgraph writes files, FIFOs and devices",
                          filename=path)
    return "in place", None


def is_read_only(directory: str) -> bool:
    try:
        return bool(os.statvfs(directory).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def write_text(path: str, text: str, inputs: tuple[str, ...] = ()) -> None:
    """Write `text` (as UTF-8) to `path`, or to stdout for `-`: see the module docstring."""
    data = text.encode("utf-8")
    kind, detail = output_kind(path, inputs)
    if kind == "stdout":
        write_stdout(data)
    elif kind == "fd":
        write_to_fd(path, detail, data)
    elif kind == "atomic":
        write_atomically(path, data, detail)
    else:
        write_in_place(path, data)


def write_stdout(data: bytes) -> None:
    """Module text is UTF-8 whatever the locale says (`> file` equals `-o file`)."""
    out = sys.stdout
    out.flush()
    try:
        if hasattr(out, "buffer"):
            out.buffer.write(data)
            out.buffer.flush()
        else:
            out.write(data.decode("utf-8"))
            out.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        raise cannot_write("<stdout>", e) from None


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def write_to_fd(path: str, fd: int, data: bytes) -> None:
    if fd in (1, 2):
        (sys.stdout if fd == 1 else sys.stderr).flush()
    try:
        write_all(fd, data)
    except BrokenPipeError:
        raise
    except OSError as e:
        raise cannot_write(path, e) from None


def write_in_place(path: str, data: bytes) -> None:
    """A device or FIFO: opened and written, never created, truncated, renamed or unlinked."""
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    except OSError as e:
        raise cannot_write(path, e) from None
    try:
        write_to_fd(path, fd, data)
    finally:
        os.close(fd)


def write_atomically(path: str, data: bytes, old: os.stat_result | None) -> None:
    """A temporary file beside the target, renamed onto it: `path` itself if a symlink stays."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        raise SourceError("cannot write: the directory does not exist", filename=path)
    import tempfile  # here: it imports shutil and random, which every start would pay

    try:
        fd, tmp = tempfile.mkstemp(prefix=".cgraph-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise cannot_write(path, e) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        if old is not None:
            try:
                # Before chmod: chown clears the set-user-ID and set-group-ID bits.
                os.chown(tmp, old.st_uid, old.st_gid)
            except OSError:
                pass  # not root: the file becomes ours, as any editor's save would make it
            try:
                os.chmod(tmp, old.st_mode & 0o7777)
            except OSError:
                pass
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise cannot_write(path, e) from None
