"""A host program in Python with two streams and a partition: a SIMT kernel (x + y) on one
stream, a tile kernel (x * y) over a partitioned output on the other, both reading the same inputs.

    python examples/python/host_two_streams.py [--device auto|gpu|cpu] [--n 100000]

The program is recorded as the host dialect (every op at its Python line), checked by
`verify-ownership` (no tensor used after a launch took it, no output read before its stream's
sync), and only then run. `out` is the caller's array and comes back holding the result; `z` is
made by the program (poisoned with NaN) and comes back as a NumPy array. Both kernels are Python
(`@simt.kernel`, `@tile.kernel`); a kernel written in MLIR can be launched the same way, from
`host.mlir_kernels("file.mlir")["name"]`.
"""

from __future__ import annotations

import argparse

import numpy as np

from ferrox import host, simt, tile
from ferrox.simt import DisjointSlice, Slice, f32
from ferrox.tile import Partition, Tensor


@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def vecadd(a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + b[i]


@tile.kernel
def vector_mul(z: Partition[f32, 1024], x: Tensor[f32, None], y: Tensor[f32, None]):
    tile.store(tile.load_like(x, z) * tile.load_like(y, z), z)


# doc:begin program
@host.program
def two_streams(x, y, out):  # caller arrays: host.from_array 0, 1, 2
    s1 = host.stream()
    s2 = host.stream()
    # SIMT: a checked configuration, then the launch; it takes `out` and gives it back
    p = host.prepare(vecadd, -(-len(out) // 256), 256, x, y, out)
    out = host.launch(p, s1, x, y, out)
    # tile: partition a fresh, poisoned tensor; one tile block per 1024-element tile
    z = host.poison(x.shape, f32)
    pz = host.partition(z, 1024)
    pz = host.tile_launch(vector_mul, s2, pz, x, y)
    z = host.unpartition(pz)
    host.sync(s1)  # both streams synced before the host reads either output
    host.sync(s2)
    host.check(z, "x * y", x=x, y=y)  # a check inside the program: a failure fails the call
    return out, z


# doc:end


def main(device: str = "auto", n: int = 100_000) -> int:
    # doc:begin call
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)  # poisoned: an element no thread writes stays NaN

    program = two_streams.on(device)
    got, z = program(x, y, out)  # recorded, verified, then run
    assert got is out and np.array_equal(out, x + y)
    assert np.array_equal(z, x * y)
    # doc:end
    ran = program.last_run.device
    print(f"host program with two streams and a partition, {n} elements on {ran}: matches NumPy")
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", choices=("auto", "gpu", "cpu"))
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    raise SystemExit(main(args.device, args.n))
