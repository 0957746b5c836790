"""Kernel arguments: NumPy arrays and numbers checked against the kernel's parameter types.

Nothing is converted silently: an array must already have the element type's dtype (integers
are signless, so int32 and uint32 both back an `i32` slice), a scalar must fit its type. Shared
slices get a read-only view, so the kernel cannot write them even by an interpreter bug.

bf16 is the exception NumPy forces: a bf16 slice takes bf16 bits (`bf16.bf16_bits`, or an
ml_dtypes bfloat16 array) or float32 holding bf16 values; the engine runs on a float32 copy of
bit patterns, written back exactly once the kernel is done (`finish`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute

from ferrox.dialects import simt
from ferrox.dialects.simt.types import AtomicSliceType, DisjointSliceType, PtrType, SliceType
from ferrox.driver.interpreter.bf16 import bf16_input
from ferrox.driver.interpreter.errors import LaunchError
from ferrox.driver.interpreter.memory import Buffer
from ferrox.driver.interpreter.values import (
    accepts,
    float_dtype,
    int_width,
    is_bf16,
    signed,
    to_float,
)


def _flat(array: Any, what: str, writable: bool) -> np.ndarray:
    if not isinstance(array, np.ndarray):
        raise LaunchError(f"{what} takes a NumPy array, got {type(array).__name__}")
    if array.ndim != 1:
        if not array.flags.c_contiguous:
            raise LaunchError(
                f"{what} takes a 1-D or C-contiguous array, got a strided {array.ndim}-D view"
            )
        array = array.reshape(-1)
    if writable and not array.flags.writeable:
        raise LaunchError(f"{what} is written by the kernel, but the array is read-only")
    return array


def _scalar(value: Any, t: Attribute, what: str) -> Any:
    width = int_width(t)
    if width is not None:
        if width == 1:
            if isinstance(value, bool | np.bool_) or (
                isinstance(value, int | np.integer) and value in (0, 1)
            ):
                return bool(value)
            raise LaunchError(f"{what} is an i1, got {value!r}")
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            raise LaunchError(f"{what} is an integer ({t}), got {value!r}")
        lo = -(1 << (width - 1))
        hi = (1 << (width - 1)) - 1 if isinstance(t, IndexType) else (1 << width) - 1
        if not lo <= int(value) <= hi:
            raise LaunchError(f"{what} = {int(value)} does not fit {t}")
        return signed(int(value), width)
    dtype = float_dtype(t)
    if dtype is not None:
        if isinstance(value, bool | np.bool_) or not isinstance(
            value, int | float | np.integer | np.floating
        ):
            raise LaunchError(f"{what} is a float ({t}), got {value!r}")
        convert = to_float(t)
        assert convert is not None
        with np.errstate(over="ignore"):
            converted = dtype.type(convert(np.float64(value)))
        if np.isinf(converted) and np.isfinite(value):
            raise LaunchError(f"{what} = {value!r} overflows {t}")
        return converted
    raise LaunchError(f"{what} has type {t}, which the interpreter cannot take as an argument")


def _bf16_array(array: np.ndarray, what: str, writable: bool, finish: list) -> np.ndarray:
    """The float32 array the engine runs a bf16 slice on (see the module's docstring)."""
    held = bf16_input(array, writable)
    if held is None:
        raise LaunchError(
            f"{what} holds bf16, but the array's dtype is {array.dtype}: pass bf16 bit "
            "patterns as ferrox.bf16_bits(array), an ml_dtypes bfloat16 array, or float32"
        )
    if held.finish is not None:
        finish.append(held.finish)
    return held.working


def bind_args(kernel: simt.KernelOp, args: Sequence[Any], finish: list | None = None) -> list[Any]:
    """The engine's values for `args`. bf16 arrays run on float32 copies: the callbacks that
    write the kernel's results back into the caller's arrays are appended to `finish` (the
    caller calls them once the kernel stopped, whether it finished or faulted)."""
    if finish is None:
        finish = []
    params = kernel.params
    name = f"@{kernel.sym_name.data}"
    if len(args) != len(params):
        raise LaunchError(f"{name} takes {len(params)} arguments, got {len(args)}")
    values: list[Any] = []
    for i, (param, value) in enumerate(zip(params, args)):
        t = param.type
        label = f"%{param.name_hint}" if param.name_hint else f"argument {i}"
        what = f"{label} (argument {i} of {name})"
        if isinstance(t, SliceType | DisjointSliceType | AtomicSliceType | PtrType):
            writable = not isinstance(t, SliceType)
            array = _flat(value, what, writable)
            if is_bf16(t.element_type):
                array = _bf16_array(array, what, writable, finish)
            try:
                ok = accepts(t.element_type, array.dtype)
            except TypeError as e:
                raise LaunchError(f"{what}: {e}") from None
            if not ok:
                raise LaunchError(
                    f"{what} holds {t.element_type}, but the array's dtype is {array.dtype}"
                )
            if not writable:
                array = array.view()
                array.flags.writeable = False
            buffer = Buffer(array, t.element_type, label)
            if isinstance(t, DisjointSliceType):
                buffer.owner = np.full(buffer.length, -1, dtype=np.int64)
            values.append(buffer)
        else:
            values.append(_scalar(value, t, what))
    return values
