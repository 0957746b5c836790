"""The tile GEMM pipeline's shared-memory ops (dialects/simt/shared.py): `simt.async_copy`,
`simt.async_commit`, `simt.async_wait` and the warp collective `simt.ldmatrix`.

An asynchronous copy is done at once here: the GPU may finish it any time up to the wait that
retires its group, and a kernel that reads the data only after that wait (and, from another
thread, a barrier) sees the same values either way; the copy's shared writes are recorded for
race detection when it is issued (a kernel that read the stage before waiting would race with
the copy on the GPU; here it reads the finished copy, which is the one thing this oracle cannot
tell apart). Commit and wait are then no-ops. The global side is checked as `simt.load_chunk`'s
(an element below the count out of range traps), and the shared offset must be a whole chunk
(16-byte aligned), as `cp.async` requires. `simt.unchecked_async_copy` is unchecked on the GPU,
but not here: a chunk out of range or a misaligned source address is a fault naming the op, as
for `simt.unchecked_load_chunk`.

`simt.ldmatrix` gathers each lane's row address from the warp, as PTX's `ldmatrix` does, and
reads the elements through the ordinary checked, race-tracked shared loads.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type

from ferrox.dialects import simt
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.simt_ops import tile_support as chunks
from ferrox.driver.interpreter.simt_ops.shared import load_steps, store_steps
from ferrox.driver.interpreter.simt_ops.tile_support import chunk_range
from ferrox.driver.interpreter.simt_ops.warp import collective


def _copy_into(ex, op, source, i, m, array, offset, w: int, mask) -> None:
    """Store each lane's `m` elements from `source[i ..]` (zeros past `m`) at `array[offset ..]`,
    a whole chunk (`offset` a multiple of `w`), recorded for race detection."""
    n = ex.n
    at = np.broadcast_to(np.asarray(offset).astype(np.int64), (n,))
    misaligned = mask & (at % w != 0)
    if misaligned.any():
        k = int(np.argmax(misaligned))
        raise ex.fault(
            op,
            misaligned,
            f"{op.name} to element {int(at[k])} of {array.name}: the shared offset must "
            f"be a multiple of {w} (16 bytes)",
        )
    dtype = array.array.dtype
    values = []
    for j in range(w):
        take = mask & (m > np.uint64(j))
        safe = np.where(take, i + np.uint64(j), 0).astype(np.int64)
        got = source.array[safe] if source.length else np.zeros(n, source.array.dtype)
        values.append(np.where(take, got, np.zeros((), dtype)).astype(dtype))
    idx = at + np.arange(w)[:, None]
    store_steps(ex, op, array, values, idx, mask, op.name)


@lowers(simt.AsyncCopyOp)
def _async_copy(op):
    w = op.width.value.data

    def run(ex, args, mask):
        source, index, count, array, offset = args
        i, m = chunk_range(ex, op, source, index, count, w, mask)
        _copy_into(ex, op, source, i, m, array, offset, w, mask)
        return ()

    return run


@lowers(simt.UncheckedAsyncCopyOp)
def _unchecked_async_copy(op):
    w = op.width.value.data

    def run(ex, args, mask):
        source, index, array, offset = args
        mask = np.broadcast_to(mask, (ex.n,))
        # through the module, so a test's spy on it counts these too
        i = chunks._unchecked_range(ex, op, source, index, w, mask).astype(np.uint64)
        _copy_into(ex, op, source, i, np.full(ex.n, w, np.uint64), array, offset, w, mask)
        return ()

    return run


@lowers(simt.AsyncCommitOp)
def _async_commit(op):
    return lambda ex, args, mask: ()


@lowers(simt.AsyncWaitOp)
def _async_wait(op):
    return lambda ex, args, mask: ()


def _bits16(values: np.ndarray, element) -> np.ndarray:
    """The 16-bit patterns of 16-bit float lanes (bf16 is held in float32, exactly)."""
    if isinstance(element, BFloat16Type):
        return (np.asarray(values, np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint32)
    if isinstance(element, Float16Type):
        return np.asarray(values, np.float16).view(np.uint16).astype(np.uint32)
    return np.asarray(values).astype(np.int64).astype(np.uint32) & np.uint32(0xFFFF)


@lowers(simt.LdMatrixOp)
def _ldmatrix(op):
    trans = op.trans is not None
    element = op.array.type.get_element_type()

    def run(ex, args, mask):
        array, offset = args

        def gather(tables, present, rows, cols):
            if not present[np.unique(rows)].all():
                raise ex.fault(op, mask, "'simt.ldmatrix' needs all 32 lanes of the warp")
            base = tables[0]
            g, q = cols >> 2, cols & 3
            out = []
            for r in range(4):
                for h in range(2):
                    if trans:  # element (2q + h, g) of matrix r: row 2q + h's address, column g
                        out.append(base[rows, 8 * r + 2 * q + h] + g)
                    else:  # element (g, 2q + h): row g's address, column 2q + h
                        out.append(base[rows, 8 * r + g] + 2 * q + h)
            return tuple(out)

        at = np.broadcast_to(np.asarray(offset).astype(np.int64), (ex.n,))
        misaligned = mask & (at % 8 != 0)
        if misaligned.any():
            k = int(np.argmax(misaligned))
            raise ex.fault(
                op,
                misaligned,
                f"simt.ldmatrix at element {int(at[k])} of {array.name}: a row must start at a "
                "multiple of 8 elements (16 bytes)",
            )
        where = collective(ex, op, mask, (at,), gather)
        # the eight loads in turn, as one tile read (`load_steps`: the same traps, races and
        # records; it loads step by step where an element is read in two steps)
        steps = np.stack([np.broadcast_to(idx, (ex.n,)) for idx in where])
        loaded = load_steps(ex, op, array, steps, mask, "simt.ldmatrix")
        halves = [_bits16(v, element) for v in loaded]
        return tuple(
            (halves[2 * r] | (halves[2 * r + 1] << np.uint32(16))).view(np.int32) for r in range(4)
        )

    return run


@lowers(simt.SharedLoadVectorOp)
def _shared_load_vector(op):
    w = op.width.value.data

    def run(ex, args, mask):
        array, offset = args
        at = np.broadcast_to(np.asarray(offset).astype(np.int64), (ex.n,))
        misaligned = mask & (at % w != 0)
        if misaligned.any():
            k = int(np.argmax(misaligned))
            raise ex.fault(
                op,
                misaligned,
                f"simt.shared_load_vector at element {int(at[k])} of {array.name}: the offset "
                f"must be a multiple of {w}",
            )
        # the w loads `at + j` in turn, as one tile read of w steps (`load_steps`: the same
        # traps, races and records; aligned, no element is read in two steps)
        steps = at[None, :] + np.arange(w, dtype=np.int64)[:, None]
        return tuple(load_steps(ex, op, array, steps, mask, "simt.shared_load_vector"))

    return run
