"""A loop whose tensor-core `tile.mma`s take their right operand straight from a tile loaded in
the same iteration (the fused attention loop: `s = q @ k.T`, softmax, `acc += p @ v`), lowered
FlashAttention-2 style:

- each warp owns whole rows of every product (`matrix.row_tensor_core_layout`): the row maximum
  and sum of the online softmax are register trees and two quad shuffles (`reduction.py`), and an
  `[m, k]` left operand held in that layout *is* the warp's A fragments (two f32 accumulator
  registers packed into one i32 of bf16 halves), so `p @ v` takes `p` without a shared-memory
  round trip;
- a left operand defined before the loop (`q`) is made into A fragments once, before the loop;
- each streamed tile (`k`, `v`: a `tile.load` indexed by the loop variable and loop invariants,
  through reshapes and transposes, used by one `mma` as its right operand) is copied from global
  to a swizzled shared stage with `simt.async_copy` (`cp.async`, 16 bytes a copy, zero-filled
  outside the tensor exactly as the load's zero padding), one iteration ahead into the other of
  two stages, and read by `simt.ldmatrix` (`.trans` for a `[k, n]` tile, plain for a transposed
  `[n, k]` one: `k.T`'s B fragments are `k`'s rows);
- every other op of the body is lowered by its ordinary rule.

Per iteration `t` (one barrier):

    wait for this thread's copies of iteration t (`simt.async_wait {pending = 0}`)
    barrier: every thread's copies of stage t % 2 are visible, and every thread has finished
             reading stage (t + 1) % 2 (iteration t - 1's)
    issue the copies of iteration t + 1 into stage (t + 1) % 2 (none past the loop's end); commit
    the body, its streamed operands read from stage t % 2

A loop whose accumulators are small (`TWO_BLOCKS_TILE_REGISTERS`) asks for two blocks an SM.
The prologue issues iteration `lb`; after the loop every copy is waited for and a barrier ends the
stages' use. What each copy reads is what the `tile.load` would (same bounds, zeros outside), so
the result is the plain loop's. The loops `gemm.py` takes (loads, one mma, the yield) stay its.

All of it is the lowering's trusted code (docs/safety.md#trusted-fused-attention): shared
accesses inside `simt.unsafe` at indices computed in range (the interpreter checks each one), and
the produced kernel is checked by `verify-disjoint` like every lowered kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type, IndexType, IntegerAttr, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.tile.attributes import Padding
from ferrox.dialects.tile.types import TileTensorType, TileType
from ferrox.lowering.tile_to_simt.config import element_bytes
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.control_flow import flatten, lower_op, unflatten
from ferrox.lowering.tile_to_simt.gemm import _inside, _swizzle
from ferrox.lowering.tile_to_simt.gemm import match as gemm_match
from ferrox.lowering.tile_to_simt.layout import Layout, log2
from ferrox.lowering.tile_to_simt.matrix import pack_pair, row_tensor_core_layout
from ferrox.lowering.tile_to_simt.memory import branch
from ferrox.lowering.tile_to_simt.uniform import check

CHUNK_BYTES = 16
STAGES = 2
STAGE_BUDGET = 160 * 1024
"""Shared memory the stages may take (of the 227 KiB a block may opt in to)."""
TWO_BLOCKS_TILE_REGISTERS = 64
"""A fused loop whose mma accumulators (f32) take at most this many of a thread's registers
asks for two blocks an SM (`nvvm.minctasm`, PTX `.minnctapersm 2`): ptxas then keeps the
kernel within 128 registers (65,536 / (2 x 256 threads)) instead of 167-172, four warps a
scheduler instead of two to cover each warp's dependent chain (mma k steps, row max and sum
shuffles, ex2). Measured on the H200 (docs/performance.md, "Fused attention (H14)"): d 64 with
128 x 64 tiles (64 registers of accumulators; ptxas spills 20-32 bytes) is 11-14% faster;
d 128 with 128 x 32 tiles (80), even with `q`'s fragments moved to shared memory, was 16%
slower than with one block, so it stays one."""
SM_REGISTERS = 65536
HINTED_REGISTERS = 128
MINCTASM_ATTR = "nvvm.minctasm"


@dataclass(frozen=True)
class Stream:
    """A right operand loaded in the loop: the load, the reshapes and transposes that lead to
    the mma, whether they transpose it, and the load's `[rows, cols]` (its last two dims)."""

    load: tile.LoadOp
    chain: tuple[Operation, ...]
    transposed: bool
    rows: int
    cols: int


@dataclass(frozen=True)
class Fused:
    loop: scf.ForOp
    mmas: tuple[tile.MmaOp, ...]
    streams: tuple[Stream, ...]


def _shape(v: SSAValue) -> tuple[int, ...]:
    t = v.type
    assert isinstance(t, TileType)
    return t.get_shape()


def _stream(mma: tile.MmaOp, body: Block, loop: scf.ForOp) -> Stream | None:
    iv = body.args[0]
    v: SSAValue = mma.rhs
    chain: list[Operation] = []
    transposed = False
    while True:
        owner = v.owner
        if not isinstance(owner, Operation) or owner.parent_block() is not body:
            return None
        if not v.has_one_use():
            return None
        if isinstance(owner, tile.LoadOp):
            break
        if isinstance(owner, tile.TransposeOp):
            transposed = not transposed
        elif isinstance(owner, tile.ReshapeOp):
            ins = [d for d in _shape(owner.input) if d != 1]
            outs = [d for d in _shape(owner.result) if d != 1]
            if ins != outs:
                return None
        else:
            return None
        chain.append(owner)
        v = owner.operands[0]
    load = owner
    shape = load.result.type.get_shape()
    if len(shape) < 2 or any(d != 1 for d in shape[:-2]):
        return None
    if load.padding.data != Padding.ZERO or not isinstance(load.source.type, TileTensorType):
        return None
    for index in load.indices:
        if index is not iv and _inside(index, loop) and _constant(index) is None:
            return None
    rows, cols = shape[-2], shape[-1]
    k, n = _shape(mma.rhs)
    if (k, n) != ((cols, rows) if transposed else (rows, cols)):
        return None
    return Stream(load, tuple(chain), transposed, rows, cols)


def _constant(v: SSAValue) -> int | None:
    """The value of an `arith.constant` index (the frontend makes them in the loop body)."""
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def match(loop: scf.ForOp) -> Fused | None:
    """The loop as a `Fused` one (module docstring), or None."""
    body = loop.body.block
    mmas = [op for op in body.ops if isinstance(op, tile.MmaOp)]
    if not mmas or gemm_match(loop) is not None:
        return None
    streams = []
    for mma in mmas:
        x, y = mma.lhs.type, mma.rhs.type
        assert isinstance(x, TileType) and isinstance(y, TileType)
        if not isinstance(x.element_type, BFloat16Type | Float16Type):
            return None
        if y.element_type != x.element_type:
            return None
        (m, k), (_, n) = x.get_shape(), y.get_shape()
        if m % 16 or k % 16 or n % 16:
            return None
        s = _stream(mma, body, loop)
        if s is None:
            return None
        streams.append(s)
    return Fused(loop, tuple(mmas), tuple(streams))


def _fits(f: Fused, threads: int) -> bool:
    """Every product gives each warp whole m16 rows, and the stages fit the budget."""
    total = 0
    for mma, s in zip(f.mmas, f.streams):
        (m, k), (_, n) = _shape(mma.lhs), _shape(mma.rhs)
        if row_tensor_core_layout(m, n, threads) is None:
            return False
        if row_tensor_core_layout(m, k, threads) is None:
            return False
        size = element_bytes(_element(mma))
        if s.cols * size % CHUNK_BYTES:
            return False
        total += STAGES * s.rows * s.cols * size
    return total <= STAGE_BUDGET


def _element(mma: tile.MmaOp):
    t = mma.lhs.type
    assert isinstance(t, TileType)
    return t.element_type


def fused_layout(op: Operation, threads: int) -> Layout | None:
    """The accumulator layout of `op` when it is an mma of a fused loop (None: it is not)."""
    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp):
        return None
    f = match(loop)
    if f is None or not _fits(f, threads):
        return None
    m, n = _shape(op.results[0])
    return row_tensor_core_layout(m, n, threads)


def lower_fused(ctx: Lowering, op: scf.ForOp) -> bool:
    """Lower `op` as a fused loop (module docstring); False if it is not one."""
    f = match(op)
    if f is None or not _fits(f, ctx.threads):
        return False
    for mma in f.mmas:
        m, n = _shape(mma.result)
        if ctx.layout_of(mma.result) != row_tensor_core_layout(m, n, ctx.threads):
            return False
    ctx.lowering(op)
    from ferrox.lowering.tile_to_simt import attention_tma, attention_wgmma
    from ferrox.lowering.tile_to_simt.attention_wgmma import PipelinedLoop, WgmmaLoop, plan

    wg = plan(f, ctx.threads, ctx.config.chip)
    on_tma = wg is not None and attention_tma.TMA and attention_tma.fits(f, ctx)
    if wg is not None and wg.pipelined and attention_wgmma.PIPELINE is None and not on_tma:
        wg = replace(wg, pipelined=False)  # pipelined on TMA stages only
    if wg is None:
        _Loop(ctx, f).run()
    elif on_tma:
        tma = attention_tma.TmaPipelinedLoop if wg.pipelined else attention_tma.TmaLoop
        tma(ctx, f, wg).run()
    elif wg.pipelined:
        PipelinedLoop(ctx, f, wg).run()
    else:
        WgmmaLoop(ctx, f, wg).run()
    if wg is not None:  # the output's staging after the loop (`OUTPUT_SLABS`)
        ctx.slabs = attention_wgmma.OUTPUT_SLABS
    extra = wg.m * wg.bn // ctx.threads if wg is not None and wg.pipelined else 0
    if (blocks := blocks_an_sm(f, ctx.threads, extra)) > 1:
        kernel = ctx.entry.parent_op()
        assert kernel is not None
        kernel.attributes[MINCTASM_ATTR] = IntegerAttr(blocks, i32)
    return True


def blocks_an_sm(f: Fused, threads: int, extra: int = 0) -> int:
    """The blocks an SM the loop asks for (`TWO_BLOCKS_TILE_REGISTERS`): where its mmas' f32
    accumulators take at most that many 32-bit registers a thread, as many as leave each
    thread 128 registers (two of 256 threads, four of 128, the wgmma path's one warpgroup;
    one of 512, for which ptxas could not fit 64 registers); otherwise 1 (no hint). `extra`:
    more accumulators a thread holds (the pipelined wgmma loop's next scores)."""
    total = extra + sum(math.prod(_shape(mma.result)) // threads for mma in f.mmas)
    if total > TWO_BLOCKS_TILE_REGISTERS:
        return 1
    return max(1, SM_REGISTERS // (threads * HINTED_REGISTERS))


class _Loop:
    def __init__(self, ctx: Lowering, f: Fused):
        self.ctx, self.f = ctx, f
        self.element = _element(f.mmas[0])
        self.w = CHUNK_BYTES // element_bytes(self.element)
        self.stream_of = dict(zip(f.mmas, f.streams))
        self.skipped: set[Operation] = set()
        for s in f.streams:
            self.skipped.add(s.load)
            self.skipped.update(s.chain)

    def checked(self, fill) -> None:
        """Run `fill` and check the uniformity what it emitted needs (the loop's mmas')."""
        ctx = self.ctx
        ctx.need = None
        fill()
        check(ctx.control, self.f.mmas[0], ctx.need)

    # -- copies ------------------------------------------------------------------------------
    def plan(self, s: Stream):
        """This thread's copies of a stage, (row, chunk, offset in the stage, rows on) each, and
        the guard for a tile of fewer chunks than threads. Where the threads cover a multiple
        of the swizzle's 8-row period a pass (`step` rows), every copy is the first one moved
        `rows on = u * step` rows (same chunk, same swizzle): only the first copy's values
        stay live across the loop, the others are constants added in it."""
        ctx = self.ctx
        chunks = s.cols // self.w
        total = s.rows * chunks
        passes = max(1, total // ctx.threads)
        step = ctx.threads // chunks
        affine = passes == 1 or (step >= 8 and step % 8 == 0)
        out: list[tuple[SSAValue, SSAValue, SSAValue, int]] = []
        for u in range(1 if affine else passes):
            c = ctx.add(ctx.tid(), u * ctx.threads)
            row = ctx(arith.ShRUIOp(c, ctx.index(log2(chunks))))
            chunk = ctx(arith.AndIOp(c, ctx.index(chunks - 1)))
            x = ctx(arith.XOrIOp(chunk, _swizzle(ctx, row, chunks)))
            at = self.place(s, row, x)
            out.extend((row, chunk, at, step * v) for v in range(passes if affine else 1))
        guard = ctx.cmp("ult", ctx.tid(), total) if total < ctx.threads else None
        return out, guard

    def place(self, s: Stream, row: SSAValue, x: SSAValue) -> SSAValue:
        """Where chunk `x` (swizzled) of row `row` lies in a stage: rows of `s.cols`."""
        ctx = self.ctx
        return ctx.add(ctx.mul(row, s.cols), ctx.mul(x, self.w))

    def row_pitch(self, s: Stream) -> int:
        """Elements from one row of a stage to the next, within a chunk's column."""
        return s.cols

    def index(self, v: SSAValue, kk: SSAValue) -> SSAValue:
        """A load index at the iteration whose loop variable is `kk`."""
        if v is self.f.loop.body.block.args[0]:
            return kk
        known = _constant(v)
        return self.ctx.index(known) if known is not None else self.ctx.scalar(v)

    def issue(self, s: Stream, plan, array, kk: SSAValue, valid: SSAValue, stage) -> None:
        """The copies of the iteration whose loop variable is `kk` (`valid`: it runs)."""
        ctx = self.ctx
        copies, guard = plan
        tensor = ctx.tensor(s.load.source)
        idx = [self.index(v, kk) for v in s.load.indices]
        dims = tensor.dims
        r = len(dims)
        conds = [valid]
        for d in range(r - 2):
            conds.append(ctx.cmp("ult", idx[d], dims[d]))
        conds.append(
            ctx.cmp("ult", idx[r - 2], ctx(arith.CeilDivUIOp(dims[r - 2], ctx.index(s.rows))))
        )
        conds.append(
            ctx.cmp("ult", idx[r - 1], ctx(arith.CeilDivUIOp(dims[r - 1], ctx.index(s.cols))))
        )
        ok = ctx.all_of(conds)
        # The flat index of the tile's [rows, cols] plane: (i0 * d1 + i1) * d2 + ... to dim r - 3.
        lead = idx[0] if r > 2 else None
        for d in range(1, r - 2):
            assert lead is not None
            lead = ctx.add(ctx.mul(lead, dims[d]), idx[d])
        row0 = ctx.mul(idx[r - 2], s.rows)
        col0 = ctx.mul(idx[r - 1], s.cols)
        zero = ctx.index(0)
        base = ctx.mul(lead, dims[r - 2]) if lead is not None else zero
        base_at = ctx.mul(stage, s.rows * s.cols)
        pitch = self.row_pitch(s)
        places = []
        for _, _, at, rows_on in copies:
            place = ctx.add(base_at, at)
            places.append(ctx.add(place, rows_on * pitch) if rows_on else place)

        def checked(row, chunk, rows_on) -> tuple[SSAValue, SSAValue]:
            # The copy `rows_on` rows after `row`: its values are the first copy's plus
            # constants made here, in the loop, so none of them is kept live across it.
            first = ctx.add(row0, row)
            grow = ctx.add(first, rows_on) if rows_on else first
            gcol = ctx.add(col0, ctx.mul(chunk, self.w))
            inside = ctx.all_of(
                [ok, ctx.cmp("ult", grow, dims[r - 2]), ctx.cmp("ult", gcol, dims[r - 1])]
            )
            flat = ctx.add(ctx.mul(ctx.add(base, first), dims[r - 1]), gcol)
            if rows_on:
                flat = ctx.add(flat, ctx.mul(dims[r - 1], rows_on))
            count = ctx(arith.MinUIOp(ctx(arith.SubiOp(dims[r - 1], gcol)), ctx.index(self.w)))
            count = ctx(arith.SelectOp(inside, count, zero))
            return ctx(arith.SelectOp(inside, flat, zero)), count

        def checked_copies(indices) -> list[SSAValue]:
            for (flat, count), at in zip(indices(), places):
                ctx.emit(simt.AsyncCopyOp(tensor.slice, flat, count, array, at, self.w))
            return []

        def whole_copies() -> list[SSAValue]:
            # `checked`'s flat index, regrouped: the tile's first element (block-uniform) plus
            # the thread's offset in the tile (loop-invariant), so neither the range tests nor
            # a per-copy address is computed on this path.
            # The copies `rows_on` rows after the first add `rows_on` rows to its index last:
            # a constant where the row length is (`row_length`), which the copy's lowering puts
            # into the instruction as an immediate offset from the first copy's address.
            pitch = self.row_length(s, dims)
            tile_at = ctx.add(ctx.mul(ctx.add(base, row0), pitch), col0)
            for (row, chunk, _, rows_on), at in zip(copies, places):
                off = ctx.add(ctx.mul(row, pitch), ctx.mul(chunk, self.w))
                flat = ctx.add(tile_at, off)
                if rows_on:
                    flat = ctx.add(flat, ctx.mul(pitch, rows_on))
                ctx.emit(simt.UncheckedAsyncCopyOp(tensor.slice, flat, array, at, self.w))
            return []

        whole = self.whole_stream(s, tensor, idx, valid)
        if whole is None:  # the checked copies alone, their indices made before the guard
            made = [checked(row, chunk, rows_on) for row, chunk, _, rows_on in copies]

            def guarded() -> None:
                ctx.unsafe(lambda: checked_copies(lambda: made))

        else:  # each path makes its own indices, inside its branch

            def guarded() -> None:
                made = lambda: [checked(row, chunk, on) for row, chunk, _, on in copies]  # noqa: E731
                branch(ctx, whole, [], lambda: ctx.unsafe(whole_copies),
                       lambda: ctx.unsafe(lambda: checked_copies(made)))  # fmt: skip

        ctx.when(guard, guarded)

    def whole_stream(self, s: Stream, tensor, idx, valid) -> SSAValue | None:
        """A block-uniform test under which the copies of `s`'s tile at `idx` may be unchecked,
        or None: every copy checked (this loop's choice)."""
        return None

    def row_length(self, s: Stream, dims: list[SSAValue]) -> SSAValue:
        """The elements of a row of `s`'s tensor, as the whole-tile copies compute their
        indices with it: the last dimension's parameter (`whole_stream` may make it a constant
        where its test holds only when the two are equal)."""
        return dims[-1]

    # -- fragments ---------------------------------------------------------------------------
    def a_fragments(self, mma: tile.MmaOp) -> dict[tuple[int, int], list[SSAValue]]:
        """The warp's A fragments of `mma.lhs`, by (static m16 tile row, k16 step): the operand
        in the row layout, two registers packed per i32."""
        ctx = self.ctx
        m, k = _shape(mma.lhs)
        layout = row_tensor_core_layout(m, k, ctx.threads)
        assert layout is not None
        regs = ctx.tile(mma.lhs, layout)
        at = {layout.static_element(r): regs[r] for r in range(layout.num_regs)}
        rows = sorted({layout.static_element(4 * t) >> log2(k) for t in range(len(regs) // 4)})
        frags = {}
        for mt in rows:
            for ks in range(k // 16):

                def pair(row: int, col: int) -> SSAValue:
                    return pack_pair(ctx, at[row * k + col], at[row * k + col + 1])

                c = 16 * ks
                frags[(mt, ks)] = [
                    pair(mt, c),
                    pair(mt + 8, c),
                    pair(mt, c + 8),
                    pair(mt + 8, c + 8),
                ]
        return frags

    def prepare(self) -> None:
        """Per-thread parts of the `ldmatrix` addresses, computed once."""
        ctx = self.ctx
        lane = ctx(arith.AndIOp(ctx.tid(), ctx.index(31)))
        in8 = ctx(arith.AndIOp(lane, ctx.index(7)))
        hi8 = ctx(arith.AndIOp(ctx(arith.ShRUIOp(lane, ctx.index(3))), ctx.index(1)))
        half = ctx(arith.ShRUIOp(lane, ctx.index(4)))
        self.lane_parts = {}
        for s in self.f.streams:
            chunks = s.cols // self.w
            if s.transposed:
                # plain ldmatrix of rows n0 + (t % 8) + 8 (t / 16), chunk 2 ks + (t / 8) % 2.
                row = ctx.add(in8, ctx.mul(half, 8))
                x = ctx(arith.XOrIOp(hi8, _swizzle(ctx, row, chunks)))
            else:
                # ldmatrix.trans of k rows 16 ks + (t % 8) + 8 ((t / 8) % 2), chunk n0 / 8 + t / 16.
                row = ctx.add(in8, ctx.mul(hi8, 8))
                x = ctx(arith.XOrIOp(half, _swizzle(ctx, row, chunks)))
            self.lane_parts[s] = (ctx.mul(row, s.cols), x)

    def b_fragments(self, s: Stream, array, stage, ks: int, n: int) -> dict[int, list[SSAValue]]:
        """The warp's B fragments of the k16 step `ks`, by n8 tile column."""
        ctx = self.ctx
        row_off, x = self.lane_parts[s]
        base = ctx.add(ctx.mul(stage, s.rows * s.cols), row_off)

        def loads() -> list[SSAValue]:
            out: list[SSAValue] = []
            for pair in range(0, n, 16):
                if s.transposed:
                    at = ctx.add(base, pair * s.cols)
                    chunk = ctx(arith.XOrIOp(x, ctx.index(2 * ks))) if ks else x
                else:
                    at = ctx.add(base, 16 * ks * s.cols)
                    chunk = ctx(arith.XOrIOp(x, ctx.index(pair // 8))) if pair else x
                at = ctx.add(at, ctx.mul(chunk, self.w))
                out.extend(ctx.emit(simt.LdMatrixOp(array, at, trans=not s.transposed)).results)
            return out

        loaded = ctx.unsafe(loads)
        frags = {}
        for u, pair in enumerate(range(0, n, 16)):
            r = loaded[4 * u : 4 * u + 4]
            frags[pair], frags[pair + 8] = r[0:2], r[2:4]
        return frags

    def mma(self, mma: tile.MmaOp, stage) -> None:
        ctx = self.ctx
        m, k = _shape(mma.lhs)
        _, n = _shape(mma.rhs)
        layout = ctx.layout_of(mma.result)
        a = self.hoisted.get(mma)
        if a is None:
            a = self.a_fragments(mma)
        acc = list(ctx.tile(mma.acc, layout))
        tiles = layout.num_regs // 4
        tile_of = {
            (layout.static_element(4 * t) >> log2(n), layout.static_element(4 * t) & (n - 1)): t
            for t in range(tiles)
        }
        s = self.stream_of[mma]
        for ks in range(k // 16):
            b = self.b_fragments(s, self.arrays[s], stage, ks, n)
            for (mt, nt), t in sorted(tile_of.items()):
                c = acc[4 * t : 4 * t + 4]
                d = ctx.emit(simt.MmaSyncOp(self.element, a[(mt, ks)], b[nt], c)).results
                acc[4 * t : 4 * t + 4] = list(d)
        ctx.bind(mma.result, Dist(layout, acc))

    # -- the loop ----------------------------------------------------------------------------
    def run(self) -> None:
        """The loop (module docstring): `before_loop`, then a loop whose body is `top` and the
        body's ops (its streamed products by `mma`), then `after_loop`."""
        ctx, f = self.ctx, self.f
        loop = f.loop
        body = loop.body.block
        self.arrays = {s: self.stage_array(s, u) for u, s in enumerate(f.streams)}
        self.plans = {s: self.plan(s) for s in f.streams}
        lb, ub, step = (ctx.scalar(v) for v in (loop.lb, loop.ub, loop.step))
        self.hoisted: dict[tile.MmaOp, dict] = {}
        self.checked(lambda: self.before_loop(lb, ub))
        carried = list(body.args[1:])
        inits = flatten(ctx, loop.iter_args, carried)
        new_body = Block(arg_types=[IndexType(), IndexType(), *(v.type for v in inits)])
        iv, t = new_body.args[0], new_body.args[1]
        ctx.bind(body.args[0], iv)
        unflatten(ctx, carried, list(new_body.args[2:]))
        ctx.loop_depth += 1
        try:
            with ctx.at(InsertPoint.at_end(new_body)):
                self.checked(lambda: self.top(iv, t, ub, step))
                stage = ctx(arith.AndIOp(t, ctx.index(1)))
                for op in body.ops:
                    if op in self.skipped:
                        continue
                    if isinstance(op, scf.YieldOp):
                        ctx.lowering(op)
                        ctx.emit(scf.YieldOp(ctx.add(t, 1), *flatten(ctx, op.operands, carried)))
                    elif isinstance(op, tile.MmaOp) and op in self.stream_of:
                        ctx.lowering(op)
                        self.checked(lambda op=op: self.mma(op, stage))
                    else:
                        lower_op(ctx, op)
        finally:
            ctx.loop_depth -= 1
        ctx.lowering(loop)
        new = scf.ForOp(lb, ub, step, [ctx.index(0), *inits], Region(new_body))

        def after() -> None:
            ctx.emit(new)
            self.after_loop()

        self.checked(after)
        unflatten(ctx, loop.results, list(new.results[1:]))
        free = _free_stages(ctx)
        for u, s in enumerate(f.streams):  # waited for and past a barrier: free for a later loop
            free.setdefault(self.stage_key(s, u), []).append(self.arrays[s])

    def before_loop(self, lb: SSAValue, ub: SSAValue) -> None:
        """Before the loop: the invariant operands, and the copies of the first iteration."""
        ctx = self.ctx
        self.prepare()
        self.invariant_operands()
        valid = ctx.cmp("ult", lb, ub)
        for s in self.f.streams:
            self.issue(s, self.plans[s], self.arrays[s], lb, valid, ctx.index(0))
        ctx.emit(simt.AsyncCommitOp())

    def top(self, iv: SSAValue, t: SSAValue, ub: SSAValue, step: SSAValue) -> None:
        """An iteration's start: this thread's copies waited for, a barrier, the next
        iteration's copies issued into the other stage."""
        ctx = self.ctx
        ctx.emit(simt.AsyncWaitOp(0))
        self.copies_done()
        ctx.sync()
        ahead = ctx.add(iv, step)
        valid = ctx.cmp("ult", ahead, ub)
        after = ctx(arith.AndIOp(ctx.add(t, 1), ctx.index(1)))
        for s in self.f.streams:
            self.issue(s, self.plans[s], self.arrays[s], ahead, valid, after)
        ctx.emit(simt.AsyncCommitOp())

    def after_loop(self) -> None:
        """After the loop: every copy waited for, and a barrier (the stages are free then)."""
        self.ctx.emit(simt.AsyncWaitOp(0))
        self.ctx.sync()

    def invariant_operands(self) -> None:
        """Left operands defined before the loop (q) made into A fragments once, before it.
        An operand made into fragments before an earlier fused loop of the same block (q, for
        the unmasked and the masked loop) is taken from there: those values dominate this loop
        too, and making them again would keep both sets alive."""
        ctx, loop = self.ctx, self.f.loop
        made = ctx.__dict__.setdefault("_fused_a_fragments", {})
        for mma in self.f.mmas:
            if not _inside(mma.lhs, loop):
                key = (mma.lhs, loop.parent_block())
                if key not in made:
                    made[key] = self.a_fragments(mma)
                self.hoisted[mma] = made[key]

    def copies_done(self) -> None:
        """After this thread's copies of an iteration are complete, before the barrier."""

    def stage_key(self, s: Stream, u: int) -> tuple:
        return (self.element, STAGES * s.rows * s.cols, u)

    def stage_array(self, s: Stream, u: int) -> SSAValue:
        """The stages of stream `u`: those of an earlier fused loop of the kernel when it had
        the same size (its copies were all waited for, and a barrier ended its reads), else new."""
        free = _free_stages(self.ctx).get(self.stage_key(s, u))
        if free:
            return free.pop()
        return self.ctx.shared(self.element, STAGES * s.rows * s.cols, f"stream{u}")


def _free_stages(ctx: Lowering) -> dict[tuple, list[SSAValue]]:
    """The stage arrays of the kernel's finished fused loops, by (element, size, stream)."""
    return ctx.__dict__.setdefault("_fused_free_stages", {})


__all__ = ["Fused", "fused_layout", "lower_fused", "match"]
