"""The sm_90 GEMM loop of `gemm_wgmma.py`, warp-specialised (`WARP_SPECIALIZE`, off by default
until timed): a producer warpgroup issues the TMA loads into the ring of stages, the consumer
warpgroups (the accumulator's, as in the default schedule) wait for each stage and multiply, and
no block barrier sits in the K loop.

The kernel takes `p.block_threads` threads: the accumulator's `p.threads` (the layouts are
theirs, unchanged) and one producer warpgroup after them. After the barriers are initialised and
the block synchronised, `simt.specialize` splits them (dialects/simt/specialize.py):

- the producer (`setmaxnreg dec`) runs rounds of `S` iterations, the same rounds as the
  consumers: for stage `s` of round `r`, every producer thread waits on `empty[s]` with parity
  `(r + 1) % 2` (round 0 passes at once: a fresh barrier is in phase 0), then its first thread
  alone expects the stage's bytes on `full[s]` and issues its loads;
- the consumers (`setmaxnreg inc`) wait on `full[s]` with parity `r % 2`, fence, issue the
  stage's wgmma ops and commit; then (`CONSUMER_PENDING = 1`) wait until one group is pending,
  which retires stage `s - 1`'s, and arrive on `empty[s - 1]` (every consumer thread: the
  barrier expects `p.threads` arrivals), which frees that stage for round `r + 1`'s load; the
  round's last stage is retired (`pending = 0`) and freed at the round's end. The epilogue and
  every tile op after the loop follow in the consumer region, whose `simt.sync_threads` are the
  consumers' own barrier.

A warpgroup's tensor pipe so drains once a round (with `CONSUMER_PENDING = 0`, at every stage);
the other consumer warpgroup's products fill it meanwhile (the two do not wait for each other).
No release waits for the next round, so each round holds and frees every stage: the schedule
is the one verify-disjoint's stage rule accepts ([SIMT 9](docs/safety.md#simt-9)), and the
kernel is checked, not trusted, for the hand-off of each stage.

Applies where `gemm_wgmma.plan` does, the knob is on, a thread holds more than 64 accumulators
(one block an SM: 128 x 256 and 256 x 128 tiles) and the ops before the loop compute only
scalars (block ids, dimensions, constants, arithmetic): the producer threads run them too, with
the consumers' layouts, so nothing there may touch memory.
"""

from __future__ import annotations

import functools

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerAttr, i64
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.specialize import SetMaxNRegOp, SpecializeOp
from ferrox.dialects.simt.tma import MbarrierArriveOp, MbarrierInitOp, MbarrierWaitOp
from ferrox.lowering import knobs
from ferrox.lowering.tile_to_simt.gemm_wgmma import (
    TWO_BLOCKS_ACCUMULATORS,
    Wgmma,
    layout,
)

WARP_SPECIALIZE = False
"""Lower eligible loops warp-specialised (module docstring); a knob for timing."""
PRODUCER_REGISTERS = 24
CONSUMER_REGISTERS = 240
"""`setmaxnreg` targets: 128 x (24 + 2 x 240) = 64,512 of an SM's 65,536 registers. ptxas
allocates the kernel's 168 (384 threads, one block an SM) and each region within its target:
with 232 for the consumers (and 40 for the producer) the epilogue spilled 36 bytes, with 240
nothing spills and the producer fits 24."""
CONSUMER_PENDING = 1
"""1: a stage's group stays in flight while the next stage's is issued (`wgmma_wait {pending =
1}`, the previous stage freed after it), and the round's last stage is retired at the round's
end (`pending = 0`); 0: each stage's group retired at once. With 0 a warpgroup's tensor pipe
drains at every stage, with 1 once a round."""
ACROSS_ROUNDS = False
"""With `CONSUMER_PENDING = 1`: the round's last stage is not retired at the round's end but
stays in flight into the next round, whose first stage retires and frees it (the arrive under
`base != 0`: round 0 has no previous stage); the tensor pipe never drains in the loop. SIMT 9
accepts the carried hold (docs/safety.md#simt-9). A knob for timing."""
PROXY_FENCE = True
"""Each stage's `simt.wgmma_fence` with `fence.proxy.async` (a `MEMBAR` in SASS); False: the
registers' fence alone (`{registers}`), as CUTLASS's consumers do. Sound because only TMA (the
async proxy, which wgmma reads through too) writes a stage: SIMT 9 refuses any other write of
one, so no generic-proxy write needs ordering before the products. A knob for timing."""
_PRELUDE = (tile.BlockIdOp, tile.DimOp, tile.ConstantOp, tile.NumBlocksOp)


def applies(g, accumulators: int) -> bool:
    """Whether matched loop `g` (its plan holding `accumulators` a thread) is specialised."""
    if not WARP_SPECIALIZE or accumulators <= TWO_BLOCKS_ACCUMULATORS:
        return False
    loop = g.loop
    for op in loop.parent_block().ops:
        if op is loop:
            return True
        if not (isinstance(op, _PRELUDE) or op.name.startswith("arith.")):
            return False
    return False


class Specialized(Wgmma):
    """One loop's warp-specialised lowering (module docstring)."""

    def run(self) -> None:
        ctx, g, p = self.ctx, self.g, self.p
        s_count = p.stages
        self.prepare()
        self.empty = ctx.shared(i64, s_count, "empty")
        loop = g.loop

        def init() -> list[SSAValue]:
            def each() -> None:
                for s in range(s_count):
                    ctx.emit(MbarrierInitOp(self.full, ctx.index(s), ctx.index(1)))
                    ctx.emit(MbarrierInitOp(self.empty, ctx.index(s), ctx.index(p.threads)))

            ctx.when(self.first, each)
            return []

        ctx.unsafe(init)
        ctx.sync()
        acc = ctx.tile(loop.iter_args[0], layout(p))
        producer, consumer = Block(), Block()
        spec = SpecializeOp(p.producers, Region(producer), Region(consumer))
        ctx.emit(spec)
        ctx.emit(simt.ReturnOp())
        with ctx.at(InsertPoint.at_end(producer)):
            ctx.emit(SetMaxNRegOp("dec", PRODUCER_REGISTERS))
            self.produce()
            ctx.emit(simt.YieldOp())
        # The rest of the kernel is the consumers': emit there from now on, and end the region
        # where the tile kernel returns (`kernel.lower_return`).
        ctx.continue_in(consumer)
        ctx.specialized = spec
        ctx.emit(SetMaxNRegOp("inc", CONSUMER_REGISTERS))
        done = self.consume(acc)
        ctx.bind(loop.results[0], self.epilogue(done))
        kernel = spec.parent_op()
        assert isinstance(kernel, simt.KernelOp)
        _widen(kernel, p.block_threads)

    def _rounds(self, body_of, acc: list[SSAValue]) -> list[SSAValue]:
        """`scf.for %base = 0 to end step S` carrying `acc`, its body `body_of(base, parity,
        values)` (parity `(base / S) % 2`, the round's), which returns the values carried on."""
        ctx, s_count = self.ctx, self.p.stages
        body = Block(arg_types=[IndexType(), *(v.type for v in acc)])
        base = body.args[0]
        with ctx.at(InsertPoint.at_end(body)):
            parity = ctx(arith.RemUIOp(ctx(arith.DivUIOp(base, ctx.index(s_count))), ctx.index(2)))
            values = body_of(base, parity, list(body.args[1:]))
            ctx.emit(scf.YieldOp(*values))
        new = scf.ForOp(ctx.index(0), self.end, ctx.index(s_count), acc, Region(body))
        ctx.emit(new)
        return list(new.results)

    def produce(self) -> None:
        ctx, p = self.ctx, self.p
        elected = ctx.cmp("eq", ctx.tid(), p.threads)  # the producer warpgroup's first thread

        def body(base, parity, carried) -> list[SSAValue]:
            flipped = ctx(arith.XOrIOp(parity, ctx.index(1)))

            def stage(st: int) -> list[SSAValue]:
                ctx.emit(MbarrierWaitOp(self.empty, ctx.index(st), flipped))
                self.loads([(ctx.add(base, st), st, elected)])
                return []

            for st in range(p.stages):
                ctx.unsafe(functools.partial(stage, st))
            return carried

        self._rounds(body, [])

    def consume(self, acc: list[SSAValue]) -> list[SSAValue]:
        ctx, p = self.ctx, self.p
        self.bases()

        def body(base, parity, values) -> list[SSAValue]:
            for st in range(p.stages):
                values = ctx.unsafe(functools.partial(self.multiply, base, st, parity, values))
            return values

        done = self._rounds(body, acc)
        if CONSUMER_PENDING and ACROSS_ROUNDS:  # the last round's last stage is still in flight
            done = ctx.unsafe(lambda: list(ctx.emit(simt.WgmmaWaitOp(done, 0)).results))
        return done

    def multiply(
        self, base: SSAValue, st: int, parity: SSAValue, acc: list[SSAValue]
    ) -> list[SSAValue]:
        """Stage `st`: wait for its bytes, multiply, retire, free it."""
        ctx, p = self.ctx, self.p
        ctx.emit(MbarrierWaitOp(self.full, ctx.index(st), parity))
        out = self.products(st, acc, registers=not PROXY_FENCE)
        ctx.emit(simt.WgmmaCommitOp())
        if not CONSUMER_PENDING:
            out = list(ctx.emit(simt.WgmmaWaitOp(out, 0)).results)
            ctx.emit(MbarrierArriveOp(self.empty, ctx.index(st)))
            return out
        if st:  # the previous stage's group retires; this one's runs on
            out = list(ctx.emit(simt.WgmmaWaitOp(out, 1)).results)
            ctx.emit(MbarrierArriveOp(self.empty, ctx.index(st - 1)))
        elif ACROSS_ROUNDS:  # the previous round's last stage retires; freed from round 1 on
            out = list(ctx.emit(simt.WgmmaWaitOp(out, 1)).results)
            later = ctx.cmp("ne", base, 0)
            ctx.emit(MbarrierArriveOp(self.empty, ctx.index(p.stages - 1), later))
        if st == p.stages - 1 and not ACROSS_ROUNDS:  # the round's last: retire it too
            out = list(ctx.emit(simt.WgmmaWaitOp(out, 0)).results)
            ctx.emit(MbarrierArriveOp(self.empty, ctx.index(st)))
        return out


def _widen(kernel: simt.KernelOp, threads: int) -> None:
    """The kernel's block (its contract and what the host launches) to `threads`."""
    from ferrox.dialects.simt.contract import LaunchContractAttr
    from ferrox.lowering.tile_to_simt.kernel import LOWERING_ATTR

    c = kernel.contract
    assert c is not None
    kernel.contract = LaunchContractAttr(
        c.domain.data, [threads], c.shared_bytes.data, c.min_cc.data, c.requires.data
    )
    attr = kernel.attributes[LOWERING_ATTR]
    assert isinstance(attr, DictionaryAttr)
    entries = dict(attr.data)
    entries["threads"] = IntegerAttr(threads, i64)
    kernel.attributes[LOWERING_ATTR] = DictionaryAttr(entries)


__all__ = [
    "ACROSS_ROUNDS",
    "CONSUMER_PENDING",
    "PROXY_FENCE",
    "WARP_SPECIALIZE",
    "Specialized",
    "applies",
]


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
