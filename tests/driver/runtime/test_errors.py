"""CudaError names the failed call and the CUDA error, with or without a driver to ask."""

import pytest
from cuda.bindings import driver as cu

from ferrox.driver.runtime import cuda, errors
from ferrox.driver.runtime.errors import CudaError, CudaUnavailable, check


def test_check_raises_with_the_call_and_the_error_name():
    with pytest.raises(CudaError) as info:
        check((cu.CUresult.CUDA_ERROR_INVALID_VALUE,), "cuLaunchKernel")
    err = info.value
    assert (err.call, err.code, err.name) == ("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE")
    assert str(err).startswith("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE")


def test_check_accepts_plain_integer_codes_and_bare_results():
    with pytest.raises(CudaError, match=r"^cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"):
        check(2, "cuMemAlloc")
    with pytest.raises(CudaError, match=r"^cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX"):
        check((218, None), "cuModuleLoadDataEx")


def test_unknown_code_is_still_reported():
    err = CudaError("cuFoo", 987654)
    assert err.name == "CUresult 987654"
    assert str(err) == "cuFoo failed: CUresult 987654"


def test_check_returns_the_values_after_the_status():
    assert check((cu.CUresult.CUDA_SUCCESS,), "cuInit") is None
    assert check((cu.CUresult.CUDA_SUCCESS, 7), "cuDeviceGetCount") == 7
    assert check((0, 1, 2), "cuX") == (1, 2)


def test_detail_and_log_are_appended():
    err = CudaError("cuLaunchKernel", 1).with_detail("block (128, 1, 1) does not match")
    assert (
        str(err)
        == "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE: block (128, 1, 1) does not match"
    )
    logged = CudaError("cuModuleLoadDataEx", 218, log="JIT log:\nptxas fatal: bad\n")
    assert (
        str(logged)
        == "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX\nJIT log:\nptxas fatal: bad"
    )
    assert logged.with_detail("x").log == logged.log


def test_driver_description_is_used_once_the_driver_is_loaded(monkeypatch):
    class FakeDriver:
        CUresult = cu.CUresult

        @staticmethod
        def cuGetErrorName(code):
            return (cu.CUresult.CUDA_SUCCESS, b"CUDA_ERROR_INVALID_VALUE")

        @staticmethod
        def cuGetErrorString(code):
            return (cu.CUresult.CUDA_SUCCESS, b"invalid argument")

    monkeypatch.setattr(errors, "_cu", FakeDriver)
    monkeypatch.setattr(errors, "_driver_loaded", True)
    assert str(CudaError("cuLaunchKernel", 1)) == (
        "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (invalid argument)"
    )


@pytest.mark.skipif(cuda.unavailable_reason() is None, reason="a CUDA driver is present here")
def test_missing_driver_is_cuda_unavailable_with_the_reason():
    with pytest.raises(CudaUnavailable, match="libcuda"):
        cuda.device_count()
    assert "libcuda" in cuda.unavailable_reason()


def test_jit_error_log_is_carried_into_the_exception(monkeypatch):
    """cuModuleLoadDataEx gets JIT log buffers; what the JIT writes there ends up in the error."""
    seen = {}

    class FakeDriver:
        CUjit_option = cu.CUjit_option

        @staticmethod
        def cuModuleLoadDataEx(image, n, options, values):
            seen["options"] = [o.name for o in options]
            seen["image"] = image
            log = b"ptxas application ptx input, line 3; error   : Unknown symbol 'x'\0"
            values[0][: len(log)] = log
            return (cu.CUresult.CUDA_ERROR_INVALID_PTX, None)

    monkeypatch.setattr(cuda, "_cu", FakeDriver)
    monkeypatch.setattr(cuda, "primary_context", lambda ordinal=0: None)
    with pytest.raises(CudaError) as info:
        cuda.load_module(b".version 8.0\n.target sm_90\n")
    assert seen["options"][:2] == ["CU_JIT_ERROR_LOG_BUFFER", "CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES"]
    assert isinstance(seen["image"], int)  # the address of a NUL-terminated copy
    assert str(info.value) == (
        "cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX\n"
        "JIT log:\nptxas application ptx input, line 3; error   : Unknown symbol 'x'"
    )


def test_module_images_must_be_bytes():
    with pytest.raises(TypeError, match="bytes"):
        cuda.load_module(12345)
