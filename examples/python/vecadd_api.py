"""The SIMT vecadd example launched from Python: a checked launch that matches NumPy, and a
launch the checker refuses before anything runs.

    python examples/python/vecadd_api.py [--device auto|gpu|cpu] [--n 100000]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import ferrox

KERNELS = Path(__file__).resolve().parents[1] / "simt" / "vecadd.mlir"


def main(device: str = "auto", n: int = 100_000) -> int:
    # doc:begin launch
    mod = ferrox.load(KERNELS, device=device)  # compiled once, then from the kernel cache
    vecadd = mod["vecadd"]

    rng = np.random.default_rng()
    a = rng.uniform(-1, 1, n).astype(np.float32)
    b = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)  # poisoned: an element no thread writes stays NaN

    blocks = -(-n // 256)
    vecadd[blocks, 256](a, b, out)  # checked: contract, requires, coverage, aliasing
    assert np.array_equal(out, a + b)

    try:
        vecadd[blocks // 2, 256](a, b, out)  # half the grid: half of `out` would stay unwritten
    except ferrox.LaunchError as refused:
        print(refused)
    # doc:end
    print(f"vecadd of {n} elements on {mod.device}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
