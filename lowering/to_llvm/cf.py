"""cf -> llvm: branches with block arguments, and `cf.assert` as a trap.

The successors' argument types are converted here too (idempotently), so a branch and its
target agree even when the enclosing function is not a `func.func`.
`cf.switch` has no llvm op in xDSL 0.74 and is reported, not lowered.
"""

from __future__ import annotations

from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.to_llvm.support import convert_block_signature, legal_operands, replace_op


class BranchToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter, /) -> None:
        args = legal_operands(rewriter, op.arguments)
        convert_block_signature(rewriter, op.successor)
        replace_op(rewriter, op, [llvm.BrOp(op.successor, *args)])


class CondBranchToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter, /) -> None:
        n_then = len(op.then_arguments)
        values = legal_operands(rewriter, [op.cond, *op.then_arguments, *op.else_arguments])
        cond, then_args, else_args = values[0], values[1 : 1 + n_then], values[1 + n_then :]
        convert_block_signature(rewriter, op.then_block)
        convert_block_signature(rewriter, op.else_block)
        new = llvm.CondBrOp(cond, op.then_block, then_args, op.else_block, else_args)
        replace_op(rewriter, op, [new])


class AssertToLLVM(RewritePattern):
    """`cf.assert %ok` -> branch to a block that calls `llvm.trap`: a failed check stops the
    kernel (the CUDA launch then reports an illegal instruction) instead of reading wild."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.AssertOp, rewriter: PatternRewriter, /) -> None:
        (cond,) = legal_operands(rewriter, [op.arg])
        block = op.parent_block()
        region = block.parent_region() if block is not None else None
        if block is None or region is None or isinstance(region.parent_op(), ModuleOp):
            # At a module's top level it would split the module's body into blocks.
            raise Unsupported("cf.assert must be inside a function")
        rest = block.split_before(op)
        trap = Block()
        region.insert_block_after(trap, rest)
        trap_ops = [llvm.CallIntrinsicOp("llvm.trap", [], []), llvm.UnreachableOp()]
        for trap_op in trap_ops:
            trap_op.location = op.location
        rewriter.insert(trap_ops, InsertPoint.at_end(trap))
        branch = llvm.CondBrOp(cond, rest, [], trap, [])
        branch.location = op.location
        rewriter.insert(branch, InsertPoint.at_end(block))
        rewriter.erase(op)


class SwitchUnsupported(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.SwitchOp, rewriter: PatternRewriter, /) -> None:
        raise Unsupported("xDSL's llvm dialect has no llvm.switch; use scf.if or cf.cond_br")


CF_PATTERNS: tuple[RewritePattern, ...] = (
    BranchToLLVM(),
    CondBranchToLLVM(),
    AssertToLLVM(),
    SwitchUnsupported(),
)
