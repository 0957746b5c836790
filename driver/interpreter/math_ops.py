"""`math` in the result's own width, on lane arrays (one definition: see `ops.py`).

Exact ops (abs, floor, copysign, the bit counts, ...) are exact here; sqrt is correctly rounded,
as the GPU's `sqrt.rn` is; fma rounds once (the f64 product of two f32 or f16 values is exact,
and the sum is rounded to odd in f64 before the one rounding to the narrow type; f64 fma is
exact in rationals). Transcendentals are evaluated in f64 and rounded, i.e. the correctly
rounded value in all but rare double-rounding cases: the GPU's approximations
(docs/lowering-math.md) are within their documented bounds of it, so compare those with a
tolerance, never bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
from xdsl.dialects import math as mathd
from xdsl.dialects.arith import FastMathFlag
from xdsl.ir import Operation

from ferrox.driver.interpreter.arith_ops import as_int, as_signed, as_unsigned, scalar
from ferrox.driver.interpreter.ops import lowers, scalar_functions, unsupported
from ferrox.driver.interpreter.values import float_dtype, int_width, lane_dtype, to_float


def _dtype(op: Operation) -> np.dtype:
    dtype = float_dtype(op.results[0].type)
    if dtype is None:
        raise unsupported(op, f"{op.results[0].type} is not a float type the interpreter holds")
    return dtype


def _to(op: Operation) -> Callable[[Any], Any]:
    """The rounding of a wide (f64, or round-to-odd f64) result to the op's float type."""
    _dtype(op)
    convert = to_float(op.results[0].type)
    assert convert is not None
    return convert


def _width(op: Operation) -> int:
    width = int_width(op.results[0].type)
    if width not in (1, 8, 16, 32, 64):
        raise unsupported(op, f"the interpreter holds integers of 1 to 64 bits, not {width}")
    return width  # type: ignore[return-value]


def _via_f64(fn: Callable[..., Any]):
    """A factory computing `fn` on f64 operands, rounded to the result type."""

    def factory(op: Operation):
        to = _to(op)

        def run(ctx, args, mask):
            wide = [np.asarray(a, dtype=np.float64) for a in args]
            return (to(np.asarray(fn(*wide))),)

        return run

    return factory


def round_to_odd_sum(p: Any, c: Any) -> Any:
    """p + c in f64 with round-to-odd (element-wise): rounding that again to f32 or f16 is the
    correctly rounded sum (f64 has more than 2 + 24 bits), the way a fused multiply-add rounds
    once."""
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    even = (np.asarray(s).view(np.int64) & 1) == 0
    fix = np.isfinite(s) & (err != 0) & even
    if np.any(fix):
        s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s


_LOW_28 = (1 << 28) - 1


def _may_round_twice(s: Any, p: Any, c: Any) -> bool:
    """Whether rounding `s`, the f64 sum of `p` (an exact f64 product) and `c` (an f32 or f16
    addend), to f32 or f16 might differ from rounding the exact sum: only where some element
    of `s` has 25 or fewer significant bits (the low 28 of its 52 fraction bits zero;
    infinities too) and neither `p` nor `c` is zero (else `s` is the exact sum). Every place
    where rounding to f32 or f16 changes its answer (a representable value, a midpoint between
    two, the overflow threshold) has that few bits. An `s` with more lies strictly between two
    such places, and so does the exact sum that f64 rounded to it (rounding is monotone and
    keeps those places, which f64 holds exactly): both round the same way, and the round-to-odd
    correction (`round_to_odd_sum`) is not needed."""
    low = np.bitwise_and(np.asarray(s).view(np.int64), _LOW_28)
    # no element with so few bits (the usual case) is one reduction (the array's own `min`:
    # NumPy's `np.min` dispatches first); the low bits are never negative
    if low.min() != 0:
        return False
    return bool(((low == 0) & (p != 0) & (c != 0)).any())


def _fma64(x: float, y: float, z: float) -> float:
    if not all(map(math.isfinite, (x, y, z))):
        return x * y + z
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:
        return x * y + z  # the sign of an exact zero follows IEEE
    try:
        return float(exact)
    except OverflowError:
        return math.copysign(math.inf, exact)


@lowers(mathd.FmaOp)
def _fma(op):
    dtype, to = _dtype(op), _to(op)

    if dtype == np.float64:

        def run(ctx, args, mask):
            a, b, c = (np.asarray(v, dtype=np.float64) for v in args)
            out = np.vectorize(_fma64, otypes=[np.float64])(a, b, c)
            return (to(np.asarray(out)),)

        return run

    def run_narrow(ctx, args, mask):
        # f32 or f16 operands: the ufuncs compute in f64 (each operand converted exactly),
        # without an f64 copy of each first
        a, b, c = args
        p = np.multiply(a, b, dtype=np.float64)  # exact: 2 x 24 bits fit in 53
        out = np.add(p, c, dtype=np.float64)
        if _may_round_twice(out, p, c):
            out = round_to_odd_sum(p, np.asarray(c, dtype=np.float64))
        return (to(np.asarray(out)),)

    return run_narrow


@lowers(mathd.SqrtOp)
def _sqrt(op):
    # sqrt of an f32 computed in f64 and rounded is correctly rounded (53 >= 2 * 24 + 2).
    to = _to(op)
    return lambda ctx, args, mask: (to(np.sqrt(np.asarray(args[0], dtype=np.float64))),)


def _round_half_away(x):
    t = np.trunc(x)
    return np.where(np.isfinite(x) & (np.abs(x - t) >= 0.5), t + np.copysign(1.0, x), t)


_UNARY = {
    mathd.AbsFOp: np.abs,
    mathd.RsqrtOp: lambda x: 1.0 / np.sqrt(x),
    mathd.FloorOp: np.floor,
    mathd.CeilOp: np.ceil,
    mathd.TruncOp: np.trunc,
    mathd.RoundEvenOp: np.rint,
    mathd.RoundOp: _round_half_away,
    mathd.ExpOp: np.exp,
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
    mathd.ErfOp: np.vectorize(math.erf, otypes=[np.float64]),
}
_BINARY = {
    mathd.PowFOp: np.power,
    mathd.Atan2Op: np.arctan2,
    mathd.CopySignOp: np.copysign,
}
for _op, _fn in {**_UNARY, **_BINARY}.items():
    lowers(_op)(_via_f64(_fn))


FTZ_BELOW = 2.0**-126
"""`math.exp2` with the `afn` fast-math flag (the form `tile.exp2 {ftz}` lowers to) gives +0
for results below f32's smallest normal, as `ex2.approx.ftz.f32` does."""


@lowers(mathd.Exp2Op)
def _exp2(op):
    to = _to(op)
    ftz = FastMathFlag.APPROX_FUNC in op.fastmath.data

    def run(ctx, args, mask):
        r = np.exp2(np.asarray(args[0], dtype=np.float64))
        if ftz:
            r = np.where(r < FTZ_BELOW, 0.0, r)
        return (to(np.asarray(r)),)

    return run


@lowers(mathd.FPowIOp)
def _fpowi(op):
    to = _to(op)
    return lambda ctx, args, mask: (
        to(np.power(np.asarray(args[0], np.float64), np.asarray(args[1], np.float64))),
    )


@lowers(mathd.AbsIOp)
def _absi(op):
    w = _width(op)
    if w == 1:
        return lambda ctx, args, mask: (args[0],)
    return lambda ctx, args, mask: (np.abs(args[0]),)  # INT_MIN stays INT_MIN


def popcount(u: Any) -> Any:
    return np.bitwise_count(u)


@lowers(mathd.CtPopOp)
def _ctpop(op):
    w, dtype = _width(op), lane_dtype(_width(op))
    return lambda ctx, args, mask: (
        scalar(np.asarray(popcount(as_unsigned(args[0], w))).astype(dtype)),
    )


@lowers(mathd.CountLeadingZerosOp)
def _ctlz(op):
    w = _width(op)
    dtype = lane_dtype(w)

    def run(ctx, args, mask):
        v = np.asarray(as_unsigned(args[0], w))
        shift = 1
        while shift < max(w, 8):
            v = v | (v >> v.dtype.type(shift))
            shift *= 2
        return (scalar((w - popcount(v).astype(np.int64)).astype(dtype)),)

    return run


@lowers(mathd.CountTrailingZerosOp)
def _cttz(op):
    w = _width(op)
    dtype = lane_dtype(w)

    def run(ctx, args, mask):
        v = np.asarray(as_unsigned(args[0], w))
        low = v & (~v + v.dtype.type(1))  # the lowest set bit
        count = popcount(low - v.dtype.type(1)).astype(np.int64)
        return (scalar(np.where(v == 0, w, count).astype(dtype)),)

    return run


@lowers(mathd.IPowIOp)
def _ipowi(op):
    w = _width(op)

    def run(ctx, args, mask):
        base, exponent = np.asarray(as_int(args[0], w)), np.asarray(as_int(args[1], w))
        negative = exponent < 0
        bad = negative & (base == 0)
        if np.any(bad & mask):
            raise ctx.fault(op, bad & mask, "math.ipowi: zero to a negative power divides by zero")
        # MLIR's expansion for a negative power: 1 for base 1, +-1 for -1, 0 otherwise.
        special = np.where(base == 1, 1, np.where(base == -1, np.where(exponent & 1, -1, 1), 0))
        u_base = as_unsigned(base, w)
        e = np.where(negative, 0, exponent).astype(np.int64)
        result = np.ones_like(u_base)
        b = u_base.copy() if isinstance(u_base, np.ndarray) else u_base
        while np.any(e > 0):
            odd = (e & 1) == 1
            result = np.where(odd, result * b, result).astype(u_base.dtype)
            b = (b * b).astype(u_base.dtype)
            e = e >> 1
        out = np.where(negative, np.asarray(special).astype(result.dtype), result)
        return (scalar(as_signed(np.asarray(out, dtype=result.dtype), w)),)

    return run


FerroxMathFunctions = scalar_functions(
    "FerroxMathFunctions",
    [o for o in vars(mathd).values() if isinstance(o, type) and issubclass(o, Operation)],
)
"""The definitions above as xDSL implementations on scalars (see `ops.scalar_functions`)."""

__all__ = ["FerroxMathFunctions", "popcount", "round_to_odd_sum"]
