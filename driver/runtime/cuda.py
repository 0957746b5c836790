"""The CUDA driver calls ferrox makes, each checked: a thin layer over `cuda.bindings.driver`.

Why the driver API and not the runtime: ferrox loads PTX it generated itself and launches it by
name, which is exactly cuModuleLoadData + cuLaunchKernel, and every call's CUresult is visible.
Contexts are the devices' primary contexts, the ones the CUDA runtime (and so PyTorch and CuPy)
uses, so their device pointers are valid in ferrox's launches without any copying.

Handles are plain ints (device pointers, streams, functions, modules), so nothing above this
file depends on cuda-python's wrapper types. Nothing here runs at import time.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ferrox.driver.runtime.errors import CudaError, CudaUnavailable, check, mark_driver_loaded

try:
    from cuda.bindings import driver as _cu

    _IMPORT_ERROR: str | None = None
except ImportError as exc:  # pragma: no cover - exercised only where cuda-python is absent
    _cu = None
    _IMPORT_ERROR = str(exc)

JIT_LOG_BYTES = 16384
_lock = threading.RLock()
_initialized = False
_contexts: dict[int, Context] = {}

Dim3 = tuple[int, int, int]


def driver_module() -> Any:
    """`cuda.bindings.driver`, initialised; `CudaUnavailable`, with the reason, if it can't be."""
    init()
    return _cu


def init() -> None:
    """cuInit, once per process. Missing cuda-python or libcuda is `CudaUnavailable`."""
    global _initialized
    if _initialized:
        return
    with _lock:
        if _initialized:
            return
        if _cu is None:
            raise CudaUnavailable(
                f"cuda-python is not installed ({_IMPORT_ERROR}): pip install cuda-python"
            )
        try:
            result = _cu.cuInit(0)
        except (
            Exception
        ) as exc:  # cuda.pathfinder raises before any CUresult when libcuda is absent
            raise CudaUnavailable(
                f"the CUDA driver library (libcuda.so) could not be loaded: {exc}"
            ) from exc
        mark_driver_loaded()
        check(result, "cuInit")
        _initialized = True


def unavailable_reason() -> str | None:
    """None when a CUDA GPU can be used here, else why not. Never raises."""
    try:
        if device_count() == 0:
            return "the CUDA driver reports no GPU"
    except (CudaUnavailable, CudaError) as exc:
        return str(exc)
    except Exception as exc:  # a probe must not crash its caller
        return f"CUDA probe failed: {type(exc).__name__}: {exc}"
    return None


def driver_version() -> tuple[int, int]:
    """The installed driver's CUDA version, e.g. (13, 0)."""
    version = check(driver_module().cuDriverGetVersion(), "cuDriverGetVersion")
    return version // 1000, (version % 1000) // 10


def device_count() -> int:
    return int(check(driver_module().cuDeviceGetCount(), "cuDeviceGetCount"))


def get_device(ordinal: int = 0) -> int:
    count = device_count()
    if not 0 <= ordinal < count:
        raise CudaUnavailable(f"no CUDA device {ordinal}: this machine has {count}")
    return int(check(driver_module().cuDeviceGet(ordinal), "cuDeviceGet"))


def device_attribute(name: str, ordinal: int = 0) -> int:
    """cuDeviceGetAttribute by short name: `device_attribute("MAX_THREADS_PER_BLOCK")`."""
    cu = driver_module()
    attr = getattr(cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    return int(check(cu.cuDeviceGetAttribute(attr, get_device(ordinal)), "cuDeviceGetAttribute"))


def device_name(ordinal: int = 0) -> str:
    raw = check(driver_module().cuDeviceGetName(256, get_device(ordinal)), "cuDeviceGetName")
    return bytes(raw).split(b"\0", 1)[0].decode(errors="replace")


def device_total_memory(ordinal: int = 0) -> int:
    return int(check(driver_module().cuDeviceTotalMem(get_device(ordinal)), "cuDeviceTotalMem"))


class Context:
    """A device's primary context, retained once per process and made current on demand."""

    def __init__(self, ordinal: int, handle: Any):
        self.ordinal = ordinal
        self._handle = handle

    @property
    def handle(self) -> int:
        return int(self._handle)

    def set_current(self) -> None:
        check(driver_module().cuCtxSetCurrent(self._handle), "cuCtxSetCurrent")

    def synchronize(self) -> None:
        self.set_current()
        check(driver_module().cuCtxSynchronize(), "cuCtxSynchronize")


def primary_context(ordinal: int = 0) -> Context:
    """The primary context of device `ordinal`, current on the calling thread when this returns."""
    ctx = _contexts.get(ordinal)
    if ctx is None:
        device = get_device(ordinal)  # initialises the driver: outside the lock, which init takes
        with _lock:
            ctx = _contexts.get(ordinal)
            if ctx is None:
                handle = check(_cu.cuDevicePrimaryCtxRetain(device), "cuDevicePrimaryCtxRetain")
                ctx = _contexts[ordinal] = Context(ordinal, handle)
    ctx.set_current()
    return ctx


def synchronize(ordinal: int = 0) -> None:
    primary_context(ordinal).synchronize()


# ----------------------------------------------------------------------------------- streams


class Stream:
    """A stream of our own (non-blocking by default, so it never waits on the legacy stream)."""

    def __init__(self, ordinal: int = 0, *, non_blocking: bool = True):
        primary_context(ordinal)
        cu = _cu
        flags = cu.CUstream_flags.CU_STREAM_NON_BLOCKING if non_blocking else 0
        self.ordinal = ordinal
        self._handle = check(cu.cuStreamCreate(int(flags)), "cuStreamCreate")

    @property
    def handle(self) -> int:
        return int(self._handle) if self._handle is not None else 0

    def synchronize(self) -> None:
        stream_synchronize(self)

    def destroy(self) -> None:
        if self._handle is not None:
            primary_context(self.ordinal)
            check(_cu.cuStreamDestroy(self._handle), "cuStreamDestroy")
            self._handle = None

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.destroy()


def stream_handle(stream: Any) -> int:
    """A raw CUstream for None (the legacy default stream), an int, a `Stream`, a cuda.core
    stream (`__cuda_stream__`), a PyTorch stream (`.cuda_stream`) or a CuPy stream (`.ptr`)."""
    if stream is None:
        return 0
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
    if _cu is not None and isinstance(stream, _cu.CUstream):
        return int(stream)
    raise TypeError(f"not a CUDA stream: {type(stream).__name__}")


def stream_synchronize(stream: Any) -> None:
    check(driver_module().cuStreamSynchronize(stream_handle(stream)), "cuStreamSynchronize")


# ----------------------------------------------------------------------------------- modules


def is_binary_image(image: bytes) -> bool:
    """An ELF cubin or a fatbinary; anything else is taken to be PTX text."""
    return image[:4] == b"\x7fELF" or image[:4] == b"\x50\xed\x55\xba"


def load_module(image: bytes, ordinal: int = 0) -> int:
    """cuModuleLoadDataEx of PTX text or a cubin; a JIT failure carries the JIT's error log."""
    if isinstance(image, str):
        image = image.encode()
    if not isinstance(image, (bytes, bytearray)):
        raise TypeError(f"a module image must be bytes (PTX or cubin), not {type(image).__name__}")
    image = bytes(image)
    if not is_binary_image(image) and not image.endswith(b"\0"):
        image += b"\0"  # the driver reads PTX as a NUL-terminated string
    primary_context(ordinal)
    cu = _cu
    error_log = bytearray(JIT_LOG_BYTES)
    info_log = bytearray(JIT_LOG_BYTES)
    opt = cu.CUjit_option
    options = [
        opt.CU_JIT_ERROR_LOG_BUFFER,
        opt.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        opt.CU_JIT_INFO_LOG_BUFFER,
        opt.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ]
    values = [error_log, JIT_LOG_BYTES, info_log, JIT_LOG_BYTES]
    buffer = ctypes.create_string_buffer(image, len(image))
    result = cu.cuModuleLoadDataEx(ctypes.addressof(buffer), len(options), options, values)
    try:
        return int(check(result, "cuModuleLoadDataEx"))
    except CudaError as err:
        log = _c_string(error_log) or _c_string(info_log)
        raise err.with_detail(log=f"JIT log:\n{log}" if log else None) from None


def _c_string(buffer: bytearray) -> str:
    return bytes(buffer).split(b"\0", 1)[0].decode(errors="replace").strip()


def unload_module(module: int, ordinal: int = 0) -> None:
    primary_context(ordinal)
    check(_cu.cuModuleUnload(module), "cuModuleUnload")


def get_function(module: int, name: str) -> int:
    result = driver_module().cuModuleGetFunction(module, name.encode())
    try:
        return int(check(result, "cuModuleGetFunction"))
    except CudaError as err:
        raise err.with_detail(f"no kernel named '{name}' in the module") from None


def function_attribute(function: int, name: str) -> int:
    """cuFuncGetAttribute by short name: `function_attribute(f, "NUM_REGS")`."""
    cu = driver_module()
    attr = getattr(cu.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
    return int(check(cu.cuFuncGetAttribute(attr, function), "cuFuncGetAttribute"))


def set_function_attribute(function: int, name: str, value: int) -> None:
    cu = driver_module()
    attr = getattr(cu.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")
    check(cu.cuFuncSetAttribute(function, attr, int(value)), "cuFuncSetAttribute")


# ----------------------------------------------------------------------------------- launch


class PackedParams:
    """The `void**` array cuLaunchKernel reads: one pointer per parameter, each to its value.

    `args` is a list of (ctypes type, value); the ctypes objects are kept alive here, and the
    driver copies the values out during the cuLaunchKernel call itself.
    """

    def __init__(self, args: Sequence[tuple[type, Any]]):
        self.values = [ctype(value) for ctype, value in args]
        self.array = (ctypes.c_void_p * max(len(self.values), 1))(
            *[ctypes.addressof(v) for v in self.values]
        )

    @property
    def address(self) -> int:
        return ctypes.addressof(self.array) if self.values else 0

    def as_bytes(self) -> list[bytes]:
        """Each parameter's bytes as the driver will copy them (for tests and debugging)."""
        return [ctypes.string_at(ctypes.addressof(v), ctypes.sizeof(v)) for v in self.values]


def launch_kernel(
    function: int,
    grid: Dim3,
    block: Dim3,
    args: Sequence[tuple[type, Any]],
    shared_bytes: int = 0,
    stream: Any = None,
    ordinal: int = 0,
) -> None:
    """cuLaunchKernel; asynchronous, so a fault inside the kernel surfaces at the next sync."""
    primary_context(ordinal)
    params = PackedParams(args)
    result = _cu.cuLaunchKernel(
        function, *grid, *block, int(shared_bytes), stream_handle(stream), params.address, 0
    )
    check(result, "cuLaunchKernel")


# ----------------------------------------------------------------------------------- memory


def mem_alloc(nbytes: int, ordinal: int = 0) -> int:
    """cuMemAlloc; zero bytes gives the null pointer without asking the driver."""
    if nbytes < 0:
        raise ValueError(f"cannot allocate {nbytes} bytes")
    if nbytes == 0:
        return 0
    primary_context(ordinal)
    return int(check(_cu.cuMemAlloc(int(nbytes)), "cuMemAlloc"))


def mem_free(ptr: int, ordinal: int = 0) -> None:
    if ptr:
        primary_context(ordinal)
        check(_cu.cuMemFree(ptr), "cuMemFree")


def memset_d8(ptr: int, value: int, nbytes: int, stream: Any = None, ordinal: int = 0) -> None:
    """Fill bytes; with a stream it is queued (cuMemsetD8Async), else complete on return."""
    if nbytes == 0:
        return
    primary_context(ordinal)
    if stream is None:
        check(_cu.cuMemsetD8(ptr, value & 0xFF, nbytes), "cuMemsetD8")
        _finish_legacy_stream()
    else:
        result = _cu.cuMemsetD8Async(ptr, value & 0xFF, nbytes, stream_handle(stream))
        check(result, "cuMemsetD8Async")


def memset_d32(ptr: int, value: int, count: int, stream: Any = None, ordinal: int = 0) -> None:
    """Fill 32-bit words, e.g. with a NaN's bit pattern (0x7FC00000) to poison f32 outputs."""
    if count == 0:
        return
    primary_context(ordinal)
    if stream is None:
        check(_cu.cuMemsetD32(ptr, value & 0xFFFFFFFF, count), "cuMemsetD32")
        _finish_legacy_stream()
    else:
        result = _cu.cuMemsetD32Async(ptr, value & 0xFFFFFFFF, count, stream_handle(stream))
        check(result, "cuMemsetD32Async")


def _finish_legacy_stream() -> None:
    """Make a "synchronous" copy or memset complete before returning.

    The driver returns from cuMemcpyHtoD once pageable memory is staged, and from cuMemsetD*
    once queued, both on the legacy stream; work on a non-blocking stream would not wait for them.
    """
    check(_cu.cuStreamSynchronize(0), "cuStreamSynchronize")


def _host_bytes(buffer: Any, *, writable: bool) -> np.ndarray:
    """A flat uint8 view of a C-contiguous host buffer (NumPy array, bytes, bytearray)."""
    array = buffer if isinstance(buffer, np.ndarray) else np.frombuffer(buffer, dtype=np.uint8)
    if not array.flags.c_contiguous:
        raise ValueError("host buffer must be C-contiguous; use np.ascontiguousarray")
    if writable and not array.flags.writeable:
        raise ValueError("host buffer for a device-to-host copy must be writable")
    return array.reshape(-1).view(np.uint8)


def memcpy_htod(
    dst: int, src: Any, nbytes: int | None = None, stream: Any = None, ordinal: int = 0
) -> None:
    """Host to device. With a stream the copy is queued; keep `src` alive until it is done."""
    host = _host_bytes(src, writable=False)
    n = host.nbytes if nbytes is None else nbytes
    if n > host.nbytes:
        raise ValueError(f"copy of {n} bytes from a host buffer of {host.nbytes}")
    if n == 0:
        return
    primary_context(ordinal)
    if stream is None:
        check(_cu.cuMemcpyHtoD(dst, host.ctypes.data, n), "cuMemcpyHtoD")
        _finish_legacy_stream()
    else:
        result = _cu.cuMemcpyHtoDAsync(dst, host.ctypes.data, n, stream_handle(stream))
        check(result, "cuMemcpyHtoDAsync")


def memcpy_dtoh(
    dst: Any, src: int, nbytes: int | None = None, stream: Any = None, ordinal: int = 0
) -> None:
    """Device to host, into a writable C-contiguous buffer; with a stream, queued."""
    host = _host_bytes(dst, writable=True)
    n = host.nbytes if nbytes is None else nbytes
    if n > host.nbytes:
        raise ValueError(f"copy of {n} bytes into a host buffer of {host.nbytes}")
    if n == 0:
        return
    primary_context(ordinal)
    if stream is None:
        check(_cu.cuMemcpyDtoH(host.ctypes.data, src, n), "cuMemcpyDtoH")
    else:
        result = _cu.cuMemcpyDtoHAsync(host.ctypes.data, src, n, stream_handle(stream))
        check(result, "cuMemcpyDtoHAsync")


def memcpy_dtod(dst: int, src: int, nbytes: int, stream: Any = None, ordinal: int = 0) -> None:
    if nbytes == 0:
        return
    primary_context(ordinal)
    if stream is None:
        check(_cu.cuMemcpyDtoD(dst, src, nbytes), "cuMemcpyDtoD")
    else:
        result = _cu.cuMemcpyDtoDAsync(dst, src, nbytes, stream_handle(stream))
        check(result, "cuMemcpyDtoDAsync")


def pointer_device_ordinal(ptr: int) -> int:
    """The device a pointer's memory lives on (cuPointerGetAttribute DEVICE_ORDINAL)."""
    cu = driver_module()
    attr = cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
    result = cu.cuPointerGetAttribute(attr, ptr)
    try:
        return int(check(result, "cuPointerGetAttribute"))
    except CudaError as err:
        raise err.with_detail(f"0x{ptr:x} is not memory the CUDA driver knows") from None


# ----------------------------------------------------------------------------------- events


class Event:
    """A CUDA event, for timing work on a stream (`Event.elapsed_ms(start, end)`)."""

    def __init__(self, ordinal: int = 0, *, timing: bool = True):
        primary_context(ordinal)
        flags = _cu.CUevent_flags
        self.ordinal = ordinal
        self._handle = check(
            _cu.cuEventCreate(
                int(flags.CU_EVENT_DEFAULT if timing else flags.CU_EVENT_DISABLE_TIMING)
            ),
            "cuEventCreate",
        )

    @property
    def handle(self) -> int:
        return int(self._handle) if self._handle is not None else 0

    def record(self, stream: Any = None) -> Event:
        primary_context(self.ordinal)
        check(_cu.cuEventRecord(self._handle, stream_handle(stream)), "cuEventRecord")
        return self

    def synchronize(self) -> None:
        check(_cu.cuEventSynchronize(self._handle), "cuEventSynchronize")

    @staticmethod
    def elapsed_ms(start: Event, end: Event) -> float:
        end.synchronize()
        return float(
            check(_cu.cuEventElapsedTime(start._handle, end._handle), "cuEventElapsedTime")
        )

    def destroy(self) -> None:
        if self._handle is not None:
            check(_cu.cuEventDestroy(self._handle), "cuEventDestroy")
            self._handle = None
