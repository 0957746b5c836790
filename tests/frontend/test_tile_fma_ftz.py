"""The fused attention's two scalar ops (examples/python/tile_attention.py): `tile.exp2(x,
ftz=True)`, the opt-in `tile.exp2 {ftz}`, whose results below 2^-126 are +0 (the GPU's
`ex2.approx.ftz.f32`; the default keeps subnormal results), and `tile.fma(a, b, c)`, `a * b + c`
rounded once. Both interpreters (the tile one and the SIMT kernel it lowers to) and the PTX."""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from ferrox import tile
from ferrox.driver.interpreter.tile_kernel import run_tile_kernel
from ferrox.tile import FrontendError, Partition, Tensor, f32

# 2^x at and around f32's smallest normal (2^-126), far below it, at -inf, 0 and a normal value
X = np.array([-126.0, -126.5, -127.0, -140.0, -149.0, -np.inf, 0.0, 3.0], dtype=np.float32)
FLUSHED = np.array([2.0**-126, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 8.0])
KEPT = np.array([2.0**-126, 2.0**-126.5, 2.0**-127, 2.0**-140, 2.0**-149, 0.0, 1.0, 8.0])


@tile.kernel
def pair(out: Partition[f32, (8,)], keep: Partition[f32, (8,)], x: Tensor[f32, (None,)]):
    t = tile.load(x, (0,), (8,))
    tile.store(tile.exp2(t, ftz=True), out)
    tile.store(tile.exp2(t), keep)


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    # f32 rounding of 2^x; zeros exactly
    return bool(np.all((got == 0) == (want == 0))) and np.allclose(got, want, rtol=1e-6, atol=0)


def test_the_attribute_is_in_the_ir_only_where_asked():
    ir = str(pair.module())
    assert len(re.findall(r"tile\.exp2 %\w+ \{ftz\}", ir)) == 1
    assert len(re.findall(r"tile\.exp2 %\w+ :", ir)) == 1


@pytest.mark.parametrize("where", ["tile", "simt"])
def test_ftz_flushes_results_below_the_smallest_normal(where):
    out, keep = (np.full(8, np.nan, np.float32) for _ in range(2))
    if where == "tile":
        run_tile_kernel(pair.module(), "pair", [out, keep, X])
    else:
        pair.on("cpu")(out, keep, X)
    assert _close(out.astype(np.float64), FLUSHED)
    assert _close(keep.astype(np.float64), KEPT)


def test_the_ptx_takes_ex2_ftz_only_for_the_opt_in():
    ptx = pair.artifact("sm_90").ptx
    assert len(re.findall(r"ex2\.approx\.ftz\.f32", ptx)) >= 1
    assert len(re.findall(r"ex2\.approx\.f32", ptx)) >= 1


@tile.kernel
def bad_flag(out: Partition[f32, (8,)], x: Tensor[f32, (None,)]):
    tile.store(tile.exp2(tile.load(x, (0,), (8,)), ftz=1), out)


@tile.kernel
def scalar_ftz(out: Partition[f32, (8,)], x: Tensor[f32, (None,)], s: f32):
    tile.store(tile.load(x, (0,), (8,)) * tile.exp2(s, ftz=True), out)


def test_ftz_takes_a_bool_and_a_tile():
    with pytest.raises(FrontendError, match="exp2's ftz takes True or False"):
        bad_flag.module()
    with pytest.raises(FrontendError, match=r"exp2\(\.\.\., ftz=True\) takes a tile"):
        scalar_ftz.module()


@tile.kernel
def fused(out: Partition[f32, (8,)], x: Tensor[f32, (None,)], y: Tensor[f32, (None,)]):
    a = tile.load(x, (0,), (8,))
    tile.store(tile.fma(a, tile.load(y, (0,), (8,)), -1.0), out)


def test_fma_rounds_once():
    # (1 + 2^-12)(1 - 2^-12) - 1 = -2^-24 exactly: rounded once it is -2^-24, where the product
    # rounded first (to 1 in f32) gives 0
    e = 2.0**-12
    x = np.array([1 + e, 3.0, 0.1, -2.5, 1e30, np.inf, 0.0, 7.0], np.float32)
    y = np.array([1 - e, 1 / 3, 10.0, 0.4, 1e10, 0.0, -0.0, 1.0], np.float32)
    with np.errstate(over="ignore", invalid="ignore"):  # 1e40 is inf in f32, inf * 0 NaN
        want = np.array(
            [float(Fraction(float(a)) * Fraction(float(b)) - 1) for a, b in zip(x[:5], y[:5])]
            + [np.nan, -1.0, 6.0]
        ).astype(np.float32)
    for where in ("tile", "simt"):
        out = np.full(8, np.nan, np.float32)
        if where == "tile":
            run_tile_kernel(fused.module(), "fused", [out, x, y])
        else:
            fused.on("cpu")(out, x, y)
        assert out[0] == np.float32(-(2.0**-24)), where
        assert np.array_equal(out, want, equal_nan=True), (where, out, want)
    assert re.search(r"fma\.rn\.f32", fused.artifact("sm_90").ptx)
