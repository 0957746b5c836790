"""bf16 matrix multiply written in Python: C = A @ B with bf16 inputs and an f32 accumulator
(the tensor-core case on the GPU), one 128 x 256 tile of C per tile block: on an H100/H200 the
loop becomes TMA loads and wgmma; tensors whose rows are not a multiple of 16 bytes run the
kernel's portable twin (cp.async + mma.sync), compiled when a launch first needs it.

    python examples/python/tile_matmul_bf16.py [--device auto|gpu|cpu] [--m 200] [--n 150] [--k 100]
        [--bf16-out]

A and B are bf16 arrays: torch.bfloat16 tensors on the GPU where torch is installed, otherwise
NumPy arrays of bf16 bit patterns (NumPy has no bf16 dtype: `ferrox.to_bf16` rounds floats to
bf16 and marks the uint16 bits as bf16; `ferrox.bf16_bits` marks bits you already have). C is
f32, NaN-poisoned before the launch; with `OUT_BF16` (`--bf16-out`) it is bf16, as cuBLAS's
bf16 product writes it: the f32 sums are rounded to bf16 once, in registers, after the loop
(`bf16(acc)`), and stored as 16-byte vectors of 8 (the epilogue hands the sums on in the
8-element chunks of the bf16 store, lowering/tile_to_simt/gemm_wgmma.py `stored_element`),
half the bytes of the f32 output. The output's type is the Constexpr in the partition's
annotation, so one kernel serves both; f32 stays the default, the exact sums for whoever wants
them.

Each product of two bf16 values is exact in f32, so the result differs from the exact product
of the bf16 inputs only by the f32 additions: with k terms, |C - exact| <= k * 2^-23 * (|A| @
|B|), the bound checked here (twice the unit roundoff, for any summation order). A bf16 C is
one rounding (to nearest even) of such a sum, and rounding is monotonic: each element lies
between the bf16 roundings of `exact - bound` and `exact + bound`, the check then.
"""

# Tile shapes name the kernel's Constexpr parameters, which linters cannot see:
# ruff: noqa: F821
from __future__ import annotations

import argparse
import importlib.util

import numpy as np

import ferrox
from ferrox import tile
from ferrox.tile import Constexpr, Partition, Tensor, bf16, f32


# doc:begin kernel
@tile.kernel
def matmul_bf16(
    c: Partition[bf16 if OUT_BF16 else f32, (BM, BN)],
    a: Tensor[bf16, (None, None)],
    b: Tensor[bf16, (None, None)],
    BM: Constexpr = 128,
    BN: Constexpr = 256,
    BK: Constexpr = 64,
    OUT_BF16: Constexpr = False,
):
    i = tile.block_id(0)
    j = tile.block_id(1)
    acc = tile.zeros((BM, BN), f32)
    for kk in range(tile.cdiv(tile.dim(a, 1), BK)):
        x = tile.load(a, (i, kk), (BM, BK))
        y = tile.load(b, (kk, j), (BK, BN))
        acc += x @ y  # bf16 x bf16 -> f32: one tile.mma
    if OUT_BF16:
        acc = bf16(acc)  # each f32 sum rounded once (to nearest even)
    tile.store(acc, c)


# doc:end


def on_torch(device: str) -> bool:
    """torch.bfloat16 tensors on the GPU: where torch is installed and sees a GPU."""
    if device == "cpu" or importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def within(got: np.ndarray, x: np.ndarray, y: np.ndarray, out_bf16: bool) -> np.ndarray:
    """Where `got` (float32 values of C) is x @ y within the f32 sums' bound (module
    docstring), or, for a bf16 C, a bf16 rounding of such a sum."""
    exact, bound = sum_bound(x, y)
    if not out_bf16:
        return np.abs(got - exact) <= bound
    low, high = bf16_ends(exact, bound)
    return (low <= got) & (got <= high)


def sum_bound(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x @ y summed exactly (every bf16 product is exact in float64) and the f32 sums' bound
    around it (module docstring)."""
    exact = x.astype(np.float64) @ y.astype(np.float64)
    bound = x.shape[1] * 2.0**-23 * (np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64))
    return exact, bound


def bf16_ends(exact: np.ndarray, bound: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bf16 roundings of `exact - bound` and `exact + bound`, as float32: every bf16
    rounding of a sum within the bound lies between them (rounding is monotonic; the float64
    ends are widened by far more than their own rounding)."""
    slack = bound + 2.0**-40 * np.abs(exact)
    return ferrox.to_bf16(exact - slack).float32(), ferrox.to_bf16(exact + slack).float32()


def main(
    device: str = "auto", m: int = 200, n: int = 150, k: int = 100, out_bf16: bool = False
) -> int:
    rng = np.random.default_rng()
    a64, b64 = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
    if on_torch(device):
        import torch

        a = torch.from_numpy(a64).to("cuda", torch.bfloat16)
        b = torch.from_numpy(b64).to("cuda", torch.bfloat16)
        dtype = torch.bfloat16 if out_bf16 else torch.float32
        c = torch.full((m, n), float("nan"), device="cuda", dtype=dtype)
        matmul_bf16.on(device)(c, a, b, OUT_BF16=out_bf16)
        torch.cuda.synchronize()
        x, y = a.float().cpu().numpy(), b.float().cpu().numpy()
        got = c.float().cpu().numpy()
    else:
        a, b = ferrox.to_bf16(a64), ferrox.to_bf16(b64)  # bf16 bits, rounded to nearest even
        nan = np.full((m, n), np.nan, np.float32)
        c = ferrox.to_bf16(nan) if out_bf16 else nan  # poisoned: unwritten elements stay NaN
        matmul_bf16.on(device)(c, a, b, OUT_BF16=out_bf16)
        x, y = a.float32(), b.float32()
        got = c.float32() if out_bf16 else c

    ok = within(got, x, y, out_bf16)
    assert not np.isnan(got).any(), "some of C was never written"
    assert ok.all(), f"{(~ok).sum()} elements outside the bound"
    kind, ran_on = " (bf16 out)" if out_bf16 else "", matmul_bf16.on(device).runs_on
    print(f"tile matmul bf16 {m}x{k} @ {k}x{n}{kind} on {ran_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--m", type=int, default=200)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--k", type=int, default=100)
    parser.add_argument("--bf16-out", action="store_true", help="C in bf16 (OUT_BF16)")
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.m, args.n, args.k, args.bf16_out))
