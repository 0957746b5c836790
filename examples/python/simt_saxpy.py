"""saxpy written in Python: y = alpha * x + y in place, one element per thread.

    python examples/python/simt_saxpy.py [--device auto|gpu|cpu] [--n 100000]

The twin of examples/simt/saxpy.mlir. `with y[w] as slot:` is the guarded write with the
element's current value in `slot.value`: the block runs only where the witness is in bounds,
and what `slot.value` holds at its end is stored back.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f32


# doc:begin kernel
@simt.kernel(block=256, requires=["len(x) >= len(y)"])
def saxpy(alpha: f32, x: Slice[f32], y: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    with y[w] as slot:  # runs only where w is in bounds of y
        slot.value = alpha * x[i] + slot.value  # read y's element, store the new one


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    rng = np.random.default_rng()
    alpha = np.float32(rng.uniform(-2, 2))
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y0 = rng.uniform(-1, 1, n).astype(np.float32)
    y = y0.copy()  # an in-place update: its input is the data (no poison to start from)
    saxpy.on(device)[-(-n // 256), 256](float(alpha), x, y)
    expected = alpha * x + y0
    assert np.array_equal(y, expected), np.max(np.abs(y - expected))
    print(f"simt saxpy of {n} elements on {saxpy.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
