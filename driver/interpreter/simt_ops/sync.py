"""`simt.sync_threads` (dialects/simt/sync.py): the block's threads meet, and a new barrier
interval begins for race detection. `Executor.barrier` checks that the whole block is there
(or, replaying thread by thread, waits in the cooperative scheduler)."""

from __future__ import annotations

from ferrox.dialects import simt
from ferrox.driver.interpreter.ops import lowers


@lowers(simt.SyncThreadsOp)
def _sync_threads(op):
    def run(ex, args, mask):
        ex.barrier(op, mask)
        return ()

    return run
