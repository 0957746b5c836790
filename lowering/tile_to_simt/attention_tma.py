"""The fused attention loop on wgmma (`attention_wgmma.py`) with its K and V stages filled by TMA
(`simt.tma_load`, FlashAttention-3's loads) instead of every thread's `cp.async`, behind the knob
`TMA` (on: measured faster on the H200, docs/performance.md, twelfth session).

One thread issues each stage's loads; the stages complete on mbarriers instead of each thread's
`cp.async` wait, proxy fence and the block barrier of every iteration. A stage of a stream is its
tile of `[rows, D]` as `D / 64` boxes of `[rows, 64]` with the 128-byte swizzle: exactly the
layout `WgmmaLoop` copies into (a box per block of 64 columns), so the products are unchanged.
A 3-D tensor (heads, rows, D) is read through a 3-D tensor map, a box one plane (head) deep: rows
past the sequence's end, or a head past the last, read as zero, which is what the `tile.load` of
`[1, rows, D]` reads, so neither a whole-tile test nor a checked copy is needed.

Barriers (`full`: one arrival, thread 0's, and the stage's bytes; `empty`: one arrival per warp
after its product on the stage has retired), one of each per stream and stage (K 0, K 1, V 0,
V 1). Iteration `t` (stage `s = t % 2`, parity `(t / 2) % 2`):

    before the loop: q copied (`cp.async`, as `WgmmaLoop`), waited for and fenced; thread 0
      initialises the barriers; block barrier; every warp arrives once on both streams' `empty`
      of stage 1 (free before its first fill); thread 0 loads K and V of iteration 0 into stage 0
    at each product (K's for the scores, V's for the output), with stream X:
      warp 0 waits on X's `empty` of stage 1 - s (every warp's product of iteration t - 1 on it
        retired); thread 0 loads X of iteration t + 1 there (predicated: none past the end)
      every thread waits on X's `full` of stage s; the product, retired; each warp arrives on
        X's `empty` of stage s
    after the loop: block barrier

No block barrier in the loop: a warpgroup waits only for the loads it reads and, in warp 0, for
every warp to have finished with the stage it refills, so the two warpgroups of a block drift
apart instead of meeting every iteration (FlashAttention-3's consumers). TMA writes through the
async proxy, as wgmma reads, so no proxy fence is needed between them. Every wait in program order
follows the arrivals it needs (the CPU interpreter runs the threads in lockstep and refuses a wait
that nothing before it completes).

Pipelined (`attention_wgmma.PIPELINE` too, `TmaPipelinedLoop`): `PipelinedLoop`'s schedule on
these stages. Before the loop thread 0 loads k of iterations 0 and 1 and v of 0, every thread
waits for k of 0 and computes the scores of iteration 0. At iteration t's output product warp 0
waits until every warp is done with k's stage t % 2 (the scores of t, retired at the end of
t - 1) and v's stage (t + 1) % 2 (the output of t - 1, retired at its first use in t: that
wait's arrival at t = 0 frees the stage before its first fill); thread 0 loads k of t + 2 and v
of t + 1 there; every thread waits for k of t + 1 and v of t, issues the scores of t + 1 and the
output of t as two groups, retires the scores (each warp then arrives on k's `empty`) and
carries the output in flight. k of iteration `trips` (scores that are dropped) is loaded too,
so that its wait completes; nothing past it.

q by TMA (`TMA_Q`, on by default): q's tile, `[BM, D]` as `D / 64` boxes of `[BM, 64]` into
its swizzled array (the layout `WgmmaLoop` copies it into), is loaded by thread 0 on a fifth
`full` barrier right after the barriers' initialisation, before the stages' first loads, and
every thread waits for its phase 0 before its first scores; no `cp.async`, wait or proxy fence
precedes the initialisation then. Only where the loop makes q's array (the first loop of a
kernel of two: the second reads it as made).

Turns (`PINGPONG`, two warpgroups): each warpgroup syncs on its named barrier before issuing a
product and arrives on the other's after issuing it (`simt.named_barrier`, 256 threads), so the
products go warpgroup 0's scores, 1's scores, 0's output, 1's output, ...: one warpgroup's
softmax runs while the other's product is on the tensor cores. Before the loop warpgroup 1
arrives once on 0's barrier (0 goes first); after it warpgroup 0 syncs once on its own (the
last arrival of 1), so every phase of both barriers completes. The turns order issue only; the
stages stay guarded by the mbarriers.

Where: the loop at the top of the kernel (its barriers start at phase 0), each stream's tensor of
rank 2 or 3 with its tile's last dimension a multiple of 64 (`plan`), as `WgmmaLoop` otherwise.
The launch needs the tensor maps (the runtime refuses an unaligned tensor, and a tile kernel then
launches its portable twin, compiled then: `convert._portable`). All of it is the lowering's
trusted code (docs/safety.md#trusted-fused-attention-tma).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import i64
from xdsl.ir import Operation, SSAValue

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.tma import (
    MbarrierArriveExpectTxOp,
    MbarrierArriveOp,
    MbarrierInitOp,
    MbarrierWaitOp,
    TmaLoadOp,
)
from ferrox.dialects.simt.wgmma import SWIZZLE_ROW, WARPGROUP
from ferrox.lowering import knobs
from ferrox.lowering.tile_to_simt.attention import Fused, Stream
from ferrox.lowering.tile_to_simt.attention_wgmma import PipelinedLoop, Plan, WgmmaLoop
from ferrox.lowering.tile_to_simt.config import element_bytes
from ferrox.lowering.tile_to_simt.context import Lowering
from ferrox.lowering.tile_to_simt.gemm_wgmma import _swizzled

TMA = True
"""Whether loops that allow it (`fits`) take `TmaLoop` (False: `WgmmaLoop`'s `cp.async`
stages; a knob for timing). On, with the pipelined loop and without `PINGPONG`: on the H200
(docs/performance.md, twelfth session, 4 x 16 heads, ratio to SDPA) 0.84-0.89 at 4096 keys and
0.88-0.94 at 8192, against 0.67-0.80 and 0.64-0.74 for the synchronous loop on `cp.async`
stages; compute-sanitizer memcheck and racecheck clean."""
PINGPONG = False
"""Whether the two warpgroups of a 256-thread `TmaLoop` take turns issuing their products
(FlashAttention-3's ping-pong, module docstring "Turns"; a knob for timing). Off: without turns
the kernel was as fast or faster on the H200 (twelfth session: at 8192 keys d 128 causal 0.935
of SDPA against 0.881). compute-sanitizer racecheck reported shared-memory hazards with the
turns (6 at d 64, 3 at d 128) until `EVEN_WAITS`: they pair the output staging's stores of
warpgroup 0 with warpgroup 1's loads past the block barrier between them, which orders them;
racecheck counts barrier waits, not arrivals (docs/performance.md, "Racecheck and the
warpgroups' turns"), and with the waits evened it reports none (thirteenth session)."""
EVEN_WAITS = True
"""With turns, whether warpgroup 1 also syncs once after the loop, alone, on barrier `ALONE` (of
its 128 threads): then each warpgroup has waited at as many barriers as the other when they
reach the block barrier after the loop (warpgroup 0 syncs once more on barrier 1 than
warpgroup 1 does on 2; warpgroup 1's arrivals are not waits). It orders nothing across the
warpgroups and costs one barrier after the loop; it keeps compute-sanitizer racecheck, which
counts barrier waits, from reporting the staging after the loop (docs/performance.md,
"Racecheck and the warpgroups' turns": 6 hazards without it at d 64, 0 with it, on the GPU,
thirteenth session). On by default so that the turns, when timed, run racecheck-clean."""
TMA_Q = True
"""Whether q's tile comes by TMA too (`load_q`: thread 0, on a fifth `full` barrier, just
before the stages' first loads) rather than by every thread's `cp.async`, waited for and
fenced before the barriers are initialised: q's load then overlaps k's and v's first loads
instead of coming before them, which matters where a block's prologue is unhidden (at 1024
keys one block of 8 warps an SM: docs/performance.md, twelfth session's ncu). On by default
(fourteenth session): on the H100 it and the example's reciprocal epilogue, measured together,
took d 128 at 128 x 128 from 0.644 to 0.710 of SDPA at 1024 keys full (0.783 to 0.831 at 2048;
causal 0.659 to 0.721 and 0.767 to 0.825); at 4096 keys its share (against the reciprocal
alone) was neutral to 1 %; compute-sanitizer racecheck clean (docs/performance.md, "Attention
defaults, fourteenth session"). False: q by `cp.async`, for A/B timing (`tmaq=0` in
benchmarks/attention.py)."""
Q_BAR = 4
"""q's barrier in `full`, after the four of the stages."""
MAX_BOX = 256
"""TMA's largest box side."""
WARP = 32
ALONE = 3
TURNS = (1, 2)
"""The named barriers of the turns: warpgroup `g` syncs on `TURNS[g]` before issuing a product
and arrives on `TURNS[1 - g]` after."""


def fits(f: Fused, ctx: Lowering) -> bool:
    """Whether `f`'s streams can be TMA loads (module docstring, "Where")."""
    if not isinstance(f.loop.parent_op(), tile.KernelOp):
        return False
    for s in f.streams:
        rank = len(ctx.tensor(s.load.source).dims)
        if rank not in (2, 3) or s.cols % SWIZZLE_ROW or s.rows > MAX_BOX:
            return False
    return True


class TmaLoop(WgmmaLoop):
    """`WgmmaLoop` with TMA stages completing on mbarriers (module docstring)."""

    def __init__(self, ctx: Lowering, f: Fused, p: Plan):
        super().__init__(ctx, f, p)
        self.bytes = element_bytes(self.element)

    def stage_key(self, s: Stream, u: int) -> tuple:
        return (*super().stage_key(s, u), "tma")

    # -- loads -------------------------------------------------------------------------------
    def load(self, u: int, kk: SSAValue, stage: SSAValue, pred: SSAValue) -> list[SSAValue]:
        """Thread 0's loads (`pred`) of stream `u`'s tile at loop variable `kk` into `stage`
        (`boxes`)."""
        ctx = self.ctx
        s = self.f.streams[u]
        idx = [self.index(v, kk) for v in s.load.indices]
        base = ctx.mul(stage, s.rows * s.cols)
        self.boxes(s, idx, self.arrays[s], base, ctx.add(stage, 2 * u), pred)
        return []

    def boxes(self, s: Stream, idx: list[SSAValue], array, base, bar, pred: SSAValue) -> None:
        """The loads (`pred`) of `s`'s tile at indices `idx` into `array` at `base`: the bytes
        expected on `full[bar]`, then a box per 64 columns. Coordinates are clamped to the
        tensor's extent (a box there reads zeros), so none exceeds its dims."""
        ctx = self.ctx
        tensor = ctx.tensor(s.load.source)
        dims = tensor.dims
        r = len(dims)
        row = ctx(arith.MinUIOp(ctx.mul(idx[r - 2], s.rows), dims[r - 2]))
        col0 = ctx.mul(idx[r - 1], s.cols)
        plane = (ctx(arith.MinUIOp(idx[0], dims[0])), dims[0]) if r == 3 else None
        tx = ctx.index(s.rows * s.cols * self.bytes)
        ctx.emit(MbarrierArriveExpectTxOp(self.full, bar, tx, pred))
        for q in range(s.cols // SWIZZLE_ROW):
            col = ctx(arith.MinUIOp(ctx.add(col0, q * SWIZZLE_ROW), dims[r - 1]))
            at = ctx.add(base, q * s.rows * SWIZZLE_ROW)
            box = (s.rows, SWIZZLE_ROW)
            ctx.emit(
                TmaLoadOp(tensor.slice, row, col, dims[r - 2], dims[r - 1], array, at,
                          self.full, bar, box, 128, pred, plane)
            )  # fmt: skip

    def invariant_operands(self) -> None:
        """q's array; with `TMA_Q`, where this loop makes it and q's tensor has rank 2 or 3,
        filled by TMA (`load_q`), else by `WgmmaLoop`'s copies."""
        ctx, p = self.ctx, self.p
        made = ctx.__dict__.setdefault("_fused_q_arrays", {})
        key = (self.f.mmas[0].lhs, self.f.loop.parent_block())
        rank = len(ctx.tensor(p.q.load.source).dims)
        self.q_tma = TMA_Q and key not in made and rank in (2, 3) and p.m <= MAX_BOX
        if not self.q_tma:
            super().invariant_operands()
            return
        self.q_array = made[key] = _swizzled(ctx.shared(self.element, p.m * p.d, "q"))

    def load_q(self) -> None:
        """With `TMA_Q`, after the barriers' initialisation: thread 0 loads q on `full[Q_BAR]`
        (before the stages' first loads, which then overlap it)."""
        if self.q_tma:
            ctx, q = self.ctx, self.p.q
            idx = [self.index(v, ctx.index(0)) for v in q.load.indices]

            def load() -> list[SSAValue]:
                self.boxes(q, idx, self.q_array, ctx.index(0), ctx.index(Q_BAR), self.first)
                return []

            ctx.unsafe(load)

    def wait_q(self) -> None:
        """With `TMA_Q`, every thread waits for q's load (phase 0 of `full[Q_BAR]`) before its
        first scores."""
        if self.q_tma:
            ctx = self.ctx
            _unsafe(ctx, MbarrierWaitOp(self.full, ctx.index(Q_BAR), ctx.index(0)))

    # -- products ----------------------------------------------------------------------------
    def mma(self, mma: tile.MmaOp, stage) -> None:
        """The product on its stream's `stage`: refill the other stage for the next iteration
        (warp 0 waits until every warp is done with it), wait for this stage's loads, the
        product (retired), and each warp's arrival on the stage's `empty`."""
        ctx = self.ctx
        u = self.f.mmas.index(mma)
        other = ctx(arith.XOrIOp(stage, ctx.index(1)))
        at_other = ctx.add(other, 2 * u)
        at_stage = ctx.add(stage, 2 * u)
        refill = MbarrierWaitOp(self.empty, at_other, self.parity)
        ctx.when(self.warp0, lambda: _unsafe(ctx, refill))
        ctx.unsafe(lambda: self.load(u, self.ahead, other, self.issue_next))
        _unsafe(ctx, MbarrierWaitOp(self.full, at_stage, self.parity))
        super().mma(mma, stage)
        self.release(at_stage)

    def scores(self, acc: list[SSAValue], base) -> list[SSAValue]:
        """`q @ k.T`, issued in this warpgroup's turn, retired."""
        self.turn(False)
        issued = self.scores_issue(acc, base)
        self.turn(True)
        return list(self.ctx.emit(simt.WgmmaWaitOp(issued, 0)).results)

    def output(self, a, acc: list[SSAValue], array, base, retire=True) -> list[SSAValue]:
        """`acc += p @ v`, issued in this warpgroup's turn, retired."""
        self.turn(False)
        issued = super().output(a, acc, array, base, retire=False)
        self.turn(True)
        return list(self.ctx.emit(simt.WgmmaWaitOp(issued, 0)).results) if retire else issued

    def turn(self, done: bool) -> None:
        """With turns: each warpgroup syncs on its own barrier (`done` False: before issuing),
        or arrives on the other's (`done`: after); inside the products' unsafe region."""
        if not self.turns:
            return
        ctx = self.ctx
        for g, mine in enumerate(self.groups):
            bar = TURNS[1 - g] if done else TURNS[g]
            ctx.emit(simt.NamedBarrierOp(bar, ctx.threads, arrive=done, pred=mine))

    def release(self, bar: SSAValue) -> None:
        """Lane 0 of each warp arrives on `empty[bar]`: its warp's product there has retired."""
        ctx = self.ctx
        ctx.when(self.lane0, lambda: _unsafe(ctx, MbarrierArriveOp(self.empty, bar)))

    # -- the loop ----------------------------------------------------------------------------
    def run(self) -> None:
        ctx = self.ctx
        tid = ctx.tid()
        self.first = ctx.cmp("eq", tid, 0)
        self.warp0 = ctx.cmp("ult", tid, WARP)
        self.lane0 = ctx.cmp("eq", ctx(arith.AndIOp(tid, ctx.index(WARP - 1))), 0)
        self.turns = PINGPONG and ctx.threads == 2 * WARPGROUP
        second = ctx.cmp("uge", tid, WARPGROUP)
        self.groups = (ctx.cmp("ult", tid, WARPGROUP), second)
        super().run()

    def before_loop(self, lb: SSAValue, ub: SSAValue) -> None:
        """q's copies and the barriers (`barriers`); stage 1 of each stream released; thread 0
        loads iteration 0 into stage 0; the first turn."""
        ctx = self.ctx
        self.prepare()
        self.invariant_operands()  # q's copies
        self.barriers()
        for u in range(2):  # stage 1 of each stream is free before its first fill
            self.release(ctx.index(1 + 2 * u))
        start = ctx.all_of([self.first, ctx.cmp("ult", lb, ub)])
        for u in range(2):

            def first(u: int = u) -> list[SSAValue]:
                return self.load(u, lb, ctx.index(0), start)

            ctx.unsafe(first)
        self.wait_q()
        self.first_turn()

    def barriers(self) -> None:
        """q's copies waited for and fenced (with `TMA_Q`: none; q's load follows, `load_q`);
        thread 0 initialises the barriers (`full`: one arrival, `empty`: one a warp); a block
        barrier. The barriers' arrays are made here, after the stages' and q's: a kernel's
        dynamic arrays lie in the order they are made, each at its alignment, and 64 bytes of
        barriers before the 1024-aligned stages cost 960 bytes of padding (d 128, 64 x 64:
        115,968 bytes a block, 256 more than two blocks an SM may have; 115,008 so)."""
        ctx = self.ctx
        self.full = ctx.shared(i64, Q_BAR + self.q_tma, "full")
        self.empty = ctx.shared(i64, 4, "empty")
        warps = ctx.index(ctx.threads // WARP)
        if not self.q_tma:
            ctx.emit(simt.AsyncCommitOp())
            ctx.emit(simt.AsyncWaitOp(0))
            self.copies_done()

        def init() -> list[SSAValue]:
            def each() -> None:
                for b in range(Q_BAR + self.q_tma):
                    ctx.emit(MbarrierInitOp(self.full, ctx.index(b), ctx.index(1)))
                for b in range(4):
                    ctx.emit(MbarrierInitOp(self.empty, ctx.index(b), warps))

            ctx.when(self.first, each)
            return []

        ctx.unsafe(init)
        ctx.sync()
        self.load_q()

    def first_turn(self) -> None:
        """With turns, warpgroup 1 arrives on warpgroup 0's barrier: 0 goes first."""
        if self.turns:
            ctx = self.ctx
            _unsafe(ctx, simt.NamedBarrierOp(TURNS[0], ctx.threads, True, self.groups[1]))

    def top(self, iv: SSAValue, t: SSAValue, ub: SSAValue, step: SSAValue) -> None:
        """What the products of iteration `t` share: the parity of its stage's phases, and
        whether thread 0 loads the next iteration."""
        ctx = self.ctx
        self.parity = ctx(arith.AndIOp(ctx(arith.ShRUIOp(t, ctx.index(1))), ctx.index(1)))
        self.ahead = ctx.add(iv, step)
        self.issue_next = ctx.all_of([self.first, ctx.cmp("ult", self.ahead, ub)])

    def after_loop(self) -> None:
        """Every load was waited for in the loop: a barrier ends the stages' use (with turns,
        warpgroup 0 first takes warpgroup 1's last turn; with `EVEN_WAITS` warpgroup 1 syncs
        alone on `ALONE`)."""
        ctx = self.ctx
        if self.turns:
            _unsafe(ctx, simt.NamedBarrierOp(TURNS[0], ctx.threads, False, self.groups[0]))
            if EVEN_WAITS:
                _unsafe(ctx, simt.NamedBarrierOp(ALONE, WARPGROUP, False, self.groups[1]))
        ctx.sync()


def _unsafe(ctx: Lowering, op: Operation) -> None:
    """`op` (no results) alone in a `simt.unsafe` region."""

    def fill() -> list[SSAValue]:
        ctx.emit(op)
        return []

    ctx.unsafe(fill)


class TmaPipelinedLoop(TmaLoop, PipelinedLoop):
    """`PipelinedLoop`'s schedule (iteration t + 1's scores and t's output issued together at
    t's output product, the output left in flight) on TMA stages (module docstring,
    "Pipelined"); `PipelinedLoop`'s hooks: `first_copies`, `scores_now`, `retire`,
    `ahead_copies`, `issued`."""

    def output(self, a, acc: list[SSAValue], array, base, retire=True) -> list[SSAValue]:
        """`acc += p @ v` as `WgmmaLoop` issues it: the turn is taken around both groups."""
        return WgmmaLoop.output(self, a, acc, array, base, retire)

    def first_copies(self, lb: SSAValue, ub: SSAValue, step: SSAValue) -> None:
        """q's copies waited for and fenced; the barriers initialised; thread 0 loads k of
        iterations 0 and 1 and v of 0 (k of iteration `trips`, whose scores are dropped, is
        loaded too: a wait needs it; k of 0 even when the loop does not run)."""
        ctx = self.ctx
        zero = ctx.index(0)
        trips = ctx(arith.CeilDivUIOp(ctx(arith.SubiOp(ub, lb)), step))
        self.trips = ctx(arith.SelectOp(ctx.cmp("ult", lb, ub), trips, zero))
        self.barriers()
        one = ctx.index(1)
        second = ctx.add(lb, step)
        k_one = ctx.all_of([self.first, ctx.cmp("ule", one, self.trips)])
        v_zero = ctx.all_of([self.first, ctx.cmp("ult", zero, self.trips)])
        for u, kk, stage, pred in (
            (0, lb, 0, self.first),
            (0, second, 1, k_one),
            (1, lb, 0, v_zero),
        ):

            def ahead(
                u: int = u, kk: SSAValue = kk, stage: int = stage, pred: SSAValue = pred
            ) -> list[SSAValue]:
                return self.load(u, kk, ctx.index(stage), pred)

            ctx.unsafe(ahead)
        self.first_turn()

    def scores_now(self, acc: list[SSAValue], stage) -> list[SSAValue]:
        """Iteration 0's scores before the loop: k of stage 0 waited for, the product retired,
        each warp's arrival on its `empty`."""
        ctx = self.ctx
        self.wait_q()
        _unsafe(ctx, MbarrierWaitOp(self.full, ctx.index(0), ctx.index(0)))
        out = super().scores_now(acc, stage)
        self.release(ctx.index(0))
        return out

    def retire(self, o_arg: SSAValue) -> None:
        """Iteration t - 1's output waited for, then each warp's arrival on v's `empty` of
        its stage (at t = 0 no product was in flight: that arrival frees stage 1 before its
        first fill)."""
        super().retire(o_arg)
        ctx = self.ctx
        self.release(ctx.add(ctx(arith.AndIOp(ctx.add(self.t, 1), ctx.index(1))), 2))

    def ahead_copies(self, iv: SSAValue, t: SSAValue, ub: SSAValue, step: SSAValue) -> None:
        """At iteration t's products: warp 0 waits until every warp is done with k's stage
        t % 2 (scores t) and v's other stage (output t - 1); thread 0 loads k of t + 2 and v of
        t + 1 there; every thread waits for k of t + 1 and v of t; this warpgroup's turn."""
        ctx = self.ctx
        now = ctx(arith.AndIOp(t, ctx.index(1)))
        nxt = ctx(arith.XOrIOp(now, ctx.index(1)))
        par = ctx(arith.AndIOp(ctx(arith.ShRUIOp(t, ctx.index(1))), ctx.index(1)))
        t1 = ctx.add(t, 1)
        par1 = ctx(arith.AndIOp(ctx(arith.ShRUIOp(t1, ctx.index(1))), ctx.index(1)))
        k_next = ctx.all_of([self.first, ctx.cmp("ule", ctx.add(t, 2), self.trips)])
        v_next = ctx.all_of([self.first, ctx.cmp("ult", t1, self.trips)])
        two, one = ctx.add(iv, ctx.mul(step, 2)), ctx.add(iv, step)
        for u, stage, kk, pred in ((0, now, two, k_next), (1, nxt, one, v_next)):
            free = MbarrierWaitOp(self.empty, ctx.add(stage, 2 * u), par)

            def wait_free(free: Operation = free) -> None:
                _unsafe(ctx, free)

            def refill(
                u: int = u, kk: SSAValue = kk, stage: SSAValue = stage, pred: SSAValue = pred
            ) -> list[SSAValue]:
                return self.load(u, kk, stage, pred)

            ctx.when(self.warp0, wait_free)
            ctx.unsafe(refill)
        _unsafe(ctx, MbarrierWaitOp(self.full, nxt, par1))
        _unsafe(ctx, MbarrierWaitOp(self.full, ctx.add(now, 2), par))
        if self.turns:

            def pass_turn() -> list[SSAValue]:
                self.turn(False)
                return []

            ctx.unsafe(pass_turn)

    def issued(self, both: list[SSAValue], scores: int) -> list[SSAValue]:
        """The turn passed on; the scores retired, the output in flight; each warp's arrival
        on k's `empty` of the scores' stage."""
        ctx = self.ctx
        self.turn(True)
        out = super().issued(both, scores)
        self.release(ctx(arith.AndIOp(ctx.add(self.t, 1), ctx.index(1))))
        return out


__all__ = ["EVEN_WAITS", "PINGPONG", "TMA", "TMA_Q", "TmaLoop", "TmaPipelinedLoop", "fits"]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
