"""Global slices (dialects/simt/memory.py): `simt.load`, `simt.len`, and `simt.get_mut` with its
`simt.yield`.

A witness is in bounds when its coordinates lie in its space and its raw index is below the
slice's length, and only then does a `get_mut` region run (for the lanes where it is); an
out-of-range `simt.load` traps. A second thread writing an element of a disjoint slice is a race
the launch caused (its grid does not fit the witness's space), reported as such.
"""

from __future__ import annotations

import numpy as np

from ferrox.dialects import simt
from ferrox.driver.interpreter.engine import region_return
from ferrox.driver.interpreter.memory import checked, claim, read, write
from ferrox.driver.interpreter.ops import lowers


def gather(ex, array: np.ndarray, lanes: np.ndarray, flat: np.ndarray, mask) -> np.ndarray:
    """Each lane's element (lanes outside `lanes` get a zero)."""
    if len(lanes) == ex.n:
        return read(array, flat)
    out = np.zeros(ex.n, array.dtype)
    out[lanes] = read(array, flat)
    return out


def gather_uniform(ex, op, buffer, index, mask, what):
    """A load whose index every lane shares: one read, a scalar result."""
    if np.ndim(index) == 0 and mask.any():
        i = int(index)
        if 0 <= i < buffer.length:
            return buffer.array[i]
    lanes, flat, error = checked(ex, op, buffer, [index], mask, what)
    if error is not None:
        raise error
    return gather(ex, buffer.array, lanes, flat, mask)


@lowers(simt.LoadOp)
def _load(op):
    return lambda ex, args, mask: (gather_uniform(ex, op, args[0], args[1], mask, "simt.load"),)


@lowers(simt.LenOp)
def _len(op):
    return lambda ex, args, mask: (np.int64(args[0].length),)


_WHY = ": the launch does not fit the witness's index space"


@lowers(simt.GetMutOp)
def _get_mut(op):
    body = op.body

    def run(ex, args, mask):
        buffer, witness = args
        raw = np.broadcast_to(witness.raw, (ex.n,)).view(np.uint64)
        inside = mask & witness.valid & (raw < np.uint64(buffer.length))
        every = inside.all()
        lanes = ex.all_lanes if every else np.flatnonzero(inside)
        if len(lanes) == 0:
            return ()  # Rust's `None`: the region does not run
        elems = (raw if every else raw[lanes]).view(np.int64)
        claim(ex, op, buffer, elems, lanes, _WHY)
        old = gather(ex, buffer.array, lanes, elems, inside)
        (new,) = ex.run_region(body, (old,), inside)
        new = np.broadcast_to(new, (ex.n,))
        write(buffer.array, elems, new if every else new[lanes])
        return ()

    return run


lowers(simt.YieldOp)(lambda op: region_return(op))
