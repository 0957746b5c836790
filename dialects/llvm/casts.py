"""Conversions xDSL's llvm dialect lacks: address-space casts and float <-> integer casts.

Kernels need `addrspacecast` to hand a shared-memory (addrspace 3) or global (addrspace 1)
pointer to code that takes a generic pointer, and `fptosi`/`fptoui`/`uitofp` for index math
on floats. Spelled as in MLIR: `llvm.fptosi %x : f32 to i32`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloatConstr, SignlessIntegerConstraint, UnitAttr, VectorType
from xdsl.dialects.llvm import GenericCastOp, LLVMPointerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect
from xdsl.utils.exceptions import VerifyException

_INT = SignlessIntegerConstraint | VectorType.constr(SignlessIntegerConstraint)
_FLOAT = AnyFloatConstr | VectorType.constr(AnyFloatConstr)


@irdl_op_definition
class AddrSpaceCastOp(GenericCastOp):
    """`llvm.addrspacecast`: the same address seen from another address space."""

    name = "llvm.addrspacecast"

    arg = operand_def(LLVMPointerType)
    result = result_def(LLVMPointerType)

    def verify_(self) -> None:
        assert isinstance(self.arg.type, LLVMPointerType)
        assert isinstance(self.result.type, LLVMPointerType)
        if self.arg.type == self.result.type:
            raise VerifyException(
                f"addrspacecast from {self.arg.type} to the same address space; drop the cast"
            )


class _FloatToInt(GenericCastOp):
    arg = operand_def(_FLOAT)
    result = result_def(_INT)


@irdl_op_definition
class FPToSIOp(_FloatToInt):
    """`llvm.fptosi`: float to signed integer, rounding toward zero."""

    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(_FloatToInt):
    """`llvm.fptoui`: float to unsigned integer, rounding toward zero."""

    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(IRDLOperation):
    """`llvm.uitofp`: unsigned integer to float; `nneg` promises the operand is non-negative."""

    name = "llvm.uitofp"

    arg = operand_def(_INT)
    result = result_def(_FLOAT)
    non_neg = opt_prop_def(UnitAttr, prop_name="nonNeg")

    traits = traits_def(NoMemoryEffect())

    assembly_format = "(`nneg` $nonNeg^)? $arg attr-dict `:` type($arg) `to` type($result)"

    def __init__(self, val: Operation | SSAValue, res_type: Attribute, non_neg: bool = False):
        super().__init__(
            operands=[SSAValue.get(val)],
            result_types=[res_type],
            properties={"nonNeg": UnitAttr() if non_neg else None},
        )
