"""A histogram in Python: bins[v % len(bins)] += 1 for every value v of x, with atomics.

    python examples/python/simt_histogram.py [--device auto|gpu|cpu] [--n 100000] [--bins 64]

The twin of examples/simt/histogram.mlir: relaxed gpu-scope atomic adds on an atomic slice;
`requires` keeps len(bins) >= 1, so the remainder is defined and every bin is in range.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import AtomicSlice, Slice, i32, index


# doc:begin kernel
@simt.kernel(block=256, requires=["len(bins) >= 1"])
def histogram(x: Slice[i32], bins: AtomicSlice[i32]):
    i = simt.block_id.x * simt.block_dim.x + simt.thread_id.x
    if i < len(x):
        b = index(x[i]) % len(bins)
        simt.atomic_add(bins, b, 1, scope="gpu", ordering="relaxed")


# doc:end


def main(device: str = "auto", n: int = 100_000, nbins: int = 64) -> int:
    rng = np.random.default_rng()
    x = rng.integers(0, 1_000_000, n).astype(np.int32)
    bins = np.zeros(nbins, np.int32)  # counted into, so it starts at zero, not NaN
    histogram.on(device)[-(-n // 256), 256](x, bins)
    assert np.array_equal(bins, np.bincount(x % nbins, minlength=nbins))
    where = histogram.on(device).runs_on
    print(f"simt histogram of {n} values into {nbins} bins on {where}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--bins", type=int, default=64)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n, args.bins))
