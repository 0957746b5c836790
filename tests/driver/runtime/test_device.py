"""Device limits: read through cuDeviceGetAttribute, and launches checked against them."""

import pytest

from ferrox.driver.runtime import cuda
from ferrox.driver.runtime.device import DeviceLimits

H200 = DeviceLimits(
    ordinal=0,
    name="NVIDIA H200",
    compute_capability=(9, 0),
    sm_count=132,
    warp_size=32,
    max_threads_per_block=1024,
    max_block_dims=(1024, 1024, 64),
    max_grid_dims=(2**31 - 1, 65535, 65535),
    max_shared_per_block=48 * 1024,
    max_shared_per_block_optin=227 * 1024,
    max_registers_per_block=65536,
    total_memory=150_000_000_000,
)


def test_a_launch_that_fits_has_no_problems():
    assert H200.chip == "sm_90"
    assert (
        H200.check_launch(
            (1 << 20, 1, 1), (256, 1, 1), shared_bytes=100 * 1024, min_compute_capability=(8, 0)
        )
        == []
    )


def test_every_violated_bound_is_named_with_both_values():
    problems = H200.check_launch(
        (2**31, 70000, 1), (2048, 1, 65), shared_bytes=300 * 1024, min_compute_capability=(10, 0)
    )
    assert problems == [
        "block.x is 2048, but NVIDIA H200 allows at most 1024",
        "block.z is 65, but NVIDIA H200 allows at most 64",
        "block has 133120 threads, but NVIDIA H200 allows at most 1024 per block",
        "grid.x is 2147483648, but NVIDIA H200 allows at most 2147483647",
        "grid.y is 70000, but NVIDIA H200 allows at most 65535",
        "dynamic shared memory is 307200 bytes, but NVIDIA H200 allows at most 232448 per block",
        "the kernel needs compute capability 10.0, but NVIDIA H200 has 9.0",
    ]


def test_query_reads_each_attribute(monkeypatch):
    values = {
        "COMPUTE_CAPABILITY_MAJOR": 9, "COMPUTE_CAPABILITY_MINOR": 0, "MULTIPROCESSOR_COUNT": 132,
        "WARP_SIZE": 32, "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024, "MAX_BLOCK_DIM_Y": 1024,
        "MAX_BLOCK_DIM_Z": 64, "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535, "MAX_GRID_DIM_Z": 65535,
        "MAX_SHARED_MEMORY_PER_BLOCK": 48 * 1024, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 227 * 1024,
        "MAX_REGISTERS_PER_BLOCK": 65536,
    }  # fmt: skip
    monkeypatch.setattr(cuda, "device_attribute", lambda name, ordinal=0: values[name])
    monkeypatch.setattr(cuda, "device_name", lambda ordinal=0: "NVIDIA H200")
    monkeypatch.setattr(cuda, "device_total_memory", lambda ordinal=0: 150_000_000_000)
    assert DeviceLimits.query(0) == H200


def test_every_attribute_name_exists_in_cuda_python():
    from cuda.bindings import driver as cu

    for name in (
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
        "MAX_GRID_DIM_Z",
        "COMPUTE_CAPABILITY_MINOR",
        "WARP_SIZE",
    ):
        assert hasattr(cu.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    for name in ("MAX_DYNAMIC_SHARED_SIZE_BYTES", "NUM_REGS", "LOCAL_SIZE_BYTES"):
        assert hasattr(cu.CUfunction_attribute, f"CU_FUNC_ATTRIBUTE_{name}")


@pytest.mark.skipif(cuda.unavailable_reason() is None, reason="a CUDA driver is present here")
def test_query_without_a_driver_says_why():
    with pytest.raises(cuda.CudaUnavailable, match="libcuda"):
        DeviceLimits.query(0)
