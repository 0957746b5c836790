"""The `ferrox` command: `compile`, `run`, `doctor`, `explore`, `explain` and `new`, each in its own
module under commands/. Only the command asked for is imported (a cache hit through `ferrox
compile` imports no lowering, no explorer); `ferrox --help` lists them from COMMANDS alone.

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
    "compile": "IR to PTX (and, with --cubin, a cubin assembled by ptxas).",
    "run": "run a host program's `@main` on the GPU, or on the CPU reference interpreter.",
    "doctor": "what this machine can do (NVPTX, ptxas, CUDA, GPU, cache) and what is missing.",
    "explore": "one HTML page with a file's IR after every stage of the lowering.",
    "explain": "the long explanation of an error code, with an example and what ferrox says.",
    "new": "make a ferrox project, or an out-of-tree dialect package, whose tests pass as made.",
}
"""Each command's module is `ferrox.driver.tools.commands.NAME`; the text is the first line of
its docstring (tests/driver/tools/test_cli_lazy.py keeps the two the same)."""


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command `argv` names: its first word that is not one of the top-level options."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--error-format":
            skip = True
        elif not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    chosen = chosen_command(argv)
    parser = argparse.ArgumentParser(
        prog="ferrox", description=(ferrox.__doc__ or "").splitlines()[0]
    )
    parser.add_argument("--version", action="version", version=f"ferrox {ferrox.__version__}")
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    add_error_format(parser)
    sub = parser.add_subparsers(dest="command", required=True)
    module = None
    for name, summary in COMMANDS.items():
        command = sub.add_parser(name, help=summary, description=f"ferrox {name}: {summary}")
        if name == chosen:
            module = importlib.import_module(f"ferrox.driver.tools.commands.{name}")
            command.description = module.__doc__
            command.formatter_class = argparse.RawDescriptionHelpFormatter
            module.add_arguments(command)
        command.add_argument(
            "--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP
        )
        add_error_format(command, suppress=True)
    args = parser.parse_args(argv)
    assert module is not None and args.command == chosen, (args.command, chosen)
    try:
        error_format(args.error_format)
    except ValueError as e:  # FERROX_ERROR_FORMAT names no format
        print(f"ferrox: error: {e}", file=sys.stderr)
        return 1
    try:
        return int(module.execute(args) or 0)
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
