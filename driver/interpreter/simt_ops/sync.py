"""`simt.sync_threads` (dialects/simt/sync.py): the block's threads meet, and a new barrier
interval begins for race detection. `Executor.barrier` checks that the whole block is there
(or, replaying thread by thread, waits in the cooperative scheduler).

`simt.named_barrier` does nothing here: it only holds some warps back until others reach it,
which a run in program order over the lanes never needs, and it starts no race interval (so the
race tracker orders nothing across it, the conservative choice). What this cannot see: counts
that do not balance, which hang the block on the GPU."""

from __future__ import annotations

from ferrox.dialects import simt
from ferrox.driver.interpreter.ops import lowers


@lowers(simt.SyncThreadsOp)
def _sync_threads(op):
    def run(ex, args, mask):
        ex.barrier(op, mask)
        return ()

    return run


@lowers(simt.NamedBarrierOp)
def _named_barrier(op):
    def run(ex, args, mask):
        return ()

    return run
