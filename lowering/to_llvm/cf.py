"""cf -> llvm: branches with block arguments, and `cf.assert` as a trap.

The successors' argument types are converted here too (idempotently), so a branch and its
target agree even when the enclosing function is not a `func.func`.
`cf.switch` has no llvm op in xDSL 0.74; it becomes a chain of `icmp eq` and `llvm.cond_br`,
one test per case in the order the cases are written (LLVM's SimplifyCFG makes a `switch`
instruction of it again where that pays).
"""

from __future__ import annotations

from xdsl.dialects import cf, llvm
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.lowering.build import cond_br, i32_array
from ferrox.lowering.conversion import Unsupported, morph
from ferrox.lowering.to_llvm.support import convert_block_signature, legal_operands, replace_op
from ferrox.lowering.to_llvm.types import convert_type


class BranchToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.BranchOp, rewriter: PatternRewriter, /) -> None:
        args = legal_operands(rewriter, op.arguments)
        convert_block_signature(rewriter, op.successor)
        morph(rewriter, op, llvm.BrOp, args, [], {})  # (`br`, made in place: see `morph`)


def _cond_br(
    rewriter: PatternRewriter,
    op: Operation,
    block: Block,
    cond: SSAValue,
    then: tuple[Block, list[SSAValue]],
    other: tuple[Block, list[SSAValue]],
) -> llvm.CondBrOp:
    """`llvm.cond_br` (ending `block`, located at `op`) to two successors that LLVM IR can
    express. When both edges lead to one block, the false edge goes through a new block of its
    own: LLVM's phi has one entry per predecessor block, so `cond_br %c, ^b(%x), ^b(%y)`
    would give the phi two values for one block (MLIR's exporter makes the same detour)."""
    if then[0] is other[0]:
        assert block.parent is not None
        detour = Block()
        block.parent.insert_block_after(detour, block)
        forward = llvm.BrOp(other[0], *other[1])
        forward.location = op.location
        rewriter.insert(forward, InsertPoint.at_end(detour))
        other = (detour, [])
    branch = cond_br(cond, then[0], then[1], other[0], other[1])
    branch.location = op.location
    return branch


class CondBranchToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.ConditionalBranchOp, rewriter: PatternRewriter, /) -> None:
        n_then = len(op.then_arguments)
        values = legal_operands(rewriter, [op.cond, *op.then_arguments, *op.else_arguments])
        cond, then_args, else_args = values[0], values[1 : 1 + n_then], values[1 + n_then :]
        convert_block_signature(rewriter, op.then_block)
        convert_block_signature(rewriter, op.else_block)
        block = op.parent_block()
        assert block is not None
        if op.then_block is not op.else_block:  # `cond_br`, made in place (see `morph`)
            sizes = i32_array((1, len(then_args), len(else_args)))
            operands = [cond, *then_args, *else_args]
            morph(rewriter, op, llvm.CondBrOp, operands, [], {"operandSegmentSizes": sizes})
            return
        new = _cond_br(
            rewriter, op, block, cond, (op.then_block, then_args), (op.else_block, else_args)
        )
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


class SwitchToLLVM(RewritePattern):
    """`cf.switch %f, [default: ^d(a), 3: ^c(b), ...]` -> in the switch's block
    `llvm.cond_br (%f == 3), ^c(b), ^next`, in `^next` the test of the following case, and so
    on; the last test's false edge goes to the default. A value listed twice takes its first
    case, as the interpreter does (LLVM's own switch refuses duplicates)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: cf.SwitchOp, rewriter: PatternRewriter, /) -> None:
        segments = op.case_operand
        values = op.case_values.get_values() if op.case_values is not None else ()
        block = op.parent_block()
        region = block.parent_region() if block is not None else None
        if block is None or region is None:
            raise Unsupported("cf.switch must be inside a block of a region")
        flag_type = convert_type(op.flag.type)
        if not isinstance(flag_type, IntegerType):  # the op verifies an integer or index flag
            raise Unsupported(f"cf.switch on {op.flag.type} has no llvm form")
        (flag,) = legal_operands(rewriter, [op.flag])
        default_args = legal_operands(rewriter, op.default_operands)
        case_args = [legal_operands(rewriter, list(seg)) for seg in segments]
        for successor in (op.default_block, *op.case_blocks):
            convert_block_signature(rewriter, successor)
        if not values:
            replace_op(rewriter, op, [llvm.BrOp(op.default_block, *default_args)])
            return
        tests = [block] + [Block() for _ in values[1:]]
        after = block
        for test in tests[1:]:
            region.insert_block_after(test, after)
            after = test
        for k, (value, target) in enumerate(zip(values, op.case_blocks, strict=True)):
            constant = llvm.ConstantOp(IntegerAttr(value, flag_type), flag_type)
            equal = llvm.ICmpOp(
                flag, constant.result, IntegerAttr(llvm.ICmpPredicateFlag("eq").to_int(), 64)
            )
            for new in (constant, equal):
                new.location = op.location
            point = InsertPoint.before(op) if k == 0 else InsertPoint.at_end(tests[k])
            rewriter.insert([constant, equal], point)
            otherwise = (
                (tests[k + 1], []) if k + 1 < len(tests) else (op.default_block, default_args)
            )
            branch = _cond_br(rewriter, op, tests[k], equal.res, (target, case_args[k]), otherwise)
            rewriter.insert(branch, point)
        rewriter.erase(op)


CF_PATTERNS: tuple[RewritePattern, ...] = (
    BranchToLLVM(),
    CondBranchToLLVM(),
    AssertToLLVM(),
    SwitchToLLVM(),
)
