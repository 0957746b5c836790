"""Caller arrays (`host.from_array`): what they hold, where they live, and whether they fit.

A caller array is checked against its `host.from_array` type before the program runs (so a bad
one stops the program before any launch): its element type must be the tensor's, its rank the
tensor's, and every static dimension equal. Where it lives is the backend's question: the CPU
takes host memory only, the GPU takes both (NumPy copied, device arrays in place).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX

from ferrox.dialects.host import TensorType
from ferrox.driver.host_runner.dtypes import runtime_elem

CPU = 1  # DLPack's kDLCPU


def host_elem(dtype: np.dtype) -> str:
    """The runtime's element name for a NumPy dtype (`TypeError` if it has none)."""
    if str(dtype).rsplit(".", 1)[-1] == "bfloat16":  # ml_dtypes', torch's
        return "bf16"
    dt = np.dtype(dtype)
    if dt.byteorder == ">":
        raise TypeError(f"big-endian arrays are not supported (dtype {dt.str})")
    if dt.kind == "b":
        return "i1"
    if (
        dt.kind in "iuf"
        and dt.itemsize in (1, 2, 4, 8)
        and not (dt.kind == "f" and dt.itemsize == 1)
    ):
        return f"{dt.kind}{dt.itemsize * 8}"
    raise TypeError(f"unsupported element type {dt}")


def on_cuda_device(obj: Any) -> bool:
    """Whether `obj` is an array in device memory (CUDA array interface, or a non-CPU DLPack)."""
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    device = getattr(obj, "__dlpack_device__", None)
    if callable(device):
        try:
            return int(device()[0]) != CPU
        except Exception:
            return False
    return False


def misfit(elem: str, shape: tuple[int, ...], tensor_type: TensorType) -> str | None:
    """Why an array of `elem` and `shape` cannot be a tensor of `tensor_type`, or None."""
    want = runtime_elem(tensor_type.element_type)
    if elem != want:
        return f"has element type {elem}, but the tensor's is {want} ({tensor_type.element_type})"
    dims = tensor_type.get_shape()
    if len(shape) != len(dims):
        return f"has {len(shape)} dimension(s) {list(shape)}, but {tensor_type} has {len(dims)}"
    for axis, (got, need) in enumerate(zip(shape, dims)):
        if need != DYNAMIC_INDEX and got != need:
            return f"has shape {list(shape)}, but {tensor_type} needs dimension {axis} = {need}"
    return None
