"""The `ferrox` command: `compile`, `run` and `doctor`, each in its own module under commands/.

A command reports its users' mistakes itself (a located diagnostic, exit 1). Whatever escapes it is
a bug in ferrox, reported here as an internal error (failure.py): `--debug`, before or after the
command's name, or FERROX_TRACEBACK=1 adds the traceback."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

import ferrox
from ferrox.diagnostics import DiagnosticError, error_format
from ferrox.driver.tools.failure import report_internal_error
from ferrox.driver.tools.report import add_error_format, print_diagnostics

COMMANDS = {
    "compile": "ferrox.driver.tools.commands.compile",
    "run": "ferrox.driver.tools.commands.run",
    "doctor": "ferrox.driver.tools.commands.doctor",
    "explore": "ferrox.driver.tools.commands.explore",
    "explain": "ferrox.driver.tools.commands.explain",
    "new": "ferrox.driver.tools.commands.new",
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ferrox", description=ferrox.__doc__)
    parser.add_argument("--version", action="version", version=f"ferrox {ferrox.__version__}")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    add_error_format(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    modules = {}
    for name, path in COMMANDS.items():
        module = importlib.import_module(path)
        modules[name] = module
        command = sub.add_parser(name, help=module.__doc__.splitlines()[0])
        module.add_arguments(command)
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
        )
        add_error_format(command, suppress=True)
    args = parser.parse_args(argv)
    try:
        error_format(args.error_format)
    except ValueError as e:  # FERROX_ERROR_FORMAT names no format
        print(f"ferrox: error: {e}", file=sys.stderr)
        return 1
    try:
        return int(modules[args.command].execute(args) or 0)
    except KeyboardInterrupt:
        return 130
    except DiagnosticError as e:  # a located mistake in the input that the command let through
        print_diagnostics(e, args)
        return 1
    except Exception as e:  # a bug in ferrox, never dressed as a user error
        return report_internal_error(f"ferrox {args.command}", e, args.debug)


DEBUG_HELP = "on an internal error (a ferrox bug), print the Python traceback"


if __name__ == "__main__":
    sys.exit(main())
