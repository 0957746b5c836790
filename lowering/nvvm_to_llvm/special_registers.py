"""`nvvm.read.ptx.sreg.*` to `llvm.nvvm.read.ptx.sreg.*`: one pattern for all registers."""

from xdsl.dialects.builtin import i32
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.nvvm.special_registers import SpecialRegisterOp
from ferrox.lowering.nvvm_to_llvm.intrinsics import special_register
from ferrox.lowering.nvvm_to_llvm.support import replace_by_call


class SpecialRegisterToIntrinsic(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SpecialRegisterOp, rewriter: PatternRewriter) -> None:
        replace_by_call(rewriter, op, special_register(op.register()), [], i32)
