"""Kernels on the GEMM pipeline surface (`simt.async_copy`, `async_commit`, `async_wait`,
`shared_load_vector`, `ldmatrix`) and on tuples carried by loops: the ones that keep the rules
(test_pipeline.py runs them against NumPy) and one misuse of each op, refused by the op
verifiers or verify-disjoint at the line a `# <- NAME` comment marks."""

from __future__ import annotations

from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f16, f32, i16, i32, index, space_tile

# -- kept -------------------------------------------------------------------------------------


# doc:begin staged_sum
@simt.kernel(block=64, requires=["len(x) >= len(out)"])
def staged_sum(x: Slice[f32], out: DisjointSlice[f32]):
    """Each thread copies 4 elements of x into shared memory (zeros past x's end), then sums
    the 4 thread 63 - t copied: out[64 b + t] = sum(x[256 b + 4 (63 - t) ..][:4])."""
    stage = simt.shared(f32, 256)
    t = simt.thread_id.x
    start = simt.block_id.x * 256 + t * 4
    n = len(x)
    with simt.unsafe():
        simt.async_copy(x, start, simt.where(start < n, min(n - start, 4), 0), stage, t * 4, 4)
    simt.async_commit()
    simt.async_wait(0)
    simt.sync_threads()
    with simt.unsafe():
        v = simt.shared_load_vector(stage, (63 - t) * 4, 4)  # thread 63 - t's copy
    w = simt.thread_index_1d()
    out[w] = (v[0] + v[1]) + (v[2] + v[3])


# doc:end


@simt.kernel(block=32, requires=["len(x) >= n", "len(out) == n"])
def fragments(x: Slice[i16], out: DisjointSlice[i32, space_tile(256, 4, "n")], n: index):
    """One warp a block loads four 8 x 8 matrices of i16 (x[256 b ..] row-major, matrix after
    matrix) with `ldmatrix`, then with `ldmatrix(trans=True)`; lane l stores its four packed
    registers at out[256 b + 4 l ..], the transposed ones at out[256 b + 128 + 4 l ..]."""
    tile = simt.shared(i16, 256)
    lane = simt.thread_id.x
    with simt.unsafe():  # lane l copies row l % 8 of matrix l / 8: 8 elements, 16 bytes
        simt.async_copy(x, simt.block_id.x * 256 + lane * 8, 8, tile, lane * 8, 8)
    simt.async_commit()
    simt.async_wait(0)
    simt.sync_threads()
    with simt.unsafe():
        r = simt.ldmatrix(tile, lane * 8)
        s = simt.ldmatrix(tile, lane * 8, trans=True)
    out[simt.tile_index(out, 0)] = r
    out[simt.tile_index(out, 1)] = s


@simt.kernel(
    block=32,
    requires=["len(a) >= 2 * n", "len(b) >= n", "len(c) >= n", "len(out) == n"],
)
def warp_mma(
    a: Slice[f16],
    b: Slice[f16],
    c: Slice[f32],
    out: DisjointSlice[f32, space_tile(128, 2, "n")],
    n: index,
):
    """Block k's warp: out = a @ b + c on tensor cores, a 16 x 16 (a[256 k ..], row-major), b
    16 x 8 (b[128 k ..]), c and out 16 x 8 (from 128 k). The fragments come from `ldmatrix`:
    a's four 8 x 8 quarters as they are, b's two 8 x 8 halves transposed."""
    sa = simt.shared(f16, 256)
    sb = simt.shared(f16, 128)
    lane = simt.thread_id.x
    blk = simt.block_id.x
    with simt.unsafe():
        simt.async_copy(a, blk * 256 + lane * 8, 8, sa, lane * 8, 8)  # row lane / 2, half
        if lane < 16:
            simt.async_copy(b, blk * 128 + lane * 8, 8, sb, lane * 8, 8)  # row lane
    simt.async_commit()
    simt.async_wait(0)
    simt.sync_threads()
    g, q = lane // 4, lane % 4
    m = lane // 8  # the matrix this lane names a row of: quarter (m % 2, m / 2) of a
    with simt.unsafe():
        fa = simt.ldmatrix(sa, (lane % 8 + 8 * (m % 2)) * 16 + 8 * (m // 2))
        fb = simt.ldmatrix(sb, (lane % 8 + 8 * (m % 2)) * 8, trans=True)
    base = blk * 128
    acc = (
        c[base + g * 8 + 2 * q],
        c[base + g * 8 + 2 * q + 1],
        c[base + (g + 8) * 8 + 2 * q],
        c[base + (g + 8) * 8 + 2 * q + 1],
    )
    d = simt.mma_sync(f16, fa, fb[0:2], acc)
    out[simt.tile_index(out, 0)] = d[0:2]  # row g, columns 2 q, 2 q + 1
    out[simt.tile_index(out, 1)] = d[2:4]  # row g + 8


@simt.kernel(block=64, requires=["len(x) >= len(out) * 4"])
def carried_tuple(x: Slice[f32], out: DisjointSlice[f32], steps: index):
    """A tuple of four accumulators carried by a `for` and a `while`: out[i] sums x[4 i .. +3],
    each element weighted (j + 1) per trip, `steps` trips of each loop."""
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:  # runs only where w is in bounds of out
        acc = (0.0,) * 4
        for _s in range(steps):
            new = ()
            for j in simt.static_range(4):
                new += (acc[j] + x[4 * i + j] * f32(j + 1),)
            acc = new
        k = index(0)
        while k < steps:
            acc = acc[2:] + acc[:2]  # the same four values, rotated twice a trip
            acc = acc[2:] + acc[:2]
            k += 1
        slot.value = (acc[0] + acc[1]) + (acc[2] + acc[3])


# -- refused ----------------------------------------------------------------------------------


@simt.kernel(block=64, requires=["len(x) >= 256"])
def copy_wrong_width(x: Slice[f32], out: DisjointSlice[f32]):
    stage = simt.shared(f32, 512)
    t = simt.thread_id.x
    with simt.unsafe():
        simt.async_copy(x, t * 4, 4, stage, t * 8, 8)  # <- copy_width
    simt.async_commit()
    simt.async_wait(0)
    out[simt.thread_index_1d()] = 0.0


@simt.kernel(block=64, requires=["len(x) >= 256"])
def copy_outside_unsafe(x: Slice[f32], out: DisjointSlice[f32]):
    stage = simt.shared(f32, 256)
    t = simt.thread_id.x
    simt.async_copy(x, t * 4, 4, stage, t * 4, 4)  # <- copy_unsafe
    simt.async_commit()
    simt.async_wait(0)
    out[simt.thread_index_1d()] = 0.0


@simt.kernel(block=64)
def copy_from_disjoint(out: DisjointSlice[f32]):
    stage = simt.shared(f32, 256)
    t = simt.thread_id.x
    with simt.unsafe():
        simt.async_copy(out, t * 4, 4, stage, t * 4, 4)  # <- copy_disjoint
    out[simt.thread_index_1d()] = 0.0


@simt.kernel(block=64, requires=["len(x) >= 256"])
def wait_too_many(x: Slice[f32], out: DisjointSlice[f32]):
    stage = simt.shared(f32, 256)
    t = simt.thread_id.x
    with simt.unsafe():
        simt.async_copy(x, t * 4, 4, stage, t * 4, 4)
    simt.async_commit()
    simt.async_wait(8)  # <- wait_pending
    out[simt.thread_index_1d()] = 0.0


@simt.kernel(block=64)
def wait_run_time(out: DisjointSlice[f32], pending: index):
    simt.async_wait(pending)  # <- wait_run_time
    out[simt.thread_index_1d()] = 0.0


@simt.kernel(block=64)
def commit_with_argument(out: DisjointSlice[f32]):
    simt.async_commit(1)  # <- commit_argument
    out[simt.thread_index_1d()] = 0.0


@simt.kernel(block=64)
def vector_too_wide(out: DisjointSlice[f32]):
    stage = simt.shared(f32, 512)
    t = simt.thread_id.x
    with simt.unsafe():
        v = simt.shared_load_vector(stage, t * 8, 8)  # <- vector_wide
    out[simt.thread_index_1d()] = v[0]


@simt.kernel(block=64)
def vector_outside_unsafe(out: DisjointSlice[f16]):
    stage = simt.shared(f16, 256)
    t = simt.thread_id.x
    v = simt.shared_load_vector(stage, t * 4, 4)  # <- vector_unsafe
    out[simt.thread_index_1d()] = v[0]


@simt.kernel(block=32)
def ldmatrix_of_f32(out: DisjointSlice[i32]):
    stage = simt.shared(f32, 256)
    with simt.unsafe():
        r = simt.ldmatrix(stage, simt.thread_id.x * 8)  # <- ldmatrix_f32
    out[simt.thread_index_1d()] = r[0]


@simt.kernel(block=32)
def ldmatrix_divergent(out: DisjointSlice[i32], n: index):
    stage = simt.shared(f16, 256)
    t = simt.thread_id.x
    v = i32(0)
    if t < n:  # <- ldmatrix_if
        with simt.unsafe():
            r = simt.ldmatrix(stage, t * 8)  # <- ldmatrix_divergent
        v = r[0]
    out[simt.thread_index_1d()] = v


@simt.kernel(block=256, requires=["len(c) == m * n"])
def chunk_wrong_width(c: DisjointSlice[f32, space_tile((128, 128), 8, "m")], m: index, n: index):
    acc = (1.0,) * 8
    c[simt.tile_index(c, 0)] = acc[0:4]  # <- chunk_width


@simt.kernel(block=64)
def tuple_changes_length(out: DisjointSlice[f32], n: index):
    acc = (0.0,) * 4
    for _k in range(n):  # <- tuple_length
        acc = acc + (1.0,)
    out[simt.thread_index_1d()] = acc[0]


@simt.kernel(block=64)
def tuple_sliced_at_run_time(out: DisjointSlice[f32], n: index):
    acc = (1.0, 2.0, 3.0, 4.0)
    part = acc[:n]  # <- run_time_slice
    out[simt.thread_index_1d()] = part[0]


@simt.kernel(block=64)
def nested_tuple_leaves_unsafe(out: DisjointSlice[f32]):
    stage = simt.shared(f32, 256)
    with simt.unsafe():  # <- nested_tuple
        pairs = ((stage[0], stage[1]), (stage[2], stage[3]))
    out[simt.thread_index_1d()] = pairs[0][0]


@simt.kernel(block=64, requires=["len(x) >= len(out)"])
def tuple_through_if(x: Slice[f32], out: DisjointSlice[f32]):
    """out[i] = 2 x[i] + 1 where x[i] > 0, else x[i] - 3: a tuple rebound on one path of an
    `if`, then on both, each element merged."""
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:
        v = x[i]
        pair = (v, 1.0)
        if v > 0.0:
            pair = (pair[0] * 2.0, pair[1])
        if v > 0.0:
            pair = (pair[0], 1.0)
        else:
            pair = (pair[0], -3.0)
        slot.value = pair[0] + pair[1]


@simt.kernel(block=64)
def tuple_if_lengths(out: DisjointSlice[f32], n: index):
    acc = (0.0, 0.0)
    if n > 4:  # <- if_lengths
        acc = (1.0, 2.0, 3.0)
    out[simt.thread_index_1d()] = acc[0]


@simt.kernel(block=32)
def mma_three_fragments(out: DisjointSlice[f32]):
    r = (i32(0), i32(0), i32(0))
    d = simt.mma_sync(simt.bf16, r, (i32(0), i32(0)), (0.0, 0.0, 0.0, 0.0))  # <- mma_fragments
    out[simt.thread_index_1d()] = d[0]


@simt.kernel(block=32)
def mma_of_f32(out: DisjointSlice[f32]):
    r = (i32(0),) * 4
    d = simt.mma_sync(f32, r, r[0:2], (0.0,) * 4)  # <- mma_f32
    out[simt.thread_index_1d()] = d[0]
