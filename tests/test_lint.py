"""pyflakes over the package, the tests and the benchmarks: an undefined name (a path no test
runs yet) or an unused import fails here, not on a user's machine."""

from __future__ import annotations

import ast
import io
import os
from pathlib import Path

import pytest

from conftest import ROOT


def test_pyflakes_is_clean():
    try:
        from pyflakes import api
        from pyflakes.reporter import Reporter
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("pyflakes is required on CI (make test installs it)")
        pytest.skip("pyflakes not installed (run `make test`)")

    out, err = io.StringIO(), io.StringIO()
    n = api.checkRecursive([str(ROOT / d) for d in ("cudagraph_cli", "tests", "bench")],
                           Reporter(out, err))
    assert n == 0, out.getvalue() + err.getvalue()
    # And it does see what it is for.
    bad = io.StringIO()
    assert api.check("def f():\n    return undefined_name\n", "x.py", Reporter(bad, bad)) == 1


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _defined_private_names(tree) -> set[str]:
    """The underscore names a module defines: functions, classes, methods, assigned names and
    attributes (`self._x = ...`)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
    return {n for n in out if _is_private(n)}


def private_uses(sources: dict[str, str], package: str = "cudagraph_cli") -> list[str]:
    """Where a module of `sources` (module name -> text) uses an underscore name of another:
    `from .x import _y`, or `obj._y` where `_y` is defined only in other modules. A third party's
    private name (`tvm...entry._default_globals`) is not cgraph's to keep and is not counted."""
    trees = {name: ast.parse(text) for name, text in sources.items()}
    defined = {name: _defined_private_names(tree) for name, tree in trees.items()}
    found = []
    for name, tree in trees.items():
        elsewhere = set().union(*(d for n, d in defined.items() if n != name)) - defined[name]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and \
                    (node.level or (node.module or "").startswith(package)):
                found += [f"{name}:{node.lineno}: imports {a.name}" for a in node.names
                          if _is_private(a.name)]
            elif isinstance(node, ast.Attribute) and node.attr in elsewhere:
                found.append(f"{name}:{node.lineno}: uses .{node.attr}")
    return found


def test_no_module_uses_another_modules_underscore_names():
    package = ROOT / "cudagraph_cli"
    sources = {".".join(p.relative_to(ROOT).with_suffix("").parts): p.read_text(encoding="utf-8")
               for p in package.rglob("*.py")}
    assert private_uses(sources) == []
    # And it does see what it is for: an import of a private name, and a private method called
    # on another module's object.
    seen = private_uses({"cudagraph_cli.a": "def _f(): pass\nclass P:\n    def _m(self): pass\n",
                         "cudagraph_cli.b": "from .a import _f\n\ndef g(p):\n    p._m()\n"})
    assert seen == ["cudagraph_cli.b:1: imports _f", "cudagraph_cli.b:4: uses ._m"]


def _imports(module: str, tree, package: str, is_package: bool = False) -> set[str]:
    """The modules of `package` that `module` imports, at any depth of its code (a lazy import
    inside a function still makes a cycle, only a later one). `is_package`: `module` is a
    package's __init__, whose relative imports resolve from the package itself (`from .x`
    in cudagraph_cli/tvm/__init__.py is cudagraph_cli.tvm.x)."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            out.add(target)
            out.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith(package)}


def package_sources(directory: Path, package: str) -> tuple[dict, set]:
    """(module name -> text, the names that are packages) of the package in `directory`: a
    package's __init__ is the package itself."""
    sources, packages = {}, set()
    for p in directory.rglob("*.py"):
        parts = (package, *p.relative_to(directory).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            packages.add(".".join(parts))
        sources[".".join(parts)] = p.read_text(encoding="utf-8")
    return sources, packages


def import_cycles(sources: dict[str, str], package: str = "cudagraph_cli",
                  packages: set = frozenset()) -> list[list[str]]:
    """The cycles among the modules of `sources` (module name -> text), as paths. `packages`:
    the names in `sources` that are packages (their __init__'s text)."""
    graph = {name: sorted(_imports(name, ast.parse(text), package, name in packages)
                          & set(sources) - {name})
             for name, text in sources.items()}
    cycles, done = [], set()

    def visit(node, path):
        if node in path:
            cycles.append(path[path.index(node):] + [node])
            return
        if node in done:
            return
        for nxt in graph[node]:
            visit(nxt, path + [node])
        done.add(node)

    for name in sorted(graph):
        visit(name, [])
    return cycles


def test_no_import_cycle():
    sources, packages = package_sources(ROOT / "cudagraph_cli", "cudagraph_cli")
    assert "cudagraph_cli.tvm" in packages
    assert import_cycles(sources, packages=packages) == []
    # And it does see one: the parser <-> ir_builder cycle as it was.
    seen = import_cycles({"cudagraph_cli.text.parser": "def f():\n    from .ir_builder import B\n",
                          "cudagraph_cli.text.ir_builder": "from .parser import parse_syntax\n"})
    assert seen == [["cudagraph_cli.text.ir_builder", "cudagraph_cli.text.parser",
                     "cudagraph_cli.text.ir_builder"]]


def test_an_import_cycle_through_an_init_is_seen(tmp_path):
    # a temporary package shaped as cudagraph_cli/tvm was: its __init__ imports a module that
    # imports the package back (lazily, inside a function)
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from .user import use\n\ndef Pass(): pass\n")
    (pkg / "sub" / "user.py").write_text("def use():\n    from . import Pass\n    return Pass\n")
    (pkg / "sub" / "leaf.py").write_text("from .user import use\n")
    sources, packages = package_sources(pkg, "pkg")
    assert packages == {"pkg", "pkg.sub"}
    assert import_cycles(sources, "pkg", packages) == [["pkg.sub", "pkg.sub.user", "pkg.sub"]]
    # the __init__'s `from .user` is pkg.sub.user, not pkg.user
    assert _imports("pkg.sub", ast.parse(sources["pkg.sub"]), "pkg", True) == \
        {"pkg.sub.user", "pkg.sub.user.use"}


# The floors of the package, lowest first: a module imports only from its own floor or below.
# A name is a top-level module or subpackage of cudagraph_cli; "" is the package itself (its
# __init__, which re-exports the public API). ir knows nothing of text, passes nothing of exec,
# and only `cgraph` (__main__) imports cli.
FLOORS = (
    ("diagnostics",),                         # located errors, used by every floor
    ("ir",),                                  # the data: nodes, struct info, equality
    ("text",),                                # TVMScript in and out
    ("passes",),                              # the rewrite
    ("exec", "proof"),                        # the NumPy reference executor, verify; the
                                              # static proof beside it (each uses the other)
    ("cuda",),                                # the GPU stack
    ("report",),                              # diff facts and views (a run's view: cuda)
    ("api", "commands", "tvm", "gen", "fileio", "golden", "pytest_plugin", ""),  # the library's top
    ("cli",),                                 # the click command line over it
    ("__main__",),
)


def _module_names(package_dir, package: str = "cudagraph_cli") -> dict[str, str]:
    """Dotted name -> text of each file of the package; a package's own file keeps its
    `__init__` in the name, so that its relative imports resolve from the package."""
    return {".".join(p.relative_to(package_dir.parent).with_suffix("").parts):
            p.read_text(encoding="utf-8") for p in package_dir.rglob("*.py")}


def _imported(module: str, tree, known: set[str], package: str) -> set[str]:
    """The modules of `package` that `module` imports, at any depth of its code (an import
    inside a function is an import too, only a later one). `from .. import ir` imports the
    subpackage ir, not the package above it."""
    here = module.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = here[:len(here) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for a in node.names:
                sub = f"{target}.{a.name}"
                out.add(sub if sub in known or f"{sub}.__init__" in known else target)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m == package or m.startswith(package + ".")}


def _floor_name(module: str, package: str) -> str:
    parts = module.split(".")[1:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return parts[0] if parts else ""


def floor_violations(sources: dict[str, str], floors=FLOORS,
                     package: str = "cudagraph_cli") -> list[str]:
    """Where a module of `sources` (dotted file name -> text) imports from a floor above its
    own, or is on no floor at all."""
    level = {name: i for i, floor in enumerate(floors) for name in floor}
    known = set(sources)
    found = []
    for module, text in sorted(sources.items()):
        own = _floor_name(module, package)
        if own not in level:
            found.append(f"{module}: on no floor (add '{own}' to FLOORS)")
            continue
        for target in sorted(_imported(module, ast.parse(text), known, package)):
            if target.endswith(".__init__"):
                target = target[:-len(".__init__")]
            if level.get(_floor_name(target, package), -1) > level[own]:
                found.append(f"{module} imports {target}, a floor above it")
    return found


def test_each_module_imports_only_from_its_floor_or_below():
    assert floor_violations(_module_names(ROOT / "cudagraph_cli")) == []
    # And it does see what it is for: ir reaching up to text (in a function, as equality's
    # printing once did), passes reaching exec, the library importing cli, a module on no
    # floor; not a subpackage imported from the package (`from .. import ir`).
    seen = floor_violations({
        "cudagraph_cli.ir.__init__": "from .nodes import Var\n",
        "cudagraph_cli.ir.nodes": "class Var: pass\n",
        "cudagraph_cli.ir.sinfo": "from .. import ir\n",
        "cudagraph_cli.ir.equality": "def f():\n    from ..text.printer import Printer\n",
        "cudagraph_cli.text.printer": "from .. import ir\n",
        "cudagraph_cli.passes.rewriter": "from ..exec import interpreter\n",
        "cudagraph_cli.exec.interpreter": "from ..ir import nodes\n",
        "cudagraph_cli.api": "import cudagraph_cli.cli\n",
        "cudagraph_cli.cli": "from . import api, __version__\n",
        "cudagraph_cli.helpers2": "",
    })
    assert seen == ["cudagraph_cli.api imports cudagraph_cli.cli, a floor above it",
                    "cudagraph_cli.helpers2: on no floor (add 'helpers2' to FLOORS)",
                    "cudagraph_cli.ir.equality imports cudagraph_cli.text.printer, a floor "
                    "above it",
                    "cudagraph_cli.passes.rewriter imports cudagraph_cli.exec.interpreter, a "
                    "floor above it"]
