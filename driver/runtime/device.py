"""The GPU itself: is there one, how many, its limits, and its context made current.

cuda.core's `Device` is the entry point; `core_device(ordinal)` makes the device's primary
context current on the calling thread the first time that thread asks, and never again (the
old runtime did it on every launch and copy). The primary context is the one the CUDA runtime
uses, so PyTorch's and CuPy's device pointers are valid in ferrox's launches.

`DeviceLimits` holds the numbers a launch is checked against: a contract that fits the
language's rules can still ask for more than the device has. `check_launch` states every
violated bound with both values, so the caller can report them all at once.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from cuda.bindings import driver as _cu
from cuda.core import Device

from ferrox.driver.runtime.errors import CoreCudaError, CudaError, CudaUnavailable, check, from_core

Dim3 = tuple[int, int, int]

_lock = threading.Lock()
_initialized = False
_current = threading.local()  # .ordinal: the device whose context this thread has current


def _init() -> None:
    """cuInit once per process; a missing driver library is `CudaUnavailable` with the reason."""
    global _initialized
    if _initialized:
        return
    with _lock:
        if _initialized:
            return
        try:
            result = _cu.cuInit(0)
        except Exception as exc:  # cuda.pathfinder raises before any CUresult without libcuda
            raise CudaUnavailable(
                f"the CUDA driver library (libcuda.so) could not be loaded: {exc}"
            ) from exc
        check(result, "cuInit")
        _initialized = True


def device_count() -> int:
    """How many CUDA devices the driver reports."""
    return _count_devices()


def _count_devices() -> int:
    """Seam (tests/support/fake_gpu.py replaces it). cuda.core counts devices through NVML,
    which a container may lack, so the driver is asked directly."""
    _init()
    return int(check(_cu.cuDeviceGetCount(), "cuDeviceGetCount"))


def driver_version() -> tuple[int, int]:
    """The installed driver's CUDA version, e.g. (13, 0)."""
    _init()
    version = check(_cu.cuDriverGetVersion(), "cuDriverGetVersion")
    return version // 1000, (version % 1000) // 10


def unavailable_reason(ordinal: int = 0) -> str | None:
    """None when GPU `ordinal` can be used here, else why not. Never raises."""
    try:
        count = device_count()
    except (CudaUnavailable, CudaError) as exc:
        return str(exc)
    except Exception as exc:  # a probe must not crash its caller
        return f"CUDA probe failed: {type(exc).__name__}: {exc}"
    if count == 0:
        return "the CUDA driver reports no GPU"
    if not 0 <= ordinal < count:
        return f"no CUDA device {ordinal}: this machine has {count}"
    return None


def core_device(ordinal: int = 0) -> Any:
    """cuda.core's `Device(ordinal)`, its primary context current on this thread.

    The context is made current once per thread (and again only when the thread switches
    device through here); everything that needs a current context calls this first.
    """
    if getattr(_current, "ordinal", None) == ordinal:
        return _current.device
    count = device_count()
    if not 0 <= ordinal < count:
        raise CudaUnavailable(f"no CUDA device {ordinal}: this machine has {count}")
    device = _open_device(ordinal)
    _current.device, _current.ordinal = device, ordinal
    return device


def _open_device(ordinal: int) -> Any:
    """Seam: cuda.core's Device, its primary context made current on this thread."""
    device = Device(ordinal)
    try:
        device.set_current()
    except CoreCudaError as exc:
        raise from_core(exc, "cuCtxSetCurrent") from exc
    return device


def synchronize(ordinal: int = 0) -> None:
    """Wait for all work on device `ordinal` (every stream)."""
    device = core_device(ordinal)
    try:
        device.sync()
    except CoreCudaError as exc:
        raise from_core(exc, "cuCtxSynchronize") from exc


@dataclass(frozen=True)
class DeviceLimits:
    ordinal: int
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    warp_size: int
    max_threads_per_block: int
    max_block_dims: Dim3
    max_grid_dims: Dim3
    max_shared_per_block: int
    max_shared_per_block_optin: int
    max_registers_per_block: int
    total_memory: int

    @property
    def chip(self) -> str:
        """The `-march` / ptxas name of the device's architecture, e.g. `sm_90`."""
        major, minor = self.compute_capability
        return f"sm_{major}{minor}"

    @classmethod
    def query(cls, ordinal: int = 0) -> DeviceLimits:
        device = core_device(ordinal)
        p = device.properties
        total = check(_cu.cuDeviceTotalMem(_cu.CUdevice(ordinal)), "cuDeviceTotalMem")
        return cls(
            ordinal=ordinal,
            name=device.name,
            compute_capability=(p.compute_capability_major, p.compute_capability_minor),
            sm_count=p.multiprocessor_count,
            warp_size=p.warp_size,
            max_threads_per_block=p.max_threads_per_block,
            max_block_dims=(p.max_block_dim_x, p.max_block_dim_y, p.max_block_dim_z),
            max_grid_dims=(p.max_grid_dim_x, p.max_grid_dim_y, p.max_grid_dim_z),
            max_shared_per_block=p.max_shared_memory_per_block,
            max_shared_per_block_optin=p.max_shared_memory_per_block_optin,
            max_registers_per_block=p.max_registers_per_block,
            total_memory=int(total),
        )

    def check_launch(
        self,
        grid: Dim3,
        block: Dim3,
        shared_bytes: int = 0,
        min_compute_capability: tuple[int, int] | None = None,
    ) -> list[str]:
        """Every way this launch exceeds the device, one sentence each; empty when it fits.

        Dynamic shared memory is measured against the opt-in maximum: the launcher raises the
        kernel's limit to what the launch asks for (cuFuncSetAttribute) before launching.
        """
        problems: list[str] = []
        for axis, size, limit in zip("xyz", block, self.max_block_dims, strict=True):
            if size > limit:
                problems.append(f"block.{axis} is {size}, but {self.name} allows at most {limit}")
        threads = block[0] * block[1] * block[2]
        if threads > self.max_threads_per_block:
            problems.append(
                f"block has {threads} threads, but {self.name} allows at most "
                f"{self.max_threads_per_block} per block"
            )
        for axis, size, limit in zip("xyz", grid, self.max_grid_dims, strict=True):
            if size > limit:
                problems.append(f"grid.{axis} is {size}, but {self.name} allows at most {limit}")
        if shared_bytes > self.max_shared_per_block_optin:
            problems.append(
                f"dynamic shared memory is {shared_bytes} bytes, but {self.name} allows at most "
                f"{self.max_shared_per_block_optin} per block"
            )
        if min_compute_capability is not None and self.compute_capability < tuple(
            min_compute_capability
        ):
            want = ".".join(map(str, min_compute_capability))
            have = ".".join(map(str, self.compute_capability))
            problems.append(
                f"the kernel needs compute capability {want}, but {self.name} has {have}"
            )
        return problems


_limits: dict[int, DeviceLimits] = {}


def device_limits(ordinal: int = 0) -> DeviceLimits:
    """The limits of device `ordinal`, queried once per process."""
    limits = _limits.get(ordinal)
    if limits is None:
        limits = _limits[ordinal] = DeviceLimits.query(ordinal)
    return limits
