"""What the command line says and how it exits, without click; and the one command it serves
whole.

Shared with cli.py: exit statuses, colour, streams that cannot fail on an encoding, what an
exception means (bad input, an interruption, a bug) and how it is said (a line, and a JSON
report under --format json), reading a command's input module, and `check_one`, the
single-pair `cgraph check`.

`quick_check`: a CI job runs `cgraph check GOT EXPECTED` on hundreds of small files, and
importing click was half of each such run (docs/BENCHMARKS.md). So `cgraph` (__main__.py)
first offers its arguments here, and that command is served without click when nothing in
it needs click: two paths that are neither options nor `-` and not both directories (that is
the batch form), only the options --format and --prim-bodies with valid values, and standard
output and error that are not terminals (no colour to decide) and write UTF-8 (as click
writes them). Every other command line goes to cli.py, whose `check` calls the same
`check_one`, and whose errors are said as they are said here. tests/test_quick_check.py
compares the two ways on every outcome.
"""

from __future__ import annotations

import os
import sys

from .diagnostics import SourceError, one_line, out_of_memory

EXIT_OK, EXIT_CHECK_FAILED, EXIT_INPUT_ERROR, EXIT_INTERNAL = 0, 1, 2, 3
EXIT_INTERRUPTED = 130

NESTED_TOO_DEEPLY = "input nested too deeply"  # a RecursionError: `1 + 1 + ... + 1`
INTERRUPTED = "cgraph: interrupted"


def color(stream) -> bool:
    """Color only on a terminal, and never with NO_COLOR set or TERM=dumb."""
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def use_lenient_streams() -> None:
    """Human text on a stream that cannot encode it shows escapes (\\u2502), never a crash."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass  # not a TextIOWrapper (a test's capture): nothing to configure


def silence_stdout() -> None:
    """After a broken pipe: what is still buffered goes nowhere, instead of failing at exit."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def error_line(message: str) -> str:
    """An error with no file to point at, as one line."""
    return f"cgraph: error: {one_line(message)}"


def json_error(kind: str, message: str, err: SourceError | None = None) -> str:
    """The error as the JSON report a CI job reads under --format json (schema in
    docs/CLI.md): "input", "usage" or "internal"; located where `err` is."""
    import json

    loc = err.loc if err is not None and err.loc.line > 0 else None
    report = {"error": {"kind": kind, "file": err.filename if err is not None else None,
                        "line": loc.line if loc else None, "column": loc.col if loc else None,
                        "message": message}}
    return json.dumps(report, indent=2)


def internal_error(e: Exception) -> str:
    """The message of an exception no input should cause."""
    return (f"internal error: {type(e).__name__}: {e} (this is a bug; CGRAPH_DEBUG=1 shows the "
            "traceback)")


def read_module(path: str) -> tuple:
    """(module, its Source) of a command's input file."""
    from . import api

    source = api.read(path)
    return api.loads(source.text, name=source.name), source


def read_module_as_read(path: str) -> tuple:
    """(module, its Source, its text as read, line ends kept): for a patch of the file, whose
    left side must be the file's own bytes (stdin can be read only once)."""
    from . import api

    raw = api.read(path, keep_line_ends=True)
    source = api.Source(raw.name, raw.text.replace("\r\n", "\n"))
    return api.loads(source.text, name=source.name), source, raw.text


def check_one(got: str, expected: str, fmt: str, prim_bodies: str, echo) -> int:
    """`cgraph check GOT EXPECTED`: compare, print through `echo` (a line), return the exit
    status. Errors are raised (SourceError for bad input)."""
    from . import api
    from .report.check_view import check_json, check_text

    mod_a, source_a = read_module(got)
    mod_b, source_b = read_module(expected)
    diff = api.difference(mod_a, mod_b, prim_bodies=prim_bodies)
    if fmt == "json":
        import json

        echo(json.dumps(check_json(diff, source_a.name, source_b.name), indent=2))
    else:
        echo(check_text(diff, source_a, source_b))
    return EXIT_OK if diff is None else EXIT_CHECK_FAILED


# ---- `cgraph check GOT EXPECTED` without click ----------------------------------------------

def _plain(stream) -> bool:
    """A stream click would write to as it is, with nothing to colour: UTF-8, no terminal."""
    encoding = getattr(stream, "encoding", None) or ""
    return encoding.lower().replace("-", "").replace("_", "") == "utf8" and \
        hasattr(stream, "isatty") and not stream.isatty()


# The options of `check` and their values, the first the default: cli.py makes its click
# options from these, and check_arguments reads them as click does.
CHECK_OPTIONS = {"--format": ("text", "json"), "--prim-bodies": ("text", "ignore")}


def check_arguments(args: list[str]) -> tuple[str, str, str, str] | None:
    """(GOT, EXPECTED, format, prim bodies) of a `check` command line that click reads the same
    way without a doubt: two paths that are not options nor `-`, and --format and
    --prim-bodies with a valid value (`--format json` or `--format=json`; the last one
    counts, as in click). None for anything else (click then reads it, and says what is
    wrong)."""
    if not args or args[0] != "check":
        return None
    paths = []
    given = {name: values[0] for name, values in CHECK_OPTIONS.items()}
    i = 1
    while i < len(args):
        name, eq, value = args[i].partition("=")
        if name in CHECK_OPTIONS:
            if not eq:
                if i + 1 == len(args):
                    return None
                i += 1
                value = args[i]
            if value not in CHECK_OPTIONS[name]:
                return None
            given[name] = value
        elif args[i].startswith("-"):
            return None
        else:
            paths.append(args[i])
        i += 1
    if len(paths) != 2:
        return None
    return paths[0], paths[1], given["--format"], given["--prim-bodies"]


def quick_check(args: list[str]) -> int | None:
    """`cgraph check GOT EXPECTED [--format F] [--prim-bodies P]` as cli.py runs it, for the
    arguments and streams that need nothing of click (see the module's docstring): the exit
    status; None for everything else."""
    read = check_arguments(args)
    if read is None or not _plain(sys.stdout) or not _plain(sys.stderr):
        return None
    got, expected, fmt, prim_bodies = read
    if os.path.isdir(got) and os.path.isdir(expected):
        return None
    use_lenient_streams()

    def fail(line: str, status: int, kind: str, message: str, err=None) -> int:
        """The error line on stderr; under --format json, its report on stdout too."""
        try:
            echo_line(line, err=True)
            if fmt == "json":
                echo_line(json_error(kind, message, err))
        except BrokenPipeError:
            silence_stdout()
        return status

    try:
        return check_one(got, expected, fmt, prim_bodies, echo_line)
    except BrokenPipeError:
        silence_stdout()  # `cgraph check ... | head`: the reader has what it wanted
        return EXIT_OK
    except SourceError as e:
        return fail(e.render(), EXIT_INPUT_ERROR, "input", e.message, e)
    except RecursionError:
        return fail(error_line(NESTED_TOO_DEEPLY), EXIT_INPUT_ERROR, "input", NESTED_TOO_DEEPLY)
    except MemoryError as e:  # as cli.py says it
        message = out_of_memory(e)
        return fail(error_line(message), EXIT_INPUT_ERROR, "input", message)
    except KeyboardInterrupt:
        echo_line(INTERRUPTED, err=True)
        return EXIT_INTERRUPTED
    except Exception as e:  # noqa: BLE001 - the last line of defence against tracebacks
        if os.environ.get("CGRAPH_DEBUG"):
            raise
        message = internal_error(e)
        return fail(error_line(message), EXIT_INTERNAL, "internal", message)


def echo_line(text: str, err: bool = False) -> None:
    """click.echo's line on a plain stream: the text, a newline, a flush. Text holding an
    escape character goes through click itself, which takes escape sequences out on a stream
    that is no terminal."""
    if "\x1b" in text:
        import click

        click.echo(text, err=err)
        return
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()
