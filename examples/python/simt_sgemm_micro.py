"""SGEMM with 8 x 8 register micro-tiles in Python: c = a @ b (row-major f32, m x k times k x n),
each block a 128 x 128 tile of c and each of its 256 threads 64 of its elements.

    python examples/python/simt_sgemm_micro.py [--device auto|gpu|cpu] [--m M --n N --k K]

The twin of examples/simt/sgemm_micro.mlir, the SIMT SGEMM as written for speed:
- k tiles of 16 are copied global -> shared with `simt.async_copy` (cp.async, 16 bytes a copy,
  zero-filled past the matrices' edges, the global side bounds-checked), double buffered: tile
  kt + 1 is in flight while tile kt is multiplied; one `async_wait` and one barrier a tile;
- per k, a thread reads its 8 x values (rows t / 16 + 16 i) and its 8 y values (two 16-byte
  `simt.shared_load_vector`s), then does 64 fused multiply-adds; the 64 accumulators are one
  tuple the loops carry;
- a stage of y keeps its 4-column groups permuted (global columns 8c .. 8c + 3 at 4c, 8c + 4 ..
  8c + 7 at 64 + 4c), so each y load reads 256 consecutive bytes across a half warp where the
  plain layout puts its threads 32 bytes apart (two threads of a quarter warp on the same banks):
  0.68 -> 0.72 of cuBLAS on the H200;
- its 64 results are the 8 chunks of its chunk witnesses (`space_tile((128, 128), 8, "m")`:
  chunk i of thread t is row t / 16 + 16 i, columns 8 (t % 16) .. + 7), each stored by
  `c[w] = acc[8 i : 8 i + 8]` (`simt.store_chunk`: the in-bounds prefix at ragged edges).
The grid is (ceil(m / 128), ceil(n / 128)).
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f32, index, space_tile

BM = BN = 128  # the block's tile of c
BK = 16  # the k step
XROW = BK + 4  # a stage's x rows, padded: 16-byte aligned, and a warp's two rows in other banks
XSTAGE = BM * XROW  # 2560 floats a stage of x (128 rows of 16)
YSTAGE = BK * BN  # 2048 floats a stage of y (16 rows of 128)


# doc:begin kernel
@simt.kernel(
    block=256,
    domain=2,
    requires=["len(a) >= m * k", "len(b) >= k * n", "len(c) == m * n"],
)
def sgemm_micro(
    a: Slice[f32],
    b: Slice[f32],
    c: DisjointSlice[f32, space_tile((BM, BN), 8, "m")],
    m: index,
    n: index,
    k: index,
):
    xs = simt.shared(f32, 2 * XSTAGE)  # two stages of x
    ys = simt.shared(f32, 2 * YSTAGE)  # two stages of y
    t = simt.thread_id.x
    row0 = simt.block_id.x * BM
    col0 = simt.block_id.y * BN
    tiles = (k + BK - 1) // BK
    # This thread copies chunks t and t + 256 of each tile: of x's 128 x 16 (4 chunks a row),
    # rows xr and xr + 64 from column xk; of y's 16 x 128 (32 a row), rows yr and yr + 8 from
    # column yn, stored at column yc (group q of a row at 64 (q % 2) + 4 (q / 2)). Past the
    # matrices' edges a copy's count is 0: it writes zeros, reads nothing.
    xr, xk = t // 4, t % 4 * 4
    yr, yq = t // 32, t % 32
    yn, yc = yq * 4, yq % 2 * 64 + yq // 2 * 4
    with simt.unsafe():  # tile 0 into stage 0
        for q in simt.static_range(2):
            row, col = row0 + xr + 64 * q, xk  # x: a's (row, col .. col + 3)
            ok = row < m and col < k
            at, count = simt.where(ok, row * k + col, 0), simt.where(ok, min(k - col, 4), 0)
            simt.async_copy(a, at, count, xs, (xr + 64 * q) * XROW + xk, 4)
            row, col = yr + 8 * q, col0 + yn  # y: b's (row, col .. col + 3)
            ok = row < k and col < n
            at, count = simt.where(ok, row * n + col, 0), simt.where(ok, min(n - col, 4), 0)
            simt.async_copy(b, at, count, ys, (yr + 8 * q) * BN + yc, 4)
    simt.async_commit()
    acc = (0.0,) * 64  # row i, column j of the micro-tile: acc[8 * i + j]
    for kt in range(tiles):
        simt.async_wait(0)  # tile kt has landed in stage kt % 2 (this thread's copies) ...
        simt.sync_threads()  # ... every thread's, and every thread is done with the other stage
        kn = (kt + 1) * BK  # tile kt + 1 into stage (kt + 1) % 2 (past the end: zeros)
        xo, yo = (kt + 1) % 2 * XSTAGE, (kt + 1) % 2 * YSTAGE
        with simt.unsafe():
            for q in simt.static_range(2):
                row, col = row0 + xr + 64 * q, kn + xk
                ok = row < m and col < k
                at, count = simt.where(ok, row * k + col, 0), simt.where(ok, min(k - col, 4), 0)
                simt.async_copy(a, at, count, xs, xo + (xr + 64 * q) * XROW + xk, 4)
                row, col = kn + yr + 8 * q, col0 + yn
                ok = row < k and col < n
                at, count = simt.where(ok, row * n + col, 0), simt.where(ok, min(n - col, 4), 0)
                simt.async_copy(b, at, count, ys, yo + (yr + 8 * q) * BN + yc, 4)
        simt.async_commit()
        xb = kt % 2 * XSTAGE + t // 16 * XROW  # this thread's x rows: t / 16 + 16 i
        yb = kt % 2 * YSTAGE + t % 16 * 4  # its 8 y columns: 4 here, 4 at + 64
        for p in range(BK):
            with simt.unsafe():
                x = ()
                for i in simt.static_range(8):
                    x += (xs[xb + 16 * XROW * i + p],)
                y = simt.shared_load_vector(ys, yb + p * BN, 4)
                y += simt.shared_load_vector(ys, yb + p * BN + 64, 4)
            new = ()
            for i in simt.static_range(8):
                for j in simt.static_range(8):
                    new += (simt.fma(x[i], y[j], acc[8 * i + j]),)
            acc = new
    for i in simt.static_range(8):  # chunk i: row t / 16 + 16 i, columns 8 (t % 16) .. + 7
        c[simt.tile_index(c, i)] = acc[8 * i : 8 * i + 8]


# doc:end


def main(
    device: str = "auto", m: int | None = None, n: int | None = None, k: int | None = None
) -> int:
    # the GPU takes a real size; the CPU interpreter, a ragged one that runs in seconds
    big = sgemm_micro.on(device).runs_on == "gpu"
    m, n, k = m or (1030 if big else 40), n or (1050 if big else 150), k or (1000 if big else 21)
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    grid = (-(-m // BM), -(-n // BN))
    sgemm_micro.on(device)[grid, 256](a, b, c, m, n, k)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(c, expected, rtol=1e-4, atol=1e-3), np.nanmax(np.abs(c - expected))
    where = sgemm_micro.on(device).runs_on
    print(f"simt sgemm micro {m}x{k} @ {k}x{n} on {where}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--m", type=int)
    parser.add_argument("--n", type=int)
    parser.add_argument("--k", type=int)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.m, args.n, args.k))
