"""`simt.sync_threads` to `nvvm.barrier` (PTX `bar.sync 0`).

The nvvm op is `Convergent`, and its intrinsic is declared `convergent` in LLVM IR, so no pass
below SIMT may move it into, out of or across divergent control flow (docs/safety.md#simt-7).
It stays exactly where the kernel put it.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects import nvvm
from ferrox.dialects.simt import SyncThreadsOp


class SyncThreadsToBarrier(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SyncThreadsOp, rewriter: PatternRewriter, /) -> None:
        barrier = nvvm.BarrierOp()
        barrier.location = op.location
        rewriter.replace(op, barrier)


SYNC_PATTERNS: tuple[RewritePattern, ...] = (SyncThreadsToBarrier(),)
