"""How IR values live in Python, so that every result is what the GPU computes.

- In the SIMT engine, a value is a NumPy array with one entry per lane (or a NumPy scalar all
  lanes share): integers in the signed type of their width (`lane_dtype`; `index` is int64, `i1`
  bool), floats in their own width, so NumPy rounds and wraps as the GPU does.
- In xDSL's scalar interpreters (host runner, tile interpreter) integers are canonical signed
  Python ints (`i1` may be a bool) and floats NumPy scalars; `ops.scalar_functions` converts.
- Memory is NumPy arrays; integer arrays are viewed as the signed dtype of their width, so a
  signless `i32` slice may be given as int32 or uint32.
- bf16 (which NumPy lacks) is float32 holding bf16 values, in lanes and in memory alike: loads
  and stores are exact, and each op that makes a bf16 value rounds it once (`to_float`;
  `bf16.py` has the conversions and reads the caller's bf16 arrays in and out).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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

from ferrox.driver.interpreter.bf16 import f16_from_f32, round_any

INDEX_WIDTH = 64

_FLOATS: dict[type[Attribute], np.dtype] = {
    BFloat16Type: np.dtype(np.float32),  # holding bf16 values only (see the module's docstring)
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
    """The NumPy type float lanes and memory of `t` are held in (float32 for bf16)."""
    return _FLOATS.get(type(t))


def is_bf16(t: Attribute) -> bool:
    return isinstance(t, BFloat16Type)


def to_float(t: Attribute) -> Callable[[Any], Any] | None:
    """How a float value computed wider (f32 or f64, exact or once rounded to odd) becomes a
    value of `t`, rounded once as the GPU rounds it; None when `t` is no float type.

    An f32 or f64 result that overflows is inf, as on the GPU; NumPy warns of it unless its
    errors are ignored, and the callers ignore them: ops run inside a launch (`launch._execute`
    and the replay's threads: `np.errstate(all="ignore")`) or one at a time in the scalar
    interpreters (`ops._scalar_run`), and what converts outside those says so itself
    (`arith_ops._constant`, `arguments.py`). The cast sets no error state of its own: it runs
    once a float op and lane group, where entering and leaving `np.errstate` cost more than
    the cast of a few hundred lanes."""
    dtype = float_dtype(t)
    if dtype is None:
        return None
    if isinstance(t, BFloat16Type):
        return lambda x: _scalar(round_any(x))
    if isinstance(t, Float16Type):
        return lambda x: _scalar(f16_from_f32(x))

    def cast(x: Any) -> Any:
        return _scalar(np.asarray(x).astype(dtype))

    return cast


def _scalar(value: Any) -> Any:
    return value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value


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
    raise TypeError(f"the interpreter has no memory representation for {t}")


def element_bytes(t: Attribute) -> int:
    """An element's size on the GPU (a bf16 is 2 bytes, though held here in 4)."""
    return 2 if isinstance(t, BFloat16Type) else storage_dtype(t).itemsize


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


_UNSIGNED = {
    8: np.dtype(np.uint8),
    16: np.dtype(np.uint16),
    32: np.dtype(np.uint32),
    64: np.dtype(np.uint64),
}


def lane_dtype(width: int) -> np.dtype:
    """The NumPy type a lane's integer of `width` bits is held in (i1: bool)."""
    return np.dtype(np.bool_) if width == 1 else _SIGNED[width]


def unsigned_dtype(width: int) -> np.dtype:
    return _UNSIGNED[max(width, 8)]


def value_dtype(t: Attribute) -> np.dtype | None:
    """The NumPy type lane values of IR type `t` are held in, or None for other types."""
    floating = float_dtype(t)
    if floating is not None:
        return floating
    width = int_width(t)
    if width in (1, 8, 16, 32, 64):
        return lane_dtype(width)
    return None
