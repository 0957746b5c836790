"""The ops `convert-tile-to-simt` emits (dialects/simt/tile_support.py), exactly as that module
defines them: `simt.tile_index` (a chunk witness), `simt.store_chunk`, `simt.load_chunk`, and
`simt.mma_sync`, a warp collective: each lane hands its fragment registers to the warp and gets
its own four results of `A @ B + C` from all 32 lanes' fragments, laid out as PTX's m16n8k16
fragments.

`simt.slice_aligned` tests the address of the buffer's element 0 here (a NumPy array's);
`simt.unchecked_load_chunk` and `simt.unchecked_store_chunk` are unchecked on the GPU, but not
here: a chunk out of range or misaligned (that address plus `i` elements) is a fault naming the
op, and the store claims its elements as `simt.store_chunk` does, so two threads writing one
element is a race error. A lowering that took its fast path wrongly fails on the CPU."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import Float16Type

from ferrox.dialects import simt
from ferrox.dialects.simt.specialize import partition_threads
from ferrox.driver.interpreter.memory import claim
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.simt_ops.ids import block_ids
from ferrox.driver.interpreter.simt_ops.warp import collective
from ferrox.driver.interpreter.values import element_bytes

_MAX = np.uint64(2**64 - 1)


class ChunkWitness:
    """Chunk witnesses of the lanes: `raw` the flat index of each chunk's first element, `count`
    how many leading elements are in bounds of the tile and the tensor (the slice's length is
    applied by the store); `valid` is `count > 0`, for `simt.witness_value`."""

    __slots__ = ("raw", "valid", "count")

    def __init__(self, raw, count):
        self.raw = raw
        self.count = count
        self.valid = count > 0


def _threads(ex, op) -> int:
    """`P` of the chunk `k * P + t`: the block's threads, or in a `simt.specialize` region its
    partition's (the consumers, the block's first threads)."""
    found = partition_threads(op)
    return found[1] if found is not None else ex.launch.tpb


def chunk_witness(ex, op: simt.TileIndexOp, args, threads: int | None = None) -> ChunkWitness:
    """The witness `op` makes; `threads` is `P` of `k * P + t` where the caller has it
    (`_threads`)."""
    p = _threads(ex, op) if threads is None else threads
    space = op.space
    shape = space.get_tile_shape()
    w, rank = space.chunk.data, len(shape)
    n = ex.n
    k = np.broadcast_to(np.asarray(args[0]).astype(np.int64).view(np.uint64), (n,))
    dims = [np.asarray(d).astype(np.int64).view(np.uint64) for d in args[1 : 1 + len(shape)]]
    total = 1
    for d in shape:
        total *= d
    persistent = space.is_persistent
    bids = persistent_tile(args[-1], shape, dims) if persistent else block_ids(ex)
    with np.errstate(all="ignore"):
        c = k * np.uint64(p) + ex.linear.astype(np.uint64)
        ok = c < np.uint64(total // w)
        for d in range(rank, 3):
            ok = ok & (bids[d] == 0)
        first = c * np.uint64(w)
        coords: list[np.ndarray] = []
        reverse = () if persistent else space.get_grid_reverse()
        for d in reversed(range(rank)):
            # the CUDA axis that walks tile-grid axis d, or the persistent loop's tile's axis d
            b = (bids[d] if persistent else bids[space.block_axis(d)]).astype(np.uint64)
            if d in reverse:  # last tile first: block b takes tile n - 1 - b, if b < n
                (count,) = tile_counts(shape[d : d + 1], dims[d : d + 1])
                ok = ok & (b < count)
                b = count - np.uint64(1) - b
            coords.insert(0, first % np.uint64(shape[d]) + b * np.uint64(shape[d]))
            first = first // np.uint64(shape[d])
        flat = np.zeros(n, np.uint64)
        for g, s in zip(coords, dims):
            ok = ok & (g < s)
            fits = (flat == 0) | (
                np.maximum(s, np.uint64(1)) <= (_MAX - g) // np.maximum(flat, np.uint64(1))
            )
            ok = ok & fits
            flat = flat * s + g
        count = np.where(ok, np.minimum(np.uint64(w), dims[-1] - coords[-1]), 0).astype(np.int64)
    return ChunkWitness(flat.view(np.int64), count)


def tile_counts(shape, dims) -> list[np.ndarray]:
    """`n_d = ceildiv(S[d], T[d])`, the tiles along each axis (`S // T + (S % T != 0)`: no
    wrap for `S` near 2^64, as on the GPU)."""
    return [d // np.uint64(t) + (d % np.uint64(t) != 0) for d, t in zip(dims, shape)]


def persistent_tile(t, shape, dims) -> list:
    """Tile `t` of a persistent loop as tile coordinates (`simt.tile_schedule`): `b_0 = t mod
    n_0`, `b_1 = (t div n_0) mod n_1`, ..., axis 0 fastest; 0 past the rank."""
    q = np.asarray(t).astype(np.int64).view(np.uint64)
    out: list = []
    with np.errstate(all="ignore"):
        for n in tile_counts(shape, dims):
            n = np.maximum(n, np.uint64(1))  # inside the loop t < prod(n): every n_d >= 1
            out.append(q % n)
            q = q // n
    return out + [np.uint64(0)] * (3 - len(out))


@lowers(simt.TileScheduleOp)
def _tile_schedule(op):
    shape = op.space.get_tile_shape()

    def run(ex, args, mask):
        dims = [np.asarray(d).astype(np.int64).view(np.uint64) for d in args]
        tiles = np.ones((), np.uint64)
        with np.errstate(all="ignore"):
            for n in tile_counts(shape, dims):
                tiles = tiles * n  # wraps as the GPU's 64-bit product does
        bx, by, bz = block_ids(ex)
        count = np.where((by == 0) & (bz == 0), np.asarray(tiles).view(np.int64), 0)
        return (bx, count, np.int64(ex.launch.grid[0]))

    return run


@lowers(simt.TileIndexOp)
def _tile_index(op):
    found = partition_threads(op)  # once, not at every run of the op
    if found is None:
        return lambda ex, args, mask: (chunk_witness(ex, op, args, ex.launch.tpb),)
    return lambda ex, args, mask, p=found[1]: (chunk_witness(ex, op, args, p),)


@lowers(simt.StoreChunkOp)
def _store_chunk(op):
    def run(ex, args, mask):
        buffer, witness, values = args[0], args[1], args[2:]
        raw = np.broadcast_to(witness.raw, (ex.n,))
        room = np.maximum(0, buffer.length - raw)
        count = np.where(mask, np.minimum(np.broadcast_to(witness.count, (ex.n,)), room), 0)
        parts = [(np.flatnonzero(count > j), j) for j in range(len(values))]
        lanes = np.concatenate([p for p, _ in parts])
        elems = np.concatenate([raw[p] + j for p, j in parts])
        if len(lanes):
            claim(ex, op, buffer, elems, lanes, "")
        for (p, j), v in zip(parts, values):
            if len(p):
                buffer.array[raw[p] + j] = np.broadcast_to(v, (ex.n,))[p]
        return ()

    return run


def chunk_range(ex, op, buffer, index, count, w: int, mask):
    """(first element, element count) a lane's chunk covers, each lane's count capped at `w`;
    a lane whose chunk leaves `buffer` (or wraps) is a fault naming the op."""
    n = ex.n
    i = np.broadcast_to(np.asarray(index).astype(np.int64).view(np.uint64), (n,))
    m = np.minimum(
        np.broadcast_to(np.asarray(count).astype(np.int64).view(np.uint64), (n,)), np.uint64(w)
    )
    with np.errstate(all="ignore"):
        bad = mask & (m > 0) & ((i + m > np.uint64(buffer.length)) | (i + m < i))
    if bad.any():
        k = int(np.argmax(bad))
        first, last = int(i[k]), int(i[k]) + int(m[k]) - 1
        raise ex.fault(
            op,
            bad,
            f"{op.name} out of range: elements {first} to {last} of {buffer.name} "
            f"(length {buffer.length})",
        )
    return i, m


@lowers(simt.LoadChunkOp)
def _load_chunk(op):
    w = len(op.res)

    def run(ex, args, mask):
        buffer, index, count, pad = args
        n = ex.n
        i, m = chunk_range(ex, op, buffer, index, count, w, mask)
        results = []
        for j in range(w):
            take = mask & (m > j)
            safe = np.where(take, i + np.uint64(j), 0).astype(np.int64)
            got = buffer.array[safe] if buffer.length else np.zeros(n, buffer.array.dtype)
            results.append(np.where(take, got, pad).astype(buffer.array.dtype))
        return tuple(results)

    return run


@lowers(simt.SliceAlignedOp)
def _slice_aligned(op):
    align = op.bytes.value.data
    return lambda ex, args, mask: (np.bool_(args[0].array.ctypes.data % align == 0),)


def _unchecked_range(ex, op, buffer, index, w: int, mask) -> np.ndarray:
    """Each lane's first element; a fault where a lane's chunk leaves `buffer` or is not
    aligned to its size."""
    mask = np.broadcast_to(mask, (ex.n,))
    i, _ = chunk_range(ex, op, buffer, index, w, w, mask)  # a whole chunk: count w
    size = element_bytes(buffer.element)
    align = w * size
    with np.errstate(all="ignore"):
        address = np.uint64(buffer.array.ctypes.data) + i * np.uint64(size)
    misaligned = mask & (address % np.uint64(align) != 0)
    if misaligned.any():
        k = int(np.argmax(misaligned))
        raise ex.fault(
            op,
            misaligned,
            f"{op.name} at element {int(i[k])} of {buffer.name}: the address is not a multiple "
            f"of {align} bytes",
        )
    return i.astype(np.int64)


@lowers(simt.UncheckedLoadChunkOp)
def _unchecked_load_chunk(op):
    w = len(op.res)

    def run(ex, args, mask):
        buffer, index = args
        mask = np.broadcast_to(mask, (ex.n,))
        i = _unchecked_range(ex, op, buffer, index, w, mask)
        safe = np.where(mask, i, 0)
        dtype = buffer.array.dtype
        out = []
        for j in range(w):
            got = buffer.array[safe + j] if mask.any() else np.zeros(ex.n, dtype)
            out.append(np.where(mask, got, np.zeros((), dtype)).astype(dtype))
        return tuple(out)

    return run


@lowers(simt.UncheckedStoreChunkOp)
def _unchecked_store_chunk(op):
    w = len(op.values)

    def run(ex, args, mask):
        buffer, index, values = args[0], args[1], args[2:]
        mask = np.broadcast_to(mask, (ex.n,))
        i = _unchecked_range(ex, op, buffer, index, w, mask)
        lanes = np.flatnonzero(mask)
        if not len(lanes):
            return ()
        claim(
            ex,
            op,
            buffer,
            np.concatenate([i[lanes] + j for j in range(w)]),
            np.concatenate([lanes] * w),
            "",
        )
        for j, v in enumerate(values):
            buffer.array[i[lanes] + j] = np.broadcast_to(v, (ex.n,))[lanes]
        return ()

    return run


def _halves(words: np.ndarray, f16: bool) -> tuple[np.ndarray, np.ndarray]:
    """The two 16-bit floats of i32 registers, low half first, as f64."""
    u = words.astype(np.int64).view(np.uint64) & np.uint64(0xFFFFFFFF)
    lo, hi = (u & np.uint64(0xFFFF)).astype(np.uint16), (u >> np.uint64(16)).astype(np.uint16)
    if f16:
        return lo.view(np.float16).astype(np.float64), hi.view(np.float16).astype(np.float64)
    conv = lambda h: (h.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)  # noqa: E731
    return conv(lo), conv(hi)


def mma_a_fragment(tables, f16: bool) -> np.ndarray:
    """A (warps, 16, 16) of `mma.sync.m16n8k16` from the lanes' four A registers (`tables`,
    each (warps, 32)); wgmma's register A holds each warp's 16 rows the same way."""
    a = np.zeros((tables[0].shape[0], 16, 16))
    lane = np.arange(32)
    g, q = lane >> 2, lane & 3
    for i in range(8):
        half = _halves(tables[i // 2], f16)[i % 2]
        a[:, g + 8 * (i >> 1 & 1), 2 * q + (i & 1) + 8 * (i >> 2)] = half
    return a


def mma_fragments(tables, f16: bool):
    """A (warps, 16, 16), B (warps, 16, 8) and C (warps, 16, 8) from the lanes' registers."""
    nw = tables[0].shape[0]
    a, b, c = mma_a_fragment(tables[:4], f16), np.zeros((nw, 16, 8)), np.zeros((nw, 16, 8))
    lane = np.arange(32)
    g, q = lane >> 2, lane & 3
    for i in range(4):
        half = _halves(tables[4 + i // 2], f16)[i % 2]
        b[:, 2 * q + (i & 1) + 8 * (i >> 1), g] = half
    for i in range(4):
        c[:, g + 8 * (i >> 1), 2 * q + (i & 1)] = tables[6 + i].astype(np.float64)
    return a, b, c


@lowers(simt.MmaSyncOp)
def _mma_sync(op):
    f16 = isinstance(op.element, Float16Type)

    def run(ex, args, mask):
        def compute(tables, present, rows, cols):
            if not present[np.unique(rows)].all():
                raise ex.fault(op, mask, "'simt.mma_sync' needs all 32 lanes of the warp")
            a, b, c = mma_fragments(tables, f16)
            d = (a @ b + c).astype(
                np.float32
            )  # exact products, rounded once: an order the GPU may take
            g, q = cols >> 2, cols & 3
            return tuple(d[rows, g + 8 * (i >> 1), 2 * q + (i & 1)] for i in range(4))

        return collective(ex, op, mask, tuple(args), compute)

    return run
