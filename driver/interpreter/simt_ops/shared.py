"""Shared arrays (dialects/simt/shared.py): one array per `simt.shared_alloc` per block, and
race detection on every element (`memory.track`).

The GPU does not check a shared index; here an out-of-range one traps (each index against its
own dimension), so the oracle never reads wild.
"""

from __future__ import annotations

import numpy as np

from ferrox.dialects import simt
from ferrox.driver.interpreter.memory import (
    checked,
    columns,
    deciding_lanes,
    lane_classes,
    shared_buffer,
    steps_disjoint,
    track,
)
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.simt_ops.memory import gather


def _name(value) -> str:
    return f"%{value.name_hint}" if value.name_hint else "the slice"


def element_shown(buffer):
    """How an element of `buffer` is named in a race report: its index in its block's array."""

    def show(flat: int):
        i = flat % buffer.length
        if len(buffer.shape) == 1:
            return str(i)
        return str(list(np.unravel_index(i, buffer.shape)))

    return show


@lowers(simt.SharedAllocOp)
def _shared_alloc(op):
    t = op.result.type
    name = _name(op.result)

    def run(ex, args, mask):
        buffer = ex.shared.get(id(op))
        if buffer is None:
            buffer = ex.shared[id(op)] = shared_buffer(
                t.element_type, tuple(t.get_shape()), name, ex.nblocks
            )
        return (buffer,)

    return run


def load(ex, op, buffer, indices, mask, what):
    lanes, flat, error = checked(ex, op, buffer, indices, mask, what)
    if error is not None:
        raise error
    track(ex, op, buffer, buffer.tracker(), flat, lanes, False, element_shown(buffer))
    return gather(ex, buffer.array, lanes, flat, mask)


def tile_lanes(ex, buffer, idx: np.ndarray, mask: np.ndarray):
    """(lanes, flat elements steps x lanes) of a tile read `idx` (steps x every lane) by the
    lanes of `mask`; the step of the first index out of range (or `len(idx)`)."""
    lanes = ex.all_lanes if mask.all() else np.flatnonzero(mask)
    sub = idx if len(lanes) == ex.n else columns(idx, lanes)
    stop = len(idx)
    if sub.size and (sub.min() < 0 or sub.max() >= buffer.length):
        stop = int(np.argmax(((sub < 0) | (sub >= buffer.length)).any(axis=1)))
    return lanes, sub[:stop] + buffer.base(ex, lanes), stop


def batched(buffer, flat: np.ndarray):
    """The lane classes (`memory.lane_classes`) of a tile read of `flat` (steps x lanes) when it
    may be tracked in one call (memory.py says when), else None."""
    classes = lane_classes(flat)
    disjoint = steps_disjoint(columns(flat, classes[0]), len(buffer.array))
    return classes if disjoint else None


def track_tile(ex, op, buffer, flat: np.ndarray, lanes: np.ndarray, classes) -> None:
    """Track the reads of `flat` (steps x lanes; `classes` from `batched`) as `load` would, step
    after step, through the lanes that decide it (memory.py says why that is the same)."""
    acc = buffer.tracker()
    # each lane a class of its own (one lane, as a replay runs): every lane decides
    keep = None if len(classes[0]) == len(lanes) else deciding_lanes(ex, acc, flat, lanes, classes)
    if keep is not None:
        flat, lanes = flat[:, keep], lanes[keep]
    track(ex, op, buffer, acc, flat, lanes, False, element_shown(buffer))


def load_steps(ex, op, buffer, idx: np.ndarray, mask: np.ndarray, what: str) -> np.ndarray:
    """`load(ex, op, buffer, [idx[s]], mask, what)` for each step `s` in turn, as one (steps,
    lanes) array: the same traps, races and race records, in one range check and one `track`."""
    lanes, flat, stop = tile_lanes(ex, buffer, idx, mask)
    classes = batched(buffer, flat)
    if not classes:
        return np.stack([load(ex, op, buffer, [row], mask, what) for row in idx])
    track_tile(ex, op, buffer, flat, lanes, classes)
    if stop < len(idx):
        error = checked(ex, op, buffer, [idx[stop]], mask, what)[2]
        assert error is not None
        raise error
    return tile_values(ex, buffer, flat, lanes)


def tile_values(ex, buffer, flat: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """The elements `flat` (steps x lanes) per step and lane of the group (zero off `lanes`)."""
    if len(lanes) == ex.n:
        return buffer.array[flat]
    out = np.zeros((len(flat), ex.n), buffer.array.dtype)
    out[:, lanes] = buffer.array[flat]
    return out


def store_steps(ex, op, buffer, values: list, idx: np.ndarray, mask: np.ndarray, what: str):
    """`store(ex, op, buffer, values[s], [idx[s]], mask, what)` for each step `s` of `idx`
    (steps x lanes) in turn, in one range check and one `track` where no element is written
    twice (then each step meets its elements as they were before the op, as a tile read does:
    memory.py); the values land after that `track`, so a race leaves none of the op's values in
    shared memory where the steps before it left theirs (nothing reads an aborted block's
    shared memory)."""
    lanes, flat, stop = tile_lanes(ex, buffer, idx, mask)
    if not steps_disjoint(flat.reshape(-1, 1), len(buffer.array)):
        for value, row in zip(values, idx):
            store(ex, op, buffer, value, [row], mask, what)
        return
    track(ex, op, buffer, buffer.tracker(), flat, lanes, True, element_shown(buffer))
    dtype = buffer.array.dtype
    for s in range(stop):
        buffer.array[flat[s]] = np.broadcast_to(np.asarray(values[s]).astype(dtype), (ex.n,))[lanes]
    if stop < len(idx):
        store(ex, op, buffer, values[stop], [idx[stop]], mask, what)  # the lanes before it, a trap


def store(ex, op, buffer, value, indices, mask, what):
    lanes, flat, error = checked(ex, op, buffer, indices, mask, what)
    track(ex, op, buffer, buffer.tracker(), flat, lanes, True, element_shown(buffer))
    buffer.array[flat] = np.broadcast_to(value, (ex.n,))[lanes]
    if error is not None:
        raise error


@lowers(simt.SharedLoadOp)
def _shared_load(op):
    return lambda ex, args, mask: (load(ex, op, args[0], args[1:], mask, "simt.shared_load"),)


@lowers(simt.SharedStoreOp)
def _shared_store(op):
    def run(ex, args, mask):
        store(ex, op, args[1], args[0], args[2:], mask, "simt.shared_store")
        return ()

    return run
