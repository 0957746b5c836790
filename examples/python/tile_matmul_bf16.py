"""bf16 matrix multiply written in Python: C = A @ B with bf16 operands and an f32 accumulator
(the tensor-core case on the GPU), one 64 x 64 tile of C per tile block.

    python examples/python/tile_matmul_bf16.py [--device auto|gpu|cpu] [--m 200] [--n 150] [--k 100]

NumPy has no bf16 arrays, so A and B arrive as f32 and each tile is rounded to bf16 in registers
(`astype`, round to nearest even) before `@`; a kernel over bf16 tensors (the twin of
examples/tile/matmul_bf16.mlir, tested in tests/frontend/test_tile_twins.py) is the same with
`Tensor[bf16, ...]` and no `astype`, for torch.bfloat16 inputs. Each bf16 product is exact in f32.
"""

# Tile shapes name the kernel's Constexpr parameters, which linters cannot see:
# ruff: noqa: F821
from __future__ import annotations

import argparse

import numpy as np

from ferrox import tile
from ferrox.tile import Constexpr, Partition, Tensor, bf16, f32


# doc:begin kernel
@tile.kernel
def matmul_bf16(
    c: Partition[f32, (BM, BN)],
    a: Tensor[f32, (None, None)],
    b: Tensor[f32, (None, None)],
    BM: Constexpr = 64,
    BN: Constexpr = 64,
    BK: Constexpr = 32,
):
    i = tile.block_id(0)
    j = tile.block_id(1)
    acc = tile.zeros((BM, BN), f32)
    for kk in range(tile.cdiv(tile.dim(a, 1), BK)):
        x = bf16(tile.load(a, (i, kk), (BM, BK)))  # rounded to bf16 in registers
        y = bf16(tile.load(b, (kk, j), (BK, BN)))
        acc += x @ y  # bf16 x bf16 -> f32: one tile.mma
    tile.store(acc, c)


# doc:end


def to_bf16(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to the nearest bf16 (ties to even), held as f32."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return rounded.astype(np.uint32).view(np.float32)


def main(device: str = "auto", m: int = 200, n: int = 150, k: int = 100) -> int:
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)

    matmul_bf16.on(device)(c, a, b)

    expected = to_bf16(a).astype(np.float64) @ to_bf16(b).astype(np.float64)
    assert np.allclose(c, expected, rtol=1e-4, atol=1e-3), np.abs(c - expected).max()
    print(f"tile matmul bf16 {m}x{k} @ {k}x{n} on {device}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--m", type=int, default=200)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--k", type=int, default=100)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.m, args.n, args.k))
