"""Elementwise tile ops on whole arrays, rounded like the GPU.

Float arithmetic (+ - * /) is IEEE in the element type: f16 and bf16 are computed in float32
and rounded once (exact), f32 in float32, f64 in float64. Integers wrap (NumPy's fixed-width
arrays). The transcendentals (exp, exp2, log, tanh, rsqrt) and sqrt are evaluated in float64
and rounded once to the element type, as the SIMT interpreter's `math` is: the correctly rounded
value in all but rare cases, which the GPU's approximations are compared with under a tolerance.
maximum/minimum propagate NaN and order -0.0 below +0.0 (`arith.maximumf`); compares are
ordered except `ne`, which is NumPy's own rule.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.dialects import tile
from ferrox.dialects.tile.attributes import CmpPredicate
from ferrox.driver.interpreter.math_ops import _fma64 as fma64
from ferrox.driver.interpreter.math_ops import round_to_odd_sum
from ferrox.driver.interpreter.tile_ops.dtypes import (
    F64,
    compute_dtype,
    convert,
    is_float_type,
    round_to,
    tile_dtype,
)
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


def _element(op: Operation):
    return op.results[0].type.element_type  # type: ignore[attr-defined]


def _arith(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]):
    def run(self, interp: TileInterpreter, op: Operation, args: PythonValues):
        a, b = args
        t = _element(op)
        if not is_float_type(t):
            return (np.asarray(fn(a, b), dtype=a.dtype),)
        c = compute_dtype(t)
        return (round_to(t, fn(a.astype(c), b.astype(c))),)

    return run


def extremum(a: np.ndarray, b: np.ndarray, pick_max: bool) -> np.ndarray:
    """np.maximum/np.minimum (NaN-propagating), with -0.0 < +0.0 where the operands tie."""
    r = np.maximum(a, b) if pick_max else np.minimum(a, b)
    if r.dtype.kind == "f":
        zeros = (a == 0) & (b == 0)
        if zeros.any():
            neg_a = np.signbit(a)
            r = np.where(zeros, np.where(neg_a == pick_max, b, a), r)
    return r


def _extremum(pick_max: bool):
    return _arith(lambda a, b: extremum(a, b, pick_max))


def _math(fn: Callable[[np.ndarray], np.ndarray]):
    def run(self, interp: TileInterpreter, op: Operation, args: PythonValues):
        (x,) = args
        t = _element(op)
        return (round_to(t, fn(x.astype(F64))),)

    return run


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


_CMP = {
    CmpPredicate.EQ: operator.eq,
    CmpPredicate.NE: operator.ne,
    CmpPredicate.LT: operator.lt,
    CmpPredicate.LE: operator.le,
    CmpPredicate.GT: operator.gt,
    CmpPredicate.GE: operator.ge,
}


@register_impls
class TileElementwiseFunctions(InterpreterFunctions):
    run_add = impl(tile.AddOp)(_arith(np.add))
    run_sub = impl(tile.SubOp)(_arith(np.subtract))
    run_mul = impl(tile.MulOp)(_arith(np.multiply))
    run_div = impl(tile.DivOp)(_arith(np.divide))
    run_maximum = impl(tile.MaximumOp)(_extremum(True))
    run_minimum = impl(tile.MinimumOp)(_extremum(False))
    run_exp = impl(tile.ExpOp)(_math(np.exp))
    run_log = impl(tile.LogOp)(_math(np.log))
    run_sqrt = impl(tile.SqrtOp)(_math(np.sqrt))
    run_rsqrt = impl(tile.RsqrtOp)(_math(_rsqrt))
    run_tanh = impl(tile.TanhOp)(_math(np.tanh))

    @impl(tile.FmaOp)
    def run_fma(self, interp: TileInterpreter, op: tile.FmaOp, args: PythonValues):
        a, b, c = (np.asarray(x, dtype=F64) for x in args)
        t = _element(op)
        if compute_dtype(t) == F64:
            return (np.vectorize(fma64, otypes=[F64])(a, b, c),)
        # a * b is exact in f64 for f32 and narrower; the sum rounded to odd, then to the
        # element type, is the correctly rounded fma
        return (round_to(t, round_to_odd_sum(a * b, c)),)

    @impl(tile.Exp2Op)
    def run_exp2(self, interp: TileInterpreter, op: tile.Exp2Op, args: PythonValues):
        (x,) = args
        r = np.exp2(x.astype(F64))
        if op.ftz is not None:  # the opt-in: results below f32's smallest normal are +0
            r = np.where(r < tile.Exp2Op.FTZ_BELOW, 0.0, r)
        return (round_to(_element(op), r),)

    @impl(tile.NegOp)
    def run_neg(self, interp: TileInterpreter, op: tile.NegOp, args: PythonValues):
        (x,) = args
        if is_float_type(_element(op)):
            return (round_to(_element(op), -x.astype(compute_dtype(_element(op)))),)
        return (np.asarray(np.negative(x), dtype=x.dtype),)

    @impl(tile.CmpOp)
    def run_cmp(self, interp: TileInterpreter, op: tile.CmpOp, args: PythonValues):
        a, b = args
        t = op.lhs.type.element_type  # type: ignore[attr-defined]
        if is_float_type(t):
            a, b = a.astype(compute_dtype(t)), b.astype(compute_dtype(t))
        return (np.asarray(_CMP[op.predicate.data](a, b), dtype=np.bool_),)

    @impl(tile.SelectOp)
    def run_select(self, interp: TileInterpreter, op: tile.SelectOp, args: PythonValues):
        c, a, b = args
        return (np.asarray(np.where(c, a, b), dtype=tile_dtype(_element(op))),)

    @impl(tile.AsTypeOp)
    def run_astype(self, interp: TileInterpreter, op: tile.AsTypeOp, args: PythonValues):
        src = op.input.type.element_type  # type: ignore[attr-defined]
        return (convert(args[0], src, _element(op)),)
