"""The tile track's host side: partition a tensor, launch a tile kernel over it, take it back.

`host.partition` consumes a tensor and hands each tile block exclusive ownership of one tile;
the partition's grid (ceil-division of shape by tile) is the tile launch's grid.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, SymbolRefAttr
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.host.launch import INS_OUTS, verify_launch
from ferrox.dialects.host.types import PartitionType, StreamType, TensorType, format_dims


def _verify_same_tensor(tensor: TensorType, partition: PartitionType) -> None:
    if tensor.element_type != partition.element_type or tensor.get_shape() != partition.get_shape():
        raise VerifyException(
            f"partition {partition} does not cover tensor {tensor}: "
            "element type and shape must match"
        )


@irdl_op_definition
class PartitionOp(IRDLOperation):
    """`%p = host.partition %t : !host.tensor<f32, [1024]> -> !host.partition<f32, [1024], [128]>`.

    Moves `%t`. At run time this is a view: no data is copied.
    """

    name = "host.partition"
    source = operand_def(TensorType)
    result = result_def(PartitionType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def verify_(self) -> None:
        assert isinstance(self.source.type, TensorType)
        assert isinstance(self.result.type, PartitionType)
        _verify_same_tensor(self.source.type, self.result.type)


@irdl_op_definition
class UnpartitionOp(IRDLOperation):
    """`%t = host.unpartition %p : !host.partition<..> -> !host.tensor<..>`: moves `%p` back."""

    name = "host.unpartition"
    source = operand_def(PartitionType)
    result = result_def(TensorType)
    assembly_format = "$source attr-dict `:` type($source) `->` type($result)"

    def verify_(self) -> None:
        assert isinstance(self.source.type, PartitionType)
        assert isinstance(self.result.type, TensorType)
        _verify_same_tensor(self.result.type, self.source.type)


@irdl_op_definition
class TileLaunchOp(IRDLOperation):
    """`%pz2 = host.tile_launch @k on %s ins(%x : T) outs(%pz : P) -> P`: run a tile kernel.

    The grid is the output partitions' grid (they must agree; `?` dimensions are checked at launch),
    one tile block per tile. `ins` are borrowed; the partitions are moved in and given back.
    """

    name = "host.tile_launch"
    kernel = prop_def(SymbolRefAttr)
    stream = operand_def(StreamType())
    ins = var_operand_def()
    outs = var_operand_def(PartitionType)
    new_outs = var_result_def(PartitionType)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = f"$kernel {INS_OUTS}"

    def verify_(self) -> None:
        if not self.outs:
            raise VerifyException("a tile launch needs an output partition to take its grid from")
        grids = [o.type.grid() for o in self.outs]  # type: ignore[attr-defined]
        first = grids[0]
        for i, grid in enumerate(grids[1:], start=1):
            if len(grid) != len(first) or any(
                a is not None and b is not None and a != b for a, b in zip(grid, first)
            ):
                raise VerifyException(
                    f"output partitions disagree on the grid: outs operand #0 has "
                    f"{_grid(first)} tiles, outs operand #{i} has {_grid(grid)}"
                )
        verify_launch(self, self.ins, self.outs)


def grid_of(op: TileLaunchOp) -> tuple[int | None, ...]:
    """The launch grid known statically (`None` where a dimension is `?`)."""
    grids = [o.type.grid() for o in op.outs]  # type: ignore[attr-defined]
    rank = len(grids[0])
    return tuple(next((g[d] for g in grids if g[d] is not None), None) for d in range(rank))


def _grid(grid: tuple[int | None, ...]) -> str:
    return format_dims([DYNAMIC_INDEX if g is None else g for g in grid])
