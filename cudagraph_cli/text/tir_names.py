"""PrimFunc variables that TVM's reader would mistake for a module-level `TypeVar`: renamed.

TVM 0.27's printer writes `n = TypeVar("n")` at module level for a symbolic variable that
functions share, and its reader (`collect_signature_type_vars`) then defines `n` (int64) in
every function whose signature names `n`, as a name or inside a string (`"n + 1"`), unless a
parameter is called `n`. A PrimFunc with a variable of its own by that name, declared at the
top of its body (`n = T.int32()`), then fails to read: "Variable n already defined in current
scope". TVM's dumps of MLC-LLM models are such text (the paged KV cache's kernels declare
their own `batch_size`, `seq_len`, `num_pages`, while a Relax function's symbolic `batch_size`
is a module TypeVar): TVM cannot read what it printed.

The PrimFunc's own variable is not the module's (its own declaration says so): renamed
everywhere in that PrimFunc to a name used nowhere in it nor at module level (`batch_size_1`),
the text reads as the same PrimFunc (TIR variable names are not part of TVM's structural
equality), the signature names no TypeVar, and the body's declaration is the only one.

The printer prints the renamed copy and `cgraph check` compares renamed copies; cgraph's IR
keeps the PrimFunc as read.
"""

from __future__ import annotations

import ast
import re

from .. import ir
from .syntax import quote

# Names the module or TVM's reader binds for the whole text: never a fresh name.
_MODULE_NAMES = frozenset({"T", "R", "I", "tvm", "metadata", "Axis", "TypeVar", "cls"})
_TYPEVAR_LINE = re.compile(r"^([A-Za-z_]\w*)\s*=\s*TypeVar\(")
_WORD = re.compile(r"[A-Za-z_]\w*")
_NAMES_ASSIGNED = re.compile(r"([A-Za-z_][\w\s,()]*?)\s*(?::[^=]*)?=(?!=)")


def module_type_vars(globals_text) -> frozenset[str]:
    """The names the module binds to `TypeVar(...)` (its `m = TypeVar("m")` lines)."""
    return frozenset(m.group(1) for line in globals_text
                     if (m := _TYPEVAR_LINE.match(line)) is not None)


def without_shadowing(f: ir.PrimFunc, type_vars: frozenset[str]) -> ir.PrimFunc:
    """`f` with each variable its body declares at top level under the name of a module
    TypeVar that its signature mentions renamed; `f` itself when there is none."""
    renames, body = _clashes(f, type_vars)
    if not renames:
        return f
    params = [ir.replace(p, annotation=_rename_expr(p.annotation, renames),
                         shape=None if p.shape is None else
                         tuple(_rename_expr(d, renames) for d in p.shape))
              for p in f.params]
    ret = None if f.ret is None else _rename_expr(f.ret, renames)
    edits = _edits(body, renames, shapes_only=True, lines=_lines_with(f.body, renames))
    return ir.replace(f, params=params, ret=ret, body=_apply(f.body, edits))


def shadowing_renames(f: ir.PrimFunc, type_vars: frozenset[str]) -> dict[str, str]:
    """{old name: fresh name} for the variables of `f` that clash with a module TypeVar in
    TVM's reader; empty when none does, or when the body is not Python (left as written)."""
    return _clashes(f, type_vars)[0]


def _clashes(f: ir.PrimFunc, type_vars: frozenset[str]) -> tuple[dict[str, str], ast.AST]:
    """The renames, and the parsed body when there are any."""
    if not type_vars or not _may_shadow(f.body, type_vars):
        return {}, None
    try:
        body = ast.parse(f.body)
        signature = [ast.parse(text, mode="eval")
                     for text in [p.annotation for p in f.params] + [f.ret] if text]
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}, None
    params = {p.name for p in f.params}
    mentioned: set[str] = set()
    for tree in signature:
        nodes = list(ast.walk(tree))
        mentioned |= {n.id for n in nodes if isinstance(n, ast.Name)}
        for n in nodes:
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                expr = _string_expr(n.value)
                if expr is not None:
                    mentioned |= {x.id for x in ast.walk(expr) if isinstance(x, ast.Name)}
    clashing = (mentioned & type_vars) - params
    clashing &= _top_level_targets(body)
    if not clashing:
        return {}, None
    # Every word of the text is taken (names, and more: attributes, words in strings), so a
    # fresh name is no name the PrimFunc reads.
    taken = set(type_vars | _MODULE_NAMES | params | mentioned)
    taken |= set(_WORD.findall(f.body))
    renames = {}
    for name in sorted(clashing):
        i = 1
        while f"{name}_{i}" in taken:
            i += 1
        renames[name] = f"{name}_{i}"
        taken.add(renames[name])
    return renames, body


def _may_shadow(body: str, type_vars: frozenset[str]) -> bool:
    """A cheap filter before parsing the body: whether a line at its top level is an
    assignment to names (`n = ...`, `N, H = ...`, `n: T.int32 = ...`) one of which is a module
    TypeVar (what `_top_level_targets` finds, and more: a line inside brackets)."""
    for line in body.split("\n"):
        m = _NAMES_ASSIGNED.match(line)
        if m is not None and not type_vars.isdisjoint(_WORD.findall(m.group(1))):
            return True
    return False


def _top_level_targets(body: ast.Module) -> set[str]:
    """Names the body's top-level assignments bind: TVM's reader defines them in the frame
    where it put the signature's TypeVars (nested statements have frames of their own)."""
    names: set[str] = set()
    for stmt in body.body:
        targets = stmt.targets if isinstance(stmt, ast.Assign) else \
            [stmt.target] if isinstance(stmt, ast.AnnAssign) else []
        for t in targets:
            names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def _string_expr(value: str) -> ast.AST | None:
    """A string's text read as an expression, as TVM reads a string shape (`"n + 1"`)."""
    try:
        return ast.parse(value, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _rename_expr(text: str, renames: dict[str, str]) -> str:
    """A signature's expression (an annotation, a shape) with the names renamed, in it and in
    all its strings (TVM's reader reads each string of a signature as an expression)."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return text
    return _apply(text, _edits(tree, renames, shapes_only=False))


def _lines_with(text: str, renames: dict[str, str]) -> set[int]:
    """The numbers (from 1) of the lines of `text` with a word to rename."""
    return {i for i, line in enumerate(text.split("\n"), 1)
            if not renames.keys().isdisjoint(_WORD.findall(line))}


def _walk(tree: ast.AST, lines: set[int] | None):
    """ast.walk, not entering a node on lines none of which is in `lines` (a kernel body is
    hundreds of lines; its variable is on a few)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            first = getattr(child, "lineno", None)
            if lines is None or first is None or \
                    not lines.isdisjoint(range(first, child.end_lineno + 1)):
                todo.append(child)


def _edits(tree: ast.AST, renames: dict[str, str], shapes_only: bool,
           lines: set[int] | None = None) -> list[tuple[int, int, int, str]]:
    """(line, start byte, end byte, new text): every Name of a renamed variable, and every
    string mentioning one, rewritten with the names inside it renamed. `shapes_only`: only
    the strings that are elements of tuples and lists (in a body, shapes such as
    `T.match_buffer(h, ("n + 1",))`; not block names or thread tags). `lines`: where the
    words to rename are, when known."""
    edits = []
    strings = []
    for n in _walk(tree, lines):
        if isinstance(n, ast.Name):
            if n.id in renames:
                edits.append((n.lineno, n.col_offset, n.end_col_offset, renames[n.id]))
        elif shapes_only:
            if isinstance(n, (ast.Tuple, ast.List)):
                strings += [e for e in n.elts
                            if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        elif isinstance(n, ast.Constant) and isinstance(n.value, str):
            strings.append(n)
    for s in strings:
        if s.lineno != s.end_lineno or renames.keys().isdisjoint(_WORD.findall(s.value)):
            continue
        expr = _string_expr(s.value)
        if expr is None:
            continue
        inner = [(x.col_offset, x.end_col_offset, renames[x.id]) for x in ast.walk(expr)
                 if isinstance(x, ast.Name) and x.id in renames]
        if inner:
            edits.append((s.lineno, s.col_offset, s.end_col_offset,
                          quote(_replace(s.value, inner))))
    return edits


def _replace(text: str, spans: list[tuple[int, int, str]]) -> str:
    """`text` with the (start byte, end byte, new text) spans replaced (ast counts columns in
    UTF-8 bytes)."""
    raw = text.encode()
    for start, end, new in sorted(spans, reverse=True):
        raw = raw[:start] + new.encode() + raw[end:]
    return raw.decode()


def _apply(text: str, edits: list[tuple[int, int, int, str]]) -> str:
    lines = text.split("\n")
    by_line: dict[int, list] = {}
    for line, start, end, new in edits:
        by_line.setdefault(line, []).append((start, end, new))
    for line, spans in by_line.items():
        lines[line - 1] = _replace(lines[line - 1], spans)
    return "\n".join(lines)
