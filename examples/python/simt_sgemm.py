"""Tiled SGEMM in Python: c = a @ b (row-major, m x k times k x n), 16 x 16 tiles staged in
shared memory, one output element per thread.

    python examples/python/simt_sgemm.py [--device auto|gpu|cpu] [--m M --n N --k K]

The twin of examples/simt/sgemm_tiled.mlir. The tile size is a compile-time constant; the
`requires` relations tie the slices' lengths to the run-time sizes, and the 2d_runtime witness
writes each element of c exactly once.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import SPACE_2D_RUNTIME, DisjointSlice, Slice, f32, index

TILE = 16


# doc:begin kernel
@simt.kernel(
    block=(TILE, TILE),
    requires=["len(a) >= m * k", "len(b) >= k * n", "len(c) == m * n"],
)
def sgemm_tiled(
    a: Slice[f32],
    b: Slice[f32],
    c: DisjointSlice[f32, SPACE_2D_RUNTIME],
    m: index,
    n: index,
    k: index,
):
    a_tile = simt.shared(f32, (TILE, TILE))
    b_tile = simt.shared(f32, (TILE, TILE))
    tx, ty = simt.thread_id.x, simt.thread_id.y
    row = simt.block_id.y * TILE + ty
    col = simt.block_id.x * TILE + tx
    acc = 0.0
    for t in range((k + TILE - 1) // TILE):
        a_col = t * TILE + tx
        av = a[row * k + a_col] if row < m and a_col < k else 0.0  # 0 outside a
        b_row = t * TILE + ty
        bv = b[b_row * n + col] if b_row < k and col < n else 0.0  # 0 outside b
        with simt.unsafe():
            a_tile[ty, tx] = av
            b_tile[ty, tx] = bv
        simt.sync_threads()
        for p in range(TILE):
            with simt.unsafe():
                acc += a_tile[ty, p] * b_tile[p, tx]
        simt.sync_threads()
    c[simt.index_2d_runtime(n)] = acc


# doc:end


def main(
    device: str = "auto", m: int | None = None, n: int | None = None, k: int | None = None
) -> int:
    # the GPU takes a real size; the CPU interpreter, one that runs in seconds
    big = sgemm_tiled.on(device).runs_on == "gpu"
    m, n, k = m or (200 if big else 48), n or (240 if big else 40), k or (180 if big else 36)
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, np.float32)
    grid = (-(-n // TILE), -(-m // TILE))
    sgemm_tiled.on(device)[grid, (TILE, TILE)](a, b, c, m, n, k)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    assert np.allclose(c, expected, rtol=1e-4, atol=1e-3), np.max(np.abs(c - expected))
    print(f"simt sgemm {m}x{k} @ {k}x{n} on {sgemm_tiled.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--m", type=int)
    parser.add_argument("--n", type=int)
    parser.add_argument("--k", type=int)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.m, args.n, args.k))
