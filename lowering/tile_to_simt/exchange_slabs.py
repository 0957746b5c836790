"""A layout change through shared memory a slab of rows at a time (the knob `SLABS`; 1, the
default: the whole tile at once, `exchange.through_shared`).

With `SLABS = 2^s` the staging array holds `1 / 2^s` of the tile: slab `j` is the elements
whose top `s` flat-index bits (those of the first dimension of more than one element) are
`j`. For each slab in turn
every thread writes its registers of the slab, a barrier, every thread reads its target
registers of the slab, and a barrier before the next slab's writes. Each element is written and
read once, as without slabs, at an index `j * rows * pitch` lower; the slabs cost `2 (2^s - 1)`
more barriers. Which registers a thread holds of slab `j` is known when compiling where
register bits set the top bits; where a thread bit sets one (a warp's rows, in the tensor-core
row layout) the writes of slab `j` are conditional on that bit of the thread index. The target
must set them all with register bits (`applies`), so that its reads need no condition: the
chunked layout of a store does, for a tile of more rows than one pass of the threads covers.

What it is for: the fused attention's output staging (f32 `[BM, D]`, 16-64 KiB) decides how
many blocks share an SM at the BM 64 tiles (docs/performance.md, "Attention at short
sequences"): d 64 at 64 x 64 takes 57,664 bytes a block, three an SM, where 2 slabs make it
four. A knob for timing: it applies to every exchange of a kernel compiled with it set.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from ferrox.dialects import simt
from ferrox.lowering import knobs
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.layout import Layout, log2

SLABS = 1
"""Slabs an exchange through shared memory takes, a power of two (module docstring)."""


def applies(source: Layout, target: Layout) -> bool:
    """Whether `SLABS` slabs serve this layout change (module docstring)."""
    d = _leading(target)
    if SLABS <= 1 or d is None:
        return False
    s = log2(SLABS)
    top = range(target.bits - s, target.bits)
    return log2(target.shape[d]) >= s and all(b in target.regs for b in top)


def _leading(layout: Layout) -> int | None:
    """The first dimension of more than one element (whose top bits are the tile's)."""
    return next((d for d, n in enumerate(layout.shape) if n > 1), None)


def through_slabs(ctx: Lowering, value: Dist, target: Layout) -> list[SSAValue]:
    """`value` in layout `target`, through a staging array of one slab (module docstring)."""
    from ferrox.lowering.tile_to_simt.exchange import _stored_type, staging_size, staging_strides

    element = value.regs[0].type
    stored = _stored_type(element)
    s = log2(SLABS)
    low = target.bits - s  # the slab's bits: low .. low + s - 1
    d = _leading(target)
    assert d is not None
    rows = target.shape[d] >> s
    slab = (*target.shape[:d], rows, *target.shape[d + 1 :])
    strides = staging_strides(slab)
    array = ctx.shared(stored, staging_size(slab), "stage")
    read: dict[int, SSAValue] = {}
    for j in range(SLABS):
        shift = j * rows * strides[d]  # the slab's first element in the tile's staging order
        _write(ctx, value, array, strides, j, low, shift, stored)
        ctx.sync()
        mine = [r for r in target.distinct_regs() if target.static_element(r) >> low == j]
        read.update(zip(mine, _read(ctx, target, array, strides, mine, shift)))
        if j < SLABS - 1:
            ctx.sync()
    ctx.sync_if_repeated()
    values = [read[r] for r in target.distinct_regs()]
    if stored != element:  # i1, stored as i8
        assert isinstance(element, IntegerType)
        values = [ctx(arith.TruncIOp(v, element)) for v in values]
    by_element = {target.static_element(r): v for r, v in zip(target.distinct_regs(), values)}
    return [by_element[target.static_element(r)] for r in range(target.num_regs)]


def _index(ctx: Lowering, layout: Layout, r: int, strides, shift: int) -> SSAValue:
    """Register `r`'s staging index in its slab: the tile's, `shift` lower."""
    index = ctx.linear(layout, r, strides)
    return ctx(arith.SubiOp(index, ctx.index(shift))) if shift else index


def _write(ctx: Lowering, value: Dist, array, strides, j: int, low: int, shift, stored) -> None:
    """This thread's registers of slab `j` into `array`: those whose register-set slab bits
    are `j`'s, by the threads whose thread-set slab bits are `j`'s (one replica each)."""
    layout = value.layout
    lane_mask = lane_value = 0
    for q, b in enumerate(layout.lanes):
        if b is not None and b >= low:
            lane_mask |= 1 << q
            lane_value |= (j >> (b - low) & 1) << q
    static_j = j & ~sum(1 << (b - low) for b in layout.lanes if b is not None and b >= low)
    regs = [r for r in layout.distinct_regs() if layout.static_element(r) >> low == static_j]
    conds = []
    if lane_mask:
        bits = ctx.pure(arith.AndIOp, ctx.tid(), ctx.index(lane_mask))
        conds.append(ctx.cmp("eq", bits, lane_value))
    guard = ctx.replica_guard(layout)
    if guard is not None:
        conds.append(guard)

    def stores() -> None:
        def body() -> list[SSAValue]:
            for r in regs:
                v = value.regs[r]
                if stored != v.type:
                    v = ctx(arith.ExtUIOp(v, stored))
                index = _index(ctx, layout, r, strides, shift)
                ctx.emit(simt.SharedStoreOp(v, array, [index]))
            return []

        ctx.unsafe(body)

    ctx.when(ctx.all_of(conds) if conds else None, stores)


def _read(ctx: Lowering, target: Layout, array, strides, regs: list[int], shift) -> list[SSAValue]:
    """Registers `regs` of `target` (all of slab `j`) read from `array`."""

    def loads() -> list[SSAValue]:
        return [
            ctx(simt.SharedLoadOp(array, [_index(ctx, target, r, strides, shift)])) for r in regs
        ]

    return ctx.unsafe(loads)


__all__ = ["SLABS", "applies", "through_slabs"]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
