"""CudaError names the call, the driver's error name and, where a driver answers, its
description: the tests pin the wording on any machine by pinning the description."""

from __future__ import annotations

import pytest
from cuda.bindings import driver as cu

from ferrox.driver.runtime import errors
from ferrox.driver.runtime.errors import CoreCudaError, CudaError, InternalError, check, from_core


@pytest.fixture
def described(monkeypatch):
    """The driver's description of every code, as a loaded driver would give it."""
    monkeypatch.setattr(errors, "error_description", lambda code: f"text of {code}")


@pytest.fixture
def no_driver(monkeypatch):
    monkeypatch.setattr(errors, "error_description", lambda code: None)


def test_check_raises_with_the_call_name_and_description(described):
    with pytest.raises(CudaError) as info:
        check((cu.CUresult.CUDA_ERROR_INVALID_VALUE,), "cuMemcpyHtoD")
    err = info.value
    assert (err.call, err.code, err.name) == ("cuMemcpyHtoD", 1, "CUDA_ERROR_INVALID_VALUE")
    assert str(err) == "cuMemcpyHtoD failed: CUDA_ERROR_INVALID_VALUE (text of 1)"


def test_without_a_driver_there_is_no_description(no_driver):
    with pytest.raises(CudaError) as info:
        check(2, "cuMemAlloc")
    assert str(info.value) == "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"


def test_the_description_is_the_drivers_own_when_it_answers():
    err = CudaError("cuX", 1)
    description = errors.error_description(1)  # None here without libcuda, a sentence with it
    expected = "cuX failed: CUDA_ERROR_INVALID_VALUE"
    assert str(err) == (expected + f" ({description})" if description else expected)


def test_unknown_codes_and_details(no_driver):
    assert str(CudaError("cuFoo", 987654)) == "cuFoo failed: CUresult 987654"
    err = CudaError("cuLaunchKernelEx", 1).with_detail("block (128, 1, 1) is wrong", log="l1\n")
    assert (
        str(err)
        == "cuLaunchKernelEx failed: CUDA_ERROR_INVALID_VALUE: block (128, 1, 1) is wrong\nl1"
    )


def test_check_returns_what_follows_the_status():
    assert check((cu.CUresult.CUDA_SUCCESS,), "cuInit") is None
    assert check((cu.CUresult.CUDA_SUCCESS, 7), "cuDeviceGetCount") == 7
    assert check((0, 1, 2), "cuX") == (1, 2)


def test_cuda_core_errors_keep_the_drivers_code(described):
    core = CoreCudaError("CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed")
    err = from_core(core, "cuLibraryLoadData", "loading kernel 'k'")
    assert (err.code, err.name) == (218, "CUDA_ERROR_INVALID_PTX")
    assert (
        str(err)
        == "cuLibraryLoadData failed: CUDA_ERROR_INVALID_PTX (text of 218): loading kernel 'k'"
    )
    other = from_core(CoreCudaError("the stream is closed"), "cuLaunchKernelEx")
    assert (
        str(other)
        == "cuLaunchKernelEx failed: CUDA_ERROR_UNKNOWN (text of 999): the stream is closed"
    )


def test_internal_errors_say_they_are_bugs():
    assert str(InternalError("x")) == "internal error (a ferrox bug, please report it): x"
