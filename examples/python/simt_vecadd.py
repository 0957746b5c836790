"""vecadd written in Python: out[i] = a[i] + b[i], one element per thread.

    python examples/python/simt_vecadd.py [--device auto|gpu|cpu] [--n 100000]

The twin of examples/simt/vecadd.mlir: the same contract, the same witness-guarded write.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f32


# doc:begin kernel
@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def vecadd(a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()  # the witness: this thread owns out[w]
    i = w.value
    out[w] = a[i] + b[i]  # computed and stored only where w is in bounds of out


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    # doc:begin launch
    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)  # poisoned: an element no thread writes stays NaN

    blocks = -(-n // 256)
    vecadd.on(device)[blocks, 256](a, b, out)  # compiled at first call, checked, launched
    assert np.array_equal(out, a + b)
    # doc:end
    print(f"simt vecadd of {n} elements on {vecadd.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
