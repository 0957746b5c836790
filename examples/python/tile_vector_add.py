"""Tile vector add written in Python: z = x + y, one 1024-element tile per tile block.

    python examples/python/tile_vector_add.py [--device auto|gpu|cpu] [--n 100000]

The twin of examples/tile/vector_add.mlir. A length that is not a multiple of the tile needs
nothing more: the last block's loads pad with zeros and its store is masked.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import tile
from ferrox.tile import Partition, Tensor, f32


# doc:begin kernel
@tile.kernel
def vector_add(z: Partition[f32, 1024], x: Tensor[f32, None], y: Tensor[f32, None]):
    a = tile.load_like(x, z)  # this block's 1024 elements of x (zeros past the end)
    b = tile.load_like(y, z)
    tile.store(a + b, z)  # this block's tile of z, and nothing else


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    # doc:begin launch
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    z = np.full(n, np.nan, np.float32)  # poisoned: an element no block writes stays NaN

    vector_add.on(device)(z, x, y)  # one tile block per 1024 elements of z, checked first
    assert np.array_equal(z, x + y)
    # doc:end
    print(f"tile vector add of {n} elements on {vector_add.on(device).runs_on}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
