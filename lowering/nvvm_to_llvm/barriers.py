"""Barriers to the `llvm.nvvm.barrier.cta.sync.aligned.*` and `bar.warp.sync` intrinsics.

LLVM declares these intrinsics `convergent`, so the barriers stay convergent after lowering.
"""

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.nvvm.barriers import Barrier0Op, BarrierOp, SyncWarpOp
from ferrox.lowering.nvvm_to_llvm.intrinsics import BAR_WARP_SYNC, BARRIER_ALL, BARRIER_COUNT
from ferrox.lowering.nvvm_to_llvm.support import call_intrinsic, i32_constant


class Barrier0ToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Barrier0Op, rewriter: PatternRewriter) -> None:
        zero = i32_constant(0)
        rewriter.replace_op(op, [zero, call_intrinsic(BARRIER_ALL, [zero.result])])


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
            new_ops.append(call_intrinsic(BARRIER_COUNT, [barrier_id, op.numberOfThreads]))
        else:
            new_ops.append(call_intrinsic(BARRIER_ALL, [barrier_id]))
        rewriter.replace_op(op, new_ops)


class SyncWarpToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SyncWarpOp, rewriter: PatternRewriter) -> None:
        rewriter.replace_op(op, call_intrinsic(BAR_WARP_SYNC, [op.mask]))
