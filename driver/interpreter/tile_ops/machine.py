"""The interpreter one tile block runs on.

A tile block is one logical thread, so this is the SIMT interpreter's machine (xDSL's
`Interpreter` with a planned region loop and located traps) holding a block index instead of a
thread: scalar `arith`, `math` and `scf` run on the same implementations as SIMT kernels, so a
loop bound or an index is computed exactly as in the SIMT track.
"""

from __future__ import annotations

from ferrox.driver.interpreter.machine import Program, SimtInterpreter


class TileInterpreter(SimtInterpreter):
    """Runs a `tile.kernel` body for one block index at a time (`tile_block`, `tile_grid`)."""

    def __init__(self, program: Program, grid: tuple[int, ...]):
        super().__init__(program)
        self.tile_grid = grid
        self.tile_block: tuple[int, ...] = (0,) * len(grid)

    def where(self):
        return self.tile_block, None
