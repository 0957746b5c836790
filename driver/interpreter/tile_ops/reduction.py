"""Reductions along one axis: `reduce_sum`, `reduce_prod`, `reduce_max`, `reduce_min`.

Float sums and products are taken in float32 (float64 for f64) with NumPy's summation order and
rounded once to the element type; the GPU's tree order differs, so compare its results with a
tolerance. max/min propagate NaN and prefer +0.0 (max) or -0.0 (min) among zeros; integers wrap
(sum, prod) in their own width and compare signed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.dialects import tile
from ferrox.driver.interpreter.tile_ops.dtypes import compute_dtype, is_float_type, round_to
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


def _fold(fn: Callable[..., np.ndarray]):
    def run(self, interp: TileInterpreter, op: Operation, args: PythonValues):
        (x,) = args
        axis, keepdims = op.axis.value.data, op.keeps_dims  # type: ignore[attr-defined]
        t = op.input.type.element_type  # type: ignore[attr-defined]
        if is_float_type(t):
            c = compute_dtype(t)
            return (round_to(t, fn(x.astype(c), axis=axis, dtype=c, keepdims=keepdims)),)
        return (np.asarray(fn(x, axis=axis, dtype=x.dtype, keepdims=keepdims)),)

    return run


def extreme(x: np.ndarray, axis: int, keepdims: bool, pick_max: bool) -> np.ndarray:
    """np.max/np.min along `axis` (NaN-propagating), with +0.0 > -0.0 among zeros."""
    r = np.asarray((np.max if pick_max else np.min)(x, axis=axis, keepdims=keepdims))
    if r.dtype.kind == "f" and (r == 0).any():
        wanted = (x == 0) & (np.signbit(x) != pick_max)  # +0.0 for max, -0.0 for min
        found = np.any(wanted, axis=axis, keepdims=keepdims)
        sign = 1.0 if pick_max else -1.0
        r = np.where(r == 0, np.where(found, sign * 0.0, -sign * 0.0), r).astype(r.dtype)
    return r


def _extreme(pick_max: bool):
    def run(self, interp: TileInterpreter, op: Operation, args: PythonValues):
        (x,) = args
        axis, keepdims = op.axis.value.data, op.keeps_dims  # type: ignore[attr-defined]
        t = op.input.type.element_type  # type: ignore[attr-defined]
        if is_float_type(t):
            return (round_to(t, extreme(x.astype(compute_dtype(t)), axis, keepdims, pick_max)),)
        return (extreme(x, axis, keepdims, pick_max),)

    return run


@register_impls
class TileReductionFunctions(InterpreterFunctions):
    run_sum = impl(tile.ReduceSumOp)(_fold(np.sum))
    run_prod = impl(tile.ReduceProdOp)(_fold(np.prod))
    run_max = impl(tile.ReduceMaxOp)(_extreme(True))
    run_min = impl(tile.ReduceMinOp)(_extreme(False))
