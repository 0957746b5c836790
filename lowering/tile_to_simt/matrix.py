"""`tile.mma` (`acc + x @ y`), with FMAs: operands staged through shared memory, each thread a
block of the result.

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
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import IndexType, f32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.exchange import padded_row, staging_size, write_all
from ferrox.lowering.tile_to_simt.layout import Layout, assign, log2
from ferrox.lowering.tile_to_simt.rules import rule


def mma_layout(m: int, n: int, threads: int) -> Layout:
    """The blocked layout of an `[m, n]` accumulator over `threads` threads (module docstring)."""
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


def _infer(op: Operation, operands, config) -> list[Layout | None]:
    t = op.results[0].type
    assert isinstance(t, TileType)
    m, n = t.get_shape()
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
            ctx(xmath.FmaOp(xv[row_of[r]], yv[col_of[r]], body.args[1 + r])) for r in range(layout.num_regs)
        ]
        ctx.emit(scf.YieldOp(*sums))
    loop = scf.ForOp(ctx.index(0), ctx.index(k), ctx.index(1), acc, Region(body))
    ctx.emit(loop)
    ctx.sync_if_repeated()
    ctx.bind(op.result, Dist(layout, list(loop.results)))


__all__ = ["mma_layout"]
