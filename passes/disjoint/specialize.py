"""Rule 9 (docs/safety.md#simt-9): the hand-off of shared stages between the partitions of a
`simt.specialize` is race-free.

The producer region writes shared memory only by TMA; each array it writes is a *stage*. The
rule accepts one protocol and refuses everything else in such a kernel:

1. *Stages and barriers.* Every stage is a `simt.shared_alloc` used nowhere but in the
   producer's TMA loads and in reads by the consumers. Each stage has one *full* barrier `F[i]`
   (the barrier its loads complete on) and one *empty* barrier `E[j]` (the one the producer
   waits on before loading it); `i`, `j` are constants, and no barrier serves two roles. Each is
   initialised exactly once, before the `simt.specialize`, by one thread (under an `scf.if` on
   `thread_id x == c`), with a `simt.sync_threads` of the whole block between the last
   initialisation and the split: `F[i]` with count 1, `E[j]` with
   the consumer partition's thread count. Outside the split they are only initialised.
2. *The producer* touches shared memory only with `simt.mbarrier_wait` on an empty barrier,
   `simt.mbarrier_arrive_expect_tx` on a full one and `simt.tma_load`, all in the body of one
   `scf.for` at its region's top level (through `simt.unsafe`, never under another op), from 0
   in steps of a constant `S` (a *round*). In the body, in order, for each stage: a wait on
   `E[j]` with parity `((iv / S) % 2) ^ 1`, then `simt.mbarrier_arrive_expect_tx F[i], B if %e`
   and the stage's loads on `F[i]` under the same `%e`, where `%e` is `thread_id x == c` for a
   constant `c` of the producer partition (one thread), and `B` is a constant equal to the
   loads' bytes. Each stage is filled once a body. The producer makes no witness.
3. *The consumers* read a stage only in the body of one `scf.for` at their region's top level
   with the producer loop's bounds (0, the same upper bound value, the same step `S`): in the
   body, per stage, a wait on `F[i]` with parity `(iv / S) % 2`, then the reads (wgmma ops only:
   a generic-proxy load would need a proxy fence before the refill), then
   `simt.mbarrier_arrive E[j]`, each once a body (or, for a stage *carried* across the back
   edge, the arrive at the body's start under `iv != 0`, before the wait: the hold taken in
   round r is given up in round r + 1, and round 0 gives up nothing); the
   consumers never write a stage, wait on an empty barrier or arrive on a full one. At the
   arrive no wgmma that reads the stage may be in flight (rule 8's flow analysis, the arrive
   counted as a write of the stage).

Why it is race-free: let round `r`'s fill of a stage be the producer's and its use the
consumers'. `F[i]`'s phase `r` completes only by fill `r` (one expected arrival, the elected
thread's, once a round, and `B` bytes, exactly the loads'); `E[j]`'s phase `r` only by the
arrivals of use `r` (each consumer thread arrives once for it, after its reads have retired: in
round `r`, or for a carried stage in round `r + 1`).
Fill `r + 1` waits for `E[j]`'s phase `r`, and use `r` for `F[i]`'s phase `r`, so fills and uses
alternate: no byte of a stage is written while a consumer may read it, nor read before it
landed. The parity waits are exact because neither side can be two phases ahead: fill `r + 1`
needs use `r`, which needs fill `r`, so when a thread waits the barrier has completed either
`r` or `r + 1` phases of the one it needs, and PTX's parity wait tells those apart (round 0's
producer waits parity 1 on a fresh barrier, which passes at once).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import (
    TRUSTED_INDEX_OPS,
    KernelOp,
    SyncThreadsOp,
    TileIndexOp,
    UnsafeOp,
)
from ferrox.dialects.simt.pipeline import LdMatrixOp, SharedLoadVectorOp
from ferrox.dialects.simt.shared import SharedLoadOp
from ferrox.dialects.simt.specialize import SpecializeOp
from ferrox.dialects.simt.tma import (
    MbarrierArriveExpectTxOp,
    MbarrierArriveOp,
    MbarrierInitOp,
    MbarrierWaitOp,
    TmaLoadOp,
)
from ferrox.dialects.simt.wgmma import WGMMA_PRODUCT_OPS, alloc_of, tiles
from ferrox.passes.disjoint import in_flight
from ferrox.passes.disjoint.common import Context, Function, type_test, walk
from ferrox.passes.disjoint.rounds import (
    RULE,
    Releases,
    before,
    const,
    elected,
    flat,
    flipped_parity,
    not_first,
    ops_of,
    round_parity,
    shared_operands,
)

_is_specialize = type_test(SpecializeOp)
_READS = (SharedLoadOp, SharedLoadVectorOp, LdMatrixOp, *WGMMA_PRODUCT_OPS)
Key = tuple[int, int]  # (id of the barrier array's alloc, constant index)


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    if not isinstance(fn, KernelOp):
        return
    for op in ctx.ops(fn):
        if _is_specialize(op):
            _Split(fn, op, engine).check()  # type: ignore[arg-type]


class _Split:
    """The rule over one `simt.specialize` (module docstring)."""

    def __init__(self, fn: KernelOp, spec: SpecializeOp, engine: DiagnosticEngine):
        self.fn, self.spec, self.engine = fn, spec, engine
        self.failed = False
        self.stage_bars: dict[int, tuple[Key, Key]] = {}  # stage alloc id -> (full, empty)
        self.names: dict[int, str] = {}
        self.full_arrays: set[int] = set()
        self.empty_arrays: set[int] = set()

    def error(self, op: Operation, message: str) -> None:
        self.failed = True
        self.engine.error(op, f"{message} {RULE}")

    def key(self, array: SSAValue, index: SSAValue, op: Operation, what: str) -> Key | None:
        alloc = alloc_of(array)
        at = const(index)
        if alloc is None or at is None:
            self.error(
                op,
                f"'{op.name}' in a 'simt.specialize' needs its {what} barrier in a "
                "'simt.shared_alloc' at a constant index",
            )
            return None
        return id(alloc), at

    def stage(self, array: SSAValue, op: Operation) -> int | None:
        alloc = alloc_of(array)
        if alloc is None:
            self.error(
                op,
                f"'{op.name}' writes a stage that is not a 'simt.shared_alloc': the stage rule "
                "tells stages apart by their allocation",
            )
            return None
        self.names[id(alloc)] = f"%{array.name_hint}" if array.name_hint else "a stage"
        return id(alloc)

    def check(self) -> None:
        loop_p = self.producer()
        if self.failed or loop_p is None:
            return
        loop_c = self.consumer(loop_p)
        if self.failed or loop_c is None:
            return
        self.outside()
        if not self.failed:
            self.releases(loop_c)

    # -- the producer ----------------------------------------------------------------------------
    def producer(self) -> scf.ForOp | None:
        spec = self.spec
        region = spec.producer
        loop: scf.ForOp | None = None
        for op in ops_of(region):
            if isinstance(op, TRUSTED_INDEX_OPS):
                self.error(op, f"'{op.name}' makes a witness in the producer region")
            shared = shared_operands(op)
            if not shared:
                continue
            if not isinstance(op, TmaLoadOp | MbarrierWaitOp | MbarrierArriveExpectTxOp):
                self.error(
                    op,
                    f"'{op.name}' touches shared memory in the producer region of a "
                    "'simt.specialize': only 'simt.tma_load', 'simt.mbarrier_arrive_expect_tx' "
                    "and 'simt.mbarrier_wait' may",
                )
                continue
            home = self.loop_of(op, region)
            if home is None:
                self.error(
                    op,
                    f"'{op.name}' in the producer region must sit in the body of its K loop, an "
                    "'scf.for' at the region's top level (no other op around it but "
                    "'simt.unsafe')",
                )
            elif loop is None:
                loop = home
            elif home is not loop:
                self.error(op, f"'{op.name}' is in a second producer loop: one loop fills")
        if loop is None:
            if not self.failed:
                self.error(spec, "'simt.specialize' producer region fills no stage")
            return None
        if const(loop.lb) != 0 or not (const(loop.step) or 0) > 0:
            self.error(loop, "the producer loop must run from 0 in steps of a constant (rounds)")
            return None
        self.fills(loop)
        return loop

    def loop_of(self, op: Operation, region) -> scf.ForOp | None:
        """The `scf.for` at `region`'s top level whose body holds `op` at its top level (both
        through `simt.unsafe` only), or None."""
        parent = op.parent_op()
        while isinstance(parent, UnsafeOp):
            parent = parent.parent_op()
        if isinstance(parent, scf.ForOp) and any(parent is o for o in flat(region.block)):
            return parent
        return None

    def fills(self, loop: scf.ForOp) -> None:
        """The producer loop's body (rule 2): each stage's empty wait, expect and loads."""
        consumers = self.spec.consumer_threads()
        block = self.spec.block_threads() or 0
        waited: Key | None = None  # the empty barrier waited on last, not yet taken
        group: list = []  # [full key, predicate, bytes so far, expect op, empty key]
        seen_empty: set[Key] = set()
        seen_full: set[Key] = set()

        def close() -> None:
            if group:
                _, _, got, expect, _ = group
                want = const(expect.bytes)
                if want != got:
                    self.error(
                        expect,
                        f"'simt.mbarrier_arrive_expect_tx' expects {want} bytes but the loads "
                        f"on its barrier write {got}: the phase must complete exactly when "
                        "they have landed",
                    )
                group.clear()

        for op in flat(loop.body.block):
            if isinstance(op, MbarrierWaitOp):
                close()
                k = self.key(op.barriers, op.index, op, "empty")
                if k is None:
                    return
                if k in seen_empty:
                    self.error(op, "the producer waits on an empty barrier twice in a round")
                seen_empty.add(k)
                self.empty_arrays.add(k[0])
                if not flipped_parity(op.parity, loop):
                    self.error(
                        op,
                        "the producer's wait on an empty barrier must have parity "
                        "'((iv / S) % 2) ^ 1' of its loop (round r waits for the consumers' "
                        "round r - 1)",
                    )
                waited = k
            elif isinstance(op, MbarrierArriveExpectTxOp):
                close()
                k = self.key(op.barriers, op.index, op, "full")
                if k is None:
                    return
                if waited is None:
                    self.error(
                        op,
                        "the producer must wait on the stage's empty barrier before it expects "
                        "the stage's bytes",
                    )
                    return
                if k in seen_full:
                    self.error(op, "the producer fills a stage twice in a round")
                seen_full.add(k)
                self.full_arrays.add(k[0])
                if not elected(op.pred, consumers, block):
                    self.error(
                        op,
                        "'simt.mbarrier_arrive_expect_tx' on a full barrier must be predicated "
                        "on one producer thread ('thread_id x == c', c a constant of the "
                        "producer partition): the barrier expects one arrival",
                    )
                group[:] = [k, op.pred, 0, op, waited]
                waited = None
            elif isinstance(op, TmaLoadOp):
                k = self.key(op.barriers, op.bar_index, op, "full")
                if k is None:
                    return
                if not group or group[0] != k or op.pred is not group[1]:
                    self.error(
                        op,
                        "'simt.tma_load' in the producer must follow its stage's "
                        "'simt.mbarrier_arrive_expect_tx' on the same barrier, under the same "
                        "predicate",
                    )
                    return
                stage = self.stage(op.tile, op)
                if stage is None:
                    return
                bars = (k, group[4])
                if self.stage_bars.setdefault(stage, bars) != bars:
                    self.error(op, f"stage {self.names[stage]} is filled on two barrier pairs")
                    return
                group[2] += op.box_bytes
        close()
        if self.full_arrays & self.empty_arrays:
            self.error(loop, "a barrier array holds both full and empty barriers")
        pairs = set(self.stage_bars.values())
        if len({f for f, _ in pairs}) != len(pairs) or len({e for _, e in pairs}) != len(pairs):
            self.error(loop, "each stage needs a full and an empty barrier of its own")

    # -- the consumers ---------------------------------------------------------------------------
    def consumer(self, loop_p: scf.ForOp) -> scf.ForOp | None:
        spec = self.spec
        stages = set(self.stage_bars)
        fulls = {bars[0] for bars in self.stage_bars.values()}
        empties = {bars[1] for bars in self.stage_bars.values()}
        loop: scf.ForOp | None = None
        for op in ops_of(spec.consumer):
            if isinstance(op, TRUSTED_INDEX_OPS) and not isinstance(op, TileIndexOp):
                self.error(
                    op,
                    f"'{op.name}' makes a witness in the consumer region: only "
                    "'simt.tile_index' may (the launch checks the coverage of other spaces "
                    "over the whole block, whose producers write nothing)",
                )
            uses = [v for v in shared_operands(op) if alloc_of(v) is not None]
            touched = {id(alloc_of(v)) for v in uses}
            if not touched & (stages | self.full_arrays | self.empty_arrays):
                continue
            home = self.loop_of(op, spec.consumer)
            if home is None:
                self.error(
                    op,
                    f"'{op.name}' touches a stage or its barriers outside the consumers' K "
                    "loop (an 'scf.for' at the region's top level, the op at its body's top "
                    "level)",
                )
                continue
            if loop is None:
                loop = home
            elif home is not loop:
                self.error(op, f"'{op.name}' is in a second consumer loop: one loop reads")
        if loop is None:
            self.error(spec, "'simt.specialize' consumer region reads no stage")
            return None
        if (
            const(loop.lb) != 0
            or loop.ub is not loop_p.ub
            or const(loop.step) != const(loop_p.step)
        ):
            self.error(
                loop,
                "the consumer loop must have the producer loop's bounds (from 0, the same "
                "upper bound value, the same constant step): round r's use must meet round "
                "r's fill",
            )
            return None
        self.uses(loop, fulls, empties)
        return loop

    def uses(self, loop: scf.ForOp, fulls: set[Key], empties: set[Key]) -> None:
        """The consumers' loop body (rule 3): per stage a wait on its full barrier, reads, an
        arrive on its empty one; or, for a stage *carried* (held across the back edge), its
        arrive at the body's start under `iv != 0`, then the wait, the reads, and the hold left
        for the next round."""
        by_full = {bars[0]: s for s, bars in self.stage_bars.items()}
        body = flat(loop.body.block)
        carried: set[Key] = set()  # full barriers of the stages released under `iv != 0`
        for op in body:
            if isinstance(op, MbarrierArriveOp) and op.pred is not None:
                k = self.key(op.barriers, op.index, op, "empty")
                if k is None:
                    return
                if not not_first(op.pred, loop):
                    self.error(
                        op,
                        "a predicated 'simt.mbarrier_arrive' in the consumers' loop must be "
                        "on 'iv != 0' of the loop: it frees the stage the previous round held",
                    )
                    return
                carried |= {f for f, s in by_full.items() if self.stage_bars[s][1] == k}
        # full barrier -> "carried" | "free" | "held" | "freed"
        state = {f: "carried" if f in carried else "free" for f in by_full}
        for op in body:
            if isinstance(op, MbarrierWaitOp):
                k = self.key(op.barriers, op.index, op, "full")
                if k is None:
                    return
                if k not in fulls:
                    self.error(op, "the consumers may wait only on a stage's full barrier")
                    continue
                if state[k] != "free":
                    self.error(
                        op,
                        "the consumers wait on a full barrier twice in a round, or before "
                        "freeing the stage they carried",
                    )
                    continue
                if not round_parity(op.parity, loop):
                    self.error(
                        op,
                        "the consumers' wait on a full barrier must have parity '(iv / S) % 2' "
                        "of their loop (round r waits for round r's fill)",
                    )
                state[k] = "held"
            elif isinstance(op, MbarrierArriveOp):
                k = self.key(op.barriers, op.index, op, "empty")
                if k is None:
                    return
                if k not in empties:
                    self.error(op, "the consumers may arrive only on a stage's empty barrier")
                    continue
                held = [f for f, s in by_full.items() if self.stage_bars[s][1] == k]
                want = "carried" if op.pred is not None else "held"
                if any(state[f] != want for f in held):
                    self.error(
                        op,
                        "'simt.mbarrier_arrive' frees a stage the consumers do not hold: wait on "
                        "its full barrier first, and arrive once a round",
                    )
                    continue
                for f in held:
                    state[f] = "free" if op.pred is not None else "freed"
            elif shared_operands(op):
                for v in shared_operands(op):
                    alloc = alloc_of(v)
                    if alloc is None or id(alloc) not in self.stage_bars:
                        continue
                    s = id(alloc)
                    if not isinstance(op, _READS) or (
                        isinstance(op, WGMMA_PRODUCT_OPS) and v not in tiles(op)
                    ):
                        self.error(op, f"'{op.name}' writes stage {self.names[s]} in the consumers")
                    elif not isinstance(op, WGMMA_PRODUCT_OPS):
                        self.error(
                            op,
                            f"'{op.name}' reads stage {self.names[s]} through the generic proxy: "
                            "only a wgmma may read a stage (its reads and the TMA writes that "
                            "refill it are both the async proxy's, which the barriers order)",
                        )
                    elif state[self.stage_bars[s][0]] != "held":
                        self.error(
                            op,
                            f"'{op.name}' reads stage {self.names[s]} outside the consumers' "
                            "hold of it (between the wait on its full barrier and the arrive "
                            "on its empty one)",
                        )
            elif op.regions and any(
                isinstance(inner, MbarrierWaitOp | MbarrierArriveOp) or shared_operands(inner)
                for inner in walk(op)[1:]
            ):
                self.error(op, f"'{op.name}' in the consumers' loop body hides stage accesses")
        for f, s in by_full.items():
            if state[f] != ("held" if f in carried else "freed"):
                self.error(
                    loop,
                    f"the consumers' loop body must wait for, read and free stage "
                    f"{self.names[s]} once a round (wait on its full barrier, then arrive on "
                    "its empty one, or at the next round's start under 'iv != 0')",
                )

    # -- before the split ------------------------------------------------------------------------
    def outside(self) -> None:
        spec = self.spec
        arrays = self.full_arrays | self.empty_arrays
        inits: dict[Key, MbarrierInitOp] = {}
        last_init: Operation | None = None
        entry = self.fn.body.blocks[0]
        top_of: dict[int, Operation] = {}
        for top in entry.ops:
            for op in walk(top):
                top_of[id(op)] = top
        for op in walk(self.fn)[1:]:
            if spec.is_ancestor(op):
                continue
            if isinstance(op, TRUSTED_INDEX_OPS):
                self.error(
                    op,
                    f"'{op.name}' makes a witness outside the 'simt.specialize' of its kernel: "
                    "there a tile witness counts chunks over the block, inside over the "
                    "consumers, and the two could name one chunk",
                )
            for v in shared_operands(op):
                alloc = alloc_of(v)
                if alloc is None:
                    continue
                if id(alloc) in self.stage_bars:
                    self.error(
                        op, f"'{op.name}' touches stage {self.names[id(alloc)]} outside the split"
                    )
                elif id(alloc) in arrays:
                    if not isinstance(op, MbarrierInitOp):
                        self.error(
                            op,
                            f"'{op.name}' uses a stage barrier outside the split, where it may "
                            "only be initialised",
                        )
                        continue
                    k = self.key(op.barriers, op.index, op, "stage")
                    if k is None:
                        continue
                    if k in inits:
                        self.error(op, "a stage barrier is initialised twice")
                    inits[k] = op
                    if not self.by_one_thread(op):
                        self.error(
                            op,
                            "a stage barrier must be initialised by one thread (under 'scf.if' "
                            "on 'thread_id x == c'): two would write it at once",
                        )
                    top = top_of.get(id(op))
                    if top is None or not before(top, spec):
                        self.error(op, "a stage barrier must be initialised before the split")
                        continue
                    if last_init is None or before(last_init, top):
                        last_init = top
        consumers = self.spec.consumer_threads()
        pairs = {bars: s for s, bars in self.stage_bars.items()}  # one report a barrier pair
        for (full, empty), s in pairs.items():
            for k, count, what in ((full, 1, "full"), (empty, consumers, "empty")):
                init = inits.get(k)
                if init is None:
                    self.error(
                        spec, f"the {what} barrier of stage {self.names[s]} is never initialised"
                    )
                elif const(init.count) != count:
                    self.error(
                        init,
                        f"a stage's {what} barrier must be initialised with count {count} (the "
                        + ("producer thread" if count == 1 else "consumer threads")
                        + ")",
                    )
        if last_init is not None and not _block_barrier_between(last_init, spec):
            self.error(
                spec,
                "'simt.specialize' needs a 'simt.sync_threads' of the whole block between the "
                "stage barriers' initialisation and the split",
            )

    def by_one_thread(self, op: Operation) -> bool:
        """`op` sits (through `simt.unsafe`) in the then-region of an `scf.if` on `thread_id x
        == c`."""
        block = self.spec.block_threads() or 0
        parent = op.parent_op()
        while parent is not None and not isinstance(parent, KernelOp):
            if (
                isinstance(parent, scf.IfOp)
                and parent.true_region.is_ancestor(op)
                and elected(parent.cond, 0, block)
            ):
                return True
            parent = parent.parent_op()
        return False

    # -- rule 8's flow, the arrive as a write ----------------------------------------------------
    def releases(self, loop: scf.ForOp) -> None:
        frees: dict[int, set[int]] = {}
        for op in flat(loop.body.block):
            if isinstance(op, MbarrierArriveOp):
                k = (id(alloc_of(op.barriers)), const(op.index))
                frees[id(op)] = {s for s, bars in self.stage_bars.items() if bars[1] == k}
        flow = Releases(self.engine, frees, self.names)
        flow.report = True
        flow.region(self.fn.body, in_flight.State())


__all__ = ["check"]


def _block_barrier_between(first: Operation, stop: Operation) -> bool:
    """A `simt.sync_threads` after `first` and before `stop`, in their block (`first` comes
    before `stop` there)."""
    op = first.next_op
    while op is not None and op is not stop:
        if isinstance(op, SyncThreadsOp):
            return True
        op = op.next_op
    return False
