"""ferrox.driver.runtime: load a kernel artifact's image and launch its kernels, on cuda.core.

Modules, bottom up: `errors` (CUDA failures in ferrox's wording), `device` (is there a GPU, its
limits, its context made current once per thread), `streams`, `buffers` (views of PyTorch,
CuPy and DLPack arrays; NumPy staging), `abi` (a value as its PTX parameters, by the
artifact's parameter kinds), `launcher` (modules loaded once, raw launches). cuda.bindings is
used only where cuda.core has nothing (device count without NVML, NumPy host copies, the
kernel's shared-memory opt-in, a launch of pre-packed parameters, error strings). Importing
this package never touches the driver.
"""

from ferrox.driver.runtime.buffers import DeviceArray, DeviceView, view_of
from ferrox.driver.runtime.device import (
    DeviceLimits,
    device_count,
    device_limits,
    synchronize,
    unavailable_reason,
)
from ferrox.driver.runtime.errors import (
    ArgumentError,
    ArrayError,
    CudaError,
    CudaUnavailable,
    InternalError,
)
from ferrox.driver.runtime.launcher import LoadedKernel, LoadedModule
from ferrox.driver.runtime.streams import Stream, current_stream_for

__all__ = [
    "ArgumentError",
    "ArrayError",
    "CudaError",
    "CudaUnavailable",
    "DeviceArray",
    "DeviceLimits",
    "DeviceView",
    "InternalError",
    "LoadedKernel",
    "LoadedModule",
    "Stream",
    "current_stream_for",
    "device_count",
    "device_limits",
    "synchronize",
    "unavailable_reason",
    "view_of",
]
