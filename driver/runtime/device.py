"""The GPU itself: is there one, how many, its limits, and its context made current.

cuda.core's `Device` is the entry point; `core_device(ordinal)` makes the device's primary
context current on the calling thread the first time that thread asks, and never again (the
old runtime did it on every launch and copy). The primary context is the one the CUDA runtime
uses, so PyTorch's and CuPy's device pointers are valid in ferrox's launches.

Importing cuda.core costs about 0.16 s on the H200 host even after torch has loaded NumPy
(docs/performance.md, "Cold start"): more than the rest of a new process's way to its first
launch of a cached kernel. So this module imports it only when a cuda.core object is asked for
(`core_device`), and what a first launch needs besides is on cuda.bindings alone: the device
probe, the limits (`cuDeviceGetAttribute`) and `make_current`, the same primary context made
current through the driver.

`DeviceLimits` holds the numbers a launch is checked against: a contract that fits the
language's rules can still ask for more than the device has. `check_launch` states every
violated bound with both values, so the caller can report them all at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cuda.bindings import driver as _cu

from ferrox.driver.runtime.errors import CudaError, CudaUnavailable, check, from_core

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


def make_current(ordinal: int = 0) -> None:
    """Device `ordinal`'s primary context current on this thread, through the driver alone
    (no cuda.core): once per thread, as `core_device` does, and never again."""
    if getattr(_current, "context", None) == ordinal:
        return
    count = device_count()
    if not 0 <= ordinal < count:
        raise CudaUnavailable(f"no CUDA device {ordinal}: this machine has {count}")
    _open_context(ordinal)
    _current.context = ordinal


def _open_context(ordinal: int) -> None:
    """Seam (tests/support/fake_gpu.py replaces it): the primary context retained (as
    cuda.core's `set_current` does; never released, like the runtime's) and made current."""
    context = check(_cu.cuDevicePrimaryCtxRetain(_cu.CUdevice(ordinal)), "cuDevicePrimaryCtxRetain")
    check(_cu.cuCtxSetCurrent(context), "cuCtxSetCurrent")


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
    _current.device, _current.ordinal, _current.context = device, ordinal, ordinal
    return device


def _open_device(ordinal: int) -> Any:
    """Seam: cuda.core's Device, its primary context made current on this thread."""
    from cuda.core import Device

    from ferrox.driver.runtime.errors import CoreCudaError

    device = Device(ordinal)
    try:
        device.set_current()
    except CoreCudaError as exc:
        raise from_core(exc, "cuCtxSetCurrent") from exc
    return device


def synchronize(ordinal: int = 0) -> None:
    """Wait for all work on device `ordinal` (every stream)."""
    from ferrox.driver.runtime.errors import CoreCudaError

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
        """Asked of the driver (`cuDeviceGetAttribute`: the numbers cuda.core's
        `Device.properties` reads), so the limits need no cuda.core."""
        make_current(ordinal)
        dev = _cu.CUdevice(ordinal)
        name = check(_cu.cuDeviceGetName(256, dev), "cuDeviceGetName")
        total = check(_cu.cuDeviceTotalMem(dev), "cuDeviceTotalMem")

        def get(attribute: str) -> int:
            which = getattr(_cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{attribute}")
            return int(check(_cu.cuDeviceGetAttribute(which, dev), "cuDeviceGetAttribute"))

        return cls(
            ordinal=ordinal,
            name=name.split(b"\0", 1)[0].decode(),
            compute_capability=(get("COMPUTE_CAPABILITY_MAJOR"), get("COMPUTE_CAPABILITY_MINOR")),
            sm_count=get("MULTIPROCESSOR_COUNT"),
            warp_size=get("WARP_SIZE"),
            max_threads_per_block=get("MAX_THREADS_PER_BLOCK"),
            max_block_dims=(get("MAX_BLOCK_DIM_X"), get("MAX_BLOCK_DIM_Y"), get("MAX_BLOCK_DIM_Z")),
            max_grid_dims=(get("MAX_GRID_DIM_X"), get("MAX_GRID_DIM_Y"), get("MAX_GRID_DIM_Z")),
            max_shared_per_block=get("MAX_SHARED_MEMORY_PER_BLOCK"),
            max_shared_per_block_optin=get("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
            max_registers_per_block=get("MAX_REGISTERS_PER_BLOCK"),
            total_memory=int(total),
        )

    def check_launch(
        self,
        grid: Dim3,
        block: Dim3,
        shared_bytes: int = 0,
        min_compute_capability: tuple[int, int] | None = None,
        grid_note: Callable[[int, int], str] | None = None,
    ) -> list[str]:
        """Every way this launch exceeds the device, one sentence each; empty when it fits.
        `grid_note(axis, size)`: what the caller can add about a grid axis over its limit (a
        tile kernel names the tile-grid axis its grid order put there).

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
                note = f": {grid_note('xyz'.index(axis), size)}" if grid_note else ""
                problems.append(
                    f"grid.{axis} is {size}, but {self.name} allows at most {limit}{note}"
                )
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
