"""The tile track's SIMT ops (`dialects/simt/tile_support.py`) to index arithmetic, vector
accesses and guarded scalar ones.

- `simt.tile_index` is computed where its `simt.store_chunk` sits (a witness never crosses
  control flow, so its operands are still in scope): with `P` threads a block (the contract's
  block, a constant, or `ntid`) and `t` the linear thread index, chunk `c = k * P + t`, tile
  coordinates from the bits of `c * w` (the tile is a power of two), tensor coordinates
  `g = b * T + e` (`b_d` the ctaid of the CUDA axis that walks tile-grid axis d: the space's
  order; `n_d - 1 - ctaid` on an axis the space reverses, in bounds only where `ctaid < n_d`,
  `n_d` the tile count from `S[d]`), the row-major index in 128-bit arithmetic where it could
  wrap (a wrapped index would alias another element, as `index.py` says for the 2-D spaces),
  and `count`, how
  many leading elements of the chunk are in bounds: 0 outside the tile, the tensor or the slice,
  else `min(w, S[r-1] - g[r-1], len - flat)`. Alone (for `simt.witness_value`) it becomes
  `(flat, count > 0)`, the parts every witness has.
- `simt.store_chunk`: where the whole chunk is in bounds and its address is aligned to the
  chunk's size (at most 16 bytes), one vector store; else one guarded scalar store per element.
- `simt.mma_sync`: `nvvm.mma.sync` m16n8k16 `row.col` with f32 accumulators.
- `simt.load_chunk`: trap unless `index + min(n, w) <= len` (no element below `n` may be out of
  range), then one invariant vector load where all `w` elements are read and the address is
  aligned (`ld.global.nc.v4.f32` for f32), else guarded scalar loads and the padding.

The aligned check is at run time: the ABI promises element alignment only (`abi.py`).

- `simt.slice_aligned`: the slice pointer's low bits are zero.
- `simt.unchecked_load_chunk` / `simt.unchecked_store_chunk` (unsafe): one vector access at the
  chunk's alignment, nothing else (an invariant load, as for `simt.load_chunk`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    VectorType,
    f32,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.dialects import nvvm
from ferrox.dialects.llvm import ExtractElementOp, FreezeOp, PoisonOp
from ferrox.dialects.nvvm.attributes import MMAType
from ferrox.dialects.nvvm.matrix import F16X2
from ferrox.dialects.simt import (
    LoadChunkOp,
    MmaSyncOp,
    SliceAlignedOp,
    StoreChunkOp,
    TileIndexOp,
    TileScheduleOp,
    UncheckedLoadChunkOp,
    UncheckedStoreChunkOp,
)
from ferrox.lowering.build import (
    call_intrinsic,
    cmpi,
    convert,
    extract_value,
    if_,
    insert_element,
    position,
    same_type,
    yield_,
)
from ferrox.lowering.build import load as build_load
from ferrox.lowering.build import store as build_store
from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.simt_to_nvvm.specialize import PARTITION_ATTR
from ferrox.lowering.simt_to_nvvm.support import TRAP, SimtEmitter, launch_block
from ferrox.lowering.simt_to_nvvm.types import byte_size, memory_type

i128 = IntegerType(128)
MAX_VECTOR_BYTES = 16

_TID = (nvvm.ThreadIdXOp, nvvm.ThreadIdYOp, nvvm.ThreadIdZOp)
_NTID = (nvvm.BlockDimXOp, nvvm.BlockDimYOp, nvvm.BlockDimZOp)
_CTAID = (nvvm.BlockIdXOp, nvvm.BlockIdYOp, nvvm.BlockIdZOp)
_NCTAID = (nvvm.GridDimXOp, nvvm.GridDimYOp, nvvm.GridDimZOp)


def _log2(n: int) -> int:
    return n.bit_length() - 1


def _and(e: SimtEmitter, values: Sequence[SSAValue]) -> SSAValue:
    result = values[0]
    for v in values[1:]:
        result = e(same_type(arith.AndIOp, result, v))
    return result


def _umin(e: SimtEmitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return e(same_type(arith.MinUIOp, a, b))


def _thread(e: SimtEmitter, op: TileIndexOp) -> tuple[SSAValue, SSAValue]:
    """(linear thread index in the block, the `P` of witness `op`'s chunks: the threads per
    block, or a `simt.specialize` consumer partition's), i64; constants under a contract. The
    partition is read off `op` itself: a store lowers it where the store sits (`e.matched` is
    then the store, which does not carry it)."""
    block = launch_block(e.matched)
    partition = op.attributes.get(PARTITION_ATTR)
    if partition is not None:  # in a consumer partition (`specialize.py`): its first threads
        assert isinstance(partition, IntegerAttr)
        return e.register(_TID[0], "tid_x"), e.const(partition.value.data)
    if block is not None and block[1] * block[2] == 1:
        return e.register(_TID[0], "tid_x"), e.const(block[0])
    tid = [e.register(_TID[d], f"tid_{'xyz'[d]}") for d in range(3)]
    if block is not None:
        x, y, z = block
        linear = tid[0]
        if True:
            inner = e(
                same_type(arith.AddiOp, tid[1], e(same_type(arith.MuliOp, tid[2], e.const(y))))
            )
            linear = e(
                same_type(arith.AddiOp, linear, e(same_type(arith.MuliOp, inner, e.const(x))))
            )
        return linear, e.const(x * y * z)
    ntid = [e.register(_NTID[d], f"ntid_{'xyz'[d]}") for d in range(3)]
    inner = e(same_type(arith.AddiOp, tid[1], e(same_type(arith.MuliOp, tid[2], ntid[1]))))
    linear = e(same_type(arith.AddiOp, tid[0], e(same_type(arith.MuliOp, inner, ntid[0]))))
    return linear, e(same_type(arith.MuliOp, e(same_type(arith.MuliOp, ntid[0], ntid[1])), ntid[2]))


def _exact_step(
    e: SimtEmitter, acc: SSAValue, dim: SSAValue, coord: SSAValue
) -> tuple[SSAValue, SSAValue]:
    """`acc * dim + coord` and whether it fits in 64 bits (computed in 128)."""
    wide = e(
        same_type(
            arith.MuliOp, e(convert(arith.ExtUIOp, acc, i128)), e(convert(arith.ExtUIOp, dim, i128))
        )
    )
    wide = e(same_type(arith.AddiOp, wide, e(convert(arith.ExtUIOp, coord, i128))))
    high = e(convert(arith.TruncIOp, e(same_type(arith.ShRUIOp, wide, e.const(64, i128))), i64))
    return e(convert(arith.TruncIOp, wide, i64)), e(cmpi(high, e.const(0), "eq"))


def chunk_of(e: SimtEmitter, op: TileIndexOp, length: SSAValue | None) -> tuple[SSAValue, SSAValue]:
    """(flat index of the chunk's first element, count of in-bounds leading elements), i64."""
    space = op.space
    shape = space.get_tile_shape()
    w, rank = space.chunk.data, len(shape)
    chunks = 1
    for d in shape:
        chunks *= d
    chunks //= w
    t, threads = _thread(e, op)
    k = e.to_i64(op.chunk_index)
    c = e(same_type(arith.AddiOp, e(same_type(arith.MuliOp, k, threads)), t), "chunk")
    ok = [e(cmpi(k, e.const(chunks), "ult")), e(cmpi(c, e.const(chunks), "ult"))]
    first = e(same_type(arith.MuliOp, c, e.const(w)))
    dims = [e.to_i64(d) for d in op.dims]
    tile = _persistent_tile(e, e.to_i64(op.tile), shape, dims) if op.tile is not None else None
    coords: list[SSAValue] = []
    shift = 0
    for d in reversed(range(rank)):
        e_d = e(
            same_type(
                arith.AndIOp,
                e(same_type(arith.ShRUIOp, first, e.const(shift))),
                e.const(shape[d] - 1),
            )
        )
        if tile is not None:  # the persistent loop's tile, never the block's ids
            block_d = tile[d]
        else:
            axis = space.block_axis(d)  # the CUDA axis that walks tile-grid axis d (its order)
            block_d = e.register(_CTAID[axis], f"ctaid_{'xyz'[axis]}")
            if d in space.get_grid_reverse():  # last tile first: block b takes tile n - 1 - b
                n = _tile_count(e, shape[d], dims[d])
                ok.append(e(cmpi(block_d, n, "ult")))
                last = e(same_type(arith.SubiOp, n, e.const(1)))
                block_d = e(same_type(arith.SubiOp, last, block_d))
        g_d = e(
            same_type(arith.AddiOp, e(same_type(arith.MuliOp, block_d, e.const(shape[d]))), e_d)
        )
        ok.append(e(cmpi(g_d, dims[d], "ult")))
        coords.insert(0, g_d)
        shift += _log2(shape[d])
    for d in range(rank, 3 if tile is None else rank):
        ok.append(e(cmpi(e.register(_CTAID[d]), e.const(0), "eq")))
    flat = coords[0]
    for d in range(1, rank):
        flat, fits = _exact_step(e, flat, dims[d], coords[d])
        ok.append(fits)
    valid = _and(e, ok)
    count = _umin(e, e.const(w), e(same_type(arith.SubiOp, dims[-1], coords[-1])))
    if length is not None:
        ok_len = e(cmpi(flat, length, "ult"))
        valid = e(same_type(arith.AndIOp, valid, ok_len))
        count = _umin(e, count, e(same_type(arith.SubiOp, length, flat)))
    count = e(arith.SelectOp(valid, count, e.const(0)), "count")
    flat.name_hint = "flat"
    return flat, count


def _tile_counts(e: SimtEmitter, shape: Sequence[int], dims: Sequence[SSAValue]) -> list[SSAValue]:
    """`n_d = ceildiv(S[d], T[d])` (`T[d]` a power of two: `(S[d] + T[d] - 1) >> log2 T[d]`
    would wrap for `S` near 2^64, so `S >> log2 T + (S & (T - 1) != 0)`)."""
    return [_tile_count(e, t, dim) for t, dim in zip(shape, dims)]


def _tile_count(e: SimtEmitter, t: int, dim: SSAValue) -> SSAValue:
    """`ceildiv(dim, t)` for a power of two `t`, without wrapping (`_tile_counts`)."""
    whole = e(same_type(arith.ShRUIOp, dim, e.const(_log2(t))))
    part = e(cmpi(e(same_type(arith.AndIOp, dim, e.const(t - 1))), e.const(0), "ne"))
    return e(same_type(arith.AddiOp, whole, e(convert(arith.ExtUIOp, part, i64))))


def _persistent_tile(
    e: SimtEmitter, t: SSAValue, shape: Sequence[int], dims: Sequence[SSAValue]
) -> list[SSAValue]:
    """Tile `t` of a persistent loop as tile coordinates: `b_0 = t mod n_0`, `b_1 = (t div n_0)
    mod n_1`, ... (`simt.tile_schedule`); each `n_d` at least 1 (inside the loop it is)."""
    out = []
    q = t
    for n in _tile_counts(e, shape, dims):
        n = _umax1(e, n)
        out.append(e(same_type(arith.RemUIOp, q, n)))
        q = e(same_type(arith.DivUIOp, q, n))
    return out


def _umax1(e: SimtEmitter, n: SSAValue) -> SSAValue:
    return e(same_type(arith.MaxUIOp, n, e.const(1)))


class TileScheduleToRegisters(RewritePattern):
    """`simt.tile_schedule`: `ctaid.x`, the tile count (0 in a block whose `ctaid.y` or
    `ctaid.z` is not 0), `nctaid.x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TileScheduleOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        first = e.register(_CTAID[0], "ctaid_x")
        step = e.register(_NCTAID[0], "nctaid_x")
        dims = [e.to_i64(d) for d in op.dims]
        count = e.const(1)
        for n in _tile_counts(e, op.space.get_tile_shape(), dims):
            count = e(same_type(arith.MuliOp, count, n))
        y, z = e.register(_CTAID[1], "ctaid_y"), e.register(_CTAID[2], "ctaid_z")
        plane = e(cmpi(e(same_type(arith.OrIOp, y, z)), e.const(0), "eq"))
        count = e(arith.SelectOp(plane, count, e.const(0)))
        rewriter.replace(op, [], [e.to_index(v) for v in (first, count, step)])


def _aligned(e: SimtEmitter, address: SSAValue, align: int) -> SSAValue:
    bits = e(convert(llvm.PtrToIntOp, address, i64))
    return e(
        cmpi(e(same_type(arith.AndIOp, bits, e.const(align - 1))), e.const(0), "eq"), "aligned"
    )


def _vector_ok(element) -> bool:
    return not (isinstance(element, IntegerType) and element.width.data == 1) and not isinstance(
        element, IndexType
    )


def _region(e: SimtEmitter, fill: Callable[[SimtEmitter], Sequence[SSAValue]]) -> Region:
    block = Block()
    inner = e.at(InsertPoint.at_end(block))
    inner.emit(yield_(*fill(inner)))
    return Region(block)


def _if(
    e: SimtEmitter,
    cond: SSAValue,
    result_types: Sequence[Attribute],
    then_fill: Callable[[SimtEmitter], Sequence[SSAValue]],
    else_fill: Callable[[SimtEmitter], Sequence[SSAValue]] | None = None,
) -> Sequence[SSAValue]:
    """`scf.if cond` with regions filled by `then_fill` / `else_fill` (each returns what its
    region yields); the op's results."""
    otherwise = _region(e, else_fill) if else_fill is not None else None
    return e.emit(if_(cond, result_types, _region(e, then_fill), otherwise)).results


def _store_at(e: SimtEmitter, value: SSAValue, address: SSAValue) -> list[SSAValue]:
    e.emit(build_store(value, address))
    return []


def _invariant_load(
    e: SimtEmitter, address: SSAValue, t: Attribute, align: int | None = None
) -> SSAValue:
    """A load from a shared slice, which nothing writes during the launch (see `memory.py`)."""
    load = build_load(address, t, align)
    load.attributes["invariant"] = UnitAttr()
    return e(load)


def _chunk_value(e: SimtEmitter, values: Sequence[SSAValue]) -> SSAValue:
    """The vector a whole chunk's store writes: its elements in order, or, for an even number
    of 16-bit floats each rounded from f32 (a bf16 output's epilogue), the same bytes as i32
    pairs (`low | high << 16`, the first element in the low half: little-endian, as the vector
    of halves lays them out), which `pack.py` makes one `cvt.rn.bf16x2.f32` each instead of two
    conversions and a byte permute; a pair that is the two halves of one i32 (`_word_of`) is that
    word. Other 16-bit values (loaded, say) keep the plain vector."""
    element = values[0].type
    w = len(values)
    pairs = [(values[j], values[j + 1]) for j in range(0, w - 1, 2)]
    if w % 2 == 0 and all(_word_of(*p) or _rounded_from_f32(*p) for p in pairs):
        words = [_word_of(*p) or _pair(e, *p) for p in pairs]
        if len(words) == 1:
            return words[0]
        element, values = i32, words
    vec = e(PoisonOp(VectorType(memory_type(element), [len(values)])))
    for j, v in enumerate(values):
        vec = e(insert_element(vec, v, e.const(j, i32)))
    return vec


def _rounded_from_f32(*values: SSAValue) -> bool:
    """Whether each of `values` is a bf16 or f16 `arith.truncf` of an f32 (what `pack.py`
    pairs)."""
    return all(
        isinstance(v.type, BFloat16Type | Float16Type)
        and isinstance(v.owner, arith.TruncFOp)
        and v.owner.input.type == f32
        for v in values
    )


def _word_of(low: SSAValue, high: SSAValue) -> SSAValue | None:
    """The i32 `w` where `low` and `high` are its two halves as 16-bit floats
    (`bitcast(trunci(w))`, `bitcast(trunci(w >> 16))`: a word that `exchange_pairs.py` moved
    and split), else None: the store writes `w` again rather than two halves re-packed."""
    lo, hi = _word_half(low), _word_half(high)
    if lo is None or hi is None or not isinstance(hi.owner, arith.ShRUIOp):
        return None
    amount = hi.owner.rhs.owner
    if not isinstance(amount, arith.ConstantOp) or amount.value != IntegerAttr(16, i32):
        return None
    return lo if hi.owner.lhs is lo else None


def _word_half(v: SSAValue) -> SSAValue | None:
    """`x` where `v` is `bitcast(trunci(x : i32 to i16))` to a 16-bit float."""
    cast = v.owner
    if not isinstance(cast, arith.BitcastOp) or not isinstance(v.type, BFloat16Type | Float16Type):
        return None
    trunc = cast.input.owner
    if not isinstance(trunc, arith.TruncIOp) or trunc.result.type != i16:
        return None
    return trunc.input if trunc.input.type == i32 else None


def _pair(e: SimtEmitter, low: SSAValue, high: SSAValue) -> SSAValue:
    """Two 16-bit values as one i32, `low` in the low half (`matrix.pack_pair`'s form)."""
    lo = e(arith.ExtUIOp(e(arith.BitcastOp(low, i16)), i32))
    hi = e(arith.ExtUIOp(e(arith.BitcastOp(high, i16)), i32))
    return e(arith.OrIOp(lo, e(arith.ShLIOp(hi, e.const(16, i32)))))


class StoreChunkToStores(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: StoreChunkOp, rewriter: PatternRewriter, /) -> None:
        witness = op.witness.owner
        if not isinstance(witness, TileIndexOp):
            raise Unsupported("its witness must come from 'simt.tile_index'")
        element = op.values[0].type
        e = SimtEmitter.before(rewriter, op)
        ptr, length = e.unpack(op.slice)
        flat, count = chunk_of(e, witness, length)
        w = len(op.values)
        mem = memory_type(element)
        address = e.element(ptr, [flat], mem)
        values = [e.to_i64(v) if isinstance(v.type, IndexType) else v for v in op.values]

        def scalar(inner: SimtEmitter) -> list[SSAValue]:
            for j, v in enumerate(values):
                here = inner(cmpi(inner.const(j), count, "ult"))
                _if(
                    inner,
                    here,
                    [],
                    lambda b, j=j, v=v: _store_at(b, v, b.element(address, [j], mem)),
                )
            return []

        align = min(MAX_VECTOR_BYTES, w * byte_size(element))
        if w > 1 and _vector_ok(element):
            full = e(cmpi(count, e.const(w), "eq"))
            fast = e(same_type(arith.AndIOp, full, _aligned(e, address, align)), "vector")

            def vector(inner: SimtEmitter) -> list[SSAValue]:
                inner.emit(llvm.StoreOp(_chunk_value(inner, values), address, alignment=align))
                return []

            _if(e, fast, [], vector, scalar)
        else:
            scalar(e)
        rewriter.erase(op)
        if not witness.result.uses:
            rewriter.erase(witness)


class TileIndexToParts(RewritePattern):
    """Only once its stores are lowered (they recompute it at their own position)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TileIndexOp, rewriter: PatternRewriter, /) -> None:
        if any(isinstance(u.operation, StoreChunkOp) for u in op.result.uses):
            return
        if not op.result.uses:
            rewriter.erase(op)
            return
        e = SimtEmitter.before(rewriter, op)
        flat, count = chunk_of(e, op, None)
        valid = e(cmpi(count, e.const(0), "ne"))
        rewriter.replace(op, [], [e.pack([flat, valid], op.result.type)])


class LoadChunkToLoads(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoadChunkOp, rewriter: PatternRewriter, /) -> None:
        element = op.padding.type
        mem = memory_type(element)
        w = len(op.res)
        e = SimtEmitter.before(rewriter, op)
        ptr, length = e.unpack(op.slice)
        i = e.to_i64(op.index)
        n = _umin(e, e.to_i64(op.count), e.const(w))
        # Trap unless i + n <= len (without wrapping), when any element is read.
        fits = e(
            same_type(
                arith.AndIOp,
                e(cmpi(i, length, "ule")),
                e(cmpi(n, e(same_type(arith.SubiOp, length, i)), "ule")),
            )
        )
        reads = e(cmpi(n, e.const(0), "ne"))
        bad = e(
            same_type(arith.AndIOp, reads, e(same_type(arith.XOrIOp, fits, e.true()))),
            "out_of_range",
        )
        _if(e, bad, [], lambda b: (b.emit(call_intrinsic(TRAP, [])), [])[1])
        address = e.element(ptr, [i], mem)
        pad = e.to_i64(op.padding) if isinstance(element, IndexType) else op.padding
        types = [mem] * w

        def scalar(b: SimtEmitter) -> list[SSAValue]:
            out = []
            for j in range(w):
                here = b(cmpi(b.const(j), n, "ult"))
                (v,) = _if(
                    b,
                    here,
                    [mem],
                    lambda x, j=j: [_invariant_load(x, x.element(address, [j], mem), mem)],
                    lambda x: [pad],
                )
                out.append(v)
            return out

        align = min(MAX_VECTOR_BYTES, w * byte_size(element))
        if w > 1 and _vector_ok(element):
            full = e(cmpi(n, e.const(w), "eq"))
            fast = e(same_type(arith.AndIOp, full, _aligned(e, address, align)), "vector")

            def vector(b: SimtEmitter) -> list[SSAValue]:
                vec = _invariant_load(b, address, VectorType(mem, [w]), align)
                return [b(ExtractElementOp(vec, b.const(j, i32))) for j in range(w)]

            results = list(_if(e, fast, types, vector, scalar))
        else:
            results = scalar(e)
        results = [e.to_index(v) if isinstance(element, IndexType) else v for v in results]
        rewriter.replace(op, [], results)


class SliceAlignedToTest(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SliceAlignedOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        ptr, _ = e.unpack(op.slice)
        rewriter.replace(op, [], [_aligned(e, ptr, op.bytes.value.data)])


def _vector_at(e: SimtEmitter, slice: SSAValue, index: SSAValue, element, w: int):
    """(address of element `index`, the vector type, its alignment) of a chunk access."""
    ptr, _ = e.unpack(slice)
    mem = memory_type(element)
    address = e.element(ptr, [e.to_i64(index)], mem, inbounds=True)
    return address, VectorType(mem, [w]), w * byte_size(element)


class UncheckedLoadChunkToLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UncheckedLoadChunkOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        w = len(op.res)
        element = op.res[0].type
        address, vector, align = _vector_at(e, op.slice, op.index, element, w)
        if w == 1:
            results = [_invariant_load(e, address, memory_type(element), align)]
        else:
            # The freeze keeps LLVM from splitting the vector load into scalar loads (its
            # load-extract scalarisation) and then merging them with the masked path's.
            vec = e(FreezeOp(_invariant_load(e, address, vector, align)))
            results = [e(ExtractElementOp(vec, e.const(j, i32))) for j in range(w)]
        rewriter.replace(op, [], results)


class UncheckedStoreChunkToStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UncheckedStoreChunkOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        w = len(op.values)
        element = op.values[0].type
        address, vector, align = _vector_at(e, op.slice, op.index, element, w)
        if w == 1:
            e.emit(llvm.StoreOp(op.values[0], address, alignment=align))
        else:
            e.emit(llvm.StoreOp(_chunk_value(e, list(op.values)), address, alignment=align))
        rewriter.erase(op)


class MmaSyncToNvvm(RewritePattern):
    """`simt.mma_sync` is `nvvm.mma.sync` m16n8k16 row.col (f16 registers as `vector<2xf16>`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MmaSyncOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        if isinstance(op.element, Float16Type):
            ptx_type = MMAType.F16
            a = [e(llvm.BitcastOp(v, F16X2)) for v in op.a]
            b = [e(llvm.BitcastOp(v, F16X2)) for v in op.b]
        else:
            ptx_type, a, b = MMAType.BF16, list(op.a), list(op.b)
        d = e(nvvm.MmaSyncOp(a, b, list(op.c), (16, 8, 16), ptx_type))
        parts = [e(extract_value(position(i), d, f32)) for i in range(4)]
        rewriter.replace(op, [], parts)


TILE_SUPPORT_PATTERNS: tuple[RewritePattern, ...] = (
    TileScheduleToRegisters(),
    StoreChunkToStores(),
    TileIndexToParts(),
    LoadChunkToLoads(),
    MmaSyncToNvvm(),
    SliceAlignedToTest(),
    UncheckedLoadChunkToLoad(),
    UncheckedStoreChunkToStore(),
)

__all__ = ["TILE_SUPPORT_PATTERNS", "chunk_of"]
