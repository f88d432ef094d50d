"""One frozen object for every option of the rewrite and every correction of TVM's pass.

The options say what to capture (`min_kernels`, `exclude`, `functions`, `capture_symbolic`); the
corrections say
where cgraph departs from TVM 0.27's RewriteCUDAGraph, each one a bug of TVM's (docs/REWRITE.md
lists them with the case that shows each). `RewriteOptions()` is cgraph; `RewriteOptions.
tvm_compat()` turns every correction off and reproduces TVM 0.27's output exactly, its mistakes
included, so that anyone can check cgraph against TVM (`cgraph rewrite --compat tvm`).

The command line is derived from the fields: a field whose metadata names a `flag` is a flag of
`cgraph rewrite` and of `cgraph diff`, with that help; a field marked `correction` is switched
by `--compat`. A field whose metadata has a `parse` takes each value given on the command line
through it (a ValueError is a usage error). The launcher (`python -m cudagraph_cli.tvm`) makes
its flags from the same fields. Every value is checked when the object is built
(`__post_init__`), whoever built it, with one message for each mistake. Adding an option is
adding a field here.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from dataclasses import dataclass, field


class Check(enum.Enum):
    """Which functions of the output the pipeline checks for well-formedness."""

    NONE = "none"  # TVM hands its output on unchecked (and with its bugs, it may be ill-formed)
    # The functions rewritten in place; lifted functions are closed by construction (every
    # free var of a region is one of its inputs), which the tests check with ALL.
    REWRITTEN = "rewritten"
    ALL = "all"


def _option(default, flag: str, help: str, metavar: str | None = None,
            minimum: int | None = None, parse=None, aliases: tuple = ()):
    return field(default=default, metadata=dict(flag=flag, help=help, metavar=metavar,
                                                minimum=minimum, parse=parse, aliases=aliases))


class OptionError(ValueError):
    """A value the options refuse, in two wordings of one message: `str(e)` names the fields
    and `RewriteOptions.tvm_compat()`, as a Python caller wrote them (`min_kernels must be an
    integer of at least 1, not 'abc'`); `e.for_flags` names the flags and `--compat tvm`, as a
    command-line user typed them (`--min-kernels must be ...`). `template` holds `{subject}`
    (the fields, joined by "and") and may hold `{compat}`."""

    def __init__(self, template: str, *fields: str):
        self.template, self.fields = template, fields
        super().__init__(self.worded(fields, "RewriteOptions.tvm_compat()"))

    @property
    def for_flags(self) -> str:
        return self.worded([flag_of(f) for f in self.fields], "--compat tvm")

    def worded(self, subjects, compat: str) -> str:
        # Replaced in one pass: a value quoted in the message may hold the braces.
        return re.sub(r"\{(subject|compat)\}",
                      lambda m: " and ".join(subjects) if m.group(1) == "subject" else compat,
                      self.template)


def flag_of(field_name: str) -> str:
    """The command-line flag of a RewriteOptions field (the field's name if it has none)."""
    found = next((f for f in option_fields() if f.name == field_name), None)
    return found.metadata["flag"] if found is not None else field_name


def parse_count(text: str) -> int:
    """One `--min-kernels` value: an integer (RewriteOptions checks its range)."""
    try:
        return int(text.strip())
    except ValueError:
        raise OptionError(f"{{subject}} must be an integer of at least 1, not {text!r}",
                          "min_kernels") from None


def split_names(text: str) -> tuple:
    """One `--function` value: a name, or names separated by commas."""
    names = tuple(v.strip() for v in text.split(",") if v.strip())
    if not names:
        raise OptionError(f"{{subject}} expects NAME or NAME,NAME,..., not {text!r}",
                          "functions")
    return names


def parse_capture_symbolic(text: str) -> tuple[str, int | None]:
    """`VAR` or `VAR:MAX` (one `--capture-symbolic` value) -> (VAR, MAX or None). OptionError
    (a ValueError), with one line saying what is wrong, for anything else."""
    name, sep, bound = text.partition(":")
    name = name.strip()
    if not name.isidentifier():
        raise OptionError(f"{{subject}} expects VAR or VAR:MAX, a symbolic variable's name and "
                          f"an optional positive bound, not {text!r}", "capture_symbolic")
    if not sep:
        return name, None
    try:
        value = int(bound.strip())
    except ValueError:
        raise OptionError(f"{{subject}}: the bound of {name} must be a positive integer, not "
                          f"{bound.strip()!r}", "capture_symbolic") from None
    if value < 1:
        raise OptionError(f"{{subject}}: the bound of {name} must be a positive integer, not "
                          f"{value}", "capture_symbolic")
    return name, value


def capture_symbolic_values(values) -> tuple:
    """The `capture_symbolic` field from what a caller gives: `"VAR"`, `"VAR:MAX"` or
    `(VAR, MAX or None)` items. ValueError for a bad item or a VAR given twice."""
    out = []
    for v in values:
        if isinstance(v, str):
            v = parse_capture_symbolic(v)
        else:
            name, bound = v
            if not isinstance(name, str) or not name.isidentifier() or \
                    (bound is not None and (not isinstance(bound, int) or bound < 1)):
                raise OptionError(f"{{subject}} expects (VAR, MAX or None) with MAX a positive "
                                  f"integer, not {v!r}", "capture_symbolic")
            v = (name, bound)
        if any(name == v[0] for name, _ in out):
            raise OptionError(f"{{subject}}: {v[0]} is given twice", "capture_symbolic")
        out.append(v)
    return tuple(out)


AUTO = "auto"


def parse_capture_buckets(text: str) -> tuple:
    """`VAR:B1,B2,...,Bn` or `VAR:auto` (one `--capture-buckets` value) -> (VAR, (B1, ...,
    Bn)) or (VAR, "auto"). OptionError (a ValueError), with one line saying what is wrong, for
    anything else: the buckets are positive integers in increasing order."""
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not name.isidentifier() or not sep or not rest.strip():
        raise OptionError(f"{{subject}} expects VAR:B1,B2,...,Bn or VAR:auto, a symbolic "
                          f"variable's name and its buckets, not {text!r}", "capture_buckets")
    if rest.strip() == AUTO:
        return name, AUTO
    try:
        sizes = tuple(int(v) for v in rest.split(","))
    except ValueError:
        raise OptionError(f"{{subject}}: the buckets of {name} must be positive integers or "
                          f"auto, not {rest.strip()!r}", "capture_buckets") from None
    return name, bucket_sizes(name, sizes)


def bucket_sizes(name: str, sizes) -> tuple:
    """`sizes` as a tuple after checking it: positive integers, strictly increasing."""
    sizes = tuple(sizes)
    if not sizes or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in sizes):
        raise OptionError(f"{{subject}}: the buckets of {name} must be positive integers, not "
                          f"{list(sizes)!r}", "capture_buckets")
    if any(a >= b for a, b in zip(sizes, sizes[1:])):
        raise OptionError(f"{{subject}}: the buckets of {name} must be in increasing order, "
                          f"not {','.join(map(str, sizes))}", "capture_buckets")
    return sizes


def capture_buckets_values(values) -> tuple:
    """The `capture_buckets` field from what a caller gives: `"VAR:B1,...,Bn"`,
    `"VAR:auto"`, or `(VAR, (B1, ..., Bn) or "auto")` items. OptionError for a bad item or a
    VAR given twice."""
    if isinstance(values, str):
        values = (values,)
    elif not hasattr(values, "__iter__"):
        raise OptionError(f"{{subject}} must be a sequence of VAR:B1,...,Bn or VAR:auto items, "
                          f"not {values!r}", "capture_buckets")
    out = []
    for v in values:
        if isinstance(v, str):
            v = parse_capture_buckets(v)
        else:
            try:
                name, sizes = v
            except (TypeError, ValueError):
                raise OptionError(f"{{subject}} expects (VAR, (B1, ..., Bn) or 'auto'), not "
                                  f"{v!r}", "capture_buckets") from None
            if not isinstance(name, str) or not name.isidentifier():
                raise OptionError(f"{{subject}} expects (VAR, (B1, ..., Bn) or 'auto'), not "
                                  f"{v!r}", "capture_buckets")
            v = (name, AUTO if sizes == AUTO else bucket_sizes(name, sizes))
        if any(name == v[0] for name, _ in out):
            raise OptionError(f"{{subject}}: {v[0]} is given twice", "capture_buckets")
        out.append(v)
    return tuple(out)


def auto_buckets(bound: int) -> tuple:
    """The `auto` bucket list up to `bound` (a variable's tir_var_upper_bound), like the
    serving engines' lists: 1, 2, 4, 8, then steps of 8 up to 64, then four equal steps in each
    doubling (64-128 by 16, 128-256 by 32, 256-512 by 64, ...), and `bound` itself last, so
    that every value up to the bound has a bucket. A value is padded by at most a quarter above
    64 rows. 15 buckets up to 128, 31 up to 2048, 39 up to 8192."""
    sizes = [1, 2, 4] + list(range(8, 65, 8))
    step = 16
    while sizes[-1] < bound:
        top = sizes[-1] * 2
        sizes += list(range(sizes[-1] + step, top + 1, step))
        step *= 2
    below = [v for v in sizes if v < bound]
    return tuple(below) + (bound,)


TRUST_WITHOUT_TABLE = ("{subject} act on the capture-safety table (correction 8), which "
                       "{compat} turns off")


def names_value(field_name: str, value) -> tuple:
    """A field of names or globs as a tuple: a str is one name (never its characters), any
    other iterable its items, each a non-empty str. ValueError otherwise."""
    if isinstance(value, str):
        value = (value,)
    try:
        items = tuple(value)
    except TypeError:
        raise OptionError(f"{{subject}} must be a name or a sequence of names, not {value!r}",
                          field_name) from None
    for item in items:
        if not isinstance(item, str) or not item:
            raise OptionError(f"{{subject}} must hold names (non-empty strings), not {item!r}",
                              field_name)
    return items


def _correction(help: str):
    return field(default=True, metadata=dict(correction=True, help=help))


@dataclass(frozen=True)
class RewriteOptions:
    min_kernels: int = _option(1, "--min-kernels",
                               "Do not lift a region with fewer kernel launches than this.",
                               metavar="N", minimum=1, parse=parse_count)
    exclude: tuple = _option((), "--exclude", "Never capture calls to PrimFuncs / packed "
                             "functions matching GLOB (repeatable).", metavar="GLOB")
    functions: tuple | None = _option(None, "--function", "Rewrite only these functions "
                                      "(repeatable, or NAME,NAME,...; --functions too).",
                                      metavar="NAME", parse=split_names,
                                      aliases=("--functions",))
    # Correction 8's table (passes/capture_safety.toml): which external functions a graph may
    # capture. Neither flag does anything with the correction off (--compat tvm).
    trust_extern: tuple = _option((), "--trust-extern", "Capture calls to external functions "
                                  "matching GLOB whatever the capture-safety table says of "
                                  "them (repeatable).", metavar="GLOB")
    strict_extern: bool = _option(False, "--strict-extern", "Do not capture calls to external "
                                  "functions the capture-safety table does not know "
                                  "(reason unsafe-extern, rule unknown).")
    # (VAR, MAX or None) pairs: as if every function named VAR in its
    # `relax.rewrite_cuda_graph.capture_symbolic_vars` attribute; with MAX, each graph keyed by
    # VAR runs only while VAR <= MAX, and its launches run eagerly otherwise (docs/REWRITE.md).
    capture_symbolic: tuple = _option(
        (), "--capture-symbolic", "Capture the regions whose shapes use the symbolic variable "
        "VAR (one graph per value, keyed by it), as the function attribute relax."
        "rewrite_cuda_graph.capture_symbolic_vars does; with :MAX, only while VAR <= MAX (the "
        "launches run eagerly above it), so at most MAX graphs a region (repeatable; e.g. "
        "seq_len:256).", metavar="VAR[:MAX]", parse=parse_capture_symbolic)
    # (VAR, (B1, ..., Bn) or "auto") pairs: a region keyed by VAR whose kernels all treat
    # VAR's rows apart (row_wise.py) runs in a graph keyed by the bucket of VAR, the least Bi
    # >= VAR, and eagerly past Bn (buckets.py, docs/REWRITE.md).
    capture_buckets: tuple = _option(
        (), "--capture-buckets", "Run the regions whose shapes use the symbolic variable VAR, "
        "and whose kernels keep VAR's rows apart, in graphs keyed by the bucket of VAR, the "
        "least Bi >= VAR (padded to Bi rows; the launches run eagerly above Bn): at most n "
        "graphs a region. auto: 1, 2, 4, steps of 8 to 64, then four steps a doubling, up to "
        "VAR's tir_var_upper_bound (repeatable; e.g. seq_len:auto, batch_size:1,2,4,8,16,32).",
        metavar="VAR:B1,...,Bn|VAR:auto", parse=parse_capture_buckets)

    # The corrections of TVM (docs/REWRITE.md, "Corrections"); False is TVM 0.27's behaviour.
    idempotent: bool = _correction("1: a module that already launches CUDA graphs is left as "
                                   "it is (TVM lifts its graphs' allocations again)")
    separate_live_functions: bool = _correction(
        "2: functions that run at the same time (one calls the other) never share graph "
        "storage")
    follow_getitem: bool = _correction(
        "3: the storage collector follows tuple get-items, dataflow blocks, returned storages "
        "and calls to Relax functions, so a returned value never lives in graph storage")
    keep_returned_defined: bool = _correction("3: a returned binding is always defined in its "
                                              "function")
    allocated_results_outside: bool = _correction(
        "3: a call that allocates its result (an operator, a packed call returning a tensor) "
        "is not lifted when the function returns that result (a graph's result is rewritten "
        "by every replay)")
    fetch_storages_early: bool = _correction(
        "4: a function's graph storages are fetched before its first graph launch")
    # An `if` ends the region open before it, a region opened in a branch stays in it, and its
    # condition and branch results are defined where they are used (TVM: a kernel after the
    # `if` is moved before it, past the branch's reads and writes of planned memory).
    if_ends_region: bool = _correction("5: an `if` ends the region open before it")
    force_pure: bool = _correction("6: a pure function that now calls the cuda_graph builtins "
                                   "is marked relax.force_pure (TVM's is ill-formed)")
    no_graph_in_dataflow: bool = _correction(
        "7: nothing in a dataflow block is lifted (TVM launches the graph inside the block, "
        "ill-formed, or raises)")
    capture_safety: bool = _correction(
        "8: a call to an external function that cannot run in a CUDA graph (it allocates, "
        "synchronises, copies to the host or keeps host state: passes/capture_safety.toml) "
        "is not captured")

    check: Check = field(default=Check.REWRITTEN, metadata=dict(
        help="well-formedness check of the output (TVM checks nothing)"))

    @classmethod
    def tvm_compat(cls, **options) -> "RewriteOptions":
        """TVM 0.27's exact behaviour: every correction off, the output unchecked (TVM's may be
        ill-formed). `options`: other fields (min_kernels, ...), as for the constructor."""
        off = {f.name: False for f in dataclasses.fields(cls) if f.metadata.get("correction")}
        return cls(**{**off, "check": Check.NONE, **options})

    @classmethod
    def compat(cls, name: str, **options) -> "RewriteOptions":
        """The options of `--compat NAME`: "cgraph" (the default) or "tvm"."""
        if name not in COMPAT_MODES:
            raise OptionError(f"unknown {{subject}} mode {name!r} (one of "
                              f"{', '.join(COMPAT_MODES)})", "compat")
        return cls.tvm_compat(**options) if name == "tvm" else cls(**options)

    def __post_init__(self):
        """Every field checked and normalized here, once, for every caller (`cgraph rewrite`,
        the TVM pass and its launcher, the API): a ValueError whose message is the same
        whichever of them was given the value. A `str` where names are expected is one
        name; a list is a tuple."""
        set_field = object.__setattr__
        m = self.min_kernels
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise OptionError(f"{{subject}} must be an integer of at least 1, not {m!r}",
                              "min_kernels")
        for name in ("exclude", "trust_extern"):
            set_field(self, name, names_value(name, getattr(self, name)))
        if self.functions is not None:
            functions = names_value("functions", self.functions)
            if not functions:
                raise OptionError("{subject} names no function: give None for all",
                                  "functions")
            set_field(self, "functions", functions)
        for f in dataclasses.fields(self):
            if (f.metadata.get("correction") or f.name == "strict_extern") and \
                    not isinstance(getattr(self, f.name), bool):
                raise OptionError(f"{{subject}} must be True or False, not "
                                  f"{getattr(self, f.name)!r}", f.name)
        if not isinstance(self.check, Check):
            raise OptionError(f"{{subject}} must be a Check, not {self.check!r}", "check")
        values = self.capture_symbolic
        if isinstance(values, str):
            values = (values,)
        elif not hasattr(values, "__iter__"):
            raise OptionError(f"{{subject}} must be a sequence of VAR or VAR:MAX items, not "
                              f"{values!r}", "capture_symbolic")
        set_field(self, "capture_symbolic", capture_symbolic_values(values))
        set_field(self, "capture_buckets", capture_buckets_values(self.capture_buckets))
        if not self.capture_safety and (self.trust_extern or self.strict_extern):
            # Both act on correction 8's verdicts, which the option turns off: accepted, they
            # would do nothing, and the user would believe they had.
            raise OptionError(TRUST_WITHOUT_TABLE, "trust_extern", "strict_extern")

    @property
    def bounds(self) -> dict[str, int]:
        """VAR -> MAX of the bounded `capture_symbolic` variables."""
        return {name: bound for name, bound in self.capture_symbolic if bound is not None}

    @property
    def corrections(self) -> dict[str, bool]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.metadata.get("correction")}


COMPAT_MODES = ("cgraph", "tvm")


def option_fields() -> list:
    """The fields that are command-line flags, in order."""
    return [f for f in dataclasses.fields(RewriteOptions) if "flag" in f.metadata]
