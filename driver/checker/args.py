"""Launch arguments as the checker sees them: a neutral description of each buffer.

The checker never touches memory. A caller (the GPU launcher with device addresses, the CPU
interpreter with NumPy arrays) describes each buffer argument by its byte range, element count,
element type and shape, and passes scalars as plain numbers. `obj` carries the caller's own
object through the check untouched, so the launcher can find it in `CheckedLaunch`.

NumPy has no bf16: a NumPy array is a bf16 buffer when it is marked so (`ferrox.bf16_bits`, a
uint16 array of bit patterns) or has ml_dtypes' bfloat16 dtype; a plain uint16 array is an
`i16` buffer and a float32 one an `f32` buffer, refused for a bf16 parameter like any other
mismatch (docs/interpreter.md, "bf16 and f16").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ferrox.artifact import ELEMENT_BYTES
from ferrox.driver.interpreter.bf16 import Bf16Bits, is_ml_bfloat16


@dataclass(frozen=True, eq=False)
class BufferArg:
    """One buffer argument: `nbytes` bytes from address `start`, `length` elements of
    `element` (a key of `ferrox.artifact.ELEMENT_BYTES`) in `shape`."""

    start: int
    nbytes: int
    length: int
    element: str
    shape: tuple[int, ...]
    contiguous: bool = True
    writable: bool = True
    obj: Any = field(default=None, repr=False)

    @property
    def end(self) -> int:
        return self.start + self.nbytes


def element_of(dtype: np.dtype) -> str | None:
    """The kernel element type an array of `dtype` holds (integers are signless), or None."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return "i1"
    if dtype.kind in "iu":
        return f"i{dtype.itemsize * 8}"
    if dtype.kind == "f" and dtype.itemsize in (2, 4, 8):
        return f"f{dtype.itemsize * 8}"
    if is_ml_bfloat16(dtype):  # ml_dtypes' bfloat16, where the user has it
        return "bf16"
    return None


def numpy_buffer(array: np.ndarray, obj: Any = None) -> BufferArg:
    """A NumPy array (or view) as a `BufferArg`: its byte range is every byte any of its
    elements touches, so two views of one buffer overlap exactly when their extents do."""
    if isinstance(array, Bf16Bits):
        element = "bf16"
    else:
        element = element_of(array.dtype) or f"<{array.dtype}>"
    start = int(array.__array_interface__["data"][0])
    if array.size == 0:
        lo = hi = 0
    else:
        # the lowest and highest byte any element touches, over every stride's sign
        lo = sum(s * (n - 1) for s, n in zip(array.strides, array.shape) if s < 0)
        hi = sum(s * (n - 1) for s, n in zip(array.strides, array.shape) if s > 0)
        hi += array.itemsize
    return BufferArg(
        start + lo,
        hi - lo,
        int(array.size),
        element,
        tuple(int(d) for d in array.shape),
        contiguous=bool(array.flags.c_contiguous),
        writable=bool(array.flags.writeable),
        obj=array if obj is None else obj,
    )


def is_scalar(value: Any) -> bool:
    return isinstance(value, int | float | bool | np.integer | np.floating | np.bool_)


__all__ = ["ELEMENT_BYTES", "BufferArg", "element_of", "is_scalar", "numpy_buffer"]
