"""A layout change of 16-bit floats through shared memory two elements a word.

Where both layouts hold flat-index bit 0 (the last dimension's lowest bit) in register bit 0,
registers `2i` and `2i + 1` of a thread hold adjacent elements, in either layout: the tile is
exchanged as i32 words, each `low | high << 16` of such a pair (`matrix.pack_pair`'s form, the
first element in the low half), over the halved tile whose layouts are the two layouts with
that bit taken out (`halved`). The exchange itself is the ordinary one (`exchange.through_shared`:
its indices, slabs and barriers, on a staging array of words), so half the shared stores and
loads of a 16-bit exchange; each word read is split back into its two halves. Where the pair is
two `truncf` of f32 (a bf16 output: `bf16(o)` in the fused attention's fragment layout), the
packing becomes one `cvt.rn.bf16x2.f32` (`simt_to_nvvm/pack.py`) instead of two conversions.
The values are not changed: a half is moved bit for bit.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import BFloat16Type, Float16Type, i16, i32
from xdsl.ir import SSAValue

from ferrox.lowering import knobs
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.layout import Layout
from ferrox.lowering.tile_to_simt.matrix import pack_pair

PAIRS = True
"""Exchange 16-bit floats two a word where both layouts allow it (module docstring)."""


def applies(source: Layout, target: Layout, element) -> bool:
    """Whether the exchange from `source` to `target` of `element` can go two a word."""
    return (
        PAIRS
        and isinstance(element, BFloat16Type | Float16Type)
        and bool(source.shape)
        and source.shape[-1] >= 2
        and source.regs[:1] == (0,)
        and target.regs[:1] == (0,)
    )


def halved(layout: Layout) -> Layout:
    """`layout` over the tile of word pairs: register bit 0 (element bit 0) taken out, every
    other element bit one lower, the last dimension half as long."""

    def down(b: int | None) -> int | None:
        return None if b is None else b - 1

    shape = (*layout.shape[:-1], layout.shape[-1] // 2)
    regs = tuple(down(b) for b in layout.regs[1:])
    return Layout(shape, layout.threads, regs, tuple(down(b) for b in layout.lanes))


def through_pairs(ctx: Lowering, value: Dist, target: Layout) -> list[SSAValue]:
    """`value` in layout `target`, exchanged as words (`applies` first)."""
    from ferrox.lowering.tile_to_simt.exchange import through_shared

    regs = value.regs
    words = [pack_pair(ctx, regs[r], regs[r + 1]) for r in range(0, len(regs), 2)]
    got = through_shared(ctx, Dist(halved(value.layout), words), halved(target))
    element = regs[0].type
    out: list[SSAValue] = []
    for word in got:
        high = ctx(arith.ShRUIOp(word, ctx.constant(16, i32)))
        out += [_half(ctx, word, element), _half(ctx, high, element)]
    return out


def _half(ctx: Lowering, word: SSAValue, element) -> SSAValue:
    """The 16-bit float in `word`'s low half."""
    return ctx(arith.BitcastOp(ctx(arith.TruncIOp(word, i16)), element))


__all__ = ["PAIRS", "applies", "halved", "through_pairs"]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
