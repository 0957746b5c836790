"""`tile.mma` (`acc + x @ y`): on tensor cores (`mma.sync` m16n8k16) for f16/bf16 inputs whose
tiles hold whole 16 x 16 / 16 x 8 fragments, else with FMAs; operands staged through shared memory.

**Tensor cores.** The accumulator's layout is the m16n8 fragment of PTX's `mma.sync` (column bit
0 and row bit 3 in registers, column bits 1-2 and row bits 0-2 in lane bits 0-4), repeated over
m16n8 tiles: warps take the highest tile-row and tile-column bits alternately (so each warp owns
a block of tiles, reusing its A and B fragments across it), registers the rest. Per `tile.mma`,
`x` and `y` are staged in shared memory as for FMAs; then for each 16-wide step of `k`, each lane
reads its A fragment of every m16 row tile of its warp and its B fragment of every n8 column
tile (element pairs packed in i32, low half first) and issues one `simt.mma_sync` per m16n8 tile.

**FMAs.**
The result's layout is 2-D blocked: each thread holds a small `TM x TN` block of `[M, N]` (the
two lowest column bits and the two lowest row bits are register bits: 4 x 4 with 16 registers),
and consecutive threads hold consecutive column blocks, then rows. Per `tile.mma`:
`x` and `y` are written (once per element) into shared arrays `xs[M][K]` and `ys[K][N]` (rows
padded by one where they are 32 or more wide), a barrier, then a loop over `k` in which each
thread reads the `TM` values `xs[m][k]` of its rows and the `TN` values `ys[k][n]` of its
columns and does `TM * TN` fused multiply-adds in f32 (f16 and bf16 inputs are widened exactly);
inside a loop, a second barrier before the arrays are written again. The sum over `k` runs in
order, one `llvm.fma` per product (the tile dialect allows fused multiply-add in any order).
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type, IndexType, f32, i16, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.tile.types import TileType
from ferrox.lowering import knobs
from ferrox.lowering.build import fma
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.exchange import padded_row, staging_size, write_all
from ferrox.lowering.tile_to_simt.layout import Layout, assign, log2
from ferrox.lowering.tile_to_simt.rules import rule

DEEP_ACCUMULATORS = 64
WARP_TX_BITS: int | None = None
"""log2 of a warp's thread columns in `spaced_layout`; None: `warp_columns` (a benchmark knob)."""


def warp_columns(accumulators: int) -> int:
    """log2 of the thread columns of a warp in `spaced_layout`: 4 x 8 threads when a thread holds
    `DEEP_ACCUMULATORS` or more (the k-major GEMM of `gemm.py`: a warp's 16-byte shared loads
    then read 64 + 128 distinct bytes a k instead of 32 + 256; 0.747 of cuBLAS against 0.726 at
    128 x 128 x 8 on the H200, docs/performance.md "Tile f32 GEMM (H13)"), else 16 x 2."""
    if WARP_TX_BITS is not None:
        return WARP_TX_BITS
    return 2 if accumulators >= DEEP_ACCUMULATORS else 4


def mma_layout(m: int, n: int, threads: int) -> Layout:
    """The layout of an `[m, n]` FMA accumulator over `threads` threads: 4 x 4 register blocks
    spread over a grid of threads, repeated (`spaced_layout`) where the tile is large enough,
    else one contiguous block per thread (`_blocked_layout`)."""
    spaced = spaced_layout(m, n, threads)
    return spaced if spaced is not None else _blocked_layout(m, n, threads)


def spaced_layout(m: int, n: int, threads: int) -> Layout | None:
    """Thread (ty, tx) holds the 4 x 4 blocks at rows `ty * 4 + R * i` and columns
    `tx * 4 + C * j` (R, C: 4 times the thread grid's sides): a thread's column blocks are 16
    bytes wide (vector shared loads) and the threads of a warp read consecutive blocks of a row
    of `ys` (no bank conflicts); None when the tile is too small for every thread a block.
    A warp is 16 x 2 threads (tx by ty), or 4 x 8 where each thread holds `DEEP_ACCUMULATORS`
    or more (`warp_columns`)."""
    p = log2(threads)
    ln, lm = log2(n), log2(m)
    lx = min(ln - 2, (p + 1) // 2)
    ly = p - lx
    if lx < 0 or ly < 0 or ly > lm - 2:
        return None
    cols = list(range(ln))
    rows = list(range(ln, ln + lm))
    regs = [cols[0], cols[1], *cols[2 + lx :], rows[0], rows[1], *rows[2 + ly :]]
    tx, ty = cols[2 : 2 + lx], rows[2 : 2 + ly]
    wx = min(lx, warp_columns(m * n // threads))  # a warp: 2^wx columns of 2^(5 - wx) threads
    wy = min(ly, 5 - wx)
    lanes = [*tx[:wx], *ty[:wy], *tx[wx:], *ty[wy:]]
    return assign((m, n), threads, regs, lanes)


def _blocked_layout(m: int, n: int, threads: int) -> Layout:
    lm, ln = log2(m), log2(n)
    cols = list(range(ln))
    rows = list(range(ln, ln + lm))
    order = cols[:2] + rows[:2]
    rest_c, rest_r = cols[2:], rows[2:]
    while rest_c or rest_r:
        if rest_c:
            order.append(rest_c.pop(0))
        if rest_r:
            order.append(rest_r.pop(0))
    registers = max(0, lm + ln - log2(threads))
    regs = order[:registers]
    lanes = [b for b in cols + rows if b not in regs]
    return assign((m, n), threads, regs, lanes)


def warp_split(m: int, n: int, warps: int) -> tuple[int, int] | None:
    """(log2 warp rows, log2 warp columns) of the warp grid over an `[m, n]` tile: each split
    halves the longer side of a warp's sub-tile (columns on a tie), keeping it at least 16 x 16;
    None when `warps` warps cannot each get such a sub-tile."""
    em, en, wm, wn = m, n, 0, 0
    for _ in range(log2(warps)):
        if en >= em and en >= 32:
            en, wn = en // 2, wn + 1
        elif em >= 32:
            em, wm = em // 2, wm + 1
        elif en >= 32:
            en, wn = en // 2, wn + 1
        else:
            return None
    return (wm, wn) if em >= 16 and en >= 16 else None


def tensor_core_layout(m: int, n: int, threads: int) -> Layout:
    """The accumulator layout of the tensor-core lowering (module docstring): warps tile the
    result (`warp_split`), each warp's sub-tile is its m16n8 tiles in registers."""
    split = warp_split(m, n, threads // 32) if threads >= 32 else None
    if split is None:
        return _small_tensor_core_layout(m, n, threads)
    return _warp_tiled(m, n, threads, *split)


def row_tensor_core_layout(m: int, n: int, threads: int) -> Layout | None:
    """The tensor-core accumulator layout with warps over rows only: each warp holds whole rows
    (`m / warps` of them, m16 tiles), so a row reduction needs no shared memory, and an `[m, k]`
    operand in this layout is, register for register, the A fragments of the warp's rows (the
    fused attention loop, `attention.py`); None when a warp would get fewer than 16 rows."""
    warps = threads // 32
    if threads < 32 or m < 16 * warps or n < 8:
        return None
    return _warp_tiled(m, n, threads, log2(warps), 0)


def _warp_tiled(m: int, n: int, threads: int, wm: int, wn: int) -> Layout:
    """m16n8 tiles: warps take the top `wm` row and `wn` column bits, registers the rest."""
    ln, lm = log2(n), log2(m)
    col = list(range(ln))
    row = list(range(ln, ln + lm))
    nt_bits = col[3 : ln - wn]
    mt_bits = row[4 : lm - wm]
    warps = col[ln - wn :] + row[lm - wm :]
    regs = [col[0], row[3], *nt_bits, *mt_bits]
    lanes = [col[1], col[2], row[0], row[1], row[2], *warps]
    return assign((m, n), threads, regs, lanes)


def _small_tensor_core_layout(m: int, n: int, threads: int) -> Layout:
    """Tiles too small for a 16 x 16 sub-tile per warp: warps take tile bits alternately."""
    ln = log2(n)
    col = list(range(ln))
    row = list(range(ln, ln + log2(m)))
    tile_rows, tile_cols = row[4:], col[3:]
    warps: list[int] = []
    spare_r, spare_c = list(tile_rows), list(tile_cols)
    while len(warps) < log2(threads) - 5 and (spare_r or spare_c):
        if spare_c:
            warps.append(spare_c.pop())
        if spare_r and len(warps) < log2(threads) - 5:
            warps.append(spare_r.pop())
    regs = [col[0], row[3], *spare_r, *spare_c]
    lanes = [col[1], col[2], row[0], row[1], row[2], *warps]
    return assign((m, n), threads, regs, lanes)


def uses_tensor_cores(op: Operation) -> bool:
    x, y = op.operands[0].type, op.operands[1].type
    assert isinstance(x, TileType) and isinstance(y, TileType)
    (m, k), (_, n) = x.get_shape(), y.get_shape()
    return isinstance(x.element_type, BFloat16Type | Float16Type) and m >= 16 and n >= 8 and k >= 16


def _infer(op: Operation, operands, config) -> list[Layout | None]:
    t = op.results[0].type
    assert isinstance(t, TileType)
    m, n = t.get_shape()
    if uses_tensor_cores(op):
        from ferrox.lowering.tile_to_simt.attention import fused_layout
        from ferrox.lowering.tile_to_simt.gemm_wgmma import layout_for

        if (hopper := layout_for(op, config)) is not None:  # sm_90's wgmma fragments
            return [hopper]

        fused = fused_layout(op, config.threads)
        if fused is not None:
            return [fused]
        return [tensor_core_layout(m, n, config.threads)]
    return [mma_layout(m, n, config.threads)]


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TileType)
    return t.get_shape()


@rule(tile.MmaOp, infer=_infer)
def lower_mma(ctx: Lowering, op: tile.MmaOp) -> None:
    layout = ctx.layout_of(op.result)
    m, k = _shape(op.lhs)
    _, n = _shape(op.rhs)
    element = op.lhs.type.element_type  # type: ignore[attr-defined]
    xs = ctx.shared(element, staging_size((m, k)), "xs")
    ys = ctx.shared(element, staging_size((k, n)), "ys")
    write_all(ctx, ctx.dist(op.lhs), xs)
    write_all(ctx, ctx.dist(op.rhs), ys)
    ctx.sync()
    acc = ctx.tile(op.acc, layout)
    if uses_tensor_cores(op):
        result = _tensor_cores(ctx, layout, acc, xs, ys, (m, k, n), element)
    else:
        result = _fmas(ctx, layout, acc, xs, ys, (m, k, n), element)
    ctx.sync_if_repeated()
    ctx.bind(op.result, Dist(layout, result))


def pack_pair(ctx: Lowering, low: SSAValue, high: SSAValue) -> SSAValue:
    """Two 16-bit elements in one i32, `low` in the low half (PTX's fragment order)."""
    lo = ctx(arith.ExtUIOp(ctx(arith.BitcastOp(low, i16)), i32))
    hi = ctx(arith.ExtUIOp(ctx(arith.BitcastOp(high, i16)), i32))
    return ctx(arith.OrIOp(lo, ctx(arith.ShLIOp(hi, ctx.constant(16, i32)))))


def _tensor_cores(ctx, layout: Layout, acc, xs, ys, mkn, element) -> list[SSAValue]:
    m, k, n = mkn
    pitch_x, pitch_y = padded_row((m, k)), padded_row((k, n))
    lane = ctx(arith.AndIOp(ctx.tid(), ctx.index(31)))
    g = ctx(arith.ShRUIOp(lane, ctx.index(2)))
    q2 = ctx.mul(ctx(arith.AndIOp(lane, ctx.index(3))), 2)
    tiles = layout.num_regs // 4
    corner = [ctx.coords(layout, 4 * t) for t in range(tiles)]  # element (g, 2q) of each tile
    m_of = [layout.static_element(4 * t) >> log2(n) for t in range(tiles)]
    n_of = [layout.static_element(4 * t) & (n - 1) for t in range(tiles)]
    rows, cols = sorted(set(m_of)), sorted(set(n_of))
    # Per m16 tile: the start of row g (and g + 8) in xs; per n8 tile: column n0 + g in ys.
    x_rows = {
        s: [ctx.mul(ctx.add(corner[m_of.index(s)][0], 8 * h), pitch_x) for h in (0, 1)]
        for s in rows
    }
    y_cols = {s: ctx.add(ctx(arith.SubiOp(corner[n_of.index(s)][1], q2)), g) for s in cols}
    a_cols = [ctx.add(q2, (i & 1) + 8 * (i >> 2)) for i in range(8)]
    b_rows = [ctx.add(q2, (i & 1) + 8 * (i >> 1)) for i in range(4)]

    body = Block(arg_types=[IndexType(), *(v.type for v in acc)])
    step = body.args[0]
    with ctx.at(InsertPoint.at_end(body)):
        k0 = ctx.mul(step, 16)

        def loads() -> list[SSAValue]:
            out = []
            for s in rows:
                for i in range(8):
                    at = ctx.add(ctx.add(x_rows[s][i >> 1 & 1], k0), a_cols[i])
                    out.append(ctx(simt.SharedLoadOp(xs, [at])))
            for s in cols:
                for i in range(4):
                    at = ctx.add(ctx.mul(ctx.add(k0, b_rows[i]), pitch_y), y_cols[s])
                    out.append(ctx(simt.SharedLoadOp(ys, [at])))
            return out

        loaded = ctx.unsafe(loads)
        a_frag = {
            s: [pack_pair(ctx, loaded[8 * j + 2 * i], loaded[8 * j + 2 * i + 1]) for i in range(4)]
            for j, s in enumerate(rows)
        }
        base = 8 * len(rows)
        b_frag = {
            s: [
                pack_pair(ctx, loaded[base + 4 * j + 2 * i], loaded[base + 4 * j + 2 * i + 1])
                for i in range(2)
            ]
            for j, s in enumerate(cols)
        }
        out: list[SSAValue] = []
        for t in range(tiles):
            c = list(body.args[1 + 4 * t : 5 + 4 * t])
            out.extend(
                ctx.emit(simt.MmaSyncOp(element, a_frag[m_of[t]], b_frag[n_of[t]], c)).results
            )
        ctx.emit(scf.YieldOp(*out))
    loop = scf.ForOp(ctx.index(0), ctx.index(k // 16), ctx.index(1), acc, Region(body))
    ctx.emit(loop)
    return list(loop.results)


def _fmas(ctx, layout: Layout, acc, xs, ys, mkn, element) -> list[SSAValue]:
    m, k, n = mkn
    ln = log2(n)
    row_of = [layout.static_element(r) >> ln for r in range(layout.num_regs)]
    col_of = [layout.static_element(r) & (n - 1) for r in range(layout.num_regs)]
    rows, cols = sorted(set(row_of)), sorted(set(col_of))
    coords = {r: ctx.coords(layout, r) for r in range(layout.num_regs)}
    pitch_x, pitch_y = padded_row((m, k)), padded_row((k, n))
    row_base = {s: ctx.mul(coords[row_of.index(s)][0], pitch_x) for s in rows}
    col_at = {s: coords[col_of.index(s)][1] for s in cols}

    body = Block(arg_types=[IndexType(), *(v.type for v in acc)])
    kk = body.args[0]
    with ctx.at(InsertPoint.at_end(body)):
        k_row = ctx.mul(kk, pitch_y)

        def loads() -> list[SSAValue]:
            xv = [ctx(simt.SharedLoadOp(xs, [ctx.add(row_base[s], kk)])) for s in rows]
            yv = [ctx(simt.SharedLoadOp(ys, [ctx.add(k_row, col_at[s])])) for s in cols]
            return xv + yv

        loaded = ctx.unsafe(loads)
        if element != f32:
            loaded = [ctx(arith.ExtFOp(v, f32)) for v in loaded]
        xv = dict(zip(rows, loaded[: len(rows)]))
        yv = dict(zip(cols, loaded[len(rows) :]))
        sums = [
            ctx(fma(xv[row_of[r]], yv[col_of[r]], body.args[1 + r])) for r in range(layout.num_regs)
        ]
        ctx.emit(scf.YieldOp(*sums))
    loop = scf.ForOp(ctx.index(0), ctx.index(k), ctx.index(1), acc, Region(body))
    ctx.emit(loop)
    return list(loop.results)


__all__ = [
    "mma_layout",
    "pack_pair",
    "row_tensor_core_layout",
    "tensor_core_layout",
    "uses_tensor_cores",
]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
