"""Read a DLPack capsule's tensor description without consuming it.

The capsule is only read (data pointer, device, dtype, shape, strides), never renamed to
`used_dltensor`: its own destructor then releases the producer's memory when the capsule is
collected, and the `DeviceArray` made here keeps it alive for as long as ferrox needs it.
Both the classic `dltensor` and the DLPack 1.x `dltensor_versioned` capsules are understood.
"""

from __future__ import annotations

import ctypes
from typing import Any

CPU, CUDA, CUDA_HOST, CUDA_MANAGED = 1, 2, 3, 13
_DEVICE_NAMES = {
    CPU: "CPU",
    CUDA: "CUDA",
    CUDA_HOST: "CUDA pinned host",
    CUDA_MANAGED: "CUDA managed",
}
_FLAG_READ_ONLY = 1


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _Device),
        ("ndim", ctypes.c_int32),
        ("dtype", _DataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _Managed(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", _Tensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedVersioned(ctypes.Structure):
    _fields_ = [
        ("version", _Version),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", _Tensor),
    ]


_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = ctypes.c_char_p
_get_name.argtypes = [ctypes.py_object]
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# (type code, bits) -> ferrox element type. Codes: 0 int, 1 uint, 2 float, 4 bfloat, 6 bool.
_ELEMENTS = {
    (0, 8): "i8", (0, 16): "i16", (0, 32): "i32", (0, 64): "i64",
    (1, 8): "u8", (1, 16): "u16", (1, 32): "u32", (1, 64): "u64",
    (2, 16): "f16", (2, 32): "f32", (2, 64): "f64",
    (4, 16): "bf16", (6, 8): "bool",
}  # fmt: skip


def _export(obj: Any, stream: Any) -> Any:
    """Call `__dlpack__`, asking for a versioned capsule where the producer knows how."""
    from ferrox.driver.runtime import cuda

    handle = cuda.stream_handle(stream)
    consumer_stream = 1 if handle == 0 else handle  # DLPack: 1 is the legacy default stream
    from ferrox.driver.runtime.arrays import ArrayError

    for kwargs in (
        {"stream": consumer_stream, "max_version": (1, 0)},
        {"stream": consumer_stream},
        {},
    ):
        try:
            return obj.__dlpack__(**kwargs)
        except TypeError:
            continue
        except (RuntimeError, BufferError, ValueError) as exc:  # torch: tensors that require grad
            raise ArrayError(f"{type(obj).__name__}.__dlpack__ refused: {exc}") from None
    raise ArrayError(f"{type(obj).__name__}.__dlpack__ accepts none of the standard arguments")


def describe(
    capsule: Any,
) -> tuple[int, tuple[int, int], str, tuple[int, ...], tuple[int, ...] | None, bool]:
    """(data pointer, (device type, id), element type, shape, byte strides or None, read-only)."""
    from ferrox.driver.runtime.arrays import ArrayError

    name = _get_name(capsule)
    if name == b"dltensor_versioned":
        managed = _ManagedVersioned.from_address(_get_pointer(capsule, name))
        if managed.version.major > 1:
            raise ArrayError(
                f"DLPack version {managed.version.major} is newer than ferrox reads (1)"
            )
        readonly = bool(managed.flags & _FLAG_READ_ONLY)
    elif name == b"dltensor":
        managed = _Managed.from_address(_get_pointer(capsule, name))
        readonly = False
    else:
        raise ArrayError(f"not an unused DLPack capsule (capsule name {name!r})")
    t = managed.dl_tensor
    key = (t.dtype.code, t.dtype.bits)
    if t.dtype.lanes != 1 or key not in _ELEMENTS:
        raise ArrayError(
            f"unsupported DLPack dtype (code {key[0]}, {key[1]} bits, {t.dtype.lanes} lanes)"
        )
    elem = _ELEMENTS[key]
    shape = tuple(t.shape[i] for i in range(t.ndim))
    itemsize = max(t.dtype.bits // 8, 1)
    strides = tuple(t.strides[i] * itemsize for i in range(t.ndim)) if t.strides else None
    ptr = (t.data or 0) + t.byte_offset
    return ptr, (t.device.device_type, t.device.device_id), elem, shape, strides, readonly


def import_array(obj: Any, device_type: int, device_id: int, stream: Any = None):
    """A zero-copy `DeviceArray` over a CUDA DLPack producer (PyTorch, CuPy, JAX...)."""
    from ferrox.driver.runtime.arrays import ITEM_SIZES, ArrayError, DeviceArray, c_contiguous

    if device_type not in (CUDA, CUDA_MANAGED):
        where = _DEVICE_NAMES.get(device_type, f"DLPack device type {device_type}")
        raise ArrayError(f"{type(obj).__name__} lives in {where} memory, not on a CUDA device")
    capsule = _export(obj, stream)
    ptr, (dev_type, dev_id), elem, shape, strides, readonly = describe(capsule)
    if dev_type not in (CUDA, CUDA_MANAGED):
        where = _DEVICE_NAMES.get(dev_type, f"DLPack device type {dev_type}")
        raise ArrayError(f"{type(obj).__name__} exported {where} memory, not CUDA device memory")
    if not c_contiguous(shape, strides, ITEM_SIZES[elem]):
        raise ArrayError(
            f"{type(obj).__name__} of shape {shape} with strides {strides} is not C-contiguous: "
            "make it contiguous first (.contiguous() in PyTorch, cupy.ascontiguousarray in CuPy)"
        )
    return DeviceArray(ptr, shape, elem, ordinal=dev_id, owner=(obj, capsule), readonly=readonly)
