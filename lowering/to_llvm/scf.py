"""scf -> cf: the structured ops xDSL's `convert-scf-to-cf` does not lower (or lowers lossily).

`scf.while` becomes MLIR's loop of blocks: the entry branches to the before-region's first block
with the initial values; `scf.condition(%c) %v` becomes `cf.cond_br %c, ^after(%v), ^exit(%v)`;
the after-region's `scf.yield %v` branches back to the before-region with `%v`. The results are
the exit block's arguments (what the last `scf.condition` forwarded).

`scf.index_switch` becomes a `cf.switch` on the `index` operand itself. xDSL's `SwitchLowering`
casts the operand to `i32` first, so an index of 2^32 would take `case 0`; here the comparison
keeps all 64 bits (`cf.switch` then lowers to compares in `cf.py`).

`scf.execute_region` (one run of a region, possibly of several blocks) is inlined: its blocks go
between the two halves of the block it was in, and each of its `scf.yield`s branches to the
second half with the results.

All three run in the first walk of `convert-to-llvm`, with xDSL's `scf.if` / `scf.for` patterns;
their new ops take the location of the op they replace (`Located`).
"""

from __future__ import annotations

from xdsl.dialects import cf, scf
from xdsl.dialects.builtin import DenseIntElementsAttr, IndexType, VectorType
from xdsl.ir import Block, Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import BlockInsertPoint, InsertPoint


def _terminators(region: Region, kind: type) -> list:
    """The region's own terminators of `kind` (not those of nested ops)."""
    return [b.last_op for b in region.blocks if isinstance(b.last_op, kind)]


class WhileLowering(RewritePattern):
    """`scf.while` -> a header block (the before-region), a body (the after-region) and an exit."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter, /) -> None:
        entry = op.parent_block()
        if entry is None:
            return
        exit_block = entry.split_before(op)
        region = exit_block.parent_region()
        assert region is not None
        continue_block = Block(arg_types=op.result_types)
        region.insert_block_before(continue_block, exit_block)
        rewriter.insert(cf.BranchOp(exit_block), InsertPoint.at_end(continue_block))

        before = op.before_region.first_block
        after = op.after_region.first_block
        assert before is not None and after is not None
        for condition in _terminators(op.before_region, scf.ConditionOp):
            branch = cf.ConditionalBranchOp(
                condition.condition, after, condition.args, continue_block, condition.args
            )
            rewriter.replace(condition, branch)
        for yielded in _terminators(op.after_region, scf.YieldOp):
            rewriter.replace(yielded, cf.BranchOp(before, *yielded.arguments))

        rewriter.inline_region(op.before_region, BlockInsertPoint.before(continue_block))
        rewriter.inline_region(op.after_region, BlockInsertPoint.before(continue_block))
        rewriter.insert(cf.BranchOp(before, *op.arguments), InsertPoint.at_end(entry))
        rewriter.replace(op, [], continue_block.args)


class IndexSwitchLowering(RewritePattern):
    """`scf.index_switch %i` -> `cf.switch %i : index` to each case's inlined region, whose
    `scf.yield` branches to a continuation block carrying the results."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.IndexSwitchOp, rewriter: PatternRewriter, /) -> None:
        entry = op.parent_block()
        if entry is None:
            return
        continue_block = entry.split_before(op)
        for i, result_type in enumerate(op.result_types):
            rewriter.insert_block_argument(continue_block, i, result_type)

        def inline(region: Region) -> Block:
            first = region.first_block
            assert first is not None
            for yielded in _terminators(region, scf.YieldOp):
                rewriter.replace(yielded, cf.BranchOp(continue_block, *yielded.arguments))
            rewriter.inline_region(region, BlockInsertPoint.before(continue_block))
            return first

        cases = [inline(r) for r in op.case_regions]
        default = inline(op.default_region)
        values = op.cases.get_values()
        switch = cf.SwitchOp(
            op.arg,
            default,
            (),
            DenseIntElementsAttr.from_list(VectorType(IndexType(), (len(values),)), values)
            if values
            else None,
            cases,
            [() for _ in cases],
        )
        rewriter.insert(switch, InsertPoint.at_end(entry))
        rewriter.replace(op, [], continue_block.args)


class ExecuteRegionLowering(RewritePattern):
    """`scf.execute_region` -> its blocks inlined, each `scf.yield` a branch to the rest."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.ExecuteRegionOp, rewriter: PatternRewriter, /) -> None:
        entry = op.parent_block()
        first = op.region.first_block
        if entry is None or first is None:
            return
        continue_block = entry.split_before(op)
        for i, result_type in enumerate(op.result_types):
            rewriter.insert_block_argument(continue_block, i, result_type)
        for yielded in _terminators(op.region, scf.YieldOp):
            rewriter.replace(yielded, cf.BranchOp(continue_block, *yielded.arguments))
        rewriter.inline_region(op.region, BlockInsertPoint.before(continue_block))
        rewriter.insert(cf.BranchOp(first), InsertPoint.at_end(entry))
        rewriter.replace(op, [], continue_block.args)


SCF_PATTERNS: tuple[RewritePattern, ...] = (
    WhileLowering(),
    IndexSwitchLowering(),
    ExecuteRegionLowering(),
)
