"""The `ferrox` command: `compile`, `run` and `doctor`, each in its own module under commands/."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import ferrox

COMMANDS = {
    "compile": "ferrox.driver.tools.commands.compile",
    "run": "ferrox.driver.tools.commands.run",
    "doctor": "ferrox.driver.tools.commands.doctor",
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ferrox", description=ferrox.__doc__)
    parser.add_argument("--version", action="version", version=f"ferrox {ferrox.__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, path in COMMANDS.items():
        module = importlib.import_module(path)
        modules[name] = module
        module.add_arguments(sub.add_parser(name, help=module.__doc__.splitlines()[0]))
    args = parser.parse_args(argv)
    try:
        return int(modules[args.command].execute(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
