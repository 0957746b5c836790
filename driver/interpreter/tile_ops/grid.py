"""Grid queries (dialects/tile/grid.py): the running tile block's index and the grid's size,
along one axis."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import tile
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


@register_impls
class TileGridFunctions(InterpreterFunctions):
    @impl(tile.BlockIdOp)
    def run_block_id(self, interp: TileInterpreter, op: tile.BlockIdOp, args: PythonValues):
        return (interp.tile_block[op.axis.value.data],)

    @impl(tile.NumBlocksOp)
    def run_num_blocks(self, interp: TileInterpreter, op: tile.NumBlocksOp, args: PythonValues):
        return (interp.tile_grid[op.axis.value.data],)
