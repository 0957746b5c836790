"""Pipelines of `ferrox-opt` and `filecheck` run in the pytest worker itself, for test_lit.py.

A RUN line's tool costs a client process and a fork of the tool server (tool.py, server.py):
about 70 ms, where the tool's own work on a test file is a few. Under pytest the worker has
imported everything already, so `run_pipeline` runs such a pipeline's tools here, one after the
other, each reading the one before's output; lit's internal shell does everything else.

Only a plain, passing pipeline is run here: every command `ferrox-opt` or `filecheck` (a plain
`not` in front allowed), redirections no more than `2>&1`, `> FILE` or `< FILE`, and every
command ending as the line requires (0; 1 or 2 under `not`). Anything else, and any pipeline
that does not pass here (a failure, an exit status the crash rule calls a crash, an exception
out of a tool), is handed to lit as it is, unchanged: lit runs it again in processes through
the tool server, and its verdict and report are the test's. So a line passes here only where
lit would pass it, and every failure is lit's own.

What a process would have that this gives the tool: the line's environment (`os.environ`) and
working folder, empty standard input where nothing is piped in, `sys.argv` (`call_tool`'s);
each is put back after the tool. stdout and stderr under `2>&1` are one stream (the order of
the writes, as the tool server's line-buffered stdout keeps it).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import lit.ShUtil
import lit.TestRunner

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tool import NOT_A_CRASH, call_tool  # noqa: E402

TOOL = str(Path(__file__).resolve().parent / "tool.py")
HERE_TOOLS = ("ferrox-opt", "filecheck")
MERGE = ((">&", 2), "1")

_lit_execute = lit.TestRunner._executeShCmd


class Stage:
    """One command of a pipeline, as run here: the tool, its arguments and redirections."""

    def __init__(self, tool: str, args: list[str], negated: bool) -> None:
        self.tool, self.args, self.negated = tool, args, negated
        self.merge = False
        self.stdout_file: str | None = None
        self.stdin_file: str | None = None


def stages_of(cmd: lit.ShUtil.Pipeline, shenv) -> list[Stage] | None:
    """The pipeline's commands as stages run here, or None where one is not for this module."""
    if cmd.negate or shenv.ulimit or shenv.umask != -1:
        return None
    stages = []
    for command in cmd.commands:
        if not all(isinstance(a, str) for a in command.args):  # a glob: lit expands it
            return None
        args = lit.TestRunner._expandLateSubstitutions(
            command, list(command.args), shenv.cwd, shenv.normalize_slashes
        )
        negated = args[:1] == ["not"]
        if negated:
            args = args[1:]
        if args[:3] != [sys.executable, "-S", TOOL] or args[3:4] == []:
            return None
        if args[3] not in HERE_TOOLS:
            return None
        stage = Stage(args[3], args[4:], negated)
        for redirect in command.redirects:
            op, target = redirect
            if redirect == MERGE and stage.stdout_file is None:
                stage.merge = True
            elif op == (">",) and not stage.merge and stage.stdout_file is None:
                stage.stdout_file = os.path.join(shenv.cwd, target)
            elif op == ("<",) and stage.stdin_file is None:
                stage.stdin_file = os.path.join(shenv.cwd, target)
            else:
                return None
        stages.append(stage)
    return stages


@contextlib.contextmanager
def as_process(shenv, stdin: str, merge: bool) -> Iterator[dict[str, str]]:
    """The worker's process state set up as the tool's process would have it, then put back;
    what the tool wrote is in the dict given (`out`, `err`) once this ends."""
    saved = sys.argv, sys.stdin, sys.stdout, sys.stderr, dict(os.environ), os.getcwd()
    out, err = io.BytesIO(), io.BytesIO()
    written: dict[str, str] = {}
    try:
        os.environ.clear()
        os.environ.update(shenv.env)
        os.chdir(shenv.cwd)
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode()), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(out, encoding="utf-8", line_buffering=True)
        sys.stderr = (
            sys.stdout
            if merge
            else io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace")
        )
        yield written
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(ValueError):
                stream.flush()
        written["out"] = out.getvalue().decode("utf-8", "replace")
        written["err"] = err.getvalue().decode("utf-8", "replace")
        sys.argv, sys.stdin, sys.stdout, sys.stderr = saved[:4]
        os.environ.clear()
        os.environ.update(saved[4])
        os.chdir(saved[5])


def run_here(stage: Stage, stdin: str, shenv) -> tuple[int, str, str] | None:
    """(exit status, stdout, stderr) of the tool run in this process; None for a crash (an
    exception out of the tool, or a status `NOT_A_CRASH` does not name), which lit then sees."""
    with as_process(shenv, stdin, stage.merge) as written:
        try:
            code = call_tool(stage.tool, stage.args)
        except KeyboardInterrupt:
            raise
        except BaseException:
            return None
    if code not in NOT_A_CRASH:
        return None
    return int(code), written["out"], written["err"]  # type: ignore[call-overload]


def run_pipeline(cmd, shenv, results, timeout_helper):
    """lit's `_executeShCmd`, with the pipelines `stages_of` accepts run here where they pass."""
    if isinstance(cmd, lit.ShUtil.Pipeline):
        stages = stages_of(cmd, shenv)
        if stages is not None:
            passed = _passes_here(cmd, stages, shenv)
            if passed is not None:
                results.extend(passed)
                return 0
    return _lit_execute(cmd, shenv, results, timeout_helper)


def _passes_here(cmd, stages: list[Stage], shenv) -> list | None:
    """The pipeline's command results where every command ended as required; else None."""
    piped = ""
    done = []
    for command, stage in zip(cmd.commands, stages):
        if stage.stdin_file is not None:
            piped = Path(stage.stdin_file).read_text(encoding="utf-8")
        ran = run_here(stage, piped, shenv)
        if ran is None or (ran[0] == 0) == stage.negated:
            return None
        _, out, err = ran
        if stage.stdout_file is not None:
            Path(stage.stdout_file).write_text(out, encoding="utf-8")
            out = ""
        piped = out
        done.append(lit.TestRunner.ShellCommandResult(command, out, err, 0, False))
    return done


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """lit's internal shell runs `run_pipeline` for each command list while this lasts."""
    lit.TestRunner._executeShCmd = run_pipeline
    try:
        yield
    finally:
        lit.TestRunner._executeShCmd = _lit_execute
