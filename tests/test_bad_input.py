"""Bad input never produces a traceback: `cgraph` answers with one located error line
(`FILE:LINE:COL: error: msg`, then the source line and a caret under COL; `FILE: error: msg`
for problems with a file as a whole), exit status 2, nothing on stdout, no output file written
(an existing one left byte-for-byte as it was) and the input untouched.

Every case runs the CLI as a real process first, then its other invocations in-process.
The expected locations are counted by hand from
the input text shown in the table.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from cli_runner import CliResult, cgraph

ROOT = Path(__file__).resolve().parent.parent

# A small valid module. Cases below replace or append lines; the numbers are line numbers.
BASE = [
    "@I.ir_module",                                                                  # 1
    "class Module:",                                                                 # 2
    "    @R.function",                                                               # 3
    '    def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 4), "float32"):',  # 4
    "        cls = Module",                                                          # 5
    "        y = x",                                                                 # 6
    "        return y",                                                              # 7
]
VALID = "\n".join(BASE) + "\n"


def with_lines(edits: dict[int, str], append: tuple[str, ...] = ()) -> str:
    """BASE with line N replaced by edits[N], then `append`ed lines."""
    lines = [edits.get(i + 1, s) for i, s in enumerate(BASE)] + list(append)
    return "\n".join(lines) + "\n"


def cut_after(n: int, last: str) -> str:
    """BASE lines 1..n, then `last` as line n+1, with no final newline (a truncated file)."""
    return "\n".join(BASE[:n] + [last])


def nested_tuple(depth: int) -> str:
    return "(" * depth + "x" + ",)" * depth


@dataclass
class Case:
    id: str
    data: str | bytes | None  # the bad input (None: the case is about paths, VALID is used)
    at: list | None  # allowed (line, col) locations; col None = any; None = file-level error
    msg: str  # regex searched in the message after "error: "
    kind: str = "fmt"  # how the CLI is run, see run_case
    file_level_ok: bool = False  # a file-level message is accepted as well as `at`
    name: str = "in.relax"  # the file name the message must start with


CASES = [
    # ---- bytes that are not text
    Case("empty-file", b"", [(1, 1)], r"empty|no module"),
    Case("whitespace-only", b"  \n\t\n   \n\n", [(1, 1)], r"empty|no module"),
    Case("binary-garbage-png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00",
         [(1, 1)], r"UTF-8|binary"),
    Case("control-characters", b"\x01\x02\x03\x04 garbage\n", [(1, 1)], r"character"),
    Case("nul-byte-in-middle", with_lines({6: "        y = \x00x"}), [(6, 13)], r"NUL|binary"),
    Case("latin1-byte", with_lines({6: '        y = R.str("caf\xe9")'}).encode("latin-1"),
         [(6, 23)], r"UTF-8"),
    # A valid two-byte UTF-8 'é' (col 20) before the bad latin-1 byte: columns count
    # characters, as everywhere else (and as the caret under the decoded line needs).
    Case("latin1-byte-after-utf8-char",
         with_lines({6: '        y = R.str("\u00e9tQ")'}).encode().replace(b"Q", b"\xe9"),
         [(6, 22)], r"UTF-8"),
    Case("crlf-line-endings-undefined-var",
         with_lines({6: "        y = z"}).replace("\n", "\r\n").encode(),
         [(6, 13)], r"undefined variable 'z'"),
    # ---- layout and tokens
    Case("truncated-mid-statement", cut_after(5, "        y ="), [(6, 12)],
         r"unexpected|truncated|end of"),
    # Cut inside `R.memory.alloc_storage(`: the open '(' is at col 41 (EOF would be col 59).
    Case("truncated-in-open-call",
         cut_after(5, '        storage = R.memory.alloc_storage(R.shape([32]), 0,'),
         [(6, 41), (6, 59)], r"never closed|truncated|end of file"),
    # Same as the truncation, but mid-file: the end of line 6 is col 12.
    Case("incomplete-statement-mid-file", with_lines({6: "        y ="}), [(6, 12)],
         r"unexpected"),
    Case("unindent-to-unknown-level", with_lines({6: "      y = x"}), [(6, 7)],
         r"unindent|indent"),
    Case("unexpected-indent-first-line", with_lines({1: "  @I.ir_module"}), [(1, 3)],
         r"unexpected indent"),
    Case("unexpected-indent-after-header-comment",
         "# from tvm.script import relax as R\n" + with_lines({1: "  @I.ir_module"}),
         [(2, 3)], r"unexpected indent"),
    Case("bom-then-unexpected-indent", b"\xef\xbb\xbf" + with_lines({1: "  @I.ir_module"}).encode(),
         [(1, 3)], r"unexpected indent"),
    Case("unexpected-indent-in-body", with_lines({6: "            y = x"}), [(6, 13)],
         r"unexpected indent"),
    Case("extra-close-paren", with_lines({6: "        y = (x))"}), [(6, 16)], r"\)"),
    Case("mismatched-bracket", with_lines({6: "        y = R.shape([2, 4)"}), [(6, 26)],
         r"\)"),
    Case("never-closed-bracket", with_lines({7: "        return [y"}), [(7, 16)],
         r"never closed|\["),
    Case("unterminated-string", with_lines({6: '        y = R.str("abc)'}), [(6, 19)],
         r"unterminated string"),
    Case("unsupported-keyword-while", with_lines({6: "        while x:"}), [(6, 9)],
         r"while"),
    # ---- module structure
    # The decorator's location: its name (col 2) or its '@' (col 1).
    Case("unknown-class-decorator", with_lines({1: "@I.module"}), [(1, 2), (1, 1)],
         r"unknown decorator.*I\.module"),
    Case("unknown-function-decorator", with_lines({3: "    @R.fn"}), [(3, 6), (3, 5)],
         r"unknown decorator.*R\.fn"),
    # The function: its decorator, its `def` or its name.
    Case("no-module-class",
         "@R.function\n"
         'def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 4), "float32"):\n'
         "    return x\n",
         [(1, 1), (2, 1), (2, 5)], r"module"),
    # The second class: its decorator (line 9), `class` or its name "Other" (col 7).
    Case("two-module-classes",
         with_lines({}, ("", "@I.ir_module", "class Other:", "    @R.function",
                         '    def f(x: R.Tensor((2, 4), "float32")):', "        return x")),
         [(9, 1), (10, 1), (10, 7)], r"more than one module"),
    Case("function-defined-twice",
         with_lines({}, ("    @R.function",
                         '    def main(x: R.Tensor((2, 4), "float32")):', "        return x")),
         [(8, 5), (8, 6), (9, 5), (9, 9)], r"main.*twice|twice.*main"),
    # ---- Relax functions
    Case("undefined-variable", with_lines({6: "        y = z"}), [(6, 13)],
         r"undefined variable 'z'"),
    # Reported by the well-formedness check: the binding (col 9) or the call (col 13).
    Case("call-to-missing-function", with_lines({6: "        y = cls.nope(x)"}),
         [(6, 9), (6, 13)], r"nope"),
    Case("undefined-symbolic-var-in-shape",
         with_lines({6: '        y: R.Tensor((k, 4), "float32") = x'}), [(6, 22)],
         r"symbolic variable 'k'"),
    # TVM 0.27 reads a statement after `return` (it binds it); a second `return` it rejects.
    Case("second-return", with_lines({}, ("        return x",)), [(8, 9)],
         r"one `return`"),
    Case("output-outside-dataflow", with_lines({6: "        R.output(x)"}), [(6, 9)],
         r"R\.output"),
    Case("param-without-annotation",
         with_lines({4: '    def main(x) -> R.Tensor((2, 4), "float32"):'}), [(4, 14)],
         r"'x'.*annotation|annotation.*'x'"),
    Case("unknown-struct-info",
         with_lines({4: '    def main(x: R.Tensr((2, 4), "float32")) -> '
                        'R.Tensor((2, 4), "float32"):'}),
         [(4, 17)], r"R\.Tensr"),
    # The fifth argument `1` is at col 75; the call itself at col 13.
    Case("alloc-storage-too-many-args",
         with_lines({6: '        y = R.memory.alloc_storage(R.shape([32]), 0, "global", '
                        '"float32", 1)'}),
         [(6, 75), (6, 13)], r"too many arguments"),
    # Python rejects this nesting ("too many nested parentheses"); the limit may be reported
    # for the file or at line 6, but never as an internal error.
    Case("tuple-nested-400-deep", with_lines({6: "        y = " + nested_tuple(400)}),
         [(6, None)], r"nested", file_level_ok=True),
    # ---- standard input
    Case("stdin-undefined-variable", with_lines({6: "        y = z"}), [(6, 13)],
         r"undefined variable 'z'", kind="stdin", name="<stdin>"),
    Case("stdin-latin1-byte", with_lines({6: '        y = R.str("caf\xe9")'}).encode("latin-1"),
         [(6, 23)], r"UTF-8", kind="stdin", name="<stdin>"),
    # ---- cgraph check
    Case("check-expected-file-bad", with_lines({6: "        y = z"}), [(6, 13)],
         r"undefined variable 'z'", kind="check-expected"),
    Case("check-expected-file-bad-json", with_lines({6: "        y = z"}), [(6, 13)],
         r"undefined variable 'z'", kind="check-expected-json"),
    Case("check-got-file-bad", with_lines({7: "        return [y"}), [(7, 16)],
         r"never closed|\[", kind="check-got"),
    # ---- paths
    Case("input-is-directory", None, None, r"directory", kind="in-dir", name="adir"),
    Case("input-missing", None, None, r"no such file|not found|does not exist",
         kind="in-missing", name="nope.relax"),
    Case("output-in-proc", None, None, r"cannot write|denied|not permitted|no such",
         kind="out-proc", name="/proc/cgraph-test.relax"),
    Case("output-under-regular-file", None, None, r"cannot write|not a directory|exist",
         kind="out-under-file", name="plain.txt/x.relax"),
    Case("output-is-directory", None, None, r"directory", kind="out-dir", name="adir"),
    Case("output-is-input", None, None, r"input", kind="out-is-input"),
    Case("output-is-input-other-spelling", None, None, r"input", kind="out-is-input-dot",
         name="./in.relax"),
    Case("usage-unknown-option", None, None, "", kind="usage"),
]

OLD_OUT = b"previous output, must survive\n"


@dataclass
class Run:
    argv: list[str]
    stdin: bytes | None = None
    out: str | None = None  # the -o file: it must not appear, or keep its old content
    watched: dict[str, bytes] = field(default_factory=dict)  # files that must stay as they are


def run_case(argv: list[str], cwd: Path, stdin: bytes | None, real_process: bool) -> CliResult:
    """The CLI as a real process, or in this process (cli_runner, in `cwd`): the first
    invocation of every case is a real process, the others in-process, which keeps the table
    within the suite's time on a 2-core machine."""
    if real_process:
        env = dict(os.environ, PYTHONPATH=str(ROOT), NO_COLOR="1")
        env.pop("CGRAPH_DEBUG", None)
        p = subprocess.run([sys.executable, "-m", "cudagraph_cli", *argv], cwd=cwd,
                           env=env, input=stdin if stdin is not None else b"",
                           capture_output=True, timeout=120)
        return CliResult(p.returncode, p.stdout.decode("utf-8", "replace"),
                         p.stderr.decode("utf-8", "replace"))
    old = os.getcwd()
    os.chdir(cwd)
    try:
        return cgraph(*argv, input=stdin if stdin is not None else b"")
    finally:
        os.chdir(old)


def runs_for(case: Case, tmp: Path) -> list[Run]:
    """Set up the files of `case` in `tmp`; the CLI invocations that must all fail."""
    data = case.data if case.data is not None else VALID
    raw = data if isinstance(data, bytes) else data.encode("utf-8")
    (tmp / "in.relax").write_bytes(raw)
    (tmp / "good.relax").write_bytes(VALID.encode())
    (tmp / "old.relax").write_bytes(OLD_OUT)
    watched = {"in.relax": raw, "good.relax": VALID.encode(), "old.relax": OLD_OUT}
    k = case.kind
    if k == "fmt":
        return [Run(["fmt", "in.relax"], watched=watched),
                Run(["fmt", "in.relax", "-o", "new.relax"], out="new.relax", watched=watched),
                Run(["fmt", "in.relax", "-o", "old.relax"], out="old.relax", watched=watched),
                Run(["fmt", "--check", "in.relax"], watched=watched)]
    if k == "stdin":
        return [Run(["fmt", "-"], stdin=raw, watched=watched),
                Run(["fmt", "-", "-o", "old.relax"], stdin=raw, out="old.relax",
                    watched=watched)]
    if k == "check-expected":
        return [Run(["check", "good.relax", "in.relax"], watched=watched)]
    if k == "check-expected-json":
        return [Run(["check", "good.relax", "in.relax", "--format", "json"], watched=watched)]
    if k == "check-got":
        return [Run(["check", "in.relax", "good.relax"], watched=watched)]
    if k == "in-dir":
        (tmp / "adir").mkdir()
        return [Run(["fmt", "adir"], watched=watched),
                Run(["fmt", "adir", "-o", "old.relax"], out="old.relax", watched=watched),
                Run(["check", "good.relax", "adir"], watched=watched)]
    if k == "in-missing":
        return [Run(["fmt", "nope.relax"], watched=watched),
                Run(["fmt", "nope.relax", "-o", "new.relax"], out="new.relax",
                    watched=watched),
                Run(["check", "good.relax", "nope.relax"], watched=watched)]
    if k == "out-proc":
        return [Run(["fmt", "in.relax", "-o", "/proc/cgraph-test.relax"],
                    out="/proc/cgraph-test.relax", watched=watched)]
    if k == "out-under-file":
        (tmp / "plain.txt").write_bytes(OLD_OUT)
        return [Run(["fmt", "in.relax", "-o", "plain.txt/x.relax"], out="plain.txt/x.relax",
                    watched={**watched, "plain.txt": OLD_OUT})]
    if k == "out-dir":
        (tmp / "adir").mkdir()
        return [Run(["fmt", "in.relax", "-o", "adir"], watched=watched)]
    if k == "out-is-input":
        return [Run(["fmt", "in.relax", "-o", "in.relax"], watched=watched),
                Run(["fmt", "in.relax", "-o", "in.relax", "--dialect", "legacy"],
                    watched=watched)]
    if k == "out-is-input-dot":
        return [Run(["fmt", "in.relax", "-o", "./in.relax"], watched=watched)]
    if k == "usage":
        return [Run(["fmt", "in.relax", "--no-such-option"], watched=watched),
                Run(["fmt", "in.relax", "--dialect", "ancient"], watched=watched),
                Run(["check", "good.relax"], watched=watched),
                Run(["check", "-", "-"], watched=watched)]
    raise AssertionError(f"unknown kind {k}")


def source_line(data: str | bytes, line: int) -> str | None:
    """Line `line` of the input as the error excerpt shows it (None: not UTF-8 text)."""
    if isinstance(data, bytes):
        try:
            data = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
        except UnicodeDecodeError:
            return None
    lines = data.replace("\r\n", "\n").split("\n")
    return lines[line - 1].expandtabs(1) if line <= len(lines) else None


def header_regex(case: Case) -> str:
    name = re.escape(case.name)
    msg = rf" error: .*(?:{case.msg})"
    options = []
    if case.at is not None:
        locs = "|".join(f"{ln}:{col if col is not None else '[0-9]+'}" for ln, col in case.at)
        options.append(rf"{name}:(?:{locs}):{msg}")
    if case.at is None or case.file_level_ok:
        options.append(rf"{name}:{msg}")
    return "^(?:" + "|".join(options) + ")"


def check_located_error(case: Case, stderr: str, what: str) -> None:
    lines = stderr.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    assert lines, f"{what}: no error message"
    first = lines[0]
    assert re.match(header_regex(case), first), \
        f"{what}: first stderr line {first!r} does not match {header_regex(case)!r}"
    m = re.match(re.escape(case.name) + r":(\d+):(\d+): error: ", first)
    if m is None:  # a file-level message: one line, no excerpt
        assert len(lines) == 1, f"{what}: file-level error with extra lines: {lines!r}"
        return
    line, col = int(m.group(1)), int(m.group(2))
    assert len(lines) == 3, f"{what}: expected message, source line, caret; got {lines!r}"
    shown = source_line(case.data if case.data is not None else VALID, line)
    if shown is not None and (not shown.isprintable() or len(shown) > 200):
        # Escaped and clipped (docs/CLI.md); tests/test_io.py checks exactly how.
        assert lines[1].isprintable() and len(lines[1]) <= 210, f"{what}: {lines[1]!r}"
        assert lines[2].strip() == "^", f"{what}: caret line {lines[2]!r}"
        return
    if shown is not None:
        assert lines[1] == shown, f"{what}: excerpt {lines[1]!r} is not line {line} {shown!r}"
    assert lines[2] == " " * (col - 1) + "^", \
        f"{what}: caret line {lines[2]!r} does not point at column {col}"


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path) -> None:
    for i, run in enumerate(runs_for(case, tmp_path)):
        what = "cgraph " + " ".join(run.argv)
        if run.out is not None and run.out not in run.watched:
            assert not (tmp_path / run.out).exists()
        p = run_case(run.argv, tmp_path, run.stdin, real_process=i == 0)
        assert "Traceback" not in p.stderr, f"{what}: traceback\n{p.stderr}"
        assert p.exit_code == 2, f"{what}: exit {p.exit_code}, stderr:\n{p.stderr}"
        if "json" in run.argv:  # the error as JSON on stdout too (docs/CLI.md)
            assert set(json.loads(p.stdout)) == {"error"}, f"{what}: {p.stdout[:200]!r}"
        else:
            assert p.stdout == "", f"{what}: wrote to stdout: {p.stdout[:200]!r}"
        for name, content in run.watched.items():
            assert (tmp_path / name).read_bytes() == content, f"{what}: {name} was modified"
        if run.out is not None and run.out not in run.watched:
            assert not (tmp_path / run.out).exists(), f"{what}: {run.out} was written"
        leftovers = sorted(x.name for x in tmp_path.iterdir() if x.name.startswith(".cgraph-"))
        assert not leftovers, f"{what}: temporary files left behind: {leftovers}"
        if case.kind != "usage":
            check_located_error(case, p.stderr, what)
