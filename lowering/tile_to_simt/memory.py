"""`tile.dim`, `tile.load`, `tile.load_like` and `tile.store`.

- `tile.dim %x, d` is the dimension parameter the kernel was given for `%x`.
- A load fills each thread's registers of the value's layout, chunk by chunk (the layout's run
  of consecutive elements, `w` of them for a chunked layout): for the chunk at tile
  coordinates `e`, tensor coordinates `g = i * T + e`, and `simt.load_chunk` reads its first
  `count` elements and pads the rest, where `count` is 0 when the tile index is outside
  `[0, ceildiv(S, T))` (so `i * T` cannot wrap) or any coordinate but the last is outside `S`,
  else `min(w, S[r-1] - g[r-1])`. Whole chunks are 16-byte vector loads.
- A store brings the value to the chunked layout of its partition's index space and writes
  each chunk through its witness: `simt.tile_index k` then `simt.store_chunk`, which writes the
  in-bounds prefix of the chunk (masked at ragged edges) and nothing outside the block's tile.
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.types import DisjointSliceType
from ferrox.dialects.tile.attributes import Padding
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.tile_to_simt.context import Dist, Lowering, Tensor, canonical
from ferrox.lowering.tile_to_simt.layout import Layout, chunked
from ferrox.lowering.tile_to_simt.rules import no_results, rule

PADDING_VALUES = {
    Padding.ZERO: 0.0,
    Padding.NEG_INF: -math.inf,
    Padding.POS_INF: math.inf,
    Padding.NAN: math.nan,
}


def padding_value(ctx: Lowering, padding: Padding, element: Attribute) -> SSAValue:
    if isinstance(element, AnyFloat):
        return ctx.constant(PADDING_VALUES[padding], element)
    assert isinstance(element, IntegerType)
    return ctx.constant(0, element)


def load_tile(
    ctx: Lowering, tensor: Tensor, indices: list[SSAValue], layout: Layout, padding: SSAValue
) -> list[SSAValue]:
    shape = layout.shape
    rank = len(shape)
    dims = tensor.dims
    base, ok = [], []
    for d in range(rank):
        base.append(ctx.mul(indices[d], shape[d]))
        tiles = ctx(arith.CeilDivUIOp(dims[d], ctx.index(shape[d])))
        ok.append(ctx.cmp("ult", indices[d], tiles))
    strides: list[SSAValue | None] = [None] * rank
    stride: SSAValue | None = None
    for d in reversed(range(1, rank)):
        stride = dims[d] if stride is None else ctx.mul(stride, dims[d])
        strides[d - 1] = stride
    width = layout.chunk_width()
    dup = sum(1 << i for i, b in enumerate(layout.regs) if b is None)
    regs: list[SSAValue | None] = [None] * layout.num_regs
    zero = ctx.index(0)
    for r0 in range(0, layout.num_regs, width):
        if r0 & dup:
            continue
        e = ctx.coords(layout, r0)
        g = [ctx.add(base[d], e[d]) for d in range(rank)]
        inside = list(ok) + [ctx.cmp("ult", g[d], dims[d]) for d in range(rank)]
        flat = g[-1]
        for d in range(rank - 1):
            flat = ctx.add(ctx.mul(g[d], strides[d]), flat)  # type: ignore[arg-type]
        rest = ctx(arith.SubiOp(dims[-1], g[-1]))
        count = ctx(arith.MinUIOp(rest, ctx.index(width)))
        count = ctx(arith.SelectOp(ctx.all_of(inside), count, zero), "count")
        loaded = ctx.emit(simt.LoadChunkOp(tensor.slice, flat, count, padding, width)).results
        for j, v in enumerate(loaded):
            regs[r0 + j] = v
    return [regs[r & ~dup] for r in range(layout.num_regs)]  # type: ignore[misc]


def _infer_load(op: Operation, operands, config) -> list[Layout | None]:
    t = op.results[0].type
    assert isinstance(t, TileType)
    return [canonical(t, config)]


@rule(tile.DimOp, infer=no_results)
def lower_dim(ctx: Lowering, op: tile.DimOp) -> None:
    ctx.bind(op.result, ctx.tensor(op.source).dims[op.axis.value.data])


@rule(tile.LoadOp, infer=_infer_load)
def lower_load(ctx: Lowering, op: tile.LoadOp) -> None:
    layout = ctx.layout_of(op.result)
    element = op.result.type.element_type  # type: ignore[attr-defined]
    pad = padding_value(ctx, op.padding.data, element)
    indices = [ctx.scalar(i) for i in op.indices]
    ctx.bind(op.result, Dist(layout, load_tile(ctx, ctx.tensor(op.source), indices, layout, pad)))


@rule(tile.LoadLikeOp, infer=_infer_load)
def lower_load_like(ctx: Lowering, op: tile.LoadLikeOp) -> None:
    layout = ctx.layout_of(op.result)
    element = op.result.type.element_type  # type: ignore[attr-defined]
    pad = padding_value(ctx, op.padding.data, element)
    indices = [ctx(simt.BlockIdOp("xyz"[d])) for d in range(len(layout.shape))]
    ctx.bind(op.result, Dist(layout, load_tile(ctx, ctx.tensor(op.source), indices, layout, pad)))


@rule(tile.StoreOp, infer=no_results)
def lower_store(ctx: Lowering, op: tile.StoreOp) -> None:
    out = ctx.tensor(op.dest)
    t = out.slice.type
    assert isinstance(t, DisjointSliceType) and out.tile is not None
    space = t.space
    width = space.chunk.data
    layout = chunked(out.tile, ctx.threads, width)
    regs = ctx.tile(op.value, layout)
    for k in range(layout.num_regs // width):
        witness = ctx(simt.TileIndexOp(ctx.index(k), out.dims, space), "w")
        ctx.emit(simt.StoreChunkOp(out.slice, witness, regs[k * width : (k + 1) * width]))


__all__ = ["load_tile", "padding_value"]
