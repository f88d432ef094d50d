"""What `--help` and the docs both say is said once, or checked against the other (issue 46
item 3, issue 47 item 2): the synopsis in docs/CLI.md is made from the commands' own
parameters (cli.synopsis, which `cgraph --help` ends with), and README.md's shorter one is
checked against it, option by option; every `cgraph ...` example in
the README, docs/CLI.md and each command's `--help` is a command line cgraph accepts; the
rewrite's options table in docs/CLI.md lists the options RewriteOptions makes; api.verify's
docstring names every kind of difference verify reports."""

from __future__ import annotations

import re
import shlex

import click
import click.testing
import pytest

from conftest import ROOT
from cudagraph_cli.cli import argument_word, main, option_word, synopsis
from docs_sync import DOCS, OPTIONS_DOCS, options_blocks, options_table, synopsis_blocks, \
    synopsis_text


@pytest.mark.parametrize("name", DOCS)
def test_the_synopsis_is_the_commands_own(name):
    blocks = synopsis_blocks((ROOT / name).read_text(encoding="utf-8"))
    assert blocks, f"{name} has no <!-- synopsis --> block"
    assert blocks == [synopsis_text()] * len(blocks), \
        f"{name}'s synopsis is out of date: run `python tests/helpers/docs_sync.py`"


@pytest.mark.parametrize("name", OPTIONS_DOCS)
def test_the_options_fields_are_the_options_own(name):
    """Issue 52: API.md did not list RewriteOptions' fields (`capture_buckets` was guessed)."""
    from cudagraph_cli.passes.options import RewriteOptions

    blocks = options_blocks((ROOT / name).read_text(encoding="utf-8"))
    assert blocks == [options_table()], \
        f"{name}'s RewriteOptions table is out of date: run `python tests/helpers/docs_sync.py`"
    import dataclasses
    listed = re.findall(r"^\| `(\w+)` \|", blocks[0], re.M)
    assert listed == [f.name for f in dataclasses.fields(RewriteOptions)]
    assert "| `capture_buckets` | `()` | `--capture-buckets` |" in blocks[0]


def readme_synopsis() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("<!-- synopsis -->"):text.index("<!-- /synopsis -->")]
    return [line.strip() for line in block.splitlines()[1:] if line.strip()]


def accepted_forms(word: str) -> list[str]:
    """How a shorter synopsis may write a generated option word: as it is, without the `...`
    of a repeatable option, without the brackets of an optional one (the README shows what
    a newcomer gives)."""
    forms = [word, word.removesuffix("...")]
    return forms + [f[1:-1] for f in forms if f.startswith("[") and f.endswith("]")]


def test_the_readmes_synopsis_says_what_the_commands_take():
    """README.md's synopsis: a line per command, `...` where options are left out. Each line's
    arguments are the command's, each option it names is written as the whole synopsis
    writes it (its first spelling, its value), and a line without `...` names them all."""
    whole = {line.split()[1]: line for line in " ".join(synopsis(main)).replace(
        " cgraph ", "\ncgraph ").splitlines()}
    lines = readme_synopsis()
    assert lines[-1] == "cgraph --version | --help"
    assert sorted(line.split()[1] for line in lines[:-1]) == sorted(main.commands)
    for line in lines[:-1]:
        name = line.split()[1]
        command = main.commands[name]
        shown = " ".join(line.split()[2:])
        arguments = [argument_word(p).strip("[]") for p in command.params
                     if p.param_type_name == "argument"]
        assert [w.strip("[]") for w in shown.split()[:len(arguments)]] == arguments, line
        rest = " " + re.sub(r"\[(--[a-z-]+) \| (--[a-z-]+)\]", r"[\1] [\2]",
                            " ".join(shown.split()[len(arguments):])) + " "
        named = 0
        for p in command.params:
            if p.param_type_name != "option":
                continue
            form = next((f for f in sorted(accepted_forms(option_word(p)), key=len,
                                           reverse=True) if f" {f} " in rest), None)
            if form is not None:
                rest = rest.replace(f" {form} ", " ", 1)
                named += 1
        left = rest.split()
        assert all(w in ("...", "|") or re.fullmatch(r"[A-Z_]+", w) for w in left), \
            f"{line}: {left} is no option of `cgraph {name}` as `cgraph --help` writes it"
        if not line.endswith("..."):
            assert named == sum(p.param_type_name == "option" for p in command.params), line
        assert whole[name]  # the command is in the whole synopsis too


def test_the_synopsis_is_what_help_ends_with():
    help_text = click.testing.CliRunner().invoke(main, ["--help"]).output
    assert help_text.rstrip().endswith(
        "\n".join("  " + line for line in synopsis(main)).rstrip())


def test_the_synopsis_names_every_option_of_every_command():
    text = synopsis_text()
    for name, command in main.commands.items():
        for p in command.params:
            if p.param_type_name == "option":
                assert re.search(rf"\[{re.escape(p.opts[0])}[ \]]", text), (name, p.opts)


# ---- examples ------------------------------------------------------------------------------

SHELL_OPERATORS = {"|", "&&", ";", "<", ">", "||"}


def command_lines(text: str) -> list[str]:
    """The `cgraph ...` commands in a text's examples: each line that starts (after a prompt
    `$ `) with `cgraph `, cut into the commands of a pipeline."""
    found = []
    for line in text.splitlines():
        line = line.strip().removeprefix("$ ")
        if not line.startswith("cgraph ") or "..." in line or " [" in line:
            continue  # not a command, an elided one, or the synopsis's notation
        if line.split()[1] not in main.commands and not line.split()[1].startswith("-"):
            continue  # prose: "cgraph reads ..."
        try:
            words = shlex.split(line, comments=True)
        except ValueError:  # an unbalanced quote: prose, not an example
            continue
        segment: list[str] = []
        for word in words + ["|"]:
            if word in SHELL_OPERATORS or word.startswith((">", "<")):
                if segment[:1] == ["cgraph"]:
                    found.append(segment)
                segment = []
            else:
                segment.append(word)
    return [" ".join(shlex.quote(w) for w in s) for s in found]


def help_examples() -> list[tuple[str, str]]:
    lines = []
    for name, command in main.commands.items():
        lines += [(f"cgraph {name} --help", c) for c in command_lines(command.help or "")]
    return lines + [("cgraph --help", c) for c in command_lines(main.help or "")]


def doc_examples() -> list[tuple[str, str]]:
    docs = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
    return [(name, c) for name in docs
            for c in command_lines((ROOT / name).read_text(encoding="utf-8"))]


def parse(line: str) -> None:
    """Parse `line` as cgraph would, running nothing: click's usage error if it is no command
    line cgraph takes."""
    words = shlex.split(line)[1:]
    if words[0].startswith("-"):
        main.make_context("cgraph", words)
        return
    command = main.commands.get(words[0])
    assert command is not None, f"no command {words[0]!r}"
    command.make_context(words[0], words[1:])


@pytest.mark.parametrize("where,line", help_examples() + doc_examples())
def test_every_example_is_a_command_line_cgraph_takes(where, line):
    try:
        parse(line)
    except click.exceptions.Exit:  # --help, --version
        pass
    except click.UsageError as e:
        pytest.fail(f"{where}: `{line}`: {e.format_message()}")


def test_the_examples_are_found():
    # a parser that finds none would pass the test above for every document
    assert len(help_examples()) > 40 and len(doc_examples()) > 20


# ---- the rewrite's options --------------------------------------------------------------------

def test_the_options_table_lists_the_options_rewriteoptions_makes():
    from cudagraph_cli.passes.options import option_fields

    text = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
    table = text[text.index("## The options of the rewrite"):]
    table = table[:table.index("\n## ")]
    cells = [re.split(r"(?<!\\)\|", line)[1:3] for line in table.splitlines()
             if line.startswith("| `--")]
    rows = {flag.strip(" `").split()[0]: field.strip(" `") for flag, field in cells}
    assert rows == {
        **{f.metadata["flag"]: f.name for f in option_fields()}, "--compat": "the corrections"}


# ---- exit statuses -------------------------------------------------------------------------

def test_the_exit_statuses_are_the_commands_own():
    """docs/CLI.md's table and `cgraph --help`'s line name the statuses commands.py defines."""
    from cudagraph_cli import commands
    from cudagraph_cli.cli import EXIT_INTERRUPTED, MAIN_HELP

    text = (ROOT / "docs" / "CLI.md").read_text(encoding="utf-8")
    table = text[text.index("## Exit status"):]
    table = table[:table.index("\n## ")]
    codes = {int(c) for c in re.findall(r"^\| (\d+) \|", table, re.M)}
    defined = {commands.EXIT_OK, commands.EXIT_CHECK_FAILED, commands.EXIT_INPUT_ERROR,
               commands.EXIT_INTERNAL}
    assert codes == defined | {EXIT_INTERRUPTED}
    line = next(ln for ln in MAIN_HELP.splitlines() if ln.startswith("Exit status:"))
    assert {int(c) for c in re.findall(r"(\d+) ", line)} == defined


# ---- api.verify's kinds of difference ------------------------------------------------------

def test_api_verify_names_every_kind_of_difference():
    """The kinds are what the executor's checks make (`kind="..."` in exec/) and the default
    of exec.compare.Difference; the docstring names each and no other."""
    import dataclasses

    from cudagraph_cli import api
    from cudagraph_cli.exec.compare import Difference

    made = {m for path in (ROOT / "cudagraph_cli" / "exec").rglob("*.py")
            for m in re.findall(r'\bkind="([a-z]+)"', path.read_text(encoding="utf-8"))}
    made.add(next(f.default for f in dataclasses.fields(Difference) if f.name == "kind"))
    doc = api.verify.__doc__
    listed = doc[doc.index("the kinds:"):doc.index("tests/test_docs_sync.py checks")]
    listed = set(re.findall(r'"([a-z]+)" \(', listed))
    assert listed == made
