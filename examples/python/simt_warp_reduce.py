"""A warp reduction in Python: out[w] = the sum of x[32w .. 32w + 31], a butterfly of xor
shuffles per warp; lane 0 holds the warp's witness and writes.

    python examples/python/simt_warp_reduce.py [--device auto|gpu|cpu] [--n 100000]

The twin of examples/simt/warp_reduce.mlir. `static_range` unrolls the butterfly at compile
time, so each shuffle's offset is a constant.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import SPACE_WARP, DisjointSlice, Slice, f32


# doc:begin kernel
@simt.kernel(block=256)
def warp_reduce(x: Slice[f32], out: DisjointSlice[f32, SPACE_WARP]):
    i = simt.block_id.x * simt.block_dim.x + simt.thread_id.x
    v = x[i] if i < len(x) else 0.0
    for k in simt.static_range(5):  # offsets 16, 8, 4, 2, 1
        v += simt.shuffle_xor(v, 16 >> k)
    out[simt.warp_index()] = v  # only lane 0's witness is in bounds


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, n).astype(np.float32)
    warps = -(-n // 32)
    out = np.full(warps, np.nan, np.float32)
    warp_reduce.on(device)[-(-n // 256), 256](x, out)
    expected = np.add.reduceat(x, np.arange(0, n, 32))
    assert np.allclose(out, expected, rtol=1e-5, atol=1e-4), np.max(np.abs(out - expected))
    print(f"simt warp reduce of {n} elements on {warp_reduce.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
