"""`tile.reduce_sum`, `_prod`, `_max`, `_min`: registers, then warp shuffles, then shared memory.

The axis' element bits are set by some register bits and some thread bits of the operand's
layout. Reducing along them, in three steps:
1. in each thread, a pairwise tree over the registers that differ only in axis bits;
2. for each axis thread bit below 5 (within a warp), a butterfly step `v = v op shfl.xor(v, 1<<q)`:
   afterwards every lane of the group holds the same value (each step combines the same two
   values on both lanes, and the ops are commutative), so the result is replicated along those
   bits;
3. for axis thread bits of 5 and above (across warps), each thread writes its partials to a
   shared array at `[register][thread]` and a barrier follows. Then, where the value is
   replicated along at least as many lane bits (below 5) as there are such warp bits (the usual
   case: the axis' lane bits were just reduced), each lane reads one partial, the one of the
   thread whose warp bits are its own lane bits there, and a butterfly of shuffles over those
   lane bits combines them: one shared load and log2(warps) shuffles a partial, however many
   warps, and every lane ends with the same bits (as in step 2). Otherwise each thread reads
   the partials of all the threads that differ from it only in those bits and combines them in
   one fixed order.
The result's layout keeps the other bits, renumbered for the dropped axis (or its size-1 place
with `keepdims`); the axis' thread bits become replicated. Shuffles move 32 bits: 16-bit and 8-bit
values travel widened (exactly), 64-bit ones as two halves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, f32, i32, i64
from xdsl.ir import Operation, SSAValue

from ferrox.dialects import simt, tile
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.build import same_type
from ferrox.lowering.tile_to_simt.context import Dist, Lowering, canonical
from ferrox.lowering.tile_to_simt.layout import Layout, dim_offsets, log2
from ferrox.lowering.tile_to_simt.rules import rule

WARP_BITS = 5

Combine = Callable[[Lowering, SSAValue, SSAValue], SSAValue]


def _combiner(float_op, int_op) -> Combine:
    def combine(ctx: Lowering, a: SSAValue, b: SSAValue) -> SSAValue:
        return ctx.make(float_op if isinstance(a.type, AnyFloat) else int_op, a, b)

    return combine


COMBINE: dict[type[Operation], Combine] = {
    tile.ReduceSumOp: _combiner(arith.AddfOp, arith.AddiOp),
    tile.ReduceProdOp: _combiner(arith.MulfOp, arith.MuliOp),
    tile.ReduceMaxOp: _combiner(arith.MaximumfOp, arith.MaxSIOp),
    tile.ReduceMinOp: _combiner(arith.MinimumfOp, arith.MinSIOp),
}


def _shfl(ctx: Lowering, v: SSAValue, offset: int) -> SSAValue:
    off = ctx.constant(offset, i32)
    return ctx.make(
        simt.ShuffleOp, v, off, extra="xor", build=lambda: simt.ShuffleOp("xor", v, off)
    )


def shuffle_xor(ctx: Lowering, v: SSAValue, offset: int) -> SSAValue:
    """`v` of the lane `lane ^ offset`, for any tile element type but i1."""
    t = v.type
    if t == f32 or t == i32:
        return _shfl(ctx, v, offset)
    if isinstance(t, AnyFloat) and t.bitwidth < 32:
        return ctx(arith.TruncFOp(_shfl(ctx, ctx(arith.ExtFOp(v, f32)), offset), t))
    if isinstance(t, IntegerType) and t.width.data < 32:
        return ctx(arith.TruncIOp(_shfl(ctx, ctx(arith.ExtSIOp(v, i32)), offset), t))
    if isinstance(t, IndexType):
        return ctx(arith.IndexCastOp(shuffle_xor(ctx, ctx(arith.IndexCastOp(v, i64)), offset), t))
    bits = ctx(arith.BitcastOp(v, i64)) if isinstance(t, AnyFloat) else v
    thirty_two = ctx.constant(32, i64)
    low = _shfl(ctx, ctx(arith.TruncIOp(bits, i32)), offset)
    high = _shfl(ctx, ctx(arith.TruncIOp(ctx(arith.ShRUIOp(bits, thirty_two)), i32)), offset)
    joined = ctx(
        arith.OrIOp(
            ctx(arith.ExtUIOp(low, i64)),
            ctx(arith.ShLIOp(ctx(arith.ExtUIOp(high, i64)), thirty_two)),
        )
    )
    return ctx(arith.BitcastOp(joined, t)) if isinstance(t, AnyFloat) else joined


def _tree(ctx: Lowering, combine: Combine, values: Sequence[SSAValue]) -> SSAValue:
    values = list(values)
    while len(values) > 1:
        values = [combine(ctx, values[i], values[i + 1]) for i in range(0, len(values), 2)]
    return values[0]


def _axis_bits(layout: Layout, axis: int) -> Callable[[int | None], bool]:
    off = dim_offsets(layout.shape)[axis]
    nb = log2(layout.shape[axis])
    return lambda b: b is not None and off <= b < off + nb


def reduced_layout(layout: Layout, axis: int, shape: Sequence[int]) -> Layout:
    """The layout of the reduction of `layout` along `axis`, a tile of `shape`."""
    off = dim_offsets(layout.shape)[axis]
    nb = log2(layout.shape[axis])
    in_axis = _axis_bits(layout, axis)

    def new_bit(b: int | None) -> int | None:
        if b is None or in_axis(b):
            return None
        return b if b < off else b - nb

    regs = tuple(new_bit(b) for b in layout.regs if b is not None and not in_axis(b))
    lanes = tuple(new_bit(b) for b in layout.lanes)
    return Layout(tuple(shape), layout.threads, regs, lanes)


def reduce(ctx: Lowering, value: Dist, axis: int, combine: Combine, shape: Sequence[int]) -> Dist:
    layout = value.layout
    in_axis = _axis_bits(layout, axis)
    kept = [i for i, b in enumerate(layout.regs) if b is not None and not in_axis(b)]
    folded = [i for i, b in enumerate(layout.regs) if in_axis(b)]
    out = []
    for o in range(1 << len(kept)):
        base = sum(1 << kept[k] for k in range(len(kept)) if o >> k & 1)
        regs = [
            value.regs[base | sum(1 << folded[k] for k in range(len(folded)) if s >> k & 1)]
            for s in range(1 << len(folded))
        ]
        out.append(_tree(ctx, combine, regs))
    lanes = [q for q, b in enumerate(layout.lanes) if in_axis(b)]
    for q in (q for q in lanes if q < WARP_BITS):
        out = [combine(ctx, v, shuffle_xor(ctx, v, 1 << q)) for v in out]
    high = [q for q in lanes if q >= WARP_BITS]
    if high:
        free = [
            q
            for q in range(min(WARP_BITS, len(layout.lanes)))
            if q in lanes or layout.lanes[q] is None
        ]
        out = _across_warps(ctx, out, high, combine, free)
    return Dist(reduced_layout(layout, axis, shape), out)


def _across_warps(
    ctx: Lowering,
    partials: list[SSAValue],
    bits: list[int],
    combine: Combine,
    free: list[int],
) -> list[SSAValue]:
    """Combine `partials` across the thread bits `bits` (5 and above) through shared memory;
    `free` are the lane bits (below 5) along which they are replicated (module docstring)."""
    threads = ctx.threads
    array = ctx.shared(partials[0].type, len(partials) * threads, "partials")
    tid = ctx.tid()

    def write() -> list[SSAValue]:
        for o, v in enumerate(partials):
            ctx.emit(simt.SharedStoreOp(v, array, [ctx.add(tid, o * threads)]))
        return []

    ctx.unsafe(write)
    ctx.sync()
    mask = sum(1 << q for q in bits)
    if len(free) >= len(bits):
        use = free[: len(bits)]
        source = _gathered(ctx, tid, mask, use, bits)

        def read_one() -> list[SSAValue]:
            return [
                ctx(simt.SharedLoadOp(array, [ctx.add(source, o * threads)]))
                for o in range(len(partials))
            ]

        values = ctx.unsafe(read_one)
        ctx.sync_if_repeated()
        for q in use:
            values = [combine(ctx, v, shuffle_xor(ctx, v, 1 << q)) for v in values]
        return values
    base = ctx.pure(arith.AndIOp, tid, ctx.index(~mask & (threads - 1)))

    def read() -> list[SSAValue]:
        values = []
        for o in range(len(partials)):
            for c in range(1 << len(bits)):
                other = sum(1 << bits[k] for k in range(len(bits)) if c >> k & 1)
                values.append(ctx(simt.SharedLoadOp(array, [ctx.add(base, o * threads + other)])))
        return values

    loaded = ctx.unsafe(read)
    ctx.sync_if_repeated()
    n = 1 << len(bits)
    return [_tree(ctx, combine, loaded[o * n : (o + 1) * n]) for o in range(len(partials))]


def _gathered(ctx: Lowering, tid: SSAValue, mask: int, use: list[int], bits: list[int]) -> SSAValue:
    """The thread whose `bits` are this thread's `use` lane bits and whose other bits are this
    thread's: `(tid & ~mask) | sum(bit use[k] of tid << bits[k])`, computed once, at the
    kernel's start."""

    def op(o: Operation) -> SSAValue:
        return ctx.in_prologue(o)

    source = op(same_type(arith.AndIOp, tid, ctx.index(~mask & (ctx.threads - 1))))
    k = 0
    while k < len(use):  # runs of consecutive bits move with one shift and one mask
        run = 1
        while k + run < len(use) and (use[k + run], bits[k + run]) == (use[k] + run, bits[k] + run):
            run += 1
        field = op(same_type(arith.AndIOp, tid, ctx.index(((1 << run) - 1) << use[k])))
        # (bits above 5 > lane bits)
        moved = op(same_type(arith.ShLIOp, field, ctx.index(bits[k] - use[k])))
        source = op(same_type(arith.OrIOp, source, moved))
        k += run
    source.name_hint = "partner"
    return source


def _infer(op: Operation, operands, config) -> list[Layout | None]:
    src = op.operands[0].type
    dst = op.results[0].type
    assert isinstance(src, TileType) and isinstance(dst, TileType)
    layout = operands[0] if operands[0] is not None else canonical(src, config)
    return [reduced_layout(layout, op.axis.value.data, dst.get_shape())]  # type: ignore[attr-defined]


@rule(*COMBINE, infer=_infer)
def lower_reduce(ctx: Lowering, op: Operation) -> None:
    source = op.operands[0]
    result = op.results[0]
    t = result.type
    assert isinstance(t, TileType)
    value = Dist(ctx.layout_of(source), ctx.tile(source, ctx.layout_of(source)))
    reduced = reduce(ctx, value, op.axis.value.data, COMBINE[type(op)], t.get_shape())  # type: ignore[attr-defined]
    ctx.bind(result, reduced)


__all__ = ["reduce", "reduced_layout", "shuffle_xor"]
