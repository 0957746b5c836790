"""How tile element types live in NumPy, and how values are rounded to them exactly once.

- A tile is an ndarray of its element type's dtype: `f16` float16, `f32` float32, `f64` float64,
  `i1` bool, `iN` intN (signless integers are held signed), and `bf16` float32 holding values
  already rounded to bf16, as the SIMT engine holds them (`driver/interpreter/bf16.py`: round to
  nearest even on the bit pattern, any NaN the canonical 0x7FFF, as `cvt.rn.bf16.f32` makes it).
  A caller's bf16 array (bits, ml_dtypes, float32) is read into such a float32 copy at launch.
- `f16`/`bf16` arithmetic is computed in float32 and rounded once to the element type, which is
  the correctly rounded result for + - * / and sqrt (24 >= 2 * 11 + 2). Anything computed in
  float64 is rounded to bf16 through a round-to-odd float32, so it is rounded only once too.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, Float64Type, IntegerType
from xdsl.ir import Attribute

from ferrox.dialects.tile.attributes import Padding
from ferrox.driver.interpreter.bf16 import f32_round_to_odd, round_f32

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
_FLOATS = {Float16Type: np.dtype(np.float16), Float32Type: F32, Float64Type: F64}
_INTS = {
    1: np.dtype(np.bool_),
    8: np.dtype(np.int8),
    16: np.dtype(np.int16),
    32: np.dtype(np.int32),
    64: np.dtype(np.int64),
}


def is_bf16(t: Attribute) -> bool:
    return isinstance(t, BFloat16Type)


def is_float_type(t: Attribute) -> bool:
    return isinstance(t, BFloat16Type | Float16Type | Float32Type | Float64Type)


def bf16_dtype() -> np.dtype:
    """bf16 tiles are float32 holding bf16 values."""
    return F32


def tile_dtype(t: Attribute) -> np.dtype:
    """The dtype of a tile (and of a scalar) of element type `t`."""
    if is_bf16(t):
        return bf16_dtype()
    if type(t) in _FLOATS:
        return _FLOATS[type(t)]
    if isinstance(t, IntegerType) and t.width.data in _INTS:
        return _INTS[t.width.data]
    raise TypeError(f"the tile interpreter has no representation for {t}")


def memory_dtypes(t: Attribute) -> tuple[np.dtype, ...]:
    """The array dtypes that may back a tensor or partition of element type `t`."""
    if is_bf16(t):
        return (F32,)  # what the launch reads a caller's bf16 array into
    dtype = tile_dtype(t)
    if dtype.kind == "i":
        return dtype, np.dtype(f"u{dtype.itemsize}")
    return (dtype,)


def compute_dtype(t: Attribute) -> np.dtype:
    """Where float arithmetic on `t` is done: f32 for f16, bf16 and f32; f64 for f64."""
    return F64 if isinstance(t, Float64Type) else F32


# --- rounding ------------------------------------------------------------------------------
def bf16_bits_round(x32: np.ndarray) -> np.ndarray:
    """float32 values rounded to bf16 (nearest, ties to even), as float32; any NaN becomes the
    canonical NaN, as the GPU's conversion makes it (one definition: `bf16.round_f32`)."""
    return round_f32(np.asarray(x32, dtype=F32))


def round_to(t: Attribute, values: np.ndarray) -> np.ndarray:
    """`values` (any float or integer array, exact in float64 or float32) rounded once to `t`."""
    values = np.asarray(values)
    if is_bf16(t):
        wide = values.dtype.itemsize > 4 or values.dtype.kind in "iub"
        x32 = f32_round_to_odd(values.astype(F64)) if wide else values.astype(F32)
        return bf16_bits_round(x32).astype(bf16_dtype())
    with np.errstate(over="ignore"):
        return values.astype(tile_dtype(t))


def as_tile(data: np.ndarray, t: Attribute) -> np.ndarray:
    """Array data read from memory as a tile of `t` (a float32 array behind a bf16 tensor may
    hold unrounded values: they are rounded here, as the host's conversion would)."""
    if is_bf16(t) and data.dtype == F32:
        return bf16_bits_round(data).astype(bf16_dtype())
    return data.astype(tile_dtype(t), copy=False)


# --- conversions (tile.astype) -------------------------------------------------------------
def int_to_float(x: np.ndarray, t: Attribute) -> np.ndarray:
    """Round each integer to `t` once. Integers narrower than 64 bits are exact in float64;
    NumPy's int64 casts to f16, f32 and f64 round once; int64 to bf16 goes through float64
    where that is exact (below 2^53) and is rounded in Python integers above."""
    if x.dtype.itemsize < 8 or x.dtype == np.bool_:
        return round_to(t, x.astype(F64))
    if not is_bf16(t):
        with np.errstate(over="ignore"):
            return x.astype(tile_dtype(t))
    result = bf16_bits_round(f32_round_to_odd(x.astype(F64)))
    big = np.flatnonzero(np.abs(x.reshape(-1).astype(F64)) >= 2.0**53)
    if big.size:
        flat = result.reshape(-1)
        for i in big:
            flat[i] = _int_to_bf16_exact(int(x.reshape(-1)[i]))
    return result.astype(bf16_dtype())


def _int_to_bf16_exact(value: int) -> float:
    magnitude, precision = abs(value), 8
    excess = magnitude.bit_length() - precision
    if excess > 0:
        q, r = divmod(magnitude, 1 << excess)
        half = 1 << (excess - 1)
        if r > half or (r == half and q & 1):
            q += 1
        magnitude = q << excess
    return math.copysign(float(magnitude), value)


def float_to_int(x: np.ndarray, width: int) -> np.ndarray:
    """PTX `cvt.rzi.sat`: toward zero, saturating at the signed range, NaN to 0."""
    x64 = x.astype(F64)
    limit = float(1 << (width - 1))  # exact in float64
    inside = (x64 > -limit) & (x64 < limit)  # false for NaN
    result = np.asarray(np.trunc(np.where(inside, x64, 0.0)), dtype=np.int64)
    result[x64 >= limit] = (1 << (width - 1)) - 1
    result[x64 <= -limit] = -(1 << (width - 1))
    return result.astype(_INTS[width])


def convert(x: np.ndarray, src: Attribute, dst: Attribute) -> np.ndarray:
    """`tile.astype` of a tile `x` of element type `src` to element type `dst`."""
    src_float, dst_float = is_float_type(src), is_float_type(dst)
    if isinstance(dst, IntegerType) and dst.width.data == 1:
        return x.astype(F64) != 0 if src_float else x != 0
    if dst_float:
        if src_float:
            return round_to(dst, x.astype(F64))
        return int_to_float(x, dst)
    assert isinstance(dst, IntegerType)
    if src_float:
        return float_to_int(x, dst.width.data)
    return x.astype(tile_dtype(dst))


# --- padding and scalars -------------------------------------------------------------------
_PADDING = {
    Padding.ZERO: 0.0,
    Padding.NEG_INF: -math.inf,
    Padding.POS_INF: math.inf,
    Padding.NAN: math.nan,
}


def padding_value(padding: Padding, t: Attribute):
    dtype = tile_dtype(t)
    if dtype.kind in "iub":
        return dtype.type(0)
    return dtype.type(_PADDING[padding])


def scalar_of(value, t: Attribute):
    """A value from a rank-0 tile as the scalar interpreter holds it: a NumPy float of the
    element type, a canonical signed Python int, or a bool for i1."""
    dtype = tile_dtype(t)
    if dtype.kind == "b":
        return bool(value)
    if dtype.kind == "i":
        return int(value)
    return dtype.type(value)
