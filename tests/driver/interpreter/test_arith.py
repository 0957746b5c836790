"""Scalar arithmetic as the GPU computes it: f32 rounding, signless integers, PTX's casts."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter import run_simt_kernel


def run_scalar(kernel, ops: str, arg_types: str, args, result_type: str):
    """Run `ops` (computing %r from %a, %b, ...) in one thread; return %r."""
    text = f"""
  simt.kernel @k(%out: !simt.ptr<{result_type}>, {arg_types}) unsafe {{
    %c0 = arith.constant 0 : index
{ops}
    simt.ptr_store %r, %out[%c0] : !simt.ptr<{result_type}>
    simt.return
  }}
"""
    dtype = {
        "f32": np.float32,
        "f64": np.float64,
        "f16": np.float16,
        "i32": np.int32,
        "i64": np.int64,
        "index": np.int64,
        "i1": np.bool_,
        "i8": np.int8,
    }[result_type]
    out = np.zeros(1, dtype)
    run_simt_kernel(kernel(text), "k", (1, 1, 1), (1, 1, 1), [out, *args])
    return out[0]


def test_f32_add_rounds_to_f32(kernel):
    r = run_scalar(
        kernel, "    %r = arith.addf %a, %b : f32", "%a: f32, %b: f32", [1.0, 2.0**-24], "f32"
    )
    assert r == np.float32(1.0)  # a tie, to even; in f64 it would be 1 + 2^-24
    r = run_scalar(
        kernel,
        "    %r = arith.addf %a, %b : f32",
        "%a: f32, %b: f32",
        [1.0, 2.0**-23 + 2.0**-40],
        "f32",
    )
    assert r == np.float32(1.0) + np.float32(2.0**-23)


def test_f32_constant_and_division(kernel):
    ops = "    %t = arith.constant 0.1 : f32\n    %r = arith.divf %a, %t : f32"
    r = run_scalar(kernel, ops, "%a: f32", [1.0], "f32")
    assert r == np.float32(1.0) / np.float32(0.1) and isinstance(r, np.float32)


def test_f16_stays_f16(kernel):
    r = run_scalar(
        kernel, "    %r = arith.mulf %a, %b : f16", "%a: f16, %b: f16", [1.001, 3.0], "f16"
    )
    assert r == np.float16(1.001) * np.float16(3.0)


def test_fma_rounds_once(kernel):
    a = 1.0 + 2.0**-12  # a * a = 1 + 2^-11 + 2^-24: mulf rounds the 2^-24 away, fma keeps it
    c = -(1.0 + 2.0**-11)
    fused = run_scalar(
        kernel, "    %r = math.fma %a, %a, %c : f32", "%a: f32, %c: f32", [a, c], "f32"
    )
    split = run_scalar(
        kernel,
        "    %p = arith.mulf %a, %a : f32\n    %r = arith.addf %p, %c : f32",
        "%a: f32, %c: f32",
        [a, c],
        "f32",
    )
    assert fused == np.float32(2.0**-24) and split == 0.0
    r = run_scalar(
        kernel,
        "    %r = math.fma %a, %a, %c : f64",
        "%a: f64, %c: f64",
        [1.0 + 2.0**-30, -(1.0 + 2.0**-29)],
        "f64",
    )
    assert r == 2.0**-60


def test_fma_rounds_once_at_a_midpoint_of_f32(kernel):
    """The exact sum lies 2^-70 below the midpoint of 1 + 2^-23 and 1 + 2^-22, where f64
    rounds it: rounding that again to f32 (to even) would give 1 + 2^-22."""
    a, b = 1.0 + 2.0**-23, 2.0**-24 * (1.0 - 2.0**-23)  # a * b = 2^-24 - 2^-70, exact in f64
    c = 1.0 + 2.0**-23
    assert (a * b + c) == 1.0 + 3 * 2.0**-24  # the f64 sum: that midpoint
    r = run_scalar(
        kernel, "    %r = math.fma %a, %b, %c : f32", "%a: f32, %b: f32, %c: f32", [a, b, c], "f32"
    )
    assert r == np.float32(1.0 + 2.0**-23)


def test_transcendentals_are_rounded_to_f32(kernel):
    r = run_scalar(kernel, "    %r = math.exp %a : f32", "%a: f32", [1.0], "f32")
    assert r == np.float32(np.exp(1.0)) and isinstance(r, np.float32)
    r = run_scalar(kernel, "    %r = math.sqrt %a : f32", "%a: f32", [2.0], "f32")
    assert r == np.sqrt(np.float32(2.0))


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        ("maximumf", np.nan, 1.0, np.nan),
        ("minimumf", 1.0, np.nan, np.nan),
        ("maxnumf", np.nan, 1.0, 1.0),
        ("minnumf", 2.0, np.nan, 2.0),
        ("maximumf", -0.0, 0.0, 0.0),
        ("minimumf", 0.0, -0.0, -0.0),
    ],
)
def test_float_min_max(kernel, op, a, b, expected):
    r = run_scalar(kernel, f"    %r = arith.{op} %a, %b : f32", "%a: f32, %b: f32", [a, b], "f32")
    assert (np.isnan(r) and np.isnan(expected)) or (
        r == expected and np.signbit(r) == np.signbit(expected)
    )


@pytest.mark.parametrize(
    ("predicate", "expected"),
    [("oeq", False), ("une", True), ("ult", True), ("olt", False), ("uno", True)],
)
def test_cmpf_with_nan(kernel, predicate, expected):
    r = run_scalar(
        kernel,
        f"    %r = arith.cmpf {predicate}, %a, %b : f32",
        "%a: f32, %b: f32",
        [np.nan, 1.0],
        "i1",
    )
    assert bool(r) is expected


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        ("divui", -8, 3, (2**32 - 8) // 3),
        ("remui", -8, 3, (2**32 - 8) % 3),
        ("divsi", -7, 2, -3),
        ("remsi", -7, 2, -1),
        ("floordivsi", -7, 2, -4),
        ("ceildivsi", 7, 2, 4),
        ("shrui", -16, 2, (2**32 - 16) >> 2),
        ("shrsi", -16, 2, -4),
        ("shli", 3, 33, 0),  # a shift past the width: PTX clamps, giving 0
        ("shrsi", -16, 40, -1),
        ("maxui", -1, 5, -1),
        ("minsi", -1, 5, -1),
        ("addi", 2**31 - 1, 1, -(2**31)),
        ("muli", 65536, 65536, 0),
    ],
)
def test_integer_ops_are_signless(kernel, op, a, b, expected):
    r = run_scalar(kernel, f"    %r = arith.{op} %a, %b : i32", "%a: i32, %b: i32", [a, b], "i32")
    assert int(r) == (expected if expected < 2**31 else expected - 2**32)


def test_integer_casts(kernel):
    r = run_scalar(kernel, "    %r = arith.extui %a : i8 to i32", "%a: i8", [-1], "i32")
    assert r == 255
    r = run_scalar(kernel, "    %r = arith.extsi %a : i8 to i32", "%a: i8", [-1], "i32")
    assert r == -1
    r = run_scalar(kernel, "    %r = arith.trunci %a : i32 to i8", "%a: i32", [0x1FF], "i8")
    assert r == -1
    r = run_scalar(kernel, "    %r = arith.index_cast %a : i32 to index", "%a: i32", [-5], "index")
    assert r == -5
    r = run_scalar(
        kernel,
        "    %x = arith.constant true\n    %r = arith.extui %x : i1 to i32",
        "%a: i32",
        [0],
        "i32",
    )
    assert r == 1


def test_int_to_float_rounds_once(kernel):
    # 2^60 + 2^36 + 1 is just above half an f32 ulp (2^37) past 2^60: it rounds up. Through f64
    # it would first become the tie 2^60 + 2^36 and then round to even, down to 2^60.
    x = 2**60 + 2**36 + 1
    r = run_scalar(kernel, "    %r = arith.sitofp %a : i64 to f32", "%a: i64", [x], "f32")
    assert int(r) == 2**60 + 2**37
    r = run_scalar(kernel, "    %r = arith.uitofp %a : i32 to f32", "%a: i32", [-1], "f32")
    assert r == np.float32(2.0**32)


@pytest.mark.parametrize(
    ("value", "expected"), [(3.9, 3), (-3.9, -3), (1e20, 2**31 - 1), (-1e20, -(2**31)), (np.nan, 0)]
)
def test_float_to_int_saturates_like_cvt_rzi(kernel, value, expected):
    r = run_scalar(kernel, "    %r = arith.fptosi %a : f32 to i32", "%a: f32", [value], "i32")
    assert r == expected


def test_bitcast(kernel):
    r = run_scalar(kernel, "    %r = arith.bitcast %a : f32 to i32", "%a: f32", [1.0], "i32")
    assert r == 0x3F800000
    r = run_scalar(kernel, "    %r = arith.bitcast %a : i32 to f32", "%a: i32", [-(2**31)], "f32")
    assert r == 0.0 and np.signbit(r)
