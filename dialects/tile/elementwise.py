"""Elementwise tile ops: arithmetic, math, compare, select and element-type conversion.

Operands of one op have one tile type: there is no implicit broadcasting (use `tile.broadcast`
or `tile.full`), so the shape of every value is visible in the IR.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import UnitAttr, i1
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.attributes import CmpPredicate, CmpPredicateAttr
from ferrox.dialects.tile.constraints import check_same_type, tile_var
from ferrox.dialects.tile.types import TileType, is_bool, is_float, is_int, shape_str

_BROADCAST_HINT = " (tile ops do not broadcast implicitly: use tile.broadcast)"


def check_numeric(op: IRDLOperation, t: Attribute, floats_only: bool) -> None:
    """Arithmetic needs numbers: floats, or integers other than i1 where allowed."""
    assert isinstance(t, TileType)
    e = t.element_type
    if floats_only and not is_float(e):
        raise VerifyException(f"{op.name} needs a float element type, found {e}")
    if not floats_only and not (is_float(e) or (is_int(e) and not is_bool(e))):
        raise VerifyException(
            f"{op.name} needs a float or integer element type (not i1), found {e}"
        )


class _BinaryOp(IRDLOperation):
    T: ClassVar = tile_var()

    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(T)

    FLOATS_ONLY: ClassVar[bool] = False
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($result)"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])

    def verify_(self) -> None:
        check_same_type(
            self, [self.lhs, self.rhs, self.result], "operands and result", _BROADCAST_HINT
        )
        check_numeric(self, self.result.type, self.FLOATS_ONLY)


@irdl_op_definition
class AddOp(_BinaryOp):
    """`lhs + rhs`; integers wrap (two's complement)."""

    name = "tile.add"


@irdl_op_definition
class SubOp(_BinaryOp):
    """`lhs - rhs`; integers wrap."""

    name = "tile.sub"


@irdl_op_definition
class MulOp(_BinaryOp):
    """`lhs * rhs`; integers wrap."""

    name = "tile.mul"


@irdl_op_definition
class DivOp(_BinaryOp):
    """`lhs / rhs`, IEEE true division (floats only)."""

    name = "tile.div"
    FLOATS_ONLY: ClassVar[bool] = True


@irdl_op_definition
class MaximumOp(_BinaryOp):
    """Elementwise maximum; NaN if either is NaN (as `arith.maximumf`); integers signed."""

    name = "tile.maximum"


@irdl_op_definition
class MinimumOp(_BinaryOp):
    """Elementwise minimum; NaN if either is NaN (as `arith.minimumf`); integers signed."""

    name = "tile.minimum"


@irdl_op_definition
class FmaOp(IRDLOperation):
    """`tile.fma %a, %b, %c : T`: `a * b + c` rounded once (floats only; PTX `fma.rn`)."""

    name = "tile.fma"

    T: ClassVar = tile_var()

    a = operand_def(T)
    b = operand_def(T)
    c = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = "$a `,` $b `,` $c attr-dict `:` type($result)"

    def __init__(self, a: SSAValue, b: SSAValue, c: SSAValue):
        super().__init__(operands=[a, b, c], result_types=[a.type])

    def verify_(self) -> None:
        check_same_type(
            self, [self.a, self.b, self.c, self.result], "operands and result", _BROADCAST_HINT
        )
        check_numeric(self, self.result.type, True)


class _UnaryOp(IRDLOperation):
    T: ClassVar = tile_var()

    input = operand_def(T)
    result = result_def(T)

    FLOATS_ONLY: ClassVar[bool] = True
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($result)"

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])

    def verify_(self) -> None:
        check_same_type(self, [self.input, self.result], "operand and result")
        check_numeric(self, self.result.type, self.FLOATS_ONLY)


@irdl_op_definition
class NegOp(_UnaryOp):
    """`-x`; integers wrap."""

    name = "tile.neg"
    FLOATS_ONLY: ClassVar[bool] = False


@irdl_op_definition
class ExpOp(_UnaryOp):
    """`e ** x`."""

    name = "tile.exp"


@irdl_op_definition
class Exp2Op(_UnaryOp):
    """`2 ** x`. With the unit attribute `ftz` (`tile.exp2 %x {ftz}`), an explicit opt-in:
    results below 2^-126 (f32's smallest normal) are +0 instead of subnormal, which lets the GPU
    take `ex2.approx.ftz.f32` alone (without, ptxas wraps each `ex2` in a compare and two
    multiplies that keep subnormal results; docs/dialects/tile.md)."""

    name = "tile.exp2"
    ftz = opt_attr_def(UnitAttr)

    FTZ_BELOW: ClassVar[float] = 2.0**-126
    """Results below this are +0 under `ftz`."""

    def __init__(self, input: SSAValue, ftz: bool = False):
        super().__init__(input)
        if ftz:
            self.attributes["ftz"] = UnitAttr()


@irdl_op_definition
class LogOp(_UnaryOp):
    """Natural logarithm; -inf at 0, NaN below."""

    name = "tile.log"


@irdl_op_definition
class SqrtOp(_UnaryOp):
    """Square root; NaN below 0."""

    name = "tile.sqrt"


@irdl_op_definition
class RsqrtOp(_UnaryOp):
    """`1 / sqrt(x)`; +inf at 0."""

    name = "tile.rsqrt"


@irdl_op_definition
class TanhOp(_UnaryOp):
    """Hyperbolic tangent."""

    name = "tile.tanh"


@irdl_op_definition
class CmpOp(IRDLOperation):
    """`tile.cmp lt, %a, %b : T -> !tile.tile<i1, S>`: an elementwise compare.

    Floats: ordered compares (false when either side is NaN), except `ne` (true then), as
    IEEE 754 and NumPy. Integers: signed.
    """

    name = "tile.cmp"

    T: ClassVar = tile_var()

    predicate = prop_def(CmpPredicateAttr)
    lhs = operand_def(T)
    rhs = operand_def(T)
    result = result_def(TileType)

    traits = traits_def(Pure())
    assembly_format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)"

    def __init__(self, predicate: CmpPredicate, lhs: SSAValue, rhs: SSAValue):
        t = lhs.type
        assert isinstance(t, TileType)
        super().__init__(
            operands=[lhs, rhs],
            properties={"predicate": CmpPredicateAttr(predicate)},
            result_types=[TileType(i1, t.get_shape())],
        )

    def verify_(self) -> None:
        check_same_type(self, [self.lhs, self.rhs], "operands", _BROADCAST_HINT)
        t = self.lhs.type
        assert isinstance(t, TileType)
        expected = TileType(i1, t.get_shape())
        if self.result.type != expected:
            raise VerifyException(f"cmp result must be {expected}, found {self.result.type}")


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`tile.select %c, %a, %b : !tile.tile<i1, S>, T`: %a where %c is true, else %b."""

    name = "tile.select"

    T: ClassVar = tile_var()

    cond = operand_def(TileType)
    true_value = operand_def(T)
    false_value = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = (
        "$cond `,` $true_value `,` $false_value attr-dict `:` type($cond) `,` type($result)"
    )

    def __init__(self, cond: SSAValue, true_value: SSAValue, false_value: SSAValue):
        super().__init__(operands=[cond, true_value, false_value], result_types=[true_value.type])

    def verify_(self) -> None:
        check_same_type(self, [self.true_value, self.false_value, self.result], "values and result")
        t = self.result.type
        assert isinstance(t, TileType)
        expected = TileType(i1, t.get_shape())
        if self.cond.type != expected:
            raise VerifyException(f"select condition must be {expected}, found {self.cond.type}")


@irdl_op_definition
class AsTypeOp(IRDLOperation):
    """`tile.astype %x : !tile.tile<f32, S> -> !tile.tile<bf16, S>`: convert each element.

    float->float and int->float round to nearest even; float->int rounds toward zero,
    saturates at the integer's range, NaN gives 0; int->int truncates or sign-extends;
    i1 is unsigned (0 or 1); x->i1 is `x != 0`.
    """

    name = "tile.astype"

    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, element_type: Attribute):
        t = input.type
        assert isinstance(t, TileType)
        super().__init__(operands=[input], result_types=[TileType(element_type, t.get_shape())])

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.get_shape() != dst.get_shape():
            raise VerifyException(
                f"astype changes only the element type, but the shape changes from "
                f"{shape_str(src.get_shape())} to {shape_str(dst.get_shape())}"
            )
