"""`mma.sync` and `ldmatrix` to their intrinsics, fragments passed through as is.

LLVM declares `ldmatrix` convergent but not `mma` (only `memory(none)`): the `convergent` attribute
that `lowered_call` puts on both calls is what keeps `mma.sync` out of divergent code.
"""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.nvvm.atomics import address_space
from ferrox.dialects.nvvm.attributes import MMALayout
from ferrox.dialects.nvvm.matrix import LdMatrixOp, MmaSyncOp
from ferrox.lowering.nvvm_to_llvm.intrinsics import MMA, ldmatrix
from ferrox.lowering.nvvm_to_llvm.support import lowered_call


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
