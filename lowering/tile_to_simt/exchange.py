"""Changing a tile's layout: renaming registers where each thread already holds the elements it
needs, else a round trip through shared memory.

The round trip: every element is written once (by the replica whose replicated thread bits are
0, from its first copy of the element), a barrier, each thread reads the elements the target
layout gives it, and, inside a loop, a second barrier so that the next iteration's writes wait
for this one's reads. The array's rows are padded by one element when they are 32 or more wide,
so that threads walking a column (a transpose) hit different banks.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i8
from xdsl.ir import Attribute, SSAValue

from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.layout import Layout, same_elements


def convert(ctx: Lowering, value: Dist, target: Layout) -> list[SSAValue]:
    source = value.layout
    assert source.shape == target.shape, (source, target)
    if source == target:
        return list(value.regs)
    if same_elements(source, target):
        return [
            value.regs[source.register_of(target.static_element(r))] for r in range(target.num_regs)
        ]
    return through_shared(ctx, value, target)


def padded_row(shape: tuple[int, ...]) -> int:
    """The row pitch of a staging array for tiles of `shape` (module docstring)."""
    if len(shape) < 2:
        return shape[-1] if shape else 1
    return shape[-1] + (1 if shape[-1] >= 32 else 0)


def staging_size(shape: tuple[int, ...]) -> int:
    rows = 1
    for d in shape[:-1]:
        rows *= d
    return rows * padded_row(shape) if shape else 1


def staging_strides(shape: tuple[int, ...]) -> list[int]:
    """Each dimension's stride in a staging array for `shape`, rows `padded_row` apart."""
    strides = [1] * len(shape)
    stride = padded_row(shape)
    for d in reversed(range(len(shape) - 1)):
        strides[d] = stride
        stride *= shape[d]
    return strides


def staging_index(ctx: Lowering, shape: tuple[int, ...], coords: list[SSAValue]) -> SSAValue:
    """Row-major index into a staging array for `shape`, rows `padded_row` apart."""
    if not shape:
        return ctx.index(0)
    index = coords[-1]
    stride = padded_row(shape)
    for d in reversed(range(len(shape) - 1)):
        index = ctx.add(ctx.mul(coords[d], stride), index)
        stride *= shape[d]
    return index


def _stored_type(element: Attribute) -> Attribute:
    """i1 travels as i8 (a byte in memory)."""
    return i8 if isinstance(element, IntegerType) and element.width.data == 1 else element


def write_all(ctx: Lowering, value: Dist, array: SSAValue) -> None:
    """Store every element of `value` once into the staging `array` (no barrier)."""
    layout = value.layout
    shape = layout.shape
    element = value.regs[0].type
    stored = _stored_type(element)

    def stores() -> None:
        def body() -> list[SSAValue]:
            for r in layout.distinct_regs():
                v = value.regs[r]
                if stored != element:
                    v = ctx(arith.ExtUIOp(v, stored))
                index = ctx.linear(layout, r, staging_strides(shape))
                ctx.emit(simt.SharedStoreOp(v, array, [index]))
            return []

        ctx.unsafe(body)

    ctx.when(ctx.replica_guard(layout), stores)


def read_all(ctx: Lowering, array: SSAValue, target: Layout, element: Attribute) -> list[SSAValue]:
    """Each thread's registers of `target`, read from the staging `array`."""
    stored = _stored_type(element)
    distinct = target.distinct_regs()

    def loads() -> list[SSAValue]:
        out = []
        for r in distinct:
            index = ctx.linear(target, r, staging_strides(target.shape))
            out.append(ctx(simt.SharedLoadOp(array, [index])))
        return out

    values = ctx.unsafe(loads)
    if stored != element:
        values = [ctx(arith.TruncIOp(v, element)) for v in values]
    by_element = {target.static_element(r): v for r, v in zip(distinct, values)}
    return [by_element[target.static_element(r)] for r in range(target.num_regs)]


def through_shared(ctx: Lowering, value: Dist, target: Layout) -> list[SSAValue]:
    from ferrox.lowering.tile_to_simt import exchange_slabs

    if exchange_slabs.applies(value.layout, target):  # a slab of rows at a time (a knob)
        return exchange_slabs.through_slabs(ctx, value, target)
    element = value.regs[0].type
    array = ctx.shared(_stored_type(element), staging_size(target.shape), "stage")
    write_all(ctx, value, array)
    ctx.sync()
    regs = read_all(ctx, array, target, element)
    ctx.sync_if_repeated()
    return regs


__all__ = [
    "convert",
    "padded_row",
    "read_all",
    "staging_index",
    "staging_strides",
    "staging_size",
    "through_shared",
    "write_all",
]
