"""Layer normalisation written in Python: y = (x - mean) / sqrt(var + eps) * gamma + beta over
each row of an M x N matrix (N up to the tile's width), 4 rows a tile block.

    python examples/python/tile_layernorm.py [--device auto|gpu|cpu] [--m 30] [--n 1000]

The twin of examples/tile/layernorm.mlir. The padded columns load as zero, right for the mean
but not for the variance: a mask from `iota(COLS) < n` zeroes x - mean there.
"""

# Tile shapes name the kernel's Constexpr parameters, which linters cannot see:
# ruff: noqa: F821
from __future__ import annotations

import argparse

import numpy as np

from ferrox import tile
from ferrox.tile import Constexpr, Partition, Tensor, f32, i32


# doc:begin kernel
@tile.kernel
def layernorm(
    out: Partition[f32, (ROWS, COLS)],
    x: Tensor[f32, (None, None)],
    gamma: Tensor[f32, None],
    beta: Tensor[f32, None],
    eps: f32,
    ROWS: Constexpr = 4,
    COLS: Constexpr = 1024,
):
    t = tile.load_like(x, out)
    n = i32(tile.dim(x, 1))  # the row length, known at launch
    count = tile.full((ROWS, 1), f32(n))
    mean = tile.sum(t, axis=1, keepdims=True) / count
    diff = t - tile.broadcast(mean, t.shape)
    inside = tile.broadcast(tile.iota(COLS) < n, t.shape)  # the columns inside the row
    centered = tile.where(inside, diff, 0.0)
    var = tile.sum(centered * centered, axis=1, keepdims=True) / count
    rstd = tile.rsqrt(var + eps)
    normed = centered * tile.broadcast(rstd, t.shape)
    j = tile.block_id(1)
    g = tile.load(gamma, j, COLS)  # tile j of gamma, COLS wide
    b = tile.load(beta, j, COLS)
    tile.store(normed * tile.broadcast(g, t.shape) + tile.broadcast(b, t.shape), out)


# doc:end


def main(device: str = "auto", m: int = 30, n: int = 1000) -> int:
    rng = np.random.default_rng()
    x = rng.normal(1.0, 2.0, (m, n)).astype(np.float32)
    gamma = rng.uniform(0.5, 1.5, n).astype(np.float32)
    beta = rng.uniform(-0.5, 0.5, n).astype(np.float32)
    eps = 1e-5
    out = np.full((m, n), np.nan, np.float32)

    cols = max(1 << (n - 1).bit_length(), 1)
    layernorm.on(device)(out, x, gamma, beta, eps, COLS=cols)

    mean = x.mean(axis=1, keepdims=True)
    expected = (x - mean) / np.sqrt(x.var(axis=1, keepdims=True) + eps) * gamma + beta
    assert np.allclose(out, expected, rtol=1e-4, atol=1e-4), np.abs(out - expected).max()
    print(f"tile layernorm of {m}x{n} on {layernorm.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--m", type=int, default=30)
    parser.add_argument("--n", type=int, default=1000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.m, args.n))
