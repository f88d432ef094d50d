"""The bad-input (and odd-but-valid input) table judged by TVM 0.27's reader.

Every case is a small edit of a small valid module. Whether TVM reads it is not decided here:
tests/helpers/record_tvm_verdicts.py runs `tvm.script.from_source` on each case once and writes the
verdict into tests/data/tvm_verdicts.json; tests/test_tvm_verdicts.py asserts that cgraph
agrees (and runs on CI without TVM). After adding or changing a case, re-record:

    python tests/helpers/record_tvm_verdicts.py

`kind` groups the cases by the mistake they make (whitespace, unknown-op, wrong-kind, a
crash of cgraph's, ...; `extra` for the rest);
`original` names the module a case is a rewrite of (verify then runs ORIGINAL against the
case, so that a broken REWRITTEN is exercised, not one made by cgraph).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERDICTS = ROOT / "tests" / "data" / "tvm_verdicts.json"


def _sample(rel: str) -> str:
    return (ROOT / "samples" / rel).read_text(encoding="utf-8")


# The smallest module: one Relax function, no PrimFunc.
MIN = """\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        cls = Module
        y = x
        return y
"""

# A PrimFunc called twice; storage planned as StaticPlanBlockMemory does.
KB = """\
@I.ir_module(s_tir=True)
class Module:
    @T.prim_func(s_tir=True)
    def add_one(A: T.Buffer((T.int64(8),), "float32"), B: T.Buffer((T.int64(8),), "float32")):
        T.func_attr({"tirx.noalias": True})
        for i in range(8):
            with T.sblock("b"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((8,), dtype="float32")) -> R.Tensor((8,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        y: R.Tensor((8,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([8]), R.dtype("float32"))
        cls.add_one(x, y)
        z: R.Tensor((8,), dtype="float32") = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0))
        cls.add_one(y, z)
        R.memory.kill_tensor(y)
        R.memory.kill_storage(storage)
        return z
"""

# A dataflow block, a match_cast and a symbolic shape.
DF = """\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        with R.dataflow():
            y: R.Tensor((n, 4), dtype="float32") = R.match_cast(x, R.Tensor((n, 4), dtype="float32"))
            z = y
            R.output(z)
        return z
"""

VMB = _sample("tvm/vm_builtin_before.relax")
VMB_EXP = _sample("tvm/vm_builtin_expected.relax")
MLP = _sample("models/mlp_block.relax")
DYN = _sample("models/dynamic_shape.relax")
LEGACY = _sample("seeds/000_disable_capture_output_before.relax")

BASES = {"MIN": MIN, "KB": KB, "DF": DF, "VMB": VMB, "VMB_EXP": VMB_EXP, "MLP": MLP,
         "DYN": DYN, "LEGACY": LEGACY}


@dataclass(frozen=True)
class Case:
    id: str
    kind: str  # the mistake the case makes (whitespace, unknown-op, crash, ...) or `extra`
    text: str | bytes
    original: str | None = None  # a key of BASES: the case is a rewrite of that module

    @property
    def data(self) -> bytes:
        return self.text if isinstance(self.text, bytes) else self.text.encode("utf-8")

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.data).hexdigest()[:16]


def sub(base: str, old: str, new: str, count: int = 1) -> str:
    """`base` with the first `count` occurrences of `old` replaced (which must be there)."""
    assert base.count(old) >= count, f"{old!r} not in the base module"
    return base.replace(old, new, count)


def cut(base: str, marker: str, keep: int = 0) -> str:
    """`base` cut just before `marker` (plus `keep` characters of it): a truncated file."""
    i = base.index(marker)
    return base[: i + keep]


def insert_after(base: str, line_text: str, new_lines: str) -> str:
    """`base` with `new_lines` (ending in a newline) after the line containing `line_text`."""
    i = base.index(line_text)
    j = base.index("\n", i) + 1
    return base[:j] + new_lines + base[j:]


RET = "        return y\n"
PRIM_STORE = 'compute[i0, i1] = T.exp(rxplaceholder[i0, i1], dtype="float32")'
ALLOC0 = 'R.memory.alloc_storage(R.shape([32]), 0, "global", "float32")'
ALLOC_T = 'R.memory.alloc_tensor(storage, 0, R.shape([2, 4]), "float32")'
RUN_ARGS = "(cls.main_cuda_graph_capture, (alloc, alloc1, storage), R.prim_value(0))"
KB_STORE = "R.memory.alloc_storage(R.shape([32]), R.prim_value(0), R.str(\"global\"), " \
           "R.dtype(\"float32\"))"
KB_ALLOC = "R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([8]), R.dtype(\"float32\"))"

IF_ELSE = """\
@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        if c:
            y = x
        else:
            y = x
        return y
"""

IF_ELSE_KERNELS = sub(KB, """\
        cls.add_one(y, z)
""", """\
        if R.prim_value(True):
            cls.add_one(y, z)
        else:
            cls.add_one(x, z)
""")

NESTED = """\
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 4), "float32"):
        @R.function
        def inner(a: R.Tensor((2, 4), "float32")) -> R.Tensor((2, 4), "float32"):
            return a

        y = inner(x)
        return y
"""

CASES: list[Case] = [
    # ---- the bases themselves
    *[Case(f"base-{k.lower()}", "base", v) for k, v in BASES.items()],

    # ---- §2: a PrimFunc body must be Python that ends where its indentation says
    Case("prim-unclosed-bracket", "prim-body",
         sub(VMB, PRIM_STORE, 'compute[i0, i1 = T.exp(rxplaceholder[i0, i1], dtype="float32")')),
    Case("prim-unclosed-paren", "prim-body",
         sub(VMB, PRIM_STORE, 'compute[i0, i1] = T.exp(rxplaceholder[i0, i1], dtype="float32"')),
    Case("prim-unclosed-brace-in-attr", "prim-body",
         sub(VMB, '"global_symbol": "exp"})', '"global_symbol": "exp")')),
    Case("prim-unclosed-bracket-mlp", "prim-body",
         sub(MLP, "C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]",
             "C[vi, vj] = C[vi, vj] + A[vi, vk * B[vk, vj]")),
    Case("prim-extra-close-paren", "prim-body",
         sub(VMB, PRIM_STORE, PRIM_STORE + ")")),
    Case("prim-double-equals-assign", "prim-body",
         sub(VMB, PRIM_STORE, 'compute[i0, i1] = = T.exp(rxplaceholder[i0, i1])')),
    Case("prim-unterminated-string", "prim-body",
         sub(VMB, 'with T.sblock("compute"):', 'with T.sblock("compute):')),
    Case("prim-truncated-mid-body", "prim-truncation",
         cut(VMB, "                    i0 = T.axis")),
    Case("prim-truncated-mid-expression", "prim-truncation",
         cut(VMB, PRIM_STORE, keep=30)),
    Case("prim-truncated-after-def", "prim-truncation",
         cut(VMB, "        # function attr dict")),
    Case("prim-truncated-mid-signature", "prim-truncation",
         cut(VMB, 'compute: T.Buffer(', keep=12)),
    Case("prim-truncated-mlp-second-kernel", "prim-truncation",
         cut(MLP, "        for i, j in T.grid(T.int64(8), T.int64(64)):\n"
                  "            with T.sblock(\"add\")", keep=60)),
    Case("prim-bad-dedent", "prim-body",
         sub(VMB, "                    i1 = T.axis", "                  i1 = T.axis")),
    Case("prim-unexpected-indent", "prim-body",
         sub(VMB, "                    i1 = T.axis", "                        i1 = T.axis")),
    Case("prim-missing-colon", "prim-body",
         sub(VMB, 'with T.sblock("compute"):', 'with T.sblock("compute")')),
    Case("prim-empty-body", "prim-body",
         sub(KB, """\
        T.func_attr({"tirx.noalias": True})
        for i in range(8):
            with T.sblock("b"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1)
""", "")),
    Case("prim-body-pass", "prim-body",
         sub(KB, """\
        for i in range(8):
            with T.sblock("b"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1)
""", "        pass\n")),
    Case("prim-body-comment-dedented", "prim-body",
         sub(KB, "        for i in range(8):", "# a comment at column 1\n        for i in range(8):")),

    # ---- §2: unknown R.* functions
    Case("unknown-r-memory-kil-tensor", "unknown-op",
         sub(VMB, "R.memory.kill_tensor(alloc)", "R.memory.kil_tensor(alloc)")),
    Case("unknown-r-totally-made-up", "unknown-op",
         sub(VMB, "R.memory.kill_tensor(alloc)", "R.totally_made_up(alloc)")),
    Case("unknown-r-alloc-storag", "unknown-op",
         sub(VMB, "R.memory.alloc_storage(", "R.memory.alloc_storag(")),
    Case("unknown-r-builtin-alloc-tenso", "unknown-op",
         sub(VMB, "R.builtin.alloc_tensor(", "R.builtin.alloc_tenso(")),
    Case("unknown-r-call-packd", "unknown-op",
         sub(VMB, "R.call_packed(", "R.call_packd(")),
    Case("unknown-r-memory-kill-storag", "unknown-op",
         sub(MLP, "R.memory.kill_storage(storage1)", "R.memory.kill_storag(storage1)")),
    Case("unknown-r-namespace", "unknown-op",
         sub(MIN, "        y = x\n", "        y = R.nomodule.op(x)\n")),
    Case("unknown-r-shap", "unknown-op",
         sub(VMB, "R.shape([32])", "R.shap([32])")),
    Case("unknown-r-prim-valu", "unknown-op",
         sub(MLP, "R.prim_value(0)", "R.prim_valu(0)")),
    Case("unknown-r-func-atr", "unknown-op",
         sub(VMB, "R.func_attr(", "R.func_atr(")),
    Case("unknown-r-dataflow", "unknown-op", sub(DF, "R.dataflow()", "R.dataflw()")),
    Case("unknown-r-outpt", "unknown-op", sub(DF, "R.output(z)", "R.outpt(z)")),
    Case("unknown-r-match-cst", "unknown-op", sub(DF, "R.match_cast(", "R.match_cst(")),
    Case("unknown-t-int65", "unknown-op", sub(VMB, "T.int64(2), T.int64(4)", "T.int65(2), T.int64(4)")),

    # ---- §2: empty items
    Case("empty-arg-in-call", "empty-item",
         sub(VMB, ALLOC0, 'R.memory.alloc_storage(R.shape([32]), , "global", "float32")')),
    Case("empty-item-in-shape-list", "empty-item", sub(VMB, "R.shape([2, 4])", "R.shape([2, , 4])")),
    Case("double-comma-after-shape", "empty-item",
         sub(MIN, 'def main(x: R.Tensor((2, 4), "float32"))', 'def main(x: R.Tensor((2, 4),, "float32"))')),
    Case("double-comma-in-tuple", "empty-item", sub(VMB, "(x, lv)", "(x, lv,,)")),
    Case("leading-comma-in-call", "empty-item", sub(VMB, "R.memory.kill_tensor(alloc)", "R.memory.kill_tensor(, alloc)")),
    Case("double-comma-in-params", "empty-item",
         sub(KB, '"float32"), B: T.Buffer', '"float32"),, B: T.Buffer')),
    Case("double-comma-in-dict", "empty-item",
         sub(MLP, '{"num_input": 1, "relax.force_pure": True}',
             '{"num_input": 1,, "relax.force_pure": True}')),
    Case("trailing-comma-in-call-ok", "empty-item",
         sub(VMB, "R.memory.kill_tensor(alloc)", "R.memory.kill_tensor(alloc,)")),
    Case("trailing-comma-in-shape-ok", "empty-item", sub(VMB, "R.shape([2, 4])", "R.shape([2, 4,])")),

    # ---- §2: docstrings, keyword arguments, dtypes
    Case("docstring-in-relax-function", "docstring",
         sub(MIN, "        cls = Module\n", '        """Identity."""\n        cls = Module\n')),
    Case("docstring-in-module-class", "docstring",
         sub(MIN, "class Module:\n", 'class Module:\n    """A module."""\n')),
    Case("bare-string-statement", "docstring",
         sub(MIN, "        y = x\n", '        y = x\n        "a note"\n')),
    Case("unknown-kwarg-tensor-annotation", "unknown-kwarg",
         sub(VMB, 'def main(x: R.Tensor((2, 4), dtype="float32"))',
             'def main(x: R.Tensor((2, 4), dtype="float32", layout="NCHW"))')),
    Case("unknown-kwarg-call-packed", "unknown-kwarg",
         sub(VMB, "ty_args=R.Tuple())", "ty_args=R.Tuple(), bogus=1)")),
    Case("unknown-kwarg-alloc-storage", "unknown-kwarg",
         sub(KB, KB_STORE, KB_STORE[:-1] + ", align=64)")),
    Case("unknown-kwarg-function-decorator", "unknown-kwarg",
         sub(MIN, "    @R.function\n", "    @R.function(privat=True)\n")),
    Case("kwarg-function-private-ok", "unknown-kwarg",
         sub(MIN, "    @R.function\n", "    @R.function(private=True)\n")),
    Case("kwarg-function-pure-false-ok", "unknown-kwarg",
         sub(MIN, "    @R.function\n", "    @R.function(pure=False)\n")),
    Case("unknown-kwarg-ir-module", "unknown-kwarg",
         sub(VMB, "@I.ir_module(s_tir=True)", "@I.ir_module(s_tir=True, fast=True)")),
    Case("unknown-dtype-annotation", "unknown-dtype",
         sub(MIN, 'def main(x: R.Tensor((2, 4), "float32"))', 'def main(x: R.Tensor((2, 4), "float33"))')),
    Case("unknown-dtype-alloc-storage", "unknown-dtype",
         sub(VMB, ALLOC0, 'R.memory.alloc_storage(R.shape([32]), 0, "global", "flaot32")')),
    Case("unknown-dtype-r-dtype", "unknown-dtype",
         sub(MLP, 'R.dtype("float32"))\n        h:', 'R.dtype("floot32"))\n        h:')),
    Case("unknown-dtype-alloc-tensor", "unknown-dtype",
         sub(VMB, ALLOC_T, 'R.memory.alloc_tensor(storage, 0, R.shape([2, 4]), "f32")')),
    Case("unknown-dtype-buffer", "unknown-dtype",
         sub(KB, 'A: T.Buffer((T.int64(8),), "float32")', 'A: T.Buffer((T.int64(8),), "float31")')),
    Case("dtype-bfloat16-ok", "unknown-dtype",
         sub(MIN, '"float32"', '"bfloat16"', 2)),
    Case("dtype-float8-ok", "unknown-dtype",
         sub(MIN, '"float32"', '"float8_e4m3fn"', 2)),
    Case("dtype-vector-lanes-ok", "unknown-dtype",
         sub(MIN, '"float32"', '"float16x4"', 2)),

    # ---- §2: a storage where a shape goes, and the other way round
    Case("storage-where-shape-goes", "wrong-kind",
         sub(VMB, ALLOC_T, 'R.memory.alloc_tensor(storage, 0, storage, "float32")')),
    Case("shape-where-storage-goes", "wrong-kind",
         sub(VMB, ALLOC_T, 'R.memory.alloc_tensor(R.shape([2, 4]), 0, R.shape([2, 4]), "float32")')),
    Case("string-where-storage-goes", "wrong-kind",
         sub(VMB, ALLOC_T, 'R.memory.alloc_tensor("storage", 0, R.shape([2, 4]), "float32")')),
    Case("tensor-where-shape-goes-alloc-storage", "wrong-kind",
         sub(VMB, ALLOC0, 'R.memory.alloc_storage(x, 0, "global", "float32")')),
    Case("kernel-given-storage", "wrong-kind",
         sub(VMB, "_1: R.Tuple = cls.exp(x, alloc)", "_1: R.Tuple = cls.exp(storage, alloc)")),
    Case("kill-tensor-given-storage", "wrong-kind",
         sub(VMB, "R.memory.kill_tensor(alloc)", "R.memory.kill_tensor(storage)")),

    # ---- §2: integers outside int64
    Case("int-2-63-in-shape", "int-range",
         sub(VMB, "R.shape([32])", "R.shape([9223372036854775808])")),
    Case("int-int64-max-in-shape", "int-range",
         sub(VMB, "R.shape([32])", "R.shape([9223372036854775807])")),
    Case("int-2-80-in-annotation", "int-range",
         sub(MIN, "R.Tensor((2, 4), \"float32\")", "R.Tensor((1208925819614629174706176, 4), \"float32\")", 2)),
    Case("int-below-int64-min", "int-range",
         sub(VMB, "R.shape([32])", "R.shape([-9223372036854775809])")),
    Case("int-2-80-prim-value", "int-range",
         sub(MLP, "R.prim_value(0)", "R.prim_value(1208925819614629174706176)")),
    Case("int-2-80-offset", "int-range",
         sub(VMB, ALLOC_T, 'R.memory.alloc_tensor(storage, 1208925819614629174706176, R.shape([2, 4]), "float32")')),

    # ---- §2: a kernel call against its PrimFunc's signature
    Case("kernel-too-few-args", "kernel-signature",
         sub(VMB, "_1: R.Tuple = cls.exp(x, alloc)", "_1: R.Tuple = cls.exp(x)")),
    Case("kernel-too-many-args", "kernel-signature",
         sub(VMB, "_1: R.Tuple = cls.exp(x, alloc)", "_1: R.Tuple = cls.exp(x, alloc, alloc)")),
    Case("kernel-no-args", "kernel-signature", sub(KB, "cls.add_one(x, y)", "cls.add_one()")),
    Case("kernel-dtype-mismatch", "kernel-signature",
         sub(KB, 'def main(x: R.Tensor((8,), dtype="float32"))', 'def main(x: R.Tensor((8,), dtype="float16"))')),
    Case("kernel-static-shape-mismatch", "kernel-signature",
         sub(KB, 'def main(x: R.Tensor((8,), dtype="float32"))', 'def main(x: R.Tensor((9,), dtype="float32"))')),
    Case("kernel-rank-mismatch", "kernel-signature",
         sub(KB, 'def main(x: R.Tensor((8,), dtype="float32"))', 'def main(x: R.Tensor((2, 4), dtype="float32"))')),
    Case("kernel-symbolic-shape-ok", "kernel-signature",
         sub(KB, 'def main(x: R.Tensor((8,), dtype="float32"))', 'def main(x: R.Tensor(("n",), dtype="float32"))')),
    Case("kernel-given-shape", "kernel-signature",
         sub(KB, "cls.add_one(x, y)", "cls.add_one(R.shape([8]), y)")),
    Case("kernel-undefined", "kernel-signature", sub(KB, "cls.add_one(x, y)", "cls.add_two(x, y)")),

    # ---- §2: what TVM reads and cgraph must read
    Case("cr-only-line-endings", "whitespace", MIN.replace("\n", "\r")),
    Case("crlf-line-endings", "whitespace", VMB.replace("\n", "\r\n")),
    Case("mixed-line-endings", "whitespace", MIN.replace("\n", "\r\n", 3)),
    Case("lone-cr-between-statements", "whitespace",
         sub(MIN, "        cls = Module\n", "        cls = Module\r")),
    Case("cr-only-with-primfunc", "whitespace", KB.replace("\n", "\r")),
    Case("form-feed-in-expression", "whitespace", sub(MIN, "y = x", "y =\x0cx")),
    Case("form-feed-line-start", "whitespace", sub(MIN, "        y = x", "\x0c        y = x")),
    Case("form-feed-blank-line", "whitespace", sub(MIN, RET, "\x0c\n" + RET)),
    Case("vertical-tab-in-expression", "whitespace", sub(MIN, "y = x", "y =\x0bx")),
    Case("tab-in-expression", "whitespace", sub(MIN, "y = x", "y =\tx")),
    Case("tab-indent-body", "whitespace",
         MIN.replace("        cls", "\tcls").replace("        y", "\ty").replace("        return", "\treturn")),
    Case("tab-and-spaces-inconsistent", "whitespace", sub(MIN, "        y = x", "\ty = x")),
    Case("trailing-whitespace", "whitespace", MIN.replace("\n", "   \n")),
    Case("no-final-newline", "whitespace", MIN.rstrip("\n")),
    Case("backslash-continuation", "whitespace", sub(MIN, "y = x", "y = \\\n            x")),
    Case("line-continuation-in-brackets", "whitespace",
         sub(VMB, ALLOC0, 'R.memory.alloc_storage(\n            R.shape([32]), 0,\n  "global", "float32")')),
    Case("bom", "whitespace", b"\xef\xbb\xbf" + MIN.encode()),
    Case("bom-twice", "whitespace", b"\xef\xbb\xbf\xef\xbb\xbf" + MIN.encode()),
    Case("non-ascii-identifier", "identifier", MIN.replace("y", "h\u00e9")),
    Case("non-ascii-identifier-greek", "identifier", MIN.replace(" y", " \u03bb")),
    Case("non-ascii-function-name", "identifier", sub(MIN, "def main", "def m\u00e4in")),
    Case("non-ascii-in-string", "identifier",
         sub(VMB, '"vm.builtin.dummy"', '"vm.builtin.d\u00fcmmy"')),
    Case("identifier-starting-with-digit", "identifier", MIN.replace(" y", " 1y")),
    Case("semicolon-statements", "statements", sub(MIN, "        y = x\n", "        y = x; z = y\n")),
    Case("semicolon-trailing", "statements", sub(MIN, "        y = x\n", "        y = x;\n")),
    Case("semicolon-double", "statements", sub(MIN, "        y = x\n", "        y = x;;\n")),
    Case("statement-after-return", "statements", MIN + "        z = y\n"),
    Case("two-returns", "statements", MIN + "        return x\n"),
    Case("class-without-ir-module", "structure", sub(MIN, "@I.ir_module\n", "")),
    Case("class-with-base-object", "structure", sub(MIN, "class Module:", "class Module(object):")),
    Case("relax-if-else", "control-flow", IF_ELSE),
    Case("relax-if-without-else", "control-flow",
         sub(IF_ELSE, "        else:\n            y = x\n", "")),
    Case("relax-if-else-kernels", "control-flow", IF_ELSE_KERNELS),
    Case("relax-while", "control-flow", sub(IF_ELSE, "        if c:", "        while c:")),
    Case("nested-function", "control-flow", NESTED),
    Case("lambda", "control-flow", sub(MIN, "y = x", "y = (lambda a: a)(x)")),
    Case("prim-value-1e400", "number",
         sub(MIN, "        y = x\n", "        v = R.prim_value(1e400)\n        y = x\n")),
    Case("prim-value-nan", "number",
         sub(MIN, "        y = x\n", "        v = R.prim_value(T.float64(\"nan\"))\n        y = x\n")),

    # ---- §3: inputs that crash verify and diff today
    Case("run-or-capture-args-reordered", "crash",
         sub(VMB_EXP, RUN_ARGS, "((alloc, alloc1, storage), cls.main_cuda_graph_capture, R.prim_value(0))"),
         original="VMB"),
    Case("run-or-capture-extra-item", "crash",
         sub(VMB_EXP, RUN_ARGS, RUN_ARGS[:-1] + ", R.prim_value(1))"), original="VMB"),
    Case("run-or-capture-missing-item", "crash",
         sub(VMB_EXP, RUN_ARGS, "(cls.main_cuda_graph_capture, (alloc, alloc1, storage))"),
         original="VMB"),
    Case("run-or-capture-inner-tuple-short", "crash",
         sub(VMB_EXP, RUN_ARGS, "(cls.main_cuda_graph_capture, (alloc, alloc1), R.prim_value(0))"),
         original="VMB"),
    Case("builtin-misspelled-get-cached-alloc", "crash",
         sub(VMB_EXP, "vm.builtin.cuda_graph.get_cached_alloc", "vm.builtin.cuda_graph.get_cacHed_alloc"),
         original="VMB"),
    Case("builtin-misspelled-run-or-capture", "crash",
         sub(VMB_EXP, "vm.builtin.cuda_graph.run_or_capture", "vm.builtin.cuda_graph.run_or_captur"),
         original="VMB"),
    Case("get-cached-alloc-not-a-function", "crash",
         sub(VMB_EXP, "(cls.cuda_graph_alloc, R.prim_value(0))", "(R.prim_value(0), R.prim_value(0))"),
         original="VMB"),
    Case("returned-tuple-of-storages", "crash",
         sub(sub(VMB, "-> R.Tensor((2,4), dtype=\"float32\")", "-> R.Tuple(R.Any, R.Any)"),
             "        return alloc3\n", "        return (storage, storage1)\n")),
    Case("negative-storage-size", "crash", sub(VMB, "R.shape([32])", "R.shape([-32])")),
    Case("shape-2-62-storage", "crash", sub(VMB, "R.shape([32])", "R.shape([4611686018427387904])")),
    Case("shape-2-62-tensor", "crash",
         sub(KB, "R.builtin.alloc_tensor(R.shape([8])", "R.builtin.alloc_tensor(R.shape([4611686018427387904])")),
    Case("prim-value-inf-offset", "crash",
         sub(KB, KB_ALLOC, KB_ALLOC.replace("R.prim_value(0)", "R.prim_value(1e400)"))),
    Case("negative-offset", "crash",
         sub(KB, KB_ALLOC, KB_ALLOC.replace("R.prim_value(0)", "R.prim_value(-4)"))),
    Case("tensor-past-storage-end", "crash",
         sub(KB, KB_ALLOC, KB_ALLOC.replace("R.prim_value(0)", "R.prim_value(16)"))),
    Case("kill-storage-twice", "crash",
         sub(KB, "        R.memory.kill_storage(storage)\n",
             "        R.memory.kill_storage(storage)\n        R.memory.kill_storage(storage)\n")),
    Case("use-after-kill-tensor", "crash",
         sub(KB, "        R.memory.kill_tensor(y)\n", "        R.memory.kill_tensor(y)\n        cls.add_one(y, z)\n")),
    Case("call-packed-unknown-function", "crash",
         sub(VMB, '"vm.builtin.dummy"', '"my.own.kernel"')),

    # ---- extra: comments, strings, numbers
    Case("comment-after-code", "extra", sub(MIN, "y = x\n", "y = x  # copy\n")),
    Case("comment-at-column-1-in-body", "extra", sub(MIN, "        y = x\n", "# note\n        y = x\n")),
    Case("comment-overindented", "extra", sub(MIN, "        y = x\n", "                # note\n        y = x\n")),
    Case("comment-with-unbalanced-bracket", "extra", sub(MIN, "y = x\n", "y = x  # ( [ {\n")),
    Case("comment-with-quote", "extra", sub(MIN, "y = x\n", "y = x  # it's\n")),
    Case("single-quoted-strings", "extra", VMB.replace('"float32"', "'float32'")),
    Case("string-escape", "extra", sub(VMB, '"vm.builtin.dummy"', '"vm.builtin.\\x64ummy"')),
    Case("raw-string", "extra", sub(VMB, '"vm.builtin.dummy"', 'r"vm.builtin.dummy"')),
    Case("implicit-string-concatenation", "extra", sub(VMB, '"vm.builtin.dummy"', '"vm.builtin." "dummy"')),
    Case("triple-quoted-arg", "extra", sub(VMB, '"vm.builtin.dummy"', '"""vm.builtin.dummy"""')),
    Case("f-string-arg", "extra", sub(VMB, '"vm.builtin.dummy"', 'f"vm.builtin.dummy"')),
    Case("hex-int-shape", "extra", sub(VMB, "R.shape([32])", "R.shape([0x20])")),
    Case("underscore-int-shape", "extra", sub(VMB, "R.shape([32])", "R.shape([3_2])")),
    Case("float-in-shape", "extra", sub(VMB, "R.shape([32])", "R.shape([32.0])")),
    Case("negative-dim-annotation", "extra", sub(MIN, "R.Tensor((2, 4), \"float32\")", "R.Tensor((-2, 4), \"float32\")", 2)),
    Case("arith-in-shape", "extra", sub(VMB, "R.shape([32])", "R.shape([8 * 4])")),
    Case("leading-zero-int", "extra", sub(VMB, "R.shape([32])", "R.shape([032])")),
    Case("bool-where-int-goes", "extra", sub(VMB, "R.shape([32])", "R.shape([True])")),
    Case("none-where-shape-goes", "extra", sub(VMB, "R.shape([32])", "None")),
    # ---- extra: decorators, annotations, tuples
    Case("decorator-misspelled", "extra", sub(MIN, "    @R.function\n", "    @R.functon\n")),
    Case("decorator-missing", "extra", sub(MIN, "    @R.function\n", "")),
    Case("decorator-on-class-twice", "extra", "@I.ir_module\n" + MIN),
    Case("prim-func-decorator-call", "extra", sub(KB, "@T.prim_func(s_tir=True)", "@T.prim_func")),
    Case("annotation-tensor-no-shape", "extra",
         sub(MIN, 'def main(x: R.Tensor((2, 4), "float32"))', 'def main(x: R.Tensor(dtype="float32", ndim=2))')),
    Case("annotation-tensor-ndim-conflict", "extra",
         sub(MIN, 'def main(x: R.Tensor((2, 4), "float32"))', 'def main(x: R.Tensor((2, 4), "float32", ndim=3))')),
    Case("annotation-on-binding-mismatch", "extra",
         sub(MIN, "        y = x\n", '        y: R.Tensor((3, 4), "float32") = x\n')),
    Case("annotation-shape-type", "extra",
         sub(MIN, "        y = x\n", "        s: R.Shape([2, 4]) = R.shape([2, 4])\n        y = x\n")),
    Case("annotation-object-legacy", "extra", sub(VMB, "storage: R.Any", "storage: R.Object")),
    Case("annotation-unknown-type", "extra", sub(VMB, "storage: R.Any", "storage: R.Storage")),
    Case("sinfo-args-legacy", "extra", sub(VMB, "ty_args=R.Tuple()", "sinfo_args=R.Tuple()")),
    Case("ty-args-and-sinfo-args", "extra", sub(VMB, "ty_args=R.Tuple()", "ty_args=R.Tuple(), sinfo_args=R.Tuple()")),
    Case("tuple-unpack-binding", "extra", sub(MIN, "        y = x\n", "        t = (x, x)\n        y, w = t\n")),
    Case("tuple-index", "extra", sub(MIN, "        y = x\n", "        t = (x, x)\n        y = t[1]\n")),
    # Follow-up (reader2): variants of the cases above, where cgraph had to decide how far TVM's
    # reading goes (Python's unpacking, lambdas, annotations TVM keeps or refuses).
    Case("tuple-unpack-literal", "extra", sub(MIN, "        y = x\n", "        y, w = x, x\n")),
    Case("tuple-unpack-r-tuple", "extra", sub(MIN, "        y = x\n", "        y, w = R.tuple(x, x)\n")),
    Case("tuple-unpack-parenthesized", "extra",
         sub(MIN, "        y = x\n", "        t = (x, x)\n        (y, w) = t\n")),
    Case("tuple-unpack-swap", "extra", sub(MIN, "        y = x\n", "        a, b = x, x\n        a, b = b, a\n        y = a\n")),
    Case("tuple-unpack-too-few", "extra",
         sub(MIN, "        y = x\n", "        t = (x, x)\n        y, w, u = t\n")),
    Case("tuple-unpack-too-many", "extra", sub(MIN, "        y = x\n", "        t = (x, x)\n        y, = t\n")),
    Case("tuple-unpack-not-a-tuple", "extra", sub(MIN, "        y = x\n", "        y, w = x\n")),
    Case("tuple-index-negative", "extra", sub(MIN, "        y = x\n", "        t = (x, x)\n        y = t[-1]\n")),
    Case("lambda-bound-to-name", "extra", sub(MIN, "y = x", "f = lambda a: a\n        y = f(x)")),
    Case("lambda-no-params", "extra", sub(MIN, "y = x", "y = (lambda: x)()")),
    Case("lambda-two-params-keyword", "extra", sub(MIN, "y = x", "y = (lambda a, b: b)(x, b=x)")),
    Case("lambda-not-called", "extra", sub(MIN, "y = x", "y = lambda a: a")),
    Case("lambda-wrong-count", "extra", sub(MIN, "y = x", "y = (lambda a: a)(x, x)")),
    Case("if-else-branch-ends-in-call-other-assigns", "control-flow",
         sub(IF_ELSE_KERNELS, "            cls.add_one(x, z)\n", "            w = z\n")),
    Case("kernel-given-any-annotated-tensor", "wrong-kind",
         sub(VMB, "_1: R.Tuple = cls.exp(x, alloc)", "xa: R.Any = x\n        _1: R.Tuple = cls.exp(xa, alloc)")),
    Case("kernel-given-any-param", "wrong-kind",
         sub(VMB, "def main(x: R.Tensor((2, 4), dtype=\"float32\"))", "def main(x: R.Any)")),
    Case("alloc-tensor-offset-prim-var", "wrong-kind",
         sub(VMB, "alloc: R.Tensor((2, 4), dtype=\"float32\") = R.memory.alloc_tensor(storage, 0,",
             "off: R.Prim(\"int64\") = R.prim_value(0)\n        "
             "alloc: R.Tensor((2, 4), dtype=\"float32\") = R.memory.alloc_tensor(storage, off,")),
    Case("annotation-any-on-tensor", "extra", sub(MIN, "y = x", "y: R.Any = x")),
    Case("annotation-ndim-mismatch", "extra", sub(MIN, "y = x", "y: R.Tensor(ndim=3) = x")),
    Case("annotation-dtype-mismatch", "extra", sub(MIN, "y = x", "y: R.Tensor((2, 4), \"float16\") = x")),
    Case("annotation-dtype-alias", "extra", sub(MIN, "y = x", "y: R.Tensor((2, 4), \"f32\") = x")),
    Case("annotation-symbolic-dim", "extra", sub(MIN, "y = x", "y: R.Tensor((\"m\", 4), \"float32\") = x")),
    Case("annotation-shape-on-tensor", "extra", sub(MIN, "y = x", "y: R.Shape([2, 4]) = x")),
    Case("match-cast-dtype-impossible", "extra",
         sub(DF, 'R.match_cast(x, R.Tensor((n, 4), dtype="float32"))', 'R.match_cast(x, R.Tensor((n, 4), dtype="int8"))')),
    Case("shape-int32-literal", "extra", sub(KB, "R.shape([32])", "R.shape([T.int32(32)])")),
    Case("shape-bool-literal", "extra", sub(KB, "R.shape([32])", "R.shape([False])")),
    Case("tensor-float-dim", "extra", sub(MIN, 'def main(x: R.Tensor((2, 4), "float32"))', 'def main(x: R.Tensor((2.0, 4), "float32"))')),
    Case("t-float33-in-prim-body", "unknown-op", sub(KB, "T.float32(1)", "T.float33(1)")),
    Case("t-int4-in-prim-signature", "unknown-op", sub(KB, "T.Buffer((T.int64(8),)", "T.Buffer((T.int4(8),)")),
    Case("t-int65-in-comment", "unknown-op", sub(KB, "        for i in range(8):\n", "        # T.int65 is no type\n        for i in range(8):\n")),
    Case("import-future-annotations", "extra", "from __future__ import annotations\n" + MIN),
    Case("import-future-annotations-as", "extra", "from __future__ import annotations as a\n" + MIN),
    Case("import-in-function", "extra", sub(MIN, "        y = x\n", "        import math\n        y = x\n")),
    Case("class-with-two-bases", "structure", sub(MIN, "class Module:", "class Module(object, object):")),
    Case("dataflow-with-as-nothing-else", "extra", sub(DF, "with R.dataflow():", "with R.dataflow() as _:")),
    Case("bom-inside-line", "whitespace", sub(MIN, "y = x", "y = \ufeffx")),
    Case("tuple-index-out-of-range", "extra", sub(MIN, "        y = x\n", "        t = (x, x)\n        y = t[2]\n")),
    Case("tuple-slice", "extra", sub(MIN, "        y = x\n", "        t = (x, x)\n        y = t[0:1]\n")),
    Case("empty-tuple-return", "extra",
         sub(sub(MIN, '-> R.Tensor((2, 4), "float32")', "-> R.Tuple"), "        return y\n", "        return R.tuple()\n")),
    # ---- extra: dataflow, func_attr, match_cast, symbolic shapes
    Case("dataflow-no-output", "extra", sub(DF, "            R.output(z)\n", "")),
    Case("dataflow-output-undefined", "extra", sub(DF, "R.output(z)", "R.output(w)")),
    Case("dataflow-var-used-outside", "extra", sub(DF, "            R.output(z)\n", "            R.output(y)\n")),
    Case("dataflow-empty", "extra", sub(DF, """\
            y: R.Tensor((n, 4), dtype="float32") = R.match_cast(x, R.Tensor((n, 4), dtype="float32"))
            z = y
            R.output(z)
""", "            pass\n").replace("return z", "return x")),
    Case("dataflow-with-as", "extra", sub(DF, "with R.dataflow():", "with R.dataflow() as df:")),
    Case("match-cast-one-arg", "extra",
         sub(DF, 'R.match_cast(x, R.Tensor((n, 4), dtype="float32"))', "R.match_cast(x)")),
    Case("match-cast-new-symbolic-var", "extra",
         sub(DF, 'R.match_cast(x, R.Tensor((n, 4), dtype="float32"))', 'R.match_cast(x, R.Tensor((n, k), dtype="float32"))')),
    Case("symbolic-var-undeclared-in-body", "extra",
         sub(DF, "        n = T.int64()\n", "")),
    Case("symbolic-var-arith", "extra",
         sub(DF, 'y: R.Tensor((n, 4), dtype="float32") = R.match_cast(x, R.Tensor((n, 4), dtype="float32"))',
             'y: R.Tensor((n * 4,), dtype="float32") = R.match_cast(x, R.Tensor((n * 4,), dtype="float32"))')),
    Case("symbolic-var-int32", "extra", sub(DF, "n = T.int64()", "n = T.int32()")),
    Case("func-attr-not-dict", "extra", sub(VMB, 'R.func_attr({"relax.force_pure": True})', 'R.func_attr("relax.force_pure")')),
    Case("func-attr-twice", "extra",
         sub(VMB, '        R.func_attr({"relax.force_pure": True})\n',
             '        R.func_attr({"relax.force_pure": True})\n        R.func_attr({"num_input": 1})\n')),
    Case("func-attr-after-binding", "extra",
         sub(MIN, "        y = x\n", '        y = x\n        R.func_attr({"num_input": 1})\n')),
    Case("func-attr-bad-num-input", "extra", sub(MLP, '"num_input": 1', '"num_input": "one"')),
    Case("capture-symbolic-vars-unknown", "extra", sub(DYN, '["b"]', '["q"]')),
    Case("dynamic-shape-annotation-mismatch", "extra", sub(DYN, 'e: R.Tensor((b, 32)', 'e: R.Tensor((m, 32)')),
    Case("legacy-t-block", "extra", sub(sub(KB, 'T.sblock("b")', 'T.block("b")'), "@I.ir_module(s_tir=True)", "@I.ir_module")),
    Case("legacy-no-s-tir", "extra", sub(KB, "@T.prim_func(s_tir=True)", "@T.prim_func")),
    Case("undefined-global-kernel", "extra", sub(MLP, "cls.gelu(hb, g)", "cls.relu(hb, g)")),
    Case("cls-not-the-module", "extra", sub(MIN, "cls = Module", "cls = Modul")),
    Case("import-lines-ok", "extra",
         "from tvm.script import ir as I\nfrom tvm.script import relax as R\n" + MIN),
]


def case_by_id(case_id: str) -> Case:
    for c in CASES:
        if c.id == case_id:
            return c
    raise KeyError(case_id)
