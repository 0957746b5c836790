"""Global memory: `tile.dim`, `tile.load`, `tile.load_like` and `tile.store`.

Loads read shared input tensors and never fault: an element outside the tensor reads as the
op's padding value. A store has no index, so a kernel can write only its own output tile; the
elements of that tile that fall outside the tensor (a ragged edge) are not written.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import HasAncestor, MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.attributes import FLOAT_ONLY_PADDINGS, Padding, PaddingAttr
from ferrox.dialects.tile.kernel import KernelOp
from ferrox.dialects.tile.types import PartitionType, TileTensorType, TileType, is_float

ZERO_PADDING = PaddingAttr(Padding.ZERO)


def _input_tensor(op: str, t: Attribute) -> TileTensorType:
    if isinstance(t, PartitionType):
        raise VerifyException(
            f"{op} reads an input tensor (!tile.tensor), found output partition {t}; "
            "a kernel does not read its outputs"
        )
    if not isinstance(t, TileTensorType):
        raise VerifyException(f"{op} reads an input tensor (!tile.tensor), found {t}")
    return t


def _check_padding(padding: PaddingAttr, element: Attribute) -> None:
    if padding.data in FLOAT_ONLY_PADDINGS and not is_float(element):
        raise VerifyException(
            f"padding {padding.data.value} needs a float element type, found {element}"
        )


@irdl_op_definition
class DimOp(IRDLOperation):
    """`tile.dim %x, 1 : !tile.tensor<..>`: a tensor's size along an axis, known at launch.

    On an output partition it is the size of the whole partitioned tensor, not of the tile.
    """

    name = "tile.dim"

    source = operand_def()
    axis = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    traits = traits_def(Pure())
    assembly_format = "$source `,` $axis attr-dict `:` type($source)"

    def __init__(self, source: SSAValue, axis: int):
        super().__init__(
            operands=[source],
            properties={"axis": IntegerAttr(axis, 64)},
            result_types=[IndexType()],
        )

    def verify_(self) -> None:
        t = self.source.type
        if not isinstance(t, TileTensorType | PartitionType):
            raise VerifyException(f"tile.dim takes a tensor or an output partition, found {t}")
        axis = self.axis.value.data
        if not 0 <= axis < t.rank:
            raise VerifyException(f"dim axis {axis} is out of range for rank {t.rank}")


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`tile.load %x[%i, %j] : !tile.tensor<..> -> !tile.tile<..>`: one tile of a tiled input.

    The tensor is viewed as a grid of tiles of the result's shape; element e of the tile at
    index i is x[i * shape + e], or the padding value where that lies outside the tensor.
    """

    name = "tile.load"

    source = operand_def()
    indices = var_operand_def(IndexType)
    padding = opt_prop_def(PaddingAttr, default_value=ZERO_PADDING)
    result = result_def(TileType)

    traits = traits_def(MemoryReadEffect())
    assembly_format = (
        "$source `[` $indices `]` (`padding` `=` $padding^)? attr-dict "
        "`:` type($source) `->` type($result)"
    )

    def __init__(
        self,
        source: SSAValue,
        indices: Sequence[SSAValue],
        result_type: TileType,
        padding: Padding = Padding.ZERO,
    ):
        super().__init__(
            operands=[source, indices],
            properties={"padding": PaddingAttr(padding)},
            result_types=[result_type],
        )

    def verify_(self) -> None:
        tensor = _input_tensor("tile.load", self.source.type)
        tile = self.result.type
        assert isinstance(tile, TileType)
        if len(self.indices) != tensor.rank:
            raise VerifyException(
                f"load index rank {len(self.indices)} does not match tensor rank {tensor.rank}"
            )
        if tile.rank != tensor.rank:
            raise VerifyException(
                f"load tile rank {tile.rank} does not match tensor rank {tensor.rank}"
            )
        if tile.element_type != tensor.element_type:
            raise VerifyException(
                f"load result element type {tile.element_type} does not match tensor element "
                f"type {tensor.element_type}"
            )
        _check_padding(self.padding, tile.element_type)


@irdl_op_definition
class LoadLikeOp(IRDLOperation):
    """`tile.load_like %x, %out : ..`: the tile of %x at the position and shape of %out's tile.

    Equal to `tile.load %x[block_id 0, .., block_id r-1]` with %out's tile shape.
    """

    name = "tile.load_like"

    source = operand_def()
    like = operand_def()
    padding = opt_prop_def(PaddingAttr, default_value=ZERO_PADDING)
    result = result_def(TileType)

    traits = traits_def(MemoryReadEffect(), HasAncestor(KernelOp))
    assembly_format = (
        "$source `,` $like (`padding` `=` $padding^)? attr-dict "
        "`:` type($source) `,` type($like) `->` type($result)"
    )

    def __init__(self, source: SSAValue, like: SSAValue, padding: Padding = Padding.ZERO):
        src, part = source.type, like.type
        assert isinstance(src, TileTensorType) and isinstance(part, PartitionType)
        super().__init__(
            operands=[source, like],
            properties={"padding": PaddingAttr(padding)},
            result_types=[TileType(src.element_type, part.get_shape())],
        )

    def verify_(self) -> None:
        tensor = _input_tensor("tile.load_like", self.source.type)
        part = self.like.type
        if not isinstance(part, PartitionType):
            raise VerifyException(
                f"tile.load_like takes its tile from an output partition (!tile.partition), "
                f"found {part}"
            )
        if part.rank != tensor.rank:
            raise VerifyException(
                f"load_like tensor rank {tensor.rank} does not match partition rank {part.rank}"
            )
        expected = TileType(tensor.element_type, part.get_shape())
        if self.result.type != expected:
            raise VerifyException(f"load_like result must be {expected}, found {self.result.type}")
        _check_padding(self.padding, tensor.element_type)


@irdl_op_definition
class StoreOp(IRDLOperation):
    """`tile.store %t, %out : !tile.tile<..>, !tile.partition<..>`: write the kernel's own tile.

    Elements of the tile that fall outside the tensor are not written (the store is masked).
    """

    name = "tile.store"

    value = operand_def(TileType)
    dest = operand_def()

    traits = traits_def(MemoryWriteEffect(), HasAncestor(KernelOp))
    assembly_format = "$value `,` $dest attr-dict `:` type($value) `,` type($dest)"

    def __init__(self, value: SSAValue, dest: SSAValue):
        super().__init__(operands=[value, dest])

    def verify_(self) -> None:
        dest = self.dest.type
        if isinstance(dest, TileTensorType):
            raise VerifyException(
                f"cannot store to an input tensor ({dest}); "
                "a kernel writes only its own output partition (!tile.partition)"
            )
        if not isinstance(dest, PartitionType):
            raise VerifyException(
                f"tile.store writes an output partition (!tile.partition), found {dest}"
            )
        expected = TileType(dest.element_type, dest.get_shape())
        if self.value.type != expected:
            raise VerifyException(
                f"stored tile {self.value.type} does not match the partition's tile {expected}"
            )
