"""Two f32 values rounded to a packed pair of 16-bit floats in one instruction.

The tile lowering packs two bf16 (or f16) values into an i32 as `low | high << 16` of their
bits (`matrix.pack_pair`: the A fragments of `mma.sync` and `simt.wgmma_reg_a`, where `p` of the
attention loop becomes bf16); where both halves are `arith.truncf` of f32, that `arith.ori` is
PTX's `cvt.rn.bf16x2.f32 d, high, low` (`cvt.rn.f16x2.f32` for f16): the same round to nearest
even of each half, one instruction (SASS `F2FP.PACK_AB`) where LLVM made two conversions and a
byte permute. The asm has side effects, so LLVM keeps it before the `wgmma.fence` that follows
(PTX wants a register-A operand written before the fence).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, Float16Type, IntegerAttr, f32, i16, i32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.lowering.nvvm_to_llvm.support import ptx_asm


def _rounded(v: SSAValue) -> tuple[SSAValue, str] | None:
    """`(x, kind)` where `v` is `extui(bitcast(truncf(x : f32) : bf16 or f16) : i16) : i32`."""
    ext = v.owner
    if not isinstance(ext, arith.ExtUIOp) or ext.result.type != i32:
        return None
    cast = ext.input.owner
    if not isinstance(cast, arith.BitcastOp) or cast.result.type != i16:
        return None
    trunc = cast.input.owner
    if not isinstance(trunc, arith.TruncFOp) or trunc.input.type != f32:
        return None
    to = trunc.result.type
    if isinstance(to, BFloat16Type):
        return trunc.input, "bf16x2"
    return (trunc.input, "f16x2") if isinstance(to, Float16Type) else None


def _shifted(v: SSAValue) -> SSAValue | None:
    """`x` where `v` is `shli(x, 16)`."""
    shl = v.owner
    if not isinstance(shl, arith.ShLIOp):
        return None
    amount = shl.rhs.owner
    if not isinstance(amount, arith.ConstantOp) or not isinstance(amount.value, IntegerAttr):
        return None
    return shl.lhs if amount.value.value.data == 16 else None


class PackedRound(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.OrIOp, rewriter: PatternRewriter, /) -> None:
        if op.result.type != i32:
            return
        for low_v, high_v in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            high_in = _shifted(high_v)
            low, high = _rounded(low_v), _rounded(high_in) if high_in is not None else None
            if low is None or high is None or low[1] != high[1]:
                continue
            asm = ptx_asm(f"cvt.rn.{low[1]}.f32 $0, $1, $2;", "=r,f,f", [high[0], low[0]], i32)
            rewriter.replace(op, asm)
            return


PACK_PATTERNS: tuple[RewritePattern, ...] = (PackedRound(),)
