"""`tile.mma`: matrix multiply-accumulate on tiles, the op tensor cores run.

Operands follow cuTile's `mma(x, y, acc)`: the result is `acc + x @ y` with x [M, K], y [K, N]
and acc [M, N], all logical row-major tiles (how they sit in registers is the lowering's
choice). Inputs are f16, bf16 or f32 (the same type for both); the accumulator is f32.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.constraints import check_same_type, tile_var
from ferrox.dialects.tile.types import TileType, shape_str

MMA_INPUTS = (Float16Type, BFloat16Type, Float32Type)


@irdl_op_definition
class MmaOp(IRDLOperation):
    """`tile.mma %x, %y, %acc : X, Y, ACC`: acc + x @ y for x [M, K], y [K, N], acc [M, N].

    Each product x[m, k] * y[k, n] is exact in f32 and the sums are f32 (the order of the K
    accumulation is unspecified); f32 inputs are not rounded to tf32.
    """

    name = "tile.mma"

    T: ClassVar = tile_var()

    lhs = operand_def(TileType)
    rhs = operand_def(TileType)
    acc = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())
    assembly_format = (
        "$lhs `,` $rhs `,` $acc attr-dict `:` type($lhs) `,` type($rhs) `,` type($acc)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue, acc: SSAValue):
        super().__init__(operands=[lhs, rhs, acc], result_types=[acc.type])

    def verify_(self) -> None:
        check_same_type(self, [self.acc, self.result], "accumulator and result")
        x, y, acc = self.lhs.type, self.rhs.type, self.acc.type
        assert isinstance(x, TileType) and isinstance(y, TileType) and isinstance(acc, TileType)
        for role, t in (("x", x), ("y", y), ("accumulator", acc)):
            if t.rank != 2:
                raise VerifyException(
                    f"mma {role} must be a rank-2 tile, found {shape_str(t.get_shape())}"
                )
        if not isinstance(x.element_type, MMA_INPUTS):
            raise VerifyException(f"mma inputs must be f16, bf16 or f32, found {x.element_type}")
        if x.element_type != y.element_type:
            raise VerifyException(
                "mma inputs must have the same element type, "
                f"found {x.element_type} and {y.element_type}"
            )
        if not isinstance(acc.element_type, Float32Type):
            raise VerifyException(f"mma accumulator must be f32, found {acc.element_type}")
        (m, k), (k2, n) = x.get_shape(), y.get_shape()
        if k != k2:
            raise VerifyException(
                f"mma inner dimensions do not match: x is {shape_str(x.get_shape())}, "
                f"y is {shape_str(y.get_shape())}"
            )
        if acc.get_shape() != (m, n):
            raise VerifyException(
                f"mma accumulator must be {shape_str((m, n))} for x {shape_str(x.get_shape())} "
                f"and y {shape_str(y.get_shape())}, found {shape_str(acc.get_shape())}"
            )
