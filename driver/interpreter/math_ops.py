"""`math` in the result's own width.

xDSL's `MathFunctions` compute exp, log and sqrt in Python floats and return f64 values, so
nothing of them is kept. Exact ops (abs, floor, copysign, the bit counts, ...) are exact here;
sqrt is correctly rounded, as the GPU's `sqrt.rn` is; fma rounds once (round-to-odd in f64,
then to the narrow type). Transcendentals are evaluated in f64 and rounded, i.e. the correctly
rounded value in all but rare double-rounding cases: the GPU's approximations
(docs/lowering-math.md) are within their documented bounds of it, so compare those with a
tolerance, never bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np
from xdsl.dialects import math as mathd
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.ir import Operation

from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.values import (
    float_dtype,
    int_width,
    round_to_odd_sum,
    signed,
    unsigned,
)


def _dtype(op: Operation) -> np.dtype:
    dtype = float_dtype(op.results[0].type)
    assert dtype is not None, f"{op.results[0].type} is not a float type the interpreter knows"
    return dtype


def _width(op: Operation) -> int:
    width = int_width(op.results[0].type)
    assert width is not None
    return width


def _via_f64(fn: Callable[..., float]):
    """An implementation computing `fn` on f64 operands, rounded to the result type."""

    def run(self, interp: SimtInterpreter, op: Operation, args: PythonValues):
        return (interp.static(op, _dtype).type(fn(*(np.float64(a) for a in args))),)

    return run


def _fma(a, b, c, dtype: np.dtype):
    if dtype == np.float64:
        x, y, z = float(a), float(b), float(c)
        if not all(map(math.isfinite, (x, y, z))):
            return np.float64(x * y + z)
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        if exact == 0:
            return np.float64(x * y + z)  # the sign of an exact zero follows IEEE
        try:
            return np.float64(float(exact))
        except OverflowError:
            return np.float64(math.copysign(math.inf, exact))
    return dtype.type(round_to_odd_sum(float(a) * float(b), float(c)))


def _erf(x):
    return math.erf(float(x))


def _round_half_away(x):
    # floor(|x| + 0.5) is wrong for 0.49999999999999994; round exactly instead.
    if not np.isfinite(x):
        return x
    t = np.trunc(x)
    return t + np.copysign(1.0, x) if abs(x - t) >= 0.5 else t


_UNARY = {
    mathd.AbsFOp: np.abs,
    mathd.RsqrtOp: lambda x: 1.0 / np.sqrt(x),
    mathd.FloorOp: np.floor,
    mathd.CeilOp: np.ceil,
    mathd.TruncOp: np.trunc,
    mathd.RoundEvenOp: np.rint,
    mathd.RoundOp: _round_half_away,
    mathd.ExpOp: np.exp,
    mathd.Exp2Op: np.exp2,
    mathd.ExpM1Op: np.expm1,
    mathd.LogOp: np.log,
    mathd.Log2Op: np.log2,
    mathd.Log10Op: np.log10,
    mathd.Log1pOp: np.log1p,
    mathd.SinOp: np.sin,
    mathd.CosOp: np.cos,
    mathd.TanOp: np.tan,
    mathd.TanhOp: np.tanh,
    mathd.SinhOp: np.sinh,
    mathd.CoshOp: np.cosh,
    mathd.AsinOp: np.arcsin,
    mathd.AcosOp: np.arccos,
    mathd.AtanOp: np.arctan,
    mathd.AsinhOp: np.arcsinh,
    mathd.AcoshOp: np.arccosh,
    mathd.AtanhOp: np.arctanh,
    mathd.CbrtOp: np.cbrt,
    mathd.ErfOp: _erf,
}
_BINARY = {
    mathd.PowFOp: np.power,
    mathd.Atan2Op: np.arctan2,
    mathd.CopySignOp: np.copysign,
}


class FerroxMathFunctions(InterpreterFunctions):
    # sqrt of an f32 computed in f64 and rounded is correctly rounded (53 >= 2 * 24 + 2);
    # sqrt of an f64 is NumPy's, which is correctly rounded too.
    @impl(mathd.SqrtOp)
    def run_sqrt(self, interp: SimtInterpreter, op: mathd.SqrtOp, args: PythonValues):
        dtype = interp.static(op, _dtype)
        if dtype == np.float64:
            return (np.sqrt(args[0]),)
        return (dtype.type(np.sqrt(np.float64(args[0]))),)

    @impl(mathd.FmaOp)
    def run_fma(self, interp: SimtInterpreter, op: mathd.FmaOp, args: PythonValues):
        return (_fma(*args, interp.static(op, _dtype)),)

    @impl(mathd.FPowIOp)
    def run_fpowi(self, interp: SimtInterpreter, op: mathd.FPowIOp, args: PythonValues):
        return (interp.static(op, _dtype).type(np.power(np.float64(args[0]), float(args[1]))),)

    @impl(mathd.AbsIOp)
    def run_absi(self, interp: SimtInterpreter, op: mathd.AbsIOp, args: PythonValues):
        w = interp.static(op, _width)
        return (signed(abs(signed(args[0], w)), w),)

    @impl(mathd.CountLeadingZerosOp)
    def run_ctlz(self, interp: SimtInterpreter, op: mathd.CountLeadingZerosOp, args: PythonValues):
        w = interp.static(op, _width)
        return (w - unsigned(args[0], w).bit_length(),)

    @impl(mathd.CountTrailingZerosOp)
    def run_cttz(self, interp: SimtInterpreter, op: mathd.CountTrailingZerosOp, args: PythonValues):
        w = interp.static(op, _width)
        v = unsigned(args[0], w)
        return (w if v == 0 else (v & -v).bit_length() - 1,)

    @impl(mathd.CtPopOp)
    def run_ctpop(self, interp: SimtInterpreter, op: mathd.CtPopOp, args: PythonValues):
        return (bin(unsigned(args[0], interp.static(op, _width))).count("1"),)

    @impl(mathd.IPowIOp)
    def run_ipowi(self, interp: SimtInterpreter, op: mathd.IPowIOp, args: PythonValues):
        w = interp.static(op, _width)
        base, exponent = signed(args[0], w), signed(args[1], w)
        if (
            exponent < 0
        ):  # MLIR's expansion: 1 for base 1, +-1 for -1, 0 otherwise (division by 0 traps)
            if base == 0:
                raise interp.trap(op, "math.ipowi: zero to a negative power divides by zero")
            return (1 if base == 1 else (-1 if exponent & 1 else 1) if base == -1 else 0,)
        return (signed(pow(base, exponent, 1 << w), w),)


for _op, _fn in {**_UNARY, **_BINARY}.items():
    setattr(FerroxMathFunctions, f"run_{_op.name[5:]}", impl(_op)(_via_f64(_fn)))
FerroxMathFunctions = register_impls(FerroxMathFunctions)
