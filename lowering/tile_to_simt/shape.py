"""`tile.broadcast`, `tile.reshape`, `tile.transpose` and `tile.permute`: renamed bits.

None of them moves data by itself:
- a reshape keeps the row-major order, hence every flat-index bit: only the shape changes;
- a transpose or permute renames the bits of each dimension to the dimension it moves to, so
  the result's layout is the operand's with its element bits renamed (a later store that wants
  chunks of the result exchanges through shared memory: the classic shared-memory transpose);
- a broadcast with one use is made where it is used, in its user's layout (its small source
  converts, not the broadcast tile); another puts its result in the chunked layout. Either
  asks its source for the layout that gives each register the source element it repeats: the
  result's bits of broadcast dimensions are dropped (duplicate registers, replicated threads),
  the others renamed to the source's dimension. A row vector broadcast over rows of a chunked
  tile, or a reduced `[M, 1]` column (replicated) over columns, is then already in place in
  every thread.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from ferrox.dialects import tile
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.tile_to_simt.context import Dist, Lazy, Lowering, canonical
from ferrox.lowering.tile_to_simt.exchange import convert
from ferrox.lowering.tile_to_simt.layout import Layout, bit_owner, dim_offsets
from ferrox.lowering.tile_to_simt.rules import rule


def _shapes(op: Operation) -> tuple[tuple[int, ...], tuple[int, ...]]:
    src, dst = op.operands[0].type, op.results[0].type
    assert isinstance(src, TileType) and isinstance(dst, TileType)
    return src.get_shape(), dst.get_shape()


def broadcast_source(layout: Layout, source: Sequence[int]) -> Layout:
    """The layout of a broadcast's source that gives each register of `layout` its value."""
    result = layout.shape
    lead = len(result) - len(source)
    offsets = dim_offsets(source)

    def new_bit(b: int) -> int | None:
        d, k = bit_owner(result, b)
        ds = d - lead
        if ds < 0 or source[ds] == 1:
            return None
        return offsets[ds] + k

    return layout.relabel(source, new_bit)


def permuted(layout: Layout, perm: Sequence[int], shape: Sequence[int]) -> Layout:
    """`layout` of a tile whose axis `perm[k]` becomes axis `k` of a tile of `shape`."""
    source = layout.shape
    offsets = dim_offsets(shape)
    where = {p: k for k, p in enumerate(perm)}

    def new_bit(b: int) -> int:
        d, k = bit_owner(source, b)
        return offsets[where[d]] + k

    return layout.relabel(shape, new_bit)


def _inverse(perm: Sequence[int]) -> list[int]:
    inv = [0] * len(perm)
    for k, p in enumerate(perm):
        inv[p] = k
    return inv


def _perm(op: Operation) -> list[int]:
    if isinstance(op, tile.TransposeOp):
        return [1, 0]
    if isinstance(op, tile.PermuteOp):
        return list(op.perm)
    src, _ = _shapes(op)
    return list(range(len(src)))


def _infer_broadcast(op: Operation, operands, config) -> list[Layout | None]:
    if operands[0] is None or op.results[0].has_one_use():
        return [None]  # made where it is used, in its user's layout: the source converts, not it
    t = op.results[0].type
    assert isinstance(t, TileType)
    return [canonical(t, config)]


@rule(tile.BroadcastOp, infer=_infer_broadcast)
def lower_broadcast(ctx: Lowering, op: tile.BroadcastOp) -> None:
    src, _ = _shapes(op)
    layout = ctx.layouts.get(op.result)
    if layout is None:
        ctx.bind(op.result, Lazy(lambda want: ctx.tile(op.input, broadcast_source(want, src))))
        return
    ctx.bind(op.result, Dist(layout, ctx.tile(op.input, broadcast_source(layout, src))))


def _relabel(op: Operation, layout: Layout) -> Layout:
    _, dst = _shapes(op)
    if isinstance(op, tile.ReshapeOp):
        return layout.with_shape(dst)
    return permuted(layout, _perm(op), dst)


def _unrelabel(op: Operation, layout: Layout) -> Layout:
    """The operand layout whose relabelling is `layout`."""
    src, _ = _shapes(op)
    if isinstance(op, tile.ReshapeOp):
        return layout.with_shape(src)
    return permuted(layout, _inverse(_perm(op)), src)


def _infer_relabel(op: Operation, operands, config) -> list[Layout | None]:
    return [None if operands[0] is None else _relabel(op, operands[0])]


@rule(tile.ReshapeOp, tile.TransposeOp, tile.PermuteOp, infer=_infer_relabel)
def lower_relabel(ctx: Lowering, op: Operation) -> None:
    result = op.results[0]
    layout = ctx.layouts.get(result)
    if layout is None:
        ctx.bind(result, Lazy(lambda want: ctx.tile(op.operands[0], _unrelabel(op, want))))
        return
    value = ctx.dist(op.operands[0])
    moved = Dist(_relabel(op, value.layout), value.regs)
    ctx.bind(result, Dist(layout, convert(ctx, moved, layout)))


__all__ = ["broadcast_source", "permuted"]
