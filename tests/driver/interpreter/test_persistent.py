"""A persistent tile loop (`simt.tile_schedule`, docs/safety.md#simt-1-persistent) on the interpreter: every
tile written once, by block `t mod nctaid.x` (of y = z = 0), for grids smaller than, equal to and
larger than the tile count, ragged tensors included; the witness names the loop's tile, not the
block's ids."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

SPACE = "tile<[4, 8], 4, arg1, persistent>"

# Each thread writes its block's linear id (as f32) into its chunk of every tile the loop gives
# it: the output shows which block wrote each tile.
KERNEL = f"""
builtin.module {{
  simt.kernel @owner(%out: !simt.disjoint_slice<f32, {SPACE}>, %m: index, %n: index)
      contract<domain = 1, block = [8]> {{
    %k = arith.constant 0 : index
    %bx = simt.block_id x
    %by = simt.block_id y
    %gx = simt.grid_dim x
    %row = arith.muli %by, %gx : index
    %lin = arith.addi %row, %bx : index
    %i = arith.index_cast %lin : index to i64
    %v = arith.uitofp %i : i64 to f32
    %first, %count, %step = simt.tile_schedule dims(%m, %n) <{SPACE}>
    scf.for %t = %first to %count step %step {{
      %w = simt.tile_index %k dims(%m, %n) tile(%t) : !simt.thread_index<{SPACE}>
      simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, {SPACE}>, !simt.thread_index<{SPACE}>
    }}
    simt.return
  }}
}}
"""


def expected_owner(m: int, n: int, blocks: int) -> np.ndarray:
    """Tile `t = b0 + n0 b1` (axis 0 fastest) belongs to block `x = t mod blocks` (of y = 0;
    the linear id the kernel writes is x there)."""
    n0, n1 = -(-m // 4), -(-n // 8)
    out = np.empty((m, n), np.float32)
    for b1 in range(n1):
        for b0 in range(n0):
            t = b0 + n0 * b1
            out[b0 * 4 : (b0 + 1) * 4, b1 * 8 : (b1 + 1) * 8] = t % blocks
    return out


@pytest.mark.parametrize(
    "m, n, grid",
    [
        (16, 24, (3, 1, 1)),  # 12 tiles on 3 blocks: 4 rounds each
        (13, 21, (5, 1, 1)),  # ragged: 12 tiles on 5 blocks, an uneven last round
        (8, 8, (7, 1, 1)),  # more blocks than tiles: the extra blocks do nothing
        (12, 17, (2, 2, 1)),  # a 2-D grid: the blocks at y = 0 run every tile, those at y = 1 none
        (5, 3, (1, 1, 1)),  # one block writes everything
    ],
)
def test_every_tile_once_by_its_block(m, n, grid):
    module = parse_module(make_context(), KERNEL, "persistent.mlir")
    out = np.full(m * n, np.nan, np.float32)
    run_simt_kernel(module, "owner", grid, (8, 1, 1), [out, m, n])
    np.testing.assert_array_equal(out.reshape(m, n), expected_owner(m, n, grid[0]))


def test_empty_tensor_runs_no_tile():
    module = parse_module(make_context(), KERNEL, "persistent.mlir")
    out = np.full(0, np.nan, np.float32)
    run_simt_kernel(module, "owner", (3, 1, 1), (8, 1, 1), [out, 0, 5])
