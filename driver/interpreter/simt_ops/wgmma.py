"""The warpgroup tensor-core ops (dialects/simt/wgmma.py): `simt.wgmma` and its register-A form
`simt.wgmma_reg_a`, their fence, commit and wait, and `simt.wgmma_store`.

`simt.wgmma` completes at once here: each thread reads, as the ordinary checked and race-tracked
shared loads of each row and k step in turn would (one batch, `shared.load_steps`), the elements of
A's two rows and B's N/4 rows its own accumulator values need (A and B in the 128-byte swizzled
form the op names) and adds their products, exact and rounded once to f32 (an order the GPU may
take). A thread's result depends only on shared memory and its own accumulators, so no registers
cross lanes, except for `simt.wgmma_reg_a`, whose A rows each thread gathers from the four lanes
of its quad (the warp's registers, as `simt.mma_sync` gathers its A; B as above). The fence is
then a no-op, and the wait hands its values back; but each wgmma is
remembered with the elements it read until the wait that retires its group (commit closes a group;
a wait with pending = N retires all but the newest N), which reads them again: race-tracked, so a
write by another thread since the last barrier is reported as a data race (on the GPU the wgmma may
still be reading), and compared with the values read at the issue, so a change by any thread in
between traps.

What the GPU checks and this does too: every index in range (a trap), the starting row a
multiple of 8 and the starting column one of 0, 16, 32, 48, the same indices on all 128 threads
of a warpgroup, all of whom take part. What this cannot see: the accumulators' asynchrony (the GPU
writes them until the wait; the verifier's SIMT 8 rule is what keeps a kernel from touching them
meanwhile), a `cp.async` still in flight into a tile the wgmma reads
(here the copy has landed; on the GPU the kernel must have waited and synchronised first), a
missing fence, and the array base's 1024-byte alignment (a GPU trap in the lowering).
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import Float16Type

from ferrox.dialects import simt
from ferrox.dialects.simt.wgmma import SWIZZLE_ROW, SWIZZLE_ROWS, WARPGROUP, K
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.simt_ops.shared import (
    batched,
    load,
    load_steps,
    store_steps,
    tile_lanes,
    tile_values,
    track_tile,
)
from ferrox.driver.interpreter.simt_ops.tile_support import mma_a_fragment
from ferrox.driver.interpreter.simt_ops.warp import collective


def _lanes(ex):
    """Each lane's warpgroup lane (0..127) and its warpgroup's number in the group of blocks."""
    tpb = ex.launch.tpb
    return ex.linear % WARPGROUP, ex.block_local * (tpb // WARPGROUP) + ex.linear // WARPGROUP


def _check_warpgroup(ex, op, mask, values) -> None:
    """All 128 threads of each warpgroup that takes part are here, with the same `values`."""
    if ex.sync is not None:
        return  # replaying one thread at a time: the warpgroup is not in view
    _, group = _lanes(ex)
    groups = ex.nblocks * (ex.launch.tpb // WARPGROUP)
    here = np.bincount(group[mask], minlength=groups)
    if np.any((here != 0) & (here != WARPGROUP)):
        bad = mask & (here[group] != WARPGROUP)
        raise ex.fault(op, bad, f"'{op.name}' needs all {WARPGROUP} threads of the warpgroup")
    for v in values:
        v = np.broadcast_to(np.asarray(v).astype(np.int64), (ex.n,))
        low = np.full(groups, np.iinfo(np.int64).max)
        high = np.full(groups, np.iinfo(np.int64).min)
        np.minimum.at(low, group[mask], v[mask])
        np.maximum.at(high, group[mask], v[mask])
        if np.any(low[here > 0] != high[here > 0]):
            bad = mask & (low[group] != high[group])
            raise ex.fault(
                op,
                bad,
                f"'{op.name}' needs the same indices on every thread of the warpgroup",
            )


def _fragment(lane: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    w, g = lane // 32, lane % 32
    return 16 * w + g // 4 + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * (g % 4) + i % 2


def _start(ex, op, index, mask, bad_start, message) -> np.ndarray:
    """The tile's start per lane, trapping where `bad_start(start)` holds on an active lane
    (`message(start)` says why)."""
    at = np.broadcast_to(np.asarray(index).astype(np.int64), (ex.n,))
    bad = mask & bad_start(at)
    if bad.any():
        raise ex.fault(op, bad, message(int(at[int(np.argmax(bad))])))
    return at


def _gather(ex, op, buffer, mask, what, idx: np.ndarray, reads: list) -> np.ndarray:
    """The lanes' `(count, 16)` elements at flat `idx` (count x 16 x lanes), read as the checked,
    race-tracked shared loads of each `(j, kk)` in turn would (`shared.load_steps`); the read
    `(buffer, flat indices, values)` appended to `reads`."""
    count = idx.shape[0]
    steps = idx.reshape(count * K, ex.n)
    values = load_steps(ex, op, buffer, steps, mask, what)
    reads.append((buffer, steps, values))
    return np.asarray(values, np.float64).reshape(count, K, ex.n).transpose(2, 0, 1)


def _tile(ex, op, buffer, index, mask, name, rows: list[np.ndarray] | np.ndarray, reads: list):
    """The lanes' `(len(rows), 16)` elements of a swizzled tile starting at flat `index`: rows
    `r0 + rows[j]`, columns `c0 .. c0 + 16` of the logical matrix, read at their swizzled
    places; each read `(buffer, flat index, values)` appended to `reads`."""
    atom = SWIZZLE_ROW * SWIZZLE_ROWS
    at = _start(
        ex,
        op,
        index,
        mask,
        lambda at: ~np.isin(at % atom, np.arange(0, SWIZZLE_ROW, K)),
        lambda first: (
            f"'{op.name}' reads {name} from element {first} of {buffer.name}: a tile "
            f"starts at a row that is a multiple of {SWIZZLE_ROWS} and a column of 0, 16, 32 "
            f"or 48 (element % {atom} in 0, 16, 32, 48)"
        ),
    )
    r0, c0 = at // SWIZZLE_ROW, at % SWIZZLE_ROW
    r = (r0 + np.asarray(rows))[:, None, :]  # (row, kk, lane)
    kk = np.arange(K)[None, :, None]
    idx = r * SWIZZLE_ROW + ((c0 + kk) ^ ((r % SWIZZLE_ROWS) * 8))
    return _gather(ex, op, buffer, mask, f"{op.name} ({name})", idx, reads)


def _mn_tile(ex, op, buffer, index, mask, stride: int, cols: np.ndarray, reads: list):
    """The lanes' `(len(cols), 16)` elements of an MN-major B tile starting at flat `index`
    (docs of `simt.wgmma`): column `c` in block `c // 64` (`stride` elements apart), k-rows
    `r0 .. r0 + 16`, read at their swizzled places; each read appended to `reads`."""
    atom = SWIZZLE_ROW * SWIZZLE_ROWS
    at = _start(
        ex,
        op,
        index,
        mask,
        lambda at: at % atom != 0,
        lambda first: (
            f"'{op.name}' reads an MN-major B from element {first} of {buffer.name}: the "
            f"tile starts at a row that is a multiple of {SWIZZLE_ROWS} (element % {atom} == 0)"
        ),
    )
    col = np.asarray(cols)[:, None, :]  # (column, kk, lane)
    block, c = col // SWIZZLE_ROW, col % SWIZZLE_ROW
    kk = np.arange(K)[None, :, None]
    row = at // SWIZZLE_ROW + kk
    swizzled = ((c // 8) ^ (row % SWIZZLE_ROWS)) * 8 + c % 8
    idx = at + block * stride + kk * SWIZZLE_ROW + swizzled
    return _gather(ex, op, buffer, mask, f"{op.name} (B)", idx, reads)


def _product(ex, op, a_rows, b, bi, acc, mask, reads: list) -> tuple:
    """The rest of either form once the lanes' two A rows `a_rows` (lanes, 2, 16) are known:
    read B's N / 4 rows the thread's accumulators need (K-major or MN-major), remember the
    op's reads until its group retires, and add the products, exact and rounded once to f32."""
    n = op.n.value.data
    lane, _ = _lanes(ex)
    g = lane % 32
    j, h = np.arange(n // 8)[:, None, None], np.arange(2)[None, :, None]
    cols = (8 * j + 2 * (g % 4) + h).reshape(n // 4, -1)  # column 8 j + 2 (g % 4) + h, (j, h)
    stride = op.mn_stride
    if stride is None:
        b_rows = _tile(ex, op, b, bi, mask, "B", cols, reads)
    else:
        b_rows = _mn_tile(ex, op, b, bi, mask, stride, cols, reads)
    _in_flight(ex)["open"].append((op, mask, reads))
    prod = np.einsum("lrk,lck->lrc", a_rows, b_rows)  # (lanes, 2, n / 4)
    # accumulator i is row (i // 2) % 2, column 2 (i // 4) + i % 2 of the thread's products:
    # all n / 2 at once (one lane's executor, in a replay, would otherwise pay per accumulator)
    i = np.arange(n // 2)
    c_in = np.empty((n // 2, ex.n), np.float64)
    for at, value in enumerate(acc):
        c_in[at] = value
    d = (prod[:, (i // 2) % 2, 2 * (i // 4) + i % 2].T + c_in).astype(np.float32)
    return tuple(np.where(mask, d, np.float32(0)))


@lowers(simt.WgmmaOp)
def _wgmma(op):
    def run(ex, args, mask):
        a, b, ai, bi, *acc = args
        _check_warpgroup(ex, op, mask, [ai, bi])
        lane, _ = _lanes(ex)
        row0 = 16 * (lane // 32) + (lane % 32) // 4
        reads: list = []
        a_rows = _tile(ex, op, a, ai, mask, "A", [row0, row0 + 8], reads)
        return _product(ex, op, a_rows, b, bi, acc, mask, reads)

    return run


@lowers(simt.WgmmaRegAOp)
def _wgmma_reg_a(op):
    """A from the warpgroup's registers: warp `w` holds rows `16 w .. 16 w + 15` as an
    `mma.sync.m16n8k16` A, so each thread's two rows come from the four lanes of its quad
    (gathered as a warp collective gathers its lanes' values)."""
    f16 = isinstance(op.element, Float16Type)

    def run(ex, args, mask):
        regs, (b, bi), acc = args[:4], args[4:6], args[6:]
        _check_warpgroup(ex, op, mask, [bi])

        def rows(tables, present, warps, cols):
            if not present[np.unique(warps)].all():
                raise ex.fault(op, mask, "'simt.wgmma_reg_a' needs all 32 lanes of the warp")
            a = mma_a_fragment(tables, f16)  # (warps, 16, 16)
            g = cols >> 2
            return tuple(a[warps, g + 8 * h, k] for h in (0, 1) for k in range(K))

        got = collective(ex, op, mask, tuple(regs), rows)
        a_rows = np.stack([np.asarray(v, np.float64) for v in got], 1).reshape(-1, 2, K)
        return _product(ex, op, a_rows, b, bi, acc, mask, [])

    return run


@lowers(simt.WgmmaFenceOp)
def _fence(op):
    def run(ex, args, mask):
        _check_warpgroup(ex, op, mask, [])
        return ()

    return run


@lowers(simt.WgmmaCommitOp)
def _commit(op):
    def run(ex, args, mask):
        _check_warpgroup(ex, op, mask, [])
        state = _in_flight(ex)
        state["groups"].append(state["open"])
        state["open"] = []
        return ()

    return run


@lowers(simt.WgmmaWaitOp)
def _wait(op):
    pending = op.pending.value.data

    def run(ex, args, mask):
        _check_warpgroup(ex, op, mask, [])
        groups = _in_flight(ex)["groups"]
        keep = len(groups) - pending if pending else len(groups)
        retired, groups[:] = groups[: max(keep, 0)], groups[max(keep, 0) :]
        for group in retired:
            for record in group:
                _retire(ex, op, *record)
        return tuple(args)

    return run


def _in_flight(ex) -> dict:
    """The wgmma ops this executor's warpgroups have issued and not yet retired: the open group
    and the committed ones, oldest first (each wgmma with its mask and its reads)."""
    state = ex.cache.get(_IN_FLIGHT)
    if state is None:
        state = ex.cache[_IN_FLIGHT] = {"open": [], "groups": []}
    return state


_IN_FLIGHT = ("simt.wgmma", "in flight")


def _retire(ex, wait, op, mask, reads) -> None:
    """The GPU reads a wgmma's tiles any time up to the wait that retires its group: read them
    again now, race-tracked (a write by another thread since the last barrier is a race), and
    trap if any element changed since the issue (a write in between, by any thread, would have
    given the GPU other operands). Step by step as at the issue: the first step with a race or
    a change is reported, the race first within a step."""
    for buffer, steps, before in reads:
        lanes, flat, stop = tile_lanes(ex, buffer, steps, mask)
        assert stop == len(steps)  # the indices passed at the issue
        classes = batched(buffer, flat)
        if not classes:
            for s, row in enumerate(steps):
                now = load(ex, op, buffer, [row], mask, "simt.wgmma (in flight)")
                _unchanged(ex, wait, mask, buffer, steps[s:], before[s:], now[None])
            continue
        now = tile_values(ex, buffer, flat, lanes)
        changed = _changed(mask, before, now)
        first = int(np.argmax(changed.any(axis=1))) if changed.any() else len(steps) - 1
        track_tile(ex, op, buffer, flat[: first + 1], lanes, classes)
        _unchanged(ex, wait, mask, buffer, steps[first:], before[first:], now[first:])


def _changed(mask, before: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Where a lane of `mask` holds other bits than at the issue, per step (NaN poison compares
    equal to itself)."""
    bits = np.dtype(f"u{before.dtype.itemsize}")
    return mask & (before.view(bits) != now.view(bits))


def _unchanged(ex, wait, mask, buffer, steps, before, now) -> None:
    """Trap if an element of the first of `steps` changed since the issue (`now` holds the
    first steps' values now)."""
    changed = _changed(mask, before[0], now[0])
    if not changed.any():
        return
    at = int(steps[0][int(np.argmax(changed))])
    raise ex.fault(
        wait,
        changed,
        f"element {at} of {buffer.name}, which a 'simt.wgmma' reads, changed before "
        f"the 'simt.wgmma_wait' that retires its group: the GPU may read the tiles of "
        f"a wgmma until then (docs/safety.md#simt-8)",
    )


@lowers(simt.WgmmaStoreOp)
def _store(op):
    stride = op.stride.value.data

    def run(ex, args, mask):
        array, offset, *values = args
        at = np.broadcast_to(np.asarray(offset).astype(np.int64), (ex.n,))
        odd = mask & (at % 2 != 0)
        if odd.any():
            k = int(np.argmax(odd))
            raise ex.fault(
                op,
                odd,
                f"simt.wgmma_store at element {int(at[k])} of {array.name}: the offset must be "
                "even (8-byte pairs)",
            )
        lane, _ = _lanes(ex)
        places = (_fragment(lane, i) for i in range(len(values)))
        idx = np.stack([at + r * stride + c for r, c in places])
        store_steps(ex, op, array, values, idx, mask, "simt.wgmma_store")
        return ()

    return run
