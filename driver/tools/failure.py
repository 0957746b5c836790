"""How the command-line tools tell a user's mistake from a bug in ferrox.

A user's mistake is a located diagnostic and exit 1. Anything else that escapes a command is a
bug in ferrox (or in xDSL underneath it) and is reported as an internal error: what failed (the
exception), where (the innermost ferrox or xDSL frame) and how to see the whole traceback
(`--debug`, or FERROX_TRACEBACK=1 in the environment). It is never dressed as a diagnostic at
some line of the input, which would send the user looking for a mistake that is not theirs.
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import TextIO

from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

# The exceptions that describe the input, not the compiler: xDSL's parse and verify errors and
# ferrox's DiagnosticError (a DiagnosticException). Everything else is an internal error.
USER_ERRORS: tuple[type[BaseException], ...] = (ParseError, VerifyException, DiagnosticException)

PREFIX = "internal error (a ferrox bug, please report it)"
# EX_SOFTWARE of sysexits.h: not 1 (a diagnostic), not 2 (argparse's usage errors).
INTERNAL_ERROR_EXIT = 70
HOW_TO_SEE = "run again with --debug (or FERROX_TRACEBACK=1) to see the traceback"


def traceback_wanted(debug: bool = False) -> bool:
    """`--debug`, or FERROX_TRACEBACK set to anything but empty or 0."""
    return debug or os.environ.get("FERROX_TRACEBACK", "") not in ("", "0")


def _ours(filename: str) -> bool:
    parts = Path(filename).parts
    return "ferrox" in parts or "xdsl" in parts or _is_checkout_file(filename)


def _is_checkout_file(filename: str) -> bool:
    # An editable install runs the root folders (passes/, lowering/, ...) from the checkout.
    root = Path(__file__).resolve().parents[2]
    path = Path(filename)
    if not path.is_absolute() or not path.is_file():  # `<string>`: generated code
        return False
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    return "site-packages" not in path.parts and ".venv" not in path.parts


def innermost_frame(exc: BaseException) -> traceback.FrameSummary | None:
    """The innermost frame of the traceback that is in ferrox or xDSL (not the standard library)."""
    frames = traceback.extract_tb(exc.__traceback__)
    for frame in reversed(frames):
        if _ours(frame.filename):
            return frame
    return frames[-1] if frames else None


def where(exc: BaseException) -> str:
    frame = innermost_frame(exc)
    if frame is None:
        return "<unknown>"
    return f"{short_path(frame.filename)}:{frame.lineno} in {frame.name}"


def short_path(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("xdsl", "ferrox"):
        if anchor in parts:
            i = len(parts) - 1 - parts[::-1].index(anchor)
            return "/".join(parts[i:])
    root = Path(__file__).resolve().parents[2]
    try:
        return str(Path(filename).resolve().relative_to(root))
    except ValueError:
        return filename


def describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0] if text else ""
    if len(first) > 300:
        first = first[:300] + "..."
    kind = type(exc).__name__
    if type(exc).__module__ not in ("builtins", "__main__"):  # `struct.error`, not `error`
        kind = f"{type(exc).__module__}.{kind}"
    return f"{kind}: {first}" if first else kind


def report_internal_error(
    tool: str,
    exc: BaseException,
    debug: bool = False,
    during: str | None = None,
    stream: TextIO | None = None,
) -> int:
    """Print the internal-error report for `exc` (with the traceback when wanted); returns
    INTERNAL_ERROR_EXIT, so that a script can tell "your input is wrong" (1) from "ferrox broke"."""
    out = sys.stderr if stream is None else stream
    if traceback_wanted(debug):
        traceback.print_exception(exc, file=out)
    context = f" while {during}" if during else ""
    print(f"{tool}: {PREFIX}{context}: {describe(exc)}", file=out)
    print(f"{tool}: note: raised at {where(exc)}", file=out)
    if not traceback_wanted(debug):
        print(f"{tool}: note: {HOW_TO_SEE}", file=out)
    return INTERNAL_ERROR_EXIT
