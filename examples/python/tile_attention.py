"""Fused attention forward as one tile kernel: out = softmax(q @ k.T / sqrt(D)) @ v per head, causal
or not, without ever writing the [S, S] scores to memory (the online softmax of FlashAttention:
a running row maximum and row sum rescale the accumulator as each block of keys arrives).

    python examples/python/tile_attention.py [--device auto|gpu|cpu] [--heads 2] [--seq 100]
        [--dim 64] [--causal] [--bm 128] [--seq-major] [--heads-first]

q, k and v are bf16 [heads, seq, dim] arrays: torch.bfloat16 tensors on the GPU where torch is
installed, otherwise NumPy bf16 bits (`ferrox.to_bf16`); out is f32, NaN-poisoned. One tile block
computes BM rows of one head's output (BM = 128: each of the block's 8 warps owns 16 whole rows,
so the loop lowers FlashAttention-2 style, lowering/tile_to_simt/attention.py; BM = 256 gives
each warp two 16-row tiles, the fastest for D = 64 on the H200, which the benchmark uses). The
matrix products take bf16 operands with an f32 accumulator (tensor cores on the GPU); the
probabilities are rounded to bf16 before `p @ v`, as FlashAttention does. Keys past the
sequence's end (the last, ragged block) and, when causal, keys after the query are masked to
-inf before the softmax, in the key blocks that have such keys only (the others skip the
compares and selects: 4-13% faster on the H200, docs/performance.md "Fused attention (H14)").

The grid's first CUDA axis (blockIdx.x, the order blocks start in) walks one head's query blocks,
which share that head's K and V in L2, as FlashAttention launches them: `tile.grid_order` puts
the query-block axis of the tile grid on x, whatever the output's layout. `HEADS_FIRST` keeps the
old order (heads on x), for A/B timing (`benchmarks/attention.py --heads-first`): in ncu the
new order read 0.2 GB from DRAM at d 128 (H200, L2 hit rate 91 %) where the old read 2.7 GB
(H100, 31 %), and on the H200 it gains up to 0.15 of SDPA's speed (docs/performance.md, twelfth
session). When causal, the query-block axis is walked last block first
(`tile.grid_order(..., reverse=...)`): the heaviest blocks, with the most keys, start first, as
FlashAttention launches them; `CAUSAL_HEAVY_FIRST=False` keeps the light-first walk
(`benchmarks/attention.py --causal-light-first`). On sm_90 the loop lowers as FlashAttention-3
does: K and V stages loaded by TMA, and the next scores' product issued before this block's
output product (0.84-0.89 of torch's SDPA at 4096 keys on the H200, docs/performance.md).
`RECIPROCAL` (off) divides the output by its row sums as one reciprocal a row and a product an
element: the division (correctly rounded, lowering/to_llvm/divf.py) is 8 instructions an
element, two of them f64 conversions, where a block with few key blocks spends a noticeable
part of its time (BM x D of them after the loop); the product differs from the quotient by at
most about an ulp.
"""

# Tile shapes name the kernel's Constexpr parameters, which linters cannot see:
# ruff: noqa: F821
from __future__ import annotations

import argparse
import importlib.util

import numpy as np

import ferrox
from ferrox import tile
from ferrox.tile import Constexpr, Partition, Tensor, bf16, f32, i32

LOG2E = 1.4426950408889634


# doc:begin kernel
@tile.kernel
def attention(
    out: Partition[f32, (BM if SEQ_MAJOR else 1, 1 if SEQ_MAJOR else BM, D)],
    q: Tensor[bf16, (None, None, D)],
    k: Tensor[bf16, (None, None, D)],
    v: Tensor[bf16, (None, None, D)],
    D: Constexpr = 64,
    CAUSAL: Constexpr = False,
    BM: Constexpr = 128,
    BN: Constexpr = 64,
    SEQ_MAJOR: Constexpr = False,
    HEADS_FIRST: Constexpr = False,
    CAUSAL_HEAVY_FIRST: Constexpr = True,
    RECIPROCAL: Constexpr = False,
):
    # out is [heads, seq, D], or [seq, heads, D] when SEQ_MAJOR. blockIdx.x walks the tile grid's
    # query-block axis (axis 1, or 0 when SEQ_MAJOR), so the blocks that run together share one
    # head's K and V in L2; HEADS_FIRST puts the heads' axis there instead. When causal, query
    # block i does about i + 1 key blocks of work: walked last first (CAUSAL_HEAVY_FIRST), the
    # heaviest blocks start first and the light ones fill the last wave, as in FlashAttention.
    if CAUSAL and CAUSAL_HEAVY_FIRST:
        if SEQ_MAJOR == HEADS_FIRST:
            tile.grid_order(1, 0, 2, reverse=(0 if SEQ_MAJOR else 1,))
        else:
            tile.grid_order(0, 1, 2, reverse=(0 if SEQ_MAJOR else 1,))
    elif SEQ_MAJOR == HEADS_FIRST:
        tile.grid_order(1, 0, 2)  # blockIdx.x walks tile-grid axis 1, blockIdx.y axis 0
    if SEQ_MAJOR:
        i = tile.block_id(0)  # this block's rows: i * BM ... i * BM + BM - 1
        head = tile.block_id(1)
    else:
        head = tile.block_id(0)
        i = tile.block_id(1)
    seq = tile.dim(k, 1)
    qt = tile.reshape(tile.load(q, (head, i, 0), (1, BM, D)), (BM, D))
    row_max = tile.full((BM, 1), float("-inf"))
    row_sum = tile.zeros((BM, 1), f32)
    acc = tile.zeros((BM, D), f32)
    rows = tile.broadcast(tile.reshape(tile.iota(BM) + i32(i * BM), (BM, 1)), (BM, BN))
    end = tile.broadcast(tile.reshape(tile.full((1,), i32(seq)), (1, 1)), (BM, BN))
    blocks = tile.cdiv(seq, BN)
    C = LOG2E / D**0.5  # the scores' scale, in base 2
    if CAUSAL:
        blocks = min(blocks, tile.cdiv((i + 1) * BM, BN))  # later key blocks are all masked
    for j in range(blocks):
        kt = tile.reshape(tile.load(k, (head, j, 0), (1, BN, D)), (BN, D))
        vt = tile.reshape(tile.load(v, (head, j, 0), (1, BN, D)), (BN, D))
        # [BM, BN] scores, f32, unscaled: the maximum is taken before scaling (the scale is
        # positive), which then goes into one fma with the subtraction of the maximum
        s = qt @ kt.T
        # Only a key block past the end or, when causal, with a key after one of this block's
        # queries needs the mask (a branch the whole block takes alike: most blocks skip it).
        if (j + 1) * BN > seq or (CAUSAL and (j + 1) * BN > i * BM + 1):
            cols = tile.broadcast(tile.reshape(tile.iota(BN) + i32(j * BN), (1, BN)), (BM, BN))
            s = tile.where(cols < end, s, float("-inf"))  # keys past the end
            if CAUSAL:
                s = tile.where(cols <= rows, s, float("-inf"))  # keys after the query
        new_max = tile.maximum(row_max, tile.max(s, axis=1, keepdims=True))
        # In base 2: exp2(x * log2(e)) = exp(x), one ex2 instruction each, of
        # s * c - max * c rounded once (fma). ftz: a result below 2^-126 (a scaled score some
        # 87 below the row's maximum) is +0, not subnormal: the ex2 needs no fix-ups then.
        p = tile.exp2(tile.fma(s, C, tile.broadcast(-(new_max * C), (BM, BN))), ftz=True)
        # rescales what was summed under the old maximum (ftz: a scale below 2^-126 is +0; what
        # it would keep is below 2^-126 a key, next to the new maximum's weight of 1)
        scale = tile.exp2((row_max - new_max) * C, ftz=True)
        row_sum = tile.fma(row_sum, scale, tile.sum(p, axis=1, keepdims=True))
        acc = acc * tile.broadcast(scale, (BM, D)) + bf16(p) @ vt
        row_max = new_max
    if RECIPROCAL:  # a division a row, then a product an element (as FlashAttention does)
        o = acc * tile.broadcast(1.0 / row_sum, (BM, D))
    else:
        o = acc / tile.broadcast(row_sum, (BM, D))
    tile.store(tile.reshape(o, (BM if SEQ_MAJOR else 1, 1 if SEQ_MAJOR else BM, D)), out)


# doc:end


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    """Attention in float64 on the (bf16) inputs' values, the [S, S] scores made whole."""
    q, k, v = (t.astype(np.float64) for t in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if causal:
        seq = q.shape[1]
        s = np.where(np.tril(np.ones((seq, seq), bool)), s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


def on_torch(device: str) -> bool:
    """torch.bfloat16 tensors on the GPU: where torch is installed and sees a GPU."""
    if device == "cpu" or importlib.util.find_spec("torch") is None:
        return False
    import torch

    return bool(torch.cuda.is_available())


def main(
    device: str = "auto",
    heads: int = 2,
    seq: int = 100,
    dim: int = 64,
    causal: bool = False,
    bm: int = 128,
    seq_major: bool = False,
    heads_first: bool = False,
    heavy_first: bool = True,
) -> int:
    rng = np.random.default_rng()
    # out is [heads, seq, dim], or [seq, heads, dim] (`SEQ_MAJOR`); compared in the first layout
    shape = (seq, heads, dim) if seq_major else (heads, seq, dim)
    layout = (1, 0, 2) if seq_major else (0, 1, 2)
    q64, k64, v64 = (rng.standard_normal((heads, seq, dim)) for _ in range(3))
    constants = dict(D=dim, CAUSAL=causal, BM=bm, SEQ_MAJOR=seq_major, HEADS_FIRST=heads_first)
    constants["CAUSAL_HEAVY_FIRST"] = heavy_first
    if on_torch(device):
        import torch

        q, k, v = (torch.from_numpy(t).to("cuda", torch.bfloat16) for t in (q64, k64, v64))
        out = torch.full(shape, float("nan"), device="cuda")
        attention.on(device)(out, q, k, v, **constants)
        torch.cuda.synchronize()
        got = out.cpu().numpy().transpose(layout)
        x, y, z = (t.float().cpu().numpy() for t in (q, k, v))
    else:
        q, k, v = (ferrox.to_bf16(t) for t in (q64, k64, v64))  # bf16 bits, nearest even
        out = np.full(shape, np.nan, np.float32)  # poisoned: unwritten rows stay NaN
        attention.on(device)(out, q, k, v, **constants)
        got = out.transpose(layout)
        x, y, z = q.float32(), k.float32(), v.float32()

    expected = reference(x, y, z, causal)
    # The one rounding the reference leaves out: p to bf16 before p @ v (relative 2^-9).
    assert np.allclose(got, expected, rtol=1e-2, atol=1e-2), np.abs(got - expected).max()
    kind, ran_on = "causal" if causal else "full", attention.on(device).runs_on
    order = (", seq-major" if seq_major else "") + (", heads first" if heads_first else "")
    order += ", light first" if causal and not heavy_first else ""
    print(f"tile attention ({kind}{order}) {heads}x{seq}x{dim} on {ran_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--heads", type=int, default=2)
    parser.add_argument("--seq", type=int, default=100)
    parser.add_argument("--dim", type=int, default=64, choices=(64, 128))
    parser.add_argument("--causal", action="store_true")
    parser.add_argument("--bm", type=int, default=128, choices=(128, 256), help="rows a block")
    parser.add_argument("--seq-major", action="store_true", help="out as [seq, heads, dim]")
    parser.add_argument("--heads-first", action="store_true", help="blockIdx.x walks the heads")
    parser.add_argument(
        "--causal-light-first",
        action="store_true",
        help="causal query blocks walked first to last (CAUSAL_HEAVY_FIRST=False)",
    )
    args = parser.parse_args()
    raise SystemExit(
        main(
            args.device,
            args.heads,
            args.seq,
            args.dim,
            args.causal,
            args.bm,
            args.seq_major,
            args.heads_first,
            not args.causal_light_first,
        )
    )
