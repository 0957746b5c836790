"""Python twins of the SIMT MLIR examples that have no example of their own under
examples/python/ (transpose, sgemm_naive, vecadd_unchecked, vecadd_vec4, alu, gcd, piecewise);
test_twins.py loads this file."""

from __future__ import annotations

from ferrox import simt
from ferrox.simt import SPACE_2D_RUNTIME, DisjointSlice, Ptr, Slice, f32, i32, index, space_tile


@simt.kernel(block=(32, 32), requires=["len(x) >= rows * cols", "len(out) == rows * cols"])
def transpose(x: Slice[f32], out: DisjointSlice[f32, SPACE_2D_RUNTIME], rows: index, cols: index):
    tile = simt.shared(f32, (32, 33))
    tx, ty = simt.thread_id.x, simt.thread_id.y
    in_row = simt.block_id.x * 32 + ty
    in_col = simt.block_id.y * 32 + tx
    v = x[in_row * cols + in_col] if in_row < rows and in_col < cols else 0.0
    with simt.unsafe():
        tile[ty, tx] = v
    simt.sync_threads()
    with simt.unsafe():
        t = tile[tx, ty]
    out[simt.index_2d_runtime(rows)] = t


@simt.kernel(block=(16, 16), requires=["len(a) >= m * k", "len(b) >= k * n", "len(c) == m * n"])
def sgemm_naive(
    a: Slice[f32],
    b: Slice[f32],
    c: DisjointSlice[f32, SPACE_2D_RUNTIME],
    m: index,
    n: index,
    k: index,
):
    w = simt.index_2d_runtime(n)
    raw = w.value
    with c[w] as slot:
        row = raw // n
        col = raw % n
        slot.value = 0.0
        for p in range(k):
            slot.value += a[row * k + p] * b[p * n + col]


@simt.kernel(unsafe=True, contract=False)
def vecadd_unchecked(a: Ptr[f32], b: Ptr[f32], out: Ptr[f32], n: index):
    i = simt.block_id.x * simt.block_dim.x + simt.thread_id.x
    if i < n:
        out[i] = a[i] + b[i]


@simt.kernel(block=256, requires=["len(a) >= n", "len(b) >= n", "len(out) == n"])
def vecadd_vec4(
    a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32, space_tile(1024, 4, "n")], n: index
):
    start = simt.block_id.x * 1024 + (simt.thread_id.x << 2)
    count = simt.where(start < n, min(n - start, 4), 0)
    x0, x1, x2, x3 = simt.load_chunk(a, start, count, 0.0, 4)
    y0, y1, y2, y3 = simt.load_chunk(b, start, count, 0.0, 4)
    w = simt.tile_index(out, 0)  # chunk thread_id.x of this block's 1024-element tile
    out[w] = (x0 + y0, x1 + y1, x2 + y2, x3 + y3)  # simt.store_chunk: in-bounds elements only


@simt.kernel(
    block=256,
    requires=["len(a) >= len(out)", "len(b) >= len(out)", "len(op) >= len(out)"],
)
def alu(a: Slice[f32], b: Slice[f32], op: Slice[i32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:  # the MLIR's scf.index_switch as an if/elif chain
        x, y, code = a[i], b[i], op[i]
        if code == 0:
            r = x + y
        elif code == 1:
            r = x - y
        elif code == 2:
            r = x * y
        else:
            r = max(x, y)
        slot.value = r


@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def gcd(a: Slice[i32], b: Slice[i32], out: DisjointSlice[i32]):
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:
        p, q = a[i], b[i]
        while q != 0:  # a trip count that depends on each thread's data
            p, q = q, p % q
        slot.value = p


@simt.kernel(block=256, requires=["len(x) >= len(out)", "len(sel) >= len(out)"])
def piecewise(x: Slice[f32], sel: Slice[i32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    with out[w] as slot:  # the MLIR's cf.switch as an if/elif chain
        v, k = x[i], sel[i]
        r = 0.0
        if k == 0:
            r = v * v
        elif k == 1:
            r = v + 1.0
        elif k == 5:
            r = v
        slot.value = r
