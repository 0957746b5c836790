"""The decorated kernels `launch_host.py` relaunches (apart: a `--tree` run imports ferrox from
another checkout first, and the frontend reads a kernel's names from its module's globals)."""

from __future__ import annotations

from ferrox import simt, tile
from ferrox.simt import DisjointSlice, Slice, f32
from ferrox.tile import Partition, Tensor


@simt.kernel(block=32, requires=["len(a) >= len(out)"])
def py_copy(a: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    out[w] = a[w.value]


@tile.kernel
def py_tile_copy(z: Partition[f32, 256], x: Tensor[f32, None]):
    tile.store(tile.load_like(x, z), z)
