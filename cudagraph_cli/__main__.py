"""`cgraph` (the console script) and `python -m cudagraph_cli`: the click command line
(cli.py)."""

from .cli import main as cli_main


def main() -> None:
    cli_main(prog_name="cgraph")


if __name__ == "__main__":
    main()
