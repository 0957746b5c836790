"""Barriers to the `llvm.nvvm.barrier.cta.sync.aligned.*` and `bar.warp.sync` intrinsics.

LLVM declares these intrinsics `convergent`, and the calls carry `convergent` too.
"""

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.nvvm.barriers import Barrier0Op, BarrierOp, SyncWarpOp
from ferrox.lowering.nvvm_to_llvm.intrinsics import BAR_WARP_SYNC, BARRIER_ALL, BARRIER_COUNT
from ferrox.lowering.nvvm_to_llvm.support import i32_constant, lowered_call


class Barrier0ToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Barrier0Op, rewriter: PatternRewriter) -> None:
        zero = i32_constant(0)
        rewriter.replace(op, [zero, lowered_call(op, BARRIER_ALL, [zero.result])])


class BarrierToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: BarrierOp, rewriter: PatternRewriter) -> None:
        new_ops: list[Operation] = []
        if op.barrierId is not None:
            barrier_id = op.barrierId
        else:
            zero = i32_constant(0)
            new_ops.append(zero)
            barrier_id = zero.result
        if op.numberOfThreads is not None:
            new_ops.append(lowered_call(op, BARRIER_COUNT, [barrier_id, op.numberOfThreads]))
        else:
            new_ops.append(lowered_call(op, BARRIER_ALL, [barrier_id]))
        rewriter.replace(op, new_ops)


class SyncWarpToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SyncWarpOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, lowered_call(op, BAR_WARP_SYNC, [op.mask]))
