"""A tile kernel's grid reversal (`tile.grid_order(..., reverse=(d,))`, issue 13): tile-grid axis
d is walked last tile first, so the block whose id along the CUDA axis walking d is b takes tile
n_d - 1 - b (the ragged last tile included: block 0 takes it). Only the block -> tile map
changes, never what a tile holds, so every kernel here runs on the interpreter (the lowered
kernel the GPU runs, witnesses and all) with ragged edges and a NaN-poisoned output and is
compared with NumPy, alone and with a grid order; the IR, the artifact and the checked grid are
pinned too, the frontend's refusals in tests/frontend/test_tile_grid_order.py with the order's.
Which block writes which tile is pinned on SIMT kernels in
tests/driver/interpreter/test_grid_reverse.py."""

# Tile shapes name the kernels' Constexpr parameters, which linters cannot see:
# ruff: noqa: F821
from __future__ import annotations

import json

import numpy as np
import pytest

from ferrox import tile
from ferrox.artifact import ModuleArtifact
from ferrox.driver.checker import LaunchError
from ferrox.lowering.tile_to_simt import convert_tile_to_simt
from ferrox.tile import Constexpr, Partition, Tensor, f32


# doc:begin grid_reverse
@tile.kernel
def flipped(
    out: Partition[f32, (4, 64)],
    x: Tensor[f32, (None, None)],
    ORDER: Constexpr = (1, 0),
    REVERSE: Constexpr = (1,),
):
    # blockIdx.x walks tile-grid axis 1 from its last tile (block 0 takes the ragged one) back
    tile.grid_order(ORDER, reverse=REVERSE)
    i = tile.block_id(0)  # still this block's tile coordinates, whatever the walk
    j = tile.block_id(1)
    t = tile.load(x, (i, j), (4, 64))
    tile.store(t * 2.0 + f32(i * 1000 + j), out)


# doc:end


def coords_tag(shape, tiles, weights) -> np.ndarray:
    """sum_d weights[d] * (element index // tile) along d: the tile coordinates, folded."""
    grids = np.meshgrid(*(np.arange(s) // t for s, t in zip(shape, tiles)), indexing="ij")
    return sum(w * g for w, g in zip(weights, grids)).astype(np.float32)


@pytest.mark.parametrize("order", [(0, 1), (1, 0)])
@pytest.mark.parametrize("reverse", [(0,), (1,), (0, 1)])
def test_a_2d_reversed_grid_matches_numpy(order, reverse):
    """13 x 300 in 4 x 64 tiles: 4 x 5 tiles, ragged on both axes (the ragged tiles run first
    on a reversed axis, through the masked path; the others take the whole-tile one)."""
    x = np.random.default_rng().standard_normal((13, 300)).astype(np.float32)
    out = np.full(x.shape, np.nan, np.float32)
    flipped.on("cpu")(out, x, ORDER=order, REVERSE=reverse)
    assert np.array_equal(out, x * 2 + coords_tag(x.shape, (4, 64), (1000, 1)))


def test_the_reversal_is_in_the_ir_the_space_and_the_artifact():
    assert ") grid_order [1, 0] grid_reverse [1] {" in flipped.ir()
    assert ") grid_order [1, 0] {" in flipped.ir(REVERSE=())  # none: printed as none
    assert ") grid_reverse [0, 1] {" in flipped.ir(ORDER=(0, 1), REVERSE=(0, 1))
    art = flipped.artifact("sm_80")
    kernel = art["flipped"]
    assert kernel.tile is not None and kernel.tile.grid_reverse == (1,)
    assert kernel.tile.grid_order == (1, 0) and kernel.tile.launch_grid((4, 5)) == (5, 4)
    (write,) = kernel.writes
    assert write.space.reverse == (1,) and write.space.order == (1, 0)
    lowered = flipped.module()
    convert_tile_to_simt(lowered)
    space = "tile<[4, 64], 4, arg1, order [1, 0], reverse [1]>"
    assert f"!simt.disjoint_slice<f32, {space}>" in str(lowered)
    assert ModuleArtifact.from_json(art.to_json()) == art  # the cache keeps the reversal
    plain = flipped.artifact("sm_80", REVERSE=())
    unreversed = plain["flipped"]
    assert unreversed.tile is not None and unreversed.tile.grid_reverse == ()
    assert unreversed.writes[0].space.reverse == ()
    # Left out of the JSON at its default (every kernel without one keeps main's artifact).
    assert '"grid_reverse"' not in plain.to_json() and '"reverse"' not in plain.to_json()
    raw = json.loads(art.to_json())["kernels"]["flipped"]
    assert raw["tile"]["grid_reverse"] == [1] and raw["writes"][0]["space"]["reverse"] == [1]


def test_the_checked_launch_grid_is_the_same():
    """A reversal changes which block takes which tile, not how many blocks launch."""
    x = np.zeros((13, 300), np.float32)
    out = np.full(x.shape, np.nan, np.float32)
    assert flipped.on("cpu").check(out, x).grid == (5, 4, 1)
    assert flipped.on("cpu").check(out, x, ORDER=(0, 1), REVERSE=(0, 1)).grid == (4, 5, 1)


@tile.kernel
def flipped_1d(out: Partition[f32, (128,)], x: Tensor[f32, (None,)]):
    tile.grid_order(0, reverse=0)  # one axis: `reverse` may be a single int
    i = tile.block_id(0)
    tile.store(tile.load_like(x, out) + f32(i * 1000 + tile.num_blocks(0)), out)


def test_a_1d_reversed_grid_matches_numpy():
    """1000 in tiles of 128: 8 tiles, the last 104 long (block 0's); num_blocks is the count."""
    x = np.random.default_rng().standard_normal(1000).astype(np.float32)
    out = np.full(x.shape, np.nan, np.float32)
    flipped_1d.on("cpu")(out, x)
    assert np.array_equal(out, x + (np.arange(1000) // 128 * 1000 + 8).astype(np.float32))
    assert "grid_reverse [0]" in flipped_1d.ir()


@tile.kernel
def flipped_3d(
    out: Partition[f32, (2, 4, 32)],
    counts: Partition[f32, (2, 4, 32)],
    x: Tensor[f32, (None, None, None)],
    ORDER: Constexpr = (0, 1, 2),
    REVERSE: Constexpr = (),
):
    tile.grid_order(ORDER, reverse=REVERSE)
    a, b, c = tile.block_id(0), tile.block_id(1), tile.block_id(2)
    t = tile.load_like(x, out)
    tile.store(t + f32(a * 10000 + b * 100 + c), out)
    blocks = tile.num_blocks(0) * 10000 + tile.num_blocks(1) * 100 + tile.num_blocks(2)
    tile.store(f32(blocks), counts)


@pytest.mark.parametrize(
    "order, reverse",
    [((0, 1, 2), (0,)), ((0, 1, 2), (0, 1, 2)), ((2, 0, 1), (1,)), ((1, 2, 0), (0, 2))],
)
def test_a_3d_reversed_grid_matches_numpy(order, reverse):
    """7 x 40 x 33 in 2 x 4 x 32 tiles: 4 x 10 x 2 tiles, ragged on axes 0 and 2 (uneven counts,
    so a reversal by the wrong axis's count shows)."""
    shape = (7, 40, 33)
    x = np.random.default_rng().standard_normal(shape).astype(np.float32)
    out, counts = (np.full(shape, np.nan, np.float32) for _ in range(2))
    flipped_3d.on("cpu")(out, counts, x, ORDER=order, REVERSE=reverse)
    assert np.array_equal(out, x + coords_tag(shape, (2, 4, 32), (10000, 100, 1)))
    assert np.array_equal(counts, np.full(shape, 41002, np.float32))
    grid = flipped_3d.on("cpu").check(out, counts, x, ORDER=order, REVERSE=reverse).grid
    assert grid == tuple((4, 10, 2)[d] for d in order)


@tile.kernel
def two_outputs(
    out: Partition[f32, (4, 64)], small: Partition[f32, (2, 32)], x: Tensor[f32, (None, None)]
):
    tile.grid_order(1, 0, reverse=(0, 1))
    i, j = tile.block_id(0), tile.block_id(1)
    tile.store(tile.load(x, (i, j), (4, 64)) * 2.0, out)
    tile.store(tile.zeros((2, 32), f32) + f32(i * 1000 + j), small)


def test_outputs_of_other_shapes_share_the_reversed_tile_count():
    """Each output's witness counts its own tiles (`n_d` from its own dimensions and tile), the
    block ids the first output's: they agree because the launch takes one tile grid for all
    (docs/safety.md#launch-tile). 13 x 300 in 4 x 64 and 7 x 150 in 2 x 32 are both 4 x 5
    tiles, ragged differently; a second output of 5 x 5 tiles is refused before any block
    runs."""
    x = np.random.default_rng().standard_normal((13, 300)).astype(np.float32)
    out = np.full(x.shape, np.nan, np.float32)
    small = np.full((7, 150), np.nan, np.float32)
    two_outputs.on("cpu")(out, small, x)
    assert np.array_equal(out, x * 2)
    assert np.array_equal(small, coords_tag(small.shape, (2, 32), (1000, 1)))
    other = np.full((9, 150), np.nan, np.float32)
    with pytest.raises(LaunchError) as refused:
        two_outputs.on("cpu")(out, other, x)
    assert str(refused.value) == (
        "grid is [5, 4], but @two_outputs's output partition %small of shape [9, 150] in tiles "
        "of [2, 32] has [5, 5] tiles (the grid must be [5, 5] in its grid order [1, 0])"
    )
    assert np.isnan(other).all()
