"""The `cgraph` command line. Thin: parse arguments, call the library, print. Each command's
policy (its modes, defaults and exit status) is the library's (commands.py, api.py); here
are the options, the help, the views chosen, and the error layer.

Exit status (commands.py): 0 ok; 1 a check failed (modules differ, text not formatted); 2
usage or input error (a located one-line message on stderr, never a traceback); 3 internal
error (a bug: set CGRAPH_DEBUG=1 for the traceback).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import json
import os
import sys

import click

from . import __version__, api, commands
from .commands import EXIT_INPUT_ERROR, EXIT_INTERNAL, EXIT_OK
from .diagnostics import Loc, SourceError, located_message, one_line, out_of_memory

EXIT_INTERRUPTED = 130

NESTED_TOO_DEEPLY = "input nested too deeply"  # a RecursionError: `1 + 1 + ... + 1`
INTERRUPTED = "cgraph: interrupted"


def color(stream) -> bool:
    """Color only on a terminal, and never with NO_COLOR set or TERM=dumb."""
    if os.environ.get("NO_COLOR", "") != "" or os.environ.get("TERM") == "dumb":
        return False
    return hasattr(stream, "isatty") and stream.isatty()


def use_lenient_streams() -> None:
    """Human text on a stream that cannot encode it shows escapes (\\u2502), never a crash."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass  # not a TextIOWrapper (a test's capture): nothing to configure


def silence_stdout() -> None:
    """After a broken pipe: what is still buffered goes nowhere, instead of failing at exit."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def error_line(message: str) -> str:
    """An error with no file to point at, as one line."""
    return f"cgraph: error: {one_line(message)}"


def json_error(kind: str, message: str, err: SourceError | None = None) -> str:
    """The error as the JSON report a CI job reads under --format json (schema in
    docs/CLI.md): "input", "usage" or "internal"; located where `err` is."""
    loc = err.loc if err is not None and err.loc.line > 0 else None
    report = {"error": {"kind": kind, "file": err.filename if err is not None else None,
                        "line": loc.line if loc else None, "column": loc.col if loc else None,
                        "message": message}}
    return json.dumps(report, indent=2)


def internal_error(e: Exception) -> str:
    """The message of an exception no input should cause."""
    return (f"internal error: {type(e).__name__}: {e} (this is a bug; CGRAPH_DEBUG=1 shows the "
            "traceback)")


def load_input(path: str) -> tuple:
    """(module, its Source) of an input file: the library's one reader of inputs, looked up
    at each call (so that every command, the library's and the CLI's, reads through it)."""
    return commands.load_with_source(path)


def load_input_keeping_text(path: str) -> tuple:
    """(module, its Source, its text as read, line ends kept): for a patch of the file, whose
    left side must be the file's own bytes (stdin can be read only once)."""
    raw = api.read(path, keep_line_ends=True)
    source = api.Source(raw.name, raw.text.replace("\r\n", "\n"))
    return api.loads(source.text, name=source.name), source, raw.text


def _say_error(err: SourceError) -> None:
    text = err.render()
    if color(sys.stderr):
        head, sep, rest = text.partition(" error: ")
        if sep:
            text = head + " " + click.style("error:", fg="red", bold=True) + " " + rest
    click.echo(text, err=True)


def _json_errors(ctx, param, value):
    """--format's callback: from here on an error is also a JSON object on stdout."""
    ctx.meta["cgraph.json_errors"] = value == "json"
    return value


def _format_option(choices, default, help_text=None):
    return click.option("--format", "fmt", type=click.Choice(choices), default=default,
                        is_eager=True, callback=_json_errors, help=help_text)


def _console(to_file: bool):
    """A rich Console drawing into a buffer (rich itself would exit 1 on a broken pipe)."""
    from rich.console import Console

    stream = io.StringIO()
    colored = not to_file and color(sys.stdout)
    console = Console(file=stream, color_system="auto" if colored else None,
                      force_terminal=colored, no_color=not colored, soft_wrap=True,
                      highlight=False, width=_width(to_file))
    return console, stream


def _width(to_file: bool) -> int | None:
    """The views' width: COLUMNS when set; else the terminal's (None: rich asks it), whether
    coloured or not (NO_COLOR on an 80-column terminal); else 120 (a pipe, a file)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if not to_file and hasattr(sys.stdout, "isatty") and sys.stdout.isatty():
        return None
    return 120


def _echo_view(text: str) -> None:
    # Through click, as every other line cgraph prints: one encoding rule for all of them.
    click.echo(text, nl=False, color=color(sys.stdout))


class _HelpFormatter(click.HelpFormatter):
    """click's, except that an option's help is never narrower than its longest word: click
    cuts a word longer than the line in two (`rela` / `x.rewrite_cuda_graph.capture_symbolic_
    vars`), where a name must stay whole to be found; such a line runs past the margin."""

    def write_text(self, text: str) -> None:
        from click.formatting import wrap_text

        indent = " " * self.current_indent
        width = max(self.width, *(len(w) + len(indent) for w in text.split()), 1)
        self.write(wrap_text(text, width, initial_indent=indent, subsequent_indent=indent,
                             preserve_paragraphs=True) + "\n")

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:
        from click.formatting import iter_rows, measure_table, term_len, wrap_text

        rows = list(rows)
        first_col = min(measure_table(rows)[0], col_max) + col_spacing
        for first, second in iter_rows(rows, 2):
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if term_len(first) <= first_col - col_spacing:
                self.write(" " * (first_col - term_len(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            width = max(self.width - first_col - 2, 10, *map(len, second.split()))
            lines = wrap_text(second, width, preserve_paragraphs=True).splitlines()
            self.write((lines[0] if lines else "") + "\n")
            for line in lines[1:]:
                self.write(f"{'':>{first_col + self.current_indent}}{line}\n")


class _Context(click.Context):
    formatter_class = _HelpFormatter


class _Command(click.Command):
    context_class = _Context


class _Group(click.Group):
    """Turns every SourceError into a located message and exit status 2."""

    context_class = _Context
    command_class = _Command

    def invoke(self, ctx):
        use_lenient_streams()
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            # `cgraph ... | head`: the reader has what it wanted; that is success.
            silence_stdout()
            ctx.exit(EXIT_OK)
        except SourceError as e:
            self.fail(ctx, e.message, e, EXIT_INPUT_ERROR)
        except commands.CommandError as e:  # `cgraph: error: MESSAGE`
            self.fail(ctx, str(e), None, EXIT_INPUT_ERROR)
        except commands.RequestError as e:
            self.fail_usage(ctx, click.UsageError(str(e)))
        except click.exceptions.Exit:
            raise
        except click.ClickException as e:
            self.fail_usage(ctx, e)
        except click.Abort:
            raise
        except RecursionError:
            # Long operator chains (`1 + 1 + ... + 1`) nest without brackets.
            self.fail(ctx, NESTED_TOO_DEEPLY, None, EXIT_INPUT_ERROR)
        except MemoryError as e:
            # What this machine (or its limit) cannot hold is the input's size, not a bug;
            # verify and run locate theirs (api, exec/interpreter.py), the rest end here.
            self.fail(ctx, out_of_memory(e), None, EXIT_INPUT_ERROR)
        except KeyboardInterrupt:
            click.echo(INTERRUPTED, err=True)
            ctx.exit(EXIT_INTERRUPTED)
        except Exception as e:  # noqa: BLE001 - the last line of defence against tracebacks
            if os.environ.get("CGRAPH_DEBUG"):
                raise
            self.fail(ctx, internal_error(e), None, EXIT_INTERNAL, kind="internal")

    def format_epilog(self, ctx, formatter):
        # The synopsis, made from the commands' own parameters (README.md and docs/CLI.md
        # hold the same lines: tests/test_docs_sync.py).
        formatter.write_paragraph()
        formatter.write_text("Synopsis:")
        with formatter.indentation():
            for line in synopsis(self):
                formatter.write(" " * formatter.current_indent + line + "\n")

    def parse_args(self, ctx, args):
        # `cgraph --bogus`: before any command, in the same one-line form.
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as e:
            self.fail_usage(ctx, e)

    @classmethod
    def fail_usage(cls, ctx, e: click.ClickException):
        """A usage error as one line, `cgraph COMMAND: error: MESSAGE` (exit 2), never click's
        four (Usage, Try, a blank, Error)."""
        message = usage_message(e)
        where = f"cgraph {ctx.invoked_subcommand}" if ctx.invoked_subcommand else "cgraph"
        cls.fail(ctx, message, None, e.exit_code, kind="usage",
                 line=f"{where}: error: {message}")

    @staticmethod
    def fail(ctx, message: str, err: SourceError | None, status: int, kind: str = "input",
             line: str | None = None):
        """The error on stderr (`line`, else the located or unlocated message; and as JSON on
        stdout under --format json), then exit."""
        try:
            if err is not None:
                _say_error(err)
            else:
                click.echo(line or error_line(message), err=True)
            if ctx.meta.get("cgraph.json_errors"):
                click.echo(json_error(kind, message, err))
        except BrokenPipeError:
            silence_stdout()
        ctx.exit(status)


SYNOPSIS_WIDTH = 92  # a synopsis line wraps here, its continuation under the first option


def synopsis(group) -> list[str]:
    """One entry per command, `cgraph NAME ARGUMENTS [OPTIONS]`, made from the command's click
    parameters (so it cannot drift from them), wrapped at SYNOPSIS_WIDTH between options; then
    --version and --help."""
    lines = []
    for name, command in group.commands.items():
        head = " ".join(["cgraph", name] + [argument_word(p) for p in command.params
                                             if p.param_type_name == "argument"])
        line = head
        for word in (option_word(p) for p in command.params
                     if p.param_type_name == "option" and not p.hidden):
            if len(line) + 1 + len(word) > SYNOPSIS_WIDTH:
                lines.append(line)
                line = " " * len(head)
            line += " " + word
        lines.append(line)
    return lines + ["cgraph --version | --help"]


def argument_word(param) -> str:
    if isinstance(param.type, click.Choice):
        word = "|".join(param.type.choices)
    else:
        word = param.metavar or param.name.upper()
    return word if param.required or word.startswith("[") else f"[{word}]"


def option_word(param) -> str:
    """`[--flag]`, `[--opt VALUE]`, `[--opt VALUE]...` (repeatable): its first spelling."""
    flag = param.opts[0]
    if param.is_flag:
        return f"[{flag}]"
    if param.metavar:
        value = param.metavar
    elif isinstance(param.type, click.Choice):
        value = "|".join(param.type.choices)
    elif isinstance(param.type, (click.IntRange, click.types.IntParamType)):
        value = "N"
    else:
        value = param.name.upper()
    return f"[{flag} {value}]" + ("..." if param.multiple else "")


def usage_message(e: click.ClickException) -> str:
    """A click error's message on one line, naming the option it is about (`--calls: 'x' is
    not a valid integer range`) where click would say "Invalid value for '--calls'"."""
    if not isinstance(e, click.BadParameter) or isinstance(e, click.MissingParameter):
        return one_line(e.format_message())
    hint = e.param_hint
    if hint is None and e.param is not None:
        hint = e.param.opts[0] if e.param.param_type_name == "option" else \
            e.param.human_readable_name
    if isinstance(hint, (list, tuple)):
        hint = " / ".join(hint)
    return one_line(f"{hint}: {e.message}" if hint else e.message)


MAIN_HELP = """Rewrite TVM Relax modules so that their static kernel launches run as CUDA graphs.

cgraph reads Relax modules written as TVMScript (after memory planning), in the
current TVM dialect (R.Any, ty_args=, T.sblock) or the legacy one (R.Object,
sinfo_args=, T.block), and writes TVMScript back.

\b
Examples:
  cgraph fmt model.relax                     # parse, check and print canonically
  cgraph fmt model.relax -o model.fmt.relax  # write atomically to a file
  cat model.relax | cgraph fmt - --dialect legacy
  cgraph check got.relax expected.relax      # exit 1 (and show where) if they differ
  cgraph rewrite model.relax -o model.graph.relax --explain
  cgraph diff model.relax                    # what was lifted, what was not, and why
  cgraph gen decode --layers 32 -o decode32.relax   # a realistic module to try things on
  cgraph verify model.relax model.graph.relax   # same numbers? (CUDA-graph semantics, no GPU)
  cgraph run model.relax --device cpu
  cgraph run model.relax --device 0          # eager vs CUDA graphs on GPU 0, checked and timed
  cgraph kernels model.relax -o model.cu     # the model's own kernels (TVM's CUDA C)

Exit status: 0 ok, 1 check failed, 2 usage or input error, 3 internal error.
"""


@click.group(cls=_Group, help=MAIN_HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="cgraph",
                      message="%(prog)s %(version)s")
def main():
    pass


def _output_options(command):
    """-o/--output and --dialect, shared by the commands that write a module."""
    command = click.option("--dialect", type=click.Choice(["current", "legacy"]), default=None,
                           help="TVMScript dialect to print. Default: the dialect of the "
                                "input.")(command)
    return click.option("-o", "--output", "output", default="-", metavar="OUT",
                        help="Output file (default: - for standard output). Written "
                             "atomically.")(command)


FMT_HELP = """Parse IN, check that it is well formed, and print it as canonical TVMScript.

IN is a file or - for standard input. The output is a fixed point: formatting it
again changes nothing. With --check nothing is written; the exit status says whether
IN is already canonical.

\b
Examples:
  cgraph fmt samples/tvm/tuple_before.relax
  cgraph fmt in.relax -o out.relax --dialect legacy
  cgraph fmt --check in.relax               # exit 1 if fmt would change it
"""


@main.command("fmt", help=FMT_HELP)
@click.argument("input_path", metavar="IN")
@_output_options
@click.option("--check", "check_only", is_flag=True,
              help="Write nothing; exit 1 if the input is not canonical.")
def fmt_command(input_path: str, output: str, dialect: str | None, check_only: bool):
    from .fileio import check_output, write_text

    if not check_only:
        check_output(output, inputs=(input_path,))
    result = commands.fmt(input_path, dialect)
    if check_only:
        if not result.canonical:
            click.echo(f"{result.source.name}: would be reformatted", err=True)
        sys.exit(result.check_status)
    write_text(output, result.text, inputs=(input_path,))


CHECK_HELP = """Compare two modules structurally: equal when they differ only in the names of
local variables (the equality tvm.ir.assert_structural_equal applies).

Exit 0 when equal; 1 when they differ, showing the first difference in both files;
2 when either cannot be read.

Many pairs in one run (a CI job pays the start once): GOT and EXPECTED both
directories, their *.relax files paired by path (subdirectories too), or --list
PAIRS, a file of `GOT EXPECTED` lines (- for standard input). One line per pair
(ok, differs with the first difference's place in both files, error, missing: a file
on one side only), then a summary. Exit 0 when all are equal; 1 when any differs or
is missing; 2 when any file cannot be read or parsed (every pair is still checked).

Golden files (docs/CLI.md, "Golden files"): --diff shows each differing pair as a
unified diff of the canonical texts, EXPECTED to GOT, local renames left out;
--update then writes EXPECTED from GOT where they differ structurally (a golden
equal up to names keeps its bytes), creates a missing EXPECTED, reports one whose
GOT is missing and leaves it, and leaves a golden it cannot read. One line per pair
(ok, updated, created, missing, error), then a summary; exit 0 when every golden now
equals its GOT, 1 when a GOT is missing, 2 when a file cannot be read or written.
--update compares PrimFunc bodies: with --prim-bodies ignore it is refused.

\b
Examples:
  cgraph check out.relax expected.relax
  cgraph check out.relax expected.relax --format json
  cgraph check out.relax expected.relax --prim-bodies ignore
  cgraph check out/ golden/                  # every golden/**/*.relax against out/
  cgraph check out/ golden/ --diff           # review the changes
  cgraph check out/ golden/ --update         # accept them (then: git diff golden/)
  cgraph rewrite in.relax | cgraph check - golden/in.relax --update
  cgraph check --list pairs.txt --format json
  ls out | sed 's|.*|out/& golden/&|' | cgraph check --list -   # pairs from a pipe
"""


@main.command("check", help=CHECK_HELP)
@click.argument("got", metavar="GOT", required=False)
@click.argument("expected", metavar="EXPECTED", required=False)
@click.option("--list", "list_path", default=None, metavar="PAIRS",
              help="Check the pairs listed in PAIRS (- for standard input), a `GOT EXPECTED` "
                   "line each; # starts a comment.")
@_format_option(["text", "json"], "text", "Report format (json: for machines; "
                "schema in docs/CLI.md).")
@click.option("--prim-bodies", type=click.Choice(["text", "ignore"]),
              default="text",
              help="How to compare PrimFunc bodies, which cgraph does not parse: by their "
                   "normalized text (default), or not at all (signatures only).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Show each differing pair as a unified diff of the canonical texts "
                   "(EXPECTED to GOT; local renames do not show).")
@click.option("--update", is_flag=True,
              help="Write EXPECTED from GOT where they differ structurally, create a missing "
                   "EXPECTED; a golden equal up to local names is left byte for byte.")
@click.pass_context
def check_command(ctx, got: str | None, expected: str | None, list_path: str | None, fmt: str,
                  prim_bodies: str, show_diff: bool, update: bool):
    if list_path is None:
        for name, value in (("got", got), ("expected", expected)):
            if value is None:
                # What click says of a missing required argument: the single form's own words.
                param = next(p for p in ctx.command.params if p.name == name)
                raise click.MissingParameter(ctx=ctx, param=param)
    run = commands.check(got, expected, pairs_file=list_path, prim_bodies=prim_bodies,
                         review=show_diff, update=update)
    if fmt == "json":
        from .report.check_view import run_json

        click.echo(json.dumps(run_json(run), indent=2))
    elif run.mode == "pair":
        _say_pair(run)
    else:
        _say_batch(run)
    sys.exit(run.exit_status)


def _say_pair(run) -> None:
    """One pair: the first difference in both files, and the review's diff if asked for."""
    from .report.check_view import check_text

    (result,), (a, b) = run.results, run.sources
    click.echo(check_text(result.difference, a, b))
    _say_review(result)


def _say_batch(run) -> None:
    """A line per pair as it is checked (then its review), then the summary."""
    from .report.check_view import result_line, summary

    for result in run:
        click.echo(result_line(run, result))
        _say_review(result)
    click.echo(summary(run))


def _say_review(result) -> None:
    """--diff's lines of a pair that differs (or was updated): coloured where allowed; the
    modules' difference where their canonical texts are equal."""
    from .report.check_view import no_text_difference, render_diff

    if result.diff:
        console, stream = _console(to_file=False)
        render_diff(result.diff, console)
        _echo_view(stream.getvalue())
    elif result.diff is not None:
        click.echo(no_text_difference(result.difference))


REWRITE_HELP = """Rewrite IN so that its static kernel launches run as CUDA graphs.

The output is what TVM's relax.transform.RewriteCUDAGraph makes of IN (same module up
to local names), except where TVM's is wrong: the rewrite is idempotent, functions that
run at the same time (one calls the other) never share graph storage, values a function
returns never live in graph-owned storage, and no call to an external function a CUDA graph
cannot replay is captured (the capture-safety table: relax.run.unique, thrust sort,
a thrust scan without its workspace, ...; --trust-extern and --strict-extern adjust it). See
docs/REWRITE.md.

With --compat tvm those corrections are off: the output is TVM 0.27's, its mistakes
included, so that anyone can check cgraph against TVM (`cgraph check` it against TVM's own).

On success it prints nothing but the module (to -o or standard output); -v prints, on stderr,
one line of what it did: each function that launches graphs, its graph launches and its host
work a call before -> after (`cgraph diff` has the whole report).

\b
Examples:
  cgraph rewrite model.relax -o model.graph.relax
  cgraph rewrite model.relax -o model.graph.relax -v   # cgraph: decode 18 graph launches, ...
  cgraph rewrite model.relax --explain -o /dev/null   # why launches stay outside graphs
  cgraph rewrite model.relax --min-kernels 2 --exclude 'vm.builtin.*' --exclude 'sampler_*'
  cgraph rewrite model.relax --function decode,prefill
  cgraph rewrite model.relax --strict-extern --trust-extern 'fused_*_cublas'
  cgraph rewrite llama.relax --capture-symbolic seq_len:256   # prefill in graphs up to 256 tokens
  cgraph rewrite model.relax --compat tvm -o tvm.relax   # TVM 0.27's output, mistakes included
  cgraph check tvm.relax model.after.relax               # ... equal to TVM's own
"""


def _names(ctx, param, values):
    """The names of a `--function` option: repeatable, each value NAME or NAME,NAME,...; in
    order, each once. () when not given."""
    from .passes.options import OptionError, split_names

    names = []
    for value in values:
        try:
            names.extend(split_names(value))
        except OptionError as e:
            raise click.UsageError(e.for_flags) from None
    return tuple(dict.fromkeys(names))


def _function_option(help_text: str, default=None):
    """`--function NAME` (also `--functions`; repeatable, or NAME,NAME,...): one spelling and
    one grammar in every command."""
    return click.option("--function", "--functions", "functions", multiple=True,
                        callback=_names, metavar="NAME", default=default,
                        help=help_text + " Repeatable, or NAME,NAME,...; --functions too.")


def _parsed(parse):
    """A click callback taking each value of a repeatable option through `parse` (the field's
    metadata): its OptionError is a usage error in the flag's words."""
    def callback(ctx, param, values):
        return tuple(_flag_words(parse, v) for v in values)
    return callback


def _parsed_one(parse):
    """A click callback taking an option's one value (None: not given) through `parse`."""
    def callback(ctx, param, value):
        return None if value is None else _flag_words(parse, value)
    return callback


def _flag_words(parse, value):
    from .passes.options import OptionError

    try:
        return parse(value)
    except OptionError as e:
        raise click.UsageError(e.for_flags) from None


def _rewrite_options(note: str = "", helps: dict | None = None):
    """The flags of RewriteOptions (one per field whose metadata names a flag, with its help
    and aliases), and --compat; the command gets them as `options` (a RewriteOptions) and
    `options_given` (the flags given a value other than their default). `note`: added to each
    help text; `helps`: field -> the command's own help for it."""
    from .passes.options import COMPAT_MODES, OptionError, RewriteOptions, option_fields

    fields = option_fields()

    def decorate(command):
        # wraps: also carries the options already declared below this decorator
        @functools.wraps(command)
        def with_options(**kwargs):
            given = {f.name: kwargs.pop(f.name) for f in fields}
            for f in fields:
                if f.default == ():
                    given[f.name] = tuple(given[f.name])
                elif f.default is None:  # names, or None for all
                    given[f.name] = given[f.name] or None
            compat = kwargs.pop("compat")
            try:
                kwargs["options"] = RewriteOptions.compat(compat, **given)
            except OptionError as e:  # RewriteOptions' checks: a range, values together
                raise click.UsageError(e.for_flags) from None
            kwargs["options_given"] = ("--compat",) * (compat != "cgraph") + tuple(
                f.metadata["flag"] for f in fields if given[f.name] != f.default)
            return command(**kwargs)

        wrapped = with_options
        for f in reversed(fields):
            m = f.metadata
            kw = dict(help=(helps or {}).get(f.name, m["help"] + note), metavar=m["metavar"])
            if m["minimum"] is not None:  # an integer, its range checked by RewriteOptions
                kw.update(type=str, default=str(f.default), show_default=True,
                          callback=_parsed_one(m["parse"]))
            elif f.default == ():
                kw.update(multiple=True)
                if m["parse"] is not None:
                    kw.update(callback=_parsed(m["parse"]))
            elif f.default is False:
                kw.update(is_flag=True)
            else:  # names, or None for all: repeatable, each value NAME or NAME,NAME,...
                kw.update(multiple=True, callback=_names)
            wrapped = click.option(m["flag"], *m["aliases"], f.name, **kw)(wrapped)
        return click.option(
            "--compat", type=click.Choice(COMPAT_MODES), default="cgraph", show_default=True,
            help="tvm: TVM 0.27's RewriteCUDAGraph exactly, its mistakes included (cgraph's "
                 "corrections off; docs/REWRITE.md)" + note + ".")(wrapped)

    return decorate


@main.command("rewrite", help=REWRITE_HELP)
@click.argument("input_path", metavar="IN")
@_output_options
@_rewrite_options()
@click.option("--explain", is_flag=True,
              help="Print, on stderr, why each kernel launch left outside a graph is there.")
@click.option("--verify", "verify_calls", is_flag=True,
              help="Also run `cgraph verify` on the result (4 calls) before writing it: "
                   "written when verify finds it computes what IN computes; else nothing is "
                   "written and the exit status is verify's (1: it computes something else, "
                   "2: it cannot run). -o is checked first.")
@click.option("-v", "--verbose", is_flag=True,
              help="Print, on stderr, one line of what the rewrite did: each function's graph "
                   "launches and host work a call, before -> after.")
def rewrite_command(input_path, output, dialect, options, options_given, explain,
                    verify_calls, verbose):
    from .fileio import check_output, write_text

    check_output(output, inputs=(input_path,))
    mod, source = load_input(input_path)
    with _names_checked("--function"):
        api.check_functions(mod, options.functions, source.name)
    with _names_checked("--capture-symbolic"):
        out, report = api.rewrite(mod, options, source=source)
    _say_rewrite_warnings(report, source)
    if explain:
        from .report.explain_view import explanation

        click.echo(explanation(report, source.name), err=True)
    if verify_calls:
        _say_verdict(mod, out, source)
    if not mod.relax_functions():
        # Still a valid module (written as read), but most likely a file cut off early.
        click.echo(f"{source.name}: note: no Relax function, nothing to rewrite", err=True)
    write_text(output, api.print_module(out, dialect), inputs=(input_path,))
    if verbose:
        from .report.analysis import analyze, rewrite_summary

        click.echo(rewrite_summary(analyze(mod, out, report)), err=True)


def _say_rewrite_warnings(report, source) -> None:
    """A RewriteReport's warnings (a module from the wrong stage, bounds with no effect),
    located in IN, on stderr."""
    if report.stage is not None:
        click.echo(_warning(source, report.stage.loc, report.stage.message), err=True)
    for loc, message in report.warnings:
        click.echo(_warning(source, loc, message), err=True)


def _say_verdict(mod, out, source) -> None:
    """`rewrite --verify`: commands.verify_rewrite's verdict on stderr; unless equal, exit
    with its status (nothing written)."""
    from .report.verify_view import verify_text

    with _progress("text") as progress:
        verdict = commands.verify_rewrite(mod, out, source=source, progress=progress)
    if verdict.report is not None and not verdict.report.equal:
        # The rewrite has no file to point into; the original (IN) has.
        click.echo(verify_text(verdict.report, source.name, "<rewrite>",
                               {"original": source.text}), err=True)
    else:
        click.echo(verdict.summary, err=True)
    if verdict.exit_status != EXIT_OK:
        sys.exit(verdict.exit_status)


VERIFY_HELP = """Check that REWRITTEN computes what ORIGINAL computes, without a GPU.

Runs every public function of both modules on the reference executor (NumPy), --calls
times each in turn, with fresh random inputs each call (weights, the parameters past
num_input, stay fixed), and with CUDA-graph semantics for the rewritten module: a graph
replays the kernels it captured on the buffers it captured. After every call, every output
returned so far is compared bit for bit, so results overwritten by a later call show.
Ownership is checked too, where values agree by chance: a returned value in storage owned
by cuda_graph_alloc, or a graph input at another address than the captured one.
For every value of the symbolic variables within their bounds (tir_var_upper_bound, a
guard), not only those run, the text is proved to place every tensor within its storage,
every view within its tensor, no two live tensors on the same bytes and no returned tensor
in a shared slot; the report counts the facts proved and lists those it cannot decide.

Symbolic variables take 1 and 2 (--shape sets them); then, once the modules are equal, a
second run takes each bounded variable --shape does not set to 2, its guard's bound, its
tir_var_upper_bound and 1, in terms alone (no bytes computed) unless the host reads bytes a
kernel computed: the report says which values ran in which mode.

--function NAME runs only that public function (repeatable). --shape values are checked
before anything runs: each must be a symbolic variable of the functions that run, at most
the function's tir_var_upper_bound. On a terminal, a progress bar on stderr shows the
function running, the calls done and the graph captures so far.

Exit 0 when equal; 1 at the first difference (function, call, output, element; or an
ownership finding, located; or a shape fact of the rewritten module that fails, located,
with the smallest values that break it -- also when --shape asks for such a value, or a
tensor the rewritten module cannot place where the original runs, at the bounds run); 2
when the modules do not correspond (different public functions or signatures) or the
original cannot run, also for want of memory (out of memory: ...).

\b
Examples:
  cgraph verify model.relax model.graph.relax
  cgraph verify model.relax model.graph.relax --calls 8 --seed 3 --shape n=1,7,16
  cgraph verify llama.relax llama.graph.relax --function decode --calls 2
  cgraph verify llama.relax llama.graph.relax --function prefill --shape seq_len=16,2048
  cgraph rewrite model.relax --verify -o model.graph.relax
"""


def _shapes(ctx, param, values):
    out = {}
    for v in values:
        name, eq, rest = v.partition("=")
        try:
            nums = [int(x) for x in rest.split(",") if x.strip()]
        except ValueError:
            nums = []
        if not eq or not name.strip() or not nums or any(n < 0 for n in nums):
            raise click.BadParameter(f"expected NAME=V1,V2,... (non-negative integers), got "
                                     f"{v!r}")
        out[name.strip()] = nums
    return out


@main.command("verify", help=VERIFY_HELP)
@click.argument("original", metavar="ORIGINAL")
@click.argument("rewritten", metavar="REWRITTEN")
@click.option("--calls", type=click.IntRange(min=1), default=4, show_default=True,
              help="Calls of each public function.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the inputs.")
@click.option("--shape", "shapes", multiple=True, callback=_shapes, metavar="NAME=V1,V2,...",
              help="Values of a symbolic variable, used in turn across calls (default 1,2); "
                   "at most the function's tir_var_upper_bound.")
@_function_option("Run only this public function. Default: all.")
@_format_option(["text", "json"], "text", "Report format.")
def verify_command(original, rewritten, calls, seed, shapes, functions, fmt):
    from .report.verify_view import verify_json, verify_text

    if original == "-" and rewritten == "-":
        raise click.UsageError("only one of ORIGINAL and REWRITTEN can be standard input")
    mod_a, source_a = load_input(original)
    mod_b, source_b = load_input(rewritten)
    with _names_checked("--function"):
        functions = api.public_names(mod_a, functions, source_a.name)
    with _names_checked("--shape"), _progress(fmt) as progress:
        result = api.verify(mod_a, mod_b, calls=calls, seed=seed, shapes=shapes,
                            sources=(source_a, source_b), functions=functions,
                            progress=progress)
    for which, loc, message in result.warnings:
        click.echo(_warning(source_b if which == "rewritten" else source_a, loc, message),
                   err=True)
    if fmt == "json":
        click.echo(json.dumps(verify_json(result, source_a.name, source_b.name), indent=2))
    else:
        click.echo(verify_text(result, source_a.name, source_b.name,
                               {"original": source_a.text, "rewritten": source_b.text}))
    sys.exit(commands.verify_exit_status(result))


@contextlib.contextmanager
def _names_checked(flag: str):
    """The library's UnknownName (a name the module lacks) and OverBound (a --shape value over
    a function's tir_var_upper_bound) as usage errors of `flag` (raised before anything
    runs)."""
    try:
        yield
    except (api.UnknownName, api.OverBound) as e:
        raise click.BadParameter(str(e), param_hint=flag) from None


def _shows_progress(fmt: str) -> bool:
    return fmt == "text" and color(sys.stderr)


@contextlib.contextmanager
def _progress(fmt: str):
    """The `progress` callback of api.verify and api.run_cpu (a real model's call takes
    seconds, a run minutes): a transient line on stderr, only on a terminal that colour is
    allowed on (`color`: NO_COLOR, TERM=dumb) and not under --format json. Yields
    None when there is to be none."""
    if not _shows_progress(fmt):
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, \
        TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("calls"), TimeElapsedColumn(), console=Console(file=sys.stderr),
                   transient=True)
    task = None

    def update(function: str, index: int, total: int, captures: int) -> None:
        nonlocal task
        if task is None:
            task = bar.add_task("", total=total)
        bar.update(task, completed=index, total=total,  # the bounds run has its own
                   description=f"{function} ({captures} graph capture(s) so far)")

    with bar:
        yield update


RUN_HELP = """Run every public function of IN: on the reference executor, or on a GPU.

--device cpu runs IN on the reference executor (NumPy) and prints its outputs' shapes and
checksums; on a terminal, with a progress bar on stderr.

--device N runs IN on GPU N twice -- as it is, one launch per kernel (eager), and rewritten
with real CUDA graphs (by cgraph, or OUT if given: TVM's output, say) -- checks that both compute what the reference executor
computes, bit for bit, then times one call of each (CUDA events, --warmup then --iters
calls, median and p10-p90) and reports what the graphs bought. Kernels are cgraph's library
(docs/EXECUTOR.md), compiled by NVRTC for the device and cached; --kernels FILE.cu brings
your own by PrimFunc name (the check is then eager = graph only); a file written by `cgraph
kernels` (the model's own kernels) is launched as its manifest says (docs/KERNELS.md). Needs an NVIDIA driver and
cuda-python; without them it says so and exits 2.

--function NAME (repeatable) runs only that public function, on either device. --shape values
are checked before anything runs, against the function's tir_var_upper_bound too.

Exit status: 0 ok, 1 the outputs differ, 2 usage or input error (or no GPU, or out of memory).

\b
Examples:
  cgraph run model.relax --device cpu
  cgraph run model.relax --device cpu --calls 3 --shape n=4
  cgraph run llama.relax --device cpu --function prefill --shape seq_len=128
  cgraph run model.relax --device 0
  cgraph run model.relax --device 0 --shape m=8,16 --iters 1000 --format json
  cgraph run model.relax --device 0 --kernels my_kernels.cu --function decode
  cgraph kernels model.relax -o model.cu && cgraph run model.relax --device 0 --kernels model.cu
  cgraph run model.relax tvm_output.relax --device 0   # time a given rewrite instead
"""


@main.command("run", help=RUN_HELP)
@click.argument("input_path", metavar="IN")
@click.argument("output_path", metavar="[OUT]", required=False)
@click.option("--device", default="cpu", show_default=True, metavar="cpu|N",
              help="cpu for the reference executor, or a GPU ordinal.")
@click.option("--calls", type=click.IntRange(min=1), default=None,
              help="Calls of each function (checked). Default: 1 on cpu; on a GPU 3, or "
                   "twice the number of --shape values.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--shape", "shapes", multiple=True, callback=_shapes, metavar="NAME=V1,V2,...",
              help="Values of a symbolic dimension, used in turn (one capture per value).")
@click.option("--warmup", type=click.IntRange(min=0), default=20, show_default=True,
              help="GPU: untimed calls before timing.")
@click.option("--iters", type=click.IntRange(min=1), default=200, show_default=True,
              help="GPU: timed calls of each launch list.")
@click.option("--kernels", "kernels_path", default=None, metavar="FILE.cu",
              help="GPU: CUDA C kernels named after PrimFuncs, or written by `cgraph "
                   "kernels`, used instead of cgraph's.")
@_function_option("Run only this public function. Default: all.")
@_format_option(["text", "json"], "text")
def run_command(input_path, output_path, device, calls, seed, shapes, warmup, iters,
                kernels_path, functions, fmt):
    from .fileio import read_text

    if device != "cpu" and not device.isdigit():
        raise click.BadParameter("expected cpu or a GPU ordinal", param_hint="--device")
    device = device if device == "cpu" else int(device)
    commands.check_run_request(device, output_path, kernels_path)
    mod, source = load_input(input_path)
    given, given_source = load_input(output_path) if output_path else (None, None)
    kernels = read_text(kernels_path) if kernels_path else None
    with _names_checked("--function"):
        functions = api.public_names(mod, functions, source.name)
    on_cpu = device == "cpu"
    # On a GPU the run draws its own progress (RunOptions.progress): only whether to.
    with _names_checked("--shape"), _progress(fmt if on_cpu else "") as progress:
        result = commands.run(
            mod, given, device=device, calls=calls, seed=seed, shapes=shapes,
            functions=functions, warmup=warmup, iters=iters, kernels=kernels, source=source,
            given_source=given_source, on_warnings=_warnings_of(source),
            progress=progress if on_cpu else _shows_progress(fmt))
    _say_run(result, source.name, fmt)
    sys.exit(result.exit_status)


def _warnings_of(source):
    """The `on_warnings` callback of a run: each (Loc, message) located in `source`."""
    def say(warnings):
        for loc, message in warnings:
            click.echo(_warning(source, loc, message), err=True)
    return say


def _say_run(result, name: str, fmt: str) -> None:
    from .report import run_view

    if result.device == "cpu":
        click.echo(json.dumps(run_view.cpu_to_json(result.report, name, result.calls), indent=2)
                   if fmt == "json" else run_view.cpu_text(result.report, result.calls),
                   nl=fmt == "json")
    elif fmt == "json":
        click.echo(json.dumps(run_view.to_json(result.report), indent=2))
    else:
        console, stream = _console(to_file=False)
        run_view.render(result.report, console)
        _echo_view(stream.getvalue())


KERNELS_HELP = """Write the kernels of IN's PrimFuncs as CUDA C, with a launch manifest.

TVM (apache-tvm, imported only by this command) lowers the PrimFuncs alone, as relax.build
does for a cuda target of --arch, and its CUDA code generator writes the kernels (no GPU or
CUDA toolkit needed). The file opens with a launch manifest: for each PrimFunc, its kernels
in launch order, their parameters in order, grid and block dimensions and dynamic shared
memory as expressions of the module's symbolic variables (docs/KERNELS.md). `cgraph run
--device N --kernels FILE.cu` launches them in place of cgraph's stand-in kernels.

\b
Examples:
  cgraph kernels model.relax -o model.cu
  cgraph kernels model.relax --arch sm_90 -o model.sm90.cu
  cgraph kernels model.relax | less
  cgraph run model.relax --device 0 --kernels model.cu
"""


@main.command("kernels", help=KERNELS_HELP)
@click.argument("input_path", metavar="IN")
@click.option("-o", "--output", "output", default="-", metavar="OUT.cu",
              help="Output file (default: - for standard output). Written atomically.")
@click.option("--arch", default="sm_80", show_default=True, metavar="sm_XY",
              help="The CUDA architecture TVM generates code for.")
def kernels_command(input_path: str, output: str, arch: str):
    from .cuda.tvm_kernels import TvmUnavailable, check_arch, lower_module
    from .fileio import check_output, write_text

    try:
        check_arch(arch)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--arch") from None
    check_output(output, inputs=(input_path,))
    mod, source = load_input(input_path)
    try:
        kernels = lower_module(mod, source.name, arch)
    except TvmUnavailable as e:
        raise commands.CommandError(str(e)) from None
    except SourceError as e:
        raise api.located(e, source)
    write_text(output, kernels.source, inputs=(input_path,))
    for note in kernels.notes:
        click.echo(f"{source.name}: note: {note}", err=True)


DIFF_HELP = """Show what the rewrite did: what was lifted into CUDA graphs, what was not, and why.

With one file, IN is rewritten first (same options as `cgraph rewrite`); with two, IN and
OUT are a given pair (OUT made by cgraph or by TVM). The terminal view lists each function's
bindings with the graph (R0, R1, ...) each went into, the shared-allocation slot of each
lifted storage, and, under each kernel launch left outside, the reason; then a summary table.
Lines nothing happens to (the weights unpacked, allocations, aliases) are folded with a count.

\b
Examples:
  cgraph diff model.relax
  cgraph diff model.relax --function decode --fold 0     # every line, every reason whole
  cgraph diff model.relax model.graph.relax --format json
  cgraph diff model.relax --format html -o report.html
  cgraph diff model.relax --summary --fail-under 0.5     # CI gate: exit 1 below 50%
  cgraph diff model.relax --format unified -o model.patch
  patch model.relax < model.patch    # now `cgraph check`-equal to `cgraph rewrite model.relax`

--format unified is a patch of IN's own text (its unchanged functions and bindings keep their
lines; headers `--- IN` `+++ IN`, so also `patch -p0` from IN's directory); with OUT, IN's
own text into OUT's own text. See docs/DIFF.md.

Host work per call: the host-side calls that launch device work in one call of a function:
kernel launches, graph launches (one per run_or_capture) and the vm.builtin calls left on the
host that launch kernels themselves (vm.builtin.attention_kv_cache_*; allocation, shape and
tuple builtins do not count; the list is in docs/DIFF.md). A graph of one kernel replaces one
kernel launch with one graph launch and removes nothing (`--min-kernels 2`).

Graphs keyed by symbolic values (a run_or_capture ending in R.shape([VAR])) capture one
graph per launch and value: a table gives, per capture function, the keying variables, how
many graphs they can make (bounded by a `--capture-symbolic VAR:MAX` guard or the function's
tir_var_upper_bound, else unbounded, with a note) and the shared bytes its graphs replay into
(held once); JSON `keyed_graphs` and `graphs_at_most`. On a Llama with batch_size <= 32:

\b
  cgraph diff model.relax --summary --function batch_decode   # 18 launches x 32 = 576 graphs

A function whose graphs are unbounded or more than --warn-over-graphs (4096) gets a located
warning naming the --capture-symbolic VAR:MAX that bounds them and the count it gives;
--fail-over-graphs N is the CI gate (exit 1). On the same Llama, prefill keyed by seq_len
(bound 2048: 18 x 2048 = 36,864 graphs):

\b
  cgraph diff model.relax --capture-symbolic seq_len --fail-over-graphs 4096
  # warning: prefill: up to 36,864 CUDA graphs, over 4,096 (--warn-over-graphs);
  #   --capture-symbolic seq_len:128 bounds them to 2,304 ...; exit 1
"""


@main.command("diff", help=DIFF_HELP)
@click.argument("input_path", metavar="IN")
@click.argument("output_path", metavar="[OUT]", required=False)
@_format_option(["terminal", "json", "html", "unified"], "terminal",
                "View (json: schema in docs/DIFF.md).")
@click.option("-o", "--output", "output", default="-", metavar="FILE",
              help="Write the view to FILE (default: standard output). Written atomically.")
@click.option("--fold", type=click.IntRange(min=0), default=12, show_default=True,
              help="Fold runs of more than N bindings in one graph (first 3 and last 2 "
                   "kept), runs of 2 or more lines nothing happens to (`… 98 lines: "
                   "packed_params[0..97] unpacked`; HTML: click to open) and, in the "
                   "terminal, a reason already given whole in the function (0: fold "
                   "nothing).")
@click.option("--summary", "summary_only", is_flag=True, help="Only the summary tables.")
@click.option("--fail-under", type=click.FloatRange(0.0, 1.0), default=None, metavar="RATIO",
              help="Exit 1 when the fraction of host work removed, 1 - (host work per "
                   "call after) / (before), summed over all Relax functions (the one "
                   "--function names, if given), is below RATIO; and when the module has "
                   "no kernel launch.")
@click.option("--fail-under-captured", type=click.FloatRange(0.0, 1.0), default=None,
              metavar="RATIO", help="Exit 1 when the fraction of kernel launches captured "
              "into graphs (whatever they save) is below RATIO; and when the module has "
              "no kernel launch.")
@click.option("--warn-over-graphs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Warn (located, on stderr; JSON graph_count) about each function whose "
                   "CUDA graphs are unbounded or more than N (default 4096: "
                   "report/graph_warnings.py, docs/DIFF.md), naming the --capture-symbolic "
                   "VAR:MAX that would bound them and the count it gives.")
@click.option("--fail-over-graphs", type=click.IntRange(min=1), default=None, metavar="N",
              help="Exit 1 when a function's CUDA graphs are unbounded or more than N (a CI "
                   "gate; such functions are warned about whatever --warn-over-graphs).")
@click.option("--explain", is_flag=True,
              help="Also print, on stderr, rewrite --explain's lines: why each kernel launch "
                   "left outside a graph is there, and which kernels keep a variable's rows "
                   "apart (one-file form).")
@_rewrite_options(" (one-file form: the rewrite of IN)", helps={"functions": (
    "Only these Relax functions, in every view (their numbers, reasons, bindings; unified: a "
    "patch of IN that changes only them and adds the functions their graphs launch); the "
    "rewrite stays the whole module's. Repeatable, or NAME,NAME,...; --functions too.")})
def diff_command(input_path, output_path, fmt, output, fold, summary_only, fail_under,
                 fail_under_captured, warn_over_graphs, fail_over_graphs, explain, options,
                 options_given):
    from .fileio import check_output, write_text

    inputs = (input_path,) + ((output_path,) if output_path else ())
    check_output(output, inputs=inputs)
    # The unified view is a patch of IN: its left side is IN's own bytes (line ends kept).
    mod, source, in_text = load_input_keeping_text(input_path)
    # --function selects what every view shows; the rewrite is the module's (commands.diff).
    functions, options = options.functions, dataclasses.replace(options, functions=None)
    with _names_checked("--function"):
        # Checked before the rewrite: a misspelled name must not cost a rewrite first.
        api.check_functions(mod, functions, source.name)
    out = out_source = out_text = None
    if output_path is not None:
        if explain:
            raise click.UsageError("--explain prints the rewrite's own reasons: it applies to "
                                   "the one-file form (which rewrites IN)")
        rewrite_flags = [f for f in options_given if f != "--function"]
        if rewrite_flags:
            raise click.UsageError(f"{', '.join(rewrite_flags)}: the rewrite's options apply "
                                   "to the one-file form (which rewrites IN)")
        out, out_source, out_text = load_input_keeping_text(output_path)
    with _names_checked("--capture-symbolic"):
        result = commands.diff(
            mod, out, options=None if out is not None else options, functions=functions,
            fail_under=fail_under, fail_under_captured=fail_under_captured,
            warn_over_graphs=warn_over_graphs, fail_over_graphs=fail_over_graphs,
            sources=(source, out_source))
    for loc, message in result.warnings:
        click.echo(_warning(source, loc, message), err=True)
    if explain:
        from .report.explain_view import explanation

        click.echo(explanation(result.report, source.name), err=True)
    rendered = _diff_view(fmt, result, fold, summary_only, output, functions,
                          (source.name, in_text, mod),
                          (out_source.name if out_source else None, out_text, result.rewritten))
    if rendered is not None:
        write_text(output, rendered, inputs=inputs)
    for line in result.failures:
        click.echo(line, err=True)
    sys.exit(result.exit_status)


def _diff_view(fmt, result, fold, summary_only, output, functions, before,
               after) -> str | None:
    """The diff's view as text to write, or None when it went to the terminal already.
    `before`, `after`: (name, text as read, module) of IN and OUT (OUT's name and text None
    in the one-file form)."""
    from .report.analysis import one_function
    from .report.patch_view import render_patch
    from .report.views import render_html, render_terminal, to_json

    (name, in_text, mod), (out_name, out_text, out) = before, after
    facts = result.facts
    if fmt == "json":
        return json.dumps(to_json(facts, name, result.graphs), indent=2) + "\n"
    if fmt == "html":
        return render_html(facts, name, fold)
    if fmt == "unified":
        names = None if functions is None else {
            g.name for f in functions for g in one_function(mod, out, f)[1].functions}
        return render_patch(in_text, mod, out, name, out_text, out_name, names)
    console, stream = _console(to_file=output != "-")
    render_terminal(facts, console, None, fold, summary_only)
    if output != "-":
        return stream.getvalue()
    _echo_view(stream.getvalue())
    return None


GEN_HELP = """Write a realistic post-memory-planning module of any size (deterministic for a seed).

KIND is `decode`: an LLM-style module of --layers transformer layers, each a run of
--kernels-per-layer PrimFunc launches broken by a vm.builtin KV-cache call; storages reused
as StaticPlanBlockMemory plans them; weights past num_input. With --function
prefill,decode the module also has a prefill function with a symbolic sequence length n,
marked for capture (relax.rewrite_cuda_graph.capture_symbolic_vars).

KIND `chain`: a chain of --length tiny elementwise kernels (add_one over --size elements of
--dtype) into a destination parameter, planned into two storages, its parameters weights: one
CUDA graph; the launch-overhead benchmark (bench/bench_gpu.py).

\b
Examples:
  cgraph gen decode --layers 32 -o decode32.relax
  cgraph gen decode --layers 4 --function prefill,decode --hidden 256
  cgraph gen decode --layers 512 | cgraph rewrite - -o decode512.graph.relax
  cgraph gen chain --length 1000 -o chain1000.relax
"""


@main.command("gen", help=GEN_HELP)
@click.argument("kind", type=click.Choice(["decode", "chain"]))
@click.option("--layers", type=click.IntRange(min=1), default=32, show_default=True)
@click.option("--kernels-per-layer", type=click.IntRange(min=1), default=12, show_default=True)
@_function_option("The functions to write: prefill and/or decode (default: decode).",
                  default=("decode",))
@click.option("--hidden", type=click.IntRange(min=1), default=4096, show_default=True,
              help="Hidden size (tensors are 1 x hidden, weights hidden x hidden, float16).")
@click.option("--max-seq", type=click.IntRange(min=1), default=128, show_default=True,
              help="Largest prefill length the storages are sized for.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--length", type=click.IntRange(min=1), default=100, show_default=True,
              help="chain: number of kernels.")
@click.option("--size", type=click.IntRange(min=1), default=1024, show_default=True,
              help="chain: elements per tensor.")
@click.option("--dtype", type=click.Choice(["float16", "float32", "float64"]),
              default="float32", show_default=True, help="chain: element type.")
@click.option("-o", "--output", "output", default="-", metavar="OUT",
              help="Output file (default: - for standard output). Written atomically.")
def gen_command(kind, layers, kernels_per_layer, functions, hidden, max_seq, seed, length,
                size, dtype, output):
    from .fileio import check_output, write_text
    from .gen import chain_module, decode_module

    check_output(output)
    if kind == "chain":
        write_text(output, chain_module(length, size, dtype))
        return
    unknown = [f for f in functions if f not in ("prefill", "decode")]
    if unknown:
        raise click.BadParameter(f"unknown function {', '.join(unknown)} (prefill, decode)",
                                 param_hint="--function")
    text = decode_module(layers, kernels_per_layer, seed, tuple(functions), hidden, max_seq)
    write_text(output, text)


def _warning(source, loc: Loc, message: str) -> str:
    """A located warning in `source`'s file (on stderr; no exit status)."""
    return located_message(source.name, source.text, loc, "warning", one_line(message))


if __name__ == "__main__":  # pragma: no cover
    main()
