"""ferrox.driver.runtime: load a kernel artifact's image and launch its kernels, on cuda.core.

Modules, bottom up: `errors` (CUDA failures in ferrox's wording), `device` (is there a GPU, its
limits, its context made current once per thread), `streams`, `buffers` (views of PyTorch,
CuPy and DLPack arrays; NumPy staging), `abi` (a value as its PTX parameters, by the
artifact's parameter kinds), `library` (an image loaded through the driver), `launcher`
(modules loaded once, raw launches). cuda.bindings is used where cuda.core has nothing (device
count without NVML, NumPy host copies, the kernel's shared-memory opt-in, a launch of
pre-packed parameters, error strings) and on a new process's way to its first launch, where
cuda.core's import is the cost (`device.py`). Importing this package never touches the driver,
and imports its modules when one of the names below is first used (PEP 562): the launch
checker needs `device` alone.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "buffers": ("DeviceArray", "DeviceView", "view_of"),
    "device": (
        "DeviceLimits",
        "device_count",
        "device_limits",
        "synchronize",
        "unavailable_reason",
    ),
    "errors": ("ArgumentError", "ArrayError", "CudaError", "CudaUnavailable", "InternalError"),
    "launcher": ("LoadedKernel", "LoadedModule"),
    "streams": ("Stream", "current_stream_for"),
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = sorted(_LAZY)
