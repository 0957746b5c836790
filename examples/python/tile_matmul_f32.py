"""Matrix multiply written in Python: C = A @ B in f32, one 128 x 128 tile of C per tile block,
a loop over K in 16-wide steps carrying the accumulator tile.

    python examples/python/tile_matmul_f32.py [--device auto|gpu|cpu] [--m 200] [--n 150] [--k 100]

The twin of examples/tile/matmul_f32.mlir. Zero padding makes a ragged K tile contribute
nothing; f32 inputs are not rounded to tf32.
"""

# Tile shapes name the kernel's Constexpr parameters, which linters cannot see:
# ruff: noqa: F821
from __future__ import annotations

import argparse

import numpy as np

from ferrox import tile
from ferrox.tile import Constexpr, Partition, Tensor, f32


# doc:begin kernel
@tile.kernel
def matmul(
    c: Partition[f32, (BM, BN)],
    a: Tensor[f32, (None, None)],
    b: Tensor[f32, (None, None)],
    BM: Constexpr = 128,
    BN: Constexpr = 128,
    BK: Constexpr = 16,
):
    i = tile.block_id(0)
    j = tile.block_id(1)
    acc = tile.zeros((BM, BN), f32)
    for kk in range(tile.cdiv(tile.dim(a, 1), BK)):  # acc is carried through the loop
        x = tile.load(a, (i, kk), (BM, BK))
        y = tile.load(b, (kk, j), (BK, BN))
        acc = acc + x @ y  # one tile.mma
    tile.store(acc, c)


# doc:end


def main(device: str = "auto", m: int = 200, n: int = 150, k: int = 100) -> int:
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)

    matmul.on(device)(c, a, b)

    expected = a.astype(np.float64) @ b.astype(np.float64)  # f32 sums in the kernel's order
    assert np.allclose(c, expected, rtol=1e-4, atol=1e-3), np.abs(c - expected).max()
    print(f"tile matmul f32 {m}x{k} @ {k}x{n} on {matmul.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--m", type=int, default=200)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--k", type=int, default=100)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.m, args.n, args.k))
