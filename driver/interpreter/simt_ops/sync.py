"""`simt.sync_threads` (dialects/simt/sync.py): the block's threads meet, and a new barrier
interval begins for race detection. `Executor.barrier` checks that the whole block is there
(or, replaying thread by thread, waits in the cooperative scheduler); in a `simt.specialize`
region, the whole partition. A partition's barrier begins a new interval for the block: the
other partition may make no race-tracked access (verify-disjoint's SIMT 9 holds the producer to
TMA loads and mbarrier ops, which are not race-tracked)."""

from __future__ import annotations

from ferrox.dialects import simt
from ferrox.dialects.simt.specialize import partition_threads
from ferrox.driver.interpreter.ops import lowers


@lowers(simt.SyncThreadsOp)
def _sync_threads(op):
    found = partition_threads(op)  # a `simt.specialize` region's: its partition's barrier
    part = found[:2] if found is not None else None

    def run(ex, args, mask):
        ex.barrier(op, mask, part)
        return ()

    return run
