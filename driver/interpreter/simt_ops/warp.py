"""Warp collectives (dialects/simt/warp.py), as permutations and reductions within each warp.

Shuffles follow PTX's `shfl.sync` exactly (mask 0xffffffff, one 32-lane segment, clamp 31 or 0
for `up`, as `convert-simt-to-nvvm` emits): only the offset's low five bits count, and a lane
whose source falls outside the warp gets its own value. So `down 33` reads lane + 1 on the GPU
and here; the dialect page's "out of 0..31" describes offsets below 32. A lane that has exited,
or does not exist in a partial last warp, contributes nothing: reading its value gives poison,
and votes and ballots count only the lanes present.

Each collective is defined once on a table of warps x 32 lanes (`present` marks who takes
part): the engine fills it from its lanes, and a replay thread by thread from what the lanes
handed to the cooperative scheduler (`exchange`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ferrox.dialects import simt
from ferrox.dialects.simt import ShuffleMode
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.values import poison, storage_dtype


def source_lanes(mode: ShuffleMode, lane: np.ndarray, offset: Any) -> np.ndarray:
    """PTX shfl.sync's source lane j per lane, or the lane itself where j is out of range."""
    b = np.asarray(offset).astype(np.int64) & 31
    if mode == ShuffleMode.UP:
        j = lane - b
        return np.where(j >= 0, j, lane)
    if mode == ShuffleMode.DOWN:
        j = lane + b
        return np.where(j <= 31, j, lane)
    if mode == ShuffleMode.XOR:
        return lane ^ b
    return np.broadcast_to(b, np.shape(lane))


def collective(ex, op, mask, payload: tuple, compute) -> tuple:
    """Run `compute(tables, present, rows, cols)` on the warps of the active lanes; each payload
    value lands in a (warps, 32) table. Returns per-lane results (arrays of the group)."""
    if ex.sync is not None:  # replaying one lane per thread: the scheduler gathers the warp
        lanes_payloads = ex.sync.exchange(
            ex.thread, op, tuple(np.asarray(p).reshape(-1)[0] for p in payload)
        )
        ex.warp_epochs += 1
        present = np.array([[p is not None for p in lanes_payloads]])
        tables = []
        for k, p in enumerate(payload):
            dtype = np.asarray(p).dtype
            row = [lp[k] if lp is not None else np.zeros((), dtype)[()] for lp in lanes_payloads]
            tables.append(np.array([row], dtype=dtype))
        col = np.array([int(ex.linear[0]) & 31])
        out = compute(tables, present, np.zeros(1, np.int64), col)
        return tuple(np.asarray(v).reshape(1) for v in out)
    ex.warp_check(mask)
    lanes = np.flatnonzero(mask)
    nw = ex.nblocks * ex.launch.wpb
    rows, cols = ex.warp_local[lanes], ex.linear[lanes] & 31
    present = np.zeros((nw, 32), bool)
    present[rows, cols] = True
    tables = []
    for p in payload:
        p = np.broadcast_to(p, (ex.n,))
        t = np.zeros((nw, 32), p.dtype)
        t[rows, cols] = p[lanes]
        tables.append(t)
    out = compute(tables, present, rows, cols)
    results = []
    for v in out:
        full = np.zeros(ex.n, v.dtype)
        full[lanes] = v
        results.append(full)
    return tuple(results)


@lowers(simt.ShuffleOp)
def _shuffle(op):
    mode = op.mode.data
    bad = poison(storage_dtype(op.results[0].type))

    def compute(tables, present, rows, cols):
        values, offsets = tables
        src = source_lanes(mode, cols, offsets[rows, cols])
        got = values[rows, src]
        return (np.where(present[rows, src], got, bad).astype(values.dtype),)

    return lambda ex, args, mask: collective(ex, op, mask, (args[0], args[1]), compute)


def _counts(tables, present, rows):
    (pred,) = tables
    votes = (pred.astype(bool) & present).sum(axis=1)
    return votes[rows], present.sum(axis=1)[rows]


@lowers(simt.VoteAllOp)
def _vote_all(op):
    def compute(tables, present, rows, cols):
        votes, lanes = _counts(tables, present, rows)
        return (votes == lanes,)

    return lambda ex, args, mask: collective(ex, op, mask, (np.asarray(args[0], bool),), compute)


@lowers(simt.VoteAnyOp)
def _vote_any(op):
    def compute(tables, present, rows, cols):
        votes, _ = _counts(tables, present, rows)
        return (votes > 0,)

    return lambda ex, args, mask: collective(ex, op, mask, (np.asarray(args[0], bool),), compute)


@lowers(simt.BallotOp)
def _ballot(op):
    bits = np.uint64(1) << np.arange(32, dtype=np.uint64)

    def compute(tables, present, rows, cols):
        (pred,) = tables
        word = ((pred.astype(bool) & present).astype(np.uint64) * bits).sum(axis=1)
        return (word.astype(np.uint32).view(np.int32)[rows],)

    return lambda ex, args, mask: collective(ex, op, mask, (np.asarray(args[0], bool),), compute)
