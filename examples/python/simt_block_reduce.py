"""A block reduction in Python: total[0] += sum(x), a shared-memory tree per block and one
atomic per block.

    python examples/python/simt_block_reduce.py [--device auto|gpu|cpu] [--n 100000]

The twin of examples/simt/block_reduce.mlir. The barrier in the tree's loop sits outside the
`if t < stride` branch: every thread of the block reaches it (the convergence rule).
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import AtomicSlice, Slice, f32


# doc:begin kernel
@simt.kernel(block=256, requires=["len(total) >= 1"])
def block_reduce(x: Slice[f32], total: AtomicSlice[f32]):
    tile = simt.shared(f32, 256)
    t = simt.thread_id.x
    i = simt.block_id.x * simt.block_dim.x + t
    v = x[i] if i < len(x) else 0.0
    with simt.unsafe():
        tile[t] = v
    simt.sync_threads()
    for step in range(8):
        stride = 128 >> step
        if t < stride:
            with simt.unsafe():
                tile[t] += tile[t + stride]
        simt.sync_threads()
    if t == 0:
        with simt.unsafe():
            block_total = tile[0]
        simt.atomic_add(total, 0, block_total)


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    rng = np.random.default_rng()
    x = rng.uniform(0, 1, n).astype(np.float32)  # positive: the sum's relative error stays small
    total = np.zeros(1, np.float32)  # added into, so it starts at zero, not NaN
    block_reduce.on(device)[-(-n // 256), 256](x, total)
    expected = np.sum(x, dtype=np.float64)
    assert np.isclose(total[0], expected, rtol=1e-4), (total[0], expected)
    print(f"simt block reduce of {n} elements on {block_reduce.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
