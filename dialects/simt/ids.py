"""Thread, block and grid ids and dimensions, as `index` (the CUDA special registers).

Reading them is harmless, so they are allowed anywhere; they are what unsafe code (shared-memory
tiles, raw pointers) indexes with. Writing a global output still needs a witness.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects.builtin import IndexType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Operation, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure
from xdsl.utils.str_enum import StrEnum


class Dimension(StrEnum):
    X = auto()
    Y = auto()
    Z = auto()


@irdl_attr_definition
class DimensionAttr(EnumAttribute[Dimension], SpacedOpaqueSyntaxAttribute):
    """`x`, `y` or `z` (generic form `#simt<dim x>`)."""

    name = "simt.dim"


class _DimOp(IRDLOperation):
    dimension = prop_def(DimensionAttr)
    result = result_def(IndexType())

    traits = traits_def(Pure())

    assembly_format = "$dimension attr-dict"

    def __init__(self, dimension: Dimension | str):
        # (`Operation.__init__`, as `create`: no IRDL builder; attributes made once)
        Operation.__init__(
            self, properties={"dimension": _DIMENSIONS[Dimension(dimension)]}, result_types=_INDEX
        )


_DIMENSIONS = {d: DimensionAttr(d) for d in Dimension}
_INDEX = (IndexType(),)


@irdl_op_definition
class ThreadIdOp(_DimOp):
    """`simt.thread_id x`: threadIdx.x."""

    name = "simt.thread_id"


@irdl_op_definition
class BlockIdOp(_DimOp):
    """`simt.block_id x`: blockIdx.x."""

    name = "simt.block_id"


@irdl_op_definition
class BlockDimOp(_DimOp):
    """`simt.block_dim x`: blockDim.x."""

    name = "simt.block_dim"


@irdl_op_definition
class GridDimOp(_DimOp):
    """`simt.grid_dim x`: gridDim.x."""

    name = "simt.grid_dim"


@irdl_op_definition
class LaneIdOp(IRDLOperation):
    """`simt.lane_id`: this thread's lane in its warp, 0 to 31."""

    name = "simt.lane_id"

    result = result_def(IndexType())

    traits = traits_def(Pure())

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[IndexType()])
