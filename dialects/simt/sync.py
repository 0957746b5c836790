"""Block-wide barrier. Convergent: every thread of the block must reach it, so verify-disjoint
rejects it under divergent control flow."""

from __future__ import annotations

from xdsl.irdl import IRDLOperation, irdl_op_definition


@irdl_op_definition
class SyncThreadsOp(IRDLOperation):
    """`simt.sync_threads`: __syncthreads(); also orders shared-memory accesses across it."""

    name = "simt.sync_threads"

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()
