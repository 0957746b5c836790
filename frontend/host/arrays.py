"""What a host program needs to know of a caller's array before recording it: its family
(NumPy, torch, CuPy), element type, shape, device, and the bytes it spans.

The byte range is what the bind-time alias check compares: two caller arrays that are views of one
buffer start at different addresses and still overlap, so equal pointers would not find them.
Nothing here imports torch or CuPy; their arrays are read through their own attributes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

_TORCH_ELEMENTS = {
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
}


@dataclass(frozen=True)
class ArrayFacts:
    family: str
    """`numpy`, `torch`, `cupy`, or the top module of another DLPack array type."""
    element: str
    """The frontend's element name (`f32`, `bf16`, `i1`, ...)."""
    shape: tuple[int, ...]
    device: str
    """`cpu`, or `cuda:N`."""
    start: int
    end: int
    """The bytes `[start, end)` the array's elements span (equal for an empty array)."""

    def overlaps(self, other: ArrayFacts) -> bool:
        if self.device != other.device or self.start == self.end or other.start == other.end:
            return False
        return max(self.start, other.start) < min(self.end, other.end)

    def describe(self) -> str:
        dims = "x".join(map(str, self.shape)) or "scalar"
        where = "" if self.device == "cpu" else f" on {self.device}"
        return f"{self.family} {self.element} {dims}{where}"


def _numpy_element(dtype: np.dtype) -> str:
    if str(dtype).rsplit(".", 1)[-1] == "bfloat16":  # ml_dtypes'
        return "bf16"
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return "i1"
    if dt.kind == "f" and dt.itemsize in (2, 4, 8):
        return f"f{dt.itemsize * 8}"
    if dt.kind == "i" and dt.itemsize in (1, 2, 4, 8):
        return f"i{dt.itemsize * 8}"
    raise TypeError(f"element type {dt} has no ferrox element type")


def _span(ptr: int, shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int):
    """The byte range of elements at `ptr + sum(i * stride)` (strides in bytes)."""
    if any(s == 0 for s in shape):
        return ptr, ptr
    low = sum((s - 1) * st for s, st in zip(shape, strides) if st < 0)
    high = sum((s - 1) * st for s, st in zip(shape, strides) if st > 0)
    return ptr + low, ptr + high + itemsize


def _numpy_facts(array: np.ndarray, family: str) -> ArrayFacts:
    element = _numpy_element(array.dtype)
    ptr = array.__array_interface__["data"][0]
    start, end = _span(ptr, tuple(array.shape), tuple(array.strides), array.itemsize)
    return ArrayFacts(family, element, tuple(array.shape), "cpu", start, end)


def _torch_facts(t: Any) -> ArrayFacts:
    name = str(t.dtype).rsplit(".", 1)[-1]
    if name not in _TORCH_ELEMENTS:
        raise TypeError(f"element type {t.dtype} has no ferrox element type")
    size = t.element_size()
    strides = tuple(s * size for s in t.stride())
    start, end = _span(int(t.data_ptr()), tuple(t.shape), strides, size)
    device = "cpu" if t.device.type == "cpu" else f"{t.device.type}:{t.device.index or 0}"
    return ArrayFacts("torch", _TORCH_ELEMENTS[name], tuple(t.shape), device, start, end)


def _cuda_facts(obj: Any, family: str) -> ArrayFacts:
    cai = obj.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    shape = tuple(int(s) for s in cai["shape"])
    strides = cai.get("strides")
    if strides is None:  # C-contiguous
        strides, step = [], dtype.itemsize
        for s in reversed(shape):
            strides.insert(0, step)
            step *= max(s, 1)
    start, end = _span(int(cai["data"][0]), shape, tuple(strides), dtype.itemsize)
    device = getattr(getattr(obj, "device", None), "id", 0)
    return ArrayFacts(family, _numpy_element(dtype), shape, f"cuda:{device}", start, end)


def array_facts(obj: Any) -> ArrayFacts:
    """The facts of a caller array; `TypeError` saying why `obj` cannot be one."""
    family = type(obj).__module__.split(".")[0]
    if isinstance(obj, np.ndarray):
        return _numpy_facts(obj, "numpy")
    if family == "torch" and hasattr(obj, "data_ptr"):
        return _torch_facts(obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return _cuda_facts(obj, family)
    if hasattr(obj, "__dlpack__"):
        return _numpy_facts(np.from_dlpack(obj), family)
    raise TypeError(
        f"expected an array (NumPy, torch, CuPy or another DLPack array), got {type(obj).__name__}"
    )


__all__ = ["ArrayFacts", "array_facts"]
