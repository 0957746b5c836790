"""Warp collectives to the `shfl.sync`, `vote.sync` and `redux.sync` intrinsics (all convergent)."""

from xdsl.dialects.builtin import Float32Type
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.nvvm.warp import ReduxOp, ShflOp, VoteSyncOp
from ferrox.lowering.nvvm_to_llvm.intrinsics import redux, shfl, vote
from ferrox.lowering.nvvm_to_llvm.support import replace_by_call


class ShflToIntrinsic(RewritePattern):
    """`llvm.nvvm.shfl.sync.<kind>.<i32|f32>[p]`; the `p` form also returns the valid bit."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ShflOp, rewriter: PatternRewriter) -> None:
        name = shfl(
            op.kind.data,
            isinstance(op.val.type, Float32Type),
            op.return_value_and_is_valid is not None,
        )
        args = [op.thread_mask, op.val, op.offset, op.mask_and_clamp]
        replace_by_call(rewriter, op, name, args, op.res.type)


class VoteToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: VoteSyncOp, rewriter: PatternRewriter) -> None:
        replace_by_call(rewriter, op, vote(op.kind.data), [op.mask, op.pred], op.res.type)


class ReduxToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReduxOp, rewriter: PatternRewriter) -> None:
        args = [op.val, op.mask_and_clamp]
        replace_by_call(rewriter, op, redux(op.kind.data), args, op.res.type)
