"""Witnesses (dialects/simt/index.py): each thread's index in its space, and whether it is in
that space at all (a 2-D witness past the row's width, or past 2^64, is not)."""

from __future__ import annotations

import numpy as np

from ferrox.dialects import simt
from ferrox.driver.interpreter.memory import Witness
from ferrox.driver.interpreter.ops import lowers
from ferrox.driver.interpreter.simt_ops.ids import block_ids, thread_ids

_MAX = np.uint64(2**64 - 1)


def global_x(ex) -> np.ndarray:
    return ex.lane_values("gx", lambda: block_ids(ex)[0] * ex.launch.block[0] + thread_ids(ex)[0])


def _two_d(ex, width) -> Witness:
    block = ex.launch.block
    col = global_x(ex).astype(np.uint64)
    row = (block_ids(ex)[1] * block[1] + thread_ids(ex)[1]).astype(np.uint64)
    width = (
        np.asarray(width).astype(np.int64).view(np.uint64)
        if np.ndim(width)
        else np.uint64(int(width) & (2**64 - 1))
    )
    with np.errstate(all="ignore"):
        # The lowering computes raw exactly in 128 bits and calls a wrapped index invalid.
        fits = (row == 0) | (width <= (_MAX - col) // np.maximum(row, np.uint64(1)))
        raw = row * width + col
    return Witness(raw.view(np.int64), (col < width) & fits)


@lowers(simt.ThreadIndex1DOp)
def _thread_index_1d(op):
    return lambda ex, args, mask: (Witness(global_x(ex), np.True_),)


@lowers(simt.Index2DOp)
def _index_2d(op):
    stride = op.stride
    return lambda ex, args, mask: (_two_d(ex, stride),)


@lowers(simt.Index2DRuntimeOp)
def _index_2d_runtime(op):
    return lambda ex, args, mask: (_two_d(ex, args[0]),)


@lowers(simt.WarpIndexOp)
def _warp_index(op):
    def run(ex, args, mask):
        gid = global_x(ex)
        return (Witness(gid >> 5, (gid & 31) == 0),)

    return run


@lowers(simt.WitnessValueOp)
def _witness_value(op):
    return lambda ex, args, mask: (args[0].raw,)
