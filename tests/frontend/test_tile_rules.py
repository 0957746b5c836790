"""The tile rules (docs/safety.md#tile-rules, the tile part of host 4, and the tile launch check)
refuse a Python kernel with the same diagnostic as for MLIR input, at the Python line and
column; the kernels that keep each rule compile and run. `# <- NAME` marks the lines.

Tile 3 (loads pad, stores mask) has no Python negative: the chunk ops it is enforced on exist
only inside the lowering. Its positive side is every ragged launch in test_tile_examples.py and
test_tile_twins.py (outputs poisoned with NaN, every element compared)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import ferrox
from ferrox import tile
from ferrox.diagnostics import render
from ferrox.tile import FrontendError, Partition, Tensor, f32

HERE = Path(__file__)
LINES = {
    m.group(1): number
    for number, line in enumerate(HERE.read_text(encoding="utf-8").splitlines(), 1)
    if (m := re.search(r"# <- (\w+)", line))
}


def at(marker: str, col: int) -> str:
    return f"{HERE}:{LINES[marker]}:{col}"


# -- tile 1: a kernel writes only its own partition -------------------------------------------


# doc:begin store_to_input
@tile.kernel
def store_to_input(z: Partition[f32, 1024], x: Tensor[f32, None]):
    t = tile.load_like(x, z)
    tile.store(t, x)  # <- store_input
    tile.store(t, z)


# doc:end


@tile.kernel
def store_to_scalar(z: Partition[f32, 1024], x: Tensor[f32, None], alpha: f32):
    tile.store(tile.load_like(x, z), alpha)  # <- store_scalar


@tile.kernel
def stores_own_tile(z: Partition[f32, 1024], x: Tensor[f32, None]):
    tile.store(tile.load_like(x, z) * 2.0, z)


# -- tile 2: a kernel does not read its outputs -----------------------------------------------


@tile.kernel
def load_from_output(z: Partition[f32, 1024], x: Tensor[f32, None]):
    t = tile.load(z, tile.block_id(0), 1024)  # <- load_output
    u = tile.load_like(z, z)  # <- load_like_output
    tile.store(t + u + tile.load_like(x, z), z)


# -- tile 4: the lowered kernel is a safe SIMT kernel -----------------------------------------


@tile.kernel
def mma_too_big(out: Partition[f32, (256, 256)], a: Tensor[f32, (None, None)]):
    x = tile.load(a, (0, 0), (256, 128))
    y = tile.load(a, (0, 0), (128, 256))
    tile.store(x @ y, out)  # <- big_mma


@tile.kernel
def while_loop(out: Partition[f32, 64], n: tile.index):
    i = 0
    while i < n:  # <- while
        i = i + 1
    tile.store(tile.zeros(64), out)


# -- host 4: tile shapes are static powers of two ---------------------------------------------


@tile.kernel
def partition_not_power_of_two(z: Partition[f32, 100], x: Tensor[f32, None]):  # <- part100
    tile.store(tile.load_like(x, z), z)


@tile.kernel
def partition_dynamic(z: Partition[f32, (None, 128)]):  # <- part_dyn
    tile.store(tile.zeros((1, 128)), z)


@tile.kernel
def load_not_power_of_two(z: Partition[f32, 128], x: Tensor[f32, (None, None)]):
    t = tile.load(x, (0, 0), (3, 128))  # <- load3
    tile.store(tile.sum(t, 0), z)


# -- op rules the dialect checks, reported at the Python expression ---------------------------


@tile.kernel
def no_implicit_broadcast(z: Partition[f32, (4, 16)], x: Tensor[f32, (None, None)]):
    t = tile.load_like(x, z)
    tile.store(t - tile.sum(t, 1, keepdims=True), z)  # <- bcast


@tile.kernel
def mma_inner_mismatch(z: Partition[f32, (16, 16)], x: Tensor[f32, (None, None)]):
    a = tile.load(x, (0, 0), (16, 32))
    tile.store(tile.mma(a, a, tile.zeros((16, 16))), z)  # <- inner


@tile.kernel
def grid_axis_out_of_range(z: Partition[f32, 16]):
    tile.store(tile.full(16, f32(tile.block_id(1))), z)  # <- axis


@tile.kernel
def no_partition(x: Tensor[f32, None]):  # <- nopart
    tile.load(x, 0, 16)


REFUSED = {
    "store_to_input": [
        f"{at('store_input', 5)}: error: cannot store to an input tensor (!tile.tensor<f32, [?]>); "
        "a kernel writes only its own output partition (!tile.partition)"
    ],
    "store_to_scalar": [
        f"{at('store_scalar', 5)}: error: tile.store writes an output partition "
        "(!tile.partition), found f32"
    ],
    "load_from_output": [
        f"{at('load_output', 9)}: error: tile.load reads an input tensor (!tile.tensor), found "
        "output partition !tile.partition<f32, [1024]>; a kernel does not read its outputs",
        f"{at('load_like_output', 9)}: error: tile.load_like reads an input tensor "
        "(!tile.tensor), found output partition !tile.partition<f32, [1024]>; a kernel does not "
        "read its outputs",
    ],
    "mma_too_big": [
        f"{at('big_mma', 16)}: error: cannot lower 'tile.mma' to SIMT: the lowering needs 263680 "
        "bytes of shared memory, more than the 232448 a block can opt in to; use smaller tiles "
        "or fewer threads"
    ],
    "while_loop": [
        f"{at('while', 5)}: error: cannot lower 'scf.while' to SIMT: 'scf.while' has no "
        "lowering to SIMT inside a tile kernel"
    ],
    "partition_not_power_of_two": [
        f"{at('part100', 35)}: error: tile shape must be static powers of two, found [100]"
    ],
    "partition_dynamic": [
        f"{at('part_dyn', 26)}: error: tile shape must be static powers of two, found [?, 128]"
    ],
    "load_not_power_of_two": [
        f"{at('load3', 9)}: error: tile shape must be static powers of two, found [3, 128]"
    ],
    "no_implicit_broadcast": [
        f"{at('bcast', 16)}: error: tile.sub operands and result must have the same type, found "
        "!tile.tile<f32, [4, 16]>, !tile.tile<f32, [4, 1]>, !tile.tile<f32, [4, 16]> (tile ops "
        "do not broadcast implicitly: use tile.broadcast)"
    ],
    "mma_inner_mismatch": [
        f"{at('inner', 16)}: error: mma inner dimensions do not match: x is [16, 32], y is [16, 32]"
    ],
    "grid_axis_out_of_range": [
        f"{at('axis', 34)}: error: grid axis 1 is out of range: @grid_axis_out_of_range has a "
        "1-d grid (the rank of its first output partition)"
    ],
    "no_partition": [
        f"{at('nopart', 1)}: error: tile kernel @no_partition has no output partition; the "
        "first !tile.partition parameter fixes the launch grid"
    ],
}


def diagnostics(kernel) -> list[str]:
    with pytest.raises(FrontendError) as refused:
        kernel.artifact()
    return [d.format() for d in refused.value.diagnostics]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_rule_is_reported_at_the_python_line(name):
    assert diagnostics(globals()[name]) == REFUSED[name]


def test_a_diagnostic_shows_the_python_source_line_and_a_caret():
    with pytest.raises(FrontendError) as refused:
        store_to_input.ir()
    line = LINES["store_input"]
    source = HERE.read_text(encoding="utf-8").splitlines()[line - 1]
    message = REFUSED["store_to_input"][0].split(": error: ", 1)[1]
    assert str(refused.value) == f"{HERE}:{line}:5: error[E1201]: {message}"  # the short form
    assert render(refused.value, "human").splitlines() == [
        f"error[E1201]: {message}",
        f"  --> {HERE}:{line}:5",
        "   |",
        f"{line} | {source}",
        "   |     ^^^^^^^^^^",
        "   |",
        "   = help: store to an output partition (a `Partition[...]` parameter), once per block",
    ]


def test_the_kernels_that_keep_the_rules_compile_and_run():
    """Tile 1 and 2 kept: stores to its own tile, loads its inputs; the launch covers a ragged
    length (tile 3: padded loads, a masked store) and matches NumPy."""
    n = 2500
    x = np.random.default_rng().uniform(-1, 1, n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)
    stores_own_tile.on("cpu")(z, x)
    assert np.array_equal(z, x * 2)


# -- the launch check (docs/safety.md#launch-tile) --------------------------------------------


@tile.kernel
def fixed_width(z: Partition[f32, 1024], x: Tensor[f32, 4096]):
    tile.store(tile.load_like(x, z), z)


def test_a_static_tensor_dimension_is_checked_at_launch():
    z = np.full(4096, np.nan, np.float32)
    with pytest.raises(ferrox.LaunchError) as refused:
        fixed_width.on("cpu")(z, np.ones(4000, np.float32))
    assert (
        str(refused.value) == "%x of @fixed_width has shape [4096], but the array bound to it "
        "has shape [4000] (dimension 0 is 4000, not 4096)"
    )
    assert np.isnan(z).all()  # nothing ran
    x = np.random.default_rng().uniform(-1, 1, 4096).astype(np.float32)
    fixed_width.on("cpu")(z, x)
    assert np.array_equal(z, x)


def test_an_output_of_another_rank_is_refused_at_launch():
    with pytest.raises(ferrox.LaunchError) as refused:
        stores_own_tile.on("cpu")(np.zeros((2, 1024), np.float32), np.ones(2048, np.float32))
    assert str(refused.value) == (
        "%z of @stores_own_tile has shape [?] (rank 1), but the array bound to it has shape "
        "[2, 1024]"
    )


def test_an_output_aliasing_an_input_is_refused_at_launch():
    x = np.ones(2048, np.float32)
    with pytest.raises(ferrox.LaunchError) as refused:
        stores_own_tile.on("cpu")(x, x)
    assert str(refused.value) == (
        "%z (argument #0) and %x (argument #1) of @stores_own_tile overlap by 8192 bytes, but %z "
        "is an exclusive output (partition) and must not alias any other argument (pass a copy)"
    )
    assert (x == 1).all()
