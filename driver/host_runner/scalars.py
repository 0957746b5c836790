"""Host scalars: a `host.param`'s value (a default, a `--param` string or a Python number) as
the interpreter holds values of its type.

Integers and `index` are Python ints, range-checked against the type's width; floats are NumPy
scalars of their own width, so `f32` arithmetic rounds as the GPU's does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, Signedness
from xdsl.ir import Attribute

from ferrox.driver.host_runner.dtypes import numpy_dtype


def _int_range(t: Attribute) -> tuple[int, int]:
    if isinstance(t, IndexType):
        return -(2**63), 2**63 - 1
    assert isinstance(t, IntegerType)
    width = t.width.data
    if t.signedness.data is Signedness.UNSIGNED:
        return 0, 2**width - 1
    if t.signedness.data is Signedness.SIGNED or width == 1:
        return (0, 1) if width == 1 else (-(2 ** (width - 1)), 2 ** (width - 1) - 1)
    return -(2 ** (width - 1)), 2**width - 1  # signless: either reading fits


def _signed(value: int, width: int) -> int:
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def scalar_value(value: Any, t: Attribute) -> Any:
    """`value` as a scalar of type `t`; `ValueError`/`TypeError` saying why it cannot be one."""
    if isinstance(t, IntegerType | IndexType):
        if isinstance(value, str):
            try:
                value = int(value.replace("_", ""), 0)
            except ValueError:
                raise ValueError(f"'{value}' is not an integer, but the parameter is {t}") from None
        if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
            if isinstance(value, float | np.floating) and float(value).is_integer():
                value = int(value)
            else:
                raise TypeError(f"expected an integer for {t}, got {value!r}")
        low, high = _int_range(t)
        if not low <= int(value) <= high:
            raise ValueError(f"{int(value)} does not fit in {t} ({low}..{high})")
        if (
            isinstance(t, IntegerType)
            and t.signedness.data is Signedness.SIGNLESS
            and t.width.data > 1
        ):
            return _signed(int(value), t.width.data)  # the interpreter's canonical form
        return int(value)
    if isinstance(t, AnyFloat):
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                raise ValueError(f"'{value}' is not a number, but the parameter is {t}") from None
        number = int | float | np.integer | np.floating
        if isinstance(value, bool | np.bool_) or not isinstance(value, number):
            raise TypeError(f"expected a number for {t}, got {value!r}")
        dtype = numpy_dtype(t)
        with np.errstate(over="ignore"):
            converted = dtype.type(value)
        if np.isinf(converted) and np.isfinite(float(value)):
            raise ValueError(f"{value!r} overflows {t}")
        return converted
    raise TypeError(f"a host scalar is an integer, index or float, not {t}")


def for_formula(value: Any) -> Any:
    """A scalar as a check formula sees it: a NumPy scalar (Python ints become int64)."""
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int64(value) if -(2**63) <= value < 2**63 else np.uint64(value)
    return value
