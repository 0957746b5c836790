"""bf16 and f16 on the host: NumPy's carriers for bf16 data, and the GPU's conversions, exactly.

NumPy has no bf16 dtype. A caller hands bf16 data to a kernel in one of three ways:

- `bf16_bits(array)`: a uint16 array of raw bf16 bit patterns, marked as bf16 (a `Bf16Bits`
  view of the same memory, no copy); `to_bf16(values)` makes one from floats, rounded as the
  GPU's `cvt.rn.bf16.f32` rounds, and `.float32()` widens it back exactly;
- an `ml_dtypes.bfloat16` array, where the user has ml_dtypes (ferrox neither needs nor imports
  it: the dtype is recognised by its type's module and name);
- a torch.bfloat16 tensor (its own dtype says it).

A plain uint16 array is never taken as bf16: its meaning would be a guess, so the checker
refuses it for a bf16 parameter (`holds i16`) and the caller says what it is with `bf16_bits`.

The SIMT engine holds bf16 lanes and bf16 memory as float32 whose every value is a bf16 value
(`widen` of the bits). Loads and stores are then exact, and every op that makes a bf16 value
rounds once, as the GPU does (`round_f32`, `round_f64`). The caller's bits are read in before a
launch and written back after it (`Bf16Input`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
U16 = np.dtype(np.uint16)
CANONICAL_NAN = 0x7FFF
"""What `cvt.rn.bf16.f32` (and `cvt.rn.f16.f32`) make of any NaN: CUDA's own emulation of the
conversion (cuda_bf16.hpp, `__internal_float2bfloat16`) returns this for every NaN input."""


class Bf16Bits(np.ndarray):
    """A uint16 array whose elements are bf16 bit patterns (`bf16_bits` makes one).

    Views of it (slices, reshapes) stay `Bf16Bits`; arithmetic on it does not: a ufunc's result
    is a plain array, since the sum of two bit patterns is no bf16 value. `.float32()` is the
    exact float32 copy of the values."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        plain = [x.view(np.ndarray) if isinstance(x, Bf16Bits) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(
                x.view(np.ndarray) if isinstance(x, Bf16Bits) else x for x in kwargs["out"]
            )
        return getattr(ufunc, method)(*plain, **kwargs)

    def float32(self) -> np.ndarray:
        """The values, exactly, as a float32 array of the same shape."""
        return widen(self.view(np.ndarray))

    def __repr__(self) -> str:  # what makes these values again (NaN payloads aside)
        return f"to_bf16({self.float32()!r})"


def bf16_bits(array: Any) -> Bf16Bits:
    """`array` (uint16 or int16 bit patterns, or an ml_dtypes bfloat16 array) marked as bf16
    data for a kernel: a view, so a kernel's writes land in `array`."""
    a = np.asarray(array)
    if is_ml_bfloat16(a.dtype):
        a = a.view(U16)
    if a.dtype.kind not in "iu" or a.dtype.itemsize != 2:
        raise TypeError(
            f"bf16_bits takes an array of 16-bit bf16 bit patterns (uint16), got {a.dtype}; "
            "to_bf16(values) rounds floats to bf16"
        )
    return a.view(U16).view(Bf16Bits)


def to_bf16(values: Any) -> Bf16Bits:
    """Floats (or integers) rounded to the nearest bf16, ties to even, as the GPU's conversion
    rounds them (from float64 as once-rounded: `cvt.rn.bf16.f64`), as a new `Bf16Bits`."""
    a = np.asarray(values)
    if a.dtype.kind in "iub" or a.dtype.itemsize > 4:
        bits = round_f64_bits(a.astype(F64))
    else:
        bits = round_f32_bits(a.astype(F32))
    return bits.view(Bf16Bits)


def is_ml_bfloat16(dtype: Any) -> bool:
    """Whether `dtype` is ml_dtypes' bfloat16 (by its scalar type's module and name, so that
    ml_dtypes is never imported here)."""
    scalar = getattr(dtype, "type", None)
    return (
        scalar is not None
        and getattr(scalar, "__name__", "") == "bfloat16"
        and str(getattr(scalar, "__module__", "")).split(".")[0] == "ml_dtypes"
    )


def bits_of(array: np.ndarray) -> np.ndarray | None:
    """The uint16 bit patterns behind a bf16 carrier (`Bf16Bits`, ml_dtypes), or None."""
    if isinstance(array, Bf16Bits):
        return array.view(np.ndarray)
    if is_ml_bfloat16(array.dtype):
        return array.view(U16)
    return None


# --- the conversions ----------------------------------------------------------------------
def widen(bits: np.ndarray) -> np.ndarray:
    """bf16 bit patterns as float32, exactly (`cvt.f32.bf16`: the bits moved up; NaN payloads
    kept)."""
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(F32)


def narrow(x32: np.ndarray) -> np.ndarray:
    """float32 values that are bf16 values, as their bit patterns (the top half, exactly)."""
    return (np.asarray(x32, dtype=F32).view(np.uint32) >> np.uint32(16)).astype(U16)


def round_f32_bits(x32: np.ndarray) -> np.ndarray:
    """`cvt.rn.bf16.f32`: float32 to the nearest bf16, ties to even, as bit patterns.

    On the bits: adding 0x7FFF plus the kept part's lowest bit carries into the kept half
    exactly when the dropped half is above one half, or one half with the kept part odd; a carry
    out of the largest finite value makes infinity, as rounding should. NaN is canonical."""
    x32 = np.asarray(x32, dtype=F32)
    bits = x32.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(U16)
    return np.where(np.isnan(x32), U16.type(CANONICAL_NAN), rounded).astype(U16)


def f32_round_to_odd(x64: np.ndarray) -> np.ndarray:
    """float64 to float32 by truncation with a sticky last bit (round to odd): rounding that
    result again to a format of at most 22 bits is the once-rounded value of the float64."""
    x64 = np.asarray(x64, dtype=F64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x64.astype(F32)
    back = r.astype(F64)
    inexact = (back != x64) & np.isfinite(x64)
    bits = r.view(np.uint32)
    bits = np.where(inexact & (np.abs(back) > np.abs(x64)), bits - np.uint32(1), bits)
    return np.where(inexact, bits | np.uint32(1), bits).astype(np.uint32).view(F32)


def round_f64_bits(x64: np.ndarray) -> np.ndarray:
    """float64 to the nearest bf16 with one rounding (`cvt.rn.bf16.f64`), as bit patterns."""
    return round_f32_bits(f32_round_to_odd(x64))


def round_f32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bf16, held as float32 (the engine's bf16 lanes)."""
    return widen(round_f32_bits(x))


def round_f64(x: np.ndarray) -> np.ndarray:
    """float64 values rounded once to bf16, held as float32."""
    return widen(round_f64_bits(x))


def round_any(x: Any) -> np.ndarray:
    """Any float or integer array rounded once to bf16, held as float32. Integers wider than
    float64's 53 bits are rounded in Python integers."""
    a = np.asarray(x)
    if a.dtype == F32 or a.dtype == np.float16:
        return round_f32(a.astype(F32))
    if a.dtype.kind == "f":
        return round_f64(a.astype(F64))
    wide = a.astype(F64)
    out = round_f64(wide)
    if a.dtype.itemsize == 8 and a.dtype.kind in "iu":
        big = np.flatnonzero(np.abs(wide.reshape(-1)) >= 2.0**53)
        if big.size:
            flat = out.reshape(-1)
            for i in big:
                flat[i] = _int_to_bf16(int(a.reshape(-1)[i]))
    return out


def _int_to_bf16(value: int) -> float:
    """The bf16 nearest a Python integer, ties to even (bf16 keeps 8 significant bits)."""
    magnitude = abs(value)
    excess = magnitude.bit_length() - 8
    if excess > 0:
        q, r = divmod(magnitude, 1 << excess)
        half = 1 << (excess - 1)
        if r > half or (r == half and q & 1):
            q += 1
        magnitude = q << excess
    return float(np.float32(magnitude if value >= 0 else -magnitude))


def f16_from_f32(x: Any) -> np.ndarray:
    """`cvt.rn.f16.f32` / `cvt.rn.f16.f64`: to the nearest f16, ties to even (NumPy's cast
    rounds once, from either width), any NaN canonical."""
    a = np.asarray(x)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.asarray(a.astype(np.float16))
    nan = np.isnan(out)
    if nan.any():
        out = np.where(nan, np.uint16(CANONICAL_NAN).view(np.float16), out)
    return out


# --- caller arrays in and out -------------------------------------------------------------
class Bf16Input:
    """A caller's bf16 array as the engine holds it (`working`, float32 of bf16 values), and
    how to give the kernel's writes back (`finish`): bits narrowed exactly into a `Bf16Bits`
    or ml_dtypes array; a float32 array holding values that are not all bf16 values is rounded
    into a copy (as the host's conversion would round it) and copied back."""

    __slots__ = ("working", "finish")

    def __init__(self, working: np.ndarray, finish: Callable[[], None] | None):
        self.working = working
        self.finish = finish


def bf16_input(array: np.ndarray, writable: bool) -> Bf16Input | None:
    """The engine's float32 array for a caller's bf16 array, or None when `array` is no bf16
    carrier (neither bits nor float32)."""
    bits = bits_of(array)
    if bits is not None:
        working = widen(bits)
        if not writable:
            return Bf16Input(working, None)

        def back() -> None:
            bits[...] = narrow(working)

        return Bf16Input(working, back)
    if array.dtype != F32:
        return None
    low = array.view(np.uint32) & np.uint32(0xFFFF)
    if not (low.any() and (low[~np.isnan(array)] != 0).any()):
        return Bf16Input(array, None)  # already bf16 values: used in place
    working = round_f32(array)
    if not writable:
        return Bf16Input(working, None)

    def copy_back() -> None:
        array[...] = working

    return Bf16Input(working, copy_back)


__all__ = [
    "CANONICAL_NAN",
    "Bf16Bits",
    "Bf16Input",
    "bf16_bits",
    "bf16_input",
    "bits_of",
    "f16_from_f32",
    "is_ml_bfloat16",
    "narrow",
    "round_any",
    "round_f32",
    "round_f32_bits",
    "round_f64",
    "round_f64_bits",
    "to_bf16",
    "widen",
]
