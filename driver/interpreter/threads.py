"""Running the threads of one block: one after another, or cooperatively when they must meet.

A kernel without barriers or warp collectives runs each thread to completion in turn
(`run_sequential`): no thread of such a kernel ever waits for another, so running them in
order is one of the interleavings the GPU may choose, and the only ordering it promises between
threads without a barrier is none (a thread that spins on memory another thread of the launch
will write can hang here, as it may on the GPU).

A kernel with them runs `Cooperative`: each GPU thread of the block gets its own OS thread,
but exactly one of them runs at any moment, passing control back to the scheduler when it
reaches a barrier, a warp collective, or its end. The scheduler resumes threads in order of
their linear id, releases a warp when all of its present lanes wait at one collective (a lane
that has exited, or is missing from a partial last warp, does not take part) and the block when
all of its threads wait at one barrier. Hand-offs are strict, so the run is deterministic and
free of interpreter-level races; every interleaving it produces is one the GPU allows. Anything
else is a deadlock on the GPU (`__syncthreads` reached by part of the block, a warp split over
two collectives, lanes waiting at a shuffle for lanes waiting at a barrier) and is raised as
`KernelDeadlock`, naming who waits where.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Operation

from ferrox.driver.interpreter.errors import KernelDeadlock
from ferrox.driver.interpreter.machine import BlockState, ThreadCtx

RUNNING, BARRIER, WARP, DONE, FAILED = "running", "barrier", "warp", "done", "failed"


def run_sequential(threads: Sequence[ThreadCtx], body: Callable[[ThreadCtx], None]) -> None:
    for ctx in threads:
        body(ctx)


class _Abort(BaseException):
    """Unwinds a waiting thread when its block is given up (another thread faulted)."""


class _Worker:
    __slots__ = ("ctx", "state", "op", "payload", "result", "go", "error", "os")

    def __init__(self, ctx: ThreadCtx):
        self.ctx = ctx
        self.state = RUNNING
        self.op: Operation | None = None
        self.payload = None
        self.result = None
        self.error: BaseException | None = None
        self.go = threading.Lock()
        self.go.acquire()
        self.os: threading.Thread | None = None


def _release(lock: threading.Lock) -> None:
    try:
        lock.release()
    except RuntimeError:  # only while abandoning a block: two threads signalled at once
        pass


def describe(workers: Sequence[_Worker]) -> str:
    """`3 threads (linear ids 0-1, 5; first (0, 0, 0))`."""
    ids = [w.ctx.linear for w in workers]
    ranges: list[str] = []
    start = prev = ids[0]
    for i in ids[1:] + [None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        ranges.append(f"{start}" if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    shown = ", ".join(ranges[:6]) + (", ..." if len(ranges) > 6 else "")
    noun = "thread" if len(ids) == 1 else "threads"
    return f"{len(ids)} {noun} (linear id{'s' if len(ids) > 1 else ''} {shown}; first {workers[0].ctx.tid})"


class Cooperative:
    """One block's threads on OS threads that take turns (see the module docstring)."""

    def __init__(self, block: BlockState, threads: Sequence[ThreadCtx], body: Callable[[ThreadCtx], None]):
        self.block = block
        self.body = body
        self.workers = [_Worker(ctx) for ctx in threads]
        for ctx in threads:
            ctx.sync = self
        self.back = threading.Lock()
        self.back.acquire()
        self.abandoned = False

    # --- called on a GPU thread's own OS thread -----------------------------------------------
    def barrier(self, ctx: ThreadCtx, op: Operation) -> None:
        w = self.workers[ctx.linear]
        w.state, w.op = BARRIER, op
        self._pause(w)

    def exchange(self, ctx: ThreadCtx, op: Operation, payload) -> list:
        """Wait for the warp at `op`; every lane's payload, by lane (None: the lane is absent)."""
        w = self.workers[ctx.linear]
        w.state, w.op, w.payload = WARP, op, payload
        self._pause(w)
        return w.result

    def _pause(self, w: _Worker) -> None:
        _release(self.back)
        w.go.acquire()
        if self.abandoned:
            raise _Abort()

    def _main(self, w: _Worker) -> None:
        w.go.acquire()
        try:
            if not self.abandoned:
                with np.errstate(all="ignore"):
                    self.body(w.ctx)
            w.state = DONE
        except _Abort:
            w.state = DONE
        except BaseException as e:  # handed to the scheduler, which raises it
            w.error, w.state = e, FAILED
        finally:
            if not self.abandoned:
                _release(self.back)

    # --- the scheduler, on the launching thread --------------------------------------------
    def run(self) -> None:
        for w in self.workers:
            w.os = threading.Thread(target=self._main, args=(w,), daemon=True, name=f"gpu-thread-{w.ctx.linear}")
            w.os.start()
        finished = False
        try:
            self._schedule()
            finished = True
        finally:
            if not finished:
                self.abandoned = True
                for w in self.workers:
                    if w.state not in (DONE, FAILED):
                        _release(w.go)
            for w in self.workers:
                w.os.join(None if finished else 5.0)

    def _schedule(self) -> None:
        workers = self.workers
        while True:
            ran = False
            for w in workers:
                if w.state is RUNNING:
                    ran = True
                    w.go.release()
                    self.back.acquire()
                    if w.state is FAILED:
                        raise w.error  # type: ignore[misc]
                    if w.state is not BARRIER:
                        self._release_warp(w.ctx.linear >> 5)
            if not ran:
                if all(w.state is DONE for w in workers):
                    return
                self._release_barrier()

    def _release_warp(self, warp: int) -> None:
        lanes = self.workers[warp * 32 : warp * 32 + 32]
        if any(w.state is RUNNING or w.state is BARRIER for w in lanes):
            return
        waiting = [w for w in lanes if w.state is WARP]
        if not waiting:
            return
        ops = {id(w.op): w.op for w in waiting}
        if len(ops) > 1:
            raise self._deadlock(
                f"the lanes of warp {warp} wait at {len(ops)} different warp collectives; with the "
                "full-warp mask all present lanes must reach the same one",
                waiting,
            )
        payloads = [w.payload if w.state is WARP else None for w in lanes]
        payloads += [None] * (32 - len(payloads))
        for w in waiting:
            w.result, w.state = payloads, RUNNING

    def _release_barrier(self) -> None:
        waiting = [w for w in self.workers if w.state is BARRIER or w.state is WARP]
        done = [w for w in self.workers if w.state is DONE]
        barriers = {id(w.op) for w in waiting if w.state is BARRIER}
        if len(waiting) == len(self.workers) and len(barriers) == 1 and all(w.state is BARRIER for w in waiting):
            for w in waiting:
                w.state = RUNNING
            return
        if done:
            message = (
                f"{describe(done)} of the block returned while {describe(waiting)} still wait; "
                "a barrier or warp collective must be reached by every thread it waits for"
            )
        elif len(barriers) > 1:
            message = "the threads of the block wait at different barriers"
        else:
            message = "lanes wait at a warp collective for lanes of their warp that wait at a barrier"
        raise self._deadlock(f"deadlock: {message}", waiting)

    def _deadlock(self, message: str, waiting: Sequence[_Worker]) -> KernelDeadlock:
        groups: dict[int, list[_Worker]] = {}
        for w in waiting:
            groups.setdefault(id(w.op), []).append(w)
        notes = [(ws[0].op, f"{describe(ws)} wait here at '{ws[0].op.name}'") for ws in groups.values()]
        first = waiting[0]
        return KernelDeadlock(first.op, message, self.block.bid, first.ctx.tid, notes)
