"""How cgraph reads inputs and writes outputs (docs/CLI.md), and the CLI's edges.

Devices are private nodes made with mknod in a temporary directory (1,3 is null, 1,5 zero,
1,7 full); the real /dev is never written. Those tests need root (CI runs as root) and skip
elsewhere, saying so.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import threading

import pytest

from cli_runner import cgraph
from conftest import ROOT, run_cli
from cudagraph_cli import fileio
from cudagraph_cli.diagnostics import Loc, SourceError, excerpt

SAMPLE = ROOT / "samples" / "tvm" / "tuple_before.relax"
MLP = ROOT / "samples" / "models" / "mlp_block.relax"


def formatted() -> bytes:
    r = run_cli("fmt", str(SAMPLE))
    assert r.returncode == 0
    return r.stdout


def cli_env(**extra) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("CGRAPH_DEBUG", None)
    env.update(extra)
    return env


def cgraph_argv(*args) -> list[str]:
    return [sys.executable, "-m", "cudagraph_cli", *[str(a) for a in args]]


def make_device(tmp_path, name: str, minor: int):
    """A private character device 1,MINOR, or a skip where this process may not make one."""
    path = tmp_path / name
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
        os.close(os.open(path, os.O_RDWR))
    except OSError as e:
        pytest.skip(f"cannot make and open a device node here ({e.strerror}): needs root on a "
                    "filesystem without nodev, as on CI")
    return path


def no_temporaries(directory) -> bool:
    return not list(directory.glob(".cgraph-*"))


class FifoPeer:
    """The other end of a FIFO, on a thread: reads it whole, or writes `data` into it."""

    def __init__(self, path, data: bytes | None = None):
        self.path, self.data, self.got = path, data, None
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        if self.data is None:
            with open(self.path, "rb") as fh:
                self.got = fh.read()
        else:
            try:
                with open(self.path, "wb") as fh:
                    fh.write(self.data)
            except BrokenPipeError:
                pass  # the reader stopped early (the size limit): what it should do

    def finish(self):
        self.thread.join(timeout=30)
        if self.thread.is_alive():
            # cgraph never opened the FIFO: open the other end so that the thread ends.
            flags = os.O_WRONLY if self.data is None else os.O_RDONLY
            os.close(os.open(self.path, flags | os.O_NONBLOCK))
            self.thread.join(timeout=10)
            return False
        return True


# -- outputs -------------------------------------------------------------------------------

def test_output_to_a_null_device_is_written_in_place(tmp_path):
    null = make_device(tmp_path, "null", 3)
    before = os.stat(null)
    for args in (["fmt", SAMPLE], ["rewrite", SAMPLE, "--explain"], ["gen", "chain"],
                 ["diff", SAMPLE], ["diff", SAMPLE, "--format", "html"]):
        r = run_cli(*map(str, args), "-o", str(null))
        assert r.returncode == 0, (args, r.stderr)
        after = os.stat(null)
        assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino
        assert after.st_rdev == os.makedev(1, 3)
    assert no_temporaries(tmp_path)


def test_output_to_a_full_device_is_one_line_and_exit_2(tmp_path):
    full = make_device(tmp_path, "full", 7)
    r = run_cli("fmt", str(SAMPLE), "-o", str(full))
    assert r.returncode == 2
    assert r.stderr.decode() == f"{full}: error: cannot write: No space left on device\n"
    assert stat.S_ISCHR(os.stat(full).st_mode) and no_temporaries(tmp_path)


def test_stdout_on_a_full_device_is_one_line_and_exit_2(tmp_path):
    full = make_device(tmp_path, "full", 7)
    with open(full, "wb") as out:
        p = subprocess.run(cgraph_argv("fmt", SAMPLE), stdout=out, stderr=subprocess.PIPE,
                           env=cli_env(), timeout=120)
    assert p.returncode == 2
    assert p.stderr.decode() == "<stdout>: error: cannot write: No space left on device\n"


def test_output_to_a_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    reader = FifoPeer(fifo)
    r = run_cli("fmt", str(SAMPLE), "-o", str(fifo))
    assert reader.finish(), "cgraph never opened the FIFO"
    assert r.returncode == 0, r.stderr
    assert reader.got == formatted()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and no_temporaries(tmp_path)


def test_output_to_an_fd_path_writes_the_open_descriptor():
    # What `-o >(gzip > x)` hands cgraph: /dev/fd/N, the write end of a pipe. The test names
    # it by /proc/self/fd/N, where /dev/fd leads, and never touches /dev itself.
    read_end, write_end = os.pipe()
    p = subprocess.Popen(cgraph_argv("fmt", SAMPLE, "-o", f"/proc/self/fd/{write_end}"),
                         pass_fds=(write_end,), stderr=subprocess.PIPE, env=cli_env())
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        got = fh.read()
    assert p.wait(timeout=120) == 0, p.stderr.read()
    assert got == formatted()


def test_dev_stdout_and_dev_fd_are_seen_as_open_descriptors():
    # Only links are read here; the real /dev is never opened.
    if not os.path.islink("/dev/stdout") or not os.path.isdir("/proc/self/fd"):
        pytest.skip("/dev/stdout is not a link into /proc/self/fd here")
    assert fileio.own_fd("/dev/stdout") == 1
    assert fileio.own_fd("/dev/fd/7") == 7
    assert fileio.own_fd(f"/proc/{os.getpid()}/fd/3") == 3
    if os.getpid() != 1:
        assert fileio.own_fd("/proc/1/fd/3") is None  # another process's descriptor
    assert fileio.own_fd("/dev/null") is None


def test_output_to_a_stdout_link_keeps_the_shells_file_and_append_mode(tmp_path):
    # A private /dev/stdout: a link to /proc/self/fd/1. Renaming over it (the old behaviour)
    # would replace only this link.
    stdout_link = tmp_path / "stdout"
    stdout_link.symlink_to("/proc/self/fd/1")
    log = tmp_path / "log.txt"
    log.write_bytes(b"earlier line\n")
    inode = os.stat(log).st_ino
    with open(log, "ab") as out:
        p = subprocess.run(cgraph_argv("fmt", SAMPLE, "-o", stdout_link), stdout=out,
                           stderr=subprocess.PIPE, env=cli_env(), timeout=120)
    assert p.returncode == 0, p.stderr
    assert log.read_bytes() == b"earlier line\n" + formatted()
    assert os.stat(log).st_ino == inode and stdout_link.is_symlink()
    assert no_temporaries(tmp_path)


def test_output_to_a_socket_is_refused_in_one_line(tmp_path):
    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        r = run_cli("fmt", str(SAMPLE), "-o", str(path))
    finally:
        sock.close()
    assert r.returncode == 2
    assert r.stderr.decode() == (f"{path}: error: is a socket; cgraph writes files, FIFOs and "
                                 "devices\n")
    assert stat.S_ISSOCK(os.stat(path).st_mode)


def test_output_through_a_symlink_replaces_the_target_and_keeps_the_link(tmp_path):
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    target = real_dir / "model.relax"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.relax"
    link.symlink_to(os.path.relpath(target, tmp_path))
    r = run_cli("fmt", str(SAMPLE), "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(target, tmp_path)
    assert target.read_bytes() == formatted()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    # The temporary file was made beside the target, and is gone.
    assert no_temporaries(tmp_path) and no_temporaries(real_dir)


def test_a_failed_write_through_a_symlink_leaves_the_target(tmp_path):
    target = tmp_path / "model.relax"
    target.write_text("precious\n")
    link = tmp_path / "link.relax"
    link.symlink_to(target)
    bad = tmp_path / "bad.relax"
    bad.write_text(SAMPLE.read_text().replace("cls.exp(x, alloc)", "cls.exp(x, nope)"))
    assert run_cli("fmt", str(bad), "-o", str(link)).returncode == 2
    assert link.is_symlink() and target.read_text() == "precious\n"
    assert no_temporaries(tmp_path)


def test_a_dangling_symlink_creates_the_file_it_names(tmp_path):
    link = tmp_path / "link.relax"
    link.symlink_to("made.relax")
    r = run_cli("fmt", str(SAMPLE), "-o", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == "made.relax"
    assert (tmp_path / "made.relax").read_bytes() == formatted()


def test_a_symlink_to_the_input_is_still_the_input(tmp_path):
    src = tmp_path / "in.relax"
    src.write_bytes(SAMPLE.read_bytes())
    link = tmp_path / "link.relax"
    link.symlink_to(src)
    r = run_cli("fmt", str(src), "-o", str(link))
    assert r.returncode == 2 and b"refusing to overwrite an input file" in r.stderr
    assert src.read_bytes() == SAMPLE.read_bytes() and link.is_symlink()


def test_a_regular_output_keeps_its_mode_and_owner(tmp_path):
    out = tmp_path / "out.relax"
    out.write_text("old\n")
    if os.geteuid() != 0:
        pytest.skip("giving a file to another owner needs root (CI runs as root)")
    os.chown(out, 1234, 5678)
    out.chmod(0o604)
    r = run_cli("fmt", str(SAMPLE), "-o", str(out))
    assert r.returncode == 0, r.stderr
    st = os.stat(out)
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 5678, 0o604)
    assert out.read_bytes() == formatted()


def test_module_text_on_stdout_is_utf8_whatever_the_locale(tmp_path):
    src = tmp_path / "in.relax"
    src.write_text("# modèle à deux noyaux\n" + SAMPLE.read_text(), encoding="utf-8")
    to_file = tmp_path / "out.relax"
    assert run_cli("fmt", str(src), "-o", str(to_file)).returncode == 0
    r = run_cli("fmt", str(src), env={"PYTHONIOENCODING": "ascii"})
    assert r.returncode == 0 and r.stdout == to_file.read_bytes()
    assert "modèle".encode() in r.stdout


# -- inputs --------------------------------------------------------------------------------

def test_a_fifo_input_is_read_to_its_end(tmp_path):
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    writer = FifoPeer(fifo, SAMPLE.read_bytes())
    r = run_cli("fmt", str(fifo))
    assert writer.finish()
    assert r.returncode == 0 and r.stdout == formatted()


def test_dev_stdin_as_a_path_is_read():
    r = run_cli("fmt", "/dev/stdin", input=SAMPLE.read_bytes())
    assert r.returncode == 0 and r.stdout == formatted()


def test_a_huge_regular_file_is_refused_before_reading(tmp_path):
    big = tmp_path / "big.relax"
    with open(big, "wb") as fh:
        fh.truncate((1 << 30) + 1)  # sparse: no disk, and cgraph must not read it
    r = run_cli("fmt", str(big))
    assert r.returncode == 2
    assert r.stderr.decode() == (f"{big}: error: input larger than 1 GiB; not a module cgraph "
                                 "can read\n")


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(fileio, "MAX_INPUT_BYTES", 4096)
    return 4096


def test_the_limit_counts_bytes_of_a_regular_file(tmp_path, small_limit):
    text = SAMPLE.read_bytes()
    exact = tmp_path / "exact.relax"
    exact.write_bytes(text + b"#" * (small_limit - len(text) - 1) + b"\n")
    assert os.path.getsize(exact) == small_limit
    assert cgraph("fmt", exact).exit_code == 0
    over = tmp_path / "over.relax"
    over.write_bytes(exact.read_bytes() + b"\n")
    r = cgraph("fmt", over)
    assert r.exit_code == 2
    assert r.stderr == f"{over}: error: input larger than 4096 bytes; not a module cgraph " \
                       "can read\n"


def test_a_stream_past_the_limit_is_refused(tmp_path, small_limit):
    r = cgraph("fmt", "-", input=b"#" * (small_limit + 1))
    assert r.exit_code == 2 and "<stdin>: error: input larger than 4096 bytes" in r.stderr
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    writer = FifoPeer(fifo, b"#" * (10 * small_limit))
    r = cgraph("fmt", fifo)
    writer.finish()
    assert r.exit_code == 2 and f"{fifo}: error: input larger than 4096 bytes" in r.stderr


def test_an_endless_device_is_refused(tmp_path, small_limit):
    zero = make_device(tmp_path, "zero", 5)
    r = cgraph("fmt", zero)
    assert r.exit_code == 2
    assert r.stderr == f"{zero}: error: input larger than 4096 bytes; not a module cgraph " \
                       "can read\n"


def test_a_socket_input_is_refused_in_one_line(tmp_path):
    path = tmp_path / "s.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        r = run_cli("fmt", str(path))
    finally:
        sock.close()
    assert r.returncode == 2
    assert r.stderr.decode() == (f"{path}: error: is a socket; cgraph reads files, FIFOs and "
                                 "devices\n")


# -- the CLI's edges -----------------------------------------------------------------------

EVERY_VIEW = [
    ["fmt", MLP], ["rewrite", MLP, "--explain"], ["diff", MLP], ["diff", MLP, "--summary"],
    ["diff", MLP, "--format", "json"], ["diff", MLP, "--format", "unified"],
    ["diff", MLP, "--format", "html"], ["check", MLP, MLP], ["check", MLP, SAMPLE],
    ["verify", MLP, MLP], ["run", MLP, "--device", "cpu"], ["gen", "decode", "--layers", "2"],
]


@pytest.mark.parametrize("args", [["fmt", MLP], ["rewrite", MLP]] + EVERY_VIEW[2:],
                         ids=lambda a: " ".join(map(str, a[:1] + a[2:])))
def test_a_closed_pipe_is_success_and_silent(args):
    # `cgraph ... | head` where head has already gone: the reader got what it wanted.
    p = subprocess.Popen(cgraph_argv(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=cli_env())
    p.stdout.close()
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0 and err == b""


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize("args", EVERY_VIEW, ids=lambda a: " ".join(map(str, a[:1] + a[2:])))
def test_a_non_utf8_stdout_never_crashes_a_view(args, encoding):
    r = run_cli(*map(str, args), env={"PYTHONIOENCODING": encoding})
    assert r.returncode in (0, 1), r.stderr
    assert b"Traceback" not in r.stderr and b"internal error" not in r.stderr
    assert r.stdout


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_non_utf8_stderr_shows_a_non_ascii_source_line(tmp_path, encoding):
    bad = tmp_path / "bad.relax"
    bad.write_text(SAMPLE.read_text().replace("cls.exp(x, alloc)", "cls.exp(x, nop\u4e2d)"),
                   encoding="utf-8")
    r = run_cli("fmt", str(bad), env={"PYTHONIOENCODING": encoding})
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    # click writes UTF-8 to a stream that says ASCII (a misconfigured locale, it reasons);
    # to any other it writes what fits, and an escape for the rest. Shown either way.
    assert "nop\u4e2d".encode() in r.stderr or b"nop\\u4e2d" in r.stderr


def json_error(r) -> dict:
    report = json.loads(r.stdout)
    assert set(report) == {"error"}
    return report["error"]


@pytest.mark.parametrize("command", [
    ["check", "{bad}", SAMPLE], ["check", SAMPLE, "{bad}"], ["verify", "{bad}", SAMPLE],
    ["run", "{bad}", "--device", "cpu"], ["diff", "{bad}"], ["diff", SAMPLE, "{bad}"]])
def test_an_input_error_under_format_json_is_json(tmp_path, command):
    bad = tmp_path / "bad.relax"
    text = SAMPLE.read_text().replace("cls.exp(x, alloc)", "cls.exp(x, nope)")
    bad.write_text(text)
    # Where the error is, derived from the text: the line holding `nope`, its column.
    lines = text.split("\n")
    line = next(i for i, s in enumerate(lines) if "nope" in s) + 1
    col = lines[line - 1].index("nope") + 1
    args = [str(bad) if a == "{bad}" else str(a) for a in command] + ["--format", "json"]
    r = run_cli(*args)
    assert r.returncode == 2
    err = json_error(r)
    assert err["kind"] == "input" and err["file"] == str(bad)
    assert (err["line"], err["column"]) == (line, col)
    assert "undefined variable 'nope'" in err["message"]
    assert f"{bad}:{line}:{col}: error:".encode() in r.stderr  # the human line too


def test_json_errors_without_a_location_and_for_usage(tmp_path):
    missing = tmp_path / "missing.relax"
    r = run_cli("check", str(missing), str(SAMPLE), "--format", "json")
    assert r.returncode == 2
    assert json_error(r) == {"kind": "input", "file": str(missing), "line": None,
                             "column": None, "message": "no such file"}
    r = run_cli("verify", str(SAMPLE), str(SAMPLE), "--shape", "n", "--format", "json")
    assert r.returncode == 2
    err = json_error(r)
    assert err["kind"] == "usage" and err["file"] is None and "--shape" in err["message"]


def test_json_error_when_the_report_goes_to_a_file(tmp_path):
    out = tmp_path / "report.json"
    r = run_cli("diff", str(tmp_path / "missing.relax"), "--format", "json", "-o", str(out))
    assert r.returncode == 2 and json_error(r)["message"] == "no such file"
    assert not out.exists()


def test_no_json_on_stdout_without_format_json(tmp_path):
    r = run_cli("check", str(tmp_path / "missing.relax"), str(SAMPLE))
    assert r.returncode == 2 and r.stdout == b""


def test_a_one_megabyte_line_gives_a_short_message(tmp_path):
    bad = tmp_path / "long.relax"
    bad.write_text("x = " + "1 + " * 250_000 + "$\n")
    r = run_cli("fmt", str(bad))
    assert r.returncode == 2 and len(r.stderr) < 1000, len(r.stderr)
    head, shown, caret = r.stderr.decode().rstrip("\n").split("\n")
    assert head.startswith(f"{bad}:1:") and len(shown) <= 210
    col = int(head.split(":")[2])
    if col > 100:
        assert shown.startswith("...")
    assert caret.endswith("^")


def test_check_excerpts_escape_control_characters(tmp_path):
    a = tmp_path / "a.relax"
    a.write_text(SAMPLE.read_text().replace('R.shape([32]), 0, "global"',
                                            'R.shape([33]),\x0c0, "global"', 1))
    r = run_cli("check", str(a), str(SAMPLE))
    assert r.returncode == 1
    assert b"\x0c" not in r.stdout and b"R.shape([33]),\\x0c0" in r.stdout


# -- the excerpt, derived by hand ----------------------------------------------------------

def test_excerpt_escapes_controls_and_keeps_the_caret_under_its_character():
    line = "ab\tc\x1bd"  # a, b, tab (one column), c, ESC, d
    assert excerpt(line, Loc(1, 5)) == "ab c\\x1bd\n    ^"
    assert excerpt(line, Loc(1, 6)) == "ab c\\x1bd\n        ^"
    assert excerpt("x\u202ey", Loc(1, 3)) == "x\\u202ey\n       ^"  # a bidi override


def test_excerpt_clips_a_long_line_around_the_caret():
    line = "a" * 500_000 + "B" + "c" * 499_999
    shown, caret = excerpt(line, Loc(1, 500_001)).split("\n")
    # 100 columns either side of the caret, `...` where cut.
    assert shown == "..." + "a" * 100 + "B" + "c" * 99 + "..."
    assert caret == " " * 103 + "^"
    shown, caret = excerpt(line, Loc(1, 10)).split("\n")
    # Near the start the window is 200 columns from there, all but 9 to the right.
    assert shown == "a" * 200 + "..." and caret == " " * 9 + "^"


def test_excerpt_lines_end_where_python_ends_them():
    assert excerpt("a\rbb\r\nccc\nd", Loc(3, 2)) == "ccc\n ^"
    assert excerpt("a\rbb\r\nccc\nd", Loc(2, 1)) == "bb\n^"
    assert excerpt("a\nb", Loc(3, 1)) is None


def test_render_escapes_the_message_and_clips_it():
    e = SourceError("unknown name '\x1b[2J" + "z" * 1000 + "'", Loc(1, 1), "f.relax", "x")
    head = e.render().split("\n")[0]
    assert "\x1b" not in head and "\\x1b[2J" in head and head.endswith("...")
    assert len(head) < 500


# ---- outputs are checked before the work ---------------------------------------------------

# Each command that writes -o OUT, with an input that does not exist: an OUT that cannot be
# written must be what the command says, since it is checked before the input is read (so
# `rewrite --verify` on a real model no longer verifies for a minute and then fails).
OUTPUT_COMMANDS = [
    ["fmt", "{missing}"],
    ["rewrite", "{missing}", "--verify"],
    ["diff", "{missing}"],
    ["diff", "{missing}", "{missing}", "--format", "json"],
    ["kernels", "{missing}"],
    # gen reads nothing: a --functions it refuses stands for the work it would do first.
    ["gen", "decode", "--functions", "encode"],
]


@pytest.mark.parametrize("command", OUTPUT_COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_an_output_in_a_missing_directory_is_refused_before_reading(tmp_path, command):
    args = [a.format(missing=tmp_path / "nope.relax") for a in command]
    out = tmp_path / "no" / "such" / "dir" / "out.relax"
    r = run_cli(*args, "-o", str(out))
    assert r.returncode == 2
    assert r.stderr.decode().splitlines()[0] == \
        f"{out}: error: cannot write: the directory does not exist"


@pytest.mark.parametrize("command", OUTPUT_COMMANDS, ids=lambda c: "-".join(c[:2]))
def test_a_directory_as_the_output_is_refused_before_reading(tmp_path, command):
    args = [a.format(missing=tmp_path / "nope.relax") for a in command]
    r = run_cli(*args, "-o", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.decode() == f"{tmp_path}: error: is a directory; cannot write the output " \
                                "there\n"


def test_up_front_checks_say_what_the_write_would(tmp_path):
    """check_output and write_text give the same words for each refused output."""
    plain = tmp_path / "file"
    plain.write_text("x")
    sock = tmp_path / "s"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone" / "target")
    try:
        for path, inputs in ((str(tmp_path / "gone" / "x"), ()), (str(tmp_path), ()),
                             (str(sock), ()), (str(plain / "under"), ()),
                             (str(dangling), ()), (str(plain), (str(plain),))):
            with pytest.raises(SourceError) as early:
                fileio.check_output(path, inputs)
            with pytest.raises(SourceError) as late:
                fileio.write_text(path, "text", inputs)
            assert early.value.message == late.value.message and \
                early.value.filename == late.value.filename == path
    finally:
        server.close()
    for fine in ("-", str(tmp_path / "new.relax"), str(plain), "/dev/stdout"):
        fileio.check_output(fine)
    assert plain.read_text() == "x" and not (tmp_path / "new.relax").exists()


def test_the_up_front_check_never_opens_a_fifo(tmp_path):
    """A FIFO blocks its opener until a reader comes: the check must only look at it."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = run_cli("fmt", str(tmp_path / "nope.relax"), "-o", str(fifo))
    assert r.returncode == 2 and b"nope.relax: error: no such file" in r.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any directory")
def test_an_unwritable_directory_is_refused_before_reading(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        r = run_cli("fmt", str(tmp_path / "nope.relax"), "-o", str(locked / "out.relax"))
    finally:
        locked.chmod(0o700)
    assert r.returncode == 2
    assert r.stderr.decode() == f"{locked / 'out.relax'}: error: cannot write: Permission denied\n"
