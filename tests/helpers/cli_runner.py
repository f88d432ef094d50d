"""`cgraph` in this process, for the tests that call the CLI many times (a real process a call,
`conftest.run_cli`, costs a start-up each: the suite would not fit its time).

One runner, one result: `cgraph(*args)` gives (exit_code, stdout, stderr), the three things a
user sees, kept apart as a terminal keeps them. It runs as `run_cli` runs the real process:
color off (NO_COLOR), CGRAPH_DEBUG unset; `env` adds to that. An exception the CLI lets
through is raised here, not turned into an exit status: for a user it would be a traceback.
"""

from __future__ import annotations

from typing import NamedTuple

from click.testing import CliRunner


class CliResult(NamedTuple):
    exit_code: int
    stdout: str
    stderr: str


def cgraph(*args, input: str | bytes | None = None, env: dict | None = None) -> CliResult:
    """`cgraph ARGS` (each made a str) in this process, `input` on its standard input."""
    from cudagraph_cli.cli import main

    runner = CliRunner(env={"NO_COLOR": "1", "CGRAPH_DEBUG": None, **(env or {})})
    result = runner.invoke(main, [str(a) for a in args], input=input, catch_exceptions=False)
    return CliResult(result.exit_code, result.stdout, result.stderr)
