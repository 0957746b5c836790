"""The tile dialect's ops on NumPy, one module per op family (mirroring `dialects/tile/`).

`tile_kernel.run_tile_kernel` is the entry point; `dtypes` says how element types are held.
"""

from ferrox.driver.interpreter.tile_ops.creation import TileCreationFunctions
from ferrox.driver.interpreter.tile_ops.elementwise import TileElementwiseFunctions
from ferrox.driver.interpreter.tile_ops.grid import TileGridFunctions
from ferrox.driver.interpreter.tile_ops.kernel import TileKernelFunctions
from ferrox.driver.interpreter.tile_ops.matrix import TileMatrixFunctions
from ferrox.driver.interpreter.tile_ops.memory import TileMemoryFunctions
from ferrox.driver.interpreter.tile_ops.reduction import TileReductionFunctions
from ferrox.driver.interpreter.tile_ops.shape import TileShapeFunctions

TILE_FUNCTIONS = (
    TileKernelFunctions,
    TileGridFunctions,
    TileMemoryFunctions,
    TileElementwiseFunctions,
    TileCreationFunctions,
    TileShapeFunctions,
    TileReductionFunctions,
    TileMatrixFunctions,
)

__all__ = ["TILE_FUNCTIONS"]
