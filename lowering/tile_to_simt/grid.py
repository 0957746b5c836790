"""`tile.block_id` and `tile.num_blocks`: one CUDA block per tile block.

Tile-grid axis `d` is walked by the CUDA grid axis `i` (x, y, z) with `order[i] = d`, the kernel's
`grid_order` (the identity by default: axis d on x, y, z for d = 0, 1, 2), so `tile.block_id d` is
`blockIdx` along that axis. `tile.num_blocks d` is what the tile dialect
says it is, the first partition's tile count `ceildiv(S[d], T[d])`, computed from its dimension
parameters rather than read from `gridDim` (the host launches exactly that grid, `tile.grid`).
"""

from __future__ import annotations

from xdsl.ir import Operation

from ferrox.dialects import tile
from ferrox.lowering.tile_to_simt.context import Lowering
from ferrox.lowering.tile_to_simt.rules import no_results, rule


def axis(op: Operation) -> int:
    return op.axis.value.data  # type: ignore[attr-defined]


@rule(tile.BlockIdOp, infer=no_results)
def lower_block_id(ctx: Lowering, op: tile.BlockIdOp) -> None:
    ctx.bind(op.result, ctx.block_id(axis(op)))


@rule(tile.NumBlocksOp, infer=no_results)
def lower_num_blocks(ctx: Lowering, op: tile.NumBlocksOp) -> None:
    ctx.bind(op.result, ctx.num_blocks(axis(op)))
