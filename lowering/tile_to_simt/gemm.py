"""The GEMM main loop as one pipelined unit: a `scf.for` whose body is only

    %x = tile.load %a[%i, %kk]        (zero padding, %i defined outside the loop)
    %y = tile.load %b[%kk, %j]        (zero padding, %j defined outside the loop)
    %next = tile.mma %x, %y, %sum
    scf.yield %next

is lowered without passing `x` and `y` through registers: their tiles are copied from global to
shared memory with `simt.async_copy` (PTX `cp.async`, 16 bytes a thread per copy) into a ring of
`S` stages, `S - 1` iterations ahead of the one being computed, and the mma reads the stage of
its iteration straight from shared memory (a k-major `x`, for FMAs, goes through registers:
below). Per iteration `t` (one barrier):

    wait until the group of iteration t has landed (`simt.async_wait {pending = S - 2}`)
    barrier: every thread's copies of stage t % S are visible, and every thread has finished
             reading stage (t - 1) % S (iteration t - 1's)
    issue the copies of iteration t + S - 1 into stage (t + S - 1) % S = (t - 1) % S; commit
    (k-major FMAs) load the x registers of iteration t + S (`X_AHEAD`)
    compute on stage t % S; (k-major FMAs) after half of it, store the x registers of
             iteration t + S - 1, loaded in iteration t - 1, into stage (t - 1) % S

Stage (t - 1) % S was last read in iteration t - 1, before this iteration's barrier, and is next
read in iteration t + S - 1, after the barrier of iteration t + 1 at the latest. The prologue
issues iterations 0 .. S - 2 (one group each; k-major FMAs: then loads the x registers of
iteration S - 1); an iteration past the loop's end
copies nothing (count 0: the stage is zero-filled and never read). After the loop every copy is
waited for and a barrier ends the stages' use, so the loop may run again. What each copy reads is
exactly what `tile.load` would (same bounds, zeros outside the tensor), so the result is the
unpipelined loop's.

**Two loops** (`FAST_COPIES`). Before the prologue one block-uniform test (`loop_whole`) checks
`tile.load`'s whole-tile rule (`memory.whole_tile`) for `x`'s tile `(i, ub - 1)` and `y`'s tile
`(ub - 1, j)`; it implies the rule for every tile index up to `ub - 1`. Where it holds, the block
runs a copy of the prologue and loop whose loads and copies are unchecked
(`simt.unchecked_load_chunk`, `simt.unchecked_async_copy`: no count, range test, trap vote or
alignment fallback), an iteration past the end copying the last tile again (`min(kk, ub - 1)`:
its stage is never read), counting in `index` (in i32 with `NARROW_COUNTER`, whose test also
holds `lb` and `step` below 2^30: measured slower); elsewhere the checked one
(docs/safety.md#trusted-gemm-pipeline).

**Shared stages** (`SHARE_EPILOGUE`). f32 stages of a loop not inside another loop are one array
(`x`'s stages, then `y`'s at `y_at`), sized for the store's round trip of the accumulator too,
and donated to it after the loop (`Lowering.donate`). **Rotated** (`ROTATE`, a knob, off): the
k-major loop's wait and barrier sit before each iteration's last k, and the next stage's first
fragments, read right after them, are carried into the next iteration (`compute_rotated`).

**Tensor cores** (bf16, f16): the accumulator's layout is `matrix.tensor_core_layout`: warps tile
the result, each warp's `MT x NT` m16n8 tiles in registers. Stages hold `x` as `[BM][BK]` and `y`
as `[BK][BN]` rows of 16-byte chunks, the chunk index XORed with a function of the row
(`_swizzle`) so that the eight rows one `ldmatrix` phase reads, and the chunks one `cp.async`
phase writes, fall in distinct banks. Per 16-wide k step each warp reads its A fragments with
`simt.ldmatrix` (one x4 per m16 tile) and its B fragments with `simt.ldmatrix {trans}` (one per
two n8 tiles), then issues `MT * NT` `simt.mma_sync`.

**FMAs** (f32): the accumulator's layout is `matrix.spaced_layout` (4 x 4 register blocks per
thread, spaced by the thread grid). Where a thread holds at least `K_MAJOR_ACCUMULATORS` (64: 8 x 8
at 128 x 128 over 256 threads) `x` is staged **k-major**, `[BK][BM]`: it cannot come by `cp.async`
(16 contiguous bytes of a row), so its tiles go through registers (`memory.load_tile`, in
`x_layout`: checked chunk loads or the whole-tile fast path): each iteration loads the tile of `S`
iterations ahead, which the loop carries into the next iteration, and that one stores it transposed
into its stage after half its compute (`X_AHEAD`, `X_STORE_K`: the loads have a whole iteration to
land; consecutive threads on consecutive rows: conflict-free); `y` stages stay `[BK][BN]` by
`cp.async`, each copy's index its tile's first element plus a loop-invariant offset
(`SPLIT_ADDRESS`). Such a kernel takes fewer threads than the default choice, `FMA_ACCUMULATORS`
(16 x 8) accumulators each (`fma_threads`: 128 at 128 x 128), and its stages at most
`FMA_STAGE_BUDGET`. Per k each thread reads its rows of `x` and its columns of `y` as 4-wide
vectors (four and two for 16 x 8) and does the fused multiply-adds of its blocks, in k order; ptxas
is asked for two blocks an SM (`nvvm.minctasm`, `_min_blocks`). With fewer accumulators `x` stages
are `[BM][BK + 4]` by `cp.async` (rows 16-byte aligned, padded so the two rows a warp reads at once
sit in different banks) and each thread reads four k of its rows at once.

On sm_90 a bf16/f16 loop that fits goes to `gemm_wgmma.py` instead (TMA + mbarriers + wgmma).

All of it is the lowering's trusted code: shared accesses inside `simt.unsafe`, indices computed
in range (the interpreter checks each one), and the produced kernel is checked by
`verify-disjoint` like every lowered kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type, IndexType, IntegerAttr, f32, i32
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.tile.attributes import Padding
from ferrox.dialects.tile.types import TileType
from ferrox.lowering import knobs
from ferrox.lowering.build import fma
from ferrox.lowering.tile_to_simt import gemm_wgmma
from ferrox.lowering.tile_to_simt.config import element_bytes, floor_pow2
from ferrox.lowering.tile_to_simt.context import SHARED_LIMIT, Dist, Lowering, Tensor
from ferrox.lowering.tile_to_simt.exchange import staging_size
from ferrox.lowering.tile_to_simt.layout import Layout, assign, log2
from ferrox.lowering.tile_to_simt.matrix import DEEP_ACCUMULATORS, spaced_layout, warp_split
from ferrox.lowering.tile_to_simt.memory import branch, load_tile, whole_tile
from ferrox.lowering.tile_to_simt.uniform import check

CHUNK_BYTES = 16
MAX_STAGES = 4
STAGE_BUDGET = 160 * 1024
"""Shared memory the stages may take (of the 227 KiB a block may opt in to)."""
A_PAD = 4
"""Elements of padding per `x` row in the FMA stages."""
K_MAJOR_ACCUMULATORS = DEEP_ACCUMULATORS
"""FMAs: `x` is staged k-major when each thread holds at least this many accumulators (measured
on the H200, docs/performance.md "Tile f32 GEMM (H13)": faster at 128 x 128 tiles, slower at
128 x 64 and 64 x 128)."""
FMA_STAGE_BUDGET = 32 * 1024
"""Shared memory a k-major FMA loop's stages may take (other FMA loops: `STAGE_BUDGET`): two
16-wide stages of a 128 x 128 tile, four 8-wide ones. Measured on the H100 (docs/performance.md,
seventh session): 128 x 128 x 16 with 2 stages 0.885 of cuBLAS against 0.874 with 4 at 128
threads, 0.856 against 0.846 at 256; 128 x 128 x 8 with 8 stages as with 4 (0.818, 0.817)."""
FMA_ACCUMULATORS = 128
"""f32 accumulators a thread of a deep FMA GEMM (`fma_threads`): 16 x 8."""
SHARE_EPILOGUE = True
"""Whether f32 stages are one array that the store's round trip reuses after the loop
(`_Pipeline.__init__`; False: the round trip's own array beside them; a benchmark knob)."""
ROTATE = False
"""Whether the k-major FMA loop is rotated (`_Pipeline.pipeline`: the barrier before each
iteration's last k, the next stage's first fragments carried across it; a benchmark knob)."""
NARROW_COUNTER = False
"""Whether the unchecked loop counts in i32 (its tile indices are below 2^29; `pipeline`; False:
in `index`, i64; a benchmark knob). Off: i32 saves 5 SASS instructions a K step, yet it
measured 1.9% slower at BK 8 and at BK 16 in two H100 runs (docs/performance.md, 7th session)."""
X_AHEAD = True
"""Whether the k-major loop's `x` registers are loaded an iteration earlier than stored: in
iteration t those of iteration t + S, carried into iteration t + 1, which stores them
(`pipeline`): ptxas schedules a load about 290 instructions before its first use, so a load used
in the same iteration has only that much of the compute to land in. Measured on the H100
(docs/performance.md, eighth session), with the store after half the compute (`X_STORE_K`):
128 x 128 x 16 0.912 of cuBLAS against 0.897; 0.934 with `SPLIT_ADDRESS` too."""
X_STORE_K: int | None = None
"""Where the k-major loop stores its `x` registers into their stage: after this many k of the
compute; None: after half of it with `X_AHEAD` (the measured choice), else after all of it (a
benchmark knob)."""
SPLIT_ADDRESS: bool | None = None
"""Whether a copy's element index is its tile's first element plus its loop-invariant offset
(`issue`; False: `(row0 + row) * d1 + col`, 64-bit multiplies a copy and an iteration). None:
in the k-major FMA loops (measured there, docs/performance.md, eighth session: 0.898 alone
against 0.897, 0.934 with `X_AHEAD` against 0.912), not in the others (not measured)."""
FAST_COPIES = True
"""Whether the loop has a second version, taken where every tile it copies is whole
(`_Pipeline.loop_whole`), whose copies and loads are unchecked (False: every copy checked, the
lowering before; a benchmark knob)."""
MIN_BLOCKS: int | None = None
"""FMAs: the blocks an SM ptxas is asked to fit (`nvvm.minctasm`); None: `_min_blocks`."""
REGISTERS = 65536
"""32-bit registers of an SM (every chip since sm_50)."""


@dataclass(frozen=True)
class Gemm:
    """A matched main loop: the loads' tensors and tile indices, the shapes and element type."""

    loop: scf.ForOp
    mma: tile.MmaOp
    a: SSAValue
    b: SSAValue
    i: SSAValue
    j: SSAValue
    m: int
    n: int
    k: int
    element: Attribute


def match(op: scf.ForOp) -> Gemm | None:
    """The loop as a `Gemm` when it is exactly the pattern of the module docstring."""
    body = op.body.block
    ops = list(body.ops)
    if len(ops) != 4 or len(op.iter_args) != 1 or not isinstance(ops[3], scf.YieldOp):
        return None
    loads = [o for o in ops[:3] if isinstance(o, tile.LoadOp)]
    mmas = [o for o in ops[:3] if isinstance(o, tile.MmaOp)]
    if len(loads) != 2 or len(mmas) != 1:
        return None
    mma = mmas[0]
    if mma.acc is not body.args[1] or list(ops[3].operands) != [mma.result]:
        return None
    if not mma.result.has_one_use() or not body.args[1].has_one_use():
        return None
    by_result: dict[SSAValue, tile.LoadOp] = {load.results[0]: load for load in loads}
    x, y = by_result.get(mma.lhs), by_result.get(mma.rhs)
    if x is None or y is None or x is y:
        return None
    iv = body.args[0]
    for load in (x, y):
        if load.padding.data != Padding.ZERO or not load.results[0].has_one_use():
            return None
        if len(load.indices) != 2 or any(v.owner is load for v in load.indices):
            return None
    if x.indices[1] is not iv or y.indices[0] is not iv:
        return None
    i, j = x.indices[0], y.indices[1]
    if _inside(i, op) or _inside(j, op) or i is iv or j is iv:
        return None
    xt, yt = x.results[0].type, y.results[0].type
    assert isinstance(xt, TileType) and isinstance(yt, TileType)
    (m, k), (k2, n) = xt.get_shape(), yt.get_shape()
    element = xt.element_type
    if k2 != k or yt.element_type != element:
        return None
    chunk = CHUNK_BYTES // element_bytes(element)
    tensor_cores = isinstance(element, BFloat16Type | Float16Type)
    if not (tensor_cores or element == f32):
        return None
    if k % (16 if tensor_cores else 4) or k < chunk or n < chunk:
        return None
    return Gemm(op, mma, x.source, y.source, i, j, m, n, k, element)


def fma_threads(kernel: tile.KernelOp, default: int) -> int | None:
    """The threads of a kernel whose first GEMM loop (`match`) is an f32 one deep enough for a
    k-major `x` at `default` threads (`K_MAJOR_ACCUMULATORS` a thread): its accumulator tile
    over `FMA_ACCUMULATORS`, where that is fewer threads and `x` stays k-major; else None (the
    default choice). Half the threads of a 128 x 128 tile: 16 x 8 accumulators a thread, 255
    registers, two blocks of 4 warps an SM; measured on the H100 (docs/performance.md, seventh
    session) 128 x 128 x 16 at 128 threads 0.874 of cuBLAS against 0.847 at 256."""
    for op in kernel.walk():
        g = match(op) if isinstance(op, scf.ForOp) else None
        if g is None:
            continue
        if g.element != f32 or g.m * g.n < K_MAJOR_ACCUMULATORS * default:
            return None
        threads = max(32, floor_pow2(g.m * g.n // FMA_ACCUMULATORS))
        deep = g.m * g.k >= 4 * threads and spaced_layout(g.m, g.n, threads) is not None
        return threads if threads < default and deep else None
    return None


def _inside(value: SSAValue, loop: scf.ForOp) -> bool:
    owner = value.owner
    op = owner.parent_op() if isinstance(owner, Block) else owner
    while op is not None:
        if op is loop:
            return True
        op = op.parent_op()
    return False


def lower_pipelined(ctx: Lowering, op: scf.ForOp) -> bool:
    """Lower `op` as a pipelined GEMM main loop (module docstring); False if it is not one or
    the block's threads do not fit the pipeline (the generic lowering takes it then)."""
    g = match(op)
    if g is None:
        from ferrox.lowering.tile_to_simt.attention import lower_fused

        return lower_fused(ctx, op)  # the fused attention loop
    layout = ctx.layout_of(g.mma.result)
    tensor_cores = isinstance(g.element, BFloat16Type | Float16Type)
    pipe: _Pipeline | gemm_wgmma.Wgmma
    if (hopper := gemm_wgmma.pipeline(ctx, g)) is not None:  # sm_90: TMA + wgmma
        pipe = hopper
    elif tensor_cores:
        if warp_split(g.m, g.n, ctx.threads // 32) is None:
            return False
        pipe = _TensorCores(ctx, g, layout)
    else:
        if spaced_layout(g.m, g.n, ctx.threads) != layout:
            return False
        pipe = _Fmas(ctx, g, layout)
        blocks = _min_blocks(layout, pipe.k_major) if MIN_BLOCKS is None else MIN_BLOCKS
        if blocks:
            kernel = ctx.entry.parent_op()
            assert kernel is not None
            kernel.attributes["nvvm.minctasm"] = IntegerAttr(blocks, i32)
    ctx.lowering(op)
    ctx.need = None
    pipe.run()
    check(ctx.control, g.mma, ctx.need)
    return True


def _min_blocks(layout: Layout, k_major: bool) -> int:
    """2 (ask ptxas to fit two blocks an SM, at most `REGISTERS / 2P` registers a thread) when
    the accumulators take at most half of that; else 0 (no request). Without it ptxas gave the
    64-accumulator kernels 126-153 registers (past 128: one block of 8 warps an SM)."""
    budget = REGISTERS // (2 * layout.threads)
    return 2 if k_major and 2 * layout.num_regs <= budget else 0


class _Pipeline:
    """What both kinds share: the stages, the copies, the loop."""

    a_pitch: int
    swizzled: bool
    store_early: Callable[[], None] | None = None
    """The pending `x` store of the iteration being built (`pipeline`, `X_STORE_K`)."""
    x_copied = True
    """Whether `x` reaches its stages by `cp.async` (else through registers: `load_x`,
    `store_x`)."""

    def __init__(self, ctx: Lowering, g: Gemm, layout: Layout):
        self.ctx, self.g, self.layout = ctx, g, layout
        self.w = CHUNK_BYTES // element_bytes(g.element)
        self.a_stage = g.m * self.a_pitch
        self.b_stage = g.k * g.n
        size = element_bytes(g.element)
        stage_bytes = (self.a_stage + self.b_stage) * size
        # Leave room for the accumulator's round trip through shared memory after the loop (a
        # store in another layout): a 128 x 256 tile's 128 KiB beside 3 stages would not fit.
        # Where the stages hold f32 and the loop runs once, they are one array that the round
        # trip takes over after the loop (`Lowering.donate`), so that room is theirs too.
        epilogue = 4 * staging_size((g.m, g.n))
        self.shares_epilogue = SHARE_EPILOGUE and g.element == f32 and ctx.loop_depth == 0
        free = SHARED_LIMIT - ctx.shared_bytes - (0 if self.shares_epilogue else epilogue)
        self.stages = max(
            2, min(MAX_STAGES, self.stage_budget() // stage_bytes, free // stage_bytes)
        )
        self.y_at = self.stages * self.a_stage if self.shares_epilogue else 0
        """Where `y`'s stages start in their array (after `x`'s, where the two share one)."""
        if self.shares_epilogue:
            self.array_size = max(self.stages * (self.a_stage + self.b_stage), epilogue // size)

    def stage_budget(self) -> int:
        return STAGE_BUDGET

    def split_default(self) -> bool:
        """Whether copies split their element index where `SPLIT_ADDRESS` is None."""
        return False

    def y_base(self, stage: SSAValue) -> SSAValue:
        """Where `y`'s stage `stage` starts in its array."""
        return self.ctx.add(self.ctx.mul(stage, self.b_stage), self.y_at)

    # -- shared layout --------------------------------------------------------------------
    def chunk_at(self, row: SSAValue, chunk: SSAValue, chunks: int, pitch: int) -> SSAValue:
        """The element offset of 16-byte chunk `chunk` of row `row` in a stage of rows of
        `chunks` chunks, `pitch` elements apart (swizzled or not)."""
        ctx = self.ctx
        if self.swizzled:
            chunk = ctx(arith.XOrIOp(chunk, _swizzle(ctx, row, chunks)))
        return ctx.add(ctx.mul(row, pitch), ctx.mul(chunk, self.w))

    # -- copies ------------------------------------------------------------------------------
    def copy_plan(self, rows: int, cols: int, pitch: int):
        """Per copy of this thread: (row, chunk, offset in the stage), which do not depend on the
        iteration: computed once, before the loop; and the condition under which the thread
        copies (None: always; a tile of fewer chunks than threads leaves the last threads out)."""
        ctx = self.ctx
        chunks = cols // self.w
        total = rows * chunks
        plan = []
        for u in range(max(1, total // ctx.threads)):
            c = ctx.add(ctx.tid(), u * ctx.threads)
            row = ctx(arith.ShRUIOp(c, ctx.index(log2(chunks))))
            chunk = ctx(arith.AndIOp(c, ctx.index(chunks - 1)))
            plan.append((row, chunk, self.chunk_at(row, chunk, chunks, pitch)))
        guard = ctx.cmp("ult", ctx.tid(), total) if total < ctx.threads else None
        return plan, guard

    def issue(
        self,
        tensor: Tensor,
        copy_plan,
        shape,
        ti,
        tk,
        array,
        stage_base,
        k_is_row: bool,
        checked: bool = True,
    ) -> None:
        """The copies of one tile `(ti, tk)` of `tensor` (`[rows, cols]` tiles) into a stage:
        checked, or (`checked` False, only where the tile is whole: `loop_whole`) unchecked."""
        ctx = self.ctx
        plan, guard = copy_plan
        rows, cols = shape
        d0, d1 = tensor.dims
        r_idx, c_idx = (tk, ti) if k_is_row else (ti, tk)
        ok = None
        if checked:
            ok = ctx.all_of(
                [
                    ctx.cmp("ult", r_idx, ctx(arith.CeilDivUIOp(d0, ctx.index(rows)))),
                    ctx.cmp("ult", c_idx, ctx(arith.CeilDivUIOp(d1, ctx.index(cols)))),
                ]
            )
        row0 = ctx.mul(r_idx, rows)
        col0 = ctx.mul(c_idx, cols)
        zero = ctx.index(0)
        copies = []
        # The element index as the tile's first element plus the copy's offset in the tile,
        # which does not depend on the iteration (hoisted out of the loop): one add a copy.
        # (The same value as `grow * d1 + gcol`, modulo 2^64; a checked copy out of range
        # reads nothing and takes 0.)
        split = self.split_default() if SPLIT_ADDRESS is None else SPLIT_ADDRESS
        first = ctx.add(ctx.mul(row0, d1), col0) if split else None
        for row, chunk, at in plan:
            grow = ctx.add(row0, row)
            gcol = ctx.add(col0, ctx.mul(chunk, self.w))
            if first is not None:
                flat = ctx.add(first, ctx.add(ctx.mul(row, d1), ctx.mul(chunk, self.w)))
            else:
                flat = ctx.add(ctx.mul(grow, d1), gcol)
            count = None
            if ok is not None:
                inside = ctx.all_of([ok, ctx.cmp("ult", grow, d0), ctx.cmp("ult", gcol, d1)])
                rest = ctx(arith.SubiOp(d1, gcol))
                count = ctx(arith.MinUIOp(rest, ctx.index(self.w)))
                count = ctx(arith.SelectOp(inside, count, zero))
                # A row past the tensor reads nothing: point it at element 0 (count 0 reads none).
                flat = ctx(arith.SelectOp(inside, flat, zero))
            copies.append((flat, count, ctx.add(stage_base, at)))

        def fill() -> list[SSAValue]:
            for flat, count, at in copies:
                if count is None:
                    ctx.emit(simt.UncheckedAsyncCopyOp(tensor.slice, flat, array, at, self.w))
                else:
                    ctx.emit(simt.AsyncCopyOp(tensor.slice, flat, count, array, at, self.w))
            return []

        def guarded() -> None:
            ctx.unsafe(fill)

        ctx.when(guard, guarded)

    def loop_whole(self, ta: Tensor, tb: Tensor, i, j, ub) -> SSAValue:
        """One test, before the loop, that every tile the unchecked loop copies is whole
        (docs/safety.md#trusted-gemm-pipeline): `tile.load`'s whole-tile rule
        (`memory.whole_tile`) for `x`'s tile `(i, ub - 1)` and `y`'s tile `(ub - 1, j)`. That
        loop copies tile index `min(kk, ub - 1)` (`pipeline`), at most `ub - 1` (unsigned), and
        each rule holds for an index when it holds for `ub - 1`: (1) is a bound on it, (2) and
        (4) do not depend on it, and (3)'s last-element index grows with it (computed exactly
        under (1) and (2)). `ub = 0` wraps to an index that fails (1). A k-major `x`'s register
        load (`x_layout`, 16-byte chunks too) takes the same test."""
        ctx, g = self.ctx, self.g
        last = ctx(arith.SubiOp(ub, ctx.index(1)))
        tiles = ((ta, [i, last], (g.m, g.k)), (tb, [last, j], (g.k, g.n)))
        return ctx.all_of(
            [
                whole_tile(ctx, t, at, shape, [t.dims[1], None], self.w, g.element)
                for t, at, shape in tiles
            ]
        )

    def run(self) -> None:
        ctx, g = self.ctx, self.g
        loop = g.loop
        s = self.stages
        if self.shares_epilogue:
            stages = ctx.shared(g.element, self.array_size, "stages")
            self.arrays = (stages, stages)
        else:
            self.arrays = (
                ctx.shared(g.element, s * self.a_stage, "xs"),
                ctx.shared(g.element, s * self.b_stage, "ys"),
            )
        ta, tb = ctx.tensor(g.a), ctx.tensor(g.b)
        i, j = ctx.scalar(g.i), ctx.scalar(g.j)
        ub = ctx.scalar(loop.ub)
        plan_a = self.copy_plan(g.m, g.k, self.a_pitch) if self.x_copied else None
        self.plans = (plan_a, self.copy_plan(g.k, g.n, g.n))
        self.prepare()
        acc = ctx.tile(loop.iter_args[0], self.layout)
        if FAST_COPIES:
            # Two versions of the loop: unchecked copies where every tile is whole, else checked.
            whole = self.loop_whole(ta, tb, i, j, ub)
            if NARROW_COUNTER:  # and lb, step below 2^30: the loop counts in i32 (`pipeline`)
                lb, step = ctx.scalar(loop.lb), ctx.scalar(loop.step)
                wide = ctx(arith.ShRUIOp(ctx(arith.OrIOp(lb, step)), ctx.index(30)))
                whole = ctx.all_of([whole, ctx.cmp("eq", wide, 0)])
            types = [v.type for v in acc]
            out = branch(
                ctx,
                whole,
                types,
                lambda: self.pipeline(acc, False),
                lambda: self.pipeline(acc, True),
            )
        else:
            out = self.pipeline(acc, True)
        if self.shares_epilogue:  # after every version's last barrier; not in a loop
            ctx.donate(self.arrays[0])
        ctx.bind(loop.results[0], Dist(self.layout, out))

    def pipeline(self, acc: list[SSAValue], checked: bool) -> list[SSAValue]:
        """The prologue, the loop and the wait after it; the loop's sums. Copies are `checked`,
        or not (only under `loop_whole`'s test)."""
        ctx, g = self.ctx, self.g
        loop = g.loop
        s = self.stages
        xs, ys = self.arrays
        ta, tb = ctx.tensor(g.a), ctx.tensor(g.b)
        i, j = ctx.scalar(g.i), ctx.scalar(g.j)
        lb, ub, step = (ctx.scalar(v) for v in (loop.lb, loop.ub, loop.step))
        last = ctx(arith.SubiOp(ub, ctx.index(1)))
        plan_a, plan_b = self.plans

        def tile_at(raw: SSAValue, clamped: bool = False) -> SSAValue:
            """The tile index iteration `raw` copies (`clamped`: `raw` is at most `ub - 1`
            already)."""
            if checked:
                # An iteration past the end names tile index `ub` + ...: its copies must read
                # nothing; a huge index fails every bounds test. (`raw` may wrap past the index
                # range only if the loop's bounds are near it; such an iteration is invalid
                # either way: `ult` against ub fails or the copy is empty.)
                valid = ctx.cmp("ult", raw, ub)
                return ctx(arith.SelectOp(valid, raw, ctx.index(-1)))
            if clamped:
                return raw
            # Past the end, the last iteration's tile again (whole, and its stage is never
            # read): no test and no branch in the loop.
            return ctx(arith.MinUIOp(raw, last))

        def issue_iteration(
            raw: SSAValue,
            stage: SSAValue,
            clamped: bool = False,
            x_regs: list[SSAValue] | None = None,
        ) -> Callable[[], None] | None:
            """The copies of iteration `raw` (valid: below `ub`) into `stage` (`clamped`: `raw`
            is at most `ub - 1` already; `x_regs`: its `x` registers, loaded before)."""
            a_base, b_base = ctx.mul(stage, self.a_stage), self.y_base(stage)
            at = tile_at(raw, clamped)
            regs = self.load_x(ta, plan_a, i, at, xs, a_base, checked) if x_regs is None else x_regs
            self.issue(tb, plan_b, (g.k, g.n), j, at, ys, b_base, True, checked)
            ctx.emit(simt.AsyncCommitOp())
            return self.store_x(regs, xs, a_base)

        # Prologue: iterations 0 .. S-2 into stages 0 .. S-2 (past the end: count 0, or the
        # last tile again).
        for p in range(s - 1):
            kk = ctx.add(lb, ctx.mul(step, p)) if p else lb
            finish = issue_iteration(kk, ctx.index(p))
            if finish is not None:
                finish()

        # Rotated (`rotated`): the wait and barrier for stage t + 1 come before iteration t's
        # last k, whose fragments are already in registers, and stage t + 1's first fragments
        # are read right after them, so they are carried into the next iteration.
        rotated = self.rotated()
        first: list[SSAValue] = []
        if rotated:
            ctx.emit(simt.AsyncWaitOp(s - 2))
            ctx.sync()
            first = self.fragments(xs, ys, ctx.index(0), 0)
        # Early (`X_AHEAD`): iteration t loads the `x` registers of iteration t + S (the
        # prologue those of S - 1), carried into iteration t + 1, which stores them.
        early = X_AHEAD and not self.x_copied
        x_first: list[SSAValue] = []
        if early:
            raw = ctx.add(lb, ctx.mul(step, s - 1))
            x_first = self.load_x(ta, plan_a, i, tile_at(raw), xs, ctx.index(0), checked)
        n = len(acc)
        # Narrow: the unchecked loop counts in i32. Its test (`run`) holds only where
        # `ub - 1 < 2^29` (rule 1 of `loop_whole`) and `lb, step < 2^30`, so every counter value
        # a valid iteration takes, and the next one, is below 2^31: the i32 loop runs the same
        # iterations. `kk + (S - 1) step` may wrap in i32 past the end; the tile index copied is
        # still at most `ub - 1` (`min`), and a valid iteration's is exact.
        narrow = NARROW_COUNTER and not checked
        count_t = i32 if narrow else IndexType()

        def counter(v: SSAValue) -> SSAValue:
            return ctx(arith.IndexCastOp(v, i32)) if narrow else v

        def count(v: int) -> SSAValue:
            return ctx.constant(v, i32) if narrow else ctx.index(v)

        def index(v: SSAValue) -> SSAValue:
            return ctx(arith.IndexCastOp(v, IndexType())) if narrow else v

        lb_c, ub_c, step_c, last_c = (counter(v) for v in (lb, ub, step, last))
        carried_types = (v.type for v in acc + first + x_first)
        body = Block(arg_types=[count_t, count_t, *carried_types])
        kk, t = body.args[0], body.args[1]
        with ctx.at(InsertPoint.at_end(body)):
            if not rotated:
                ctx.emit(simt.AsyncWaitOp(s - 2))
                ctx.sync()
            # Iteration t's copies go to stage (t - 1) % S, last read before the barrier of
            # iteration t (rotated: of iteration t - 1).
            ahead = ctx(arith.AddiOp(kk, ctx(arith.MuliOp(step_c, count(s - 1)))))
            if narrow:
                ahead = index(ctx(arith.MinUIOp(ahead, last_c)))
            stage_ahead = ctx(arith.RemUIOp(ctx(arith.AddiOp(t, count(s - 1))), count(s)))
            nf = len(first)
            carried_x: list[SSAValue] | None = list(body.args[2 + n + nf :]) if early else None
            finish = issue_iteration(ahead, index(stage_ahead), clamped=narrow, x_regs=carried_x)
            later: list[SSAValue] = []
            if early:  # x of iteration t + S, carried into the next iteration
                raw = ctx(arith.AddiOp(kk, ctx(arith.MuliOp(step_c, count(s)))))
                if narrow:
                    raw = index(ctx(arith.MinUIOp(raw, last_c)))
                at = tile_at(raw, clamped=narrow)
                later = self.load_x(ta, plan_a, i, at, xs, ctx.index(0), checked)
            stage = index(ctx(arith.RemUIOp(t, count(s))))
            if rotated:

                def boundary() -> list[SSAValue]:
                    if finish is not None:  # x of iteration t + S - 1 into its stage
                        finish()
                    ctx.emit(simt.AsyncWaitOp(s - 2))
                    ctx.sync()
                    following = ctx(arith.RemUIOp(ctx(arith.AddiOp(t, count(1))), count(s)))
                    return self.fragments(xs, ys, index(following), 0)

                carried = list(body.args[2 + n : 2 + n + nf])
                out, nxt = self.compute_rotated(
                    xs, ys, stage, list(body.args[2 : 2 + n]), carried, boundary
                )
                ctx.emit(scf.YieldOp(ctx(arith.AddiOp(t, count(1))), *out, *nxt, *later))
            else:
                # x of iteration t + S - 1, from registers into its stage: after the compute,
                # or within it (`X_STORE_K`; stage (t - 1) % S is not read in iteration t)
                self.store_early = finish
                out = self.compute(xs, ys, stage, list(body.args[2 : 2 + n]))
                if self.store_early is not None:
                    self.store_early()
                self.store_early = None
                ctx.emit(scf.YieldOp(ctx(arith.AddiOp(t, count(1))), *out, *later))
        inits = [count(0), *acc, *first, *x_first]
        new = scf.ForOp(lb_c, ub_c, step_c, inits, Region(body))
        ctx.emit(new)
        ctx.emit(simt.AsyncWaitOp(0))
        ctx.sync()
        return list(new.results[1 : 1 + n])

    def rotated(self) -> bool:
        """Whether the loop is rotated (`pipeline`): only the k-major FMA loop."""
        return False

    def fragments(self, xs, ys, stage, k: int) -> list[SSAValue]:
        """A rotated loop's fragments of one k (`_Fmas`)."""
        raise NotImplementedError

    def compute_rotated(self, xs, ys, stage, acc, first, boundary):
        """A rotated loop's compute (`_Fmas`)."""
        raise NotImplementedError

    def load_x(self, tensor: Tensor, plan, i, kk, xs, base, checked: bool) -> list[SSAValue]:
        """Start bringing tile `(i, kk)` of `x` into the stage at `base` (checked or not, as
        for `issue`): `cp.async` copies (no registers), or register loads (`store_x` stores
        them)."""
        g = self.g
        self.issue(tensor, plan, (g.m, g.k), i, kk, xs, base, False, checked)
        return []

    def store_x(self, regs: list[SSAValue], xs, base) -> Callable[[], None] | None:
        """What stores `load_x`'s registers into the stage after the compute (None: nothing)."""
        return None

    def prepare(self) -> None:
        """Per-thread offsets the compute step uses, computed once."""

    def compute(self, xs, ys, stage, acc: list[SSAValue]) -> list[SSAValue]:
        raise NotImplementedError


def _swizzle(ctx: Lowering, row: SSAValue, chunks: int) -> SSAValue:
    """The XOR applied to a chunk index in row `row` of a stage with `chunks` 16-byte chunks a
    row: `(row / L) % min(chunks, 8)` where `L = max(1, 8 / chunks)` rows share a 128-byte line,
    so that 8 consecutive rows at one logical chunk cover all eight 16-byte bank groups."""
    line = max(1, 8 // chunks)
    group = min(chunks, 8)
    shifted = ctx(arith.ShRUIOp(row, ctx.index(log2(line)))) if line > 1 else row
    return ctx(arith.AndIOp(shifted, ctx.index(group - 1)))


class _TensorCores(_Pipeline):
    swizzled = True

    def __init__(self, ctx: Lowering, g: Gemm, layout: Layout):
        self.a_pitch = g.k
        super().__init__(ctx, g, layout)

    def prepare(self) -> None:
        ctx, g, layout = self.ctx, self.g, self.layout
        tiles = layout.num_regs // 4
        m_of = [layout.static_element(4 * t) >> log2(g.n) for t in range(tiles)]
        n_of = [layout.static_element(4 * t) & (g.n - 1) for t in range(tiles)]
        self.m_tiles, self.n_tiles = sorted(set(m_of)), sorted(set(n_of))
        self.tile_of = {(m_of[t], n_of[t]): t for t in range(tiles)}
        lane = ctx(arith.AndIOp(ctx.tid(), ctx.index(31)))
        in8 = ctx(arith.AndIOp(lane, ctx.index(7)))
        hi8 = ctx(arith.AndIOp(ctx(arith.ShRUIOp(lane, ctx.index(3))), ctx.index(1)))
        half = ctx(arith.ShRUIOp(lane, ctx.index(4)))
        # The warp's corner: the coordinates of register 0 less its lane's (g, 2q) part.
        corner = ctx.coords(layout, 0)
        g4 = ctx(arith.ShRUIOp(lane, ctx.index(2)))
        q2 = ctx.mul(ctx(arith.AndIOp(lane, ctx.index(3))), 2)
        warp_row = ctx(arith.SubiOp(corner[0], g4))
        warp_col = ctx(arith.SubiOp(corner[1], q2))
        chunks_a, chunks_b = g.k // self.w, g.n // self.w
        # A: lane t names row (t % 8) + 8 ((t / 8) % 2) of the m16 tile, chunk t / 16 of the k16
        # step; the row's swizzle is fixed, so (2 ks + half) ^ swz = 2 ks ^ (half ^ swz).
        self.a_rows = {}
        for mt in self.m_tiles:
            row = ctx.add(ctx.add(warp_row, mt), ctx.add(in8, ctx.mul(hi8, 8)))
            x = ctx(arith.XOrIOp(half, _swizzle(ctx, row, chunks_a)))
            self.a_rows[mt] = (ctx.mul(row, self.a_pitch), x)
        # B (transposed): lane t names k row (t % 8) + 8 ((t / 8) % 2) of the k16 step, chunk
        # t / 16 of each pair of n8 tiles; the swizzle depends on the row mod 8 only.
        krow = ctx.add(in8, ctx.mul(hi8, 8))
        self.b_row = ctx.mul(krow, g.n)
        swz = _swizzle(ctx, krow, chunks_b)
        self.b_cols = {}
        for pair in self.n_tiles[::2]:
            chunk = ctx.add(ctx(arith.ShRUIOp(ctx.add(warp_col, pair), ctx.index(3))), half)
            self.b_cols[pair] = ctx.mul(ctx(arith.XOrIOp(chunk, swz)), self.w)

    def compute(self, xs, ys, stage, acc):
        ctx, g = self.ctx, self.g
        a_base = ctx.mul(stage, self.a_stage)
        b_base = self.y_base(stage)
        acc = list(acc)
        for ks in range(g.k // 16):

            def loads(ks=ks) -> list[SSAValue]:
                out: list[SSAValue] = []
                for mt in self.m_tiles:
                    row, x = self.a_rows[mt]
                    chunk = ctx(arith.XOrIOp(x, ctx.index(2 * ks))) if ks else x
                    at = ctx.add(ctx.add(a_base, row), ctx.mul(chunk, self.w))
                    out.extend(ctx.emit(simt.LdMatrixOp(xs, at)).results)
                for pair in self.n_tiles[::2]:
                    at = ctx.add(ctx.add(b_base, ks * 16 * g.n), self.b_row)
                    at = ctx.add(at, self.b_cols[pair])
                    out.extend(ctx.emit(simt.LdMatrixOp(ys, at, trans=True)).results)
                return out

            loaded = ctx.unsafe(loads)
            a_frag = {mt: loaded[4 * u : 4 * u + 4] for u, mt in enumerate(self.m_tiles)}
            base = 4 * len(self.m_tiles)
            b_frag = {}
            for u, pair in enumerate(self.n_tiles[::2]):
                r = loaded[base + 4 * u : base + 4 * u + 4]
                b_frag[pair], b_frag[pair + 8] = r[0:2], r[2:4]
            for mt in self.m_tiles:
                for nt in self.n_tiles:
                    t = self.tile_of[(mt, nt)]
                    c = acc[4 * t : 4 * t + 4]
                    d = ctx.emit(simt.MmaSyncOp(g.element, a_frag[mt], b_frag[nt], c)).results
                    acc[4 * t : 4 * t + 4] = list(d)
        return acc


class _Fmas(_Pipeline):
    swizzled = False

    def __init__(self, ctx: Lowering, g: Gemm, layout: Layout):
        # x k-major ([BK][BM]) for deep accumulators (module docstring), when every thread
        # holds a 16-byte chunk of x's tile (`x_layout` has no replicas)
        self.k_major = layout.num_regs >= K_MAJOR_ACCUMULATORS and g.m * g.k >= 4 * ctx.threads
        self.x_copied = not self.k_major
        self.a_pitch = g.k if self.k_major else g.k + A_PAD
        super().__init__(ctx, g, layout)

    def stage_budget(self) -> int:
        return FMA_STAGE_BUDGET if self.k_major else STAGE_BUDGET

    def split_default(self) -> bool:
        return self.k_major

    def prepare(self) -> None:
        ctx, g, layout = self.ctx, self.g, self.layout
        ln = log2(g.n)
        regs = range(layout.num_regs)
        self.row_of = [layout.static_element(r) >> ln for r in regs]
        self.col_of = [layout.static_element(r) & (g.n - 1) for r in regs]
        self.rows = sorted(set(self.row_of))
        self.col_blocks = sorted({c & ~3 for c in self.col_of})
        lane_rc = ctx.coords(layout, 0)  # register 0 is the static (0, 0)
        self.b_col = {s: ctx.add(lane_rc[1], s) for s in self.col_blocks}
        if self.k_major:
            self.row_blocks = sorted({r & ~3 for r in self.row_of})
            self.a_row = {s: ctx.add(lane_rc[0], s) for s in self.row_blocks}
            self.x_layout = x_layout(g.m, g.k, ctx.threads)
        else:
            self.a_row = {s: ctx.mul(ctx.add(lane_rc[0], s), self.a_pitch) for s in self.rows}

    def load_x(self, tensor: Tensor, plan, i, kk, xs, base, checked: bool) -> list[SSAValue]:
        if not self.k_major:
            return super().load_x(tensor, plan, i, kk, xs, base, checked)
        ctx, g, layout = self.ctx, self.g, self.x_layout
        if checked:
            zero = ctx.constant(0.0, g.element)
            return load_tile(ctx, tensor, [i, kk], layout, zero, fast=not FAST_COPIES)
        # The whole tile (`loop_whole`): `memory.load_tile`'s fast path, one 16-byte load each
        # run of 4 registers (consecutive columns: `x_layout`'s first two register bits).
        w = self.w
        row0, col0 = ctx.mul(i, g.m), ctx.mul(kk, g.k)
        d1 = tensor.dims[1]

        def loads() -> list[SSAValue]:
            out: list[SSAValue] = []
            for r0 in range(0, layout.num_regs, w):
                row, col = ctx.coords(layout, r0)
                flat = ctx.add(ctx.mul(ctx.add(row0, row), d1), ctx.add(col0, col))
                out.extend(ctx.emit(simt.UncheckedLoadChunkOp(tensor.slice, flat, w)).results)
            return out

        return ctx.unsafe(loads)

    def store_x(self, regs: list[SSAValue], xs, base) -> Callable[[], None] | None:
        if not self.k_major:
            return None
        ctx, g, layout = self.ctx, self.g, self.x_layout

        def finish() -> None:
            def stores() -> list[SSAValue]:
                for r, v in enumerate(regs):
                    at = ctx.add(base, ctx.linear(layout, r, [1, g.m]))
                    ctx.emit(simt.SharedStoreOp(v, xs, [at]))
                return []

            ctx.unsafe(stores)

        return finish

    def compute(self, xs, ys, stage, acc):
        if self.k_major:
            return self.compute_k_major(xs, ys, stage, acc)
        ctx, g = self.ctx, self.g
        a_base = ctx.mul(stage, self.a_stage)
        b_base = self.y_base(stage)
        acc = list(acc)
        index = {(self.row_of[r], self.col_of[r]): r for r in range(len(acc))}
        for k4 in range(g.k // 4):

            def loads(k4=k4) -> list[SSAValue]:
                out: list[SSAValue] = []
                for s in self.rows:
                    at = ctx.add(ctx.add(a_base, self.a_row[s]), 4 * k4)
                    out.extend(ctx.emit(simt.SharedLoadVectorOp(xs, at, 4)).results)
                for kk in range(4):
                    row = ctx.add(b_base, (4 * k4 + kk) * g.n)
                    for s in self.col_blocks:
                        at = ctx.add(row, self.b_col[s])
                        out.extend(ctx.emit(simt.SharedLoadVectorOp(ys, at, 4)).results)
                return out

            loaded = ctx.unsafe(loads)
            a = {s: loaded[4 * u : 4 * u + 4] for u, s in enumerate(self.rows)}
            base = 4 * len(self.rows)
            nb = len(self.col_blocks)
            for kk in range(4):
                b = {}
                for u, s in enumerate(self.col_blocks):
                    first = base + 4 * (kk * nb + u)
                    for c in range(4):
                        b[s + c] = loaded[first + c]
                for (row, col), r in index.items():
                    acc[r] = ctx(fma(a[row][kk], b[col], acc[r]))
        return acc

    def rotated(self) -> bool:
        return self.k_major and ROTATE

    def fragments(self, xs, ys, stage, k: int) -> list[SSAValue]:
        """This thread's values of `x` (its rows) and `y` (its columns) at `k` of `stage`."""
        ctx, g = self.ctx, self.g
        a_base = ctx.mul(stage, self.a_stage)
        b_base = self.y_base(stage)

        def loads() -> list[SSAValue]:
            out: list[SSAValue] = []
            for s in self.row_blocks:
                at = ctx.add(ctx.add(a_base, k * g.m), self.a_row[s])
                out.extend(ctx.emit(simt.SharedLoadVectorOp(xs, at, 4)).results)
            for s in self.col_blocks:
                at = ctx.add(ctx.add(b_base, k * g.n), self.b_col[s])
                out.extend(ctx.emit(simt.SharedLoadVectorOp(ys, at, 4)).results)
            return out

        return ctx.unsafe(loads)

    def fmas(self, acc: list[SSAValue], loaded: list[SSAValue]) -> list[SSAValue]:
        """`acc` plus the products of one k's fragments (`fragments`)."""
        ctx = self.ctx
        nr = 4 * len(self.row_blocks)
        a = {s + c: loaded[4 * u + c] for u, s in enumerate(self.row_blocks) for c in range(4)}
        b = {s + c: loaded[nr + 4 * u + c] for u, s in enumerate(self.col_blocks) for c in range(4)}
        return [ctx(fma(a[self.row_of[r]], b[self.col_of[r]], acc[r])) for r in range(len(acc))]

    def compute_k_major(self, xs, ys, stage, acc):
        store_k = X_STORE_K if X_STORE_K is not None else self.g.k // 2 if X_AHEAD else None
        for k in range(self.g.k):
            acc = self.fmas(acc, self.fragments(xs, ys, stage, k))
            if k + 1 == store_k and self.store_early is not None:
                self.store_early()  # the next stage's x, within the compute (`pipeline`)
                self.store_early = None
        return acc

    def compute_rotated(self, xs, ys, stage, acc, first, boundary):
        """The k-major compute of a rotated loop: k = 0's fragments are `first`, each k's are
        read before the previous k's products, and before the last k's products `boundary()`
        (the barrier) gives the next stage's first fragments: (sums, those fragments)."""
        frags = first
        last = self.g.k - 1
        following: list[SSAValue] = []
        for k in range(self.g.k):
            ahead = self.fragments(xs, ys, stage, k + 1) if k < last else boundary()
            if k == last:
                following = ahead
            acc = self.fmas(acc, frags)
            frags = ahead
        return acc, following


def x_layout(m: int, k: int, threads: int) -> Layout:
    """How the threads load an `[m, k]` tile of `x` to store it k-major: 16-byte chunks along
    k, consecutive threads on consecutive rows (a warp's stores of one k hit 32 banks), then
    chunk bits; what the threads cannot cover stays in registers."""
    lk, p = log2(k), log2(threads)
    cols = list(range(lk))
    pool = [lk + b for b in range(log2(m))] + cols[2:]
    return assign((m, k), threads, cols[:2] + pool[p:], pool[:p])


__all__ = ["Gemm", "fma_threads", "lower_pipelined", "match"]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
