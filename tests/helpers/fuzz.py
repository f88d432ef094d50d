"""Mutation fuzzing of every sample through the CLI, in-process.

A mutant is a sample with one to three seeded random edits: token edits (delete, duplicate,
swap, replace by another token of the file or by a known troublemaker), line edits (delete,
duplicate, swap, indent, dedent, join, truncate the file) or byte edits (flip, insert, delete,
truncate). Mutant number I of seed S is the same on every machine: `mutant(S, I)`.

Each mutant goes through `cgraph fmt` (and fmt again on its output, which must be a fixed
point), `cgraph rewrite`, `cgraph diff --format json` and `cgraph verify` (mutant vs its
rewrite; skipped for big samples, whose weights make it slow). Findings:

- crash: an exception reached the CLI's last line of defence (exit 3 for a user);
- traceback: a Python traceback in the output;
- hang: over the per-mutant time limit;
- unlocated: exit 2 without `FILE:LINE:COL: error:` (LINE inside the file) or one of the
  documented file-level messages (FILE_LEVEL_OK);
- fixed-point: fmt's output does not read back, or formats differently;
- exit: an exit status other than 0, 1, 2; json: diff --format json printed something else.

Offline, many more mutants (the CI test, tests/test_fuzz.py, runs 2,000):

    python tests/helpers/fuzz.py --mutants 50000 --seed 7             # groups of findings, one example each
    python tests/helpers/fuzz.py --mutants 50000 --seed 7 --minimize DIR   # and a minimal reproducer per group
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import re
import resource
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from cli_runner import cgraph

ROOT = Path(__file__).resolve().parents[2]
# The samples the tests run on (samples/real excluded: see conftest; on sys.path when this
# runs as a script).
sys.path.insert(0, str(ROOT / "tests"))
from conftest import ALL_SAMPLES as SAMPLES  # noqa: E402
# Verify runs every function on NumPy with the module's weights; past this size it dominates.
VERIFY_MAX_BYTES = 20_000
# Big samples cost ~100x a small one per mutant: they get one mutant in BIG_EVERY.
BIG_BYTES = 20_000
BIG_EVERY = 100
TIME_LIMIT_S = 20.0
# Messages about the input as a whole that need no line (documented in docs/FORMAT.md).
FILE_LEVEL_OK = re.compile(r"nested too deeply")

TOKEN = re.compile(r'''[rbf]?"""[\s\S]*?"""|[rbf]?"[^"\n]*"|'[^'\n]*'|#[^\n]*|[A-Za-z_][A-Za-z_0-9]*'''
                   r'''|\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?|\*\*|//|->|\n|[ \t]+|.''')
TROUBLE = ["(", ")", "[", "]", "{", "}", ",", ":", "=", ".", ";", "@", "-", "*", "\\", "#",
           '"', "'", "0", "-1", "2**80", "9223372036854775808", "1e400", "-1e400", "nan",
           "None", "True", "R", "T", "I", "cls", "R.totally_made_up", "R.memory.kil_tensor",
           '"float33"', '""', "x", "return", "def", "class", "if", "else", "with", "lambda",
           "pass", "\r", "\x0c", "\x0b", "\t", "\n", "h\u00e9", "\ufeff", "\x00", "\u00a0",
           "R.prim_value(1e400)", "R.shape([-8])", "R.shape([4611686018427387904])", "T.int64(-1)",
           "R.str(\"x\")", "storage", "alloc", "gv[0]", "gv[9]", "()", "(,)", "R.tuple()"]


def mutate_tokens(text: str, rng: random.Random) -> tuple[str, str]:
    toks = TOKEN.findall(text)
    solid = [i for i, t in enumerate(toks) if not t.isspace()]
    if not solid:
        return text + rng.choice(TROUBLE), "append"
    i = rng.choice(solid)
    op = rng.choice(["delete", "duplicate", "swap", "same-file", "trouble", "insert"])
    if op == "delete":
        toks[i] = ""
    elif op == "duplicate":
        toks[i] = toks[i] * 2 if rng.random() < 0.5 else toks[i] + " " + toks[i]
    elif op == "swap":
        j = rng.choice(solid)
        toks[i], toks[j] = toks[j], toks[i]
    elif op == "same-file":
        toks[i] = toks[rng.choice(solid)]
    elif op == "trouble":
        toks[i] = rng.choice(TROUBLE)
    else:
        toks[i] = rng.choice(TROUBLE) + toks[i]
    return "".join(toks), f"token-{op}"


def mutate_lines(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    n = len(lines)
    i, j = rng.randrange(n), rng.randrange(n)
    op = rng.choice(["delete", "duplicate", "swap", "replace", "indent", "dedent", "join",
                     "truncate-file", "truncate-line"])
    if op == "delete":
        del lines[i]
    elif op == "duplicate":
        lines.insert(i, lines[i])
    elif op == "swap":
        lines[i], lines[j] = lines[j], lines[i]
    elif op == "replace":
        lines[i] = lines[j]
    elif op == "indent":
        lines[i] = rng.choice([" ", "    ", "\t", "        "]) + lines[i]
    elif op == "dedent":
        lines[i] = lines[i][rng.choice([1, 4, 8]):] if lines[i][:1] == " " else lines[i]
    elif op == "join" and i + 1 < n:
        lines[i:i + 2] = [lines[i] + lines[i + 1].lstrip()]
    elif op == "truncate-file":
        return "\n".join(lines[:i]) + ("\n" if rng.random() < 0.5 else ""), f"line-{op}"
    elif op == "truncate-line":
        cut = rng.randrange(len(lines[i]) + 1)
        return "\n".join(lines[:i] + [lines[i][:cut]]), f"line-{op}"
    return "\n".join(lines), f"line-{op}"


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    if not data:
        return bytes([rng.randrange(256)]), "byte-insert"
    i = rng.randrange(len(data))
    op = rng.choice(["flip", "set", "insert", "delete", "truncate", "utf8"])
    if op == "flip":
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:], "byte-flip"
    if op == "set":
        return data[:i] + bytes([rng.randrange(256)]) + data[i + 1:], "byte-set"
    if op == "insert":
        return data[:i] + bytes([rng.randrange(256)]) + data[i:], "byte-insert"
    if op == "delete":
        return data[:i] + data[i + 1:], "byte-delete"
    if op == "truncate":
        return data[:i], "byte-truncate"
    extra = rng.choice(["\u00e9", "\u2028", "\u200b", "\U0001f600", "\ufeff"]).encode()
    return data[:i] + extra + data[i:], "byte-utf8"


@functools.cache
def sample_bytes(path: Path) -> bytes:
    return path.read_bytes()


def sample_for(seed: int, index: int) -> Path:
    small = [p for p in SAMPLES if len(sample_bytes(p)) < BIG_BYTES]
    big = [p for p in SAMPLES if len(sample_bytes(p)) >= BIG_BYTES]
    if big and index % BIG_EVERY == BIG_EVERY - 1:
        return big[(index // BIG_EVERY) % len(big)]
    return small[index % len(small)]


def mutant(seed: int, index: int) -> tuple[Path, bytes, str]:
    """(sample, mutant bytes, what was done) of mutant `index` of `seed`."""
    rng = random.Random(f"{seed}:{index}")
    sample = sample_for(seed, index)
    data = sample_bytes(sample)
    done = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        family = rng.random()
        if family < 0.5:
            text, what = mutate_tokens(data.decode("utf-8", "surrogateescape"), rng)
            data = text.encode("utf-8", "surrogateescape")
        elif family < 0.8:
            text, what = mutate_lines(data.decode("utf-8", "surrogateescape"), rng)
            data = text.encode("utf-8", "surrogateescape")
        else:
            data, what = mutate_bytes(data, rng)
        done.append(what)
    return sample, data, "+".join(done)


class MutantTimeout(BaseException):
    """Raised by the alarm; a BaseException so that no `except Exception` in cgraph hides it."""


def _on_alarm(signum, frame):
    raise MutantTimeout()


@dataclass
class Finding:
    kind: str  # crash, traceback, hang, unlocated, fixed-point, exit, json
    command: str
    detail: str  # one line
    where: str = ""  # for a crash: the exception type and the innermost cgraph frame

    @property
    def group(self) -> str:
        if self.kind == "crash":
            return f"crash {self.where}"
        if self.kind == "unlocated":
            # Group by message shape, not by the names and numbers in it.
            msg = re.sub(r"'[^']*'|\d+", "_", self.detail.split("error:", 1)[-1].strip())[:60]
            return f"unlocated {self.command}: {msg}"
        return f"{self.kind} {self.command}"


@dataclass
class Outcome:
    findings: list[Finding] = field(default_factory=list)
    verdict: str = "rejected"  # rejected, accepted, (and what later stages did)
    verify: str = ""  # exit status of verify when run: 0 equal, 1 differ, 2 error


def _innermost(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "cudagraph_cli" in f.filename] or frames
    f = ours[-1] if ours else None
    where = f"{Path(f.filename).name}:{f.name}" if f else "?"
    return f"{type(exc).__name__} in {where}"


class Harness:
    """Runs the CLI in-process on mutants, with a time limit and a memory ceiling."""

    def __init__(self, time_limit_s: float = TIME_LIMIT_S):
        self.time_limit_s = time_limit_s
        self.dir = Path(tempfile.mkdtemp(prefix="cgraph-fuzz-"))

    def cli(self, *args: str) -> tuple[int, str, str, BaseException | None]:
        """(exit status, stdout, stderr, uncaught exception) of `cgraph ARGS`."""
        # CGRAPH_DEBUG lets an internal error through as itself, so that it can be grouped by
        # where it happened; for a user it is exit 3.
        try:
            result = cgraph(*args, env={"CGRAPH_DEBUG": "1"})
        except Exception as exc:  # noqa: BLE001 -- every escape is a finding
            return 1, "", "", exc
        return result.exit_code, result.stdout, result.stderr, None

    def check(self, data: bytes, verify: bool = True) -> Outcome:
        """Every finding on one input."""
        path = self.dir / "m.relax"
        path.write_bytes(data)
        out = Outcome()
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, self.time_limit_s)
        try:
            self._check(str(path), data, verify, out)
        except MutantTimeout:
            out.findings.append(Finding("hang", "?", f"over {self.time_limit_s:g} s"))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        return out

    def _run(self, what: str, files: dict[str, bytes], out: Outcome, *args: str):
        code, stdout, stderr, exc = self.cli(*args)
        if exc is not None:
            if isinstance(exc, MutantTimeout):
                raise exc
            out.findings.append(Finding("crash", what, f"{type(exc).__name__}: {exc}"[:300],
                                        _innermost(exc)))
            return None
        if "Traceback (most recent call last)" in stdout + stderr:
            out.findings.append(Finding("traceback", what, stderr.strip().splitlines()[-1][:300]))
        if code not in (0, 1, 2):
            out.findings.append(Finding("exit", what, f"exit {code}: {stderr[:200]}"))
            return None
        if code == 2:
            problem = rejection_problem(stderr, files)
            if problem:
                out.findings.append(Finding("unlocated", what, problem))
        return code, stdout

    def _check(self, path: str, data: bytes, verify: bool, out: Outcome) -> None:
        files = {path: data}
        r = self._run("fmt", files, out, "fmt", path)
        if r is None or r[0] != 0:
            return
        out.verdict = "accepted"
        formatted = r[1]
        fmt_path = self.dir / "f.relax"
        fmt_path.write_text(formatted, encoding="utf-8")
        r2 = self._run("fmt (its output)", {str(fmt_path): fmt_path.read_bytes()}, out,
                       "fmt", str(fmt_path))
        if r2 is not None and (r2[0] != 0 or r2[1] != formatted):
            why = "does not read back" if r2[0] != 0 else "formats differently"
            out.findings.append(Finding("fixed-point", "fmt", f"fmt's output {why}"))
        r = self._run("rewrite", files, out, "rewrite", path)
        rewritten = r[1] if r is not None and r[0] == 0 else None
        r = self._run("diff --format json", files, out, "diff", path, "--format", "json")
        if r is not None and r[0] in (0, 1):
            try:
                json.loads(r[1])
            except ValueError:
                out.findings.append(Finding("json", "diff --format json", r[1][:100]))
        if verify and rewritten is not None:
            rw_path = self.dir / "r.relax"
            rw_path.write_text(rewritten, encoding="utf-8")
            files[str(rw_path)] = rw_path.read_bytes()
            r = self._run("verify", files, out, "verify", path, str(rw_path), "--calls", "2")
            if r is not None:
                out.verify = str(r[0])


HEAD = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): error: ")


def rejection_problem(stderr: str, files: dict[str, bytes]) -> str | None:
    """None when an exit-2 message is located inside one of `files` (or a documented
    file-level message); else what is wrong with it."""
    first = stderr.split("\n", 1)[0]
    m = HEAD.match(first)
    if m is None:
        if FILE_LEVEL_OK.search(first):
            return None
        return first[:300]
    if m["file"] not in files:
        return f"names {m['file']!r}, not an input: {first[:200]}"
    text = files[m["file"]].decode("utf-8", "replace")
    n = len(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    if not 1 <= int(m["line"]) <= n:
        return f"line {m['line']} outside the file ({n} lines): {first[:200]}"
    return None


def memory_ceiling(extra_bytes: int = 3 << 30):
    """Cap the address space at its current size plus `extra_bytes`: a mutant asking for
    exabytes meets a MemoryError (a finding), not the machine's OOM killer. Returns the old
    limit, for `resource.setrlimit(resource.RLIMIT_AS, old)`."""
    old = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as fh:
        size = int(fh.read().split()[0]) * resource.getpagesize()
    limit = size + extra_bytes
    if old[1] != resource.RLIM_INFINITY:
        limit = min(limit, old[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, old[1]))
    return old


@dataclass
class Report:
    mutants: int = 0
    seconds: float = 0.0
    accepted: int = 0
    verify_differs: int = 0
    groups: Counter = field(default_factory=Counter)
    examples: dict = field(default_factory=dict)  # group -> (seed, index, sample, what, Finding)

    def summary(self, top: int = 40) -> str:
        lines = [f"{self.mutants} mutants in {self.seconds:.1f} s: {self.accepted} read by "
                 f"cgraph, {sum(self.groups.values())} finding(s) in {len(self.groups)} "
                 f"group(s); verify said 'differ' on {self.verify_differs}"]
        for group, count in self.groups.most_common(top):
            seed, index, sample, what, f = self.examples[group]
            lines.append(f"  {count:6d}  {group}\n          e.g. mutant({seed}, {index}) of "
                         f"{sample.relative_to(ROOT)} [{what}]: {f.command}: {f.detail[:160]}")
        return "\n".join(lines)


def run(seed: int, count: int, start: int = 0, progress: bool = False,
        time_limit_s: float = TIME_LIMIT_S) -> Report:
    harness = Harness(time_limit_s)
    report = Report()
    old = memory_ceiling()
    t0 = time.perf_counter()
    try:
        for index in range(start, start + count):
            sample, data, what = mutant(seed, index)
            outcome = harness.check(data, verify=len(sample_bytes(sample)) < VERIFY_MAX_BYTES)
            report.mutants += 1
            report.accepted += outcome.verdict == "accepted"
            report.verify_differs += outcome.verify == "1"
            for f in outcome.findings:
                report.groups[f.group] += 1
                report.examples.setdefault(f.group, (seed, index, sample, what, f))
            if progress and report.mutants % 1000 == 0:
                print(f"... {report.mutants} mutants, {time.perf_counter() - t0:.0f} s, "
                      f"{sum(report.groups.values())} findings", file=sys.stderr, flush=True)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old)
    report.seconds = time.perf_counter() - t0
    return report


def minimize(data: bytes, group: str, harness: Harness, verify: bool) -> bytes:
    """Fewest lines (then characters of the last line standing) that still give `group`."""

    def still(d: bytes) -> bool:
        return any(f.group == group for f in harness.check(d, verify).findings)

    lines = data.split(b"\n")
    chunk = max(len(lines) // 2, 1)
    while chunk >= 1:
        i, changed = 0, False
        while i < len(lines):
            trial = lines[:i] + lines[i + chunk:]
            if trial and still(b"\n".join(trial)):
                lines, changed = trial, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return b"\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first mutant index")
    ap.add_argument("--minimize", metavar="DIR", help="write a minimal reproducer per group")
    ap.add_argument("--show", type=int, metavar="INDEX", help="print mutant INDEX and exit")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.show is not None:
        sample, data, what = mutant(args.seed, args.show)
        print(f"# mutant({args.seed}, {args.show}) of {sample.relative_to(ROOT)}: {what}",
              file=sys.stderr)
        sys.stdout.buffer.write(data)
        return 0
    report = run(args.seed, args.mutants, args.start, progress=True)
    print(report.summary())
    if args.minimize:
        out = Path(args.minimize)
        out.mkdir(parents=True, exist_ok=True)
        harness = Harness()
        for n, (group, (seed, index, sample, what, f)) in enumerate(sorted(report.examples.items())):
            _, data, _ = mutant(seed, index)
            verify = len(sample_bytes(sample)) < VERIFY_MAX_BYTES
            small = minimize(data, group, harness, verify)
            name = re.sub(r"[^a-z0-9]+", "-", group.lower()).strip("-")[:60]
            (out / f"{n:02d}-{name}.relax").write_bytes(small)
            print(f"{out / f'{n:02d}-{name}.relax'}: {group} ({len(small)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
