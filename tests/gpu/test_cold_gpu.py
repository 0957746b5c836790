"""The driver-only pieces of a new process's first launch, against cuda.core on a real GPU: the
limits read with cuDeviceGetAttribute are cuda.core's `Device.properties`, and an image loaded
with `Library` (cubin and PTX) gives the entry cuda.core gives, with the same parameter layout.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_cold_gpu.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ferrox
from ferrox.driver.runtime.device import DeviceLimits, make_current
from ferrox.driver.runtime.errors import CudaError
from ferrox.driver.runtime.library import Library

pytestmark = pytest.mark.gpu

VECADD = Path(__file__).resolve().parents[2] / "examples" / "simt" / "vecadd.mlir"


def test_the_limits_read_from_the_driver_are_cuda_cores():
    from cuda.core import Device

    device = Device(0)
    device.set_current()
    p = device.properties
    limits = DeviceLimits.query(0)
    assert limits.name == device.name
    assert limits.compute_capability == (p.compute_capability_major, p.compute_capability_minor)
    assert limits.sm_count == p.multiprocessor_count and limits.warp_size == p.warp_size
    assert limits.max_threads_per_block == p.max_threads_per_block
    assert limits.max_block_dims == (p.max_block_dim_x, p.max_block_dim_y, p.max_block_dim_z)
    assert limits.max_grid_dims == (p.max_grid_dim_x, p.max_grid_dim_y, p.max_grid_dim_z)
    assert limits.max_shared_per_block == p.max_shared_memory_per_block
    assert limits.max_shared_per_block_optin == p.max_shared_memory_per_block_optin
    assert limits.max_registers_per_block == p.max_registers_per_block


@pytest.mark.parametrize("form", ["cubin", "ptx"])
def test_a_library_gives_cuda_cores_entry(form):
    from cuda.core import ObjectCode

    artifact = ferrox.compile(VECADD, chip=DeviceLimits.query(0).chip)
    if form == "cubin" and artifact.cubin is None:
        pytest.skip("no ptxas where the kernel was compiled: no cubin")
    image = artifact.cubin if form == "cubin" else artifact.ptx.encode()
    assert image is not None
    make_current(0)
    kernel = Library(image, form == "cubin").get_kernel("vecadd")
    core = (ObjectCode.from_cubin if form == "cubin" else ObjectCode.from_ptx)(image)
    expected = [(int(a.offset), int(a.size)) for a in core.get_kernel("vecadd").arguments_info]
    assert [tuple(a) for a in kernel.arguments_info] == expected == [(8 * i, 8) for i in range(6)]
    assert int(kernel.core.handle) == int(kernel.handle)
    with pytest.raises(CudaError) as info:
        Library(image, form == "cubin").get_kernel("nope")
    assert str(info.value).startswith("cuLibraryGetKernel failed: CUDA_ERROR_NOT_FOUND")
    assert str(info.value).endswith(": loading kernel 'nope'")
