# ruff: noqa: E501 (the kernels keep one op a line, as the printer writes them)
"""Reductions across warps (lowering/tile_to_simt/reduction.py, step 3): after the barrier each
lane reads one partial and shuffles combine them, at every block size up to 1024 threads; a
layout whose lanes are not replicated enough keeps the all-partials read. Results against NumPy
on the interpreter (outputs poisoned with NaN), and the lowered kernel passes verify-disjoint."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.dialects import simt
from ferrox.passes.verify_disjoint import collect

SOFTMAX = """
tile.kernel @softmax(%out: !tile.partition<f32, [R, C]>, %x: !tile.tensor<f32, [?, ?]>) {
  %t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [R, C]> -> !tile.tile<f32, [R, C]>
  %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [R, C]> -> !tile.tile<f32, [R, 1]>
  %maxb = tile.broadcast %max : !tile.tile<f32, [R, 1]> -> !tile.tile<f32, [R, C]>
  %shifted = tile.sub %t, %maxb : !tile.tile<f32, [R, C]>
  %e = tile.exp %shifted : !tile.tile<f32, [R, C]>
  %sum = tile.reduce_sum %e axis = 1 keepdims : !tile.tile<f32, [R, C]> -> !tile.tile<f32, [R, 1]>
  %sumb = tile.broadcast %sum : !tile.tile<f32, [R, 1]> -> !tile.tile<f32, [R, C]>
  %r = tile.div %e, %sumb : !tile.tile<f32, [R, C]>
  tile.store %r, %out : !tile.tile<f32, [R, C]>, !tile.partition<f32, [R, C]>
  tile.return
}
"""

COLUMN_SUM = """
tile.kernel @colsum(%out: !tile.partition<f32, [32]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %z = arith.constant 0 : index
  %t = tile.load %x[%z, %i] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [64, 32]>
  %s = tile.reduce_sum %t axis = 0 : !tile.tile<f32, [64, 32]> -> !tile.tile<f32, [32]>
  tile.store %s, %out : !tile.tile<f32, [32]>, !tile.partition<f32, [32]>
  tile.return
}
"""


def softmax_text(rows: int, cols: int) -> str:
    return SOFTMAX.replace("R, C", f"{rows}, {cols}").replace("[R, 1]", f"[{rows}, 1]")


def shared_loads(kernel: simt.KernelOp) -> int:
    return sum(isinstance(op, simt.SharedLoadOp) for op in kernel.walk())


def shuffles(kernel: simt.KernelOp) -> int:
    return sum(isinstance(op, simt.ShuffleOp) for op in kernel.walk())


@pytest.mark.parametrize(
    "rows, cols, threads", [(1, 1024, 128), (1, 1024, 256), (1, 4096, 512), (1, 4096, 1024)]
)
def test_softmax_across_warps(lower, find_kernel, interpreter, rows, cols, threads):
    module = lower(softmax_text(rows, cols), threads)
    kernel = find_kernel(module, "softmax")
    assert collect(kernel) == []
    warps = threads // 32
    # Each of the two reductions: one partial read a lane (the store stages nothing: the
    # result is used in place), 5 shuffles within the warp and log2(warps) across.
    assert shared_loads(kernel) == 2
    assert shuffles(kernel) == 2 * (5 + warps.bit_length() - 1)
    rng = np.random.default_rng(13)
    for m, n in ((3, cols), (2, cols - 37)):
        x = rng.normal(0.0, 3.0, (m, n)).astype(np.float32)
        out = np.full((m, n), np.nan, np.float32)
        interpreter(module, "softmax", [out, x])
        e = np.exp(x - x.max(axis=1, keepdims=True))
        np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


def test_lanes_along_the_other_axis_read_every_partial(lower, find_kernel, interpreter):
    """A column sum of [64, 32] over 256 threads: lanes 0-2 hold column chunks and only lanes
    3-4 rows, fewer than the three warp bits that hold rows too; each thread keeps reading
    all eight warps' partials, for each of its 4 columns."""
    module = lower(COLUMN_SUM, 256)
    kernel = find_kernel(module, "colsum")
    assert collect(kernel) == []
    assert shuffles(kernel) == 4 * 2  # lanes 3 and 4, for each column
    assert shared_loads(kernel) == 4 * 8
    rng = np.random.default_rng(14)
    x = rng.normal(size=(50, 70)).astype(np.float32)
    out = np.full(70, np.nan, np.float32)
    interpreter(module, "colsum", [out, x])
    np.testing.assert_allclose(out, x.sum(axis=0), rtol=1e-5, atol=1e-5)
