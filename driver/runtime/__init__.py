"""ferrox.driver.runtime: load PTX and launch kernels through cuda-python, with a kernel cache.

Layers, bottom up: `errors` (every CUresult checked), `cuda` (the driver calls), `device`
(limits a launch is checked against), `arrays` (NumPy copies, zero-copy PyTorch/CuPy),
`launcher` (modules, kernels, argument packing); the kernel cache is `ferrox.targets.cache`,
re-exported here. Importing this package never touches the driver; the first driver call does.
"""

from ferrox.driver.runtime.arrays import DeviceArray, as_device_array, to_device
from ferrox.driver.runtime.device import DeviceLimits, device_limits
from ferrox.driver.runtime.errors import CudaError, CudaUnavailable, check
from ferrox.driver.runtime.launcher import Kernel, Module, pack_args
from ferrox.targets.cache import KernelCache, KernelKey, default_cache_dir

__all__ = [
    "CudaError",
    "CudaUnavailable",
    "DeviceArray",
    "DeviceLimits",
    "Kernel",
    "KernelCache",
    "KernelKey",
    "Module",
    "as_device_array",
    "check",
    "default_cache_dir",
    "device_limits",
    "pack_args",
    "to_device",
]
