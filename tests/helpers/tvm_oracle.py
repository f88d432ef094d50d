"""TVM 0.27 as the oracle: parse text, compare modules, print them, run the pass."""

from __future__ import annotations

from typing import TypeVar


def tvm_parse(text: str):
    """TVM's reading of `text`, on a short stack (cudagraph_cli.tvm.on_a_short_stack: TVM's
    reader calls inspect.stack() for every function, which costs as pytest's stack is deep)."""
    from tvm.script import from_source

    from cudagraph_cli.tvm import on_a_short_stack

    return on_a_short_stack(from_source, text)


def tvm_equal(a, b) -> str | None:
    """None when structurally equal, else TVM's explanation."""
    import tvm

    try:
        tvm.ir.assert_structural_equal(a, b)
    except (ValueError, AssertionError) as e:
        return str(e)
    return None


def tvm_globals() -> dict:
    """The names TVM 0.27's reader gives a script (tvm.script.from_source's defaults, built
    here from public modules): `extra_vars` replaces those defaults, it does not add to them."""
    from typing import TypeVar

    import tvm
    from tvm.script.parser import ir, relax, tirx
    from tvm.tirx.layout import Axis

    return {"tvm": tvm, "I": ir, "ir": ir, "T": tirx, "tir": tirx, "R": relax,
            "relax": relax, "Axis": Axis, "TypeVar": TypeVar}


def metadata_constants(module) -> dict:
    """TVM constants for the `metadata["<kind>"][<i>]` references of a cgraph module: each of
    the struct info cgraph read for it, with the value cgraph's executor gives it. An index the
    module does not use gets a scalar placeholder."""
    import numpy as np
    from tvm import relax

    from cudagraph_cli import ir
    from cudagraph_cli.exec.constants import constant_value

    found: dict = {}
    for f in module.relax_functions():
        for block in f.blocks:
            for b in block.bindings:
                for x in ir.walk(b.value):
                    if type(x) is ir.Constant and x.meta is not None:
                        found[x.meta] = x
    table: dict = {}
    for (kind, index), c in sorted(found.items()):
        items = table.setdefault(kind, [])
        while len(items) <= index:
            items.append(None)
        items[index] = relax.const(constant_value(c))
    for items in table.values():
        items[:] = [c if c is not None else relax.const(np.float32(0)) for c in items]
    return table


def tvm_parse_with_constants(text: str, constants: dict | None = None,
                             check_well_formed: bool = True):
    """TVM's reading of a module printed with its metadata omitted
    (`metadata["ir.GenericConst"][0]`): `from_source` resolves `metadata` as any other name of
    the script, so the table is passed in `extra_vars` ({kind: [constant, ...]}, as
    `mod.script()` numbers them). Without `constants`, those cgraph's reading of the text
    implies (`metadata_constants`)."""
    from tvm.script import from_source

    if constants is None:
        from cudagraph_cli.text.reader import parse_module

        constants = metadata_constants(parse_module(text))
    extra = tvm_globals()
    extra["metadata"] = constants
    from cudagraph_cli.tvm import on_a_short_stack  # as tvm_parse

    return on_a_short_stack(from_source, text, extra_vars=extra,
                            check_well_formed=check_well_formed)


def without_alloc_ty_args(text: str) -> str:
    """A hand fix-up of TVM 0.27's text: it prints `ty_args=` on `R.builtin.alloc_tensor`
    and its parser rejects the keyword there; the call's struct info follows from its shape
    and dtype, so dropping it changes nothing TVM reads."""
    import re

    return re.sub(r"(R\.builtin\.alloc_tensor\(.*), ty_args=\(.*\)\)$", r"\1)", text,
                  flags=re.M)



def tvm_parse_own_dump(text: str, constants: dict | None = None):
    """TVM's reading of a dump of its own that its reader rejects for a clash between a
    module-level `n = TypeVar("n")` and a PrimFunc's own `n = T.int32()` ("Variable n already
    defined in current scope": MLC-LLM's paged-KV-cache kernels).

    TVM 0.27's reader defines each module TypeVar a function's signature names
    (`collect_signature_type_vars`) in that function's frame before its body, and a string
    shape (`"n + 1"`) evaluates `n` as the module's TypeVar object. Here, for the duration of
    the call, a PrimFunc whose body declares `n` at its top level does not see the module's
    `n` at all: its signature's `n` is the body's, which is what TVM's printer meant (it
    prints the PrimFunc's own variable so). Everything else is TVM's reader as it is. Not
    checked for well-formedness: the text is TVM's; the checks run on cgraph's outputs."""
    from tvm.relax.script.parser import parser as relax_parser
    from tvm.tirx.script.parser import parser as tir_parser

    originals = (tir_parser.collect_signature_type_vars,
                 relax_parser.collect_signature_type_vars)
    hidden: list = []  # (name2value list, the TypeVar taken out of it) for the current PrimFunc

    def restore():
        while hidden:
            values, value = hidden.pop()
            values.append(value)

    def declared_by_body(node) -> set:
        names = set()
        for stmt in node.body:
            for target in getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]:
                stack = [target]
                while stack:
                    t = stack.pop()
                    if hasattr(t, "id"):
                        names.add(t.id)
                    stack.extend(getattr(t, "elts", None) or [])
        return names

    def tir_collect(parser, node):
        restore()  # the previous function's hiding ends where the next function starts
        own = declared_by_body(node)
        for name, values in parser.var_table.name2value.items():
            if name in own and values and isinstance(values[-1], TypeVar):
                hidden.append((values, values.pop()))
        return originals[0](parser, node)

    def relax_collect(parser, node):
        restore()
        return originals[1](parser, node)

    tir_parser.collect_signature_type_vars = tir_collect
    relax_parser.collect_signature_type_vars = relax_collect
    try:
        return tvm_parse_with_constants(text, constants if constants is not None else {},
                                        check_well_formed=False)
    finally:
        restore()
        tir_parser.collect_signature_type_vars, relax_parser.collect_signature_type_vars = \
            originals


def with_tuple_types_rederived(module):
    """`module` with the struct info of each Relax tuple holding a GlobalVar derived again from
    the functions as the module has them.

    TVM's reader gives such a tuple (`(cls.f_cuda_graph_capture, (args...), ...)`, the argument
    of run_or_capture) the type of `cls.f_...` as known when it reads the tuple: read before the
    function (TVM prints functions in alphabetical order: `batch_decode` before
    `batch_decode_cuda_graph_capture`), that is the signature's, with symbolic variables of its
    own that nothing else has. cgraph prints a capture function before its caller, so TVM's
    reading of cgraph's text has the function's own type there, as the module made in memory
    has. Applied to both readings compared, the order of the text no longer shows."""
    import tvm
    from tvm import relax
    from tvm.relax.expr_functor import PyExprMutator, mutator

    @mutator
    class Rederive(PyExprMutator):
        def visit_tuple_(self, op):
            fields = [self.visit_expr(f) for f in op.fields]
            if any(isinstance(f, tvm.ir.GlobalVar) for f in fields) or \
                    any(not a.same_as(b) for a, b in zip(fields, op.fields)):
                return relax.Tuple(fields, op.span)  # its struct info derived anew
            return op

    functions = {gv: Rederive().visit_expr(f) if isinstance(f, relax.Function) else f
                 for gv, f in module.functions.items()}
    return tvm.IRModule(functions, attrs=module.attrs, global_infos=module.global_infos)


def check_cgraph_text_of_mlc_dump(before, after) -> None:
    """cgraph's `fmt` and `rewrite` outputs of an MLC-LLM-style dump of TVM's (the path BEFORE;
    AFTER, its after file) load in TVM with its well-formedness check on and equal TVM's
    readings of the dumps; raises AssertionError otherwise. The premise is checked too: TVM
    cannot read the dump itself (its module TypeVar clashes with a kernel's own variable).
    Shared by tests/test_real_size_tvm.py and bench/bench_corpus_workflow.py (every model)."""
    from pathlib import Path

    from cli_runner import cgraph
    from cudagraph_cli.tvm import on_a_short_stack

    def cli(*args: str) -> str:
        result = cgraph(*args)
        assert result.exit_code == 0, result.stderr
        return result.stdout

    def tvm_reads(text: str, **kwargs):
        # on a thread of its own: TVM's reader calls inspect.stack() per function
        return on_a_short_stack(tvm_parse_with_constants, text, {}, **kwargs)

    def reference(path):
        return on_a_short_stack(tvm_parse_own_dump, without_alloc_ty_args(Path(path).read_text()))

    try:
        tvm_reads(without_alloc_ty_args(Path(before).read_text()))
    except Exception as e:  # TVM's DiagnosticError
        assert "Variable batch_size already defined" in str(e), str(e)
    else:
        raise AssertionError("TVM read the dump as printed: the premise does not hold")

    formatted = tvm_reads(cli("fmt", str(before)), check_well_formed=True)
    assert tvm_equal(formatted, reference(before)) is None

    rewritten = cli("rewrite", str(before))
    # No correction of docs/REWRITE.md applies to these models: TVM's rewrite exactly.
    assert cli("rewrite", str(before), "--compat", "tvm") == rewritten
    mine = tvm_reads(rewritten, check_well_formed=True)
    assert tvm_equal(with_tuple_types_rederived(mine),
                     with_tuple_types_rederived(reference(after))) is None
