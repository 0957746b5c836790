"""Builders shared by the nvvm patterns: intrinsic calls, i32 constants, PTX inline asm."""

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Attribute, SSAValue


def i32_constant(value: int) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, i32), i32)


def call_intrinsic(
    name: str, args: Sequence[SSAValue], result: Attribute | None = None
) -> llvm.CallIntrinsicOp:
    """`llvm.call_intrinsic "name"(args)`; the exporter declares it with the operands' types."""
    return llvm.CallIntrinsicOp(name, args, [result] if result is not None else [])


def ptx_asm(
    asm: str, constraints: str, args: Sequence[SSAValue] = (), result: Attribute | None = None
) -> llvm.InlineAsmOp:
    """PTX with side effects and a memory clobber, so LLVM neither drops nor reorders it."""
    clobber = "~{memory}"
    return llvm.InlineAsmOp(
        asm,
        f"{constraints},{clobber}" if constraints else clobber,
        list(args),
        [result] if result is not None else None,
        has_side_effects=True,
    )
