"""A tile kernel's grid order (`tile.grid_order`, issue 13): CUDA grid axis i walks tile-grid
axis order[i]. The order changes only the launch order, never which tile a block owns, so every
kernel here runs on the interpreter (which runs the lowered kernel the GPU runs, witnesses and
all) with ragged edges and a NaN-poisoned output, and is compared with NumPy; the launch
checker's grid, the artifact, the grid limits and the frontend's refusals are pinned too."""

# Tile shapes name the kernels' Constexpr parameters, which linters cannot see:
# ruff: noqa: F821
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from markers import locator

import ferrox
from ferrox import tile
from ferrox.artifact import ModuleArtifact
from ferrox.driver.checker import INTERPRETER_LIMITS, LaunchError, check_launch, numpy_buffer
from ferrox.lowering.tile_to_simt import convert_tile_to_simt
from ferrox.tile import Constexpr, FrontendError, Partition, Tensor, f32

at = locator(Path(__file__))


# doc:begin grid_order
@tile.kernel
def tagged(
    out: Partition[f32, (4, 64)],
    x: Tensor[f32, (None, None)],
    ROWS_FIRST: Constexpr = False,
):
    if not ROWS_FIRST:  # a Constexpr `if` chooses the order at compile time
        tile.grid_order(1, 0)  # blockIdx.x walks tile-grid axis 1 (a row's tiles), y axis 0
    i = tile.block_id(0)  # still this block's tile row, whatever the order
    j = tile.block_id(1)
    t = tile.load(x, (i, j), (4, 64))
    tile.store(t * 2.0 + f32(i * 1000 + j), out)


# doc:end


def tags(shape, tiles) -> np.ndarray:
    """Each element's tile coordinates folded into one number: 1000 i + j (2-D), or
    10000 a + 100 b + c (3-D)."""
    coords = np.indices(shape)
    weights = (1000, 1) if len(shape) == 2 else (10000, 100, 1)
    return sum(w * (c // t) for w, c, t in zip(weights, coords, tiles)).astype(np.float32)


@pytest.mark.parametrize("rows_first", [False, True])
def test_a_2d_grid_in_either_order_matches_numpy(rows_first):
    """13 x 300 in 4 x 64 tiles: 4 x 5 tiles, ragged on both axes (the edge tiles take the
    masked path, the others the whole-tile one)."""
    x = np.random.default_rng().standard_normal((13, 300)).astype(np.float32)
    out = np.full(x.shape, np.nan, np.float32)
    tagged.on("cpu")(out, x, ROWS_FIRST=rows_first)
    assert np.array_equal(out, x * 2 + tags(x.shape, (4, 64)))


def test_the_checked_launch_walks_the_permuted_grid():
    x = np.zeros((13, 300), np.float32)
    out = np.full(x.shape, np.nan, np.float32)
    assert tagged.on("cpu").check(out, x).grid == (5, 4, 1)  # x: 5 column tiles, y: 4 rows
    assert tagged.on("cpu").check(out, x, ROWS_FIRST=True).grid == (4, 5, 1)


def test_the_order_is_in_the_ir_the_space_and_the_artifact():
    assert ") grid_order [1, 0] {" in tagged.ir()
    assert ") grid_order [" not in tagged.ir(ROWS_FIRST=True)
    art = tagged.artifact("sm_80")
    kernel = art["tagged"]
    assert kernel.tile is not None and kernel.tile.grid_order == (1, 0)
    assert kernel.tile.launch_grid((4, 5)) == (5, 4)
    (write,) = kernel.writes
    assert write.space.order == (1, 0) and write.space.block_axis(0) == 1
    lowered = tagged.module()
    convert_tile_to_simt(lowered)
    assert "!simt.disjoint_slice<f32, tile<[4, 64], 4, arg1, order [1, 0]>>" in str(lowered)
    assert ModuleArtifact.from_json(art.to_json()) == art  # the cache keeps the order
    plain = tagged.artifact("sm_80", ROWS_FIRST=True)["tagged"]
    assert (
        plain.tile is not None and plain.tile.grid_order == () and plain.writes[0].space.order == ()
    )


def test_an_explicit_grid_is_the_cuda_grid():
    """A grid given to the checker (a host program's `host.prepare`) is what launches: the tile
    grid permuted; the tile grid itself is refused, naming the order."""
    kernel = tagged.artifact("sm_80")["tagged"]
    x = np.zeros((13, 300), np.float32)
    args = [numpy_buffer(np.full(x.shape, np.nan, np.float32)), numpy_buffer(x)]
    assert check_launch(kernel, (5, 4), None, None, args, INTERPRETER_LIMITS).grid == (5, 4, 1)
    with pytest.raises(LaunchError) as refused:
        check_launch(kernel, (4, 5), None, None, args, INTERPRETER_LIMITS)
    assert refused.value.problems == [
        "grid is [4, 5], but @tagged's output partition %out of shape [13, 300] in tiles of "
        "[4, 64] has [4, 5] tiles (the grid must be [5, 4] in its grid order [1, 0])"
    ]


@tile.kernel
def tagged_3d(
    out: Partition[f32, (2, 4, 32)],
    counts: Partition[f32, (2, 4, 32)],
    x: Tensor[f32, (None, None, None)],
    ORDER: Constexpr = (0, 1, 2),
):
    tile.grid_order(ORDER)
    a, b, c = tile.block_id(0), tile.block_id(1), tile.block_id(2)
    t = tile.load_like(x, out)
    tile.store(t + f32(a * 10000 + b * 100 + c), out)
    blocks = tile.num_blocks(0) * 10000 + tile.num_blocks(1) * 100 + tile.num_blocks(2)
    tile.store(f32(blocks), counts)


def run_3d(shape, order) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, out, counts) of a launch on fresh data, both outputs poisoned first."""
    x = np.random.default_rng().standard_normal(shape).astype(np.float32)
    out, counts = (np.full(shape, np.nan, np.float32) for _ in range(2))
    tagged_3d.on("cpu")(out, counts, x, ORDER=order)
    return x, out, counts


@pytest.mark.parametrize("order", [(2, 0, 1), (1, 2, 0), (0, 2, 1)])
def test_a_3d_grid_in_another_order_matches_numpy(order):
    """5 x 11 x 70 in 2 x 4 x 32 tiles: 3 x 3 x 3 tiles, ragged on every axis; `load_like`,
    `block_id` and `num_blocks` all in tile-grid terms."""
    x, out, counts = run_3d((5, 11, 70), order)
    assert np.array_equal(out, x + tags(x.shape, (2, 4, 32)))
    assert np.array_equal(counts, np.full(x.shape, 30303, np.float32))
    assert tagged_3d.on("cpu").check(out, counts, x, ORDER=order).grid == (3, 3, 3)


def test_uneven_tile_counts_land_on_the_axes_the_order_names():
    """7 x 40 x 33 in 2 x 4 x 32 tiles: 4 x 10 x 2 tiles, so a wrong axis shows in the grid."""
    x, out, counts = run_3d((7, 40, 33), (1, 2, 0))
    assert np.array_equal(out, x + tags(x.shape, (2, 4, 32)))
    assert np.array_equal(counts, np.full(x.shape, 41002, np.float32))
    assert tagged_3d.on("cpu").check(out, counts, x, ORDER=(1, 2, 0)).grid == (10, 2, 4)


@tile.kernel
def column(out: Partition[f32, (1, 1)], x: Tensor[f32, (None, None)], ORDER: Constexpr = (0, 1)):
    tile.grid_order(ORDER)
    tile.store(tile.load_like(x, out), out)


def test_an_order_that_puts_too_many_tiles_on_y_is_refused_at_launch():
    """70000 tiles on tile axis 0: on grid.x by default; the order (1, 0) puts them on grid.y,
    which allows 65535 blocks: refused before anything runs, naming the axis and the order."""
    x = np.random.default_rng().standard_normal((70000, 1)).astype(np.float32)
    out = np.full(x.shape, np.nan, np.float32)
    assert column.on("cpu").check(out, x).grid == (70000, 1, 1)
    with pytest.raises(LaunchError) as refused:
        column.on("cpu")(out, x, ORDER=(1, 0))
    assert refused.value.problems == [
        "grid.y is 70000, but the reference interpreter allows at most 65535: @column's "
        "tile-grid axis 0 has 70000 tiles and its grid order [1, 0] puts it on grid.y (put it on "
        "grid.x, which allows 2^31 - 1, or use larger tiles)"
    ]
    assert np.isnan(out).all()  # nothing ran


# -- refusals, at the Python line -------------------------------------------------------------


@tile.kernel
def not_a_permutation(out: Partition[f32, (4, 64)]):
    tile.grid_order(1, 1)  # <- repeated
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def wrong_rank(out: Partition[f32, (4, 64)]):
    tile.grid_order(1, 0, 2)  # <- rank
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def given_twice(out: Partition[f32, (4, 64)], TWICE: Constexpr = True):
    tile.grid_order(1, 0)
    if TWICE:
        tile.grid_order(1, 0)  # <- twice
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def run_time_axis(out: Partition[f32, (4, 64)]):
    tile.grid_order(tile.block_id(0), 0)  # <- dynamic
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def under_a_run_time_branch(out: Partition[f32, (4, 64)], n: tile.index):
    if n > 3:
        tile.grid_order(1, 0)  # <- branch
    tile.store(tile.zeros((4, 64)), out)


# A grid reversal (`reverse=`, tests/frontend/test_tile_grid_reverse.py), refused the same way.


@tile.kernel
def reverse_out_of_range(out: Partition[f32, (4, 64)]):
    tile.grid_order(1, 0, reverse=(2,))  # <- reverse_range
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def reverse_not_increasing(out: Partition[f32, (4, 64)]):
    tile.grid_order(0, 1, reverse=(1, 0))  # <- reverse_increasing
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def run_time_reverse(out: Partition[f32, (4, 64)]):
    tile.grid_order(0, 1, reverse=(tile.block_id(0),))  # <- reverse_dynamic
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def reversed_twice(out: Partition[f32, (4, 64)]):
    tile.grid_order(0, 1, reverse=1)
    tile.grid_order(0, 1, reverse=1)  # <- reverse_twice
    tile.store(tile.zeros((4, 64)), out)


@tile.kernel
def other_keyword(out: Partition[f32, (4, 64)]):
    tile.grid_order(0, 1, reversed=(1,))  # <- keyword
    tile.store(tile.zeros((4, 64)), out)


REFUSED = {  # kernel: (line marker, column, message)
    not_a_permutation: (
        "repeated",
        5,
        "tile.grid_order's axes must be a permutation of the grid's axes 0 .. 1 (rank 2), "
        "found [1, 1]",
    ),
    wrong_rank: (
        "rank",
        5,
        "tile.grid_order's axes must be a permutation of the grid's axes 0 .. 1 (rank 2), "
        "found [1, 0, 2]",
    ),
    given_twice: (
        "twice",
        9,
        "tile.grid_order is given twice: the kernel's grid order is already [1, 0]",
    ),
    run_time_axis: (
        "dynamic",
        5,
        "tile.grid_order takes compile-time ints (grid axes), found index, Python int 0",
    ),
    under_a_run_time_branch: (
        "branch",
        9,
        "tile.grid_order sets the kernel's launch order once, at compile time: it must be a "
        "statement of the kernel's body, not inside a run-time branch or loop (a `Constexpr` "
        "`if` is fine)",
    ),
    reverse_out_of_range: (
        "reverse_range",
        5,
        "tile.grid_order's reverse must list distinct tile-grid axes of 0 .. 1 (rank 2) in "
        "increasing order, found [2]",
    ),
    reverse_not_increasing: (
        "reverse_increasing",
        5,
        "tile.grid_order's reverse must list distinct tile-grid axes of 0 .. 1 (rank 2) in "
        "increasing order, found [1, 0]",
    ),
    run_time_reverse: (
        "reverse_dynamic",
        5,
        "tile.grid_order's reverse takes compile-time ints (tile-grid axes), found index",
    ),
    reversed_twice: (
        "reverse_twice",
        5,
        "tile.grid_order is given twice: the kernel's grid order is already [0, 1] reversing [1]",
    ),
    other_keyword: (
        "keyword",
        5,
        "tile.grid_order takes the axes by position and the reversed axes as `reverse`: "
        "tile.grid_order(1, 0, reverse=(0,))",
    ),
}


@pytest.mark.parametrize("kernel", list(REFUSED), ids=lambda k: k.name)
def test_a_bad_grid_order_is_refused_at_its_line(kernel):
    marker, column, message = REFUSED[kernel]
    with pytest.raises(FrontendError) as refused:
        kernel.ir()
    assert [d.format() for d in refused.value.diagnostics] == [
        f"{at(marker, column)}: error: {message}"
    ]


def test_the_mlir_kernel_and_the_python_one_agree():
    """The same order (and reversal) written in MLIR compiles to the same launch as the Python
    kernel's."""
    text = """
    tile.kernel @k(%out: !tile.partition<f32, [4, 64]>) grid_order [1, 0] {
      tile.return
    }
    tile.kernel @r(%out: !tile.partition<f32, [4, 64]>) grid_order [1, 0] grid_reverse [1] {
      tile.return
    }
    """
    art = ferrox.compile(text, chip="sm_80", cache=False)
    kernel = art["k"]
    assert kernel.tile is not None and kernel.tile.grid_order == (1, 0)
    assert kernel.tile.grid_reverse == ()
    flipped = art["r"].tile
    assert flipped is not None and flipped.grid_order == (1, 0) and flipped.grid_reverse == (1,)
    assert kernel.writes == ()  # no store: nothing to cover
