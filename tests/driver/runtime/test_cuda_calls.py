"""Every wrapper in cuda.py against a recording stand-in for cuda.bindings.driver.

The stand-in answers like cuda-python does (a tuple whose first element is the CUresult) and
takes enums from the real module, so a misspelt attribute or a wrong argument order shows here,
not first on the GPU host.
"""

import numpy as np
import pytest
from cuda.bindings import driver as real

from ferrox.driver.runtime import cuda, errors
from ferrox.driver.runtime.errors import CudaError

OK = real.CUresult.CUDA_SUCCESS


class RecordingDriver:
    def __init__(self):
        self.calls = []
        self.fail = {}

    def __getattr__(self, name):
        if not name.startswith("cu"):
            return getattr(real, name)  # enums and constants from cuda-python itself

        def call(*args):
            self.calls.append((name, args))
            if name in self.fail:
                return (self.fail[name],)
            return RESULTS.get(name, lambda *a: (OK,))(*args)

        return call


RESULTS = {
    "cuDeviceGetCount": lambda: (OK, 2),
    "cuDeviceGet": lambda ordinal: (OK, 100 + ordinal),
    "cuDevicePrimaryCtxRetain": lambda dev: (OK, real.CUcontext(0xC0 + dev)),
    "cuDriverGetVersion": lambda: (OK, 13000),
    "cuDeviceGetAttribute": lambda attr, dev: (OK, int(attr)),
    "cuDeviceGetName": lambda n, dev: (OK, b"NVIDIA H200" + b"\0" * (n - 11)),
    "cuDeviceTotalMem": lambda dev: (OK, 150 << 30),
    "cuMemAlloc": lambda n: (OK, real.CUdeviceptr(0x7F0000)),
    "cuStreamCreate": lambda flags: (OK, real.CUstream(0x5A)),
    "cuEventCreate": lambda flags: (OK, real.CUevent(0xE0 + flags)),
    "cuEventElapsedTime": lambda a, b: (OK, 1.25),
    "cuFuncGetAttribute": lambda attr, f: (OK, 32),
    "cuModuleGetFunction": lambda m, name: (OK, real.CUfunction(0xF1)),
    "cuModuleLoadDataEx": lambda image, n, options, values: (OK, real.CUmodule(0xAB)),
    "cuPointerGetAttribute": lambda attr, ptr: (OK, 1),
    "cuGetErrorName": lambda code: (OK, code.name.encode()),
    "cuGetErrorString": lambda code: (OK, b"described"),
}


@pytest.fixture
def drv(monkeypatch):
    fake = RecordingDriver()
    monkeypatch.setattr(cuda, "_cu", fake)
    monkeypatch.setattr(errors, "_cu", fake)
    monkeypatch.setattr(cuda, "_initialized", False)
    monkeypatch.setattr(cuda, "_contexts", {})
    monkeypatch.setattr(errors, "_driver_loaded", False)
    yield fake
    errors._driver_loaded = False


def names(drv):
    return [name for name, _ in drv.calls]


def test_init_once_and_device_queries(drv):
    assert cuda.driver_version() == (13, 0)
    assert cuda.device_count() == 2
    assert cuda.device_name(1) == "NVIDIA H200"
    assert cuda.device_total_memory(0) == 150 << 30
    assert cuda.device_attribute("MAX_THREADS_PER_BLOCK", 1) == int(
        real.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    )
    assert names(drv).count("cuInit") == 1
    assert (
        "cuDeviceGetAttribute",
        (real.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 101),
    ) in drv.calls
    with pytest.raises(cuda.CudaUnavailable, match="no CUDA device 5: this machine has 2"):
        cuda.get_device(5)


def test_failed_init_is_a_cuda_error_with_the_driver_description(drv):
    drv.fail["cuInit"] = real.CUresult.CUDA_ERROR_NO_DEVICE
    with pytest.raises(CudaError) as info:
        cuda.init()
    assert str(info.value) == "cuInit failed: CUDA_ERROR_NO_DEVICE (described)"
    assert cuda.unavailable_reason() == "cuInit failed: CUDA_ERROR_NO_DEVICE (described)"


def test_primary_context_is_retained_once_and_made_current_each_time(drv):
    ctx = cuda.primary_context(1)
    assert cuda.primary_context(1) is ctx and ctx.handle == 0xC0 + 101
    assert names(drv).count("cuDevicePrimaryCtxRetain") == 1
    assert names(drv).count("cuCtxSetCurrent") == 2
    cuda.synchronize(1)
    assert names(drv)[-1] == "cuCtxSynchronize"


def test_memory_calls(drv):
    ptr = cuda.mem_alloc(64)
    assert ptr == 0x7F0000 and cuda.mem_alloc(0) == 0
    host = np.arange(16, dtype=np.float32)
    cuda.memcpy_htod(ptr, host)
    cuda.memcpy_htod(ptr, host, 32, stream=9)
    out = np.empty(16, np.float32)
    cuda.memcpy_dtoh(out, ptr)
    cuda.memcpy_dtoh(out, ptr, 8, stream=9)
    cuda.memcpy_dtod(ptr + 64, ptr, 64)
    cuda.memset_d8(ptr, 0x1FF, 64)
    cuda.memset_d32(ptr, 0x7FC00000, 16, stream=9)
    cuda.mem_free(ptr)
    cuda.mem_free(0)
    calls = [(n, a) for n, a in drv.calls if n.startswith("cuMem") or n == "cuStreamSynchronize"]
    assert calls == [
        ("cuMemAlloc", (64,)),
        ("cuMemcpyHtoD", (ptr, host.ctypes.data, 64)),
        ("cuStreamSynchronize", (0,)),
        ("cuMemcpyHtoDAsync", (ptr, host.ctypes.data, 32, 9)),
        ("cuMemcpyDtoH", (out.ctypes.data, ptr, 64)),
        ("cuMemcpyDtoHAsync", (out.ctypes.data, ptr, 8, 9)),
        ("cuMemcpyDtoD", (ptr + 64, ptr, 64)),
        ("cuMemsetD8", (ptr, 0xFF, 64)),
        ("cuStreamSynchronize", (0,)),
        ("cuMemsetD32Async", (ptr, 0x7FC00000, 16, 9)),
        ("cuMemFree", (ptr,)),
    ]


def test_host_buffers_are_checked(drv):
    with pytest.raises(ValueError, match="C-contiguous"):
        cuda.memcpy_htod(0x10, np.zeros((4, 4), np.float32)[:, ::2])
    with pytest.raises(ValueError, match="must be writable"):
        cuda.memcpy_dtoh(b"immutable", 0x10)
    with pytest.raises(ValueError, match="copy of 100 bytes from a host buffer of 16"):
        cuda.memcpy_htod(0x10, np.zeros(4, np.float32), 100)
    with pytest.raises(ValueError, match="cannot allocate -1 bytes"):
        cuda.mem_alloc(-1)


def test_streams_events_and_functions(drv):
    with cuda.Stream() as stream:
        assert stream.handle == 0x5A
        start = cuda.Event().record(stream)
        end = cuda.Event().record(stream)
        assert cuda.Event.elapsed_ms(start, end) == 1.25
        stream.synchronize()
    assert stream.handle == 0
    assert ("cuStreamCreate", (int(real.CUstream_flags.CU_STREAM_NON_BLOCKING),)) in drv.calls
    assert ("cuStreamSynchronize", (0x5A,)) in drv.calls and names(drv)[-1] == "cuStreamDestroy"
    assert cuda.get_function(0xAB, "vecadd") == 0xF1
    assert drv.calls[-1] == ("cuModuleGetFunction", (0xAB, b"vecadd"))
    assert cuda.function_attribute(0xF1, "NUM_REGS") == 32
    assert drv.calls[-1] == (
        "cuFuncGetAttribute",
        (real.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS, 0xF1),
    )
    cuda.set_function_attribute(0xF1, "MAX_DYNAMIC_SHARED_SIZE_BYTES", 100_000)
    assert drv.calls[-1] == (
        "cuFuncSetAttribute",
        (0xF1, real.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 100_000),
    )
    assert cuda.pointer_device_ordinal(0x7F0000) == 1
    cuda.unload_module(0xAB)
    assert drv.calls[-1] == ("cuModuleUnload", (0xAB,))


def test_missing_function_and_unknown_pointer_are_explained(drv):
    drv.fail["cuModuleGetFunction"] = real.CUresult.CUDA_ERROR_NOT_FOUND
    with pytest.raises(
        CudaError,
        match=r"^cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND \(described\): no kernel named 'k' in the module$",
    ):
        cuda.get_function(0xAB, "k")
    drv.fail["cuPointerGetAttribute"] = real.CUresult.CUDA_ERROR_INVALID_VALUE
    with pytest.raises(CudaError, match=r"0x1234 is not memory the CUDA driver knows"):
        cuda.pointer_device_ordinal(0x1234)


def test_module_loading_passes_a_nul_terminated_image(drv):
    cuda.load_module(b".version 8.0")
    name, (image, n, options, values) = drv.calls[-1]
    assert name == "cuModuleLoadDataEx" and n == 4 and isinstance(image, int)
    import ctypes

    assert ctypes.string_at(image) == b".version 8.0"
    assert [o.name for o in options] == [
        "CU_JIT_ERROR_LOG_BUFFER", "CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES",
        "CU_JIT_INFO_LOG_BUFFER", "CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES",
    ]  # fmt: skip
    assert [type(v) for v in values] == [bytearray, int, bytearray, int]
    assert cuda.is_binary_image(b"\x7fELF\x02") and not cuda.is_binary_image(b".version")
