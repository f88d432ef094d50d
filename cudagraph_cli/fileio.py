"""Reading inputs and writing outputs the way the CLI promises.

Inputs: a path or `-` (stdin), UTF-8; every failure is a SourceError naming the file (and the
line and column of a bad byte). Outputs: a path or `-` (stdout), written atomically (a
temporary file in the same directory, then a rename), so that on any error nothing is
written and an existing file is untouched. An output never replaces an input.
"""

from __future__ import annotations

import os
import sys
import tempfile

from .diagnostics import Loc, SourceError


def read_text(path: str) -> tuple[str, str]:
    """(text, display name) of an input file, or of stdin for `-`."""
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        name = path
        if os.path.isdir(path):
            raise SourceError("is a directory, not a module file", filename=name)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise SourceError("no such file", filename=name) from None
        except PermissionError:
            raise SourceError("permission denied", filename=name) from None
        except OSError as e:
            raise SourceError(f"cannot read: {e.strerror or e}", filename=name) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
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
    return text.replace("\r\n", "\n"), name


def same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def write_text(path: str, text: str, inputs: tuple[str, ...] = ()) -> None:
    """Write `text` to `path` atomically, or to stdout for `-`."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    for inp in inputs:
        if inp != "-" and os.path.exists(path) and same_file(inp, path):
            raise SourceError("refusing to overwrite an input file (write elsewhere, then "
                              "move it)", filename=path)
    if os.path.isdir(path):
        raise SourceError("is a directory; cannot write the output there", filename=path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise SourceError("cannot write: the directory does not exist", filename=path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".cgraph-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise SourceError(f"cannot write: {e.strerror or e}", filename=path) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        if os.path.exists(path):
            try:
                os.chmod(tmp, os.stat(path).st_mode & 0o7777)
            except OSError:
                pass
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SourceError(f"cannot write: {e.strerror or e}", filename=path) from None
