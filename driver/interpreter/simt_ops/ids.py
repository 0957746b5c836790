"""Thread, block and lane ids (dialects/simt/ids.py), for every lane of the group at once."""

from __future__ import annotations

from typing import Any

import numpy as np

from ferrox.dialects import simt
from ferrox.driver.interpreter.ops import lowers

_XYZ = "xyz"


def _dim(op) -> int:
    return _XYZ.index(op.dimension.data.value)


def _split(linear: np.ndarray, dims) -> tuple[Any, Any, Any]:
    x, y, z = dims
    if y == 1 and z == 1:  # 1-D: no division, and the other two are uniform zeros
        return linear, np.int64(0), np.int64(0)
    return linear % x, (linear // x) % y, linear // (x * y)


def thread_ids(ex) -> tuple[np.ndarray, ...]:
    return ex.lane_values("tid", lambda: _split(ex.linear, ex.launch.block))


def block_ids(ex) -> tuple[np.ndarray, ...]:
    return ex.lane_values("bid", lambda: _split(ex.block_local + ex.first_block, ex.launch.grid))


@lowers(simt.ThreadIdOp)
def _thread_id(op):
    d = _dim(op)
    return lambda ex, args, mask: (thread_ids(ex)[d],)


@lowers(simt.BlockIdOp)
def _block_id(op):
    d = _dim(op)
    return lambda ex, args, mask: (block_ids(ex)[d],)


@lowers(simt.BlockDimOp)
def _block_dim(op):
    d = _dim(op)
    return lambda ex, args, mask: (np.int64(ex.launch.block[d]),)


@lowers(simt.GridDimOp)
def _grid_dim(op):
    d = _dim(op)
    return lambda ex, args, mask: (np.int64(ex.launch.grid[d]),)


@lowers(simt.LaneIdOp)
def _lane_id(op):
    return lambda ex, args, mask: (ex.linear & 31,)
