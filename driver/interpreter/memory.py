"""Kernel memory: global buffers behind slice and pointer parameters, per-block shared arrays,
witnesses, and the bookkeeping that turns silent GPU races into errors.

Every access is range-checked by the op that makes it (a shared-slice load traps on the GPU
too; raw pointers and shared arrays are unchecked there, but the interpreter never reads wild).
Accesses are made for many lanes at once (`lanes`: positions in the executor's group, in launch
order); `checked` finds the first lane out of range, so that the lanes before it can still make
a store or an atomic before the trap, as they would have in order.

Race tracking (`Accesses`, `track`) keeps per element the last writer and up to two readers.
A tile read (a wgmma's operands: `steps` loads of every lane, one after another) is tracked
as ONE `track` call on its steps x lanes accesses, taken in order: step by step, lanes in order
inside each (`steps_disjoint` must hold, else the caller loads step by step). It finds and records
exactly what the step-by-step loads do, because when no element is read in two steps:
- a read changes only the reader rows (1 and 2) of its own elements and checks them against the
  writer row (0), which no read changes; so each step meets its elements in the state they had
  before the tile read, in one call as in its own;
- the first race found is the first access in that order whose element's writer is
  unordered with it: the first step with a race, its first lane, as step by step;
- within a step several lanes may read one element; they keep their order in the flattened
  accesses, so the same lane is recorded last (NumPy's assignment through repeated indices stores
  the last value in both cases), and the row-2 choice reads row 1 after this call's row-1
  records, which for an element are its own step's only;
- a range trap at step s is raised after steps before s are tracked (`load_steps` tracks those
  and then raises the trap the step-by-step check gives), so a race in an earlier step still
  comes first.
Most of a tile read's lanes need not be tracked at all (`deciding_lanes`): lanes whose
accesses read the same element at every step form a class, and without warp ordering (no warp
collective yet) an access of element e is unordered with a recorded access of e exactly when
that record is in e's block's barrier interval (P) and by another thread. So the lanes of a
class that are none of e's recorded threads with P (the plain ones) find and do the same:
- race: if P for the writer, every plain lane races; the first racing access is a kept lane's
  (the recorded threads' lanes are kept) or the class's first plain lane's;
- row 1: a lane takes it when not P or it is the recorded reader: plain lanes all or none, so
  the last taker is a kept lane or the class's last plain lane;
- row 2: with P for row 1 the taker is the recorded reader's lane, so plain lanes never equal
  row 1's new thread, and take row 2 all or none as for row 1: the last is kept as well.
Tracking the class's recorded threads' lanes and its first and last plain lane (every step,
in order) therefore finds and records the same; each element a class reads keeps a lane.
Writes (stores go through `track` one op at a time) are unchanged, so a write after such a read
conflicts with the same recorded readers. TMA boxes land untracked (simt_ops/tma.py says why);
one landing in a tile a wgmma still reads is a changed value at the retiring wait
(simt_ops/wgmma.py), found there step by step as before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Attribute

from ferrox.driver.interpreter.errors import KernelRace
from ferrox.driver.interpreter.values import (
    INDEX_WIDTH,
    as_storage,
    poison,
    storage_dtype,
    unsigned,
)


class Buffer:
    """A flat run of global elements: a slice's or a raw pointer's array."""

    __slots__ = ("array", "length", "name", "element", "owner", "shape", "race", "atomics")

    def __init__(
        self, array: np.ndarray, element: Attribute, name: str, shape: tuple[int, ...] | None = None
    ):
        flat = as_storage(array, element)
        self.array = flat
        self.length = flat.shape[0]
        self.element = element
        self.name = name
        self.shape = shape if shape is not None else (self.length,)
        self.owner: np.ndarray | None = None  # disjoint slices: the global thread that wrote it
        self.race: Accesses | None = None  # raw pointers: readers and writers per element
        self.atomics: Any = None  # global atomics: which blocks used each element, and how

    def __repr__(self) -> str:
        return f"<buffer {self.name}: {self.length} x {self.element}>"

    def base(self, ex: Any, lanes: np.ndarray) -> Any:
        return 0

    def tracker(self) -> Accesses:
        if self.race is None:
            self.race = Accesses(self.length)
        return self.race


class SharedBuffer(Buffer):
    """One `simt.shared_alloc` for every block of a group: block b's array is `size` elements
    from `b * size`. GPU shared memory starts undefined, so it is filled with poison."""

    __slots__ = ("size",)

    def __init__(self, element: Attribute, shape: tuple[int, ...], name: str, nblocks: int):
        dtype = storage_dtype(element)
        size = 1
        for d in shape:
            size *= d
        super().__init__(np.full(size * nblocks, poison(dtype), dtype=dtype), element, name, shape)
        self.size = size
        self.length = size
        self.race = Accesses(size * nblocks)

    def base(self, ex: Any, lanes: np.ndarray) -> Any:
        if self.size == 1 or ex.nblocks == 1:
            return 0 if ex.nblocks == 1 else ex.block_local[lanes]
        every = ex.lane_values(("base", self.size), lambda: ex.block_local * self.size)
        return every if len(lanes) == ex.n else every[lanes]


def shared_buffer(element: Attribute, shape: tuple[int, ...], name: str, nblocks: int = 1):
    return SharedBuffer(element, shape, name, nblocks)


class Witness:
    """Thread-index witnesses of the lanes: raw index and whether each thread's coordinates lie
    inside the index space (`col < stride`, first lane of a warp). A lane's witness is in bounds
    of a slice of length `n` when `valid and raw < n`."""

    __slots__ = ("raw", "valid")

    def __init__(self, raw: Any, valid: Any):
        self.raw = raw
        self.valid = valid

    def __repr__(self) -> str:
        return f"<witness {self.raw} valid {self.valid}>"


def span(flat: np.ndarray) -> slice | None:
    """`flat` as a slice when it is a run of consecutive elements (the common case of a
    thread-indexed access by a whole group), so that it is read and written without gathers."""
    n = len(flat)
    if n == 0 or int(flat[-1]) - int(flat[0]) != n - 1:
        return None
    if n > 1 and not (flat[1:] - flat[:-1] == 1).all():
        return None
    return slice(int(flat[0]), int(flat[0]) + n)


def read(array: np.ndarray, flat: np.ndarray) -> np.ndarray:
    where = span(flat)
    return array[where].copy() if where is not None else array[flat]


def write(array: np.ndarray, flat: np.ndarray, values: np.ndarray) -> None:
    where = span(flat)
    array[where if where is not None else flat] = values


def _shown(index: Any) -> int:
    return unsigned(int(index), INDEX_WIDTH)


def _per_lane(index: Any, n: int) -> np.ndarray:
    """`index` as one int64 per lane (already so: as it is)."""
    if type(index) is np.ndarray and index.dtype == np.int64 and index.shape == (n,):
        return index
    return np.broadcast_to(index, (n,)).astype(np.int64, copy=False)


def checked(
    ex: Any, op: Any, buffer: Buffer, indices: list, mask: np.ndarray, what: str
) -> tuple[np.ndarray, np.ndarray, Exception | None]:
    """(lanes, flat element per lane, trap or None): the active lanes, each index checked
    against its dimension; where some lane is out of range, only the lanes before the first
    such lane are returned, with the trap to raise once they have made their access."""
    n = ex.n
    if mask.all():
        lanes = ex.all_lanes
        idx = [_per_lane(i, n) for i in indices]
    else:
        lanes = np.flatnonzero(mask)
        idx = [np.broadcast_to(i, (n,))[lanes].astype(np.int64, copy=False) for i in indices]
    if len(idx) == 1:
        flat = idx[0]
        # the common case, every lane in range, with two reductions and no temporaries
        if len(flat) == 0 or (flat.min() >= 0 and flat.max() < buffer.length):
            return lanes, flat + buffer.base(ex, lanes), None
        bad = (flat < 0) | (flat >= buffer.length)
    else:
        bad = np.zeros(len(lanes), bool)
        flat = np.zeros(len(lanes), np.int64)
        for i, d in zip(idx, buffer.shape):
            bad |= (i < 0) | (i >= d)
            flat = flat * d + i
    error = None
    if bad.any():
        k = int(np.argmax(bad))
        if len(idx) == 1:
            message = (
                f"{what} out of range: index {_shown(idx[0][k])} of {buffer.name} "
                f"(length {buffer.length})"
            )
        else:
            shown = [_shown(i[k]) for i in idx]
            message = (
                f"{what} out of range: index {shown} of {buffer.name} (shape {list(buffer.shape)})"
            )
        one = np.zeros(n, bool)
        one[lanes[k]] = True
        error = ex.fault(op, one, message)
        lanes, flat = lanes[:k], flat[:k]
    return lanes, flat + buffer.base(ex, lanes), error


def steps_disjoint(flat: np.ndarray, size: int) -> bool:
    """Whether no element of `flat` (steps x lanes, each below `size`) is in two steps."""
    if len(flat) < 2:
        return True
    step = np.arange(len(flat), dtype=np.int32)[:, None]
    stamp = np.empty(size, np.int32)
    stamp[flat] = np.broadcast_to(step, flat.shape)
    return bool((stamp[flat] == step).all())


def columns(a: np.ndarray, at: np.ndarray) -> np.ndarray:
    """`a[:, at]`, gathered the fast way for `a`'s layout: NumPy's `take` along axis 1 copies a
    row-major array row by row but walks a column-major one element by element, where indexing
    copies whole columns (a tile read's steps x lanes come in either: for 1024 x 1024, 0.8 ms by
    `take` and 8 ms by indexing row-major; 11 and 0.4 ms column-major)."""
    if a.flags.f_contiguous and not a.flags.c_contiguous:
        return a[:, at]
    return a.take(at, axis=1)


def lane_classes(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(each class's first lane, each lane's class) of the lanes of `flat` (steps x lanes) that
    read the same element at every step; every lane its own class where lanes alike in the first
    step differ later."""
    width = flat.shape[1]
    alone = np.arange(width), np.arange(width)
    if len(flat) == 0:
        return alone
    _, first, cls = np.unique(flat[0], return_index=True, return_inverse=True)
    cls = cls.reshape(-1)
    if not (flat == columns(flat, first[cls])).all():
        return alone
    return first, cls


def deciding_lanes(ex: Any, acc: Accesses, flat: np.ndarray, lanes: np.ndarray, classes):
    """Positions in `lanes` of the lanes whose reads of `flat` (steps x lanes, in `classes`)
    decide what `track` finds and records (the module's docstring says why the others add
    nothing), or None where every lane may (warp ordering)."""
    if ex.warp_epochs.any():
        return None
    first, cls = classes
    cols = columns(flat, first)  # (steps, classes): each class's elements
    _, interval = ex.lane_values(("interval", ex.barriers), lambda: _intervals(ex))
    mine = interval[lanes[first]]  # each class's barrier interval (one block's)
    live = (acc.thread[:, cols] >= 0) & (acc.interval[:, cols] == mine)
    span_ = int(ex.launch.tpb * np.prod(ex.launch.grid)) + 1
    recorded = np.broadcast_to(np.arange(len(first)), cols.shape) * span_ + acc.thread[:, cols]
    keep = np.isin(cls * span_ + ex.gids[lanes], recorded[live])
    plain = np.flatnonzero(~keep)
    _, head = np.unique(cls[plain], return_index=True)
    _, tail = np.unique(cls[plain][::-1], return_index=True)
    keep[plain[head]] = True
    keep[plain[len(plain) - 1 - tail]] = True
    return np.flatnonzero(keep)


def claim(ex: Any, op: Any, buffer: Buffer, elems: np.ndarray, lanes: np.ndarray, why: str) -> None:
    """Disjoint-slice ownership: each element written by one thread only over the launch."""
    owner = buffer.owner
    assert owner is not None
    g = ex.gids if len(lanes) == ex.n else ex.gids[lanes]
    where = span(elems)
    if where is not None:  # consecutive elements: no two alike, and slices instead of gathers
        previous = owner[where]
        if ((previous >= 0) & (previous != g)).any():
            where = None  # the slow path below finds and reports the clash
        else:
            owner[where] = g
            return
    previous = owner[elems]
    clash = (previous >= 0) & (previous != g)
    before = previous.copy()
    if len(elems) > 1 and not (elems[1:] > elems[:-1]).all():  # increasing: no two alike
        order = np.argsort(elems, kind="stable")
        same = elems[order[1:]] == elems[order[:-1]]
        if same.any():
            later, earlier = order[1:][same], order[:-1][same]
            clash[later] = True
            before[later] = g[earlier]
    if clash.any():
        k = int(np.argmax(clash))
        one = np.zeros(ex.n, bool)
        one[lanes[k]] = True
        raise ex.fault(
            op,
            one,
            f"element {int(elems[k])} of {buffer.name} is written by two threads (global thread "
            f"{int(before[k])} before this one){why}",
            KernelRace,
        )
    owner[elems] = g


class Accesses:
    """Per element, the last writer and up to two readers, each with the barrier interval of
    its block and the warp-collective interval of its warp at the time. Two accesses of one
    element by different threads conflict (write-write, read-write) when nothing orders them: the
    same block's same barrier interval, not separated by a collective of their common warp, or
    two blocks of one launch. Atomics take no part."""

    __slots__ = ("thread", "op", "interval", "warp_epoch")

    def __init__(self, n: int):
        # rows: 0 the writer, 1 and 2 two distinct readers
        self.thread = np.full((3, n), -1, np.int64)
        self.op = np.zeros((3, n), np.int32)
        self.interval = np.zeros((3, n), np.int64)  # block << 24 | its barrier count
        self.warp_epoch = np.zeros((3, n), np.int32)


class _Lanes:
    """The accessing lanes' facts, computed once per access."""

    __slots__ = ("g", "blk", "interval", "warp", "we", "tpb", "wpb", "cross_block", "warps")

    def __init__(self, ex: Any, lanes: np.ndarray, cross_block: bool):
        launch = ex.launch
        every = len(lanes) == ex.n
        self.tpb, self.wpb = launch.tpb, launch.wpb
        self.g = ex.gids if every else ex.gids[lanes]
        blk, interval = ex.lane_values(("interval", ex.barriers), lambda: _intervals(ex))
        self.blk = blk if every else blk[lanes]
        self.interval = interval if every else interval[lanes]
        self.cross_block = cross_block  # global memory: another block is never ordered
        self.warps = bool(ex.warp_epochs.any())  # no collective yet: no warp ordering to see
        if self.warps:
            warp_local = ex.warp_local if every else ex.warp_local[lanes]
            self.warp = self.blk * self.wpb + ((self.g % self.tpb) >> 5)
            self.we = ex.warp_epochs[warp_local]


def _intervals(ex: Any) -> tuple[np.ndarray, np.ndarray]:
    """Every lane's block and barrier interval (`block << 24 | barriers passed`)."""
    blk = ex.block_local + ex.first_block
    return blk, (blk << 24) | ex.epochs[ex.block_local]


def _live(acc: Accesses, row: int, at: Any, lanes: _Lanes):
    """Whether the recorded access of `row` at elements `at` is unordered with the lanes'."""
    t = acc.thread[row][at]  # a row's view: a 1-D gather, cheaper than acc.thread[row, at]
    unordered = acc.interval[row][at] == lanes.interval
    if not lanes.cross_block and not unordered.any():  # all in earlier barrier intervals
        return unordered, t
    tpb = lanes.tpb
    if lanes.warps:
        # the recorded thread's warp, block * warps a block + its warp in the block: where a
        # block is whole warps that is t >> 5 (also for t = -1, no record: -1 either way)
        rwarp = t >> 5 if tpb % 32 == 0 else (t // tpb) * lanes.wpb + ((t % tpb) >> 5)
        unordered &= ~((rwarp == lanes.warp) & (acc.warp_epoch[row][at] != lanes.we))
    if lanes.cross_block:
        # the recorded thread's block (a shift where the block is a power of two threads)
        rblk = t >> (tpb.bit_length() - 1) if tpb & (tpb - 1) == 0 else t // tpb
        unordered |= rblk != lanes.blk
    return (t >= 0) & (t != lanes.g) & unordered, t


def track(
    ex: Any,
    op: Any,
    buffer: Buffer,
    acc: Accesses,
    elems: np.ndarray,
    lanes: np.ndarray,
    write: bool,
    show,
) -> None:
    """Record the lanes' accesses of `elems` (one per lane; for reads also steps x lanes, each
    step in turn: the module's docstring says when that is exact); raise the first data race
    among them. Access `k` of the flattened `elems` is lane `lanes[k % len(lanes)]`'s."""
    if len(lanes) == 0 or elems.size == 0:
        return
    launch = ex.launch
    info = _Lanes(ex, lanes, not isinstance(buffer, SharedBuffer))
    width = len(lanes)
    where = span(elems) if elems.ndim == 1 else None
    at = where if where is not None else elems
    flat = elems.reshape(-1)
    me = launch.op_number(op)
    found = None
    for row in (0, 1, 2) if write else (0,):
        live, t = _live(acc, row, at, info)
        if live.any():
            k = int(np.argmax(live))
            if found is None or k < found[0]:
                found = (k, int(t.reshape(-1)[k]), launch.ops[int(acc.op[row, flat[k]])], row == 0)
    if write and where is None and elems.ndim == 1 and len(elems) > 1:
        order = np.argsort(elems, kind="stable")
        same = elems[order[1:]] == elems[order[:-1]]
        if same.any():
            later, earlier = order[1:][same], order[:-1][same]
            k = int(later.min())
            j = int(earlier[np.argmin(later)])
            if found is None or k < found[0]:
                found = (k, int(info.g[j]), op, True)
    if found is not None:
        k, other, other_op, other_wrote = found
        lane = lanes[k % width]
        _race(ex, op, buffer, flat[k], lane, write, other, other_op, other_wrote, show)
    if write:
        acc.thread[0][at] = info.g
        acc.op[0][at] = me
        acc.interval[0][at] = info.interval
        if info.warps:
            acc.warp_epoch[0][at] = info.we
        return
    # readers: the first row free (or this thread's own) takes the lane; a second distinct
    # reader goes to row 2; more add nothing (any writer conflicts with one of the two)
    live, t = _live(acc, 1, at, info)
    take = ~live | (t == info.g)
    if take.all():
        _record(acc, 1, at, info, me, slice(None))
        return
    _record(acc, 1, elems[take], info, me, take)
    rest = ~take
    sub = elems[rest]
    part = _subset(info, rest)
    live2, t2 = _live(acc, 2, sub, part)
    take2 = ~live2 | (t2 == part.g)
    take2 &= acc.thread[1][sub] != part.g
    keep = np.flatnonzero(rest)[take2]
    _record(acc, 2, flat[keep], info, me, keep % width)


def _pick(values: np.ndarray, sel: Any) -> np.ndarray:
    """The lanes' `values` at `sel`: lane positions, or a mask over the accesses (lanes, or
    steps x lanes)."""
    if isinstance(sel, np.ndarray) and sel.ndim == 2:
        return np.broadcast_to(values, sel.shape)[sel]
    return values[sel]


def _subset(info: _Lanes, sel: Any) -> _Lanes:
    part = object.__new__(_Lanes)
    part.tpb, part.wpb, part.cross_block, part.warps = (
        info.tpb,
        info.wpb,
        info.cross_block,
        info.warps,
    )
    part.g, part.blk, part.interval = (_pick(a, sel) for a in (info.g, info.blk, info.interval))
    if info.warps:
        part.warp, part.we = _pick(info.warp, sel), _pick(info.we, sel)
    return part


def _record(acc: Accesses, row: int, at: Any, info: _Lanes, me: int, sel: Any) -> None:
    acc.thread[row][at] = _pick(info.g, sel)
    acc.op[row][at] = me
    acc.interval[row][at] = _pick(info.interval, sel)
    if info.warps:
        acc.warp_epoch[row][at] = _pick(info.we, sel)


def _race(ex, op, buffer, elem, lane, write, other, other_op, other_wrote, show) -> None:
    launch = ex.launch
    me_gid = int(ex.gids[lane])
    my_block, my_thread = launch.coords(me_gid)
    other_block, other_thread = launch.coords(other)
    element = f"element {show(int(elem))} of {buffer.name}"
    verb = "writes" if write else "reads"
    other_verb = "wrote" if other_wrote else "read"
    from ferrox.diagnostics import location_of

    if other_block == my_block:
        who = f"thread {other_thread}"
        between = "in the same barrier interval (no simt.sync_threads between them)"
    else:
        who = f"thread {other_thread} of block {other_block}"
        between = "in another block (nothing orders two blocks' accesses within a launch)"
    where = "in this op" if other_op is op else f"at {location_of(other_op)}"
    message = (
        f"data race on {element}: thread {my_thread} {verb} it here, and {who} {other_verb} it "
        f"{where} {between}"
    )
    note = f"thread {other_thread} of block {other_block} {other_verb} {element} here"
    one = np.zeros(ex.n, bool)
    one[lane] = True
    raise ex.fault(op, one, message, KernelRace, [(other_op, note)])


class AtomicScopes:
    """Which blocks used each global element atomically, and which of them only at `scope cta`
    (atomic only within the block): a second block on the same element is a race. Blocks run
    in order, so the first user is the smallest."""

    __slots__ = ("first", "first_cta")

    def __init__(self, n: int):
        self.first = np.full(n, -1, np.int64)
        self.first_cta = np.full(n, -1, np.int64)

    def record(self, elems: np.ndarray, blocks: np.ndarray, cta: bool) -> tuple[int, int] | None:
        """Note the accesses (in lane order); (lane position, other block) of the first race."""
        first = self.first[elems]
        first = np.where(first < 0, blocks, first)
        if cta:
            clash = first != blocks
            other = first
        else:
            narrow = self.first_cta[elems]
            clash = (narrow >= 0) & (narrow != blocks)
            other = narrow
        # within this op, an earlier lane of another block on the same element
        order = np.lexsort((np.arange(len(elems)), elems))
        se = elems[order]
        start = np.r_[True, se[1:] != se[:-1]]
        head = np.maximum.accumulate(np.where(start, np.arange(len(se)), 0))
        first_in_op = blocks[order][head]
        inner = np.empty_like(clash)
        inner[order] = first_in_op != blocks[order]
        prev_first = np.empty_like(first)
        prev_first[order] = np.minimum(first[order], first_in_op)
        if cta:
            clash |= inner
            other = np.where(inner, prev_first, other)
        self.first[elems] = np.where(self.first[elems] < 0, blocks, self.first[elems])
        if cta:
            cur = self.first_cta[elems]
            self.first_cta[elems] = np.where(cur < 0, blocks, cur)
        if clash.any():
            k = int(np.argmax(clash))
            return k, int(other[k])
        return None
