"""The fused attention loop (`attention.py`) on Hopper's warpgroup tensor cores, FlashAttention-3's
products, when the target is sm_90 (compiled as sm_90a) and the operands are bf16 or f16:

- `s = q @ k.T` is `simt.wgmma` with both operands in shared memory, K-major: q (defined before
  the loop) is copied once into a 128-byte swizzled array, k streams through the loop's stages;
- `acc += p @ v` is `simt.wgmma_reg_a`: `p`, the scores' f32 accumulator fragment packed to
  16-bit pairs, *is* the register-A fragment of wgmma (FA3's trick), and v's stage is read as an
  MN-major B (v is `[BN, D]` with D contiguous, PTX's transposed B);
- the streams keep `attention.py`'s copies (`cp.async` into two stages a stream, one block
  barrier an iteration; the pipelined loop below copies k one more iteration ahead); what
  changes is where a stage's rows lie: a tile of
  `[rows, D]` is `D / 64` blocks of `[rows, 64]`, each 128-byte row swizzled
  (`(c ^ r % 8)` of its 16-byte chunks), which is at once the K-major layout of k and q and the
  MN-major layout of v, on a 1024-byte aligned array.

Which loops (`plan`): the two products of the attention loop (`q @ k.T` with q from before the
loop, then `p @ v` with p computed in it), a warpgroup per 64 query rows (`BM = 64 x warpgroups`:
then each warp owns 16 whole rows, and `matrix.row_tensor_core_layout` is register for register
the wgmma accumulator layout, so the softmax and every other op of the body lower as on
mma.sync), `D` a multiple of 64 up to 256, `BN` a multiple of 16 up to 256, and q and the stages
within `attention.STAGE_BUDGET`. Anything else keeps `attention.py`'s mma.sync path.

**Pipelined** (`PipelinedLoop`, FlashAttention-3's overlap within a warpgroup; behind the knob
`PIPELINE`, off by default; where the output product's result is only carried to the next
iteration and the scores' accumulator is a constant): the scores of iteration `t + 1` are
computed at the end of iteration `t`, so that iteration `t + 1`'s softmax runs while `p @ v` of
iteration `t` is still on the tensor cores:

    before the loop: copy q, k_0, k_1, v_0; wait; barrier; s_0 = q @ k_0.T (retired)
    iteration t (s_t carried in, retired; acc carried in, in flight):
      the body up to the output product (the softmax of s_t), except that at the first use of
        acc: `simt.wgmma_wait {pending = 0}` (p @ v of iteration t - 1)
      wait for this thread's copies; fence; barrier (every warpgroup has retired what read the
        stages refilled now); copy k_{t+2} into k's stage t % 2, v_{t+1} into v's (t + 1) % 2
      fence, s_{t+1} = q @ k_{t+1}.T, commit; fence, acc += p_t @ v_t, commit
      `simt.wgmma_wait {pending = 1, retired = BN / 2}`: s_{t+1} retired, acc in flight
    after the loop: wait {pending = 0} for acc; wait for the copies; barrier

No group is in flight at the barrier, so every copy is issued with nothing pending; the partial
wait's claim (its first operands, the scores, are of the older group) is checked by
verify-disjoint. The scores of the iteration past the end read a zero-filled stage and are
dropped. Without it (`WgmmaLoop`) each product is one group, retired at once.

The writers of a stage fence (`simt.wgmma_fence`: `fence.proxy.async.shared::cta`) after their
copies complete and before the barrier that hands the stage to the readers: `cp.async` writes
through the generic proxy, wgmma reads through the async one.

All of it is the lowering's trusted code (docs/safety.md#trusted-fused-attention-wgmma): the shared
and wgmma ops inside `simt.unsafe`, and the kernel passes `verify-disjoint`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import BFloat16Type, Float16Type, IndexType, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.wgmma import SWIZZLE_ROW, WARPGROUP
from ferrox.dialects.tile.attributes import Padding
from ferrox.dialects.tile.types import DYNAMIC_INDEX, TileTensorType, TileType
from ferrox.lowering import knobs
from ferrox.lowering.tile_to_simt.attention import (
    STAGE_BUDGET,
    STAGES,
    Fused,
    Stream,
    _element,
    _free_stages,
    _Loop,
    _shape,
)
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.control_flow import flatten, lower_op, unflatten
from ferrox.lowering.tile_to_simt.gemm import _inside
from ferrox.lowering.tile_to_simt.gemm_wgmma import WGMMA_CHIPS, _swizzled
from ferrox.lowering.tile_to_simt.gemm_wgmma import Plan as GemmPlan
from ferrox.lowering.tile_to_simt.gemm_wgmma import layout as wgmma_layout
from ferrox.lowering.tile_to_simt.layout import log2
from ferrox.lowering.tile_to_simt.matrix import row_tensor_core_layout
from ferrox.lowering.tile_to_simt.memory import _strides, whole_tile

ENABLED = True
"""Whether sm_90 takes this path at all (False: the mma.sync loop everywhere; a knob for merging
and timing, as the H100 has not yet shown it faster)."""
PIPELINE: bool | None = None
"""Whether loops that allow it take the pipelined schedule (`PipelinedLoop`; on TMA stages
`attention_tma.TmaPipelinedLoop`). None, the default: on TMA stages only. On the H200 (twelfth
session, 2026-12-07, docs/performance.md, 4 x 16 heads, ratio to SDPA) the pipelined loop on TMA
stages led at every size from 4096 keys up (d 128 full at 4096: 0.891 against 0.668 for the
synchronous loop on `cp.async` stages; d 64 causal 0.839 against 0.786). On `cp.async`
stages the synchronous form was as fast or faster in 7 of 10 cases on the H100 (the lead's run
of 55cae5e, 2026-12-06; the pipelined one's 156 registers cost the second block an SM), so those
stay synchronous. True or False: everywhere or nowhere (a knob for timing)."""
PIPELINE_THREADS = 256
"""Up to this many threads a block the loop is pipelined: at 512 a thread has 128 registers, and
the next iteration's scores it holds too made ptxas spill 76-100 bytes at 256 x 64, d 64 (the
synchronous form: none)."""
MAX_N = 256
"""wgmma's largest N (and a TMA-free stage's widest head dim here)."""
STATIC_ROWS = False
"""Whether the whole-tile K/V copies index rows by the tensor type's static last dimension (the
head dim), the whole-tile test holding only where the parameter equals it (`row_length`): a
knob for timing, off until the GPU has run it (docs/performance.md, "Fused attention, ninth
session")."""
OUTPUT_SLABS = 2
"""Slabs of rows (a power of two; 1: the whole tile at once) in which the layout changes after
a loop on this path go through shared memory (`attention.lower_fused` sets the kernel's
`Lowering.slabs`): the output's staging, f32 `[BM, D]`, from the accumulator's rows to the
store's chunks (`exchange_slabs`; where its target does not allow them, the whole tile). Each
slab costs two block barriers; the staging array holds one slab, so d 64 at 64 x 64 takes
49,344 bytes a block instead of 57,664, four blocks an SM instead of three. On the H100 with q
by TMA and the reciprocal epilogue (fourteenth session, docs/performance.md "Attention defaults,
fourteenth session") all three took d 64 at 64 x 64 from 0.759 to 0.858 of SDPA at 1024 keys
full (causal 0.789 to 0.911), and the slabs alone gave 0.06-0.10 at d 128 64 x 32; at 128 x 64
and 128 x 128 they were neutral (within 0.005). Every other kernel's exchanges keep
`exchange_slabs.SLABS` (1). A knob for timing (`oslabs=N` in benchmarks/attention.py)."""


@dataclass(frozen=True)
class Plan:
    """The wgmma form of a fused attention loop: `m` query rows, head dim `d`, `bn` keys an
    iteration, and q's load (copied once into shared memory)."""

    m: int
    d: int
    bn: int
    q: Stream
    pipelined: bool = False
    """FlashAttention-3's overlap (`PipelinedLoop`), where the loop's form allows it and
    `PIPELINE` is not False (None: `attention.lower_fused` keeps it for TMA stages only)."""


def _q_stream(mma: tile.MmaOp) -> Stream | None:
    """q's load, through the reshapes that lead to the scores' product, as a `Stream` of
    `[m, d]`, or None where q is not such a load."""
    v: SSAValue = mma.lhs
    chain = []
    while isinstance(v.owner, tile.ReshapeOp):
        chain.append(v.owner)
        v = v.owner.input
    load = v.owner
    if not isinstance(load, tile.LoadOp) or load.padding.data != Padding.ZERO:
        return None
    if not isinstance(load.source.type, TileTensorType):
        return None
    shape = load.result.type.get_shape()
    m, d = _shape(mma.lhs)
    if len(shape) < 2 or any(x != 1 for x in shape[:-2]) or tuple(shape[-2:]) != (m, d):
        return None
    return Stream(load, tuple(chain), False, m, d)


def plan(f: Fused, threads: int, chip: str) -> Plan | None:
    """The plan for fused loop `f` with `threads` threads on `chip`, or None where this path
    does not apply (module docstring)."""
    if not ENABLED or chip not in WGMMA_CHIPS or len(f.mmas) != 2:
        return None
    if not isinstance(_element(f.mmas[0]), BFloat16Type | Float16Type):
        return None
    scores, out = f.mmas
    k_stream, v_stream = f.streams
    if not k_stream.transposed or v_stream.transposed:
        return None
    if _inside(scores.lhs, f.loop) or not _inside(out.lhs, f.loop):
        return None
    m, d = _shape(scores.lhs)
    _, bn = _shape(scores.rhs)
    if _shape(out.lhs) != (m, bn) or _shape(out.rhs) != (bn, d):
        return None
    if threads % WARPGROUP or m != 64 * (threads // WARPGROUP):
        return None
    if d % SWIZZLE_ROW or d > MAX_N or bn % 16 or bn > MAX_N:
        return None
    groups = threads // WARPGROUP
    for n in (bn, d):  # the row layout the softmax takes is the wgmma fragment layout
        hopper = wgmma_layout(GemmPlan(m, n, 16, groups, 1, 0))
        if row_tensor_core_layout(m, n, threads) != hopper:
            return None
    q = _q_stream(scores)
    if q is None:
        return None
    if 2 * (m * d + STAGES * 2 * bn * d) > STAGE_BUDGET:
        return None
    pipelined = PIPELINE is not False and threads <= PIPELINE_THREADS and _pipelinable(f)
    return Plan(m, d, bn, q, pipelined)


def _pipelinable(f: Fused) -> bool:
    """Whether the loop may be pipelined: the output product's result only carried to the next
    iteration (so it may stay in flight), the scores' accumulator a constant or made before the
    loop (so the next iteration's scores can start at this one's end)."""
    scores, output = f.mmas
    uses = list(output.result.uses)
    if len(uses) != 1 or not isinstance(uses[0].operation, scf.YieldOp):
        return False
    if uses[0].operation.parent_op() is not f.loop:
        return False
    acc = scores.acc.owner
    return not _inside(scores.acc, f.loop) or isinstance(acc, tile.ConstantOp)


def kernel_threads(kernel: tile.KernelOp, chip: str) -> int | None:
    """The threads of a kernel whose first fused loop takes this path on `chip`: a warpgroup
    per 64 query rows (`convert.lower_kernel` asks before choosing); None when none does."""
    from ferrox.lowering.tile_to_simt.attention import match

    for op in kernel.walk():
        f = match(op) if isinstance(op, scf.ForOp) else None
        if f is not None:
            threads = 2 * _shape(f.mmas[0].lhs)[0]
            return threads if plan(f, threads, chip) is not None else None
    return None


class WgmmaLoop(_Loop):
    """`attention._Loop` with the products on wgmma and the stages in wgmma's layout."""

    def __init__(self, ctx: Lowering, f: Fused, p: Plan):
        super().__init__(ctx, f)
        self.p = p
        self.static_rows: dict[Stream, SSAValue] = {}

    # -- stages ------------------------------------------------------------------------------
    def place(self, s: Stream, row: SSAValue, x: SSAValue) -> SSAValue:
        """Chunk `x` (swizzled) of `row`: block `x / 8` of `[rows, 64]`, row `row` there."""
        ctx = self.ctx
        block = ctx(arith.ShRUIOp(x, ctx.index(3)))
        inner = ctx(arith.AndIOp(x, ctx.index(7)))
        at = ctx.add(ctx.mul(block, s.rows * SWIZZLE_ROW), ctx.mul(row, SWIZZLE_ROW))
        return ctx.add(at, ctx.mul(inner, self.w))

    def row_pitch(self, s: Stream) -> int:
        return SWIZZLE_ROW

    def stage_key(self, s: Stream, u: int) -> tuple:
        return (*super().stage_key(s, u), "wgmma")

    def stage_array(self, s: Stream, u: int) -> SSAValue:
        free = _free_stages(self.ctx).get(self.stage_key(s, u))
        if free:
            return free.pop()
        size = STAGES * s.rows * s.cols
        return _swizzled(self.ctx.shared(self.element, size, f"stream{u}"))

    def whole_stream(self, s: Stream, tensor, idx, valid) -> SSAValue | None:
        """The whole-tile test (`memory.whole_tile`, docs/safety.md#trusted-whole-tile) of the
        stream's tile, and that the iteration runs: then its copies are unchecked (a 16-byte
        `cp.async` each, without the count, range test, trap vote and misaligned fallback of
        `simt.async_copy`, some 200 instructions an iteration at 128 x 64 x 64). Only for tile
        sides that are powers of two (the test's rule) and a rank of at most 3."""
        shape = tuple(s.load.result.type.get_shape())
        if len(shape) > 3 or any(x & (x - 1) for x in shape):
            return None
        ctx = self.ctx
        whole = whole_tile(ctx, tensor, idx, shape, _strides(ctx, tensor.dims), self.w,
                           self.element)  # fmt: skip
        conds = [valid, whole]
        known = s.load.source.type.get_shape()[-1]  # type: ignore[attr-defined]
        if STATIC_ROWS and known != DYNAMIC_INDEX:
            conds.append(ctx.cmp("eq", tensor.dims[-1], ctx.index(known)))
            self.static_rows[s] = ctx.index(known)
        return ctx.all_of(conds)

    def row_length(self, s: Stream, dims: list[SSAValue]) -> SSAValue:
        """The type's static last dimension where `whole_stream` tested the parameter equal to
        it (`STATIC_ROWS`): each copy's index is then one per-thread base plus a constant, one
        64-bit pointer a stream instead of one a copy (d 128, 128 x 128: 16 pointers, 32
        registers, held across the loop)."""
        return self.static_rows.get(s, dims[-1])

    def copies_done(self) -> None:
        """The proxy fence of the writers: their `cp.async` writes (generic proxy) are seen by
        the wgmma ops (async proxy) of the threads past the barrier that follows."""
        ctx = self.ctx

        def fence() -> list[SSAValue]:
            ctx.emit(simt.WgmmaFenceOp())
            return []

        ctx.unsafe(fence)

    # -- operands ----------------------------------------------------------------------------
    def prepare(self) -> None:
        """The warpgroup's first row of q's array (the A tile of its 64 rows). Its warpgroup
        index is lane 0's, broadcast by a shuffle (the same value: a warp lies in one
        warpgroup): so ptxas sees it warp-uniform and makes the wgmma descriptors in uniform
        registers (d 64, 128 x 64: `R2UR` 372 -> 9, the kernel 3,424 -> 2,992 SASS
        instructions), as CUTLASS's `canonical_warp_group_idx` does."""
        ctx = self.ctx
        group = ctx(arith.ShRUIOp(ctx.tid(), ctx.index(log2(WARPGROUP))))
        narrow = ctx(arith.IndexCastOp(group, i32))
        lane0 = ctx(simt.ShuffleOp("idx", narrow, ctx.constant(0, i32)))
        group = ctx(arith.IndexCastOp(lane0, IndexType()))
        self.q_row = ctx.mul(group, 64 * SWIZZLE_ROW)

    def invariant_operands(self) -> None:
        """q copied into its swizzled array, once for the loops of one block (the copies join
        the first stage's group, waited for at the loop's top)."""
        ctx, p = self.ctx, self.p
        made = ctx.__dict__.setdefault("_fused_q_arrays", {})
        key = (self.f.mmas[0].lhs, self.f.loop.parent_block())
        if key not in made:
            array = _swizzled(ctx.shared(self.element, p.m * p.d, "q"))
            zero = ctx.index(0)
            always = ctx.cmp("eq", zero, zero)
            self.issue(p.q, self.plan(p.q), array, zero, always, zero)
            made[key] = array
        self.q_array = made[key]

    # -- products ----------------------------------------------------------------------------
    def mma(self, mma: tile.MmaOp, stage) -> None:
        ctx = self.ctx
        layout = ctx.layout_of(mma.result)
        acc = list(ctx.tile(mma.acc, layout))
        s = self.stream_of[mma]
        base = ctx.mul(stage, s.rows * s.cols)
        if mma is self.f.mmas[0]:
            out = ctx.unsafe(lambda: self.scores(acc, base))
        else:
            a = self.a_fragments(mma)  # before the fence: PTX fences A's register writes
            out = ctx.unsafe(lambda: self.output(a, acc, self.arrays[s], base))
        ctx.bind(mma.result, Dist(layout, out))

    def scores(self, acc: list[SSAValue], base) -> list[SSAValue]:
        """`q @ k.T` on k's stage at `base`, issued and retired."""
        return list(self.ctx.emit(simt.WgmmaWaitOp(self.scores_issue(acc, base), 0)).results)

    def scores_issue(self, acc: list[SSAValue], base) -> list[SSAValue]:
        """`q @ k.T`: m64nBN of the warpgroup's q rows by the BN rows of k's stage at `base`,
        both K-major, over the head dim's k16 steps: fence, the steps, commit (the group in
        flight). The fence is the registers' only: the stages' writers fenced the proxy."""
        ctx, p = self.ctx, self.p
        arr = self.arrays[self.f.streams[0]]
        ctx.emit(simt.WgmmaFenceOp(registers=True))
        for ks in range(p.d // 16):
            a_at = ctx.add(self.q_row, (ks // 4) * p.m * SWIZZLE_ROW + 16 * (ks % 4))
            b_at = ctx.add(base, (ks // 4) * p.bn * SWIZZLE_ROW + 16 * (ks % 4))
            acc = list(ctx.emit(simt.WgmmaOp(self.q_array, a_at, arr, b_at, acc, p.bn)).results)
        ctx.emit(simt.WgmmaCommitOp())
        return acc

    def output(self, a, acc: list[SSAValue], array, base, retire=True) -> list[SSAValue]:
        """`acc += p @ v`: m64nD with p's registers as A over the BN keys' k16 steps, v's stage
        an MN-major B (blocks of 64 columns of D, `BN * 64` elements apart); one group,
        retired unless `retire` is False (then in flight). A registers-only fence, as for the
        scores."""
        ctx, p = self.ctx, self.p
        ctx.emit(simt.WgmmaFenceOp(registers=True))
        for ks in range(p.bn // 16):
            b_at = ctx.add(base, ks * 16 * SWIZZLE_ROW)
            op = simt.WgmmaRegAOp(a[(0, ks)], array, b_at, acc, p.d, p.bn * SWIZZLE_ROW)
            acc = list(ctx.emit(op).results)
        ctx.emit(simt.WgmmaCommitOp())
        return list(ctx.emit(simt.WgmmaWaitOp(acc, 0)).results) if retire else acc


class PipelinedLoop(WgmmaLoop):
    """`WgmmaLoop` with FlashAttention-3's overlap inside a warpgroup (module docstring,
    "Pipelined"): iteration t's softmax runs while `p @ v` of iteration t - 1 is in flight."""

    def run(self) -> None:
        ctx, f = self.ctx, self.f
        loop = f.loop
        body = loop.body.block
        scores, output = f.mmas
        k_s, v_s = f.streams
        self.arrays = {s: self.stage_array(s, u) for u, s in enumerate(f.streams)}
        self.plans = {s: self.plan(s) for s in f.streams}
        lb, ub, step = (ctx.scalar(v) for v in (loop.lb, loop.ub, loop.step))
        self.hoisted = {}
        owner = scores.acc.owner
        zero_acc = owner if isinstance(owner, Operation) and owner.parent_block() is body else None
        if zero_acc is not None:
            self.skipped.add(zero_acc)
        s_layout = ctx.layout_of(scores.result)
        o_index = output.result.first_use.index  # type: ignore[union-attr]

        def before() -> None:
            self.prepare()
            if zero_acc is not None:
                lower_op(ctx, zero_acc)  # the scores' zero accumulator, made once
            self.invariant_operands()
            self.first_copies(lb, ub, step)

        self.checked(before)
        acc0 = list(ctx.tile(scores.acc, s_layout))
        first: list[SSAValue] = []
        self.checked(lambda: first.extend(self.scores_now(acc0, ctx.index(0))))
        carried = list(body.args[1:])
        inits = flatten(ctx, loop.iter_args, carried)
        o_at = sum(_width(ctx, c) for c in carried[:o_index])
        o_count = _width(ctx, carried[o_index])
        n_s = len(first)
        new_body = Block(arg_types=[IndexType(), IndexType(), *(v.type for v in first + inits)])
        iv, t = new_body.args[0], new_body.args[1]
        self.t = t
        ctx.bind(body.args[0], iv)
        ctx.bind(scores.result, Dist(s_layout, list(new_body.args[2 : 2 + n_s])))
        unflatten(ctx, carried, list(new_body.args[2 + n_s :]))
        o_arg = carried[o_index]
        ctx.loop_depth += 1
        try:
            with ctx.at(InsertPoint.at_end(new_body)):
                waiting = True
                for op in body.ops:
                    if op in self.skipped or op is scores:
                        continue
                    if waiting and _uses(op, o_arg):
                        self.retire(o_arg)
                        waiting = False
                    if op is output:
                        ctx.lowering(op)
                        steps = (iv, t, ub, step, acc0)
                        self.checked(lambda steps=steps: self.step(output, steps))
                    elif isinstance(op, scf.YieldOp):
                        ctx.lowering(op)
                        rest = flatten(ctx, op.operands, carried)
                        ctx.emit(scf.YieldOp(ctx.add(t, 1), *self.next_scores, *rest))
                    else:
                        lower_op(ctx, op)
        finally:
            ctx.loop_depth -= 1
        ctx.lowering(loop)
        new = scf.ForOp(lb, ub, step, [ctx.index(0), *first, *inits], Region(new_body))
        done: list[SSAValue] = []

        def after() -> None:
            ctx.emit(new)
            out: list[SSAValue] = list(new.results[1 + n_s :])
            o = out[o_at : o_at + o_count]
            out[o_at : o_at + o_count] = ctx.unsafe(
                lambda: list(ctx.emit(simt.WgmmaWaitOp(o, 0)).results)
            )
            done.extend(out)
            self.after_loop()

        self.checked(after)
        unflatten(ctx, loop.results, done)
        free = _free_stages(ctx)
        for u, s in enumerate(f.streams):
            free.setdefault(self.stage_key(s, u), []).append(self.arrays[s])

    def first_copies(self, lb: SSAValue, ub: SSAValue, step: SSAValue) -> None:
        """Before the loop: k of the first two iterations and v of the first, waited for,
        fenced, and a barrier."""
        ctx = self.ctx
        k_s, v_s = self.f.streams
        second = ctx.add(lb, step)
        for s, kk, stage in ((k_s, lb, 0), (k_s, second, 1), (v_s, lb, 0)):
            valid = ctx.cmp("ult", kk, ub)
            self.issue(s, self.plans[s], self.arrays[s], kk, valid, ctx.index(stage))
        ctx.emit(simt.AsyncCommitOp())
        ctx.emit(simt.AsyncWaitOp(0))
        self.copies_done()
        ctx.sync()

    def ahead_copies(self, iv: SSAValue, t: SSAValue, ub: SSAValue, step: SSAValue) -> None:
        """At iteration t's products: its copies waited for, fenced, a barrier (no group is in
        flight), then k two iterations ahead into stage t % 2 and v one ahead into the other."""
        ctx = self.ctx
        k_s, v_s = self.f.streams
        ctx.emit(simt.AsyncWaitOp(0))
        self.copies_done()
        ctx.sync()
        now = ctx(arith.AndIOp(t, ctx.index(1)))
        after = ctx(arith.AndIOp(ctx.add(t, 1), ctx.index(1)))
        one, two = ctx.add(iv, step), ctx.add(iv, ctx.mul(step, 2))
        plans = self.plans
        self.issue(k_s, plans[k_s], self.arrays[k_s], two, ctx.cmp("ult", two, ub), now)
        self.issue(v_s, plans[v_s], self.arrays[v_s], one, ctx.cmp("ult", one, ub), after)
        ctx.emit(simt.AsyncCommitOp())

    def issued(self, both: list[SSAValue], scores: int) -> list[SSAValue]:
        """The wait after the two groups: the scores (the first `scores` values) retired, the
        output in flight."""
        return list(self.ctx.emit(simt.WgmmaWaitOp(both, 1, scores)).results)

    def retire(self, o_arg: SSAValue) -> None:
        """Wait for `p @ v` of the iteration before (the output `o_arg` carries in flight)."""
        ctx = self.ctx
        layout = ctx.layout_of(o_arg)
        values = list(ctx.tile(o_arg, layout))
        waited = ctx.unsafe(lambda: list(ctx.emit(simt.WgmmaWaitOp(values, 0)).results))
        ctx.bind(o_arg, Dist(layout, waited))

    def scores_now(self, acc: list[SSAValue], stage) -> list[SSAValue]:
        """`q @ k.T` on k's `stage`, issued and retired (the first iteration's, before the
        loop)."""
        ctx, p = self.ctx, self.p
        base = ctx.mul(stage, p.bn * p.d)
        return ctx.unsafe(lambda: self.scores(acc, base))

    def step(self, output: tile.MmaOp, steps) -> None:
        """At the output product of iteration t: the copies two (k) and one (v) iterations
        ahead, then `q @ k.T` of iteration t + 1 and `p @ v` of iteration t as two groups, and
        a wait that retires the first (carried to iteration t + 1) and leaves the second in
        flight (carried too, retired at its first use there)."""
        ctx, p, f = self.ctx, self.p, self.f
        iv, t, ub, step, acc0 = steps
        v_s = f.streams[1]
        layout = ctx.layout_of(output.result)
        a = self.a_fragments(output)  # before the fences: PTX fences A's register writes
        acc = list(ctx.tile(output.acc, layout))
        self.ahead_copies(iv, t, ub, step)
        now = ctx(arith.AndIOp(t, ctx.index(1)))
        after = ctx(arith.AndIOp(ctx.add(t, 1), ctx.index(1)))
        k_base = ctx.mul(after, p.bn * p.d)
        v_base = ctx.mul(now, p.bn * p.d)

        def run() -> list[SSAValue]:
            s = self.scores_issue(acc0, k_base)
            o = self.output(a, acc, self.arrays[v_s], v_base, retire=False)
            return self.issued(s + o, len(s))

        both = ctx.unsafe(run)
        n_s = len(acc0)
        self.next_scores = both[:n_s]
        ctx.bind(output.result, Dist(layout, both[n_s:]))


def _width(ctx: Lowering, v: SSAValue) -> int:
    """The SIMT values `flatten` makes of `v`."""
    return ctx.layout_of(v).num_regs if isinstance(v.type, TileType) else 1


def _uses(op: Operation, value: SSAValue) -> bool:
    """Whether `op`, or an op nested in it, takes `value` as an operand."""
    return any(value in o.operands for o in op.walk())


__all__ = ["Plan", "PipelinedLoop", "WgmmaLoop", "kernel_threads", "plan"]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
