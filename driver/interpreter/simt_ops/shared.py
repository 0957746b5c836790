"""Shared arrays (dialects/simt/shared.py): one array per `simt.shared_alloc` per block, and
race detection on every element (`memory.track`).

The GPU does not check a shared index; here an out-of-range one traps (each index against its
own dimension), so the oracle never reads wild.
"""

from __future__ import annotations

import numpy as np

from ferrox.dialects import simt
from ferrox.driver.interpreter.memory import checked, shared_buffer, track
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
