"""The benchmarks' own tile kernels compute what NumPy computes, on the interpreter (outputs
poisoned with NaN first; sizes with ragged tiles), at small tile sizes of the same source."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from benchmarks import reductions

rng = np.random.default_rng(7)


def test_tile_sum_in_two_launches():
    module = ferrox.load(reductions.tile_sum_source(256), device="cpu")
    x = rng.uniform(0.0, 1.0, 3001).astype(np.float32)
    partials = np.full(5, np.nan, np.float32)  # 5 blocks stride over 12 tiles of 256
    module["sum_partials"](partials, x)
    expect = [x[t * 256 : (t + 1) * 256].sum(dtype=np.float64) for t in range(12)]
    want = [sum(expect[b::5]) for b in range(5)]
    np.testing.assert_allclose(partials, want, rtol=1e-5)
    total = np.full(1, np.nan, np.float32)
    module["sum_partials"](total, partials)
    np.testing.assert_allclose(total, [x.sum(dtype=np.float64)], rtol=1e-5)


@pytest.mark.parametrize("rows, cols", [(1, 128), (2, 64)])
def test_row_sum_accumulates_tiles(rows, cols):
    module = ferrox.load(reductions.row_sum_source(rows, cols), device="cpu")
    x = rng.normal(size=(7, 300)).astype(np.float32)
    out = np.full(7, np.nan, np.float32)
    module["row_sum"](out, x)
    np.testing.assert_allclose(out, x.sum(axis=1, dtype=np.float64), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "rows, recip, exp2", [(1, False, False), (1, True, False), (2, True, True), (1, False, True)]
)
def test_softmax_variants(rows, recip, exp2):
    module = ferrox.load(reductions.softmax_source(rows, 256, recip, exp2), device="cpu")
    x = rng.normal(0.0, 3.0, (5, 200)).astype(np.float32)
    out = np.full((5, 200), np.nan, np.float32)
    module["softmax"](out, x)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


def test_the_variants_change_what_they_say():
    text = reductions.softmax_source(1, 1024, recip=True, exp2=True)
    assert "tile.div %one, %sum" in text and "tile.mul %e, %invb" in text
    assert "tile.div %e" not in text
    assert "tile.exp2 %scaled" in text and "tile.exp %" not in text
