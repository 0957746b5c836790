"""Device memory as kernel arguments: views of other libraries' arrays, and NumPy staging.

A kernel parameter is a flat, C-ordered run of elements, so every array handed to a launch is
reduced to a `DeviceView` (address, bytes, shape, element type, device) here, and anything
that would make that a lie (a strided view, host memory, an element type ferrox has no name
for) is refused before a launch is attempted.

`view_of` reads PyTorch tensors (bf16 included), CuPy arrays and anything else with
`__dlpack__` or `__cuda_array_interface__` through cuda.core's `StridedMemoryView`, passing
the consumer stream: work still pending on the producer's stream is ordered before anything
later queued on that stream (DLPack: the producer makes the consumer wait; CUDA array
interface: cuda.core records an event and makes the consumer stream wait on it).

`DeviceArray` is memory ferrox allocates itself, for NumPy data copied in and back (bf16 is
carried in NumPy as its uint16 bits).

cuda.core is imported where it is used (`StridedMemoryView`, the memory pool), not with this
module: a torch tensor on torch's current stream is read from the tensor, and a new process's
first launch on torch tensors then needs no cuda.core (`device.py` says why).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from cuda.bindings import driver as _cu

from ferrox.driver.runtime.device import core_device
from ferrox.driver.runtime.errors import ArrayError, check, from_core
from ferrox.driver.runtime.streams import LEGACY, core_stream, stream_handle

ELEMENT_DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "index": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "bf16": np.dtype(np.uint16),  # NumPy has no bf16: its bits
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
"""Element names a buffer can have (the artifact's, plus unsigned ones to name in refusals),
and the NumPy dtype that holds each on the host."""

ITEM_BYTES = {name: dtype.itemsize for name, dtype in ELEMENT_DTYPES.items()}
_BY_DTYPE = {dtype: name for name, dtype in ELEMENT_DTYPES.items() if name not in ("bf16", "index")}


_HOST_DLPACK_DEVICES = (1,)  # kDLCPU


def element_of(dtype: Any) -> str:
    """The element name (`f32`) of a NumPy dtype; bf16 by name (ml_dtypes, torch.bfloat16)."""
    if str(dtype).rsplit(".", 1)[-1] == "bfloat16":
        return "bf16"
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise ArrayError(f"unsupported element type {dtype}") from None
    if dt.byteorder == ">":
        raise ArrayError(f"big-endian arrays are not supported (dtype {dt.str})")
    name = _BY_DTYPE.get(dt.newbyteorder("=") if dt.byteorder not in "=|" else dt)
    if name is None:
        supported = ", ".join(ELEMENT_DTYPES)
        raise ArrayError(f"unsupported element type {dt} (supported: {supported})")
    return name


def c_contiguous(shape: Sequence[int], strides: Sequence[int] | None) -> bool:
    """True when element `strides` describe the dense C order of `shape` (size-1 dimensions
    and empty arrays do not count)."""
    if strides is None or 0 in shape:
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


@dataclass(frozen=True)
class DeviceView:
    """A dense run of device memory a kernel can take: where, how big, of what, on which GPU.

    `owner` is the object the memory belongs to (a tensor, a `DeviceArray`), kept alive as long
    as the view is; `readonly` is what the producer said.
    """

    ptr: int
    nbytes: int
    shape: tuple[int, ...]
    element: str
    ordinal: int
    owner: Any = field(default=None, repr=False, compare=False)
    readonly: bool = False
    keep: Any = field(default=None, repr=False, compare=False)  # the StridedMemoryView

    @property
    def size(self) -> int:
        """Elements, the length a slice parameter is passed."""
        return self.nbytes // ITEM_BYTES[self.element]

    def overlaps(self, other: DeviceView) -> bool:
        """Whether the two byte ranges share a byte (empty views overlap nothing)."""
        return (
            self.nbytes > 0
            and other.nbytes > 0
            and self.ptr < other.ptr + other.nbytes
            and other.ptr < self.ptr + self.nbytes
        )


def view_of(obj: Any, *, stream: Any = None) -> DeviceView:
    """A `DeviceView` of `obj`: a `DeviceView`, a `DeviceArray`, or a device array with
    `__dlpack__` or `__cuda_array_interface__` (PyTorch, CuPy, JAX, Numba...), taken in place.

    `stream` is the stream the view will be used on (None: the legacy default stream); work
    pending on the producer's stream is ordered before it. Refused with `ArrayError`: host
    memory (NumPy: stage it with `DeviceArray.from_numpy`), non-contiguous views, unknown
    element types.
    """
    if isinstance(obj, DeviceView):
        return obj
    if isinstance(obj, DeviceArray):
        return obj.view
    if isinstance(obj, np.ndarray):
        raise ArrayError(
            "a NumPy array lives on the host: copy it to the device first "
            "(DeviceArray.from_numpy), or launch through the checked API, which does"
        )
    if not (hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__")):
        raise ArrayError(
            "expected a device array (DLPack or __cuda_array_interface__), "
            f"got {type(obj).__name__}"
        )
    handle = stream_handle(stream) or LEGACY
    if type(obj).__module__ == "torch" and getattr(obj, "is_cuda", False):
        fast = _torch_view(obj, handle)
        if fast is not None:
            return fast
    where = getattr(obj, "__dlpack_device__", None)
    if callable(where) and int(where()[0]) in _HOST_DLPACK_DEVICES:
        raise _host(obj)  # asked before exporting: a CPU producer refuses a CUDA consumer stream
    try:
        view = _strided_memory_view().from_any_interface(obj, stream_ptr=handle)
    except BufferError as exc:
        raise ArrayError(f"{type(obj).__name__} cannot be viewed as device memory: {exc}") from None
    if not view.is_device_accessible:
        raise _host(obj)
    shape = tuple(int(s) for s in view.shape)
    strides = view.strides
    if not c_contiguous(shape, strides):
        raise ArrayError(
            f"{type(obj).__name__} of shape {shape} with strides {tuple(strides or ())} "
            "(in elements) is not C-contiguous: make it contiguous first (.contiguous() in "
            "PyTorch, cupy.ascontiguousarray in CuPy)"
        )
    element = _element_of_view(view, obj)
    size = math.prod(shape)
    return DeviceView(
        ptr=int(view.ptr),
        nbytes=size * ITEM_BYTES[element],
        shape=shape,
        element=element,
        ordinal=int(view.device_id),
        owner=obj,
        readonly=bool(view.readonly),
        keep=view,
    )


def _strided_memory_view() -> Any:
    """cuda.core's `StridedMemoryView`, imported on first use (a torch tensor on its own
    stream needs none); a seam too: the module attribute, where a test has set one."""
    found = globals().get("StridedMemoryView")
    return found if found is not None else __getattr__("StridedMemoryView")


def __getattr__(name: str) -> Any:
    if name == "StridedMemoryView":
        from cuda.core.utils import StridedMemoryView

        globals()[name] = StridedMemoryView
        return StridedMemoryView
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _host(obj: Any) -> ArrayError:
    return ArrayError(
        f"{type(obj).__name__} lives in host memory, not on a CUDA device: copy it first"
    )


_TORCH_ELEMENTS = {
    "torch.float32": "f32",
    "torch.float16": "f16",
    "torch.bfloat16": "bf16",
    "torch.float64": "f64",
    "torch.int8": "i8",
    "torch.int16": "i16",
    "torch.int32": "i32",
    "torch.int64": "i64",
    "torch.uint8": "u8",
    "torch.bool": "i1",
}


def _torch_view(tensor: Any, handle: int) -> DeviceView | None:
    """A torch tensor's view read from the tensor itself, when the launch goes on torch's
    current stream: then nothing needs ordering, and DLPack's export (tens of microseconds)
    would only repeat what the tensor says. None sends the tensor through DLPack."""
    torch = sys.modules["torch"]
    ordinal = tensor.get_device()
    if (torch.cuda.current_stream(ordinal).cuda_stream or LEGACY) != handle:
        return None
    element = _TORCH_ELEMENTS.get(str(tensor.dtype))
    if element is None:
        return None  # DLPack names what ferrox cannot take
    shape = tuple(tensor.shape)
    if not c_contiguous(shape, tensor.stride()):
        raise ArrayError(
            f"Tensor of shape {shape} with strides {tuple(tensor.stride())} (in elements) is not "
            "C-contiguous: make it contiguous first (.contiguous() in PyTorch, "
            "cupy.ascontiguousarray in CuPy)"
        )
    return DeviceView(
        ptr=tensor.data_ptr(),
        nbytes=math.prod(shape) * ITEM_BYTES[element],
        shape=shape,
        element=element,
        ordinal=ordinal,
        owner=tensor,
    )


def _element_of_view(view: Any, obj: Any) -> str:
    """The element type of a view. cuda.core names bf16 only where ml_dtypes is installed;
    the producer's own dtype (torch.bfloat16) says it everywhere."""
    try:
        dtype = view.dtype
    except Exception:  # cuda.core has no NumPy dtype for it (bf16 without ml_dtypes)
        dtype = None
    if dtype is None or dtype.kind == "V":
        dtype = getattr(obj, "dtype", dtype)
    if dtype is None:
        raise ArrayError(f"{type(obj).__name__} does not say its element type")
    return element_of(dtype)


class DeviceArray:
    """Device memory ferrox allocated (from the device's memory pool), with a shape and an
    element type: NumPy data copied in (`from_numpy`) and back (`copy_to_host`).

    Built directly (`DeviceArray(ptr, shape, element)`) it only describes memory someone else
    owns. It exposes `__cuda_array_interface__` (not for bf16), so PyTorch and CuPy can read
    it in place.
    """

    def __init__(
        self,
        ptr: int,
        shape: int | Sequence[int],
        element: str,
        *,
        ordinal: int = 0,
        owner: Any = None,
    ):
        if element not in ELEMENT_DTYPES:
            raise ArrayError(f"unsupported element type {element!r}")
        self.ptr = int(ptr)
        self.shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        self.element = element
        self.ordinal = ordinal
        self.owner = owner  # a cuda.core Buffer when ferrox allocated it
        self.size = math.prod(self.shape)
        self.nbytes = self.size * ITEM_BYTES[element]

    # -- construction
    @classmethod
    def empty(cls, shape: int | Sequence[int], element: str, ordinal: int = 0) -> DeviceArray:
        """Uninitialised device memory for `shape` elements of `element`."""
        shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
        if element not in ELEMENT_DTYPES:
            raise ArrayError(f"unsupported element type {element!r}")
        nbytes = math.prod(shape) * ITEM_BYTES[element]
        if nbytes == 0:
            return cls(0, shape, element, ordinal=ordinal)
        ptr, buffer = _alloc(nbytes, ordinal)
        return cls(ptr, shape, element, ordinal=ordinal, owner=buffer)

    @classmethod
    def from_numpy(
        cls, array: np.ndarray, ordinal: int = 0, *, element: str | None = None
    ) -> DeviceArray:
        """A device copy of `array` (any layout; copied in C order). `element="bf16"` takes
        a uint16 array of bf16 bits (or an ml_dtypes bfloat16 array); an integer element takes
        either signedness of its width (kernel integers are signless)."""
        array = np.asarray(array)
        found = element_of(array.dtype)
        if element is None:
            element = found
        elif element != found and not (
            (element == "bf16" and found in ("u16", "bf16"))
            or (element[0] in "iu" and found[0] in "iu" and element[1:] == found[1:])
        ):
            raise ArrayError(f"expected {element} elements, got {found} ({array.dtype})")
        out = cls.empty(array.shape, element, ordinal)
        host = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
        if host.nbytes:
            _copy_in(out.ptr, host, ordinal)
        return out

    # -- facts
    @property
    def itemsize(self) -> int:
        return ITEM_BYTES[self.element]

    @property
    def dtype(self) -> np.dtype:
        """The host dtype: uint16 for bf16."""
        return ELEMENT_DTYPES[self.element]

    @property
    def view(self) -> DeviceView:
        return DeviceView(self.ptr, self.nbytes, self.shape, self.element, self.ordinal, self)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        if self.element == "bf16":
            raise AttributeError("bf16 has no __cuda_array_interface__ type string")
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, False),
            "strides": None,
            "version": 3,
            "stream": None,
        }

    def __repr__(self) -> str:
        return (
            f"DeviceArray({self.element}, shape={self.shape}, ptr=0x{self.ptr:x}, "
            f"device={self.ordinal})"
        )

    # -- data movement
    def copy_to_host(self, out: np.ndarray | None = None) -> np.ndarray:
        """The contents as a NumPy array (bf16 as uint16 bits), after all work queued on the
        legacy default stream; into `out` when given (C-contiguous, the same byte size)."""
        if out is None:
            out = np.empty(self.shape, dtype=self.dtype)
        elif out.nbytes != self.nbytes or not out.flags.c_contiguous or not out.flags.writeable:
            raise ArrayError(
                f"copy_to_host needs a writable C-contiguous array of {self.nbytes} bytes"
            )
        if self.nbytes:
            _copy_out(out.reshape(-1).view(np.uint8), self.ptr, self.ordinal)
        return out

    def free(self) -> None:
        """Give the memory back (after the device finished every queued kernel, which may
        still use it); describing-only arrays just forget the owner."""
        buffer, self.owner = self.owner, None
        if buffer is not None:
            _release(buffer, self.ordinal)

    def __enter__(self) -> DeviceArray:
        return self

    def __exit__(self, *exc: object) -> None:
        self.free()


# -- seams (tests/support/fake_gpu.py replaces these four with host memory) --------------------


def _alloc(nbytes: int, ordinal: int) -> tuple[int, Any]:
    """(address, owner) of `nbytes` from the device's memory pool (a cuda.core Buffer)."""
    from ferrox.driver.runtime.errors import CoreCudaError

    device = core_device(ordinal)
    stream = core_stream(None)
    try:
        buffer = device.allocate(nbytes, stream=stream)
        stream.sync()  # pool memory is ordered on its stream; make it usable on any other
    except CoreCudaError as exc:
        raise from_core(exc, "cuMemAllocFromPoolAsync") from exc
    return int(buffer.handle), buffer


def _release(buffer: Any, ordinal: int) -> None:
    """Free what `_alloc` gave, once every kernel queued on the device is done with it."""
    from ferrox.driver.runtime.errors import CoreCudaError

    device = core_device(ordinal)
    try:
        device.sync()
        buffer.close(core_stream(None))
    except CoreCudaError as exc:
        raise from_core(exc, "cuMemFreeAsync") from exc


def _copy_in(ptr: int, host: np.ndarray, ordinal: int) -> None:
    """Host bytes to the device, complete on return (cuda.core copies only between Buffers)."""
    core_device(ordinal)
    check(_cu.cuMemcpyHtoD(ptr, host.ctypes.data, host.nbytes), "cuMemcpyHtoD")
    check(_cu.cuStreamSynchronize(_cu.CUstream(LEGACY)), "cuStreamSynchronize")


def _copy_out(host: np.ndarray, ptr: int, ordinal: int) -> None:
    """Device bytes to a writable host buffer, after the legacy stream's queued work."""
    core_device(ordinal)
    check(_cu.cuMemcpyDtoH(host.ctypes.data, ptr, host.nbytes), "cuMemcpyDtoH")
