"""Run `ferrox` and `ferrox-opt` inside the test's process: `main(argv)`, the exit status and what
it printed. A new Python per command costs a second or more of imports on CI's 2 cores; the
console scripts themselves are tested once each where their wiring is what is checked."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Ran:
    """What a command did, shaped like `subprocess.CompletedProcess`."""

    returncode: int
    stdout: str
    stderr: str


def _run(main, argv: Sequence[str]) -> Ran:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:  # argparse's own exits
            code = e.code if isinstance(e.code, int) else 1
    return Ran(int(code or 0), out.getvalue(), err.getvalue())


def ferrox(*argv: object) -> Ran:
    """`ferrox ARGV...`."""
    from ferrox.driver.tools.cli import main

    return _run(main, [str(a) for a in argv])


def ferrox_opt(*argv: object) -> Ran:
    """`ferrox-opt ARGV...`."""
    from ferrox.driver.tools.opt import main

    return _run(main, [str(a) for a in argv])
