"""`arith` as the GPU computes it, defined once, on NumPy arrays of lanes.

Each op is a factory (`@lowers(arith.AddiOp)`): given the op, it reads its static facts (widths,
predicates) once and returns `run(ctx, args, mask) -> results`, where every value is a NumPy
array with one entry per lane or a NumPy scalar that all lanes share. Integers are held in the
signed NumPy type of their width (`index` as int64, `i1` as bool), so NumPy's wrap-around is the
GPU's; unsigned ops reinterpret the bits. Floats stay in their own width (f16 ops are computed in
f32 and rounded once, which is the correctly rounded result); bf16 is float32 holding bf16
values, and each op that makes one rounds once (`values.to_float`). Where LLVM leaves a result
poison, the value is the one NVPTX's instruction gives (saturating float-to-int, shift amounts
past the width); integer division by zero, garbage on the GPU, traps here (`ctx.fault`, for the
active lanes only).

The SIMT engine runs these for many threads at once; `FerroxArithFunctions` runs the very same
definitions on one-element arrays for xDSL's scalar interpreters (the host runner, the tile
interpreter's loop bounds), so there is one meaning of each op.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Operation

from ferrox.driver.interpreter.bf16 import CANONICAL_NAN, narrow, round_f32, widen
from ferrox.driver.interpreter.ops import lowers, scalar_functions, unsupported
from ferrox.driver.interpreter.values import (
    float_dtype,
    int_width,
    is_bf16,
    lane_dtype,
    signed,
    to_float,
    unsigned_dtype,
)


def _width(op: Operation, i: int = 0) -> int:
    width = int_width(op.results[i].type)
    if width is None:
        raise unsupported(op, f"{op.results[i].type} is not an integer type")
    if width not in (1, 8, 16, 32, 64):
        raise unsupported(
            op, f"the interpreter holds integers of 1, 8, 16, 32 or 64 bits, not {width}"
        )
    return width


def _in_width(op: Operation) -> int:
    width = int_width(op.operands[0].type)
    if width not in (1, 8, 16, 32, 64):
        raise unsupported(
            op, f"the interpreter holds integers of 1, 8, 16, 32 or 64 bits, not {width}"
        )
    return width  # type: ignore[return-value]


def _fdtype(t) -> np.dtype:
    dtype = float_dtype(t)
    if dtype is None:
        raise unsupported(
            None, f"{t} is not a float type the interpreter holds (bf16, f16, f32, f64)"
        )
    return dtype


def scalar(value: Any) -> Any:
    """A 0-d result as a NumPy scalar, so that uniform values stay cheap."""
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


def as_unsigned(x: Any, w: int) -> Any:
    """The bits of a signed (or bool) lane value as the unsigned type of width `w`."""
    if w == 1:
        return np.asarray(x, dtype=np.uint8) if not isinstance(x, np.generic) else np.uint8(x)
    return x.view(unsigned_dtype(w)) if isinstance(x, np.ndarray | np.generic) else x


def as_signed(x: Any, w: int) -> Any:
    """Unsigned bits back in the signed lane type (`i1`: the low bit as bool)."""
    if w == 1:
        return scalar(np.asarray(x & 1, dtype=np.bool_))
    return x.view(lane_dtype(w)) if isinstance(x, np.ndarray | np.generic) else x


def as_int(x: Any, w: int) -> Any:
    """A lane value as a signed integer type that arithmetic works on (`i1` true is -1)."""
    if w == 1:
        return scalar(-np.asarray(x, dtype=np.int8))
    return x


def _binary_int(op: Operation, fn):
    w = _width(op)
    if w == 1:

        def run(ctx, args, mask):
            a, b = (as_unsigned(v, 1) for v in args)
            return (as_signed(fn(a, b), 1),)

        return run
    return lambda ctx, args, mask: (fn(args[0], args[1]),)


@lowers(arith.ConstantOp)
def _constant(op: arith.ConstantOp):
    value = op.value
    if isinstance(value, FloatAttr):
        _fdtype(op.result.type)
        convert = to_float(op.result.type)
        assert convert is not None
        with np.errstate(over="ignore"):  # compiled outside a launch too (ops._scalar_run)
            result = convert(np.float64(value.value.data))
    elif isinstance(value, IntegerAttr):
        w = _width(op)
        result = (
            np.bool_(value.value.data & 1)
            if w == 1
            else lane_dtype(w).type(signed(value.value.data, w))
        )
    else:
        raise unsupported(op, f"the interpreter handles scalar constants only, not {value}")
    return lambda ctx, args, mask: (result,)


# --- integer arithmetic (wraps) -----------------------------------------------------------
for _op, _fn in (
    (arith.AddiOp, np.add),
    (arith.SubiOp, np.subtract),
    (arith.MuliOp, np.multiply),
    (arith.AndIOp, np.bitwise_and),
    (arith.OrIOp, np.bitwise_or),
    (arith.XOrIOp, np.bitwise_xor),
):
    lowers(_op)(lambda op, fn=_fn: _binary_int(op, fn))

_CMPI = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)


@lowers(arith.CmpiOp)
def _cmpi(op: arith.CmpiOp):
    w = _in_width(op)
    p = op.predicate.value.data
    compare = _CMPI[p if p < 6 else p - 4]
    if p >= 6:
        return lambda ctx, args, mask: (compare(as_unsigned(args[0], w), as_unsigned(args[1], w)),)
    if w == 1:
        return lambda ctx, args, mask: (compare(as_int(args[0], 1), as_int(args[1], 1)),)
    return lambda ctx, args, mask: (compare(args[0], args[1]),)


def _convert_int(x: Any, w_in: int, w_out: int, sign_extend: bool) -> Any:
    if w_out == 1:
        return scalar(np.asarray(as_unsigned(x, w_in) & 1, dtype=np.bool_))
    if w_in == 1:
        x = as_int(x, 1) if sign_extend else np.asarray(x, dtype=np.int8)
    elif not sign_extend and w_out > w_in:
        x = as_unsigned(x, w_in)
    return scalar(np.asarray(x).astype(lane_dtype(w_out)))


@lowers(arith.IndexCastOp)
def _index_cast(op: arith.IndexCastOp):
    # Narrowing truncates, widening sign-extends.
    w_in, w_out = _in_width(op), _width(op)
    return lambda ctx, args, mask: (_convert_int(args[0], w_in, w_out, True),)


@lowers(arith.ExtSIOp)
def _extsi(op):
    w_in, w_out = _in_width(op), _width(op)
    return lambda ctx, args, mask: (_convert_int(args[0], w_in, w_out, True),)


@lowers(arith.ExtUIOp)
def _extui(op):
    w_in, w_out = _in_width(op), _width(op)
    return lambda ctx, args, mask: (_convert_int(args[0], w_in, w_out, False),)


@lowers(arith.TruncIOp)
def _trunci(op):
    w_in, w_out = _in_width(op), _width(op)
    return lambda ctx, args, mask: (_convert_int(args[0], w_in, w_out, True),)


# --- division: traps on a zero divisor of an active lane -----------------------------------
def _divisor(ctx, op: Operation, b: Any, mask: Any) -> Any:
    zero = b == 0
    if np.any(zero & mask):
        raise ctx.fault(op, zero & mask, f"integer division by zero in '{op.name}'")
    return np.where(zero, 1, b).astype(b.dtype) if np.any(zero) else b


def _trunc_div(a: Any, b: Any, w: int) -> tuple[Any, Any]:
    """Signed quotient and remainder rounded toward zero, on the magnitudes' unsigned bits
    (INT_MIN / -1 wraps to INT_MIN, as the GPU's `div.s` does)."""
    ua = as_unsigned(np.where(a < 0, -a, a).astype(a.dtype), w)
    ub = as_unsigned(np.where(b < 0, -b, b).astype(b.dtype), w)
    q, r = ua // ub, ua % ub
    q = np.where((a < 0) != (b < 0), -as_signed(q, w), as_signed(q, w))
    r = np.where(a < 0, -as_signed(r, w), as_signed(r, w))
    return q, r


def _division(op: Operation, kind: str):
    w = _width(op)

    def run(ctx, args, mask):
        a, b = (as_int(v, w) for v in args)
        b = _divisor(ctx, op, b, mask)
        if kind in ("divui", "remui", "ceildivui"):
            ua, ub = as_unsigned(a, max(w, 8)), as_unsigned(b, max(w, 8))
            if kind == "divui":
                r = ua // ub
            elif kind == "remui":
                r = ua % ub
            else:
                r = ua // ub + (ua % ub != 0)
            out = as_signed(np.asarray(r, dtype=ua.dtype), max(w, 8))
        else:
            a64, b64 = np.asarray(a), np.asarray(b)
            q, r = _trunc_div(a64, b64, max(w, 8))
            if kind == "divsi":
                out = q
            elif kind == "remsi":
                out = r
            elif kind == "floordivsi":
                out = q - ((r != 0) & ((r < 0) != (b64 < 0)))
            else:  # ceildivsi
                out = q + ((r != 0) & ((r < 0) == (b64 < 0)))
        if w == 1:
            return (scalar(np.asarray(np.asarray(out) & 1, dtype=np.bool_)),)
        return (scalar(np.asarray(out).astype(lane_dtype(w))),)

    return run


for _op in (
    arith.DivUIOp,
    arith.RemUIOp,
    arith.DivSIOp,
    arith.RemSIOp,
    arith.FloorDivSIOp,
    arith.CeilDivSIOp,
    arith.CeilDivUIOp,
):
    lowers(_op)(lambda op, kind=_op.name[6:]: _division(op, kind))


# --- min / max ---------------------------------------------------------------------------
@lowers(arith.MinSIOp)
def _minsi(op):
    w = _width(op)
    return lambda ctx, args, mask: (
        _convert_int(np.minimum(as_int(args[0], w), as_int(args[1], w)), max(w, 8), w, True),
    )


@lowers(arith.MaxSIOp)
def _maxsi(op):
    w = _width(op)
    return lambda ctx, args, mask: (
        _convert_int(np.maximum(as_int(args[0], w), as_int(args[1], w)), max(w, 8), w, True),
    )


@lowers(arith.MinUIOp)
def _minui(op):
    w = _width(op)
    return lambda ctx, args, mask: (
        as_signed(np.minimum(as_unsigned(args[0], w), as_unsigned(args[1], w)), w),
    )


@lowers(arith.MaxUIOp)
def _maxui(op):
    w = _width(op)
    return lambda ctx, args, mask: (
        as_signed(np.maximum(as_unsigned(args[0], w), as_unsigned(args[1], w)), w),
    )


# --- shifts: PTX clamps the amount, so a shift by >= width gives 0 (or the sign) -------------
def _amount(b: Any, w: int) -> Any:
    return as_unsigned(b, w)


@lowers(arith.ShLIOp)
def _shl(op):
    w = _width(op)
    bits = max(w, 8)

    def run(ctx, args, mask):
        a, n = as_unsigned(args[0], w), _amount(args[1], w)
        big = n >= w
        shifted = np.left_shift(a, np.where(big, 0, n).astype(a.dtype))
        return (as_signed(scalar(np.where(big, 0, shifted).astype(unsigned_dtype(bits))), w),)

    return run


@lowers(arith.ShRUIOp)
def _shrui(op):
    w = _width(op)
    bits = max(w, 8)

    def run(ctx, args, mask):
        a, n = as_unsigned(args[0], w), _amount(args[1], w)
        big = n >= w
        shifted = np.right_shift(a, np.where(big, 0, n).astype(a.dtype))
        return (as_signed(scalar(np.where(big, 0, shifted).astype(unsigned_dtype(bits))), w),)

    return run


@lowers(arith.ShRSIOp)
def _shrsi(op):
    w = _width(op)

    def run(ctx, args, mask):
        a, n = as_int(args[0], w), _amount(args[1], w)
        n = np.minimum(n, w - 1).astype(np.asarray(a).dtype)
        return (_convert_int(np.right_shift(a, n), max(w, 8), w, True),)

    return run


# --- wide results ------------------------------------------------------------------------
@lowers(arith.AddUIExtendedOp)
def _addui_extended(op):
    w = _width(op)

    def run(ctx, args, mask):
        a, b = as_unsigned(args[0], w), as_unsigned(args[1], w)
        total = a + b
        if w == 1:
            return (as_signed(total, 1), scalar(np.asarray(total > 1)))
        return (as_signed(total, w), scalar(np.asarray(total < a)))

    return run


def _mul_high(a: Any, b: Any, w: int, is_signed: bool) -> Any:
    """High half of the 2w-bit product, exactly (in Python integers for 64-bit lanes)."""
    if w <= 32:
        wide = np.int64 if is_signed else np.uint64
        p = np.asarray(a).astype(wide) * np.asarray(b).astype(wide)
        return np.asarray(p >> w).astype(lane_dtype(w) if is_signed else unsigned_dtype(w))
    fa = np.asarray(a).astype(object)
    fb = np.asarray(b).astype(object)
    hi = (fa * fb) >> w
    mod = hi % (1 << 64)
    return np.asarray(mod, dtype=np.uint64).astype(np.uint64)


@lowers(arith.MulUIExtendedOp)
def _mului_extended(op):
    w = _width(op)

    def run(ctx, args, mask):
        a, b = as_unsigned(args[0], max(w, 8)), as_unsigned(args[1], max(w, 8))
        if w == 1:
            return (
                as_signed(a & b, 1),
                np.bool_(False) if np.ndim(a) == 0 else np.zeros_like(a, bool),
            )
        low = as_signed(a * b, w)
        return (low, as_signed(scalar(np.asarray(_mul_high(a, b, w, False), unsigned_dtype(w))), w))

    return run


@lowers(arith.MulSIExtendedOp)
def _mulsi_extended(op):
    w = _width(op)

    def run(ctx, args, mask):
        if w == 1:
            both = scalar(np.asarray(args[0] & args[1]))
            return (both, scalar(np.zeros_like(both)))  # (-1) * (-1) = 1: low bit 1, high 0
        a, b = args
        low = as_signed(as_unsigned(a, w) * as_unsigned(b, w), w)
        high = _mul_high(a, b, w, True)
        return (low, scalar(np.asarray(high).view(lane_dtype(w)) if w == 64 else high))

    return run


# --- floats ------------------------------------------------------------------------------
for _op, _fn in (
    (arith.AddfOp, np.add),
    (arith.SubfOp, np.subtract),
    (arith.MulfOp, np.multiply),
    (arith.DivfOp, np.divide),
):
    lowers(_op)(lambda op, fn=_fn: _binary_float(op, fn))


def _binary_float(op: Operation, fn):
    """f16, f32, f64: NumPy's op in the type's own width. bf16: the exact operands' op in f32,
    rounded once to bf16, which is the correctly rounded result (24 >= 2 * 8 + 2 bits)."""
    if is_bf16(op.results[0].type):
        return lambda ctx, args, mask: (scalar(round_f32(fn(args[0], args[1]))),)
    return lambda ctx, args, mask: (fn(args[0], args[1]),)


@lowers(arith.NegfOp)
def _negf(op):
    return lambda ctx, args, mask: (np.negative(args[0]),)


def _min_max(op: Operation, smaller: bool):
    dtype = _fdtype(op.results[0].type)
    nan = widen(np.uint16(CANONICAL_NAN))[()] if is_bf16(op.results[0].type) else dtype.type("nan")

    def run(ctx, args, mask):
        a, b = args
        pick_a = (a < b) if smaller else (a > b)
        tie = a == b
        sign_a = np.signbit(a)
        pick_a = pick_a | (tie & (sign_a if smaller else ~sign_a))
        r = np.where(pick_a, a, b)
        r = np.where(np.isnan(a) | np.isnan(b), nan, r)
        return (scalar(np.asarray(r, dtype=dtype)),)

    return run


lowers(arith.MinimumfOp)(lambda op: _min_max(op, True))
lowers(arith.MaximumfOp)(lambda op: _min_max(op, False))
lowers(arith.MinnumfOp)(lambda op: lambda ctx, args, mask: (np.fmin(args[0], args[1]),))
lowers(arith.MaxnumfOp)(lambda op: lambda ctx, args, mask: (np.fmax(args[0], args[1]),))


@lowers(arith.CmpfOp)
def _cmpf(op: arith.CmpfOp):
    p = op.predicate.value.data

    def run(ctx, args, mask):
        x, y = args
        unordered = np.isnan(x) | np.isnan(y)
        if p in (0, 15):
            r = np.zeros(np.broadcast(x, y).shape, bool) | (p == 15)
        elif p in (7, 14):
            r = ~unordered if p == 7 else unordered
        else:
            base = p if p < 7 else p - 7
            compare = (
                None,
                np.equal,
                np.greater,
                np.greater_equal,
                np.less,
                np.less_equal,
                np.not_equal,
            )[base]
            r = compare(x, y)
            r = (r & ~unordered) if p < 7 else (r | unordered)
        return (scalar(np.asarray(r)),)

    return run


@lowers(arith.SelectOp)
def _select(op):
    return lambda ctx, args, mask: (scalar(np.where(args[0], args[1], args[2])),)


# --- casts -------------------------------------------------------------------------------
@lowers(arith.SIToFPOp)
def _sitofp(op):
    w, _ = _in_width(op), _fdtype(op.results[0].type)
    convert = to_float(op.results[0].type)
    assert convert is not None
    # NumPy's integer-to-float cast is the C conversion: one rounding, to nearest even.
    return lambda ctx, args, mask: (convert(np.asarray(as_int(args[0], w))),)


@lowers(arith.UIToFPOp)
def _uitofp(op):
    w, _ = _in_width(op), _fdtype(op.results[0].type)
    convert = to_float(op.results[0].type)
    assert convert is not None
    return lambda ctx, args, mask: (convert(np.asarray(as_unsigned(args[0], w))),)


def float_to_int(x: Any, w: int, is_signed: bool) -> Any:
    """PTX `cvt.rzi` semantics: toward zero, saturating at the type's range, NaN to 0."""
    x = np.asarray(x, dtype=np.float64)
    if is_signed:
        lo, hi = -(2.0 ** (w - 1)), 2.0 ** (w - 1)
        target = lane_dtype(max(w, 8))
        top = (1 << (w - 1)) - 1
    else:
        lo, hi = 0.0, 2.0**w
        target = unsigned_dtype(max(w, 8))
        top = (1 << w) - 1
    t = np.trunc(np.where(np.isnan(x), 0.0, x))
    big = t >= hi
    clipped = np.where(big, 0.0, np.maximum(t, lo))
    out = clipped.astype(np.int64 if is_signed else np.uint64).astype(target)
    out = np.where(big, np.asarray(top).astype(target), out).astype(target)
    if w == 1:
        return scalar(np.asarray(out & 1, dtype=np.bool_))
    return scalar(out if is_signed else out.view(lane_dtype(w)))


@lowers(arith.FPToSIOp)
def _fptosi(op):
    w = _width(op)
    return lambda ctx, args, mask: (float_to_int(args[0], w, True),)


@lowers(arith.FPToUIOp)
def _fptoui(op):
    w = _width(op)
    return lambda ctx, args, mask: (float_to_int(args[0], w, False),)


@lowers(arith.ExtFOp)
def _extf(op):
    dtype = _fdtype(op.results[0].type)
    return lambda ctx, args, mask: (scalar(np.asarray(args[0]).astype(dtype)),)


@lowers(arith.TruncFOp)
def _truncf(op):
    """`cvt.rn`: one rounding to nearest even (a NaN becomes the canonical NaN)."""
    _fdtype(op.results[0].type)
    convert = to_float(op.results[0].type)
    assert convert is not None
    return lambda ctx, args, mask: (convert(args[0]),)


@lowers(arith.BitcastOp)
def _bitcast(op):
    source, target = op.operands[0].type, op.results[0].type
    dtype = float_dtype(target)
    if dtype is None:
        dtype = lane_dtype(_width(op))
    if is_bf16(source) and is_bf16(target):
        return lambda ctx, args, mask: (args[0],)
    if is_bf16(source):  # the bf16's 16 bits, from the float32 that holds it
        return lambda ctx, args, mask: (scalar(narrow(args[0]).view(dtype)),)
    if is_bf16(target):
        return lambda ctx, args, mask: (scalar(widen(np.asarray(args[0]).view(np.uint16))),)
    return lambda ctx, args, mask: (scalar(np.asarray(args[0]).view(dtype)),)


FerroxArithFunctions = scalar_functions(
    "FerroxArithFunctions",
    [o for o in vars(arith).values() if isinstance(o, type) and issubclass(o, Operation)],
)
"""The definitions above as xDSL implementations on scalars (Python ints, bools, NumPy
floats), for the host runner and the tile interpreter."""

__all__ = ["FerroxArithFunctions", "as_int", "as_signed", "as_unsigned", "float_to_int"]
