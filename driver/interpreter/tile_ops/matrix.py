"""`tile.mma`: acc + x @ y with the inputs widened exactly to float32 and float32 sums.

The products and sums are NumPy's float32 matmul (its BLAS's order, possibly with fused
multiply-adds); the GPU's order differs, so compare with a tolerance. f32 inputs are not
rounded to tf32.
"""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import tile
from ferrox.driver.interpreter.tile_ops.dtypes import F32
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


@register_impls
class TileMatrixFunctions(InterpreterFunctions):
    @impl(tile.MmaOp)
    def run_mma(self, interp: TileInterpreter, op: tile.MmaOp, args: PythonValues):
        x, y, acc = args
        return (np.asarray(acc + np.matmul(x.astype(F32), y.astype(F32)), dtype=F32),)
