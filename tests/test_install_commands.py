"""Every install command a user is shown works on a fresh machine (issue 47: the README, docs/TVM.md
and `cgraph kernels` said `pip install 'cudagraph-cli[tvm]'`, which no index has).

The commands are read where users read them: README.md, docs/, samples/ and tests/README.md,
and the string literals of cudagraph_cli/ and bench/ (error messages). cgraph installs from its
checkout, so a command that names cgraph names a path (`.`, `'.[tvm]'`, `./cgraph`) whose
extras pyproject.toml defines; any other package is one pyproject.toml already depends on
(pip resolves it from PyPI for `make test`), at the version pyproject.toml pins where it pins
one."""

from __future__ import annotations

import re
import shlex
import tomllib

from conftest import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
EXTRAS = PYPROJECT["project"]["optional-dependencies"]
# Every requirement pyproject.toml names: project name -> its specifier ("" when none).
REQUIREMENTS = {}
for spec in PYPROJECT["project"]["dependencies"] + [s for e in EXTRAS.values() for s in e]:
    name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", spec).group(0).lower()
    REQUIREMENTS.setdefault(name, set()).add(spec[len(name):].split(";")[0].strip())

# One word of a command: quoted, or up to a space or what ends the command in prose or code
# (a backtick, a bracket closing a sentence, a comma, a quote closing a string literal).
WORD = re.compile(r"""[ ]('[^']*'|"[^"]*"|[^\s`),;#'"]+)""")
PROSE = {"in", "or", "and", "to", "for", "with"}  # "... '.[tvm]' in cgraph's checkout"


def sources() -> dict[str, str]:
    """name -> text of every place a user reads an install command."""
    files = [ROOT / "README.md", ROOT / "tests" / "README.md",
             *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "samples").rglob("*.md")),
             *sorted((ROOT / "cudagraph_cli").rglob("*.py")),
             *sorted((ROOT / "bench").rglob("*.py"))]
    return {str(f.relative_to(ROOT)): f.read_text() for f in files}


def requirements(text: str) -> list[list[str]]:
    """The requirements (options left out) of each `pip install` command in `text`."""
    found = []
    for m in re.finditer(r"pip install(?!\w)", text):
        rest, at, words = text[m.end():].split("\n")[0], 0, []
        while (w := WORD.match(rest, at)) and w.group(1) not in PROSE:
            words.append(shlex.split(w.group(1))[0])
            at = w.end()
        found.append([w for w in words if not w.startswith("-")])
    return found


def install_commands() -> list[tuple[str, list[str]]]:
    """(where, the requirements of one `pip install` command), for every command shown."""
    return [(where, reqs) for where, text in sources().items() for reqs in requirements(text)]


def test_commands_read_as_pip_reads_them():
    assert requirements("Or (`pip install 'cudagraph-cli[tvm]'`):") == [["cudagraph-cli[tvm]"]]
    assert requirements('"(pip install apache-tvm==0.27.0.post1, or pip install \'.[tvm]\' in '
                        'cgraph\'s checkout)"') == [["apache-tvm==0.27.0.post1"], [".[tvm]"]]
    assert requirements("    - pip install -e '.[corpus]' pytest  # x") == [[".[corpus]", "pytest"]]


def test_the_commands_are_found():
    commands = install_commands()
    where = {w for w, _ in commands}
    # the README's two, docs/TVM.md's, the TVM pass's message, bench's corpus builders
    assert {"README.md", "docs/TVM.md", "cudagraph_cli/diagnostics.py",
            "bench/corpus/build_corpus.py"} <= where
    assert ("README.md", ["."]) in commands and ("README.md", [".[tvm]"]) in commands
    assert all(reqs for _, reqs in commands), [c for c in commands if not c[1]]


def test_each_names_the_checkout_or_a_package_pyproject_depends_on():
    for where, reqs in install_commands():
        for req in reqs:
            if req.startswith("."):
                # cgraph itself, from its checkout: each extra named must exist
                extras = re.fullmatch(r"\.[\w./-]*(?:\[([\w,-]+)\])?", req)
                assert extras, (where, req)
                for extra in (extras.group(1) or "").split(","):
                    assert not extra or extra in EXTRAS, (where, req, sorted(EXTRAS))
                continue
            name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", req).group(0).lower()
            assert name != "cudagraph-cli", f"{where}: {req} is on no package index"
            assert name in REQUIREMENTS, (where, req)
            pinned = [s for s in REQUIREMENTS[name] if s.startswith("==")]
            version = req[len(name):]
            assert not (pinned and version) or version in pinned, (where, req, pinned)


def test_the_tvm_hint_is_the_tvm_extra():
    from cudagraph_cli.diagnostics import INSTALL_TVM

    [pin] = EXTRAS["tvm"]
    assert f"pip install {pin}," in INSTALL_TVM and "'.[tvm]'" in INSTALL_TVM
    assert not any("cudagraph-cli[" in text for text in sources().values())
