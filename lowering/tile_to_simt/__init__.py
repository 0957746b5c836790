"""`convert-tile-to-simt`: tile kernels to SIMT kernels (one CUDA block per tile block).

`layout` is how a tile's elements sit in a block's threads, `assign` picks each value's layout,
`exchange` changes layouts; one module per tile op family (`kernel`, `grid`, `memory`,
`elementwise`, `creation`, `shape`, `reduction`, `matrix`) lowers its ops, `control_flow` the
scf ops and scalar code; `convert` is the pass.
"""

from ferrox.lowering.tile_to_simt.convert import (
    ConvertTileToSimtPass,
    convert_tile_to_simt,
    lower_kernel,
)
from ferrox.lowering.tile_to_simt.kernel import (
    GRID_ATTR,
    GRID_ORDER_KEY,
    GRID_PERSISTENT_KEY,
    GRID_REVERSE_KEY,
    LOWERING_ATTR,
    PARAMS_ATTR,
)

__all__ = [
    "GRID_ATTR",
    "GRID_ORDER_KEY",
    "GRID_REVERSE_KEY",
    "GRID_PERSISTENT_KEY",
    "LOWERING_ATTR",
    "PARAMS_ATTR",
    "ConvertTileToSimtPass",
    "convert_tile_to_simt",
    "lower_kernel",
]
