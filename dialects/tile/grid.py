"""Where a tile block sits in the launch grid: `tile.block_id` and `tile.num_blocks`.

Grid axis d is dimension d of the first output partition's tile grid (ceil-div of the tensor by
the tile), so a kernel over a rank-r partition may ask only for axes 0 .. r-1.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I64, IndexType, IntegerAttr
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def, result_def, traits_def
from xdsl.traits import HasAncestor, Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.tile.kernel import KernelOp, enclosing_kernel


class _GridQueryOp(IRDLOperation):
    axis = prop_def(IntegerAttr[I64])
    result = result_def(IndexType)

    traits = traits_def(Pure(), HasAncestor(KernelOp))
    assembly_format = "$axis attr-dict"

    def __init__(self, axis: int):
        super().__init__(properties={"axis": IntegerAttr(axis, 64)}, result_types=[IndexType()])

    def verify_(self) -> None:
        axis = self.axis.value.data
        if axis not in (0, 1, 2):
            raise VerifyException(f"grid axis must be 0, 1 or 2, found {axis}")
        kernel = enclosing_kernel(self)
        if kernel is not None and kernel.partitions and axis >= kernel.grid_rank:
            raise VerifyException(
                f"grid axis {axis} is out of range: @{kernel.sym_name.data} has a "
                f"{kernel.grid_rank}-d grid (the rank of its first output partition)"
            )


@irdl_op_definition
class BlockIdOp(_GridQueryOp):
    """`tile.block_id 0`: this tile block's index along a grid axis, in [0, num_blocks)."""

    name = "tile.block_id"


@irdl_op_definition
class NumBlocksOp(_GridQueryOp):
    """`tile.num_blocks 0`: the number of tile blocks along a grid axis."""

    name = "tile.num_blocks"
