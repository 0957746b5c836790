"""Stand-ins for torch tensors and CuPy arrays on the GPU, for the fake GPU (`fake_gpu.py`) and
the host-side launch benchmark (`benchmarks/launch_host.py`): the reads ferrox makes of them,
with the values a test chooses, and no library installed.

`install(monkeypatch)` puts a `torch` and a `cupy` module in `sys.modules` whose current streams
a test can move (`FakeTorch.current`, `FakeCupy.current`). A `Tensor` says what a torch CUDA
tensor says (class `torch.Tensor`, dtype objects that print as `torch.float32`, `data_ptr()`,
`stride()`, `is_contiguous()`, `device`, `get_device()`); an `ndarray` says what a CuPy array
says (class `cupy.ndarray`, its memory pointer `data`, byte strides, `__cuda_array_interface__`
version 3 with the current stream). Every attribute is plain so a test can change one in
place, as `resize_` or `as_strided_` would.
"""

from __future__ import annotations

import math
import sys
import types
from typing import Any, NamedTuple

import numpy as np


class Dtype:
    """One of torch's dtype objects: compared by identity, printed `torch.<name>`."""

    def __init__(self, name: str, itemsize: int):
        self.name, self.itemsize = name, itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"


float32, float16, bfloat16, int32 = (
    Dtype("float32", 4), Dtype("float16", 2), Dtype("bfloat16", 2), Dtype("int32", 4),
)  # fmt: skip


class Device(NamedTuple):
    """torch.device: a type and an index, compared by value (in C, as torch's are)."""

    type: str
    index: int | None


CUDA0 = Device("cuda", 0)


def _dense(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _contiguous(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    expected = 1
    for n, s in zip(reversed(shape), reversed(strides), strict=True):
        if n != 1 and s != expected:
            return 0 in shape
        expected *= n
    return True


class Tensor:
    """A torch CUDA tensor's reads (strides in elements, as torch gives them). `contiguous` and
    `is_cuda` are worked out when it is made: a test that changes `strides` or `device` in
    place (as `as_strided_` or `.data =` would) sets them too, or calls `moved()`."""

    def __init__(self, ptr: int, shape=(1024,), dtype: Dtype = float32, strides=None,
                 device: Device = CUDA0):  # fmt: skip
        self.ptr, self.shape, self.dtype, self.device = ptr, tuple(shape), dtype, device
        self.strides = _dense(self.shape) if strides is None else tuple(strides)
        self.is_cuda = device.type == "cuda"
        self.contiguous = _contiguous(self.shape, self.strides)

    def moved(self) -> Tensor:
        """Its derived reads made again from `shape`, `strides` and `device`."""
        self.is_cuda = self.device.type == "cuda"
        self.contiguous = _contiguous(self.shape, self.strides)
        return self

    def data_ptr(self) -> int:
        return self.ptr

    def stride(self) -> tuple[int, ...]:
        return self.strides

    def is_contiguous(self) -> bool:
        return self.contiguous

    def get_device(self) -> int:
        return self.device.index if self.device.type == "cuda" else -1

    def element_size(self) -> int:
        return self.dtype.itemsize

    def numel(self) -> int:
        return math.prod(self.shape)

    def dim(self) -> int:
        return len(self.shape)

    def __dlpack__(self, stream: Any = None) -> Any:
        raise BufferError("the stand-in exports nothing: it is read on torch's current stream")

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        raise AssertionError("ferrox reads a torch tensor itself, never through its CAI")


Tensor.__module__, Tensor.__name__, Tensor.__qualname__ = "torch", "Tensor", "Tensor"


class FakeTorch(types.ModuleType):
    """`torch` as ferrox looks it up: its current stream (`current`, a raw handle; 0 is torch's
    default, the legacy stream) through `_C._cuda_getCurrentRawStream` and `cuda`."""

    def __init__(self) -> None:
        super().__init__("torch")
        self.current = 0
        self.Tensor = Tensor
        self._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: self.current)
        self.cuda = types.SimpleNamespace(
            current_stream=lambda device=None: types.SimpleNamespace(cuda_stream=self.current)
        )


class ndarray:  # noqa: N801  (CuPy's class name)
    """A CuPy array's reads: `data` (its memory pointer: `ptr`, `device_id`), `dtype`, `shape`,
    byte `strides`, and its CUDA array interface (strides None when C-contiguous, the stream
    CuPy's current one), which the full check's view reads."""

    def __init__(self, ptr: int, shape=(1024,), dtype: Any = np.float32, strides=None,
                 device: int = 0):  # fmt: skip
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.data = types.SimpleNamespace(ptr=ptr, device_id=device)
        dense = tuple(s * self.dtype.itemsize for s in _dense(self.shape))
        self.strides = dense if strides is None else tuple(strides)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        current = sys.modules["cupy"].current
        dense = tuple(s * self.dtype.itemsize for s in _dense(self.shape))
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "descr": [("", self.dtype.str)],
            "data": (self.data.ptr, False),
            "strides": None if self.strides == dense else self.strides,
            "version": 3,
            "stream": current or 1,  # 1: the legacy default stream, CuPy's null stream
        }


ndarray.__module__ = "cupy"


class FakeCupy(types.ModuleType):
    """`cupy`: its current stream (`current`, a raw handle: 0 its null stream, the legacy
    one) through `cuda.get_current_stream()`."""

    def __init__(self) -> None:
        super().__init__("cupy")
        self.current = 0
        self.ndarray = ndarray
        self.cuda = types.SimpleNamespace(
            get_current_stream=lambda device_id=None: types.SimpleNamespace(ptr=self.current)
        )


def strided_memory_view(obj: Any, stream_ptr: int) -> Any:
    """What cuda.core's `StridedMemoryView.from_any_interface` answers for a CUDA producer,
    read from its array interface (element strides), for `buffers.StridedMemoryView`."""
    cai = obj.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    strides = cai["strides"]
    return types.SimpleNamespace(
        ptr=cai["data"][0],
        shape=cai["shape"],
        strides=None if strides is None else tuple(s // dtype.itemsize for s in strides),
        dtype=dtype,
        device_id=obj.data.device_id,
        is_device_accessible=True,
        readonly=cai["data"][1],
    )


def install(monkeypatch: Any) -> tuple[FakeTorch, FakeCupy]:
    """The fake `torch` and `cupy` in `sys.modules`, and cuda.core's view of a CUDA array
    read from its interface (`buffers.StridedMemoryView`)."""
    from ferrox.driver.runtime import buffers, streams

    torch, cupy = FakeTorch(), FakeCupy()
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(streams, "_raw_stream", None)
    monkeypatch.setattr(
        buffers,
        "StridedMemoryView",
        types.SimpleNamespace(from_any_interface=strided_memory_view),
        raising=False,
    )
    return torch, cupy
