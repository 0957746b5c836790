"""The interpreter's implementations of the tile-support SIMT ops (`simt.tile_index`,
`simt.store_chunk`, `simt.load_chunk`), exactly as dialects/simt/tile_support.py defines them."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import simt
from ferrox.driver.interpreter.errors import KernelRace
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
    coords = []
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
                f"simt.load_chunk out of range: elements {i} to {i + n - 1} of {buffer.name} (length {buffer.length})",
            )
        return tuple(buffer.read(i + j) if j < n else pad for j in range(w))
