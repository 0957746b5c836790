"""Row softmax written in Python: exp(x - max) / sum(exp(x - max)) over each row of an M x N
matrix (N up to the tile's width), 4 rows a tile block.

    python examples/python/tile_softmax.py [--device auto|gpu|cpu] [--m 30] [--n 1000]

The twin of examples/tile/softmax.mlir. Padding with -inf keeps the padded columns out of the
max, and exp(-inf) = 0 keeps them out of the sum. The tile's width is a compile-time constant:
`softmax(out, x, COLS=2048)` is another specialisation, compiled once.
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
def softmax(
    out: Partition[f32, (ROWS, COLS)],
    x: Tensor[f32, (None, None)],
    ROWS: Constexpr = 4,
    COLS: Constexpr = 1024,
):
    t = tile.load_like(x, out, padding="neg_inf")
    row_max = tile.max(t, axis=1, keepdims=True)  # [ROWS, 1]
    e = tile.exp(t - tile.broadcast(row_max, t.shape))
    row_sum = tile.sum(e, axis=1, keepdims=True)
    tile.store(e / tile.broadcast(row_sum, t.shape), out)


# doc:end


def main(device: str = "auto", m: int = 30, n: int = 1000) -> int:
    rng = np.random.default_rng()
    x = rng.normal(0.0, 3.0, (m, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)

    cols = max(1 << (n - 1).bit_length(), 1)  # the smallest power of two that holds a row
    softmax.on(device)(out, x, COLS=cols)

    e = np.exp(x - x.max(axis=1, keepdims=True))
    expected = e / e.sum(axis=1, keepdims=True)
    assert np.allclose(out, expected, rtol=1e-5, atol=1e-6), np.abs(out - expected).max()
    print(f"tile softmax of {m}x{n} on {softmax.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--m", type=int, default=30)
    parser.add_argument("--n", type=int, default=1000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.m, args.n))
