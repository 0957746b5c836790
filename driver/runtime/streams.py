"""Streams: ferrox's own, and the one a launch should go on when the caller did not say.

A launch takes any stream a Python GPU library hands out: a ferrox `Stream`, a cuda.core
stream, anything with `__cuda_stream__`, a PyTorch stream (`.cuda_stream`), a CuPy stream
(`.ptr`), or a raw handle (an int). `core_stream` turns each into the cuda.core `Stream` that
`cuda.core.launch` takes; wrappers of foreign handles are made once per handle and kept.

When the caller passes none and an argument is a PyTorch CUDA tensor, the launch goes on
torch's current stream (`current_stream_for`), so it is ordered after the work that made its
inputs, as a torch operator would be; otherwise on the legacy default stream, which PyTorch
and CuPy also use by default.

cuda.core is imported by what makes or takes a cuda.core stream (`Stream`, `core_stream`), not
with this module: a launch of packed parameters goes on a raw handle (`stream_handle`), and a
new process's first launch should not pay for cuda.core's import (`device.py`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from ferrox.driver.runtime.device import core_device
from ferrox.driver.runtime.errors import from_core

LEGACY = 1
"""The legacy default stream's handle (CU_STREAM_LEGACY); also DLPack's name for it."""

_wrapped: dict[int, Any] = {}  # foreign handle -> non-owning cuda.core Stream


class Stream:
    """A new non-blocking stream on one device: it never waits on the legacy stream."""

    def __init__(self, ordinal: int = 0):
        from ferrox.driver.runtime.errors import CoreCudaError

        device = core_device(ordinal)
        try:
            self.core = device.create_stream()
        except CoreCudaError as exc:
            raise from_core(exc, "cuStreamCreate") from exc
        self.ordinal = ordinal
        self.handle = int(self.core.handle)

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)

    def synchronize(self) -> None:
        from ferrox.driver.runtime.errors import CoreCudaError

        try:
            self.core.sync()
        except CoreCudaError as exc:
            raise from_core(exc, "cuStreamSynchronize") from exc

    def close(self) -> None:
        """Destroy the stream (queued work still completes); closing twice is harmless."""
        if self.handle:
            self.core.close()
            self.handle = 0

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Stream(0x{self.handle:x}, device={self.ordinal})"


def stream_handle(stream: Any) -> int:
    """The raw CUstream of any stream object (see the module docstring); None is the legacy
    default stream."""
    if stream is None:
        return LEGACY
    if isinstance(stream, bool):
        raise TypeError("a stream cannot be a bool")
    if isinstance(stream, int):
        return stream
    if isinstance(stream, Stream):
        return stream.handle
    protocol = getattr(stream, "__cuda_stream__", None)
    if callable(protocol):
        return int(protocol()[1])
    for attr in ("cuda_stream", "ptr"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError(f"not a CUDA stream: {type(stream).__name__}")


def core_stream(stream: Any) -> Any:
    """The cuda.core `Stream` for any stream object (None: the legacy default stream)."""
    from cuda.core import LEGACY_DEFAULT_STREAM
    from cuda.core import Stream as _CoreStream

    if stream is None:
        return LEGACY_DEFAULT_STREAM
    if isinstance(stream, Stream):
        return stream.core
    if isinstance(stream, _CoreStream):
        return stream
    handle = stream_handle(stream)
    if handle in (0, LEGACY):
        return LEGACY_DEFAULT_STREAM
    wrapped = _wrapped.get(handle)
    if wrapped is None:
        wrapped = _wrapped[handle] = _from_handle(handle)
    return wrapped


def _from_handle(handle: int) -> Any:
    """A non-owning cuda.core stream over a foreign handle."""
    from cuda.core import Stream as _CoreStream

    return _CoreStream.from_handle(handle)


_raw_stream: Any = None


def torch_current_stream(device: int) -> int:
    """Torch's current stream on `device` as a raw handle (the legacy stream for torch's
    default, 0). Through torch's own raw-handle getter where it has one (what Triton's
    launcher calls: no Stream object made per launch), else `torch.cuda.current_stream`."""
    global _raw_stream
    torch = sys.modules["torch"]
    if _raw_stream is None:
        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", False)
    if _raw_stream:
        return int(_raw_stream(device)) or LEGACY
    return int(torch.cuda.current_stream(device).cuda_stream) or LEGACY


def current_stream_for(args: Iterable[Any]) -> int:
    """Torch's current stream (its handle) on the device of the first PyTorch CUDA tensor in
    `args`, else the legacy default stream. PyTorch is looked up, never imported: a tensor
    can only exist once its module is loaded."""
    for arg in args:
        if type(arg).__module__.startswith("torch") and getattr(arg, "is_cuda", False):
            torch = sys.modules["torch"]
            return int(torch.cuda.current_stream(arg.device).cuda_stream) or LEGACY
    return LEGACY
