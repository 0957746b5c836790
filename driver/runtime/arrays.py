"""Device buffers: NumPy arrays copied in and back, PyTorch and CuPy arrays taken without a copy.

A kernel parameter is a flat, C-ordered run of elements, so every array handed to a launch is
reduced to (device pointer, element type, shape) here, and anything that would make that a lie
(a strided view, memory on another device or on the host, another element type) is rejected
before a launch is attempted. Zero-copy arrays come in through `__cuda_array_interface__` or,
failing that, DLPack (`__dlpack_device__` / `__dlpack__`).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ferrox.driver.runtime import dlpack

# ferrox element type name -> NumPy dtype (None: NumPy has no such type, device arrays only).
ELEMENT_TYPES: dict[str, np.dtype | None] = {
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "bf16": None,
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "bool": np.dtype(np.bool_),
}
ITEM_SIZES = {"f16": 2, "bf16": 2, "bool": 1} | {
    name: dtype.itemsize for name, dtype in ELEMENT_TYPES.items() if dtype is not None
}
_BY_DTYPE = {dtype: name for name, dtype in ELEMENT_TYPES.items() if dtype is not None}


class ArrayError(TypeError):
    """An array that cannot be a kernel argument: wrong element type, layout or device."""


def element_type(dtype: Any) -> str:
    """The ferrox name (`f32`) of a NumPy dtype or typestr (`<f4`)."""
    dt = np.dtype(dtype)
    if dt.byteorder == ">":
        raise ArrayError(f"big-endian arrays are not supported (dtype {dt.str})")
    name = _BY_DTYPE.get(dt.newbyteorder("=") if dt.byteorder not in "=|" else dt)
    if name is None:
        raise ArrayError(f"unsupported element type {dt} (supported: {', '.join(ELEMENT_TYPES)})")
    return name


def c_contiguous(shape: Sequence[int], strides: Sequence[int] | None, itemsize: int) -> bool:
    """True when byte `strides` describe the dense C order of `shape` (size-1 dims don't count)."""
    if strides is None or 0 in shape:
        return True
    expected = itemsize
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


class DeviceArray:
    """A run of device memory with an element type and a shape.

    `owner` keeps a foreign array (a torch tensor, a DLPack capsule) alive while ferrox uses
    its memory; memory ferrox allocated itself is freed by `free()` or when this is collected.
    `host` is the NumPy array this was copied from, which `copy_back()` overwrites.
    It exposes `__cuda_array_interface__`, so PyTorch and CuPy can read ferrox's results.
    """

    def __init__(
        self,
        ptr: int,
        shape: Sequence[int],
        elem: str,
        *,
        ordinal: int = 0,
        owner: Any = None,
        host: np.ndarray | None = None,
        readonly: bool = False,
        owned: bool = False,
    ):
        if elem not in ELEMENT_TYPES:
            raise ArrayError(f"unsupported element type {elem!r}")
        self.ptr = int(ptr)
        self.shape = tuple(int(s) for s in shape)
        self.elem = elem
        self.ordinal = ordinal
        self.owner = owner
        self.host = host
        self.readonly = readonly
        self._finalizer = (
            weakref.finalize(self, _free_quietly, self.ptr, ordinal) if owned else None
        )

    # -- construction
    @classmethod
    def empty(cls, shape: int | Sequence[int], elem: str, ordinal: int = 0) -> DeviceArray:
        from ferrox.driver.runtime import cuda

        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if elem not in ELEMENT_TYPES:
            raise ArrayError(f"unsupported element type {elem!r}")
        nbytes = int(np.prod(shape, dtype=np.int64)) * ITEM_SIZES[elem]
        return cls(cuda.mem_alloc(nbytes, ordinal), shape, elem, ordinal=ordinal, owned=True)

    @classmethod
    def from_numpy(cls, array: np.ndarray, ordinal: int = 0) -> DeviceArray:
        """A device copy of `array` (any layout; copied in C order), remembered for copy_back."""
        from ferrox.driver.runtime import cuda

        elem = element_type(array.dtype)
        staged = np.ascontiguousarray(array)
        out = cls.empty(array.shape, elem, ordinal)
        out.host = array
        cuda.memcpy_htod(out.ptr, staged, ordinal=ordinal)
        return out

    # -- facts
    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        return ITEM_SIZES[self.elem]

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def dtype(self) -> np.dtype:
        dtype = ELEMENT_TYPES[self.elem]
        if dtype is None:
            raise ArrayError(
                f"NumPy has no {self.elem} type: read this array through PyTorch or CuPy"
            )
        return dtype

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, self.readonly),
            "strides": None,
            "version": 3,
            "stream": None,
        }

    def __repr__(self) -> str:
        where = f"ptr=0x{self.ptr:x}, device={self.ordinal}"
        return f"DeviceArray({self.elem}, shape={self.shape}, {where})"

    # -- data movement
    def copy_to_host(self, out: np.ndarray | None = None) -> np.ndarray:
        from ferrox.driver.runtime import cuda

        if out is None:
            out = np.empty(self.shape, dtype=self.dtype)
        elif out.nbytes != self.nbytes or not out.flags.c_contiguous:
            raise ArrayError(f"copy_to_host needs a C-contiguous array of {self.nbytes} bytes")
        cuda.memcpy_dtoh(out, self.ptr, self.nbytes, ordinal=self.ordinal)
        return out

    def copy_back(self) -> None:
        """Write the device contents into the NumPy array this was made from."""
        if self.host is None:
            raise ArrayError("this device array was not copied from a NumPy array")
        if self.host.flags.c_contiguous and self.host.flags.writeable:
            self.copy_to_host(self.host)
        else:
            np.copyto(self.host, self.copy_to_host())

    def fill_bytes(self, value: int) -> None:
        from ferrox.driver.runtime import cuda

        cuda.memset_d8(self.ptr, value, self.nbytes, ordinal=self.ordinal)

    def fill_nan(self) -> None:
        """Poison an f32 array with quiet NaNs, so an element a kernel forgot to write shows up."""
        from ferrox.driver.runtime import cuda

        if self.elem != "f32":
            raise ArrayError(f"fill_nan needs an f32 array, not {self.elem}")
        cuda.memset_d32(self.ptr, 0x7FC00000, self.size, ordinal=self.ordinal)

    def free(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self.owner = None

    def __enter__(self) -> DeviceArray:
        return self

    def __exit__(self, *exc: object) -> None:
        self.free()


def _free_quietly(ptr: int, ordinal: int) -> None:
    from ferrox.driver.runtime import cuda

    try:
        cuda.mem_free(ptr, ordinal)
    except Exception:  # at interpreter exit the driver may already be gone
        pass


def _pointer_device(ptr: int) -> int:
    from ferrox.driver.runtime import cuda

    return cuda.pointer_device_ordinal(ptr)


def _sync_producer_stream(stream: Any) -> None:
    """`__cuda_array_interface__` v3: the producer's pending work must finish before we read."""
    if stream is None:
        return
    from ferrox.driver.runtime import cuda

    cuda.stream_synchronize(int(stream))


def to_device(array: np.ndarray, ordinal: int = 0) -> DeviceArray:
    """A device copy of a NumPy array."""
    return DeviceArray.from_numpy(np.asarray(array), ordinal)


def as_device_array(
    obj: Any, elem: str | None = None, *, ordinal: int = 0, stream: Any = None, copy: bool = True
) -> DeviceArray:
    """A `DeviceArray` for `obj`, checked to hold `elem` elements on device `ordinal`.

    NumPy arrays (and CPU DLPack arrays) are copied when `copy` is true; PyTorch/CuPy device
    arrays are used in place and must be C-contiguous. Every check runs before any allocation.
    """
    if isinstance(obj, DeviceArray):
        return _checked(obj, elem, ordinal)
    if isinstance(obj, np.ndarray):
        return _from_host(obj, elem, ordinal, copy)
    interface_error: Exception | None = None
    if hasattr(type(obj), "__cuda_array_interface__") or hasattr(obj, "__cuda_array_interface__"):
        try:
            interface = obj.__cuda_array_interface__
        except (AttributeError, TypeError, RuntimeError, ValueError) as exc:
            interface_error = exc  # torch refuses it for bf16 and for tensors that require grad
        else:
            return _checked(_from_interface(obj, interface), elem, ordinal)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device_type, device_id = obj.__dlpack_device__()
        if int(device_type) == dlpack.CPU:
            return _from_host(np.from_dlpack(obj), elem, ordinal, copy)
        return _checked(
            dlpack.import_array(obj, int(device_type), int(device_id), stream), elem, ordinal
        )
    if interface_error is not None:
        raise ArrayError(
            f"{type(obj).__name__} refused __cuda_array_interface__: {interface_error}"
        )
    raise ArrayError(
        f"expected a NumPy array or a CUDA device array (__cuda_array_interface__ or DLPack), "
        f"got {type(obj).__name__}"
    )


def _from_host(array: np.ndarray, elem: str | None, ordinal: int, copy: bool) -> DeviceArray:
    found = element_type(array.dtype)
    if elem is not None and found != elem:
        raise ArrayError(f"expected {elem} elements, got {found} ({array.dtype})")
    if not copy:
        raise ArrayError("a NumPy array lives on the host: copy it with to_device(array) first")
    return DeviceArray.from_numpy(array, ordinal)


def _from_interface(obj: Any, interface: dict[str, Any]) -> DeviceArray:
    if interface.get("mask") is not None:
        raise ArrayError("masked arrays (__cuda_array_interface__ with a mask) are not supported")
    shape = tuple(int(s) for s in interface["shape"])
    elem = element_type(interface["typestr"])
    ptr, readonly = interface["data"]
    strides = interface.get("strides")
    if not c_contiguous(shape, strides, ITEM_SIZES[elem]):
        raise ArrayError(
            f"{type(obj).__name__} of shape {shape} with strides {tuple(strides)} is not "
            "C-contiguous: make it contiguous first (.contiguous() in PyTorch, "
            "cupy.ascontiguousarray in CuPy)"
        )
    _sync_producer_stream(interface.get("stream"))
    size = int(np.prod(shape, dtype=np.int64))
    ordinal = _pointer_device(int(ptr)) if size and ptr else -1
    return DeviceArray(
        int(ptr or 0), shape, elem, ordinal=ordinal, owner=obj, readonly=bool(readonly)
    )


def _checked(array: DeviceArray, elem: str | None, ordinal: int) -> DeviceArray:
    if elem is not None and array.elem != elem:
        raise ArrayError(f"expected {elem} elements, got {array.elem}")
    if array.ordinal not in (ordinal, -1):
        raise ArrayError(
            f"array is on CUDA device {array.ordinal}, but the kernel runs on device {ordinal}"
        )
    if array.ordinal == -1:
        array.ordinal = ordinal  # an empty array belongs to whichever device uses it
    return array
