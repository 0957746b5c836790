"""bf16 and f16 memory on the SIMT engine, bit for bit against references written from the
formats' definitions (Python fractions: 8 or 11 significant bits, the exponent range,
subnormals, overflow to infinity, ties to even; any NaN a conversion makes is 0x7FFF, as CUDA's
conversion makes it): loads widen exactly, conversions and arithmetic round once, results come
back into the caller's arrays."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from ferrox.driver.interpreter import LaunchError, run_simt_kernel
from ferrox.driver.interpreter.bf16 import (
    Bf16Bits,
    bf16_bits,
    round_f32_bits,
    round_f64_bits,
    to_bf16,
)
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

BF16 = (8, -126, 127)  # significant bits, smallest normal exponent, largest exponent
F16 = (11, -14, 15)


def ref_round(x: Fraction | float, fmt: tuple[int, int, int]) -> float:
    """`x` rounded to nearest, ties to even, in a binary format (subnormals, overflow to inf),
    as a Python float (every bf16 and f16 value is one); NaN and infinities as they are."""
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return x
    precision, emin, emax = fmt
    value = Fraction(x)
    if value == 0:
        return math.copysign(0.0, x) if isinstance(x, float) else 0.0
    sign = -1 if value < 0 else 1
    mag = abs(value)
    e = math.floor(math.log2(mag))  # exponent of the leading bit (fixed up below)
    while Fraction(2) ** e > mag:
        e -= 1
    while Fraction(2) ** (e + 1) <= mag:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - (precision - 1))
    q = round(mag / quantum)  # Fraction rounds half to even
    rounded = q * quantum
    largest = (2 - Fraction(2) ** (1 - precision)) * Fraction(2) ** emax
    if rounded > largest:
        return sign * math.inf
    return sign * float(rounded)


def ref_bf16_bits(x: float) -> int:
    if math.isnan(x):
        return 0x7FFF
    r = np.float32(ref_round(x, BF16))
    return int(r.view(np.uint32)) >> 16


def ref_f16_bits(x: float) -> int:
    if math.isnan(x):
        return 0x7FFF
    return int(np.float16(ref_round(x, F16)).view(np.uint16))


def f32_cases(rng, n: int) -> np.ndarray:
    """Random f32 bit patterns (every class), exact ties, the subnormal and overflow edges."""
    ties = [0x3F808000, 0x3F818000, 0xBF808000, 0x00008000, 0x00018000, 0x7F7F8000, 0x7F7FFFFF]
    edges = [0, 0x80000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x7F800000, 0xFF800000]
    nans = [0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FFF8000]
    near = (rng.integers(0, 2**16, n // 4) << 16) | 0x8000  # every one a tie
    bits = np.concatenate(
        [
            np.array(ties + edges + nans, np.uint64),
            near.astype(np.uint64),
            rng.integers(0, 2**32, n, dtype=np.uint64),
        ]
    )
    return bits.astype(np.uint32).view(np.float32)


@pytest.fixture
def rng():
    return np.random.default_rng(11)


def kernels(text: str):
    module = parse_module(make_context(), "builtin.module {\n" + text + "\n}", "bf16.mlir")
    verify_module(module)
    return module


def unary(name: str, src: str, dst: str, body: str) -> str:
    return f"""
  simt.kernel @{name}(%x: !simt.slice<{src}>, %out: !simt.disjoint_slice<{dst}, 1d>)
      contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {{
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<{dst}, 1d>, !simt.thread_index<1d> {{
    ^bb0(%old: {dst}):
      %v = simt.load %x[%i] : !simt.slice<{src}>
      {body}
      simt.yield %r : {dst}
    }}
    simt.return
  }}"""


def ternary(name: str, t: str, body: str) -> str:
    return f"""
  simt.kernel @{name}(%a: !simt.slice<{t}>, %b: !simt.slice<{t}>, %c: !simt.slice<{t}>,
                      %out: !simt.disjoint_slice<{t}, 1d>)
      contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg3)]> {{
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<{t}, 1d>, !simt.thread_index<1d> {{
    ^bb0(%old: {t}):
      %x = simt.load %a[%i] : !simt.slice<{t}>
      %y = simt.load %b[%i] : !simt.slice<{t}>
      %z = simt.load %c[%i] : !simt.slice<{t}>
      {body}
      simt.yield %r : {t}
    }}
    simt.return
  }}"""


MODULE = "\n".join(
    [
        unary("narrow_bf16", "f32", "bf16", "%r = arith.truncf %v : f32 to bf16"),
        unary("narrow64_bf16", "f64", "bf16", "%r = arith.truncf %v : f64 to bf16"),
        unary("widen_bf16", "bf16", "f32", "%r = arith.extf %v : bf16 to f32"),
        unary("copy_bf16", "bf16", "bf16", "%r = arith.negf %v : bf16"),
        unary("bits_bf16", "bf16", "i16", "%r = arith.bitcast %v : bf16 to i16"),
        unary("narrow_f16", "f32", "f16", "%r = arith.truncf %v : f32 to f16"),
        unary("widen_f16", "f16", "f32", "%r = arith.extf %v : f16 to f32"),
        ternary("add_bf16", "bf16", "%r = arith.addf %x, %y : bf16"),
        ternary("mul_bf16", "bf16", "%r = arith.mulf %x, %y : bf16"),
        ternary("div_bf16", "bf16", "%r = arith.divf %x, %y : bf16"),
        ternary("fma_bf16", "bf16", "%r = math.fma %x, %y, %z : bf16"),
        ternary("add_f16", "f16", "%r = arith.addf %x, %y : f16"),
    ]
)


@pytest.fixture(scope="module")
def module():
    return kernels(MODULE)


def run(module, name: str, *arrays) -> None:
    n = len(arrays[-1])
    run_simt_kernel(module, name, (-(-n // 256), 1, 1), (256, 1, 1), list(arrays))


def poisoned_bf16(n: int) -> Bf16Bits:
    return bf16_bits(np.full(n, 0x7FC1, np.uint16))  # a NaN no result has


def u16(a: np.ndarray) -> list[int]:
    return [int(v) for v in np.asarray(a).view(np.uint16)]


# --- the conversions themselves ---------------------------------------------------------------
def test_f32_to_bf16_rounding_is_the_definition(rng):
    xs = f32_cases(rng, 20000)
    assert u16(round_f32_bits(xs)) == [ref_bf16_bits(float(x)) for x in xs]


def test_f64_to_bf16_rounds_once(rng):
    # 1 + 2^-8 + 2^-40: through f32 it would round to the tie 1 + 2^-8, then down to 1
    special = [1 + 2**-8 + 2**-40, -(1 + 2**-8 + 2**-40), 1 + 2**-8, 3.3961e38, 1e300, 1e-300]
    xs = np.concatenate(
        [special, rng.standard_normal(5000) * 10.0 ** rng.integers(-45, 39, 5000), [np.nan]]
    )
    assert u16(round_f64_bits(xs)) == [ref_bf16_bits(float(x)) for x in xs]


def test_bf16_bits_carrier():
    raw = np.array([0x3F80, 0xC000], np.uint16)
    marked = bf16_bits(raw)
    assert isinstance(marked, Bf16Bits) and np.shares_memory(marked, raw)
    assert list(marked.float32()) == [1.0, -2.0]
    assert isinstance(marked[:1], Bf16Bits) and isinstance(marked.reshape(2, 1), Bf16Bits)
    summed = marked + marked  # bit patterns added are no bf16 values: a plain array
    assert type(summed) is np.ndarray and summed.dtype == np.uint16
    assert u16(to_bf16(np.array([1, 257, 2**60 + 2**52], np.int64))) == [0x3F80, 0x4380, 0x5D80]
    with pytest.raises(TypeError) as info:
        bf16_bits(np.zeros(2, np.float32))
    assert str(info.value) == (
        "bf16_bits takes an array of 16-bit bf16 bit patterns (uint16), got float32; "
        "to_bf16(values) rounds floats to bf16"
    )


# --- memory on the engine ---------------------------------------------------------------------
def test_truncf_stores_round_to_nearest_even_bit_for_bit(module, rng):
    xs = f32_cases(rng, 6000)
    out = poisoned_bf16(len(xs))
    run(module, "narrow_bf16", xs, out)
    assert u16(out) == [ref_bf16_bits(float(x)) for x in xs]


def test_f64_truncf_to_bf16_rounds_once(module, rng):
    xs = np.concatenate([[1 + 2**-8 + 2**-40, -(2**-140)], rng.standard_normal(3000) * 1e-38])
    out = poisoned_bf16(len(xs))
    run(module, "narrow64_bf16", xs, out)
    assert u16(out) == [ref_bf16_bits(float(x)) for x in xs]


def test_loads_widen_exactly_and_stores_keep_every_bit(module, rng):
    bits = rng.integers(0, 2**16, 5000, dtype=np.uint64).astype(np.uint16)  # NaN payloads too
    out = np.full(len(bits), np.nan, np.float32)
    run(module, "widen_bf16", bf16_bits(bits), out)
    assert (out.view(np.uint32) == bits.astype(np.uint32) << 16).all()
    copied = poisoned_bf16(len(bits))
    run(module, "copy_bf16", bf16_bits(bits), copied)  # negf: the sign bit flipped, nothing else
    assert u16(copied) == [int(b) ^ 0x8000 for b in bits]
    raw = np.full(len(bits), 7, np.int16)
    run(module, "bits_bf16", bf16_bits(bits), raw)
    assert (raw.view(np.uint16) == bits).all()


def finite_bf16(rng, n: int) -> np.ndarray:
    """Random finite bf16 bit patterns (subnormals included)."""
    bits = rng.integers(0, 2**16, n, dtype=np.uint64).astype(np.uint16)
    return bits[(bits & 0x7F80) != 0x7F80]


@pytest.mark.parametrize(
    ("name", "exact"),
    [
        ("add_bf16", lambda x, y, z: x + y),
        ("mul_bf16", lambda x, y, z: x * y),
        ("div_bf16", lambda x, y, z: x / y if y != 0 else None),
        ("fma_bf16", lambda x, y, z: x * y + z),
    ],
)
def test_bf16_arithmetic_rounds_once(module, rng, name, exact):
    a, b, c = (finite_bf16(rng, 4000)[:3000] for _ in range(3))
    # same exponents now and then, so that sums cancel and round at every scale
    b[:500] = (a[:500] & 0xFF80) | (b[:500] & 0x007F)
    out = poisoned_bf16(len(a))
    run(module, name, bf16_bits(a), bf16_bits(b), bf16_bits(c), out)
    wide = [bf16_bits(v).float32() for v in (a, b, c)]
    for i, got in enumerate(u16(out)):
        x, y, z = (Fraction(float(w[i])) for w in wide)
        value = exact(x, y, z)
        if value is None:  # division by zero: IEEE's infinities and NaN
            continue
        if value == 0:  # the sign of an exact zero: the float computation's
            continue
        assert got == ref_bf16_bits(ref_round(value, BF16)), (name, i, x, y, z)


def test_f16_truncf_and_arithmetic(module, rng):
    xs = f32_cases(rng, 4000)
    out = np.full(len(xs), 7, np.float16)
    run(module, "narrow_f16", xs, out)
    assert u16(out) == [ref_f16_bits(float(x)) for x in xs]
    halves = rng.integers(0, 2**16, 3000, dtype=np.uint64).astype(np.uint16).view(np.float16)
    wide = np.full(len(halves), np.nan, np.float32)
    run(module, "widen_f16", halves, wide)
    assert np.array_equal(wide, halves.astype(np.float32), equal_nan=True)
    a = halves[np.isfinite(halves)][:2000]
    b = np.roll(a, 1)
    summed = np.full(len(a), np.nan, np.float16)
    run(module, "add_f16", a, b, b, summed)
    expected = [ref_round(Fraction(float(x)) + Fraction(float(y)), F16) for x, y in zip(a, b)]
    nonzero = [i for i, e in enumerate(expected) if e != 0]
    assert [float(summed[i]) for i in nonzero] == [expected[i] for i in nonzero]


def test_a_bf16_slice_refuses_a_plain_uint16_array(module):
    with pytest.raises(LaunchError) as info:
        run(module, "widen_bf16", np.zeros(4, np.uint16), np.zeros(4, np.float32))
    assert str(info.value) == (
        "%x (argument 0 of @widen_bf16) holds bf16, but the array's dtype is uint16: pass bf16 "
        "bit patterns as ferrox.bf16_bits(array), an ml_dtypes bfloat16 array, or float32"
    )


def test_results_reach_the_caller_even_when_the_kernel_faults(rng):
    text = """
  simt.kernel @half_then_trap(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<bf16, 1d>)
      contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<bf16, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: bf16):
      %v = simt.load %x[%i] : !simt.slice<f32>
      %r = arith.truncf %v : f32 to bf16
      simt.yield %r : bf16
    }
    %big = arith.constant 1000000 : index
    %bad = simt.load %x[%big] : !simt.slice<f32>
    simt.return
  }"""
    from ferrox.driver.interpreter import KernelFault

    xs = rng.standard_normal(256).astype(np.float32)
    out = poisoned_bf16(256)
    with pytest.raises(KernelFault):
        run_simt_kernel(kernels(text), "half_then_trap", (1, 1, 1), (256, 1, 1), [xs, out])
    assert u16(out) == u16(to_bf16(xs))  # what the threads wrote before the trap is written
