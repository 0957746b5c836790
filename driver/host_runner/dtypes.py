"""Host element types as NumPy dtypes, as docs/dialects/host.md's run-time model fixes them.

`f16`/`f32`/`f64` are NumPy's floats, `iN` is `intN` (`i1` is `bool`), `uiN` is `uintN`. NumPy
has no bf16: with `ml_dtypes` installed its `bfloat16` is used; otherwise a bf16 tensor is a
float32 array whose every value is rounded to bf16 (`round_bf16`), so the data are the same.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

try:  # pragma: no cover - optional
    import ml_dtypes  # type: ignore[import-not-found]

    BF16: np.dtype | None = np.dtype(ml_dtypes.bfloat16)
except ImportError:
    BF16 = None

_FLOATS = {
    Float16Type: np.dtype(np.float16),
    Float32Type: np.dtype(np.float32),
    Float64Type: np.dtype(np.float64),
}


class DTypeError(TypeError):
    """An element type with no NumPy representation."""


def is_bf16(element_type: Attribute) -> bool:
    return isinstance(element_type, BFloat16Type)


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """The dtype a host tensor of `element_type` is held in."""
    found = _FLOATS.get(type(element_type))
    if found is not None:
        return found
    if isinstance(element_type, BFloat16Type):
        return BF16 if BF16 is not None else np.dtype(np.float32)
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            unsigned = element_type.signedness.data is Signedness.UNSIGNED
            return np.dtype(f"{'u' if unsigned else ''}int{width}")
    raise DTypeError(f"{element_type} has no NumPy dtype")


def runtime_elem(element_type: Attribute) -> str:
    """The runtime's element name (`DeviceArray.element`): f32, i32, u8, i1, bf16, ..."""
    if isinstance(element_type, BFloat16Type):
        return "bf16"
    dtype = numpy_dtype(element_type)
    if dtype.kind == "b":
        return "i1"
    return {"f": "f", "i": "i", "u": "u"}[dtype.kind] + str(dtype.itemsize * 8)


def round_bf16(values: np.ndarray) -> np.ndarray:
    """float32 values rounded to the nearest bf16 (ties to even), still as float32."""
    bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    out = rounded.astype(np.uint32).view(np.float32)
    nan = np.isnan(values)
    if nan.any():
        out = np.where(nan, np.float32("nan"), out)
    return out.reshape(np.shape(values))


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """The bf16 bit patterns (uint16) of bf16-rounded float32 values, for a device copy."""
    if BF16 is not None and values.dtype == BF16:
        return np.ascontiguousarray(values).view(np.uint16)
    rounded = round_bf16(np.asarray(values, dtype=np.float32))
    return (rounded.view(np.uint32) >> 16).astype(np.uint16)


def from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    """bf16 bit patterns back to the host representation of a bf16 tensor."""
    if BF16 is not None:
        return np.ascontiguousarray(bits, dtype=np.uint16).view(BF16)
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def _to_f32_round_to_odd(values: np.ndarray) -> np.ndarray:
    """float64 to float32 rounding to odd (truncate, then set the last bit if inexact), so that
    rounding the result again to bf16 (8 bits < 24 - 2) rounds the float64 value only once."""
    x = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        r = x.astype(np.float32)
        back = r.astype(np.float64)
        toward_zero = np.isfinite(back) & (np.abs(back) > np.abs(x))
        r = np.where(toward_zero, np.nextafter(r, np.float32(0)), r)
        inexact = np.isfinite(x) & np.isfinite(r) & (r.astype(np.float64) != x)
    bits = r.view(np.uint32) | inexact.astype(np.uint32)
    return bits.view(np.float32)


def cast(values: np.ndarray, element_type: Attribute) -> np.ndarray:
    """`values` as a C-ordered array of `element_type`; bf16 is rounded once from any float
    (to `ml_dtypes.bfloat16`, or to bf16 values held in float32 without it)."""
    if is_bf16(element_type):
        array = np.asarray(values)
        once = array.dtype.kind in "fiub" and array.dtype != np.float32
        wide = _to_f32_round_to_odd(array) if once else array
        out = round_bf16(np.asarray(wide, dtype=np.float32))
        return np.ascontiguousarray(out.astype(BF16) if BF16 is not None else out)
    return np.ascontiguousarray(np.asarray(values).astype(numpy_dtype(element_type)))
