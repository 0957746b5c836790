"""A tile space with a grid reversal (`tile<..., reverse [d]>`, issue 13) on the interpreter: the
block whose id along the CUDA axis walking tile axis d is b writes tile n_d - 1 - b (n_d the
tile count, the ragged last tile included, so block 0 writes it), for 1-D, 2-D and 3-D spaces,
alone and with a grid order. Each thread writes its block's ids, folded, into its chunk, so the
output shows which block wrote each tile; a block past the tile count writes nothing; the
launch checker's coverage rule refuses a grid short of a reversed axis's tiles."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ferrox
from ferrox.driver.checker import INTERPRETER_LIMITS, LaunchError, check_launch, numpy_buffer
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

TILES = {1: (8,), 2: (4, 8), 3: (2, 2, 8)}


def space(rank: int, order: tuple[int, ...], reverse: tuple[int, ...]) -> str:
    tile = ", ".join(str(t) for t in TILES[rank])
    extra = ""
    if order != tuple(range(rank)):
        extra += f", order [{', '.join(map(str, order))}]"
    if reverse:
        extra += f", reverse [{', '.join(map(str, reverse))}]"
    return f"tile<[{tile}], 4, arg1{extra}>"


def kernel(rank: int, order: tuple[int, ...], reverse: tuple[int, ...]) -> str:
    """@owner: every thread writes its block's ids folded, x + 100 (y + 100 z), into its chunk."""
    sp = space(rank, order, reverse)
    dims = ", ".join(f"%d{d}: index" for d in range(rank))
    names = ", ".join(f"%d{d}" for d in range(rank))
    return f"""
builtin.module {{
  simt.kernel @owner(%out: !simt.disjoint_slice<f32, {sp}>, {dims})
      contract<domain = {rank}, block = [8]> {{
    %k = arith.constant 0 : index
    %c100 = arith.constant 100 : index
    %bz = simt.block_id z
    %z = arith.muli %bz, %c100 : index
    %by = simt.block_id y
    %zy = arith.addi %z, %by : index
    %zy100 = arith.muli %zy, %c100 : index
    %bx = simt.block_id x
    %lin = arith.addi %zy100, %bx : index
    %i = arith.index_cast %lin : index to i64
    %v = arith.uitofp %i : i64 to f32
    %w = simt.tile_index %k dims({names}) : !simt.thread_index<{sp}>
    simt.store_chunk %out[%w], %v, %v, %v, %v : !simt.disjoint_slice<f32, {sp}>, !simt.thread_index<{sp}>
    simt.return
  }}
}}
"""


def expected_owner(shape, order, reverse) -> np.ndarray:
    """Tile b (tile-grid coordinates) is written by the block whose id on CUDA axis i is
    b[order[i]], or n - 1 - b[order[i]] where that axis is reversed: NumPy's own arithmetic."""
    tiles = TILES[len(shape)]
    counts = [-(-s // t) for s, t in zip(shape, tiles)]
    out = np.empty(shape, np.float32)
    for b in itertools.product(*(range(n) for n in counts)):
        ids = [0, 0, 0]
        for i, d in enumerate(order):
            ids[i] = counts[d] - 1 - b[d] if d in reverse else b[d]
        lin = ids[0] + 100 * (ids[1] + 100 * ids[2])
        out[tuple(slice(bd * t, (bd + 1) * t) for bd, t in zip(b, tiles))] = lin
    return out


def run(shape, order, reverse, grid=None) -> np.ndarray:
    tiles = TILES[len(shape)]
    counts = [-(-s // t) for s, t in zip(shape, tiles)]
    if grid is None:
        launch = [counts[d] for d in order]
        grid = tuple(launch + [1] * (3 - len(launch)))
    module = parse_module(make_context(), kernel(len(shape), order, reverse), "reverse.mlir")
    out = np.full(int(np.prod(shape)), np.nan, np.float32)
    run_simt_kernel(module, "owner", grid, (8, 1, 1), [out, *shape])
    return out.reshape(shape)


CASES = [  # (shape, order, reverse): every tensor ragged on every axis
    ((21,), (0,), (0,)),  # 1-D: 3 tiles of 8, the last 5 wide, written by block 0
    ((13, 21), (0, 1), (1,)),  # 2-D, one axis reversed
    ((13, 21), (0, 1), (0, 1)),  # both
    ((13, 21), (1, 0), (1,)),  # with a grid order: axis 1 on x, walked last first
    ((13, 21), (1, 0), (0,)),  # the order's y axis reversed
    ((5, 3, 17), (0, 1, 2), (2,)),  # 3-D
    ((5, 3, 17), (2, 0, 1), (0, 2)),  # 3-D with a rotation: two reversed axes on y and x
    ((7, 5, 9), (1, 2, 0), (0, 1, 2)),  # every axis reversed
]


@pytest.mark.parametrize("shape, order, reverse", CASES)
def test_every_tile_once_by_its_reversed_block(shape, order, reverse):
    out = run(shape, order, reverse)
    np.testing.assert_array_equal(out, expected_owner(shape, order, reverse))


def test_without_a_reversal_block_b_writes_tile_b():
    """The same kernel unreversed: the expectation's arithmetic is not reversal-blind."""
    shape, order = (13, 21), (1, 0)
    out = run(shape, order, ())
    np.testing.assert_array_equal(out, expected_owner(shape, order, ()))
    assert not np.array_equal(out, expected_owner(shape, order, (1,)))


def test_blocks_past_the_tile_count_write_nothing():
    """A grid larger than the tile count (no checker here): blocks 3 and 4 of a 3-tile reversed
    axis would name tiles -1 and -2 (wrapped); their witnesses are out of bounds, so every tile
    is still written once, by blocks 0 .. 2."""
    out = run((21,), (0,), (0,), grid=(5, 1, 1))
    np.testing.assert_array_equal(out, expected_owner((21,), (0,), (0,)))


def test_a_grid_short_of_a_reversed_axis_is_refused():
    """Coverage: 21 elements in tiles of 8 need 3 blocks on x whatever the direction (2 blocks
    would write tiles 2 and 1 and leave tile 0 poisoned)."""
    art = ferrox.compile(kernel(1, (0,), (0,)), chip="sm_80", cache=False)["owner"]
    (write,) = art.writes
    assert write.space.reverse == (0,)
    args = [numpy_buffer(np.full(21, np.nan, np.float32)), 21]
    assert check_launch(art, (3,), (8,), None, args, INTERPRETER_LIMITS).grid == (3, 1, 1)
    with pytest.raises(LaunchError) as refused:
        check_launch(art, (2,), (8,), None, args, INTERPRETER_LIMITS)
    assert refused.value.problems == [
        "the grid does not cover %out: grid.x = 2 tiles of 8, but dimension 0 (%d0) is 21 "
        "(grid.x must be at least 3)"
    ]
