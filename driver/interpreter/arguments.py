"""Kernel arguments: NumPy arrays and numbers checked against the kernel's parameter types.

Nothing is converted silently: an array must already have the element type's dtype (integers
are signless, so int32 and uint32 both back an `i32` slice), a scalar must fit its type. Shared
slices get a read-only view, so the kernel cannot write them even by an interpreter bug.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute

from ferrox.dialects import simt
from ferrox.dialects.simt.types import AtomicSliceType, DisjointSliceType, PtrType, SliceType
from ferrox.driver.interpreter.errors import LaunchError
from ferrox.driver.interpreter.memory import Buffer
from ferrox.driver.interpreter.values import accepts, float_dtype, int_width, signed


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
        with np.errstate(over="ignore"):
            converted = dtype.type(value)
        if np.isinf(converted) and np.isfinite(value):
            raise LaunchError(f"{what} = {value!r} overflows {t}")
        return converted
    raise LaunchError(f"{what} has type {t}, which the interpreter cannot take as an argument")


def bind_args(kernel: simt.KernelOp, args: Sequence[Any]) -> list[Any]:
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
