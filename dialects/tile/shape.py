"""Shape ops: `tile.broadcast`, `tile.reshape`, `tile.transpose`, `tile.permute`.

All are explicit and keep the element type; each checks that the result shape follows from the
source shape, so a shape mistake is reported where it is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.dialects.builtin import DenseArrayBase, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.types import TileType, shape_str


def broadcast_error(src: Sequence[int], dst: Sequence[int]) -> str | None:
    """NumPy's rule, made explicit: align on the right, each source dim equal or 1."""
    ok = len(src) <= len(dst) and all(s in (d, 1) for s, d in zip(reversed(src), reversed(dst)))
    return None if ok else f"cannot broadcast {shape_str(src)} to {shape_str(dst)}"


class _ShapeOp(IRDLOperation):
    input = operand_def(TileType)
    result = result_def(TileType)

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, result_type: TileType):
        super().__init__(operands=[input], result_types=[result_type])

    def types(self) -> tuple[TileType, TileType]:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        if src.element_type != dst.element_type:
            raise VerifyException(
                f"{self.name} keeps the element type, but it changes from {src.element_type} "
                f"to {dst.element_type} (use tile.astype)"
            )
        return src, dst


@irdl_op_definition
class BroadcastOp(_ShapeOp):
    """`tile.broadcast %x : !tile.tile<f32, [1, 16]> -> !tile.tile<f32, [8, 16]>`.

    NumPy broadcasting: dims align on the right, each source dim equals the result dim or is 1
    (repeated), and the result may add leading dims.
    """

    name = "tile.broadcast"

    def verify_(self) -> None:
        src, dst = self.types()
        problem = broadcast_error(src.get_shape(), dst.get_shape())
        if problem is not None:
            raise VerifyException(problem)


@irdl_op_definition
class ReshapeOp(_ShapeOp):
    """`tile.reshape %x : !tile.tile<f32, [16]> -> !tile.tile<f32, [16, 1]>`, row-major order."""

    name = "tile.reshape"

    def verify_(self) -> None:
        src, dst = self.types()
        n, m = prod(src.get_shape()), prod(dst.get_shape())
        if n != m:
            raise VerifyException(
                f"cannot reshape {shape_str(src.get_shape())} ({n} elements) to "
                f"{shape_str(dst.get_shape())} ({m} elements)"
            )


@irdl_op_definition
class TransposeOp(_ShapeOp):
    """`tile.transpose %x : !tile.tile<f32, [M, N]> -> !tile.tile<f32, [N, M]>`:
    r[j, i] = x[i, j]."""

    name = "tile.transpose"

    def verify_(self) -> None:
        src, dst = self.types()
        if src.rank != 2:
            raise VerifyException(
                f"tile.transpose needs a rank-2 tile, found {shape_str(src.get_shape())} "
                "(use tile.permute)"
            )
        expected = tuple(reversed(src.get_shape()))
        if dst.get_shape() != expected:
            raise VerifyException(
                f"transpose of {shape_str(src.get_shape())} is {shape_str(expected)}, "
                f"found {shape_str(dst.get_shape())}"
            )


@irdl_op_definition
class PermuteOp(IRDLOperation):
    """`tile.permute %x [2, 0, 1] : A -> B`: result axis i is input axis perm[i] (NumPy
    transpose)."""

    name = "tile.permute"

    input = operand_def(TileType)
    permutation = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TileType)

    traits = traits_def(Pure())
    assembly_format = "$input $permutation attr-dict `:` type($input) `->` type($result)"

    def __init__(self, input: SSAValue, permutation: Sequence[int]):
        t = input.type
        assert isinstance(t, TileType)
        shape = t.get_shape()
        super().__init__(
            operands=[input],
            properties={"permutation": DenseArrayBase.from_list(i64, permutation)},
            result_types=[TileType(t.element_type, [shape[p] for p in permutation])],
        )

    @property
    def perm(self) -> tuple[int, ...]:
        return tuple(self.permutation.get_values())

    def verify_(self) -> None:
        src, dst = self.input.type, self.result.type
        assert isinstance(src, TileType) and isinstance(dst, TileType)
        perm = self.perm
        if sorted(perm) != list(range(src.rank)):
            raise VerifyException(
                f"{list(perm)} is not a permutation of the {src.rank} axes of "
                f"{shape_str(src.get_shape())}"
            )
        if src.element_type != dst.element_type:
            raise VerifyException(
                f"tile.permute keeps the element type, but it changes from {src.element_type} "
                f"to {dst.element_type} (use tile.astype)"
            )
        shape = src.get_shape()
        expected = tuple(shape[p] for p in perm)
        if dst.get_shape() != expected:
            raise VerifyException(
                f"permute {list(perm)} of {shape_str(shape)} is {shape_str(expected)}, "
                f"found {shape_str(dst.get_shape())}"
            )
