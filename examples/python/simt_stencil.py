"""A shared-memory stencil in Python: out[i] = x[i] + x[i + 1] (x[n] counts as 0).

    python examples/python/simt_stencil.py [--device auto|gpu|cpu] [--n 100000]

The twin of examples/simt/neighbour.mlir. Each block stages its 256 elements and one halo
element in shared memory (an unsafe region: shared memory is unchecked), waits at a barrier,
then every thread reads its own and its right neighbour's staged value.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f32

BLOCK = 256


# doc:begin kernel
@simt.kernel(block=BLOCK, requires=["len(x) >= len(out)"])
def neighbour(x: Slice[f32], out: DisjointSlice[f32]):
    tile = simt.shared(f32, BLOCK + 1)
    t = simt.thread_id.x
    w = simt.thread_index_1d()
    i = w.value
    n = len(x)
    v = x[i] if i < n else 0.0  # only the chosen side runs: no read past the end
    with simt.unsafe():
        tile[t] = v
        if t == BLOCK - 1:
            tile[BLOCK] = x[i + 1] if i + 1 < n else 0.0  # the halo
    simt.sync_threads()  # outside the branch: every thread of the block reaches it
    with simt.unsafe():
        total = tile[t] + tile[t + 1]
    out[w] = total


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    neighbour.on(device)[-(-n // BLOCK), BLOCK](x, out)
    assert np.array_equal(out, x + np.append(x[1:], np.float32(0)))
    print(f"simt stencil of {n} elements on {neighbour.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
