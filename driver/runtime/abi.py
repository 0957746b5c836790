"""The kernel parameter ABI: how ferrox's argument kinds become PTX parameters.

A slice is two parameters, its `ptr addrspace(1)` as a u64 and then its length in elements as
an i64; scalars are passed by their own type; `ptr` is a raw device address. Values are checked
here (count, element type, integer range) because ctypes would silently wrap a wrong one and
the kernel would run on it.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ferrox.driver.runtime.arrays import (
    ELEMENT_TYPES,
    ArrayError,
    DeviceArray,
    as_device_array,
    element_type,
)

SCALARS: dict[str, type] = {
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "index": ctypes.c_int64,
    "u32": ctypes.c_uint32,
    "u64": ctypes.c_uint64,
}
_INT_RANGES = {
    "i32": (-(2**31), 2**31 - 1),
    "i64": (-(2**63), 2**63 - 1),
    "index": (-(2**63), 2**63 - 1),
    "u32": (0, 2**32 - 1),
    "u64": (0, 2**64 - 1),
}
_F32_MAX = float(np.finfo(np.float32).max)
KINDS_HELP = "slice:<elem>, ptr, " + ", ".join(SCALARS)


class ArgumentError(TypeError):
    """A kernel argument that does not match the kernel's signature."""


def check_kind(kind: str) -> str:
    if kind in SCALARS or kind == "ptr":
        return kind
    if kind.startswith("slice:") and kind[6:] in ELEMENT_TYPES:
        return kind
    raise ArgumentError(
        f"unknown argument kind {kind!r} "
        f"(kinds: {KINDS_HELP}; elements: {', '.join(ELEMENT_TYPES)})"
    )


def param_count(signature: Sequence[str]) -> int:
    """How many PTX parameters a signature takes (a slice takes two)."""
    return sum(2 if check_kind(k).startswith("slice:") else 1 for k in signature)


def check_count(signature: Sequence[str], values: Sequence[Any]) -> None:
    if len(values) != len(signature):
        raise ArgumentError(
            f"kernel takes {len(signature)} argument{'s' if len(signature) != 1 else ''} "
            f"({', '.join(signature) or 'none'}), got {len(values)}"
        )


def pack_args(
    signature: Sequence[str], values: Sequence[Any], *, ordinal: int = 0, stream: Any = None
) -> list[tuple[type, Any]]:
    """(ctypes type, value) pairs for `values` passed as `signature`; raises ArgumentError.

    Slices take `DeviceArray`s or zero-copy device arrays (PyTorch, CuPy); a NumPy array must be
    copied first (`to_device`), or passed through `Kernel.call`, which copies it in and back.
    """
    kinds = [check_kind(k) for k in signature]
    check_count(kinds, values)
    packed: list[tuple[type, Any]] = []
    for index, (kind, value) in enumerate(zip(kinds, values, strict=True)):
        where = f"argument {index} ({kind})"
        try:
            packed.extend(_pack_one(kind, value, ordinal, stream))
        except ArrayError as exc:
            raise ArgumentError(f"{where}: {exc}") from None
        except ArgumentError as exc:
            raise ArgumentError(f"{where}: {exc}") from None
    return packed


def _pack_one(kind: str, value: Any, ordinal: int, stream: Any) -> list[tuple[type, Any]]:
    if kind.startswith("slice:"):
        if isinstance(value, np.ndarray):
            if (found := element_type(value.dtype)) != kind[6:]:
                raise ArrayError(f"expected {kind[6:]} elements, got {found} ({value.dtype})")
            raise ArgumentError(
                "a NumPy array lives on the host: copy it with to_device(array), "
                "or launch with Kernel.call, which copies it in and back"
            )
        array = as_device_array(value, kind[6:], ordinal=ordinal, stream=stream, copy=False)
        return [(ctypes.c_uint64, array.ptr), (ctypes.c_int64, array.size)]
    if kind == "ptr":
        return [(ctypes.c_uint64, _address(value, ordinal, stream))]
    if kind in ("f32", "f64"):
        return [(SCALARS[kind], _float(kind, value))]
    return [(SCALARS[kind], _integer(kind, value))]


def _address(value: Any, ordinal: int, stream: Any) -> int:
    if isinstance(value, bool):
        raise ArgumentError("expected a device pointer, got bool")
    if isinstance(value, (int, np.integer)):
        if not 0 <= int(value) < 2**64:
            raise ArgumentError(f"pointer {int(value)} is outside the 64-bit address range")
        return int(value)
    if isinstance(value, np.ndarray):
        raise ArgumentError("a NumPy array lives on the host, not at a device address")
    if (
        isinstance(value, DeviceArray)
        or hasattr(value, "__cuda_array_interface__")
        or hasattr(value, "__dlpack__")
    ):
        return as_device_array(value, ordinal=ordinal, stream=stream, copy=False).ptr
    raise ArgumentError(
        f"expected a device pointer (int) or a device array, got {type(value).__name__}"
    )


def _float(kind: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise ArgumentError(f"expected a number, got {type(value).__name__}")
    number = float(value)
    if kind == "f32" and math.isfinite(number) and abs(number) > _F32_MAX:
        raise ArgumentError(f"{number!r} does not fit in f32 (largest is {_F32_MAX:.6g})")
    return number


def _integer(kind: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentError(f"expected an integer, got {type(value).__name__} {value!r}")
    number = int(value)
    low, high = _INT_RANGES[kind]
    if not low <= number <= high:
        raise ArgumentError(f"{number} does not fit in {kind} ({low}..{high})")
    return number
