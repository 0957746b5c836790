"""Creation ops build exactly the data docs/dialects/host.md specifies, with NumPy's calls."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IntegerType,
    Signedness,
    f32,
    f64,
    i1,
    i32,
)

from ferrox.dialects.host import Distribution
from ferrox.driver.host_runner import creation
from ferrox.driver.host_runner.dtypes import BF16, cast, numpy_dtype, round_bf16, runtime_elem

UI8 = IntegerType(8, Signedness.UNSIGNED)


def test_element_types_map_to_numpy():
    assert numpy_dtype(f32) == np.float32 and numpy_dtype(f64) == np.float64
    assert numpy_dtype(Float16Type()) == np.float16
    assert (
        numpy_dtype(i32) == np.int32
        and numpy_dtype(i1) == np.bool_
        and numpy_dtype(UI8) == np.uint8
    )
    assert [runtime_elem(t) for t in (f32, i32, i1, UI8, BFloat16Type())] == [
        "f32",
        "i32",
        "i1",
        "u8",
        "bf16",
    ]


def test_random_is_default_rng_of_the_seed():
    got = creation.random((3, 5), Distribution.UNIFORM, -1.0, 1.0, 42, f32)
    want = np.random.default_rng(42).uniform(-1.0, 1.0, size=(3, 5)).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float32 and got.flags.c_contiguous
    normal = creation.random((7,), Distribution.NORMAL, 1.0, 2.0, 7, f64)
    np.testing.assert_array_equal(normal, np.random.default_rng(7).normal(1.0, 2.0, size=(7,)))


def test_integer_random_floors_uniform_and_rounds_normal():
    uniform = creation.random((1000,), Distribution.UNIFORM, 0.0, 10.0, 3, i32)
    np.testing.assert_array_equal(
        uniform, np.floor(np.random.default_rng(3).uniform(0, 10, 1000)).astype(np.int32)
    )
    assert uniform.min() == 0 and uniform.max() == 9
    normal = creation.random((100,), Distribution.NORMAL, 0.0, 3.0, 4, i32)
    np.testing.assert_array_equal(
        normal, np.rint(np.random.default_rng(4).normal(0, 3, 100)).astype(np.int32)
    )


def test_poison_zeros_full_arange():
    assert np.isnan(creation.poison((4,), f32)).all()
    assert (creation.poison((2, 2), i32) == np.iinfo(np.int32).max).all()
    assert creation.poison((3,), i1).all() and creation.poison((3,), UI8).tolist() == [255] * 3
    assert creation.zeros((2, 3), i32).tolist() == [[0, 0, 0], [0, 0, 0]]
    assert creation.full((3,), np.float32(1.5), f32).tolist() == [1.5, 1.5, 1.5]
    np.testing.assert_array_equal(
        creation.arange((2, 3), 1.0, 0.5, f32), [[1.0, 1.5, 2.0], [2.5, 3.0, 3.5]]
    )


@pytest.mark.skipif(BF16 is not None, reason="checks the float32 fallback used without ml_dtypes")
def test_bf16_without_ml_dtypes_is_float32_rounded_to_bf16():
    x = np.array([1.0, 1.00390625, 1.005859375, 3.0e38, np.nan, -0.0], dtype=np.float32)
    r = round_bf16(x)
    assert r.dtype == np.float32
    assert r[0] == 1.0 and r[1] == 1.0  # halfway: ties to even (mantissa 0)
    assert r[2] == np.float32(1.0078125)  # above halfway rounds up
    assert np.isnan(r[4]) and np.signbit(r[5])
    assert ((r[:4].view(np.uint32) & 0xFFFF) == 0).all()
    got = creation.random((5,), Distribution.UNIFORM, 0.0, 1.0, 1, BFloat16Type())
    np.testing.assert_array_equal(
        got, round_bf16(np.random.default_rng(1).uniform(0, 1, 5).astype(np.float32))
    )


def test_bf16_is_rounded_once_from_float64():
    """f64 -> f32 -> bf16 would round 1 + 2^-8 + 2^-30 to the halfway point, then to even (1.0);
    rounded once it is above halfway, so 1.0078125."""
    half = 1.0 + 2.0**-8
    got = np.asarray(
        cast(np.array([half + 2.0**-30, half - 2.0**-30, half, -2.5e39, 1e-45]), BFloat16Type())
    )
    np.testing.assert_array_equal(got.astype(np.float32), [1.0078125, 1.0, 1.0, -np.inf, 0.0])
