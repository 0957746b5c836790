"""`mma.sync`, `ldmatrix` and `cp.async` to their intrinsics, fragments passed through as is.

LLVM declares `ldmatrix` convergent but not `mma` (only `memory(none)`): the `convergent` attribute
that `lowered_call` puts on both calls is what keeps `mma.sync` out of divergent code.
"""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.dialects.nvvm.atomics import address_space
from ferrox.dialects.nvvm.attributes import MMALayout
from ferrox.dialects.nvvm.matrix import (
    CpAsyncCommitGroupOp,
    CpAsyncOp,
    CpAsyncWaitGroupOp,
    LdMatrixOp,
    MmaSyncOp,
)
from ferrox.lowering.nvvm_to_llvm.intrinsics import (
    CP_ASYNC_CG_16,
    CP_ASYNC_COMMIT,
    CP_ASYNC_WAIT,
    MMA,
    ldmatrix,
)
from ferrox.lowering.nvvm_to_llvm.support import call_intrinsic, i32_constant, lowered_call


class MmaSyncToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MmaSyncOp, rewriter: PatternRewriter) -> None:
        args = [*op.operandA, *op.operandB, *op.operandC]
        rewriter.replace(op, lowered_call(op, MMA[op.form().ptx_type], args, op.res.type))


class LdMatrixToIntrinsic(RewritePattern):
    """`layout = col` is the `.trans` form; the pointer's address space picks `.p3` or `.p0`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LdMatrixOp, rewriter: PatternRewriter) -> None:
        name = ldmatrix(
            op.num.value.data, op.layout.data == MMALayout.COL, address_space(op.ptr.type)
        )
        rewriter.replace(op, lowered_call(op, name, [op.ptr], op.res.type))


class CpAsyncToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CpAsyncOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, call_intrinsic(CP_ASYNC_CG_16, [op.dst, op.src, op.src_size]))


class CpAsyncCommitToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CpAsyncCommitGroupOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, call_intrinsic(CP_ASYNC_COMMIT, []))


class CpAsyncWaitToIntrinsic(RewritePattern):
    """The group count is an immediate (`immarg`): an `llvm.mlir.constant` the export inlines."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CpAsyncWaitGroupOp, rewriter: PatternRewriter) -> None:
        n = i32_constant(op.n.value.data)
        rewriter.insert(n, InsertPoint.before(op))
        rewriter.replace(op, call_intrinsic(CP_ASYNC_WAIT, [n.result]))


CP_ASYNC_PATTERNS = (CpAsyncToIntrinsic(), CpAsyncCommitToIntrinsic(), CpAsyncWaitToIntrinsic())
