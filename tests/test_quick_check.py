"""`cgraph check GOT EXPECTED` served without click (console.py) says and returns exactly what
cli.py's `check` does, on every outcome; every other command line is left to cli.py.

In-process: both ways run on the same arguments with standard output and error as pipes
(UTF-8 byte buffers, no terminal), and their bytes and exit statuses are compared. What the
quick way imports is tests/test_check_batch.py's test_what_check_imports (a real process).
"""

from __future__ import annotations

import io
import json
import sys

import pytest

from conftest import ROOT
from cudagraph_cli import console
from cudagraph_cli.cli import main as cli_main

SMALL = ROOT / "samples" / "tvm" / "static_input_with_symbolic_shape_before.relax"
OTHER = ROOT / "samples" / "tvm" / "tuple_before.relax"


class Pipe(io.TextIOWrapper):
    """A stream as a pipe is: UTF-8 (or `encoding`), no terminal unless `tty`."""

    def __init__(self, encoding: str = "utf-8", tty: bool = False):
        super().__init__(io.BytesIO(), encoding=encoding, write_through=True)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty

    def bytes(self) -> bytes:
        self.flush()
        return self.buffer.getvalue()


def run(way, args: list[str], **stream) -> tuple[object, bytes, bytes]:
    """(exit status, stdout bytes, stderr bytes) of one way of running `cgraph ARGS`."""
    out, err = Pipe(**stream), Pipe(**stream)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    try:
        try:
            status = way(args)
        except SystemExit as e:
            status = e.code
    finally:
        sys.stdout, sys.stderr = saved
    return status, out.bytes(), err.bytes()


def click_way(args):
    cli_main.main(args=args, prog_name="cgraph", standalone_mode=True)


def both(args: list[str]):
    quick = run(console.quick_check, args)
    assert quick[0] is not None, "console.py left this to cli.py"
    assert quick == run(click_way, args)
    return quick


@pytest.fixture
def files(tmp_path):
    def write(name: str, content: bytes | str):
        p = tmp_path / name
        p.write_bytes(content.encode() if isinstance(content, str) else content)
        return str(p)
    return write


def test_equal_and_different():
    status, out, err = both(["check", str(SMALL), str(SMALL)])
    assert (status, err) == (0, b"") and out.startswith(b"equal: ")
    status, out, err = both(["check", str(SMALL), str(OTHER)])
    assert (status, err) == (1, b"") and out.startswith(b"modules differ: ") and b"^" in out
    status, out, err = both(["check", str(SMALL), str(OTHER), "--format", "json"])
    assert (status, err) == (1, b"") and json.loads(out)["equal"] is False


def test_the_options_click_reads_the_same_way(files):
    # OTHER with one line of its PrimFunc's body changed: a difference only --prim-bodies text
    # sees. The options before, between or after the paths, with `=` or not; the last wins.
    text = OTHER.read_text()
    changed = files("changed.relax", text.replace("T.exp(rxplaceholder[i0, i1]",
                                                  "T.exp(rxplaceholder[i1, i0]"))
    assert both(["check", str(OTHER), changed])[0] == 1
    for args in (["check", "--prim-bodies", "ignore", str(OTHER), changed],
                 ["check", str(OTHER), "--prim-bodies=ignore", changed],
                 ["check", str(OTHER), changed, "--prim-bodies", "text", "--prim-bodies",
                  "ignore"]):
        status, out, err = both(args)
        assert (status, err) == (0, b"") and out.startswith(b"equal: ")
    for args in (["check", "--format=json", str(OTHER), changed, "--prim-bodies", "ignore"],
                 ["check", "--format", "text", str(OTHER), changed, "--format", "json",
                  "--prim-bodies=ignore"]):
        status, out, err = both(args)
        assert (status, err) == (0, b"") and json.loads(out)["equal"] is True


def test_real_model_dumps(files):
    # TVM's own dump of a Llama (168 KB: read with line templates), against itself, against
    # TVM's rewrite of it, and against a copy whose annotation deep inside no longer matches
    # its value (refused where it stands).
    before = ROOT / "samples" / "real" / "nn_llama_kv.before.relax"
    after = ROOT / "samples" / "real" / "nn_llama_kv.after.relax"
    assert both(["check", str(before), str(before)])[0] == 0
    assert both(["check", str(before), str(after)])[0] == 1
    text = before.read_text()
    at = text.index('dtype="float32"', len(text) // 2)
    line = text.count("\n", 0, at) + 1
    changed = files("changed.relax", text[:at] + 'dtype="float16"' + text[at + 15:])
    status, out, err = both(["check", str(before), changed])
    assert status == 2 and out == b""
    assert err.startswith(f"{changed}:{line}:9: error: the annotation R.Tensor".encode())


@pytest.mark.parametrize("content", [
    "@I.ir_module\nclass M:\n    x = 1\n",                          # not a Relax module
    SMALL.read_text()[:200],                                         # truncated
    "",                                                              # empty
    b"\xff\xfe not utf-8\n",                                         # undecodable
    "@I.ir_module\nclass M:\x00\n",                                  # binary
    SMALL.read_text().replace("R.memory.alloc_storage", "R.memory.alloc_storag", 1),
    "x = (" * 400 + "\n",                                            # nested too deeply
    "# caf\u00e9 \u2502\n@I.ir_module\nclass M:\n    y = \u00e9\n",  # non-ASCII in the message
])
def test_bad_input_located_the_same(files, content):
    bad = files("bad.relax", content)
    status, out, err = both(["check", bad, str(SMALL)])
    assert status == 2 and out == b"" and err.startswith(bad.encode())
    assert both(["check", str(SMALL), bad])[0] == 2
    # Under --format json the error is also a report on standard output.
    status, out, err = both(["check", bad, str(SMALL), "--format", "json"])
    assert status == 2 and err.startswith(bad.encode())
    assert json.loads(out)["error"]["kind"] == "input"


def test_missing_file_directory_and_escape_in_a_name(files, tmp_path):
    for args in (["check", str(tmp_path / "nope.relax"), str(SMALL)],
                 ["check", str(tmp_path), str(SMALL)],      # one directory: not the batch form
                 ["check", str(SMALL), str(tmp_path)]):
        status, out, err = both(args)
        assert status == 2 and out == b"" and err
        status, out, err = both(args + ["--format", "json"])
        assert status == 2 and json.loads(out)["error"]["file"] and err
    # A name holding an escape sequence: click takes it out of what it prints on a pipe.
    odd = files("odd\x1b[31mred.relax", SMALL.read_bytes())
    status, out, err = both(["check", odd, str(SMALL)])
    assert status == 0 and b"\x1b" not in out and b"oddred.relax" in out


@pytest.mark.parametrize("raised, status, kind", [
    (ZeroDivisionError("planted"), 3, "internal"), (KeyboardInterrupt(), 130, None),
    (RecursionError(), 2, "input")])
def test_unexpected_exceptions_said_the_same(monkeypatch, raised, status, kind):
    def read(path):
        raise raised

    monkeypatch.setattr(console, "read_module", read)
    monkeypatch.delenv("CGRAPH_DEBUG", raising=False)
    got = both(["check", str(SMALL), str(SMALL)])
    assert got[0] == status and got[1] == b"" and got[2].startswith(b"cgraph: ")
    if status == 3:
        assert b"internal error: ZeroDivisionError: planted" in got[2]
    got = both(["check", str(SMALL), str(SMALL), "--format", "json"])
    assert got[0] == status and got[2].startswith(b"cgraph: ")
    if kind is None:  # an interruption is no report
        assert got[1] == b""
    else:
        assert json.loads(got[1])["error"]["kind"] == kind


def test_a_broken_pipe_is_success(monkeypatch):
    def echo(text, err=False):
        raise BrokenPipeError

    monkeypatch.setattr(console, "echo_line", echo)
    assert run(console.quick_check, ["check", str(SMALL), str(SMALL)])[0] == 0


@pytest.mark.parametrize("args", [
    ["check", str(SMALL)],                                  # click says what is missing
    ["check", str(SMALL), str(SMALL), str(SMALL)],
    ["check", "-", str(SMALL)],                             # standard input
    ["check", "--prim-bodies", "ignore", str(SMALL)],
    ["check", str(SMALL), str(SMALL), "--format", "xml"],   # a value click refuses
    ["check", str(SMALL), str(SMALL), "--format"],          # no value
    ["check", str(SMALL), str(SMALL), "--prim-bodies=nope"],
    ["check", str(SMALL), str(SMALL), "--formatjson"],
    ["check", str(SMALL), str(SMALL), "--list", "pairs.txt"],  # any other option
    ["check", str(SMALL), str(SMALL), "-h"],
    ["check", "--", str(SMALL), str(SMALL)],
    ["check", str(ROOT / "samples" / "tvm"), str(ROOT / "samples" / "tvm")],  # the batch form
    ["fmt", str(SMALL), str(SMALL)],
    ["--version", str(SMALL), str(SMALL)],
])
def test_everything_else_is_left_to_click(args):
    assert run(console.quick_check, args) == (None, b"", b"")


@pytest.mark.parametrize("stream", [dict(tty=True), dict(encoding="ascii"),
                                    dict(encoding="latin-1")])
def test_terminals_and_other_encodings_are_left_to_click(stream):
    # A terminal may get colour; another encoding, click's own rewrapping of the stream.
    args = ["check", str(SMALL), str(SMALL)]
    assert run(console.quick_check, args, **stream) == (None, b"", b"")
