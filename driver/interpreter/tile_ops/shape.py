"""Shape ops: `broadcast`, `reshape`, `transpose`, `permute` (NumPy's own, on whole tiles).

Results may be NumPy views of their source: tiles are immutable, so nothing can tell.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import tile
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


def _shape(op) -> tuple[int, ...]:
    return op.result.type.get_shape()


@register_impls
class TileShapeFunctions(InterpreterFunctions):
    @impl(tile.BroadcastOp)
    def run_broadcast(self, interp: TileInterpreter, op: tile.BroadcastOp, args: PythonValues):
        return (np.broadcast_to(args[0], _shape(op)),)

    @impl(tile.ReshapeOp)
    def run_reshape(self, interp: TileInterpreter, op: tile.ReshapeOp, args: PythonValues):
        return (np.reshape(args[0], _shape(op)),)  # row-major, NumPy's default order

    @impl(tile.TransposeOp)
    def run_transpose(self, interp: TileInterpreter, op: tile.TransposeOp, args: PythonValues):
        return (np.transpose(args[0]),)

    @impl(tile.PermuteOp)
    def run_permute(self, interp: TileInterpreter, op: tile.PermuteOp, args: PythonValues):
        return (np.transpose(args[0], op.perm),)
