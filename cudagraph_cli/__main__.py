"""`cgraph` (the console script) and `python -m cudagraph_cli`: the one form console.py
serves without click, else the click command line (cli.py)."""

import sys

from .console import quick_check


def main() -> None:
    status = quick_check(sys.argv[1:])
    if status is None:
        from .cli import main as cli_main

        cli_main(prog_name="cgraph")
    sys.exit(status)


if __name__ == "__main__":
    main()
