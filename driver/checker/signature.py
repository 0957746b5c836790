"""A launch's signature: everything the checker and the packing read from its arguments, as one
hashable value, so that a launch the checker has passed can be repeated from a memo.

The checker's verdict on a launch depends only on the kernel's artifact, the device's limits,
the grid, block and shared memory, and per argument what this signature holds: a buffer's
address, element type, shape, strides and device (so its byte range, contiguity and length), a
scalar's type and value. Two launches with equal signatures get the same verdict and pack to the
same parameter bytes; `ferrox/api.py` keeps the packed parameters of each signature it has
checked and launches them again directly, which is what makes a checked relaunch cost about what
an unchecked one does.

Reading a signature must be cheaper than checking: each argument type has one reader, chosen
once per type (`reader_for`). Types without one (NumPy arrays, which are copied in; other
libraries' arrays, which may need stream ordering) give None: such launches are always checked
in full.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

Reader = Callable[[Any], Any]

_readers: dict[type, Reader | None] = {}


def _torch_tensor(t: Any) -> Any:
    """A CUDA tensor's address, dtype, shape, strides and device; a CPU tensor is refused in
    full each time (None)."""
    if not t.is_cuda:
        return None
    return (t.data_ptr(), t.dtype, t.shape, t.stride(), t.get_device())


def _device_array(a: Any) -> Any:
    return ("array", a.ptr, a.shape, a.element, a.ordinal)


def _device_view(v: Any) -> Any:
    return ("view", v.ptr, v.nbytes, v.shape, v.element, v.ordinal, v.readonly)


def _scalar(x: Any) -> Any:
    return x  # with its type, added by `signature`


def _float(x: Any) -> Any:
    return float(x).hex()  # -0.0 == 0.0, but they pack to other bytes


def reader_for(cls: type) -> Reader | None:
    """The signature reader of arguments of class `cls`, chosen once per class."""
    try:
        return _readers[cls]
    except KeyError:
        pass
    from ferrox.driver.runtime.buffers import DeviceArray, DeviceView

    reader: Reader | None = None
    if cls in (int, bool):
        reader = _scalar
    elif cls is float:
        reader = _float
    elif cls is DeviceArray:
        reader = _device_array
    elif cls is DeviceView:
        reader = _device_view
    elif cls.__module__ == "torch" and cls.__name__ in ("Tensor", "Parameter"):
        reader = _torch_tensor
    elif cls.__module__ == "numpy" and issubclass(cls, _numpy_scalar_types()):
        reader = _float if issubclass(cls, _numpy_float_types()) else _scalar
    _readers[cls] = reader
    return reader


def _numpy_scalar_types() -> tuple[type, ...]:
    import numpy as np

    return (np.integer, np.floating, np.bool_)


def _numpy_float_types() -> tuple[type, ...]:
    import numpy as np

    return (np.floating,)


def signature(args: Sequence[Any]) -> tuple | None:
    """The launch's signature over `args`, or None when some argument has no reader."""
    parts = []
    for value in args:
        cls = type(value)
        reader = _readers[cls] if cls in _readers else reader_for(cls)
        if reader is None:
            return None
        part = reader(value)
        if part is None:
            return None
        parts.append((cls, part))
    return tuple(parts)


__all__ = ["reader_for", "signature"]
