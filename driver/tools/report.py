"""How the command-line tools print what they refuse: located diagnostics through the one
renderer (ferrox/diagnostic_render.py) in the format the user chose, and command-line mistakes
(an unknown pass, a pass option) with the name that was probably meant."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence

from ferrox.diagnostic_suggest import did_you_mean
from ferrox.diagnostics import ERROR_FORMAT_ENV, ERROR_FORMATS, DiagnosticError, render

ERROR_FORMAT_HELP = (
    "how errors read: human (rustc's shape: the source line with the span underlined, notes, "
    "help; the default) or short (one line each: file:line:col: error[CODE]: message); the "
    f"default comes from {ERROR_FORMAT_ENV} when set"
)


def add_error_format(parser: argparse.ArgumentParser, suppress: bool = False) -> None:
    """`--error-format` on a parser (`suppress`: on a subcommand, not overriding the top's)."""
    default = argparse.SUPPRESS if suppress else None
    parser.add_argument(
        "--error-format", choices=ERROR_FORMATS, default=default, help=ERROR_FORMAT_HELP
    )


def print_diagnostics(
    error: DiagnosticError, args: argparse.Namespace | None, sources: dict[str, str] | None = None
) -> None:
    """The diagnostics of `error` on standard error, in the format `args` (or the env) asks."""
    fmt = getattr(args, "error_format", None)
    print(render(error, fmt, sources), file=sys.stderr)


def pipeline_error(message: str, argv: Sequence[str]) -> tuple[str, list[str]]:
    """xDSL's message for an unknown pass or pass option, said plainly, and its help lines
    (the name it was probably meant to be); another message as it is, without help."""
    from ferrox import registry

    unknown = re.fullmatch(r"Unrecognized passes: \[(.*)\]", message)
    option = re.fullmatch(
        r"Provided arguments \[(.*)\] not found in expected arguments \[(.*)\]", message
    )
    helps: list[str] = []
    if unknown:
        names = re.findall(r"'([^']*)'", unknown[1])
        known = registry.all_passes()
        for name in names:
            hint = did_you_mean(name, known)
            if hint:
                helps.append(f"{f'`{name}`: ' if len(names) > 1 else ''}{hint}")
        helps.append("`ferrox-opt --list-passes` lists every pass")
        plural = "es" if len(names) > 1 else ""
        return f"unknown pass{plural} " + ", ".join(f"`{n}`" for n in names), helps
    if option:
        given = re.findall(r'"([^"]*)"', option[1])
        expected = re.findall(r'"([^"]*)"', option[2])
        owner = _pass_with_options(argv, given)
        which = f"pass `{owner}`" if owner else "the pass"
        for name in given:
            hint = did_you_mean(name, expected)
            if hint:
                helps.append(f"{f'`{name}`: ' if len(given) > 1 else ''}{hint}")
        if expected:
            helps.append(f"its options: {', '.join(expected)}")
        else:
            helps.append(f"{which} takes no options")
        plural = "s" if len(given) > 1 else ""
        return f"{which} has no option{plural} " + ", ".join(f"`{n}`" for n in given), helps
    return message, helps


def command_line_error(tool: str, message: str, argv: Sequence[str]) -> str:
    """`tool: error: ...` for a command-line mistake, with `= help:` lines under it."""
    said, helps = pipeline_error(message, argv)
    return "\n".join([f"{tool}: error: {said}", *(f"  = help: {h}" for h in helps)])


def _pass_with_options(argv: Sequence[str], names: list[str]) -> str | None:
    """The pass in the `-p` pipeline whose `{...}` sets one of `names`."""
    for arg in argv:
        for m in re.finditer(r"([\w.-]+)\{([^}]*)\}", arg):
            keys = {k.split("=")[0].strip() for k in re.split(r"[ ,]+", m[2]) if k}
            if keys & set(names):
                return m[1]
    return None
