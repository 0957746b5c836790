"""A launch's signature: everything the checker and the packing read from its arguments, split
into a hashable key (what does not move) and the buffers' addresses (what does), so that a
launch the checker has passed can be repeated from a memo on other buffers of the same kind.

The checker's verdict on a launch depends only on the kernel's artifact, the device's limits,
the grid, block and shared memory, and per argument on what this signature holds: a buffer's
element type, shape, contiguity, device and address, a scalar's type and value. Every rule but
one reads no address: the verdict of two launches with equal keys differs at most in the
aliasing rule (`aliasing.py`), which `relaunch.Relaunch` runs again on the addresses of every
call before it launches. Two launches with equal keys pack to the same parameter bytes except
for the addresses, which the relaunch writes into its packed parameters.

Reading a signature must be cheaper than checking: each argument type has one reader, chosen
once per type (`reader_for`); a torch tensor, the common case, is read inline. Types without a
reader (NumPy arrays, which are copied in; other libraries' arrays but CuPy's, which may need
stream ordering) give None: such launches are always checked in full. So does a reader that raises
(a sparse tensor has no address): the full check then says what is wrong.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

Reader = Callable[[Any, list], Any]
"""reader(value, addresses) -> the value's key part (None: no signature), appending a buffer's
address to `addresses`."""

_readers: dict[type, Reader | None] = {}
_UNKNOWN: Any = object()  # a class `reader_for` has not been asked about yet
_tensor: Any = None
"""`torch.Tensor`, once a reader for it was asked for: read inline in `signature`."""


def _torch_tensor(t: Any, addresses: list) -> Any:
    """A tensor's dtype, shape, contiguity and device (`is_contiguous` is the same rule as the
    runtime's `c_contiguous`: size-1 dimensions and empty tensors do not count). The device is
    torch's `device` (type and index: one read, where `is_cuda` and `get_device` were two): a
    CPU or other device's tensor has a key no passed launch has, so it is checked in full (and
    refused) each time. None of it is remembered by the tensor's identity: `resize_`, `set_`,
    `as_strided_`, the in-place view ops and `.data =` change a tensor's shape, strides, dtype,
    device or address and keep the object, so every call reads all five."""
    addresses.append(t.data_ptr())
    return (t.dtype, t.shape, t.is_contiguous(), t.device)


def _device_array(a: Any, addresses: list) -> Any:
    addresses.append(a.ptr)
    return (a.shape, a.element, a.ordinal)


def _device_view(v: Any, addresses: list) -> Any:
    addresses.append(v.ptr)
    return (v.nbytes, v.shape, v.element, v.ordinal, v.readonly)


def cupy_stream() -> int:
    """CuPy's current stream on its current device (0: its null stream, the legacy one)."""
    return sys.modules["cupy"].cuda.get_current_stream().ptr


def _cupy_array(a: Any, addresses: list) -> Any:
    """A CuPy array: its address, element type, shape, byte strides and device (what the full
    check's view reads; CuPy arrays are never read-only), read from the array and its memory
    pointer (its CUDA array interface would cost a dict and NumPy's `dtype.descr` per call).
    Only while CuPy's current stream is its null stream, the legacy one, does it have a key: a
    launch then needs no ordering (its relaunch goes on that stream too); on any other the full
    check's export orders the producer's work first."""
    if cupy_stream():
        return None
    data = a.data
    addresses.append(data.ptr)
    return (a.dtype, a.shape, a.strides, data.device_id)


def _scalar(x: Any, addresses: list) -> Any:
    return x  # with its type, added by `signature`


def _float(x: Any, addresses: list) -> Any:
    return float(x).hex()  # -0.0 == 0.0, but they pack to other bytes


def reader_for(cls: type) -> Reader | None:
    """The signature reader of arguments of class `cls`, chosen once per class."""
    global _tensor
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
        if cls.__name__ == "Tensor":
            _tensor = cls
    elif cls.__module__.split(".")[0] == "cupy" and cls.__name__ == "ndarray":
        reader = _cupy_array
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


def signature(args: Sequence[Any]) -> tuple[tuple, list[int]] | None:
    """(key, addresses) of the launch over `args`, or None when some argument has no reader.

    The key is flat: each argument's class, then its reader's part. The addresses are the
    buffer arguments', in order."""
    key: list[Any] = []
    addresses: list[int] = []
    try:
        for value in args:
            cls = type(value)
            if cls is _tensor:  # inline: a call to the reader costs as much as its reads
                addresses.append(value.data_ptr())
                key += (cls, (value.dtype, value.shape, value.is_contiguous(), value.device))
                continue
            reader = _readers.get(cls, _UNKNOWN)
            if reader is _UNKNOWN:
                reader = reader_for(cls)
            if reader is None:
                return None
            part = reader(value, addresses)
            if part is None:
                return None
            key += (cls, part)
    except Exception:  # an argument that cannot say (a sparse tensor's address): check in full
        return None
    return tuple(key), addresses


__all__ = ["reader_for", "signature"]
