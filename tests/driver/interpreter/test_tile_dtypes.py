"""The tile interpreter's element types: bf16 rounding and tile.astype's conversions, against
exact references computed with Python fractions."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType

from ferrox.driver.interpreter.tile_ops.dtypes import (
    bf16_bits_round,
    convert,
    f32_round_to_odd,
    float_to_int,
    int_to_float,
    round_to,
)

BF16, F16, F32, F64 = BFloat16Type(), Float16Type(), Float32Type(), Float64Type()


@pytest.fixture
def rng():
    return np.random.default_rng(5)


def exact_round(x: float, precision: int, emin: int, emax: int) -> float:
    """`x` rounded to nearest, ties to even, in a binary format (subnormals, overflow to inf)."""
    if math.isnan(x) or math.isinf(x) or x == 0:
        return x
    _, e = math.frexp(abs(x))
    quantum = Fraction(2) ** (max(e - 1, emin) - (precision - 1))
    q = round(Fraction(abs(x)) / quantum)  # Fraction rounds half to even
    value = q * quantum
    if value >= Fraction(2) ** (emax + 1):
        return math.copysign(math.inf, x)
    return math.copysign(float(value), x)


def bf16_exact(x) -> float:
    return exact_round(float(x), 8, -126, 127)


def f32_bits(rng, n):
    return rng.integers(0, 2**32, size=n, dtype=np.uint64).astype(np.uint32).view(np.float32)


def same(a, b) -> bool:
    """Equal as values, NaN equal to NaN, and zeros with their sign."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return bool(
        np.array_equal(a, b, equal_nan=True) and np.array_equal(np.signbit(a), np.signbit(b))
    )


def test_bf16_round_of_every_f32_class_is_exact(rng):
    specials = np.array(
        [
            0.0,
            -0.0,
            np.inf,
            -np.inf,
            1.0,
            1.00390625,
            1.005859375,
            3.4e38,
            -3.4e38,
            1e-40,
            9.2e-41,
            np.finfo(np.float32).max,
            np.finfo(np.float32).tiny,
        ],
        dtype=np.float32,
    )
    xs = np.concatenate([specials, f32_bits(rng, 20000)])
    got = bf16_bits_round(xs)
    finite = ~np.isnan(xs)
    assert same(got[finite], [bf16_exact(x) for x in xs[finite]])
    assert np.isnan(got[~finite]).all()
    assert (got.view(np.uint32) & 0xFFFF == 0).all()


def test_bf16_round_makes_every_nan_the_canonical_nan_even_below_the_cut():
    # cvt.rn.bf16.f32 of any NaN is 0x7FFF; the bit trick alone would make 0x7F800001 an
    # infinity and carry 0xFFFFFFFF's sign away
    nan = np.array([0x7F800001, 0xFF800001, 0x7FC00000, 0xFFFFFFFF], np.uint32).view(np.float32)
    got = bf16_bits_round(nan)
    assert list(got.view(np.uint32)) == [0x7FFF0000] * 4


def test_f64_to_bf16_rounds_once(rng):
    # 1 + 2^-8 + 2^-40: f64 -> f32 would round to the tie 1 + 2^-8 and then down to 1.
    ties = np.array(
        [
            1 + 2**-8 + 2**-40,
            -(1 + 2**-8 + 2**-40),
            1 + 2**-8,
            3.3961e38,
            3.3962e38,
            1e300,
            1e-300,
            -1e-45,
        ]
    )
    xs = np.concatenate([ties, rng.standard_normal(5000) * 10.0 ** rng.integers(-40, 40, 5000)])
    got = round_to(BF16, xs)
    assert same(got, [bf16_exact(x) for x in xs])
    assert float(got[0]) == 1 + 2**-7


def test_f32_round_to_odd_is_truncation_with_a_sticky_bit():
    xs = np.array([1 + 2**-30, 1 - 2**-40, -(1 + 2**-30), 1e39, 1e-50, 2.0, np.inf, np.nan])
    got = f32_round_to_odd(xs)
    assert got[0] == np.float32(1 + 2**-23)  # truncate to 1, then set the last bit
    assert got[1] == np.nextafter(np.float32(1), np.float32(0))  # already odd after truncation
    assert got[2] == -np.float32(1 + 2**-23)
    assert got[3] == np.finfo(np.float32).max  # truncation never overflows
    assert got[4].view(np.uint32) == 1  # the smallest subnormal, odd
    assert got[5] == 2.0 and np.isinf(got[6]) and np.isnan(got[7])


@pytest.mark.parametrize(
    ("dst", "precision", "emin", "emax"),
    [(F16, 11, -14, 15), (F32, 24, -126, 127), (BF16, 8, -126, 127)],
)
def test_int_to_float_rounds_once(rng, dst, precision, emin, emax):
    xs = np.concatenate(
        [
            np.array(
                [2**24 + 2**16 + 1, 2**60 + 2**36 + 1, -(2**63), 2**63 - 1, 65519, 65520, 0, -1],
                dtype=np.int64,
            ),
            rng.integers(-(2**63), 2**63 - 1, size=2000, dtype=np.int64),
            rng.integers(-(2**20), 2**20, size=2000, dtype=np.int64),
        ]
    )
    got = int_to_float(xs, dst)
    assert same(
        got,
        [
            exact_round(
                float(Fraction(int(x)))
                if abs(int(x)) < 2**53
                else _exact_int(int(x), precision, emax),
                precision,
                emin,
                emax,
            )
            for x in xs
        ],
    )


def _exact_int(value: int, precision: int, emax: int) -> float:
    """A large integer rounded to `precision` bits exactly (float(value) would round first)."""
    magnitude = abs(value)
    excess = magnitude.bit_length() - precision
    q, r = divmod(magnitude, 1 << excess)
    half = 1 << (excess - 1)
    if r > half or (r == half and q & 1):
        q += 1
    result = q << excess
    return math.copysign(math.inf if result >= 2 ** (emax + 1) else float(result), value)


def test_int32_to_bf16_and_f16(rng):
    xs = rng.integers(-(2**31), 2**31 - 1, size=5000, dtype=np.int64).astype(np.int32)
    assert same(int_to_float(xs, BF16), [bf16_exact(int(x)) for x in xs])
    small = rng.integers(-70000, 70000, size=5000).astype(np.int32)
    assert same(int_to_float(small, F16), [exact_round(int(x), 11, -14, 15) for x in small])


@pytest.mark.parametrize("width", [8, 16, 32, 64])
def test_float_to_int_truncates_and_saturates_like_cvt_rzi_sat(width):
    lo, hi = -(2 ** (width - 1)), 2 ** (width - 1) - 1
    xs = np.array(
        [
            np.nan,
            np.inf,
            -np.inf,
            1e30,
            -1e30,
            2.9,
            -2.9,
            0.5,
            -0.5,
            -0.0,
            float(hi) + 10,
            float(lo) - 10,
            float(lo),
            100.0,
            -100.0,
        ]
    )
    got = float_to_int(xs, width)
    expected = [0, hi, lo, hi, lo, 2, -2, 0, 0, 0, hi, lo, lo, min(100, hi), max(-100, lo)]
    assert got.dtype == np.dtype(f"int{width}")
    assert [int(v) for v in got] == expected


def test_float_to_int64_near_the_top_of_the_range():
    xs = np.array([2.0**63, 2.0**63 - 1024, -(2.0**63), 9.2e18])
    assert [int(v) for v in float_to_int(xs, 64)] == [
        2**63 - 1,
        2**63 - 1024,
        -(2**63),
        9200000000000000000,
    ]


def test_float_to_int_of_a_rank_0_tile():
    assert float_to_int(np.array(-7.9, dtype=np.float32), 32)[()] == -7


I1, I8, I32 = IntegerType(1), IntegerType(8), IntegerType(32)


def test_convert_between_integer_widths_and_i1():
    x = np.array([-129, -128, -1, 0, 1, 127, 128, 255, 256], dtype=np.int32)
    assert list(convert(x, I32, I8)) == [127, -128, -1, 0, 1, 127, -128, -1, 0]  # low bits
    assert list(convert(x.astype(np.int8), I8, I32)) == [
        127,
        -128,
        -1,
        0,
        1,
        127,
        -128,
        -1,
        0,
    ]  # sign-extends
    assert list(convert(x, I32, I1)) == [True, True, True, False, True, True, True, True, True]
    b = np.array([True, False])
    assert list(convert(b, I1, I32)) == [1, 0]  # i1 is unsigned
    assert list(convert(b, I1, F32)) == [1.0, 0.0]
    assert list(convert(np.array([np.nan, 0.0, -0.0, 1e-45], dtype=np.float32), F32, I1)) == [
        True,
        False,
        False,
        True,
    ]


def test_convert_between_floats():
    x = np.array(
        [1.0009765625, 65520.0, 1e-8, np.nan, -np.inf, 1 + 2**-11 + 2**-30], dtype=np.float64
    )
    h = convert(x, F64, F16)
    assert h.dtype == np.float16
    assert same(h, [exact_round(float(v), 11, -14, 15) for v in x])
    assert same(convert(h, F16, F32), h.astype(np.float64))  # widening is exact


def test_bf16_tiles_are_float32_of_bf16_values(rng):
    xs = f32_bits(rng, 2000)
    with np.errstate(invalid="ignore"):  # signalling NaNs among the random bits
        got = round_to(BF16, xs.astype(np.float64))
    assert got.dtype == np.float32
    assert (got.view(np.uint32) & 0xFFFF == 0).all()
