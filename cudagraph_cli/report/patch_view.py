"""`cgraph diff --format unified`: a unified diff that applies to the input file as a patch.

The left side is the input's own text, byte for byte (its line ends, its byte-order mark,
its last line without a newline). The right side is that text with only what the rewrite
changed replaced: a function the rewrite did not change keeps its original text; in a Relax
function it changed, each binding it did not change keeps its original lines (located by
the parser's line numbers) and only the bindings it changed, and the functions it added,
come from cgraph's printer. So `patch IN < diff` gives a module that `cgraph check` finds
equal to `cgraph rewrite IN`, and the hunks are the rewrite's own change. Why not the diff of
the two canonical texts, which has as many hunks: its left side is cgraph's printing of IN,
not IN, so `patch` cannot apply it to the file a user has (docs/DIFF.md, "Size").

The layout is read from line numbers only (the parser keeps no end positions): a function
runs from its decorator to the line before the next function's decorator, less trailing
blank lines and class-level comments; a binding from its first line to the line before the
next binding. Where that reading could be wrong (a decorator on two lines, an unusual
indentation, a printer that renamed a variable) the text built is parsed back and compared
with what it must equal; when it differs, the changed functions are printed whole, and when
that differs too, the whole right side is cgraph's canonical text: always a valid patch,
only larger. `PatchText.granularity` says which one was used.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from .. import ir
from ..diagnostics import SourceError
from ..text.difference import module_difference
from ..text.printer import FunctionPrinter, Printer, print_module
from ..text.reader import parse_module

CONTEXT = 3  # lines of context around each change, as `diff -u`

# A line and its end, as the reader counts lines (lexer.normalize_source): `\r\n`, a lone
# `\r` and `\n` each end one. str.splitlines would also split at \x0c, \x1c, \u2028 ...,
# which the reader does not, and the line numbers would drift.
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(text: str) -> list[str]:
    """The lines of `text`, each with its own line end (the last one may have none)."""
    return _LINE.findall(text)


@dataclass(frozen=True)
class Edit:
    """Replace the original's lines [start, stop) (0-based) with `lines` (start == stop: an
    insertion before line `start`)."""

    start: int
    stop: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class PatchText:
    """The right side of the patch as edits of the left side, and how fine they are:
    "binding" (unchanged bindings keep their text), "function" (changed functions printed
    whole), "module" (the canonical text of the whole module) or "text" (another file's
    own text, the two-file form)."""

    original: tuple[str, ...]
    edits: tuple[Edit, ...]
    granularity: str

    def text(self) -> str:
        return "".join(apply_edits(self.original, self.edits))


def apply_edits(original, edits) -> list[str]:
    out: list[str] = []
    at = 0
    for e in edits:
        out.extend(original[at:e.start])
        out.extend(e.lines)
        at = e.stop
    out.extend(original[at:])
    return out


# ---- where each function and binding is in the original text -------------------------------

def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _blank(line: str) -> bool:
    return not line.strip()


class Layout:
    """The line spans of a module's functions in its own text (0-based, stop exclusive), or
    `ok` False when the text does not look as the reader's line numbers say."""

    def __init__(self, lines: list[str], module: ir.Module):
        self.lines = lines
        self.spans: dict[str, tuple[int, int]] = {}
        self.def_indent = "    "
        self.body_indent = "        "
        self.ok = self._read(module)

    def _read(self, module: ir.Module) -> bool:
        lines = self.lines
        defs = []
        for f in module.functions:
            i = f.loc.line - 1
            if not 0 <= i < len(lines) or not lines[i].lstrip().startswith("def "):
                return False
            start = i
            while start > 0 and lines[start - 1].lstrip().startswith("@"):
                start -= 1
            if start == i:
                return False  # a function without its decorator line: not TVMScript we know
            defs.append((f.name, start, i))
        if not defs:
            return True
        if [d[1] for d in defs] != sorted(d[1] for d in defs):
            return False
        self.def_indent = _indent(lines[defs[0][2]])
        level = len(self.def_indent)
        body = next((ln for ln in lines[defs[0][2] + 1:] if not _blank(ln)), None)
        if body is not None and len(_indent(body)) > level:
            self.body_indent = _indent(body)
        # The class ends at the first line after the last `def` indented less than it (the
        # metadata comment TVM prints, the end of the file).
        last_def = defs[-1][2]
        class_end = next((j for j in range(last_def + 1, len(lines))
                          if not _blank(lines[j]) and len(_indent(lines[j])) < level),
                         len(lines))
        for k, (name, start, i) in enumerate(defs):
            stop = defs[k + 1][1] if k + 1 < len(defs) else class_end
            # Blank lines and class-level comments after a function separate it from the
            # next one: they stay when the function is replaced.
            while stop > i + 1 and (_blank(lines[stop - 1]) or (
                    lines[stop - 1].lstrip().startswith("#")
                    and len(_indent(lines[stop - 1])) <= level)):
                stop -= 1
            self.spans[name] = (start, stop)
        return True

    def reindent(self, printed: list[str], newline: str) -> list[str]:
        """Printed lines (4 spaces a level) in this text's indentation and line end: the
        class level and the function-body level are this text's, deeper levels keep the
        printer's steps below them (a block is consistent with itself, which is all Python
        asks)."""
        out = []
        for line in printed:
            if line.startswith("        "):
                line = self.body_indent + line[8:]
            elif line.startswith("    "):
                line = self.def_indent + line[4:]
            out.append(line + newline)
        return out


def _newline(lines: list[str]) -> str:
    for line in lines:
        for end in ("\r\n", "\n", "\r"):
            if line.endswith(end):
                return end
    return "\n"


# ---- the printed pieces of a Relax function -----------------------------------------------

class _UnitPrinter(FunctionPrinter):
    """Records where each top-level binding's lines start and stop in the printed output."""

    def __init__(self, p: Printer, class_name: str):
        super().__init__(p, class_name)
        self.units: list[tuple[object, int, int]] = []
        self.depth = 0
        self.dataflow = False

    def blocks(self, blocks, ind, out):
        if any(b.is_dataflow for b in blocks):
            self.dataflow = True
        super().blocks(blocks, ind, out)

    def emit_binding(self, b, ind, out):
        start = len(out)
        self.depth += 1
        try:
            super().emit_binding(b, ind, out)
        finally:
            self.depth -= 1
        if self.depth == 0:
            self.units.append((b, start, len(out)))


@dataclass
class PrintedFunction:
    """A Relax function printed in pieces: its head (decorator to `cls = ...`), each
    top-level binding's lines, and its tail (`return`)."""

    head: list[str]
    bindings: list[tuple[object, list[str]]]
    tail: list[str]
    dataflow: bool

    def all_lines(self) -> list[str]:
        return self.head + [ln for _, lines in self.bindings for ln in lines] + self.tail


def print_pieces(f: ir.Function, printer: Printer, class_name: str) -> PrintedFunction:
    p = _UnitPrinter(printer, class_name)
    out: list[str] = []
    p.function(f, out)
    if not p.units:
        return PrintedFunction(out[:-1], [], out[-1:], p.dataflow)
    first, last = p.units[0][1], p.units[-1][2]
    return PrintedFunction(out[:first], [(b, out[s:e]) for b, s, e in p.units], out[last:],
                           p.dataflow)


def print_function(f, module: ir.Module, printer: Printer) -> list[str]:
    """One function as the printer writes it inside the class (4 spaces a level)."""
    if isinstance(f, ir.Function):
        out: list[str] = []
        FunctionPrinter(printer, module.name).function(f, out)
        return out
    # A PrimFunc: through a module of its own (the rewrite never changes or adds one).
    alone = ir.Module(module.name, [f], module.decorator_args, module.globals_text, (),
                      module.dialect, module.loc)
    text = printer.module(alone).split("\n")
    start = next(i for i, ln in enumerate(text) if ln.startswith("class ")) + 1
    body = text[start:]
    while body and (not body[-1].strip() or body[-1].startswith("#")):
        body.pop()
    return body


# ---- building the right side -----------------------------------------------------------------

def _binding_edits(f: ir.Function, g: ir.Function, layout: Layout, printer: Printer,
                   class_name: str, newline: str) -> list[Edit] | None:
    """Edits that turn Relax function `f`'s text into `g`'s, keeping the lines of every
    binding (and the head and the return) whose printed text is the same in both; None when
    `f`'s text cannot be cut into bindings by line numbers."""
    old = print_pieces(f, printer, class_name)
    new = print_pieces(g, printer, class_name)
    if old.dataflow or new.dataflow or not old.bindings:
        return None  # `with R.dataflow():` / `R.output(...)` lines belong to no binding
    lines = layout.lines
    start, stop = layout.spans[f.name]
    firsts = []
    for b, _ in old.bindings:
        i = b.loc.line - 1
        if not start < i < stop or lines[i][:b.loc.col - 1].strip():
            return None  # not at the start of its own line
        firsts.append(i)
    if firsts != sorted(set(firsts)):
        return None
    ret = stop - 1
    while ret > firsts[-1] and not lines[ret].lstrip().startswith("return"):
        ret -= 1
    if ret == firsts[-1]:
        return None
    # Each piece of f: its printed text (what is compared) and its lines in the source.
    old_spans = [(start, firsts[0])] + [(a, b) for a, b in zip(firsts, firsts[1:] + [ret])] \
        + [(ret, stop)]
    # The printer's head says `cls = Module` whenever the function names a global: compared
    # without it (a source that spelled `Module.f` has no such line), and added below.
    old_keys = [("head", *_without_cls(old.head))] + [("b", *t) for _, t in old.bindings] + \
        [("tail", *old.tail)]
    new_texts = [new.head] + [t for _, t in new.bindings] + [new.tail]
    new_keys = [("head", *_without_cls(new.head))] + [("b", *t) for _, t in new.bindings] + \
        [("tail", *new.tail)]
    edits = []
    matcher = difflib.SequenceMatcher(None, old_keys, new_keys, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            if i1 == 0 and _defines_cls(new.head) and not _defines_cls(lines[start:firsts[0]]):
                # The head is kept and the rewrite's `cls.f` needs the alias: before the first
                # binding (sorted before any edit there: an insertion, made first).
                edits.append(Edit(firsts[0], firsts[0], tuple(layout.reindent(
                    [ln for ln in new.head if _defines_cls([ln])], newline))))
            continue
        at = old_spans[i1][0] if i1 < len(old_spans) else stop
        end = old_spans[i2 - 1][1] if i2 > i1 else at
        printed = [ln for t in new_texts[j1:j2] for ln in t]
        edits.append(Edit(at, end, tuple(layout.reindent(printed, newline))))
    return edits


def _defines_cls(lines) -> bool:
    return any(line.strip().replace(" ", "").startswith("cls=") for line in lines)


def _without_cls(lines: list[str]) -> list[str]:
    return [ln for ln in lines if not _defines_cls([ln])]


def _function_edits(f, g, layout: Layout, printer: Printer, module: ir.Module,
                    newline: str) -> list[Edit]:
    start, stop = layout.spans[f.name]
    return [Edit(start, stop, tuple(layout.reindent(print_function(g, module, printer),
                                                    newline)))]


def _unchanged(f, g, printer: Printer, class_name: str) -> bool:
    if f is g:
        return True
    if isinstance(f, ir.PrimFunc) or isinstance(g, ir.PrimFunc):
        return type(f) is type(g) and f == g
    return print_pieces(f, printer, class_name).all_lines() == \
        print_pieces(g, printer, class_name).all_lines()


def _edits(lines: list[str], layout: Layout, before: ir.Module, target: ir.Module,
           fine: bool, replacement=None) -> list[Edit] | None:
    """Edits of `lines` (the text of `before`) that give `target`'s functions, in `target`'s
    order; None when the functions' order changed. `replacement(g)`: the lines of a changed
    or new function `g` (default: printed)."""
    printer = Printer(before.dialect)
    newline = _newline(lines)
    old_names = [f.name for f in before.functions]
    kept = [g.name for g in target.functions if before.function(g.name) is not None]
    if kept != [n for n in old_names if n in set(kept)]:
        return None
    edits: list[Edit] = []
    pending: list[str] = []  # new functions' lines, placed before the next original function

    def flush(at: int, after_function: bool):
        if not pending:
            return
        blank = newline
        block = [blank] + pending if after_function else pending + [blank]
        edits.append(Edit(at, at, tuple(block)))
        pending.clear()

    def new_lines(g) -> list[str]:
        if replacement is not None:
            return replacement(g)
        return layout.reindent(print_function(g, target, printer), newline)

    last_stop = None
    target_names = {g.name for g in target.functions}
    for f in before.functions:
        if f.name not in target_names:
            start, stop = layout.spans[f.name]
            edits.append(Edit(start, stop, ()))
    for g in target.functions:
        f = before.function(g.name)
        if f is None:
            if pending:
                pending.append(newline)
            pending.extend(new_lines(g))
            continue
        start, stop = layout.spans[f.name]
        flush(start, after_function=False)
        last_stop = stop
        if _unchanged(f, g, printer, before.name):
            continue
        if replacement is not None:
            edits.append(Edit(start, stop, tuple(replacement(g))))
            continue
        got = None
        if fine and isinstance(f, ir.Function) and isinstance(g, ir.Function):
            got = _binding_edits(f, g, layout, printer, before.name, newline)
        edits.extend(got if got is not None else
                     _function_edits(f, g, layout, printer, target, newline))
    if pending:
        if last_stop is None:
            return None  # a module with no function of the original's: print it whole
        flush(last_stop, after_function=True)
    edits.sort(key=lambda e: (e.start, e.stop))
    return _end_with_newline(lines, edits, newline)


def _end_with_newline(lines: list[str], edits: list[Edit], newline: str) -> list[Edit]:
    """Lines added after a last line that has no line end would be glued to it: the last
    line is then replaced by itself with one."""
    if not lines or lines[-1].endswith(("\n", "\r")):
        return edits
    last = len(lines) - 1
    out = []
    for e in edits:
        if e.stop == len(lines) and e.start == len(lines) and e.lines:
            e = Edit(last, len(lines), (lines[last] + newline,) + e.lines)
        out.append(e)
    return out


def _disjoint(edits: list[Edit]) -> bool:
    return all(a.stop <= b.start for a, b in zip(edits, edits[1:]))


def _same(text: str, expected: ir.Module, name: str) -> bool:
    try:
        got = parse_module(text, name)
    except SourceError:
        return False
    return module_difference(got, expected) is None


def selected(before: ir.Module, after: ir.Module, names: set[str] | None) -> ir.Module:
    """The module a patch of `names` gives: `after`'s functions named, `before`'s others."""
    if names is None:
        return after
    functions = []
    for g in after.functions:
        if g.name in names:
            functions.append(g)
        elif before.function(g.name) is not None:
            functions.append(before.function(g.name))
    for f in before.functions:
        if after.function(f.name) is None:
            functions.append(f)
    # What the text says outside the functions stays IN's: a patch of some functions
    # keeps the rest of the file (TVM's expected modules are `class Expected`).
    return ir.Module(before.name, functions, before.decorator_args, before.globals_text,
                     before.leading_comments, before.dialect, before.loc)


def rewrite_patch(original_text: str, before: ir.Module, after: ir.Module,
                  names: set[str] | None = None, name: str = "<input>") -> PatchText:
    """The patch that turns `original_text` (the text `before` was read from) into a text of
    `after` (`names`: only these functions of `after`, the others as they were)."""
    lines = split_lines(original_text)
    target = selected(before, after, names)
    layout = Layout(lines, before)
    if layout.ok and _header_same(before, target):
        for fine in (True, False):
            edits = _edits(lines, layout, before, target, fine)
            if edits is None:
                break
            if not _disjoint(edits):
                continue
            patch = PatchText(tuple(lines), tuple(edits), "binding" if fine else "function")
            if _same(patch.text(), target, name):
                return patch
    return _whole(lines, print_module(target))


def text_patch(original_text: str, other_text: str, before: ir.Module, after: ir.Module,
               names: set[str] | None = None, name: str = "<input>") -> PatchText:
    """The two-file form: `original_text` into `other_text` (the text `after` was read
    from); with `names`, only those functions, each taken whole from `other_text`."""
    lines = split_lines(original_text)
    other = split_lines(other_text)
    if names is None:
        return _whole(lines, other_text, "text")
    target = selected(before, after, names)
    layout, other_layout = Layout(lines, before), Layout(other, after)
    if layout.ok and other_layout.ok and _header_same(before, target):
        newline = _newline(lines)

        def own_text(g) -> list[str]:
            start, stop = other_layout.spans[g.name]
            return [ln if ln.endswith(("\n", "\r")) else ln + newline
                    for ln in other[start:stop]]

        edits = _edits(lines, layout, before, target, False, own_text)
        if edits is not None and _disjoint(edits):
            patch = PatchText(tuple(lines), tuple(edits), "text")
            if _same(patch.text(), target, name):
                return patch
    # OUT's text read in IN's class (its `cls = Expected` in `class Before`): printed.
    return rewrite_patch(original_text, before, after, names, name)


def _header_same(a: ir.Module, b: ir.Module) -> bool:
    """What the text says outside the functions (read, not compared, by `cgraph check`, but
    a patch that keeps the original's must not lose a change there)."""
    return (a.name, a.decorator_args, a.globals_text, a.dialect) == \
        (b.name, b.decorator_args, b.globals_text, b.dialect)


def _whole(lines: list[str], text: str, granularity: str = "module") -> PatchText:
    return PatchText(tuple(lines), (Edit(0, len(lines), tuple(split_lines(text))),),
                     granularity)


# ---- the unified diff ----------------------------------------------------------------------

def _opcodes(patch: PatchText):
    """difflib-style opcodes over (original, patched) lines; each edit's own lines are
    compared with what they replace, so that a line printed as it was is context, not
    change."""
    original = patch.original
    ops = []
    i = j = 0
    for e in patch.edits:
        if e.start > i:
            ops.append(("equal", i, e.start, j, j + e.start - i))
            j += e.start - i
        sub = difflib.SequenceMatcher(None, original[e.start:e.stop], e.lines, autojunk=False)
        for tag, a1, a2, b1, b2 in sub.get_opcodes():
            ops.append((tag, e.start + a1, e.start + a2, j + b1, j + b2))
        j += len(e.lines)
        i = e.stop
    if len(original) > i:
        ops.append(("equal", i, len(original), j, j + len(original) - i))
    merged = []
    for op in ops:
        if op[1] == op[2] and op[3] == op[4]:
            continue
        if merged and merged[-1][0] == op[0] == "equal":
            t, a1, _, b1, _ = merged[-1]
            merged[-1] = (t, a1, op[2], b1, op[4])
        else:
            merged.append(op)
    return merged


def _groups(ops, n: int = CONTEXT):
    """difflib.SequenceMatcher.get_grouped_opcodes over given opcodes."""
    if not ops or all(op[0] == "equal" for op in ops):
        return
    ops = list(ops)
    if ops[0][0] == "equal":
        t, i1, i2, j1, j2 = ops[0]
        ops[0] = t, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if ops[-1][0] == "equal":
        t, i1, i2, j1, j2 = ops[-1]
        ops[-1] = t, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    nn = n + n
    group = []
    for t, i1, i2, j1, j2 in ops:
        if t == "equal" and i2 - i1 > nn:
            group.append((t, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            yield group
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((t, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        yield group


def _range(start: int, length: int) -> str:
    """As `diff -u` writes a hunk's range (difflib._format_range_unified)."""
    beginning = start + 1
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


def _line(prefix: str, line: str) -> str:
    if line.endswith(("\n", "\r")):
        return prefix + line
    return prefix + line + "\n\\ No newline at end of file\n"


def unified(patch: PatchText, old_label: str, new_label: str) -> str:
    """The unified diff of the patch ("" when it changes nothing)."""
    new = apply_edits(patch.original, patch.edits)
    old = patch.original
    out = []
    for group in _groups(_opcodes(patch)):
        if not out:
            out.append(f"--- {old_label}\n+++ {new_label}\n")
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2] - first[1])} "
                   f"+{_range(first[3], last[4] - first[3])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_line(" ", ln) for ln in old[i1:i2])
                continue
            out.extend(_line("-", ln) for ln in old[i1:i2])
            out.extend(_line("+", ln) for ln in new[j1:j2])
    return "".join(out)


def count_hunks(diff: str) -> int:
    return sum(1 for line in diff.split("\n") if line.startswith("@@ "))


def render_patch(in_text: str, before: ir.Module, after: ir.Module, in_name: str,
                 out_text: str | None = None, out_name: str | None = None,
                 names: set[str] | None = None) -> str:
    """`cgraph diff --format unified`. One-file form (`out_text` None): the patch of IN's own
    text by the rewrite `after`; both headers name IN, so that `patch IN < diff` and
    `patch -p0 < diff` (from where IN's path is relative) apply it. Two-file form: IN's own
    text into OUT's own text, headed `--- IN` `+++ OUT`. `names`: only these functions of
    `after` (`--function`: the function and those its graphs launch); the rest of IN as it
    is."""
    if out_text is None:
        patch = rewrite_patch(in_text, before, after, names, in_name)
        return unified(patch, in_name, in_name)
    patch = text_patch(in_text, out_text, before, after, names, in_name)
    return unified(patch, in_name, out_name)
