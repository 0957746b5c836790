"""The cooperative scheduler: the replay of a launch one thread at a time, for when the engine
finds a collective reached by part of the lanes it waits for (`engine.Diverged`).

Each GPU thread of the block gets its own OS thread running a one-lane executor of the engine
(the engine is recursive, so a thread stopped inside an `scf.for` at a barrier needs its own
stack), but exactly one of them runs at any moment: it stops at a barrier, a warp collective, or
its end, and wakes the next runnable thread in order of linear id. A warp is released when all
of its present lanes wait at one collective (a lane that has exited, or is missing from a
partial last warp, takes no part), the block when all of its threads wait at one barrier.
Hand-offs are strict, so a run is deterministic and free of interpreter-level races, and every
interleaving it produces is one the GPU allows. Anything else is a deadlock on the GPU
(`__syncthreads` reached by part of the block, a warp split over two collectives, lanes waiting
at a shuffle for lanes waiting at a barrier) and is raised as `KernelDeadlock`, naming who waits
where.
"""

from __future__ import annotations

import _thread
import threading
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Operation

from ferrox.driver.interpreter.errors import KernelDeadlock
from ferrox.driver.interpreter.machine import BlockState, ThreadCtx

RUNNING, BARRIER, WARP, DONE, FAILED = "running", "barrier", "warp", "done", "failed"
PHASE = "phase"  # waiting at an mbarrier for a phase (payload: whether it has completed)


class _Abort(BaseException):
    """Unwinds a waiting thread when the launch is given up (another thread faulted)."""


class _Worker:
    """One OS thread, running one GPU thread of each block in turn."""

    __slots__ = ("ctx", "state", "op", "payload", "result", "go", "exited", "started")

    def __init__(self):
        self.ctx: ThreadCtx | None = None
        self.state = DONE
        self.op: Operation | None = None
        self.payload = None
        self.result = None
        self.go = threading.Lock()
        self.go.acquire()
        self.exited = threading.Lock()
        self.exited.acquire()
        self.started = False


def _release(lock: threading.Lock) -> None:
    try:
        lock.release()
    except RuntimeError:  # only while giving a launch up: a lock signalled twice
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
    plural = "s" if len(ids) > 1 else ""
    return f"{len(ids)} {noun} (linear id{plural} {shown}; first {workers[0].ctx.tid})"


class Cooperative:
    """The blocks of one launch, each on OS threads that take turns (see the module docstring).

    Control passes from thread to thread directly (the one that stops picks and wakes the next:
    one OS context switch per turn), and back to the launching thread only when the block has
    finished or failed. The OS threads are made once per launch and serve every block; each is
    started when its first turn comes, so that a thousand new threads never queue for the GIL.
    """

    def __init__(self, body: Callable[[ThreadCtx], None], size: int):
        self.body = body
        self.workers = [_Worker() for _ in range(size)]
        self.block: BlockState | None = None
        self.back = threading.Lock()
        self.back.acquire()
        self.closed = False
        self.error: BaseException | None = None

    # --- called on a GPU thread's own OS thread, while it holds control ----------------------
    def barrier(self, ctx: ThreadCtx, op: Operation, part: tuple[int, int] | None = None) -> None:
        """Wait at barrier `op` for the block, or for the threads `part` = (first, count) of a
        `simt.specialize` partition."""
        w = self.workers[ctx.linear]
        w.state, w.op, w.payload = BARRIER, op, part
        self._pause(w)

    def wait_phase(self, ctx: ThreadCtx, op: Operation, ready: Callable[[], bool]) -> None:
        """Wait at mbarrier wait `op` until `ready()` (its phase completed by another thread)."""
        w = self.workers[ctx.linear]
        w.state, w.op, w.payload = PHASE, op, ready
        self._pause(w)

    def exchange(self, ctx: ThreadCtx, op: Operation, payload) -> list:
        """Wait for the warp at `op`; every lane's payload, by lane (None: the lane is absent)."""
        w = self.workers[ctx.linear]
        w.state, w.op, w.payload = WARP, op, payload
        self._pause(w)
        return w.result

    def _pause(self, w: _Worker) -> None:
        self._hand_off(w)
        w.go.acquire()
        if self.closed:
            raise _Abort()

    def _main(self, w: _Worker) -> None:
        try:
            while True:
                w.go.acquire()
                if self.closed:
                    return
                try:
                    with np.errstate(all="ignore"):
                        self.body(w.ctx)
                except _Abort:
                    return
                except BaseException as e:  # handed to the launching thread, which raises it
                    w.state, self.error = FAILED, e
                    _release(self.back)
                    return
                w.state = DONE
                self._hand_off(w)
        finally:
            w.exited.release()

    def _hand_off(self, w: _Worker) -> None:
        """Wake the next thread to run, or the launching thread when the block is over."""
        try:
            if w.state is not BARRIER:
                self._release_warp(w.ctx.linear >> 5)
            following = self._pick(w.ctx.linear)
        except Exception as e:  # a deadlock (or a bug here): the launching thread raises it
            self.error, following = e, None
        if following is None:
            _release(self.back)
        else:
            self._wake(following)

    def _wake(self, w: _Worker) -> None:
        if not w.started:
            w.started = True
            _thread.start_new_thread(self._main, (w,))
        w.go.release()

    def _pick(self, current: int) -> _Worker | None:
        """The next runnable thread after `current` in linear order, wrapping around; at the end
        of a round with nobody runnable, release the barrier (or raise the deadlock)."""
        workers = self.workers
        for i in [*range(current + 1, len(workers)), *range(current + 1)]:
            w = workers[i]
            if w.state is RUNNING:
                return w
            if w.state is PHASE and w.payload():
                w.state = RUNNING
                return w
        if all(w.state is DONE for w in workers):
            return None
        self._release_barrier()
        return next(w for w in workers if w.state is RUNNING)

    # --- the launching thread ----------------------------------------------------------------
    def run(self, block: BlockState, threads: Sequence[ThreadCtx]) -> None:
        """Run one block to its end; raise what a thread raised, or the deadlock."""
        assert len(threads) == len(self.workers)
        self.block = block
        for w, ctx in zip(self.workers, threads):
            ctx.sync = self
            w.ctx, w.state, w.op, w.payload, w.result = ctx, RUNNING, None, None, None
        self._wake(self.workers[0])
        self.back.acquire()
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        """End every OS thread (unwinding those still waiting in a failed block)."""
        self.closed = True
        started = [w for w in self.workers if w.started]
        for w in started:
            _release(w.go)
        for w in started:
            w.exited.acquire(timeout=5.0)

    def _release_warp(self, warp: int) -> None:
        lanes = self.workers[warp * 32 : warp * 32 + 32]
        if any(w.state is RUNNING or w.state is BARRIER or w.state is PHASE for w in lanes):
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
        for w in self.workers:  # a partition's barrier: its own threads, all there
            part = w.payload if w.state is BARRIER else None
            if part is not None:
                first, count = part
                group = self.workers[first : first + count]
                if all(g.state is BARRIER and g.op is w.op for g in group):
                    for g in group:
                        g.state = RUNNING
                    return
        phases = [w for w in self.workers if w.state is PHASE]
        if phases:
            raise self._deadlock(
                "deadlock: threads wait at mbarriers for phases that no thread can complete",
                phases,
            )
        waiting = [w for w in self.workers if w.state is BARRIER or w.state is WARP]
        done = [w for w in self.workers if w.state is DONE]
        barriers = {id(w.op) for w in waiting if w.state is BARRIER}
        if (
            len(waiting) == len(self.workers)
            and len(barriers) == 1
            and all(w.state is BARRIER for w in waiting)
        ):
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
            message = (
                "lanes wait at a warp collective for lanes of their warp that wait at a barrier"
            )
        raise self._deadlock(f"deadlock: {message}", waiting)

    def _deadlock(self, message: str, waiting: Sequence[_Worker]) -> KernelDeadlock:
        groups: dict[int, list[_Worker]] = {}
        for w in waiting:
            groups.setdefault(id(w.op), []).append(w)
        notes = [
            (ws[0].op, f"{describe(ws)} wait here at '{ws[0].op.name}'") for ws in groups.values()
        ]
        first = waiting[0]
        return KernelDeadlock(
            first.op, message, self.block.bid if self.block else None, first.ctx.tid, notes
        )
