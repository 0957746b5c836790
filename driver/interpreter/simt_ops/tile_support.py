"""The ops `convert-tile-to-simt` emits (dialects/simt/tile_support.py), exactly as that module
defines them: `simt.tile_index` (a chunk witness), `simt.store_chunk`, `simt.load_chunk`, and
`simt.mma_sync`, a warp collective: each lane hands its fragment registers to the warp (the
scheduler's `exchange`) and computes its own four results of `A @ B + C` from all 32 lanes'
fragments, laid out as PTX's m16n8k16 fragments."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import Float16Type
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import simt
from ferrox.driver.interpreter.errors import KernelRace
from ferrox.driver.interpreter.simt_ops.sync import scheduler
from ferrox.driver.interpreter.values import INDEX_WIDTH, unsigned


class ChunkWitness:
    """A chunk witness: `raw` the flat index of its first element, `count` how many leading
    elements are in bounds of the tile and the tensor (the slice's length is applied by the
    store); `valid` is `count > 0`, for `simt.witness_value`."""

    __slots__ = ("raw", "valid", "count")

    def __init__(self, raw: int, count: int):
        self.raw = raw
        self.count = count
        self.valid = count > 0


def chunk_witness(interp, op: simt.TileIndexOp, args) -> ChunkWitness:
    space = op.space
    shape = space.get_tile_shape()
    w, rank = space.chunk.data, len(shape)
    block = interp.launch.block
    threads = block[0] * block[1] * block[2]
    k = unsigned(args[0], INDEX_WIDTH)
    dims = [unsigned(d, INDEX_WIDTH) for d in args[1:]]
    n = 1
    for d in shape:
        n *= d
    c = k * threads + interp.thread.linear
    ok = c < n // w and all(interp.thread.bid[d] == 0 for d in range(rank, 3))
    first = c * w
    coords: list[int] = []
    for d in reversed(range(rank)):
        coords.insert(0, first % shape[d] + interp.thread.bid[d] * shape[d])
        first //= shape[d]
    ok = ok and all(g < s for g, s in zip(coords, dims))
    flat = 0
    for g, s in zip(coords, dims):
        flat = flat * s + g
    ok = ok and flat < 1 << 64
    count = min(w, dims[-1] - coords[-1]) if ok else 0
    return ChunkWitness(flat, count)


def _half(word: int, i: int, f16: bool) -> float:
    """Element `i % 2` of an i32 register holding two 16-bit floats, low half first."""
    bits = ((word & 0xFFFFFFFF) >> (16 * (i % 2))) & 0xFFFF
    if f16:
        return float(np.array([bits], np.uint16).view(np.float16)[0])
    return float(np.array([bits << 16], np.uint32).view(np.float32)[0])


def mma_fragments(lanes, f16: bool):
    """A (16 x 16), B (16 x 8) and C (16 x 8) from the 32 lanes' registers (PTX's fragments)."""
    a, b, c = np.zeros((16, 16)), np.zeros((16, 8)), np.zeros((16, 8))
    for lane, regs in enumerate(lanes):
        g, q = lane >> 2, lane & 3
        for i in range(8):
            a[g + 8 * (i >> 1 & 1), 2 * q + (i & 1) + 8 * (i >> 2)] = _half(regs[i // 2], i, f16)
        for i in range(4):
            b[2 * q + (i & 1) + 8 * (i >> 1), g] = _half(regs[4 + i // 2], i, f16)
        for i in range(4):
            c[g + 8 * (i >> 1), 2 * q + (i & 1)] = regs[6 + i]
    return a, b, c


@register_impls
class TileSupportFunctions(InterpreterFunctions):
    @impl(simt.TileIndexOp)
    def run_tile_index(self, interp, op: simt.TileIndexOp, args: PythonValues):
        return (chunk_witness(interp, op, args),)

    @impl(simt.StoreChunkOp)
    def run_store_chunk(self, interp, op: simt.StoreChunkOp, args: PythonValues):
        buffer, witness, values = args[0], args[1], args[2:]
        count = min(witness.count, max(0, buffer.length - witness.raw))
        me = interp.global_thread()
        for j in range(count):
            i = witness.raw + j
            owner = buffer.owner
            if owner[i] != me:
                if owner[i] >= 0:
                    raise interp.trap(
                        op,
                        f"element {i} of {buffer.name} is written by two threads (global thread "
                        f"{int(owner[i])} before this one)",
                        KernelRace,
                    )
                owner[i] = me
            buffer.write(i, values[j])
        return ()

    @impl(simt.LoadChunkOp)
    def run_load_chunk(self, interp, op: simt.LoadChunkOp, args: PythonValues):
        buffer, index, count, pad = args
        w = len(op.res)
        i = unsigned(index, INDEX_WIDTH)
        n = min(unsigned(count, INDEX_WIDTH), w)
        if n and i + n > buffer.length:
            raise interp.trap(
                op,
                f"simt.load_chunk out of range: elements {i} to {i + n - 1} of {buffer.name} "
                f"(length {buffer.length})",
            )
        return tuple(buffer.read(i + j) if j < n else pad for j in range(w))

    @impl(simt.MmaSyncOp)
    def run_mma_sync(self, interp, op: simt.MmaSyncOp, args: PythonValues):
        lanes = scheduler(interp, op).exchange(interp.thread, op, tuple(args))
        if any(regs is None for regs in lanes):
            raise interp.trap(op, "'simt.mma_sync' needs all 32 lanes of the warp")
        a, b, c = mma_fragments(lanes, isinstance(op.element, Float16Type))
        d = (a @ b + c).astype(
            np.float32
        )  # exact products, rounded once: an order the GPU may take
        g, q = (interp.thread.linear & 31) >> 2, interp.thread.linear & 3
        return tuple(d[g + 8 * (i >> 1), 2 * q + (i & 1)] for i in range(4))
