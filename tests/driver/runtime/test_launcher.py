"""The launcher against a fake driver: explanations of refusals, parameter checks, NumPy staging."""

import ctypes

import numpy as np
import pytest

from ferrox.driver.runtime import cuda
from ferrox.driver.runtime.abi import ArgumentError
from ferrox.driver.runtime.errors import CudaError
from ferrox.driver.runtime.launcher import Module, dim3

PTX = b"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry vecadd(
    .param .u64 .ptr .global .align 1 vecadd_param_0, .param .u64 vecadd_param_1,
    .param .u64 .ptr .global .align 1 vecadd_param_2, .param .u64 vecadd_param_3,
    .param .u64 .ptr .global .align 1 vecadd_param_4, .param .u64 vecadd_param_5
)
.reqntid 256, 1, 1
{ ret; }
.visible .entry capped(.param .u32 capped_param_0)
.maxntid 128, 1, 1
{ ret; }
"""
SIG = ["slice:f32", "slice:f32", "slice:f32"]


class FakeDevice:
    """Device memory in dicts, and a vecadd that 'runs' when launched."""

    def __init__(self):
        self.memory: dict[int, bytearray] = {}
        self.next = 0x1000
        self.freed: list[int] = []
        self.launches: list[tuple] = []
        self.refuse: str | None = None
        self.attributes: list[tuple] = []

    def install(self, monkeypatch):
        monkeypatch.setattr(cuda, "load_module", lambda image, ordinal=0: 0xAA)
        monkeypatch.setattr(cuda, "get_function", lambda module, name: 0xF0 + len(name))
        monkeypatch.setattr(cuda, "mem_alloc", self.alloc)
        monkeypatch.setattr(cuda, "mem_free", lambda ptr, ordinal=0: self.freed.append(ptr))
        monkeypatch.setattr(cuda, "memcpy_htod", self.htod)
        monkeypatch.setattr(cuda, "memcpy_dtoh", self.dtoh)
        monkeypatch.setattr(cuda, "launch_kernel", self.launch)
        monkeypatch.setattr(cuda, "stream_synchronize", lambda stream: None)
        monkeypatch.setattr(
            cuda, "set_function_attribute", lambda f, n, v: self.attributes.append((n, v))
        )
        monkeypatch.setattr("ferrox.driver.runtime.arrays._pointer_device", lambda ptr: 0)
        Module._loaded.clear()

    def alloc(self, nbytes, ordinal=0):
        ptr, self.next = self.next, self.next + ((nbytes + 255) // 256) * 256 + 256
        self.memory[ptr] = bytearray(nbytes)
        return ptr

    def htod(self, dst, src, nbytes=None, stream=None, ordinal=0):
        host = cuda._host_bytes(src, writable=False)
        self.memory[dst][: host.nbytes] = host.tobytes()

    def dtoh(self, dst, src, nbytes=None, stream=None, ordinal=0):
        host = cuda._host_bytes(dst, writable=True)
        host[:] = np.frombuffer(bytes(self.memory[src][: host.nbytes]), np.uint8)

    def launch(self, function, grid, block, args, shared_bytes=0, stream=None, ordinal=0):
        if self.refuse:
            raise CudaError("cuLaunchKernel", getattr(cuda._cu.CUresult, self.refuse))
        self.launches.append((function, grid, block, [(t, v) for t, v in args], shared_bytes))
        if len(args) == 6 and args[0][1] in self.memory:
            (_, a), (_, na), (_, b), (_, nb), (_, c), (_, nc) = args
            x = np.frombuffer(self.memory[a], np.float32)[:na]
            y = np.frombuffer(self.memory[b], np.float32)[:nb]
            out = np.frombuffer(self.memory[c], np.float32)[:nc]
            out[:] = x + y


@pytest.fixture
def device(monkeypatch):
    fake = FakeDevice()
    fake.install(monkeypatch)
    return fake


def test_dim3_normalises_and_refuses():
    assert dim3(256, "block") == (256, 1, 1)
    assert dim3((16, 16), "block") == (16, 16, 1)
    assert dim3(np.int64(4), "grid") == (4, 1, 1)
    with pytest.raises(ValueError, match=r"^grid dimensions must be at least 1, got \(0, 1\)$"):
        dim3((0, 1), "grid")
    with pytest.raises(
        ValueError, match=r"^block must be 1 to 3 positive integers, got \(1, 1, 1, 1\)$"
    ):
        dim3((1, 1, 1, 1), "block")
    with pytest.raises(ValueError, match="block must be 1 to 3 positive integers"):
        dim3(2.0, "block")


def test_module_is_loaded_once_per_image_and_device(device):
    module = Module.load(PTX)
    assert Module.load(PTX) is module
    assert Module.load(PTX, ordinal=1) is not module
    kernel = module.kernel("vecadd", SIG)
    assert module["vecadd"] is kernel and kernel.reqntid == (256, 1, 1) and kernel.signature == SIG
    with pytest.raises(
        KeyError, match=r"no kernel named 'vecad' in this PTX \(entries: vecadd, capped\)"
    ):
        module.kernel("vecad")


def test_wrong_block_for_reqntid_is_explained(device):
    kernel = Module(PTX).kernel("vecadd")
    device.refuse = "CUDA_ERROR_INVALID_VALUE"
    args = [(ctypes.c_uint64, 0x1000), (ctypes.c_int64, 1)] * 3
    with pytest.raises(CudaError) as info:
        kernel.launch(4, 128, args)
    assert str(info.value) == (
        "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE: "
        "block (128, 1, 1) does not match the kernel's .reqntid (256, 1, 1)"
    )
    with pytest.raises(CudaError) as info:  # right block, other cause: no made-up explanation
        kernel.launch(4, 256, args)
    assert str(info.value) == "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE"
    device.refuse = "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"
    with pytest.raises(
        CudaError, match=r"^cuLaunchKernel failed: CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES$"
    ):
        kernel.launch(4, 256, args)
    with pytest.raises(CudaError, match=r"OUT_OF_RESOURCES: block \(128, 1, 1\) does not match"):
        kernel.launch(4, 128, args)  # whatever the error, a block the PTX forbids is named
    device.refuse = None
    kernel.launch(4, 256, args)  # a good launch after the refusals goes through
    assert device.launches[-1][1:3] == ((4, 1, 1), (256, 1, 1))


def test_block_over_maxntid_is_explained(device):
    kernel = Module(PTX).kernel("capped")
    device.refuse = "CUDA_ERROR_INVALID_VALUE"
    with pytest.raises(
        CudaError,
        match=r"block \(16, 16, 1\) has more threads than the kernel's .maxntid \(128, 1, 1\)",
    ):
        kernel.launch(1, (16, 16), [(ctypes.c_uint32, 1)])


def test_packed_arguments_must_match_the_ptx_parameters(device):
    kernel = Module(PTX).kernel("vecadd")
    with pytest.raises(
        ArgumentError, match=r"^kernel 'vecadd' takes 6 PTX parameters, got 2 packed arguments$"
    ):
        kernel.launch(1, 256, [(ctypes.c_uint64, 0), (ctypes.c_int64, 0)])
    bad = [(ctypes.c_uint64, 0), (ctypes.c_int32, 0)] + [(ctypes.c_uint64, 0)] * 4
    with pytest.raises(
        ArgumentError, match=r"parameter 1 is 8 bytes, but argument 1 is a c_int(32)? \(4 bytes\)"
    ):
        kernel.launch(1, 256, bad)
    assert device.launches == []


def test_large_dynamic_shared_memory_is_opted_into_once(device):
    kernel = Module(PTX).kernel("capped")
    kernel.launch(1, 128, [(ctypes.c_uint32, 1)], shared_bytes=1024)
    kernel.launch(1, 128, [(ctypes.c_uint32, 1)], shared_bytes=100_000)
    kernel.launch(1, 128, [(ctypes.c_uint32, 1)], shared_bytes=90_000)
    assert device.attributes == [("MAX_DYNAMIC_SHARED_SIZE_BYTES", 100_000)]
    with pytest.raises(ValueError, match="shared_bytes must be >= 0"):
        kernel.launch(1, 128, [(ctypes.c_uint32, 1)], shared_bytes=-1)


def test_call_copies_numpy_in_and_back(device):
    kernel = Module(PTX).kernel("vecadd", SIG)
    rng = np.random.default_rng(7)
    a, b = rng.random(1000, dtype=np.float32), rng.random(1000, dtype=np.float32)
    a.flags.writeable = False  # read-only inputs are not copied back
    out = np.full(1000, np.nan, np.float32)
    kernel.call(4, 256, a, b, out)
    np.testing.assert_array_equal(out, a + b)
    ((_, grid, block, args, _),) = device.launches
    assert (grid, block) == ((4, 1, 1), (256, 1, 1))
    assert [v for t, v in args][1::2] == [1000, 1000, 1000]
    assert sorted(device.freed) == sorted(device.memory)  # every staging buffer freed


def test_call_checks_every_argument_before_allocating(device):
    kernel = Module(PTX).kernel("vecadd", SIG)
    x = np.zeros(8, np.float32)
    with pytest.raises(
        ArgumentError,
        match=r"^argument 1 \(slice:f32\): expected f32 elements, got f64 \(float64\)$",
    ):
        kernel.call(1, 256, x, np.zeros(8), x)
    with pytest.raises(
        ArgumentError,
        match=r"^kernel takes 3 arguments \(slice:f32, slice:f32, slice:f32\), got 2$",
    ):
        kernel.call(1, 256, x, x)
    with pytest.raises(ArgumentError, match="need sync=True"):
        kernel.call(1, 256, x, x, x, sync=False)
    with pytest.raises(ValueError, match="grid dimensions must be at least 1"):
        kernel.call(0, 256, x, x, x)
    assert device.memory == {} and device.launches == []
    kernel.call(1, 256, x, x, x)  # and a good call afterwards works
    assert len(device.launches) == 1


def test_call_needs_a_signature(device):
    with pytest.raises(ArgumentError, match=r"kernel 'vecadd' has no signature"):
        Module(PTX).kernel("vecadd").call(1, 256)


def test_launch_kernel_hands_the_driver_a_parameter_array(monkeypatch):
    seen = {}

    class FakeDriver:
        @staticmethod
        def cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
            pointers = (ctypes.c_void_p * 2).from_address(params)
            seen["values"] = (
                ctypes.c_uint64.from_address(pointers[0]).value,
                ctypes.c_float.from_address(pointers[1]).value,
            )
            seen["dims"] = (f, gx, gy, gz, bx, by, bz, shared, stream, extra)
            return (0,)

    monkeypatch.setattr(cuda, "_cu", FakeDriver)
    monkeypatch.setattr(cuda, "primary_context", lambda ordinal=0: None)
    cuda.launch_kernel(
        0x77, (2, 3, 1), (32, 4, 1), [(ctypes.c_uint64, 0xBEEF), (ctypes.c_float, 0.25)], 64, 5
    )
    assert seen == {"values": (0xBEEF, 0.25), "dims": (0x77, 2, 3, 1, 32, 4, 1, 64, 5, 0)}


def test_stream_handles_from_other_libraries():
    class TorchLike:
        cuda_stream = 0x51

    class CupyLike:
        ptr = 0x52

    class CoreLike:
        def __cuda_stream__(self):
            return (0, 0x53)

    assert [cuda.stream_handle(s) for s in (None, 7, TorchLike(), CupyLike(), CoreLike())] == [
        0,
        7,
        0x51,
        0x52,
        0x53,
    ]
    with pytest.raises(TypeError, match="not a CUDA stream: str"):
        cuda.stream_handle("default")
