"""ptxas started before its PTX exists, so that its own start-up overlaps the lowering.

A ptxas process spends about 11 ms (on an empty module) before it reads its input: a new kernel
compiled in a warm process pays it after LLVM has made the PTX. `start_ptxas(chip)` starts ptxas
at the beginning of a compile on a named pipe (a FIFO) that stands for `kernel.ptx`; ptxas
initialises meanwhile and then blocks opening the pipe. `PtxasJob.finish(ptx)` feeds the PTX and
waits for the cubin: what is left is ptxas's own compile time.

ptxas reads its input file twice (once to its end, then again for exactly that many bytes), so
each time it opens the pipe it is fed the whole text, and a pass is written only once ptxas has
read the previous pass and closed it (`/proc/PID/io` says how many bytes it has read,
`/proc/PID/fd` whether it still holds the pipe): two passes never share one open pipe.

It is the same ptxas with the same arguments on the same text, and the cubin is byte-identical
to `run_ptxas`'s (tests/targets/test_ptxas_job.py, every example). Anything unexpected (no
`/proc`, not Linux, a non-zero exit, no cubin, ptxas not done after `TIMEOUT_S`) ends the job
and runs `run_ptxas` instead, whose result or `ToolchainError` is then the answer: the early
start can only save time, never change an outcome.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ferrox.targets.toolchain import PtxasResult, find_ptxas, parse_ptxas_info, run_ptxas

TIMEOUT_S = 60.0
"""The longest a job may take from `finish` before it is given up for `run_ptxas`."""
_POLL_S = 0.0002


_unusable = False
"""Set when an early start failed on something of this machine's (`/proc` unreadable): each
later compile would pay for two ptxas runs, so they run it the plain way."""


def early_start_possible() -> bool:
    """Linux (named pipes, and `/proc` to see how far ptxas has read), with ptxas installed,
    and no earlier job having found `/proc` unusable."""
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
        self._tmp = tempfile.TemporaryDirectory(prefix="ferrox-ptxas-")
        folder = Path(self._tmp.name)
        self._source, self._cubin = folder / "kernel.ptx", folder / "kernel.cubin"
        os.mkfifo(self._source)
        self._pipe = os.stat(self._source)
        self._stdout = open(folder / "stdout", "w+b")  # files, not pipes: nothing to drain
        self._stderr = open(folder / "stderr", "w+b")
        command = [ptxas, f"-arch={chip}", "-v", "-o", str(self._cubin), str(self._source)]
        self._proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self._stdout, stderr=self._stderr
        )

    def finish(self, ptx: str) -> PtxasResult:
        """The cubin and `-v` report of `ptx`, as `run_ptxas(ptx, chip)` gives them."""
        global _unusable
        try:
            if self._feed(ptx.encode("utf-8")) and self._proc.wait() == 0:
                result = self._result()
                if result is not None:
                    return result
        except OSError:  # /proc not readable here, say: later compiles start ptxas late
            _unusable = True
        finally:
            self.close()
        return run_ptxas(ptx, self.chip)

    def close(self) -> None:
        """End ptxas if it still runs, and remove its folder (a compile that failed)."""
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        self._stdout.close()
        self._stderr.close()
        self._tmp.cleanup()

    def _feed(self, data: bytes) -> bool:
        """Give ptxas the text each time it opens the pipe, until it exits (True) or the time
        is up (False)."""
        deadline = time.monotonic() + TIMEOUT_S
        while self._proc.poll() is None:
            if time.monotonic() > deadline:
                return False
            try:
                fd = os.open(self._source, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as e:
                if e.errno != errno.ENXIO:  # ENXIO: no reader yet (ptxas still starting)
                    raise
                time.sleep(_POLL_S)
                continue
            before = self._bytes_read()
            try:
                os.set_blocking(fd, True)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            except BrokenPipeError:  # ptxas stopped reading (it failed): its exit says why
                pass
            finally:
                os.close(fd)
            # The next pass only once ptxas has read this one and let go of the pipe.
            while self._proc.poll() is None and self._bytes_read() < before + len(data):
                if time.monotonic() > deadline:
                    return False
                time.sleep(_POLL_S)
            while self._proc.poll() is None and self._holds_pipe():
                if time.monotonic() > deadline:
                    return False
                time.sleep(_POLL_S)
        return True

    def _bytes_read(self) -> int:
        """ptxas's `rchar`: every byte its `read` calls returned so far."""
        with open(f"/proc/{self._proc.pid}/io") as io:
            for line in io:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
        raise OSError(f"no rchar in /proc/{self._proc.pid}/io")

    def _holds_pipe(self) -> bool:
        fds = f"/proc/{self._proc.pid}/fd"
        try:
            names = os.listdir(fds)
        except FileNotFoundError:  # it has exited
            return False
        for name in names:
            try:
                st = os.stat(f"{fds}/{name}")
            except OSError:
                continue
            if (st.st_ino, st.st_dev) == (self._pipe.st_ino, self._pipe.st_dev):
                return True
        return False

    def _result(self) -> PtxasResult | None:
        if not self._cubin.is_file():
            return None
        self._stdout.seek(0)
        self._stderr.seek(0)
        text = (self._stdout.read() + self._stderr.read()).decode("utf-8", "replace")
        log = text.replace(str(self._source), "<ptx>")
        return PtxasResult(self._cubin.read_bytes(), log, parse_ptxas_info(log))


def start_ptxas(chip: str) -> PtxasJob | None:
    """A `PtxasJob` for `chip`, or None where an early start is not possible."""
    ptxas = find_ptxas()
    if ptxas is None or not early_start_possible():
        return None
    return PtxasJob(chip, ptxas)


__all__ = ["TIMEOUT_S", "PtxasJob", "early_start_possible", "start_ptxas"]
