"""Try the repository's pre-commit hooks (.pre-commit-hooks.yaml) as a user's project runs them:
`pre-commit try-repo` of this checkout in a temporary git repository.

Not a test of `make test`: try-repo clones the checkout and pip-installs it, with its
dependencies, into a fresh environment (about 50 s here, and it needs the package index), then
runs each hook. tests/test_golden.py runs the hooks' entries the way pre-commit calls them, in
a second; this script checks that pre-commit itself reads the manifest and installs the hooks.

    python bench/try_precommit_hooks.py [--pre-commit PATH]

Without --pre-commit, pre-commit is pip-installed into a temporary venv. The checkout's
uncommitted changes to tracked files are used (try-repo's shadow commit); a new hooks file
must be staged at least (`git add`), and committed for cgraph-check-goldens (run from a
project config at HEAD, since try-repo passes a hook no arguments). Exit 0 when every outcome is the expected one:
- cgraph-fmt passes canonical files and fails on a file `cgraph fmt` would change;
- cgraph-check-goldens (args: out/ golden/) passes equal directories, fails on a real change.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "tvm" / "static_input_with_symbolic_shape_expected.relax"


def run(args, cwd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          **kw)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pre-commit", help="a pre-commit executable (default: installed here)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        pre_commit = args.pre_commit
        if pre_commit is None:
            venv.create(top / "pc", with_pip=True)
            got = run([top / "pc" / "bin" / "python", "-m", "pip", "install", "-q",
                       "pre-commit"], top)
            if got.returncode:
                print(got.stderr[-2000:])
                return 2
            pre_commit = top / "pc" / "bin" / "pre-commit"
        repo = top / "project"
        (repo / "out").mkdir(parents=True)
        (repo / "golden").mkdir()
        cgraph = [sys.executable, "-m", "cudagraph_cli"]
        canonical = run(cgraph + ["fmt", SAMPLE], top, check=True).stdout
        (repo / "ok.relax").write_text(canonical)
        (repo / "bad.relax").write_text(canonical.replace(" = R.", " =  R.", 1))
        (repo / "golden" / "m.relax").write_text(canonical)
        (repo / "out" / "m.relax").write_text(canonical)
        for git in (["init", "-q"], ["config", "user.email", "bench@example.com"],
                    ["config", "user.name", "bench"], ["add", "."]):
            run(["git", *git], repo, check=True)
        outcomes = []

        def hook(name, files, expect, *extra):
            start = time.perf_counter()
            got = run([pre_commit, "try-repo", ROOT, name, *extra, "--files", *files], repo)
            seconds = time.perf_counter() - start
            ok = got.returncode == expect
            outcomes.append(ok)
            print(f"{'ok  ' if ok else 'FAIL'} {name} {' '.join(files)}: exit "
                  f"{got.returncode} (expected {expect}), {seconds:.1f} s")
            if not ok:
                print(got.stdout[-3000:], got.stderr[-2000:])

        hook("cgraph-fmt", ["ok.relax"], 0)
        hook("cgraph-fmt", ["ok.relax", "bad.relax"], 1)
        # try-repo takes no args for a hook: cgraph-check-goldens runs from a config of the
        # project's own, at the checkout's HEAD (the hooks file must be committed there).
        rev = run(["git", "rev-parse", "HEAD"], ROOT, check=True).stdout.strip()
        config = repo / "goldens-config.yaml"
        config.write_text(f"repos:\n- repo: {ROOT}\n  rev: {rev}\n  hooks:\n"
                          "  - id: cgraph-check-goldens\n    args: [out/, golden/]\n")
        for expect, text in ((0, canonical), (1, canonical.replace('"dummy"', '"dummy2"', 1))):
            (repo / "out" / "m.relax").write_text(text)
            run(["git", "add", "."], repo, check=True)
            start = time.perf_counter()
            got = run([pre_commit, "run", "--config", config, "--files", "out/m.relax"], repo)
            ok = got.returncode == expect
            outcomes.append(ok)
            print(f"{'ok  ' if ok else 'FAIL'} cgraph-check-goldens out/ golden/ (committed "
                  f"hooks file, rev {rev[:10]}): exit {got.returncode} (expected {expect}), "
                  f"{time.perf_counter() - start:.1f} s")
            if not ok:
                print(got.stdout[-3000:], got.stderr[-2000:])
        shutil.rmtree(repo, ignore_errors=True)
    return 0 if all(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
