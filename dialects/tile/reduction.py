"""Reductions along one axis: `tile.reduce_sum`, `_prod`, `_max`, `_min`.

The reduced axis is dropped (cutile-rs and cuTile Python's default); with `keepdims` it stays
as a dimension of 1, ready for `tile.broadcast` back over the source shape.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IntegerAttr, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.elementwise import check_numeric
from ferrox.dialects.tile.types import TileType, shape_str


def reduced_shape(shape: tuple[int, ...], axis: int, keepdims: bool) -> tuple[int, ...]:
    if keepdims:
        return shape[:axis] + (1,) + shape[axis + 1 :]
    return shape[:axis] + shape[axis + 1 :]


class _ReduceOp(IRDLOperation):
    input = operand_def(TileType)
    axis = prop_def(IntegerAttr[I64])
    keepdims = opt_prop_def(UnitAttr)
    result = result_def(TileType)

    traits = traits_def(Pure())
    assembly_format = (
        "$input `axis` `=` $axis (`keepdims` $keepdims^)? attr-dict "
        "`:` type($input) `->` type($result)"
    )

    def __init__(self, input: SSAValue, axis: int, keepdims: bool = False):
        t = input.type
        assert isinstance(t, TileType)
        props: dict[str, Attribute] = {"axis": IntegerAttr(axis, 64)}
        if keepdims:
            props["keepdims"] = UnitAttr()
        super().__init__(
            operands=[input],
            properties=props,
            result_types=[TileType(t.element_type, reduced_shape(t.get_shape(), axis, keepdims))],
        )

    @property
    def keeps_dims(self) -> bool:
        return self.keepdims is not None

    def verify_(self) -> None:
        src = self.input.type
        assert isinstance(src, TileType)
        check_numeric(self, src, floats_only=False)
        axis = self.axis.value.data
        if not 0 <= axis < src.rank:
            raise VerifyException(f"reduce axis {axis} is out of range for rank {src.rank}")
        shape = reduced_shape(src.get_shape(), axis, self.keeps_dims)
        expected = TileType(src.element_type, shape)
        if self.result.type != expected:
            raise VerifyException(
                f"{self.name} of {shape_str(src.get_shape())} along axis {axis} is {expected}, "
                f"found {self.result.type}"
            )


@irdl_op_definition
class ReduceSumOp(_ReduceOp):
    """Sum along the axis (identity 0); float order of accumulation is unspecified."""

    name = "tile.reduce_sum"


@irdl_op_definition
class ReduceProdOp(_ReduceOp):
    """Product along the axis (identity 1)."""

    name = "tile.reduce_prod"


@irdl_op_definition
class ReduceMaxOp(_ReduceOp):
    """Maximum along the axis (identity -inf, or the smallest integer); NaN propagates."""

    name = "tile.reduce_max"


@irdl_op_definition
class ReduceMinOp(_ReduceOp):
    """Minimum along the axis (identity +inf, or the largest integer); NaN propagates."""

    name = "tile.reduce_min"
