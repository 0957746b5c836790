"""How IR values live in Python, so that every result is what the GPU computes.

- Integers of every width and `index` are canonical signed Python ints (xDSL's convention;
  `i1` may also be a Python bool). Unsigned ops reinterpret with `unsigned`.
- Floats are NumPy scalars of their own width (`np.float32` for f32): NumPy rounds each
  operation to that width, as the GPU does, where Python floats would silently compute in f64.
- Memory is NumPy arrays; integer arrays are viewed as the signed dtype of their width, so a
  signless `i32` slice may be given as int32 or uint32.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)
from xdsl.ir import Attribute

INDEX_WIDTH = 64

_FLOATS: dict[type[Attribute], np.dtype] = {
    Float16Type: np.dtype(np.float16),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
}
_SIGNED = {
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}
_PRECISION = {np.dtype(np.float16): 11, np.dtype(np.float32): 24, np.dtype(np.float64): 53}


def unsigned(value: int, width: int) -> int:
    return int(value) & ((1 << width) - 1)


def signed(value: int, width: int) -> int:
    value = int(value) & ((1 << width) - 1)
    return value - (1 << width) if value >> (width - 1) else value


def int_width(t: Attribute) -> int | None:
    """Bit width of an integer or index type, else None."""
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, IndexType):
        return INDEX_WIDTH
    return None


def float_dtype(t: Attribute) -> np.dtype | None:
    return _FLOATS.get(type(t))


def storage_dtype(t: Attribute) -> np.dtype:
    """The NumPy dtype memory of element type `t` is read and written as."""
    floating = float_dtype(t)
    if floating is not None:
        return floating
    width = int_width(t)
    if width == 1:
        return np.dtype(np.bool_)
    if width in _SIGNED:
        return _SIGNED[width]
    if isinstance(t, BFloat16Type):
        raise TypeError("bf16 has no NumPy type; the interpreter cannot hold bf16 memory")
    raise TypeError(f"the interpreter has no memory representation for {t}")


def accepts(t: Attribute, dtype: np.dtype) -> bool:
    """Whether an array of `dtype` may back a slice of `t` (integers are signless)."""
    want = storage_dtype(t)
    if dtype == want:
        return True
    return want.kind == "i" and dtype.kind == "u" and dtype.itemsize == want.itemsize


def as_storage(array: np.ndarray, t: Attribute) -> np.ndarray:
    """`array` reinterpreted in place as `storage_dtype(t)` (uint32 as int32, ...)."""
    want = storage_dtype(t)
    return array if array.dtype == want else array.view(want)


def poison(dtype: np.dtype):
    """What uninitialised memory holds here: NaN, or 0xDEADBEEF... for integers."""
    if dtype.kind == "f":
        return dtype.type("nan")
    if dtype.kind == "b":
        return True
    return signed(0xDEADBEEFDEADBEEF, dtype.itemsize * 8)


def float_from_int(value: int, dtype: np.dtype):
    """`value` rounded once (to nearest, ties to even) to `dtype`: NumPy would round a large int
    to f64 first and then again to f32."""
    precision = _PRECISION[dtype]
    magnitude = abs(value)
    excess = magnitude.bit_length() - precision
    if excess > 0:
        q, r = divmod(magnitude, 1 << excess)
        half = 1 << (excess - 1)
        if r > half or (r == half and q & 1):
            q += 1
        magnitude = q << excess
    with np.errstate(over="ignore"):
        result = dtype.type(float(magnitude)) if magnitude < 2**1024 else dtype.type("inf")
    return -result if value < 0 else result


def int_from_float(value, width: int, is_signed: bool) -> int:
    """PTX `cvt.rzi` semantics: toward zero, saturating at the type's range, NaN to 0 (LLVM calls
    the out-of-range case poison; this is what NVPTX's instruction gives)."""
    x = float(value)
    if math.isnan(x):
        return 0
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if is_signed else (0, (1 << width) - 1)
    if math.isinf(x):
        result = hi if x > 0 else lo
    else:
        result = min(max(math.trunc(x), lo), hi)
    return signed(result, width)


def float_bits(value, dtype: np.dtype) -> int:
    return int(np.array(value, dtype=dtype).view(_SIGNED[dtype.itemsize * 8]))


def float_from_bits(bits: int, dtype: np.dtype):
    return np.array(signed(bits, dtype.itemsize * 8), dtype=_SIGNED[dtype.itemsize * 8]).view(
        dtype
    )[()]


_F32_TINY = float(np.finfo(np.float32).tiny)


def flush_subnormal(value):
    """Sign-preserving zero for a subnormal f32 (what `atom.add.f32` does to inputs and result)."""
    if value != 0 and abs(value) < _F32_TINY:
        return np.float32(math.copysign(0.0, float(value)))
    return value


def round_to_odd_sum(p: float, c: float) -> float:
    """p + c in f64 with round-to-odd: rounding that again to f32 or f16 is the correctly
    rounded sum (f64 has more than 2 + 24 bits), the way a fused multiply-add rounds once."""
    s = p + c
    if not math.isfinite(s):
        return s
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    if err != 0 and not (np.float64(s).view(np.int64) & 1):
        s = float(np.nextafter(s, math.inf if err > 0 else -math.inf))
    return s
