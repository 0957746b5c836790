"""A block reduction at memory speed, in Python: total[0] += sum(x) with a fixed grid striding
over the array, 16-byte chunk loads, warp shuffles and one atomic per block.

    python examples/python/simt_block_reduce_gridstride.py [--device auto|gpu|cpu] [--n 100000]

The twin of examples/simt/block_reduce_gridstride.mlir (4.28 TB/s on an H200 at 2^28 elements,
Triton's block sum 4.18: docs/performance.md). Each thread adds two 4-element chunks a step
into four accumulators (`load_chunk` pads past the end with 0), then each warp sums its lanes
with xor shuffles, lane 0 writes the warp's total to a shared slot, and after the barrier the
first warp sums the slots. Any grid is correct; a few blocks per SM keep the memory busy.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import AtomicSlice, Slice, f32


# doc:begin kernel
@simt.kernel(block=256, requires=["len(total) >= 1"])
def block_reduce_gridstride(x: Slice[f32], total: AtomicSlice[f32]):
    warps = simt.shared(f32, 8)
    t = simt.thread_id.x
    n = len(x)
    s0, s1, s2, s3 = 0.0, 0.0, 0.0, 0.0
    for i in range(simt.block_id.x * 2048 + (t << 2), n, simt.grid_dim.x * 2048):
        x0, x1, x2, x3 = simt.load_chunk(x, i, min(n - i, 4), 0.0, 4)
        j = i + 1024
        y0, y1, y2, y3 = simt.load_chunk(x, j, simt.where(j < n, min(n - j, 4), 0), 0.0, 4)
        s0 += x0 + y0
        s1 += x1 + y1
        s2 += x2 + y2
        s3 += x3 + y3
    v = (s0 + s1) + (s2 + s3)
    for k in simt.static_range(5):  # offsets 16, 8, 4, 2, 1: every lane gets the warp's sum
        v += simt.shuffle_xor(v, 16 >> k)
    lane = t & 31
    if lane == 0:
        with simt.unsafe():
            warps[t >> 5] = v
    simt.sync_threads()
    if t >> 5 == 0:
        w = 0.0
        if lane < 8:
            with simt.unsafe():
                w = warps[lane]
        for k in simt.static_range(3):  # offsets 4, 2, 1 over the 8 warps' sums
            w += simt.shuffle_xor(w, 4 >> k)
        if t == 0:
            simt.atomic_add(total, 0, w)


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    rng = np.random.default_rng()
    x = rng.uniform(0, 1, n).astype(np.float32)  # positive: the sum's relative error stays small
    total = np.zeros(1, np.float32)  # added into, so it starts at zero, not NaN
    kernel = block_reduce_gridstride.on(device)
    kernel[4, 256](x, total)  # 4 blocks stride over the whole array
    expected = np.sum(x, dtype=np.float64)
    assert np.isclose(total[0], expected, rtol=1e-5), (total[0], expected)
    print(f"simt grid-stride block reduce of {n} elements on {kernel.runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
