"""`tile.return` (dialects/tile/kernel.py): a tile block ends; its results are its stores.
`tile_kernel.run_tile_kernel` runs the kernel itself, block by block."""

from __future__ import annotations

from xdsl.interpreter import (
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl_terminator,
    register_impls,
)

from ferrox.dialects import tile
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


@register_impls
class TileKernelFunctions(InterpreterFunctions):
    @impl_terminator(tile.ReturnOp)
    def run_return(self, interp: TileInterpreter, op: tile.ReturnOp, args: PythonValues):
        return ReturnedValues(()), ()
