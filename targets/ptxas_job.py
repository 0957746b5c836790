"""ptxas started before its PTX exists, so that its start-up is not part of a compile.

A ptxas process spends about 11 ms (on an empty module) before it reads its input: a new kernel
compiled in a warm process would pay it after LLVM has made the PTX. So ptxas is started ahead,
its input file a stand-in for a pipe; it initialises meanwhile and then waits for its input.
`PtxasJob.finish(ptx)` feeds the PTX and waits for the cubin: what is left is ptxas's own
compile time.

Ahead means one compile ahead: `start_ptxas(chip)` hands out the spare job that the previous
compile for that chip left waiting (a new one on the first), and each `finish` starts the next
spare once it has fed its own ptxas (on a machine of several cores the two run side by side).
A spare is ready long before its PTX is, even where the lowering is shorter than ptxas's
start-up. At most `MAX_SPARES` chips keep one; they end when the process exits.

The input: ptxas's standard input is a pipe from this process, and its input file `kernel.ptx`
a symbolic link to `/proc/self/fd/0`, which in ptxas is that pipe. ptxas reads its input twice
(once to its end, then again for exactly that many bytes): before the PTX goes into the pipe,
the link is replaced by a plain file with the same text, so the second pass (or both, had ptxas
not opened the link yet) reads the file. Should this process die without a word, the pipe's
only writer is gone with it: ptxas reads an empty input and exits; no orphan waits forever.

It is the same ptxas with the same arguments (and environment, `toolchain.ptxas_env`) on the
same text, and the cubin is byte-identical to `run_ptxas`'s (tests/targets/test_ptxas_job.py,
every example). Anything unexpected (no `/proc`, not Linux, a non-zero exit, no cubin, ptxas
not done after `TIMEOUT_S`) ends the job and runs `run_ptxas` instead, whose result or
`ToolchainError` is then the answer: the early start can only save time, never change an
outcome.
"""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ferrox.targets.toolchain import (
    PtxasResult,
    find_ptxas,
    parse_ptxas_info,
    ptxas_env,
    run_ptxas,
    scratch_dir,
)

TIMEOUT_S = 60.0
"""The longest a job may take from `finish` before it is given up for `run_ptxas`."""
MAX_SPARES = 4
"""Chips that keep a spare ptxas at once (the least recently used one's is ended)."""

_unusable = False
"""Set when an early start failed on something of this machine's (an OSError): each later
compile would pay for two ptxas runs, so they run it the plain way."""


def early_start_possible() -> bool:
    """Linux (`/proc/self/fd/0` for ptxas's input), with ptxas installed, and no earlier job
    having failed on this machine."""
    return (
        not _unusable
        and sys.platform == "linux"
        and os.path.isdir("/proc/self/fd")
        and find_ptxas() is not None
    )


class PtxasJob:
    """One ptxas for one PTX module, started now; `finish(ptx)` gives its `PtxasResult`."""

    def __init__(self, chip: str, ptxas: str):
        self.chip = chip
        self._ptxas = ptxas
        self._owner = os.getpid()
        self._tmp = tempfile.TemporaryDirectory(prefix="ferrox-ptxas-", dir=scratch_dir())
        folder = Path(self._tmp.name)
        self._source, self._cubin = folder / "kernel.ptx", folder / "kernel.cubin"
        os.symlink("/proc/self/fd/0", self._source)  # in ptxas: its standard input
        self._stdout = open(folder / "stdout", "w+b")  # files, not pipes: nothing to drain
        self._stderr = open(folder / "stderr", "w+b")
        command = [ptxas, f"-arch={chip}", "-v", "-o", str(self._cubin), str(self._source)]
        reader, writer = os.pipe()  # neither inherited but as ptxas's fd 0
        try:
            self._proc = subprocess.Popen(
                command, stdin=reader, stdout=self._stdout, stderr=self._stderr, env=ptxas_env()
            )
        except BaseException:
            os.close(writer)
            raise
        finally:
            os.close(reader)
        self._writer: int | None = writer

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        """Still waiting for its input, in this process (not a parent's job after a fork)."""
        return self._owner == os.getpid() and self._proc.poll() is None

    def finish(self, ptx: str, meanwhile: Callable[[], None] | None = None) -> PtxasResult:
        """The cubin and `-v` report of `ptx`, as `run_ptxas(ptx, chip)` gives them.
        `meanwhile` runs while ptxas works (what it raises ends the job and is raised)."""
        global _unusable
        try:
            deadline = time.monotonic() + TIMEOUT_S
            self._feed(ptx.encode("utf-8"))
            if meanwhile is not None:
                meanwhile()
                deadline = max(deadline, time.monotonic() + TIMEOUT_S)
            # The next compile's, starting while this runs: after `meanwhile`, whose Python
            # would otherwise share the machine's cores with two ptxas at once (on two cores,
            # vecadd's work beside ptxas took 5 ms instead of 2).
            _spare_for(self.chip, self._ptxas)
            if self._wait(deadline) == 0:
                result = self._result()
                if result is not None:
                    return result
        except OSError:  # something of this machine's: later compiles start ptxas late
            _unusable = True
            _end_spares()
        finally:
            self.close()
            _spare_for(self.chip, self._ptxas)  # (started above unless something failed)
        return run_ptxas(ptx, self.chip)

    def close(self) -> None:
        """End ptxas if it still runs, and remove its folder (a compile that failed)."""
        if self._owner != os.getpid():  # a parent's job, seen after a fork: not ours to end
            return
        if self._writer is not None:
            os.close(self._writer)
            self._writer = None
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._stdout.close()
        self._stderr.close()
        self._tmp.cleanup()

    def _feed(self, data: bytes) -> None:
        """The text as a plain file under the input's name (what ptxas's next open finds),
        then through the pipe (what an open done already reads), which then ends."""
        second = self._source.with_name("kernel.ptx.second")
        second.write_bytes(data)
        os.replace(second, self._source)
        assert self._writer is not None
        writer, self._writer = self._writer, None
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(writer, view) :]
        except BrokenPipeError:  # ptxas is done with the pipe (failed, or read the file)
            pass
        finally:
            os.close(writer)

    def _wait(self, deadline: float) -> int | None:
        """ptxas's exit status, None if it is not done by `deadline`. Woken by the exit itself
        (a pidfd), not by `Popen.wait(timeout)`'s polling, whose sleeps grow to 50 ms."""
        try:
            pidfd = os.pidfd_open(self._proc.pid)
        except (AttributeError, OSError):  # older Linux: no pidfd
            try:
                return self._proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
            except subprocess.TimeoutExpired:
                return None
        try:
            ready, _, _ = select.select([pidfd], [], [], max(deadline - time.monotonic(), 0.0))
        finally:
            os.close(pidfd)
        return self._proc.wait() if ready else None

    def _result(self) -> PtxasResult | None:
        if not self._cubin.is_file():
            return None
        self._stdout.seek(0)
        self._stderr.seek(0)
        text = (self._stdout.read() + self._stderr.read()).decode("utf-8", "replace")
        log = text.replace(str(self._source), "<ptx>")
        return PtxasResult(self._cubin.read_bytes(), log, parse_ptxas_info(log))


_spares: dict[str, PtxasJob] = {}
_spares_lock = threading.Lock()


def start_ptxas(chip: str) -> PtxasJob | None:
    """A `PtxasJob` for `chip` (the spare one, if it is waiting), or None where an early start
    is not possible."""
    ptxas = find_ptxas()
    if ptxas is None or not early_start_possible():
        return None
    with _spares_lock:
        spare = _spares.pop(chip, None)
    if spare is not None and spare.alive():
        return spare
    if spare is not None:
        spare.close()
    return PtxasJob(chip, ptxas)


def spare_pid(chip: str) -> int | None:
    """The pid of the ptxas waiting for `chip`'s next compile, if one is (tests read it)."""
    with _spares_lock:
        spare = _spares.get(chip)
    return spare.pid if spare is not None and spare.alive() else None


def _keep_spare(chip: str, ptxas: str) -> None:
    """Start the spare for `chip` unless one waits already; past MAX_SPARES chips, the least
    recently used one's ends."""
    if _unusable:
        return
    with _spares_lock:
        spare = _spares.pop(chip, None)
        ended = [] if spare is None or spare.alive() else [spare]
        while len(_spares) >= MAX_SPARES:
            ended.append(_spares.pop(next(iter(_spares))))
        _spares[chip] = spare if spare is not None and spare.alive() else PtxasJob(chip, ptxas)
    for job in ended:
        job.close()


def _spare_for(chip: str, ptxas: str) -> None:
    """`_keep_spare`, where a process can be started: a compile does not fail for want of one
    (the next compile then starts its own)."""
    try:
        _keep_spare(chip, ptxas)
    except OSError:
        pass


def _end_spares() -> None:
    with _spares_lock:
        ended = list(_spares.values())
        _spares.clear()
    for job in ended:
        job.close()


atexit.register(_end_spares)


__all__ = [
    "MAX_SPARES",
    "TIMEOUT_S",
    "PtxasJob",
    "early_start_possible",
    "spare_pid",
    "start_ptxas",
]
