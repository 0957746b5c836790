"""`simt.sync_threads` (dialects/simt/sync.py): the block's threads meet, and a new barrier
interval begins for race detection. `Executor.barrier` checks that the whole block is there
(or, replaying thread by thread, waits in the cooperative scheduler); in a `simt.specialize`
region, the whole partition. A partition's barrier begins a new interval for the block: the
other partition may make no race-tracked access (verify-disjoint's SIMT 9 holds the producer to
TMA loads and mbarrier ops, which are not race-tracked).

`simt.named_barrier` does nothing here: it only holds some warps back until others reach it,
which a run in program order over the lanes never needs, and it starts no race interval (so the
race tracker orders nothing across it, the conservative choice). What this cannot see: counts
that do not balance, which hang the block on the GPU."""

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


@lowers(simt.NamedBarrierOp)
def _named_barrier(op):
    def run(ex, args, mask):
        return ()

    return run
