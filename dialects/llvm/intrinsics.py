"""LLVM intrinsics as ops, for those kernels need and xDSL's llvm dialect lacks.

Integer min/max, abs and bit counting (index math, histograms, reductions), `fmuladd`,
IEEE `minimum`/`maximum`, and float rounding. Spelled as in MLIR:

    %m = llvm.intr.smax(%a, %b) : (i32, i32) -> i32
    %n = llvm.intr.ctlz(%a) {is_zero_poison = false} : (i32) -> i32
    %f = llvm.intr.fmuladd(%a, %b, %c) : (f32, f32, f32) -> f32

Each class carries `INTRINSIC`, the LLVM name the exporter mangles with the operand type.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    I1,
    AnyFloatConstr,
    IntegerAttr,
    SignlessIntegerConstraint,
    VectorType,
)
from xdsl.dialects.llvm import FastMathAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

_INT = SignlessIntegerConstraint | VectorType.constr(SignlessIntegerConstraint)
_FLOAT = AnyFloatConstr | VectorType.constr(AnyFloatConstr)
_FORMAT = "`(` operands `)` attr-dict `:` functional-type(operands, results)"


class IntrinsicOp(IRDLOperation):
    """An op that is one call of the LLVM intrinsic `intrinsic`, overloaded on its result type."""

    INTRINSIC: ClassVar[str]
    IMMEDIATES: ClassVar[tuple[str, ...]] = ()
    """Properties passed as trailing `i1` immediate arguments, in order (LLVM's immarg)."""

    assembly_format = _FORMAT
    irdl_options = (ParsePropInAttrDict(),)
    traits = traits_def(Pure())


class _UnaryInt(IntrinsicOp):
    T: ClassVar = VarConstraint("T", _INT)
    input = operand_def(T)
    res = result_def(T)

    def __init__(self, input: Operation | SSAValue):
        super().__init__(operands=[input], result_types=[SSAValue.get(input).type])


class _BinaryInt(IntrinsicOp):
    T: ClassVar = VarConstraint("T", _INT)
    a = operand_def(T)
    b = operand_def(T)
    res = result_def(T)

    def __init__(self, a: Operation | SSAValue, b: Operation | SSAValue):
        super().__init__(operands=[a, b], result_types=[SSAValue.get(a).type])


class _TernaryInt(IntrinsicOp):
    T: ClassVar = VarConstraint("T", _INT)
    a = operand_def(T)
    b = operand_def(T)
    c = operand_def(T)
    res = result_def(T)

    def __init__(self, a: Operation | SSAValue, b: Operation | SSAValue, c: Operation | SSAValue):
        super().__init__(operands=[a, b, c], result_types=[SSAValue.get(a).type])


class _UnaryFloat(IntrinsicOp):
    T: ClassVar = VarConstraint("T", _FLOAT)
    input = operand_def(T)
    res = result_def(T)
    fastmathFlags = prop_def(FastMathAttr, default_value=FastMathAttr(None))

    def __init__(self, input: Operation | SSAValue):
        super().__init__(operands=[input], result_types=[SSAValue.get(input).type])


class _BinaryFloat(IntrinsicOp):
    T: ClassVar = VarConstraint("T", _FLOAT)
    a = operand_def(T)
    b = operand_def(T)
    res = result_def(T)
    fastmathFlags = prop_def(FastMathAttr, default_value=FastMathAttr(None))

    def __init__(self, a: Operation | SSAValue, b: Operation | SSAValue):
        super().__init__(operands=[a, b], result_types=[SSAValue.get(a).type])


class _TernaryFloat(IntrinsicOp):
    T: ClassVar = VarConstraint("T", _FLOAT)
    a = operand_def(T)
    b = operand_def(T)
    c = operand_def(T)
    res = result_def(T)
    fastmathFlags = prop_def(FastMathAttr, default_value=FastMathAttr(None))

    def __init__(self, a: Operation | SSAValue, b: Operation | SSAValue, c: Operation | SSAValue):
        super().__init__(operands=[a, b, c], result_types=[SSAValue.get(a).type])


class _CountZeros(IntrinsicOp):
    T: ClassVar = VarConstraint("T", _INT)
    input = operand_def(T)
    res = result_def(T)
    is_zero_poison = prop_def(IntegerAttr[I1])
    IMMEDIATES: ClassVar[tuple[str, ...]] = ("is_zero_poison",)

    def __init__(self, input: Operation | SSAValue, is_zero_poison: bool = False):
        super().__init__(
            operands=[input],
            result_types=[SSAValue.get(input).type],
            properties={"is_zero_poison": IntegerAttr.from_bool(is_zero_poison)},
        )


@irdl_op_definition
class SMaxOp(_BinaryInt):
    """Signed integer maximum."""

    name = "llvm.intr.smax"
    INTRINSIC: ClassVar[str] = "llvm.smax"


@irdl_op_definition
class SMinOp(_BinaryInt):
    """Signed integer minimum."""

    name = "llvm.intr.smin"
    INTRINSIC: ClassVar[str] = "llvm.smin"


@irdl_op_definition
class UMaxOp(_BinaryInt):
    """Unsigned integer maximum."""

    name = "llvm.intr.umax"
    INTRINSIC: ClassVar[str] = "llvm.umax"


@irdl_op_definition
class UMinOp(_BinaryInt):
    """Unsigned integer minimum."""

    name = "llvm.intr.umin"
    INTRINSIC: ClassVar[str] = "llvm.umin"


@irdl_op_definition
class FshlOp(_TernaryInt):
    """Funnel shift left (a rotate when a == b)."""

    name = "llvm.intr.fshl"
    INTRINSIC: ClassVar[str] = "llvm.fshl"


@irdl_op_definition
class FshrOp(_TernaryInt):
    """Funnel shift right (a rotate when a == b)."""

    name = "llvm.intr.fshr"
    INTRINSIC: ClassVar[str] = "llvm.fshr"


@irdl_op_definition
class CtPopOp(_UnaryInt):
    """Population count (PTX popc)."""

    name = "llvm.intr.ctpop"
    INTRINSIC: ClassVar[str] = "llvm.ctpop"


@irdl_op_definition
class BitReverseOp(_UnaryInt):
    """Reverse the bits (PTX brev)."""

    name = "llvm.intr.bitreverse"
    INTRINSIC: ClassVar[str] = "llvm.bitreverse"


@irdl_op_definition
class ByteSwapOp(_UnaryInt):
    """Reverse the bytes."""

    name = "llvm.intr.bswap"
    INTRINSIC: ClassVar[str] = "llvm.bswap"


@irdl_op_definition
class CountLeadingZerosOp(_CountZeros):
    """Count leading zeros (PTX clz)."""

    name = "llvm.intr.ctlz"
    INTRINSIC: ClassVar[str] = "llvm.ctlz"


@irdl_op_definition
class CountTrailingZerosOp(_CountZeros):
    """Count trailing zeros."""

    name = "llvm.intr.cttz"
    INTRINSIC: ClassVar[str] = "llvm.cttz"


@irdl_op_definition
class FMulAddOp(_TernaryFloat):
    """a * b + c, fused where the target prefers (PTX fma)."""

    name = "llvm.intr.fmuladd"
    INTRINSIC: ClassVar[str] = "llvm.fmuladd"


@irdl_op_definition
class MaximumOp(_BinaryFloat):
    """IEEE 754-2019 maximum: NaN-propagating."""

    name = "llvm.intr.maximum"
    INTRINSIC: ClassVar[str] = "llvm.maximum"


@irdl_op_definition
class MinimumOp(_BinaryFloat):
    """IEEE 754-2019 minimum: NaN-propagating."""

    name = "llvm.intr.minimum"
    INTRINSIC: ClassVar[str] = "llvm.minimum"


@irdl_op_definition
class FTruncOp(_UnaryFloat):
    """Round toward zero."""

    name = "llvm.intr.trunc"
    INTRINSIC: ClassVar[str] = "llvm.trunc"


@irdl_op_definition
class RoundOp(_UnaryFloat):
    """Round half away from zero."""

    name = "llvm.intr.round"
    INTRINSIC: ClassVar[str] = "llvm.round"


@irdl_op_definition
class RoundEvenOp(_UnaryFloat):
    """Round half to even."""

    name = "llvm.intr.roundeven"
    INTRINSIC: ClassVar[str] = "llvm.roundeven"


@irdl_op_definition
class RintOp(_UnaryFloat):
    """Round in the current rounding mode (to nearest even)."""

    name = "llvm.intr.rint"
    INTRINSIC: ClassVar[str] = "llvm.rint"


@irdl_op_definition
class NearbyintOp(_UnaryFloat):
    """rint without the inexact exception."""

    name = "llvm.intr.nearbyint"
    INTRINSIC: ClassVar[str] = "llvm.nearbyint"


@irdl_op_definition
class AbsOp(IntrinsicOp):
    """Integer absolute value; `is_int_min_poison` makes abs(INT_MIN) poison instead of INT_MIN."""

    name = "llvm.intr.abs"
    INTRINSIC: ClassVar[str] = "llvm.abs"
    IMMEDIATES: ClassVar[tuple[str, ...]] = ("is_int_min_poison",)

    T: ClassVar = VarConstraint("T", _INT)
    input = operand_def(T)
    res = result_def(T)
    is_int_min_poison = prop_def(IntegerAttr[I1])

    def __init__(self, input: Operation | SSAValue, is_int_min_poison: bool = False):
        super().__init__(
            operands=[input],
            result_types=[SSAValue.get(input).type],
            properties={"is_int_min_poison": IntegerAttr.from_bool(is_int_min_poison)},
        )


INTRINSIC_OPS: list[type[IntrinsicOp]] = [
    SMaxOp,
    SMinOp,
    UMaxOp,
    UMinOp,
    FshlOp,
    FshrOp,
    CtPopOp,
    BitReverseOp,
    ByteSwapOp,
    CountLeadingZerosOp,
    CountTrailingZerosOp,
    AbsOp,
    FMulAddOp,
    MaximumOp,
    MinimumOp,
    FTruncOp,
    RoundOp,
    RoundEvenOp,
    RintOp,
    NearbyintOp,
]
