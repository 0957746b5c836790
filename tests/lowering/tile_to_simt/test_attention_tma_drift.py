"""The TMA attention loop's stage protocol with the warps apart (lowering/tile_to_simt/
attention_tma.py, the knobs `TMA`, `PINGPONG`, `attention_wgmma.PIPELINE`).

The interpreter runs a block's threads in lockstep, so it never sees two warpgroups drift apart,
which is what the TMA loop allows (no block barrier in it). Here the interpreter only records,
per warp of each block, the loop's synchronisation and stage events with their values (mbarrier
init, arrivals with their lanes and bytes, parity waits, TMA loads with their stage and barrier,
wgmma reads of a stage, commits and waits, named and block barriers); `replay` then runs each
warp's record on its own under random schedules (biased toward one warpgroup, so they drift),
with the mbarriers' phases and transaction bytes, the named barriers' counts, and vector clocks:
a wgmma read must follow the landing of the TMA write it reads (acquired through the phase that
write completed on), a TMA write must follow the retirement of every warp's reads of the stage's
previous contents, and every wait and barrier must complete (no deadlock). A warp is one agent:
lane 0's arrival after the warp's `wgmma.wait_group` stands for its lanes, as CUTLASS's one
arrival a warpgroup does (docs/performance.md, "Fused attention, ninth session": the race audit).

The record also holds each warp's plain shared stores and loads (`simt.shared_store`,
`simt.shared_load`: the epilogue's staging of the output, after the loop) with every lane's
element, and `replay` checks them with the same clocks: two accesses of one element by different
warps, one a store, must be ordered (a block barrier, or a named barrier's phase: its arrivals
release, its syncs acquire). `racecheck_model` is the other reading of the same record that
explains compute-sanitizer's report on the H200 with the turns on (docs/performance.md, "Racecheck
and the warpgroups' turns"): accesses ordered by how many barriers each warp has *waited* at,
arrivals not counted.
"""

# The fixture `example` comes from test_attention_fused; ruff takes its uses for redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest

import ferrox
from ferrox.dialects import simt
from ferrox.dialects.simt.tma import (
    MbarrierArriveExpectTxOp,
    MbarrierArriveOp,
    MbarrierInitOp,
    MbarrierWaitOp,
    TmaLoadOp,
)
from ferrox.lowering.tile_to_simt import attention_tma, attention_wgmma

from .test_attention_fused import attention_split, example  # noqa: F401
from .test_attention_tma import lowered


class Race(Exception):
    pass


def _value(x, lane: int) -> int:
    a = np.asarray(x)
    return int(a) if a.ndim == 0 else int(a.reshape(-1)[lane if a.size > 1 else 0])


def _stage(array, at: int) -> tuple[str, int]:
    return array.name.lstrip("%"), at // (array.length // 2)  # two stages an array


def _elements(array, indices: list, lanes: list[int]) -> frozenset[int]:
    """The row-major elements of `array` at `indices` for each of `lanes` (each index as
    `_value` reads it, every lane at once)."""
    flat = np.zeros(len(lanes), np.int64)
    for size, i in zip(array.shape, indices):
        a = np.asarray(i).reshape(-1)
        flat = flat * size + (a[lanes] if a.size > 1 else a[0]).astype(np.int64)
    return frozenset(set(flat.tolist()))


def _by_warp(ex, lanes: np.ndarray):
    """(block, warp, its lanes in order) for the active `lanes`, by block then warp."""
    if len(lanes) == 0:
        return []
    block = ex.block_local[lanes].astype(np.int64) + ex.first_block
    warp = ex.linear[lanes].astype(np.int64) >> 5
    key = block * (int(warp.max()) + 1) + warp
    order = np.argsort(key, kind="stable")  # lanes in order within a warp
    starts = np.flatnonzero(np.r_[True, key[order][1:] != key[order][:-1]])
    groups = np.split(lanes[order], starts[1:])
    return [(int(block[order[s]]), int(warp[order[s]]), g.tolist()) for s, g in zip(starts, groups)]


def _events(op, args, lane: int, lanes: int, every: list[int]):
    """The event `op` is for the record, or None (`every`: the warp's active lanes)."""
    at = {id(v): i for i, v in enumerate(op.operands)}

    def arg(v):
        return args[at[id(v)]]

    def bar(buffers, index):
        return arg(buffers).name.lstrip("%"), _value(arg(index), lane)

    if isinstance(op, MbarrierInitOp):
        return ("init", bar(op.barriers, op.index), _value(arg(op.count), lane))
    if isinstance(op, MbarrierArriveExpectTxOp):
        return ("arrive", bar(op.barriers, op.index), lanes, _value(arg(op.bytes), lane))
    if isinstance(op, MbarrierArriveOp):
        return ("arrive", bar(op.barriers, op.index), lanes, 0)
    if isinstance(op, MbarrierWaitOp):
        return ("wait", bar(op.barriers, op.index), _value(arg(op.parity), lane))
    if isinstance(op, TmaLoadOp):
        where = _stage(arg(op.tile), _value(arg(op.offset), lane))
        return ("tma", where, op.box_bytes, bar(op.barriers, op.bar_index))
    if isinstance(op, simt.WgmmaOp | simt.WgmmaRegAOp):
        b = arg(op.b)
        if not b.name.lstrip("%").startswith("stream"):
            return None  # q: written once before the loop, behind a block barrier
        return ("read", _stage(b, _value(arg(op.b_index), lane)))
    if isinstance(op, simt.WgmmaCommitOp):
        return ("commit",)
    if isinstance(op, simt.WgmmaWaitOp):
        return ("retire", op.pending.value.data)
    if isinstance(op, simt.NamedBarrierOp):
        return ("bar", op.id.value.data, op.threads.value.data, op.arrive is not None, lanes)
    if isinstance(op, simt.SyncThreadsOp):
        return ("bar", 0, 0, False, lanes)
    if isinstance(op, simt.SharedStoreOp | simt.SharedLoadOp):
        array = arg(op.array)
        where = _elements(array, [arg(i) for i in op.indices], every)
        return ("st" if isinstance(op, simt.SharedStoreOp) else "ld", array.name, where)
    return None


KINDS = (MbarrierInitOp, MbarrierArriveExpectTxOp, MbarrierArriveOp, MbarrierWaitOp, TmaLoadOp,
         simt.WgmmaOp, simt.WgmmaRegAOp, simt.WgmmaCommitOp, simt.WgmmaWaitOp,
         simt.NamedBarrierOp, simt.SyncThreadsOp, simt.SharedStoreOp,
         simt.SharedLoadOp)  # fmt: skip


def record(monkeypatch, interpreter, module, name, tile_args) -> dict[int, dict[int, list]]:
    """Run the kernel on the interpreter; each block's events by warp, in program order."""
    from ferrox.driver.interpreter import ops as table

    out: dict[int, dict[int, list]] = defaultdict(lambda: defaultdict(list))

    def wrap(factory):
        def make(op):
            run = factory(op)
            pred = getattr(op, "pred", None)
            at = {id(v): i for i, v in enumerate(op.operands)}

            def go(ex, args, mask):
                result = run(ex, args, mask)
                on = np.broadcast_to(np.asarray(mask).astype(bool), (ex.n,))
                if pred is not None:
                    on = on & np.broadcast_to(np.asarray(args[at[id(pred)]]).astype(bool), on.shape)
                for block, warp, lanes in _by_warp(ex, np.flatnonzero(on)):
                    event = _events(op, args, lanes[0], len(lanes), lanes)
                    if event is not None:
                        out[block][warp].append(event)
                return result

            return go

        return make

    for kind in KINDS:
        monkeypatch.setitem(table.FACTORIES, kind, wrap(table.FACTORIES[kind]))
    interpreter(module, name, tile_args)
    return out


class _Plain:
    """The plain shared accesses' clocks, per array: each element's last store (its warp and
    that warp's clock) and, per warp, the clock of its last load since; 0 where none. An event's
    elements are distinct (a set), so checking and recording them all at once finds what one by
    one in the set's order does, the first racing element named."""

    def __init__(self, warps: list[int], traces: dict[int, list], elements: dict):
        self.warps = warps
        self.at = {w: i for i, w in enumerate(warps)}
        sizes: dict[str, int] = defaultdict(int)
        for events in traces.values():
            for e in events:
                if e[0] in ("st", "ld") and e[2]:
                    sizes[e[1]] = max(sizes[e[1]], int(_indices(e[2], elements).max()) + 1)
        self.elements = elements
        self.store = {a: np.full(n, -1, np.int64) for a, n in sizes.items()}  # warp position
        self.stamp = {a: np.zeros(n, np.int64) for a, n in sizes.items()}  # its clock
        self.loads = {a: np.zeros((len(warps), n), np.int64) for a, n in sizes.items()}

    def access(self, w: int, c: dict, kind: str, name: str, elements: frozenset) -> None:
        if not elements:
            return
        x = _indices(elements, self.elements)
        me, now = self.at[w], c[w]
        # w's clock of each warp; its own and "no store" (position -1) never race
        seen = [c.get(v, 0) for v in self.warps]
        seen[me] = _NEVER
        seen.append(_NEVER)
        clocks = np.array(seen, np.int64)
        last, loads = self.store[name][x], self.loads[name]
        stored = clocks[last] < self.stamp[name][x]
        if kind == "ld":
            if stored.any():
                k = int(np.argmax(stored))
                raise Race(f"{name}[{x[k]}]: warp {w}'s ld races warp "
                           f"{self.warps[last[k]]}'s store")  # fmt: skip
            loads[me, x] = now
            return
        unseen = clocks[:-1, None] < loads[:, x]  # a warp's load this warp has not seen
        bad = stored | unseen.any(axis=0)
        if bad.any():
            k = int(np.argmax(bad))
            if stored[k]:
                raise Race(f"{name}[{x[k]}]: warp {w}'s st races warp "
                           f"{self.warps[last[k]]}'s store")  # fmt: skip
            r = self.warps[int(np.argmax(unseen[:, k]))]
            raise Race(f"{name}[{x[k]}]: warp {w}'s store races warp {r}'s load")
        self.store[name][x] = me
        self.stamp[name][x] = now
        loads[:, x] = 0


_NEVER = np.iinfo(np.int64).max
"""A clock no recorded access reaches: a warp's own accesses, and no access at all."""


def _indices(elements: frozenset, memo: dict) -> np.ndarray:
    """A set of elements as an array, in the set's order (made once per set)."""
    got = memo.get(id(elements))
    if got is None or got[0] is not elements:
        got = memo[id(elements)] = (elements, np.fromiter(elements, np.int64, len(elements)))
    return got[1]


def replay(traces: dict[int, list], seed: int, elements: dict | None = None) -> None:
    """Each warp's record run on its own under a random schedule (module docstring); raise
    `Race` for a race or a deadlock. `elements`: the plain accesses' element arrays, kept across
    the seeds of one record."""
    elements = {} if elements is None else elements
    rng = random.Random(seed)
    bias = (0.5, 0.9, 0.99)[seed % 3]  # how strongly one warpgroup is run ahead
    warps = sorted(traces)
    ahead = set(warps[: len(warps) // 2])
    pc = dict.fromkeys(warps, 0)
    clock = {w: defaultdict(int) for w in warps}
    mbar: dict = {}
    named: dict = {}
    groups: dict = {w: [] for w in warps}
    open_reads: dict = {w: [] for w in warps}
    reading = defaultdict(set)  # stage -> warps whose reads of it are not yet retired
    retired = defaultdict(dict)  # stage -> warp -> its clock at the retirement
    landed: dict = {}  # stage -> the agent of its last TMA write
    blocked: dict = {}
    agents = 0
    plain = _Plain(warps, traces, elements)

    def join(into, other) -> None:
        for k, v in other.items():
            into[k] = max(into[k], v)

    def settle(b) -> None:
        if b["pending"] == 0 and b["tx"] == 0:
            b["completed"] += 1
            b["last"], b["acc"] = b["acc"], defaultdict(int)
            b["pending"] = b["count"]

    while True:
        ready = [w for w in warps if pc[w] < len(traces[w]) and w not in blocked]
        if not ready:
            if blocked:
                raise Race(f"deadlock: {blocked}")
            return
        first = rng.random() < bias
        w = rng.choice([x for x in ready if (x in ahead) == first] or ready)
        event = traces[w][pc[w]]
        c = clock[w]
        c[w] += 1
        kind = event[0]
        step = 1
        if kind == "init":
            count = event[2]
            mbar[event[1]] = {"count": count, "pending": count, "tx": 0, "completed": 0,
                              "acc": defaultdict(int), "last": {}}  # fmt: skip
        elif kind == "arrive":
            b = mbar[event[1]]
            if event[2] != 1:
                raise Race(f"warp {w}: {event[2]} lanes arrive on {event[1]}, counted as one")
            b["pending"] -= 1
            b["tx"] += event[3]
            join(b["acc"], c)
            settle(b)
        elif kind == "wait":
            b = mbar[event[1]]
            if b["completed"] % 2 == event[2]:  # that parity's phase has not completed
                blocked[w] = event
                step = 0
            else:
                join(c, b["last"])
        elif kind == "tma":
            _, stage, nbytes, key = event
            if reading[stage]:
                raise Race(f"WAR: warp {w} refills {stage} while warps {reading[stage]} read it")
            for r, t in retired[stage].items():
                if c[r] < t:
                    raise Race(f"WAR: warp {w} refills {stage} before warp {r} retired its read")
            agents += 1
            landed[stage], retired[stage] = ("tma", agents), {}
            b = mbar[key]
            b["acc"][("tma", agents)] = 1  # seen only through the phase the bytes complete
            b["tx"] -= nbytes
            if b["tx"] < 0:
                raise Race(f"more bytes than expected on {key}")
            settle(b)
        elif kind == "read":
            agent = landed.get(event[1])
            if agent is None or c[agent] < 1:
                raise Race(f"RAW: warp {w} reads {event[1]} before its load landed")
            open_reads[w].append(event[1])
            reading[event[1]].add(w)
        elif kind == "commit":
            groups[w].append(open_reads[w])
            open_reads[w] = []
        elif kind == "retire":
            keep = len(groups[w]) - event[1]
            for group in groups[w][:keep]:
                for stage in group:
                    reading[stage].discard(w)
                    retired[stage][w] = c[w]
            groups[w] = groups[w][keep:]
        elif kind in ("st", "ld"):
            plain.access(w, c, kind, event[1], event[2])
        elif kind == "bar":
            _, bid, threads, arrive, lanes = event
            threads = threads or 32 * len(warps)
            state = named.setdefault(bid, [0, defaultdict(int), []])
            state[0] += lanes
            join(state[1], c)
            if not arrive:
                state[2].append(w)
                blocked[w] = event
            if state[0] == threads:
                for x in state[2]:
                    del blocked[x]
                    join(clock[x], state[1])
                del named[bid]
            elif state[0] > threads:
                raise Race(f"named barrier {bid}: more than {threads} threads")
        if step == 0:
            c[w] -= 1
        pc[w] += step
        for x, e in list(blocked.items()):
            if e[0] == "wait" and mbar[e[1]]["completed"] % 2 != e[2]:
                del blocked[x]


def check(traces_by_block, seeds: int) -> None:
    """`replay` of each block's record under `seeds` schedules. A record equal to an earlier
    block's (the same query rows of another head) is not replayed again: `replay` is a function
    of the record and the seed alone, so it would pass or fail as the earlier one did."""
    seen = set()
    for block, traces in sorted(traces_by_block.items()):
        key = tuple((w, tuple(events)) for w, events in sorted(traces.items()))
        if key in seen:
            continue
        seen.add(key)
        elements: dict = {}
        for seed in range(seeds):
            try:
                replay(traces, seed, elements)
            except Race as e:
                raise Race(f"block {block}, seed {seed}: {e}") from None


def racecheck_model(traces: dict[int, list]) -> set[tuple[int, int, str]]:
    """What a checker reports from one block's record if it orders plain accesses (`st`, `ld`)
    only by how many barriers each warp has waited at (a `bar` event that is not an arrival;
    arrivals are not counted): each (storing warp, other warp, the other's access) where both
    touch one element at equal counts. Not the GPU's order, which `replay` follows (an arrival
    releases, the phase's syncs acquire): a model that reproduces compute-sanitizer racecheck's
    report on the H200 (module docstring)."""
    seen = defaultdict(list)  # (array, element) -> [(warp, waits, kind)]
    for w, events in traces.items():
        waits = 0
        for e in events:
            if e[0] == "bar" and not e[3]:
                waits += 1
            elif e[0] in ("st", "ld"):
                for x in e[2]:
                    seen[(e[1], x)].append((w, waits, e[0]))
    out = set()
    for accesses in seen.values():
        for w, n, kind in accesses:
            if kind == "st":
                out |= {(w, x, k) for x, m, k in accesses if x != w and m == n}
    return out


def run(monkeypatch, interpreter, kernel, name, heads, seq, dim, causal, bn):
    module, _ = lowered(kernel, D=dim, CAUSAL=causal, BN=bn)
    rng = np.random.default_rng(0)
    q, k, v = (ferrox.to_bf16(rng.standard_normal((heads, seq, dim))) for _ in range(3))
    out = np.full((heads, seq, dim), np.nan, np.float32)
    traces = record(monkeypatch, interpreter, module, name, [out, q, k, v])
    assert not np.isnan(out).any()
    return traces


# One head but in one case: a block's record depends on its query rows, not on its head (each
# head's blocks record the same events), so a second head's blocks would replay as the first's
# (`check` replays a record once); the case with two heads still runs their blocks.
@pytest.mark.parametrize(
    "pingpong, pipe, heads, seq, dim, causal, bn",
    [
        (True, False, 1, 200, 64, True, 64),  # wgmma-tma-pp at the racecheck run's shapes
        (True, False, 1, 200, 128, False, 128),
        (True, True, 2, 200, 64, True, 64),  # wgmma-tma-pipe-pp; two heads (see above)
        (True, True, 1, 200, 128, False, 128),
        (True, False, 1, 333, 64, False, 64),  # more iterations: every stage refilled
        (True, True, 1, 290, 128, True, 64),
        (False, False, 1, 290, 128, True, 64),  # wgmma-tma, wgmma-tma-pipe
        (False, True, 1, 333, 64, False, 64),
    ],
)
def test_stages_hold_with_warps_apart(
    example, interpreter, monkeypatch, pingpong, pipe, heads, seq, dim, causal, bn
):
    monkeypatch.setattr(attention_tma, "TMA", True)
    monkeypatch.setattr(attention_tma, "PINGPONG", pingpong)
    monkeypatch.setattr(attention_wgmma, "PIPELINE", pipe)
    traces = run(
        monkeypatch, interpreter, example.attention, "attention", heads, seq, dim, causal, bn
    )
    assert any(e[0] == "tma" for t in traces.values() for w in t.values() for e in w)
    check(traces, 24)


def test_two_loops_with_warps_apart(example, interpreter, monkeypatch):
    monkeypatch.setattr(attention_tma, "TMA", True)
    monkeypatch.setattr(attention_tma, "PINGPONG", True)
    traces = run(monkeypatch, interpreter, attention_split, "attention_split", 1, 300, 64, True,
                 64)  # fmt: skip
    check(traces, 24)


@pytest.mark.parametrize(
    "pingpong, even, pipe, dim, causal",
    [
        (True, False, False, 64, False),  # the racecheck run on the H200: hazards reported
        (True, False, True, 128, True),  # pipelined: reported too
        (False, False, False, 64, False),  # none reported without the turns
        (False, False, True, 128, True),
        (True, True, False, 64, False),  # `EVEN_WAITS`: the counts even, none predicted
        (True, True, True, 128, True),
    ],
)
def test_racecheck_hazards_are_its_count_of_waits(
    example, interpreter, monkeypatch, pingpong, even, pipe, dim, causal
):
    """The epilogue's staging of the output (plain stores, a block barrier, plain loads) is
    ordered under every schedule `replay` tries, turns or not; but counted by barrier waits
    (`racecheck_model`), with the turns warpgroup 0 has waited once more than warpgroup 1 (its
    sync on barrier 1 after the loop, where warpgroup 1 only arrived), so its staging stores
    fall at the count of warpgroup 1's loads past the block barrier: exactly the pairs racecheck
    reported (stores of warpgroup 0's rows, loads by warpgroup 1's threads), and none without
    the turns, nor with `EVEN_WAITS` (warpgroup 1's lone sync after the loop). The uneven cases
    stage the output at once, as the racecheck run did (`OUTPUT_SLABS = 1`; in slabs the pairs
    fall elsewhere); the others at the default, 2 slabs."""
    monkeypatch.setattr(attention_tma, "TMA", True)
    monkeypatch.setattr(attention_tma, "PINGPONG", pingpong)
    monkeypatch.setattr(attention_tma, "EVEN_WAITS", even)
    monkeypatch.setattr(attention_wgmma, "PIPELINE", pipe)
    if pingpong and not even:
        monkeypatch.setattr(attention_wgmma, "OUTPUT_SLABS", 1)
    traces = run(monkeypatch, interpreter, example.attention, "attention", 1, 200, dim, causal,
                 64)  # fmt: skip
    check(traces, 6)
    for block in traces.values():
        assert any(e[0] == "ld" for events in block.values() for e in events)
        pairs = racecheck_model(block)
        if not pingpong or even:
            assert pairs == set()
            continue
        assert pairs
        assert all(w < 4 <= x and k == "ld" for w, x, k in pairs), sorted(pairs)


def test_the_replay_sees_a_broken_protocol(example, interpreter, monkeypatch):
    """The check is not vacuous: the records with warp 0's waits for free stages dropped, the
    `empty` barriers expecting 4 arrivals of the 8 warps, the `full` waits' parity flipped, or
    the block barrier between the epilogue's staging stores and loads dropped, each made from one
    recording of the kernel."""
    monkeypatch.setattr(attention_tma, "TMA", True)
    monkeypatch.setattr(attention_tma, "PINGPONG", True)
    traces = run(monkeypatch, interpreter, example.attention, "attention", 1, 333, 64, False, 64)
    for broken in ("no empty wait", "empty counts 4", "full parity", "no staging barrier"):
        edited = {}
        for key, block in traces.items():
            edited[key] = {}
            for w, events in block.items():
                out = []
                for i, e in enumerate(events):
                    after = events[i + 1][0] if i + 1 < len(events) else None
                    if broken == "no staging barrier" and e[0] == "bar" and after == "ld":
                        continue
                    if broken == "no empty wait" and e[0] == "wait" and e[1][0] == "empty":
                        continue
                    if broken == "empty counts 4" and e[0] == "init" and e[1][0] == "empty":
                        e = ("init", e[1], 4)
                    if broken == "full parity" and e[0] == "wait" and e[1][0] == "full":
                        e = ("wait", e[1], 1 - e[2])
                    out.append(e)
                edited[key][w] = out
        with pytest.raises(Race):
            check(edited, 24)
