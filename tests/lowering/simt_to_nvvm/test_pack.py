"""Two f32 values rounded and packed in one `cvt.rn.bf16x2.f32` / `cvt.rn.f16x2.f32`
(lowering/simt_to_nvvm/pack.py): the high half is PTX's first source, the low half its second;
anything but the exact `low | high << 16` of two rounded f32 values is left alone."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import BFloat16Type, Float16Type, IntegerAttr, ModuleOp, f32, i16, i32
from xdsl.ir import Block, Region
from xdsl.pattern_rewriter import PatternRewriteWalker

from ferrox.lowering.simt_to_nvvm.pack import PackedRound


def packed(element, shift: int = 16, swap: bool = False) -> ModuleOp:
    """`low | high << shift` of `a` (low) and `b` (high) rounded to `element`."""
    block = Block(arg_types=[f32, f32])
    a, b = block.args
    ops = []

    def half(x):
        ops.extend([arith.TruncFOp(x, element)])
        ops.append(arith.BitcastOp(ops[-1].result, i16))
        ops.append(arith.ExtUIOp(ops[-1].result, i32))
        return ops[-1].result

    low, high = half(a), half(b)
    amount = arith.ConstantOp(IntegerAttr(shift, i32))
    shifted = arith.ShLIOp(high, amount.result)
    ops += [amount, shifted]
    ops.append(arith.OrIOp(shifted.result, low) if swap else arith.OrIOp(low, shifted.result))
    ops.append(func.ReturnOp(ops[-1].result))
    block.add_ops(ops)
    return ModuleOp([func.FuncOp("f", ((f32, f32), (i32,)), Region(block))])


def rewritten(module: ModuleOp) -> list[llvm.InlineAsmOp]:
    PatternRewriteWalker(PackedRound()).rewrite_module(module)
    return [op for op in module.walk() if isinstance(op, llvm.InlineAsmOp)]


@pytest.mark.parametrize("element, kind", [(BFloat16Type(), "bf16x2"), (Float16Type(), "f16x2")])
@pytest.mark.parametrize("swap", [False, True])
def test_one_cvt_with_the_high_half_first(element, kind, swap):
    module = packed(element, swap=swap)
    (asm,) = rewritten(module)
    assert asm.asm_string.data == f"cvt.rn.{kind}.f32 $0, $1, $2;"
    a, b = module.body.block.first_op.body.block.args  # type: ignore[union-attr]
    assert list(asm.operands) == [b, a]  # high (b), then low (a)


def test_another_shift_is_left_alone():
    assert rewritten(packed(BFloat16Type(), shift=8)) == []
