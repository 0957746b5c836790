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


def script(path: object, *argv: object, cwd: object = None) -> Ran:
    """`python PATH ARGV...` (an example script, as its docstring tells a user to run it): its
    `__main__` block runs here, in a fresh namespace, with `sys.argv` and the working directory
    as that command would have them. `PYTHONSAFEPATH` is set for the suite (tests/conftest.py),
    so the command would not put the script's folder on `sys.path` either."""
    import os
    import runpy
    import sys

    saved_argv, saved_cwd = sys.argv, os.getcwd()
    sys.argv = [str(path), *(str(a) for a in argv)]
    if cwd is not None:
        os.chdir(str(cwd))

    def main(_argv: Sequence[str]) -> int:
        runpy.run_path(str(path), run_name="__main__")
        return 0  # the script ended without `raise SystemExit(...)`: status 0, as in a new Python

    try:
        return _run(main, [])
    finally:
        sys.argv = saved_argv
        os.chdir(saved_cwd)
