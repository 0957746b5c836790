"""Fences: `membar` intrinsics, and PTX `fence.sc`/`fence.acq_rel` where LLVM has no intrinsic.

LLVM spells a scoped fence as the `fence syncscope("block") seq_cst` instruction, which xDSL's
llvm dialect lacks; until ferrox's `llvm.fence` is exported, the exact PTX instruction is emitted as
inline asm with a memory clobber. Cluster scope has intrinsics (`llvm.nvvm.fence.sc.cluster`).
"""

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.nvvm.attributes import MemScope
from ferrox.dialects.nvvm.fences import FenceAcqRelOp, FenceScOp, MembarOp
from ferrox.lowering.nvvm_to_llvm.intrinsics import FENCE_SC_CLUSTER, MEMBAR
from ferrox.lowering.nvvm_to_llvm.support import lowered_call, ptx_asm


class MembarToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MembarOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, lowered_call(op, MEMBAR[op.scope.data], []))


class ScopedFenceToPtx(RewritePattern):
    """`fence.sc.<scope>` / `fence.acq_rel.<scope>`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: FenceScOp | FenceAcqRelOp, rewriter: PatternRewriter) -> None:
        scope = op.scope.data
        if isinstance(op, FenceScOp) and scope == MemScope.CLUSTER:
            rewriter.replace(op, lowered_call(op, FENCE_SC_CLUSTER, []))
            return
        sem = "sc" if isinstance(op, FenceScOp) else "acq_rel"
        rewriter.replace(op, ptx_asm(f"fence.{sem}.{scope.value};", ""))
