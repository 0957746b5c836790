"""`simt.sync_threads` (dialects/simt/sync.py). The thread blocks in its scheduler
(`threads.Cooperative`) until the rest of its block arrives. `scheduler` is how every collective
(barriers, warp ops, `simt.mma_sync`) reaches it.
"""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.dialects import simt
from ferrox.driver.interpreter.machine import SimtInterpreter


def scheduler(interp: SimtInterpreter, op: Operation):
    """The running thread's scheduler; a trap where the launch runs threads one at a time."""
    sync = interp.thread.sync
    if sync is None:  # the launcher runs a kernel without collectives one thread at a time
        raise interp.trap(op, f"'{op.name}' reached in a launch run without a scheduler")
    return sync


@register_impls
class SyncFunctions(InterpreterFunctions):
    @impl(simt.SyncThreadsOp)
    def run_sync_threads(self, interp: SimtInterpreter, op: simt.SyncThreadsOp, args: PythonValues):
        scheduler(interp, op).barrier(interp.thread, op)
        return ()
