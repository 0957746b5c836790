"""The TMA and mbarrier ops (dialects/simt/tma.py).

A barrier's state (initialised, the arrivals a phase expects, those still pending, the bytes
still expected, the phase's parity) is kept per element of its shared array, for the block
group's run (`ex.shared`, as the arrays themselves). Ops run in program order over the lanes, so
a TMA load completes its bytes on the barrier when it is issued; its box lands in the tile when
a wait observes the completed phase, and until then the tile's elements are poison (undefined:
on the GPU a read there races with the copy), so a kernel that reads a tile before waiting reads
poison, which a NaN-poisoned output check sees. A wait on a phase that has not completed by then
is refused as a fault: on the GPU it would wait for an arrival or a copy that comes later in
program order, which this oracle cannot run ahead to; it never lets a thread through early.
Inside a `simt.specialize` region such a wait hands over to the other partition, which runs
until the phase has completed (`specialize.py`), and faults only when neither can go on.

An `if %p` operand runs the op on the lanes where `p` holds; a load's checks hold on every lane
that reaches it, as the lowering's traps do. The load's box is checked as the GPU's is: the tile
range (`offset + R C <= len`, the lowering's trap), and the tensor view (`rows * cols <=
len(x)`, or `planes * rows * cols` of a 3-D load, the runtime's refusal; here a fault). Elements
of the box outside the `rows` x `cols` tensor (or past its planes) read as zero. The tile is
written directly, not through the race-tracked stores: the
barrier wait, not a `simt.sync_threads`, orders those writes before the readers, and the race
tracker knows only the latter. What this
cannot see: a read before the wait of an integer tile whose poison is a plausible value, and the
swizzled tile's 1024-byte base alignment (a GPU trap in the lowering).
"""

from __future__ import annotations

import numpy as np

from ferrox.dialects.simt.specialize import partition
from ferrox.dialects.simt.tma import (
    TX_LIMIT,
    MbarrierArriveExpectTxOp,
    MbarrierArriveOp,
    MbarrierInitOp,
    MbarrierWaitOp,
    TmaLoadOp,
)
from ferrox.driver.interpreter.memory import checked
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.values import poison


class _Barrier:
    __slots__ = ("expected", "pending", "tx", "phase", "completed", "landing")

    def __init__(self, count: int):
        self.expected = count
        self.pending = count
        self.tx = 0
        self.phase = 0
        self.completed = 0  # phases completed so far (the running one's number)
        self.landing: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []

    def settle(self) -> None:
        """Complete the phase when nothing more is expected."""
        if self.pending == 0 and self.tx == 0:
            self.phase ^= 1
            self.completed += 1
            self.pending = self.expected

    def land(self) -> None:
        """Write the boxes of the completed phases into their tiles (a wait observed them)."""
        for phase, array, at, data in self.landing:
            if phase < self.completed:
                array[at] = data
        self.landing = [entry for entry in self.landing if entry[0] >= self.completed]


def _states(ex, buffer) -> dict[int, _Barrier]:
    return ex.shared.setdefault(("mbarrier", id(buffer)), {})


def _lanes(ex, op, buffer, index, mask, what):
    lanes, flat, error = checked(ex, op, buffer, [index], mask, what)
    if error is not None:
        raise error
    return lanes, flat


def _barrier(ex, op, buffer, flat: int, lane: int) -> _Barrier:
    state = _states(ex, buffer).get(flat)
    if state is None:
        one = np.zeros(ex.n, bool)
        one[lane] = True
        raise ex.fault(
            op, one, f"'{op.name}' on a barrier of {buffer.name} that was never initialised"
        )
    return state


def _one(ex, lane) -> np.ndarray:
    """The mask of lane `lane` alone (a fault's lane)."""
    one = np.zeros(ex.n, bool)
    one[lane] = True
    return one


def _values(ex, value, lanes) -> np.ndarray:
    return np.broadcast_to(np.asarray(value).astype(np.int64), (ex.n,))[lanes]


@lowers(MbarrierInitOp)
def _init(op):
    def run(ex, args, mask):
        buffer, index, count = args
        lanes, flat = _lanes(ex, op, buffer, index, mask, op.name)
        counts = _values(ex, count, lanes)
        for lane, at, c in zip(lanes, flat, counts):
            if not 1 <= c <= TX_LIMIT:
                one = np.zeros(ex.n, bool)
                one[lane] = True
                raise ex.fault(op, one, f"'{op.name}' count must be 1 to {TX_LIMIT}, got {int(c)}")
            _states(ex, buffer)[int(at)] = _Barrier(int(c))
        return ()

    return run


def _predicated(ex, op, args, mask, count: int):
    """The op's own operands and the lanes that run it (an optional `if %p` last)."""
    if len(args) > count:
        mask = mask & np.broadcast_to(np.asarray(args[count]).astype(bool), (ex.n,))
    return args[:count], mask


def _arrive(op, with_tx: bool):
    def run(ex, args, mask):
        args, mask = _predicated(ex, op, args, mask, 3 if with_tx else 2)
        buffer, index = args[0], args[1]
        lanes, flat = _lanes(ex, op, buffer, index, mask, op.name)
        nbytes = _values(ex, args[2], lanes) if with_tx else np.zeros(len(lanes), np.int64)
        for lane, at, b in zip(lanes, flat, nbytes):
            state = _barrier(ex, op, buffer, int(at), int(lane))
            state.tx += int(b)
            state.pending -= 1  # at least 1 pending: a completed phase restarts at its count
            state.settle()
        return ()

    return run


@lowers(MbarrierArriveExpectTxOp)
def _arrive_expect_tx(op):
    return _arrive(op, True)


@lowers(MbarrierArriveOp)
def _arrive_plain(op):
    return _arrive(op, False)


@lowers(MbarrierWaitOp)
def _wait(op):
    def run(ex, args, mask):
        buffer, index, parity = args
        lanes, flat = _lanes(ex, op, buffer, index, mask, op.name)
        # Python ints and lists: `ready` runs at every hand-over while the partitions wait
        parities = (_values(ex, parity, lanes) & 1).tolist()
        lanes, flat = lanes.tolist(), flat.tolist()
        states = [_barrier(ex, op, buffer, at, lane) for lane, at in zip(lanes, flat)]

        def ready() -> bool:
            return all(st.phase != p for st, p in zip(states, parities))

        if ex.partitions is not None and not ready():  # a `simt.specialize` region's coroutine
            why = "every partition of the block waits"
            waits = (lanes, flat, states, parities)
            ex.partitions.block(ready, lambda: _forever(ex, op, buffer, waits, why))
        elif ex.sync is not None and not ready() and partition(op) is not None:
            ex.sync.wait_phase(ex.thread, op, ready)  # replayed: another thread may provide
        fault = _forever(ex, op, buffer, (lanes, flat, states, parities), _NOTHING_BEFORE)
        if fault is not None:
            raise fault
        for state in dict.fromkeys(states):  # each barrier once (a second `land` writes nothing)
            state.land()
        return ()

    return run


_NOTHING_BEFORE = "nothing before it in program order provides them"


def _forever(ex, op, buffer, waits, why: str):
    """The fault of the first lane of `waits` (lanes, flat indices, barrier states, parities)
    whose phase has not completed (None if none): `why` nothing completes it."""
    for lane, at, state, p in zip(*waits):
        p = int(p)
        if state.phase != p:
            continue
        one = np.zeros(ex.n, bool)
        one[int(lane)] = True
        return ex.fault(
            op,
            one,
            f"'{op.name}' would wait forever: phase {p} of the barrier at "
            f"{buffer.name}[{int(at) % buffer.length}] still expects {state.pending} "
            f"arrivals and {state.tx} bytes, and {why}",
        )
    return None


@lowers(TmaLoadOp)
def _tma_load(op):
    box_rows, box_cols = op.box_shape
    swizzle = op.swizzle.value.data
    box = box_rows * box_cols
    nbytes = op.box_bytes
    chunk = 16 // (nbytes // box)  # elements of a 16-byte chunk
    r = np.repeat(np.arange(box_rows), box_cols)
    c = np.tile(np.arange(box_cols), box_rows)
    placed = box_cols * r + (c ^ (chunk * (r % 8)) if swizzle == 128 else c)

    three = op.plane is not None  # a 3-D tensor: its plane and planes follow source and col

    def run(ex, args, mask):
        args, issue = _predicated(ex, op, args, mask, 11 if three else 9)
        if three:
            source, p0, row, col, np_, rows, cols, tile, offset, barriers, bar_index = args
        else:
            source, row, col, rows, cols, tile, offset, barriers, bar_index = args
            p0, np_ = 0, 1
        lanes = np.flatnonzero(mask)  # checked on every lane that reaches it, predicated or not
        values = [_values(ex, v, lanes) for v in (row, col, rows, cols, offset, p0, np_)]
        # each lane's seven values as Python ints (`tolist`: one call, not seven NumPy scalars a
        # lane; every lane of the block reaches the op), the fault made only for a lane that fails
        for k, (r0, c0, nr, nc, off, q0, nq) in enumerate(zip(*(v.tolist() for v in values))):
            if nq * nr * nc > source.length or nr < 1 or nc < 1 or nq < 1:
                shape = f"{nq} x {nr} x {nc}" if three else f"{nr} x {nc}"
                raise ex.fault(
                    op,
                    _one(ex, lanes[k]),
                    f"'{op.name}': a {shape} tensor map reaches past the {source.length} "
                    f"elements of {source.name} (the runtime refuses such a launch)",
                )
            coordinates_ok = 0 <= r0 < 2**31 and 0 <= c0 < 2**31 and 0 <= q0 < 2**31
            if not (0 <= off and off + box <= tile.length) or not coordinates_ok:
                origin = f"({q0}, {r0}, {c0})" if three else f"({r0}, {c0})"
                raise ex.fault(
                    op,
                    _one(ex, lanes[k]),
                    f"'{op.name}' out of range: a box of {box} elements at {off} of "
                    f"{tile.name} (length {tile.length}), from {origin}",
                )
        _, bar_flat = _lanes(ex, op, barriers, bar_index, issue, op.name)
        for k, lane in enumerate(np.flatnonzero(issue)):
            at = int(np.searchsorted(lanes, lane))
            r0, c0, nr, nc, off, q0, nq = (int(v[at]) for v in values)
            gr, gc = r0 + r, c0 + c
            inside = (gr < nr) & (gc < nc) & (q0 < nq)
            got = source.array[np.where(inside, (q0 * nr + gr) * nc + gc, 0)]
            data = np.where(inside, got, np.zeros((), got.dtype))
            base = int(np.broadcast_to(tile.base(ex, np.array([lane])), (1,))[0])
            at = base + off + placed
            state = _barrier(ex, op, barriers, int(bar_flat[k]), int(lane))
            tile.array[at] = poison(tile.array.dtype)  # undefined until a wait sees it land
            state.landing.append((state.completed, tile.array, at, data.astype(tile.array.dtype)))
            state.tx -= nbytes
            state.settle()
        return ()

    return run
