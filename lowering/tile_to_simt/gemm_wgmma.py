"""The GEMM main loop (`gemm.py`'s pattern) on Hopper: TMA loads into 128-byte swizzled shared
stages that complete on mbarriers, multiplied by `simt.wgmma` into f32 accumulators, when the
target is sm_90 (compiled as sm_90a, the arch-specific target wgmma needs) and the inputs are bf16
or f16. Anything else keeps `gemm.py`'s `cp.async` + `mma.sync` path.

What was settled, and why:

- **Which loops** (`plan`): `m`, `n`, `k` multiples of 64 and at most 256 (a TMA box side is at
  most 256 elements; a 128-byte swizzled row is 64 16-bit elements), the loop at the top of the
  kernel (its barriers' phases start at 0 each run: a loop nested in another would find them
  part-way), and at most 128 accumulators a thread. Warpgroups: two over M when `m >= 128`, else
  two over N when `n >= 128`, else one; each computes `m / wm` rows as `m / (64 wm)` chains of
  m64nN wgmma, `N = n / wn` (the SIMT kernel's best configs: 256 x 128 as 2 x 2 m64n128, 128 x
  256 as 2 x m64n256). The kernel then takes `128 wm wn` threads (`kernel_threads`, before the
  layouts are chosen) and the accumulator takes the wgmma fragment layout (`layout`): the loop
  needs no register shuffle.
- **B's layout**: the tile operand's B is `[K, N]` row-major (N contiguous). TMA loads it as
  `n / 64` boxes of `[k, 64]`, each rows of 64 N-values, one row per k, swizzled: exactly the
  MN-major 128-byte swizzle layout wgmma reads with a transposed B (`simt.wgmma {b_mn_stride}`,
  the box stride `64 k` elements). A is `[M, K]`, K contiguous: `k / 64` boxes of `[m, 64]`,
  K-major, as the SIMT kernel's.
- **Stages and schedule**: `S` stages (at most 4 within 200 KiB, less the epilogue's staging
  array and 1 KiB; at least 2, else the loop stays on `gemm.py`; where a thread holds at most
  64 accumulators, as few as let two blocks share an SM, `TWO_BLOCKS_SHARED`), each an A and a B
  array of its own (verify-disjoint's in-flight rule is per allocation: a stage may be refilled
  while a group reading another is pending), a barrier per stage. Thread 0 initialises the
  barriers, a block barrier, then loads iterations `0 .. D - 1`. The loop runs in rounds of `S`
  iterations, unrolled so each stage is a constant; iteration `t` (stage `s = t % S`, parity
  `(t / S) % 2`): block barrier (every warpgroup passed the wait that retired the group of
  iteration `t - 1 - P`, which read the stage refilled now); thread 0 loads iteration `t + D`
  into stage `(s + D) % S`, `D = S - 1 - P`, predicated (no branch near the wgmma ops: ptxas
  serialises them after one); every thread waits on the stage's barrier; fence, the wgmma ops of
  the `k / 16` steps, commit, and a wait leaving `P` groups pending (`P = 1`, or 0 with 2
  stages). After the loop a wait with `P = 0` retires the rest.
- **Ragged sizes and extra iterations**: the tensor maps are built at launch from the tensors'
  shapes, so rows and columns past `m`, `n`, `k` read as zeros, as `tile.load`'s zero padding
  does. The rounds cover the trip count rounded up to `S`; an iteration past the loop's end
  loads from coordinates at the tensor's edge (all zeros), which adds `0 * 0` products: the sum
  is unchanged (a `-0.0` accumulator would become `+0.0`). Coordinates are clamped to the
  tensor's extent so that a tile index past it reads zeros however large.
- **Epilogue**: the loop's result is handed on in the chunked layout a `tile.store` of it takes
  (so the store converts nothing), made through a staging array a slab of rows at a time: the
  slabs are split on the row bits that are register bits of both layouts, so each thread writes
  and reads a static set of its registers per slab. A whole-tile exchange (what the generic
  conversion does, `4 m (n + 1)` bytes) would not fit beside the stages of a 256 x 128 or
  128 x 256 tile; a slab of 64 rows does. Where that leaves room for fewer than 4 stages (128 x
  256: 3, so loads ran 1 step ahead), the slabs are cut on the warpgroup bit of the wgmma
  layout too (`Plan.split`): the warpgroup holding a slab's rows writes it, every thread reads
  its chunks. 128 x 256 then takes 4 stages beside 32-row slabs; on the H100
  (2026-12-05, medians of 5 interleaved rounds) 4096^3 went 0.898 -> 0.918 of cuBLAS in bf16
  and 0.881 -> 0.904 in f16 (8192^3: 0.932 -> 0.915 and 0.931 -> 0.944, within the rounds'
  spread). Ops after the loop see an ordinary value. Where the sums reach a bf16 or f16
  store (`bf16(acc)`, `stored_element`), the target is that store's chunked layout (8-element
  chunks): the conversion is made there in registers, and the layout assignment is told so
  (`result_layout`), so nothing converts the sums back to the fragment layout.
- **The chip**: the target reaches the tile lowering as `Config.chip`, from the module's
  `"ferrox.chip"` attribute or the pass option `chip`; `compile` stamps the chip it compiles for
  onto its copy of the module and asks `target_chip` whether sm_90 must become sm_90a (the
  interpreter runs whatever the module's attribute selects, so the CPU runs this path too).

Everything here is the lowering's trusted code: every shared, barrier, TMA and wgmma op sits in
`simt.unsafe`, and the produced kernel passes `verify-disjoint` (the in-flight rules of wgmma)
like every lowered kernel (docs/safety.md, trusted base).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.tma import (
    MbarrierArriveExpectTxOp,
    MbarrierInitOp,
    MbarrierWaitOp,
    TmaLoadOp,
)
from ferrox.dialects.simt.wgmma import SWIZZLE_ROW, SWIZZLE_ROWS, WARPGROUP
from ferrox.dialects.tile.types import PartitionType
from ferrox.lowering import knobs
from ferrox.lowering.tile_to_simt.config import VECTOR_BYTES, element_bytes
from ferrox.lowering.tile_to_simt.context import SHARED_LIMIT, Dist, Lowering
from ferrox.lowering.tile_to_simt.layout import Layout, assign, chunked, log2

WGMMA_CHIPS = ("sm_90", "sm_90a")
CHIP_ATTR = "ferrox.chip"
BOX = SWIZZLE_ROW
"""Elements of one 128-byte swizzled row: a box's inner side."""
BOX_LIMIT = 256
MAX_ACCUMULATORS = 128
"""f32 accumulators a thread may hold (of its 255 registers)."""
MAX_STAGES = 4
STAGE_BUDGET = 200 * 1024
EPILOGUE_MARGIN = 1024
"""Shared memory left for the barriers and whatever follows the loop in chunked layout."""
TWO_BLOCKS_ACCUMULATORS = 64
TWO_BLOCKS_SHARED = (228 * 1024) // 2 - 1024
"""Where a thread holds at most 64 accumulators (a 128 x 128 tile: 105 registers), two blocks
fit an SM's registers; the stages are then capped so that two fit its 228 KiB of shared memory
too (less the 1 KiB the system keeps a block), at least 2: one block's epilogue and pipeline
fill overlap the other's main loop. On the H200 (2026-12-05) 128 x 128 x 64 went from 4 stages
and one block an SM to 2 stages and two: 0.72 -> 0.79 of cuBLAS at 4096^3 bf16, 0.80 -> 0.89
at 8192^3 (f16 0.77 -> 0.84, 0.81 -> 0.90)."""
PITCH_PAD = 8
"""f32 padding of a staging row: a warp's fragment rows land in distinct banks."""
PENDING = 1
PERSISTENT = False
"""Lower a kernel whose loop takes this path (on the default schedule, not the warp-specialised
one) persistent: one loop over its tiles, `min(tiles, SMs)` blocks, the ring of stages running
on across tiles (`persistent.py`, `Wgmma.run`); a knob for timing, off until timed."""


@dataclass(frozen=True)
class Plan:
    """How one GEMM loop runs on wgmma: tile shape, warpgroups over M and N, stages."""

    m: int
    n: int
    k: int
    wm: int
    wn: int
    stages: int
    split: int = 0
    """Lane bits of the wgmma layout that also cut the epilogue's slabs (`slab_rows`)."""
    producers: int = 0
    """Producer warpgroups of a warp-specialised loop (`gemm_specialized.py`), 0: none."""

    @property
    def threads(self) -> int:
        """The threads that hold the accumulator (the layouts' threads)."""
        return WARPGROUP * self.wm * self.wn

    @property
    def block_threads(self) -> int:
        """The kernel's block: the accumulator's threads and the producers."""
        return self.threads + WARPGROUP * self.producers

    @property
    def nw(self) -> int:
        """Columns per warpgroup: the wgmma's N."""
        return self.n // self.wn

    @property
    def chains(self) -> int:
        """m64 row blocks per warpgroup."""
        return self.m // self.wm // 64

    @property
    def pending(self) -> int:
        return PENDING if self.stages >= 3 else 0


def plan(g, chip: str) -> Plan | None:
    """The plan for matched loop `g` (`gemm.Gemm`) on `chip`, or None where this path does not
    apply (module docstring)."""
    if chip not in WGMMA_CHIPS or not isinstance(g.element, BFloat16Type | Float16Type):
        return None
    m, n, k = g.m, g.n, g.k
    if any(d % BOX or d > BOX_LIMIT for d in (m, n, k)):
        return None
    if not isinstance(g.loop.parent_op(), tile.KernelOp):
        return None
    wm, wn = (2, 1) if m >= 128 else (1, 2) if n >= 128 else (1, 1)
    if m * n // (WARPGROUP * wm * wn) > MAX_ACCUMULATORS:
        return None
    width = VECTOR_BYTES // element_bytes(stored_element(g.loop))
    found = _stages(Plan(m, n, k, wm, wn, 0), width)
    if found is None:
        return None
    stages, split = found
    threads = Plan(m, n, k, wm, wn, 0).threads
    from ferrox.lowering.tile_to_simt import gemm_specialized

    producers = 1 if gemm_specialized.applies(g, m * n // threads) else 0
    return Plan(m, n, k, wm, wn, stages, split, producers)


def _stages(p: Plan, width: int) -> tuple[int, int] | None:
    """(stages, split) for tile `p` whose store takes chunks of `width`, or None where fewer
    than 2 stages fit. The epilogue's staging array (`Wgmma.epilogue`) comes on top of the
    stages; its slabs may be cut on lane bits too (`split`), which leaves room for more stages:
    the split that gives the most stages, the fewest cuts among those. Where a thread holds at
    most `TWO_BLOCKS_ACCUMULATORS`, the stages are then capped so that two blocks fit an SM, at
    least 2. A 16-bit output's store (8-element chunks) shares fewer row bits with the
    fragments, so its unsplit slabs are twice the f32 output's: at 128 x 128 they would leave
    one block an SM, so there the split that lets two blocks share an SM comes first. (The f32
    output keeps the rule it was timed with; the same preference would move only 256 x 64 f32,
    from 4 stages and one block to 2 and two, untimed.)"""
    stage_bytes = 2 * p.k * (p.m + p.n)
    two_blocks = p.m * p.n // p.threads <= TWO_BLOCKS_ACCUMULATORS  # registers for two an SM
    sharing_first = width > VECTOR_BYTES // 4  # a 16-bit output
    best = (0, 0, 0, 0)  # (stages beside another block if first, stages alone, -split, shared)
    for split in range(len(_lane_cuts(p, width)) + 1):
        shape = Plan(p.m, p.n, p.k, p.wm, p.wn, 0, split)
        staging = 4 * slab_rows(shape, width)[0] * (p.n + PITCH_PAD)
        budget = min(STAGE_BUDGET, SHARED_LIMIT - staging - EPILOGUE_MARGIN)
        alone = min(MAX_STAGES, budget // stage_bytes)
        fewer = (TWO_BLOCKS_SHARED - staging - EPILOGUE_MARGIN) // stage_bytes
        shared = min(alone, fewer) if two_blocks and fewer >= 2 else 0
        best = max(best, (shared if sharing_first else 0, alone, -split, shared))
    alone, split, shared = best[1], -best[2], best[3]
    if alone < 2:
        return None
    return (shared or alone), split


def stored_element(loop: scf.ForOp) -> Attribute:
    """The element type the loop's sums are stored as: its result followed through ops of one
    use each (elementwise ops, `tile.astype` among them) to a `tile.store`'s partition of bf16 or
    f16; f32 where it reaches none (or a partition of another type). The epilogue hands the sums
    on in the chunked layout of that type's store (8-element chunks for a bf16 output,
    `epilogue_layout`), so the conversion to bf16 happens in registers, in the layout the store
    takes."""
    from ferrox.lowering.tile_to_simt.elementwise import SCALARS

    value: SSAValue = loop.results[0]
    while value.has_one_use():
        user = next(iter(value.uses)).operation
        if isinstance(user, tile.StoreOp) and isinstance(user.dest.type, PartitionType):
            element = user.dest.type.element_type
            return element if isinstance(element, BFloat16Type | Float16Type) else f32
        if type(user) not in SCALARS:  # elementwise: a result of the operands' shape
            break
        value = user.results[0]
    return f32


def epilogue_layout(p: Plan, loop: scf.ForOp, config) -> Layout:
    """The layout `Wgmma.epilogue` hands the loop's sums on in: the chunked layout of the
    store they reach (`stored_element`)."""
    return slab_rows(p, config.width(stored_element(loop), p.n))[2]


def result_layout(loop: scf.ForOp, config) -> Layout | None:
    """For the layout assignment (`assign.py`): the layout the loop's result is made in where
    the loop takes this path (`epilogue_layout`), so that what follows the loop (a conversion
    to bf16) is computed there rather than in the fragment layout; None elsewhere. A hint only:
    every lowering binds its results with the layout they are in."""
    from ferrox.lowering.tile_to_simt.gemm import match

    g = match(loop)
    if g is None or not config.chip:
        return None
    p = plan(g, config.chip)
    if p is None or p.threads != config.threads:
        return None
    return epilogue_layout(p, loop, config)


def _lane_cuts(p: Plan, width: int) -> list[int]:
    """Row bits that are warpgroup bits of the wgmma layout (highest first) and register bits
    of the store's chunked layout: a slab cut on one is written by the warpgroup that holds it
    and read by every thread. Not the bits of a warp within its warpgroup: on 2026-12-05 (H100)
    cutting 128 x 128 slabs on two of them (16 rows, 3 stages) took the kernel from 105 to 130
    registers, too many for two blocks an SM, and from 0.72-0.84 of cuBLAS to 0.59-0.66."""
    src = layout(p)
    dst = chunked((p.m, p.n), p.threads, width)
    ln = log2(p.n)
    group_bits = src.lanes[log2(WARPGROUP) :]  # thread bits 7 and up name the warpgroup
    return [b for b in reversed(group_bits) if b is not None and b >= ln and b in dst.regs]


def slab_rows(p: Plan, width: int) -> tuple[int, list[int], Layout]:
    """(rows per slab, the slab bits, the target layout) of the epilogue: the target is the
    chunked layout of `width`-element chunks a store takes; the slab bits are the row bits that
    are register bits in both it and the wgmma layout, so that each slab is a static set of
    registers on both sides, and `p.split` of `_lane_cuts`, where a slab is written by the
    warpgroup that holds its rows (a static set of its registers) and read as the others."""
    src = layout(p)
    dst = chunked((p.m, p.n), p.threads, width)
    ln = log2(p.n)
    bits = [b for b in src.regs if b is not None and b >= ln and b in dst.regs]
    bits = sorted(bits + _lane_cuts(p, width)[: p.split])
    return p.m >> len(bits), bits, dst


def _plans(kernel: tile.KernelOp, chip: str) -> list[Plan]:
    from ferrox.lowering.tile_to_simt.gemm import match

    out = []
    for op in kernel.body.block.ops:
        if isinstance(op, scf.ForOp) and (g := match(op)) is not None:
            if (p := plan(g, chip)) is not None:
                out.append(p)
    return out


def kernel_threads(kernel: tile.KernelOp, chip: str) -> int | None:
    """The threads the kernel's first wgmma loop needs, or None when it has none."""
    plans = _plans(kernel, chip)
    return plans[0].threads if plans else None


def accumulator_tile(kernel: tile.KernelOp, chip: str) -> tuple[int, int] | None:
    """The (m, n) of the kernel's first wgmma loop's accumulator, or None when it has none."""
    plans = _plans(kernel, chip)
    return (plans[0].m, plans[0].n) if plans else None


def module_chip(module: ModuleOp) -> str:
    """The module's `"ferrox.chip"`, or "" (no target named: the portable path)."""
    attr = module.attributes.get(CHIP_ATTR)
    return attr.data if isinstance(attr, StringAttr) else ""


def target_chip(module: ModuleOp, chip: str) -> str:
    """`chip`, or its arch-specific variant sm_90a when a tile kernel of `module` takes this
    path or `attention_wgmma.py`'s on sm_90 (wgmma exists only there)."""
    from ferrox.lowering.tile_to_simt.attention_wgmma import kernel_threads as attention

    if chip != "sm_90":
        return chip
    for op in module.ops:
        if isinstance(op, tile.KernelOp) and (_plans(op, chip) or attention(op, chip)):
            return "sm_90a"
    return chip


@functools.cache  # asked for by the layout inference, the loop and the epilogue alike
def layout(p: Plan) -> Layout:
    """The accumulator layout of the wgmma fragments: register `i` of chain `h` is value `i` of
    the chain's m64nN fragment (`i % 2`: column bit 0, `(i / 2) % 2`: row bit 3, `i / 4`: the
    n8 tile), chains take row bits 6 and up; lanes: column bits 1-2 and row bits 0-2 (the lane
    in its warp), row bits 4-5 (the warp in its warpgroup), then the warpgroup's bit (the top
    row bit with two over M, the top column bit with two over N)."""
    lm, ln = log2(p.m), log2(p.n)
    col = list(range(ln))
    row = list(range(ln, ln + lm))
    rows_wg, cols_wg = log2(p.m // p.wm), log2(p.nw)
    regs = [col[0], row[3], *col[3:cols_wg], *row[6:rows_wg]]
    lanes = [col[1], col[2], row[0], row[1], row[2], row[4], row[5]]
    lanes += row[rows_wg:] + col[cols_wg:]
    return assign((p.m, p.n), p.threads, regs, lanes)


def layout_for(op: Operation, config) -> Layout | None:
    """The wgmma layout for `tile.mma` `op` when its loop takes this path under `config`."""
    from ferrox.lowering.tile_to_simt.gemm import match

    loop = op.parent_op()
    if not isinstance(loop, scf.ForOp) or not config.chip:
        return None
    g = match(loop)
    if g is None or g.mma is not op:
        return None
    p = plan(g, config.chip)
    return layout(p) if p is not None and p.threads == config.threads else None


def pipeline(ctx: Lowering, g) -> Wgmma | None:
    """The lowering of matched loop `g` on wgmma when its plan holds and the layouts agree; None
    leaves it to `gemm.py`'s pipelines."""
    p = plan(g, ctx.config.chip)
    if p is None or p.threads != ctx.threads or ctx.layout_of(g.mma.result) != layout(p):
        return None
    if p.producers:
        from ferrox.lowering.tile_to_simt.gemm_specialized import Specialized

        return Specialized(ctx, g, p)
    return Wgmma(ctx, g, p)


def _compress(row: int, drop: list[int]) -> int:
    """`row` with bits `drop` taken out (the higher bits moved down)."""
    out, new = 0, 0
    for b in range(row.bit_length()):
        if b not in drop:
            out |= ((row >> b) & 1) << new
            new += 1
    return out


def _swizzled(array: SSAValue) -> SSAValue:
    """`array`, its allocation asked to start on a 1024-byte boundary (the 128-byte swizzle of
    TMA and wgmma is on address bits), wherever the kernel's other shared arrays lie."""
    alloc = array.owner
    assert isinstance(alloc, simt.SharedAllocOp)
    alloc.properties["align"] = IntegerAttr(SWIZZLE_ROWS * SWIZZLE_ROW * 2, i64)  # an atom
    return array


class Wgmma:
    """One loop's lowering (module docstring); `run` emits it."""

    def __init__(self, ctx: Lowering, g, p: Plan):
        self.ctx, self.g, self.p = ctx, g, p

    def prepare(self) -> None:
        """The stages and their full barriers, the tensors, the tile's first row and column,
        the trip count rounded up to whole rounds (`end`), the bytes a stage takes."""
        ctx, g, p = self.ctx, self.g, self.p
        s_count = p.stages
        e = g.element
        self.a_st = [_swizzled(ctx.shared(e, p.m * p.k, f"wa{s}")) for s in range(s_count)]
        self.b_st = [_swizzled(ctx.shared(e, p.k * p.n, f"wb{s}")) for s in range(s_count)]
        self.full = ctx.shared(i64, s_count, "full")
        self.ta, self.tb = ctx.tensor(g.a), ctx.tensor(g.b)
        loop = g.loop
        lb, ub, step = (ctx.scalar(v) for v in (loop.lb, loop.ub, loop.step))
        i, j = ctx.scalar(g.i), ctx.scalar(g.j)
        a_rows, _ = self.ta.dims
        _, b_cols = self.tb.dims
        self.lb, self.step = lb, step
        self.a_row = ctx(arith.MinUIOp(ctx.mul(i, p.m), a_rows))
        self.b_col = ctx(arith.MinUIOp(ctx.mul(j, p.n), b_cols))
        zero = ctx.index(0)
        trips = ctx(arith.CeilDivUIOp(ctx(arith.SubiOp(ub, lb)), step))
        self.trips = ctx(arith.SelectOp(ctx.cmp("ult", lb, ub), trips, zero))
        rounds = ctx(arith.CeilDivUIOp(self.trips, ctx.index(s_count)))
        self.end = ctx.mul(rounds, s_count)
        self.first = ctx.cmp("eq", ctx.tid(), 0)
        self.tx = ctx.index(2 * p.k * (p.m + p.n))
        self.rounds = rounds
        loop = ctx.persistent
        if loop is not None:  # the next tile this block runs, if any: the ring loads it ahead
            nxt = ctx.add(loop.tile, loop.step)
            self.has_next = ctx.cmp("ult", nxt, loop.count)
            ni, nj = loop.coords_of(ctx, nxt)
            self.next_a_row = ctx(arith.MinUIOp(ctx.mul(ni, p.m), a_rows))
            self.next_b_col = ctx(arith.MinUIOp(ctx.mul(nj, p.n), b_cols))

    def bases(self) -> None:
        """This thread's warpgroup's first A row and first block of B in a stage."""
        ctx, p = self.ctx, self.p
        zero = ctx.index(0)
        wg = ctx(arith.ShRUIOp(ctx.tid(), ctx.index(log2(WARPGROUP))))
        wg_m = ctx(arith.AndIOp(wg, ctx.index(p.wm - 1))) if p.wm > 1 else zero
        wg_n = wg if p.wn > 1 else zero
        self.a_base = ctx.mul(wg_m, (p.m // p.wm) * BOX)
        self.b_base = ctx.mul(wg_n, (p.nw // BOX) * p.k * BOX)

    def products(self, st: int, acc: list[SSAValue], registers: bool = False) -> list[SSAValue]:
        """The fence (`{registers}`: without the proxy fence) and the wgmma ops of stage `st`
        on accumulators `acc` (uncommitted)."""
        ctx, p = self.ctx, self.p
        ctx.emit(simt.WgmmaFenceOp(registers))
        chain = p.nw // 2
        out = list(acc)
        for ks in range(p.k // 16):
            b_at = ctx.add(self.b_base, ks * 16 * BOX)
            for h in range(p.chains):
                a_at = ctx.add(self.a_base, (ks // 4) * p.m * BOX + h * 64 * BOX + 16 * (ks % 4))
                c = out[h * chain : (h + 1) * chain]
                op = simt.WgmmaOp(self.a_st[st], a_at, self.b_st[st], b_at, c, p.nw, p.k * BOX)
                out[h * chain : (h + 1) * chain] = list(ctx.emit(op).results)
        return out

    def run(self) -> None:
        ctx, g, p = self.ctx, self.g, self.p
        s_count, d = p.stages, p.stages - 1 - p.pending
        self.prepare()
        self.bases()
        loop = g.loop
        zero = ctx.index(0)

        # Persistent (`ctx.persistent`): the ring runs on across the block's tiles, so the
        # barriers are made and the first `d` iterations loaded in its first tile alone (later
        # tiles' were loaded by the tile before, `step_at`).
        once = [] if ctx.persistent is None else [ctx.cmp("eq", ctx.persistent.iteration, 0)]

        def init() -> list[SSAValue]:
            def each() -> None:
                for s in range(s_count):
                    ctx.emit(MbarrierInitOp(self.full, ctx.index(s), ctx.index(1)))

            ctx.when(ctx.all_of([self.first, *once]) if once else self.first, each)
            return []

        ctx.unsafe(init)
        ctx.sync()
        started = ctx.all_of([self.first, ctx.cmp("ult", zero, self.end), *once])
        ctx.unsafe(lambda: self.loads([(ctx.index(t), t, started) for t in range(d)]))

        acc = ctx.tile(loop.iter_args[0], layout(p))
        body = Block(arg_types=[IndexType(), *(v.type for v in acc)])
        base = body.args[0]
        with ctx.at(InsertPoint.at_end(body)):
            round_ = ctx(arith.DivUIOp(base, ctx.index(s_count)))
            if ctx.persistent is not None:  # the block's earlier tiles took `rounds` each
                round_ = ctx.add(ctx.mul(ctx.persistent.iteration, self.rounds), round_)
            parity = ctx(arith.RemUIOp(round_, ctx.index(2)))
            values: list[SSAValue] = list(body.args[1:])
            for st in range(s_count):
                values = self.step_at(base, st, d, parity, values)
            ctx.emit(scf.YieldOp(*values))
        new = scf.ForOp(zero, self.end, ctx.index(s_count), acc, Region(body))
        ctx.emit(new)
        done: list[SSAValue] = list(new.results)
        if p.pending:
            carried = list(done)
            done = ctx.unsafe(lambda: list(ctx.emit(simt.WgmmaWaitOp(carried, 0)).results))
        ctx.bind(loop.results[0], self.epilogue(done))

    def epilogue(self, regs: list[SSAValue]) -> Dist:
        """The accumulator in the chunked layout a store takes, through a staging array a slab
        of rows at a time (`slab_rows`): each thread writes its fragment values of the slab,
        a barrier, each reads its chunks of it (16-byte vector loads), a barrier before the
        next slab. Smaller than a whole-tile exchange, which would not fit beside the stages."""
        ctx, p = self.ctx, self.p
        src = layout(p)
        rows, bits, dst = slab_rows(p, ctx.config.width(stored_element(self.g.loop), p.n))
        pitch = p.n + PITCH_PAD
        stage = ctx.shared(f32, rows * pitch, "wout")
        ln = log2(p.n)
        drop = [b - ln for b in bits]
        vec = 4 if dst.regs[:2] == (0, 1) else 1  # four consecutive columns in consecutive regs
        out: list[SSAValue | None] = [None] * dst.num_regs
        bases = {id(lay): self.place_base(lay, drop, pitch) for lay in (src, dst)}

        def slab_of(element: int) -> int:
            return sum(((element >> b) & 1) << q for q, b in enumerate(bits))

        def place(lay: Layout, r: int) -> SSAValue:
            e = lay.static_element(r)
            return ctx.add(bases[id(lay)], _compress(e >> ln, drop) * pitch + (e & (p.n - 1)))

        # The slab bits that are thread bits of the wgmma layout: this thread writes a slab
        # only when its own bits there are the slab's (`_lane_cuts`).
        own = [q for q, b in enumerate(bits) if b in src.lanes]
        row = ctx.coords(src, 0)[0] if own else None  # register 0 holds the lane part alone

        def mine_to_write(s: int) -> SSAValue | None:
            if row is None:
                return None
            conds = []
            for q in own:
                bit = 1 << (bits[q] - ln)
                got = ctx(arith.AndIOp(row, ctx.index(bit)))
                conds.append(ctx.cmp("eq", got, bit if (s >> q) & 1 else 0))
            return ctx.all_of(conds)

        lane_mask = sum(1 << q for q in own)
        for s in range(1 << len(bits)):
            if s:
                ctx.sync()  # every thread has read the previous slab

            def put(s=s) -> list[SSAValue]:
                def write() -> None:
                    for r in range(src.num_regs):
                        if slab_of(src.static_element(r)) == s & ~lane_mask:
                            ctx.emit(simt.SharedStoreOp(regs[r], stage, [place(src, r)]))

                ctx.when(mine_to_write(s), write)
                return []

            ctx.unsafe(put)
            ctx.sync()
            mine = [r for r in range(0, dst.num_regs, vec) if slab_of(dst.static_element(r)) == s]

            def get(mine=mine) -> list[SSAValue]:
                got: list[SSAValue] = []
                for r in mine:
                    if vec > 1:
                        load = simt.SharedLoadVectorOp(stage, place(dst, r), vec)
                        got.extend(ctx.emit(load).results)
                    else:
                        got.append(ctx(simt.SharedLoadOp(stage, [place(dst, r)])))
                return got

            got = ctx.unsafe(get)
            for u, r in enumerate(mine):
                out[r : r + vec] = got[u * vec : (u + 1) * vec]
        assert all(v is not None for v in out)
        return Dist(dst, out)  # type: ignore[arg-type]

    def place_base(self, lay: Layout, drop: list[int], pitch: int) -> SSAValue:
        """This thread's part of a staging index in layout `lay`: its lane row, with the slab
        bits `drop` taken out, times `pitch`, plus its lane column."""
        ctx = self.ctx
        row, col = ctx.coords(lay, 0)  # register 0 holds the lane part alone
        packed: SSAValue | None = None
        lo, new = 0, 0
        for cut in [*drop, 64]:
            if cut > lo:
                part = ctx(arith.ShRUIOp(row, ctx.index(lo))) if lo else row
                if cut < 64:
                    part = ctx(arith.AndIOp(part, ctx.index((1 << (cut - lo)) - 1)))
                if new:
                    part = ctx(arith.ShLIOp(part, ctx.index(new)))
                packed = part if packed is None else ctx(arith.OrIOp(packed, part))
                new += cut - lo
            lo = cut + 1
        assert packed is not None
        return ctx.add(ctx.mul(packed, pitch), col)

    def step_at(self, base, st: int, d: int, parity, acc: list[SSAValue]) -> list[SSAValue]:
        """Iteration `base + st` (module docstring) on stage `st`."""
        ctx, p = self.ctx, self.p
        s_count = p.stages
        t = ctx.add(base, st)
        ahead = ctx.add(t, d)
        at = None
        if ctx.persistent is None:
            issue = ctx.all_of([self.first, ctx.cmp("ult", ahead, self.end)])
        else:  # past this tile's iterations: the next tile's first ones, if it has one
            inside = ctx.cmp("ult", ahead, self.end)
            later = ctx(arith.SubiOp(ahead, self.end))
            ahead = ctx(arith.SelectOp(inside, ahead, later))
            issue = ctx.all_of([self.first, ctx(arith.OrIOp(inside, self.has_next))])
            at = (
                ctx(arith.SelectOp(inside, self.a_row, self.next_a_row)),
                ctx(arith.SelectOp(inside, self.b_col, self.next_b_col)),
            )
        ctx.sync()

        def body() -> list[SSAValue]:
            self.loads([(ahead, (st + d) % s_count, issue)], at)
            ctx.emit(MbarrierWaitOp(self.full, ctx.index(st), parity))
            out = self.products(st, acc)
            ctx.emit(simt.WgmmaCommitOp())
            return list(ctx.emit(simt.WgmmaWaitOp(out, p.pending)).results)

        return ctx.unsafe(body)

    def loads(self, which, at: tuple[SSAValue, SSAValue] | None = None) -> list[SSAValue]:
        """Thread 0's TMA loads of iterations `t` into stages `s`, when `pred`, for each
        `(t, s, pred)` of `which`: A's `k / 64` boxes `[m, 64]`, B's `n / 64` boxes `[k, 64]`,
        on the stage's barrier; of this tile, or of the tile whose first A row and first B
        column are `at`."""
        ctx, p = self.ctx, self.p
        a_row, b_col = at if at is not None else (self.a_row, self.b_col)
        a_rows, a_cols = self.ta.dims
        b_rows, b_cols = self.tb.dims
        for t, s, pred in which:
            kk = ctx.add(self.lb, ctx.mul(t, self.step))
            valid = ctx.cmp("ult", t, self.trips)
            kpos = ctx.mul(kk, p.k)
            a_col = ctx(arith.MinUIOp(ctx(arith.SelectOp(valid, kpos, a_cols)), a_cols))
            b_row = ctx(arith.MinUIOp(ctx(arith.SelectOp(valid, kpos, b_rows)), b_rows))
            bar = ctx.index(s)
            ctx.emit(MbarrierArriveExpectTxOp(self.full, bar, self.tx, pred))
            for q in range(p.k // BOX):
                col = ctx.add(a_col, q * BOX)
                ctx.emit(
                    TmaLoadOp(
                        self.ta.slice, a_row, col, a_rows, a_cols, self.a_st[s],
                        ctx.index(q * p.m * BOX), self.full, bar, (p.m, BOX), 128, pred,
                    )
                )  # fmt: skip
            for q in range(p.n // BOX):
                col = ctx.add(b_col, q * BOX)
                ctx.emit(
                    TmaLoadOp(
                        self.tb.slice, b_row, col, b_rows, b_cols, self.b_st[s],
                        ctx.index(q * p.k * BOX), self.full, bar, (p.k, BOX), 128, pred,
                    )
                )  # fmt: skip
        return []


__all__ = [
    "PERSISTENT",
    "Plan",
    "Wgmma",
    "accumulator_tile",
    "epilogue_layout",
    "kernel_threads",
    "layout",
    "layout_for",
    "module_chip",
    "pipeline",
    "plan",
    "result_layout",
    "stored_element",
    "target_chip",
]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
