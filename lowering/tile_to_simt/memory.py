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
from collections.abc import Callable

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.types import DisjointSliceType
from ferrox.dialects.tile.attributes import Padding
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.build import same_type, yield_
from ferrox.lowering.tile_to_simt.config import element_bytes
from ferrox.lowering.tile_to_simt.context import Dist, Lowering, Tensor, canonical
from ferrox.lowering.tile_to_simt.layout import Layout, chunked, log2
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
    ctx: Lowering,
    tensor: Tensor,
    indices: list[SSAValue],
    layout: Layout,
    padding: SSAValue,
    fast: bool = True,
) -> list[SSAValue]:
    """Each thread's registers of the tile at `indices`: the whole-tile fast path or the masked
    one, or (`fast` False: the caller has its own fast path) the masked one alone."""
    shape = layout.shape
    rank = len(shape)
    dims = tensor.dims
    base = [ctx.mul(indices[d], shape[d]) for d in range(rank)]
    strides = _strides(ctx, dims)
    width = layout.chunk_width()
    dup = sum(1 << i for i, b in enumerate(layout.regs) if b is None)
    starts = [r0 for r0 in range(0, layout.num_regs, width) if not r0 & dup]
    # Each chunk's tensor coordinates and flat index, shared by both paths.
    coords, flats = [], []
    for r0 in starts:
        e = ctx.coords(layout, r0)
        g = [ctx.add(base[d], e[d]) for d in range(rank)]
        coords.append(g)
        flats.append(_flat(ctx, g, strides))
    element = padding.type

    def masked() -> list[SSAValue]:
        ok = []
        for d in range(rank):
            tiles = ctx.make(arith.CeilDivUIOp, dims[d], ctx.index(shape[d]))
            ok.append(ctx.cmp("ult", indices[d], tiles))
        zero = ctx.index(0)
        out: list[SSAValue] = []
        for g, flat in zip(coords, flats):
            inside = list(ok) + [ctx.cmp("ult", g[d], dims[d]) for d in range(rank)]
            rest = ctx.make(arith.SubiOp, dims[-1], g[-1])
            count = ctx.make(arith.MinUIOp, rest, ctx.index(width))
            count = ctx.make(arith.SelectOp, ctx.all_of(inside), count, zero)
            count.name_hint = count.name_hint or "count"
            load = simt.LoadChunkOp(tensor.slice, flat, count, padding, width)
            out.extend(ctx.emit(load).results)
        return out

    # A 3-D load in a loop keeps the masked path: with both paths, the attention example's
    # key and value loads took 187 registers a thread where the masked path alone takes 128.
    if fast and fast_path_fits(element, width, rank) and not (ctx.loop_depth and rank == 3):
        whole = whole_tile(ctx, tensor, indices, shape, strides, width, element)

        def fast() -> list[SSAValue]:
            def loads() -> list[SSAValue]:
                out: list[SSAValue] = []
                for flat in flats:
                    op = simt.UncheckedLoadChunkOp(tensor.slice, flat, width)
                    out.extend(ctx.emit(op).results)
                return out

            return ctx.unsafe(loads)

        loaded = branch(ctx, whole, [element] * (len(starts) * width), fast, masked)
    else:
        loaded = masked()
    regs: list[SSAValue | None] = [None] * layout.num_regs
    for u, r0 in enumerate(starts):
        for j in range(width):
            regs[r0 + j] = loaded[u * width + j]
    return [regs[r & ~dup] for r in range(layout.num_regs)]  # type: ignore[misc]


# -- the whole-tile fast path -----------------------------------------------------------------
#
# A tile access checks each chunk (its count, the trap test of `simt.load_chunk`, the witness's
# bounds, the 16-byte alignment test), about 25 instructions a chunk. When the whole tile is
# inside the tensor, inside the slice and aligned, every chunk is whole, in range and aligned,
# so one test a tile (`whole_tile`) chooses between the unchecked accesses and the masked path.
# The rule that makes it sound (docs/safety.md#trusted-whole-tile): with tile index
# `i`, tile shape `T` (powers of two), dims `S` and slice length `len`,
#   (1) `i_d < S_d >> log2(T_d)` for every d, i.e. `(i_d + 1) T_d <= S_d`: every element of the
#       tile has coordinates `g_d < S_d`, so no chunk is cut by an edge (count = w);
#   (2) every `S_d < 2^32` (rank 2; `2^21` for rank 3): the row-major index of every element
#       is below `prod(S) < 2^64`, so the wrapping index arithmetic computes it exactly;
#   (3) the index of the tile's last element is below `len`: every chunk's `flat + w <= len`
#       (the flat indices of a tile's elements are at most its last element's);
#   (4) the slice's element 0 is aligned to `w * size` bytes and `S[-1] % w == 0`: a chunk
#       starts at a column that is a multiple of `w` (`T[-1]` is, and so is the chunk's place
#       in the tile), so its address `base + size * (g_0 S_1 ... + g_last)` is aligned.
# Under (1)-(4) `simt.unchecked_load_chunk` reads exactly what `simt.load_chunk` with the
# masked path's count (= w) reads, and for a store, `simt.unchecked_store_chunk` at the chunk a
# `simt.tile_index` witness names writes exactly the witness's elements (count = w for every
# chunk of this thread: `c = k P + t < prod(T) / w`, block ids past the rank are 0).

WHOLE_TILE_PERSISTENT = frozenset({(256, 128)})
"""The output tiles a persistent kernel (`persistent.py`) stores with the whole-tile path; the
others store through their witnesses alone. Chosen by ptxas (2026-12-07, sm_90a): LLVM hoists
the tile-invariant part of the epilogue out of the persistent loop, so it is live across the K
loop, and which store path then fits 255 registers differs by tile: 128 x 256 spilled 60-64 bytes
with the whole-tile path and none without; 256 x 128 spilled 52-60 bytes without it and none
with it (254 registers)."""

SMALL_DIM_BITS = {1: 64, 2: 32, 3: 21}
"""Per rank, the dimensions below `2^bits` keep a row-major index below 2^64 (rule 2)."""


def fast_path_fits(element: Attribute, width: int, rank: int) -> bool:
    """Whether chunks of `width` elements can be one vector access of at most 16 bytes."""
    if not 1 <= rank <= 3 or isinstance(element, IndexType):
        return False
    if isinstance(element, IntegerType) and element.width.data == 1:
        return False
    return width * element_bytes(element) <= 16


def whole_tile(
    ctx: Lowering,
    tensor: Tensor,
    indices: list[SSAValue],
    shape: tuple[int, ...],
    strides: list[SSAValue | None],
    width: int,
    element: Attribute,
) -> SSAValue:
    """Rules (1)-(4) above for the tile at `indices`: one `i1`, uniform across the block."""
    dims = tensor.dims
    rank = len(shape)
    conds = []
    last = []
    for d in range(rank):
        fits = ctx(same_type(arith.ShRUIOp, dims[d], ctx.index(log2(shape[d]))))
        conds.append(ctx.cmp("ult", indices[d], fits))
        last.append(ctx.add(ctx.mul(indices[d], shape[d]), shape[d] - 1))
    bits = SMALL_DIM_BITS[rank]
    if bits < 64:
        wide = dims[0]
        for d in range(1, rank):
            wide = ctx(same_type(arith.OrIOp, wide, dims[d]))
        conds.append(ctx.cmp("eq", ctx(same_type(arith.ShRUIOp, wide, ctx.index(bits))), 0))
    length = ctx(simt.LenOp(tensor.slice))
    conds.append(ctx.cmp("ult", _flat(ctx, last, strides), length))
    conds.append(ctx(simt.SliceAlignedOp(tensor.slice, width * element_bytes(element))))
    if rank > 1 and width > 1:
        ragged = ctx(arith.AndIOp(dims[-1], ctx.index(width - 1)))
        conds.append(ctx.cmp("eq", ragged, 0))
    return ctx.all_of(conds)


def branch(
    ctx: Lowering,
    cond: SSAValue,
    types: list[Attribute],
    then_fill: Callable[[], list[SSAValue]],
    else_fill: Callable[[], list[SSAValue]],
) -> list[SSAValue]:
    """`scf.if cond -> types { then_fill() } else { else_fill() }`: the op's results."""
    regions = []
    for fill in (then_fill, else_fill):
        block = Block()
        with ctx.at(InsertPoint.at_end(block)):
            ctx.emit(yield_(*fill()))
        regions.append(Region(block))
    return list(ctx.emit(scf.IfOp(cond, types, regions[0], regions[1])).results)


def _strides(ctx: Lowering, dims: list[SSAValue]) -> list[SSAValue | None]:
    """Row-major strides of every dimension but the last (None for the last)."""
    rank = len(dims)
    strides: list[SSAValue | None] = [None] * rank
    stride: SSAValue | None = None
    for d in reversed(range(1, rank)):
        stride = dims[d] if stride is None else ctx.mul(stride, dims[d])
        strides[d - 1] = stride
    return strides


def _flat(ctx: Lowering, g: list[SSAValue], strides: list[SSAValue | None]) -> SSAValue:
    flat = g[-1]
    for d in range(len(g) - 1):
        flat = ctx.add(ctx.mul(g[d], strides[d]), flat)  # type: ignore[arg-type]
    return flat


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
    indices = [ctx.block_id(d) for d in range(len(layout.shape))]
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
    chunks = layout.num_regs // width

    def masked() -> list[SSAValue]:
        for k in range(chunks):
            tile = ctx.persistent.tile if space.is_persistent else None  # the loop's tile
            witness = ctx(simt.TileIndexOp(ctx.index(k), out.dims, space, tile), "w")
            ctx.emit(simt.StoreChunkOp(out.slice, witness, regs[k * width : (k + 1) * width]))
        return []

    element = t.element_type
    rank = len(out.tile)
    if not fast_path_fits(element, width, rank) or (
        ctx.persistent is not None and out.tile not in WHOLE_TILE_PERSISTENT
    ):
        masked()
        return
    blocks = [ctx.block_id(d) for d in range(3)]  # tile coordinates, then CUDA axes past them
    strides = _strides(ctx, out.dims)
    whole = whole_tile(ctx, out, blocks[:rank], out.tile, strides, width, element)
    # A witness names nothing past the rank's block ids (they must be 0).
    extra = [ctx.cmp("eq", blocks[d], 0) for d in range(rank, 3)]
    whole = ctx.all_of([whole, *extra])
    total = math.prod(out.tile) // width

    def fast() -> list[SSAValue]:
        base = [ctx.mul(blocks[d], out.tile[d]) for d in range(rank)]

        def stores() -> list[SSAValue]:
            for k in range(chunks):
                e = ctx.coords(layout, k * width)
                g = [ctx.add(base[d], e[d]) for d in range(rank)]
                values = regs[k * width : (k + 1) * width]
                ctx.emit(simt.UncheckedStoreChunkOp(out.slice, _flat(ctx, g, strides), values))
            return []

        # Fewer chunks than threads: the threads past them hold replicas and store nothing.
        guard = ctx.cmp("ult", ctx.tid(), total) if total < ctx.threads else None

        def guarded() -> None:
            ctx.unsafe(stores)

        ctx.when(guard, guarded)
        return []

    branch(ctx, whole, [], fast, masked)


__all__ = ["branch", "fast_path_fits", "load_tile", "padding_value", "whole_tile"]
