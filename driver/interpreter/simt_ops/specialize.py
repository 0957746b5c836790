"""`simt.specialize` and `simt.setmaxnreg` (dialects/simt/specialize.py).

The two regions run as two coroutines, each lockstep over its partition's lanes (of every block
of the group), on OS threads that take turns (one runs at a time, hand-offs strict, so a run is
deterministic): the producers first, until they block at a `simt.mbarrier_wait` whose phase has
not completed (`block`), then the consumers, and so on; a coroutine is runnable again when the
phase it waits for has completed on all its lanes. Where both wait for phases that neither can
complete the kernel would hang on the GPU: that is a fault naming both waits. So a wait between
roles passes exactly when, in some interleaving the GPU allows, the other role has produced
what it waits for; nothing is let through early.

A `simt.sync_threads` in a region is its partition's barrier (`sync.py`), which the lockstep
partition reaches whole. Replayed thread by thread (the cooperative scheduler, `threads.py`, when
some other collective diverges) each thread runs its own region; a wait whose phase has not
completed parks the thread until another completes it (`Cooperative.wait_phase`), a partition's
barrier releases when its threads are all there, and threads that all wait for phases none can
complete are a deadlock.

`simt.setmaxnreg` changes no value: a no-op.
"""

from __future__ import annotations

import _thread
import threading
from collections.abc import Callable, Sequence

import numpy as np

from ferrox.dialects.simt.specialize import SetMaxNRegOp, SpecializeOp
from ferrox.driver.interpreter.ops import lowers


class _Stop(BaseException):
    """Unwinds a coroutine that waits when the run is given up."""


class Partitions:
    """The coroutines of one `simt.specialize` run (module docstring)."""

    def __init__(self, bodies: Sequence[Callable[[], object]]):
        self.bodies = bodies
        n = len(bodies)
        self.go = [threading.Lock() for _ in range(n)]
        for lock in self.go:
            lock.acquire()
        self.back = threading.Lock()
        self.back.acquire()
        self.waiting: list[Callable[[], bool] | None] = [None] * n
        self.done = [False] * n
        self.started = [False] * n
        self.error: BaseException | None = None
        self.closed = False
        self.current = 0
        self.stuck: list = [None] * n  # the wait each blocked coroutine is at (for the fault)

    def run(self) -> None:
        self._wake(0)
        self.back.acquire()
        self.closed = True
        for i, lock in enumerate(self.go):  # unwind any still waiting (after a fault)
            if self.started[i] and not self.done[i]:
                lock.release()
        if self.error is not None:
            raise self.error

    def block(self, ready: Callable[[], bool], fault: Callable[[], BaseException]) -> None:
        """The running coroutine waits until `ready()`; `fault()` is raised if nothing can
        make it so."""
        me = self.current
        self.waiting[me] = ready
        self.stuck[me] = fault
        nxt = self._next(me)
        if nxt is None:  # nobody can run: every live coroutine waits for what none provides
            self.waiting[me] = None
            raise fault()
        if nxt == me:
            self.waiting[me] = None
            return
        self._wake(nxt)
        self.go[me].acquire()
        if self.closed:
            raise _Stop()
        self.waiting[me] = None
        self.current = me

    def _next(self, me: int) -> int | None:
        n = len(self.bodies)
        for k in range(1, n + 1):
            i = (me + k) % n
            if self.done[i]:
                continue
            ready = self.waiting[i]
            if ready is None or ready():
                return i
        return None

    def _wake(self, i: int) -> None:
        self.current = i
        if not self.started[i]:
            self.started[i] = True
            _thread.start_new_thread(self._main, (i,))
        self.go[i].release()

    def _main(self, i: int) -> None:
        self.go[i].acquire()
        try:
            with np.errstate(all="ignore"):
                self.bodies[i]()
        except _Stop:
            return
        except BaseException as e:  # handed to the launching thread, which raises it
            self.error = e
            self.done[i] = True
            self.back.release()
            return
        self.done[i] = True
        if all(self.done):
            self.back.release()
            return
        nxt = self._next(i)
        if nxt is None:  # the others wait for what this one no longer provides
            waiting = [j for j in range(len(self.bodies)) if not self.done[j]]
            self.error = self.stuck[waiting[0]]()
            self.back.release()
            return
        self._wake(nxt)


@lowers(SpecializeOp)
def _specialize(op: SpecializeOp):
    def run(ex, args, mask):
        consumers = op.consumer_threads()
        if ex.sync is not None:  # replayed thread by thread: this thread's own region
            producer = int(ex.linear[0]) >= consumers
            ex.run_region(op.producer if producer else op.consumer, (), mask)
            return ()
        lanes = [mask & (ex.linear >= consumers), mask & (ex.linear < consumers)]
        regions = [op.producer, op.consumer]
        bodies = [
            (lambda r=r, m=m: ex.run_region(r, (), m)) for r, m in zip(regions, lanes) if m.any()
        ]
        saved = ex.partitions
        ex.partitions = Partitions(bodies)
        try:
            ex.partitions.run()
        finally:
            ex.partitions = saved
        return ()

    return run


@lowers(SetMaxNRegOp)
def _setmaxnreg(op):
    return lambda ex, args, mask: ()


__all__ = ["Partitions"]
