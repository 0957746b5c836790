"""The checked launch's memo (`ferrox/loaded.py`, `driver/checker/signature.py`): a launch whose
signature the checker passed before is launched again without checking, with the same result;
anything the checker reads that changes (an array's length or address, a scalar, the grid) is
checked again, and refused as before. On the fake GPU: packing and launches are real, kernels
run on the interpreter."""

from __future__ import annotations

import gc
import sys
import types
import weakref
from pathlib import Path

import fake_gpu
import numpy as np
import pytest

import ferrox
from ferrox import simt
from ferrox.driver.checker.signature import signature
from ferrox.driver.runtime.buffers import DeviceArray
from ferrox.simt import DisjointSlice, Slice, f32

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
SAXPY = ROOT / "examples" / "simt" / "saxpy.mlir"


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        yield fake


def device(values: np.ndarray) -> DeviceArray:
    return DeviceArray.from_numpy(values)


def poison(fake, array: DeviceArray) -> None:
    fake.view(array.ptr, array.nbytes)[:] = np.full(array.size, np.nan, np.float32).view(np.uint8)


def test_a_repeated_launch_skips_the_checker_and_computes_the_same(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((2, 1000), dtype=np.float32)
    da, db, dout = device(a), device(b), device(np.full(1000, np.nan, np.float32))
    k[4, 256](da, db, dout)
    np.testing.assert_array_equal(dout.copy_to_host(), a + b)
    poison(fake, dout)
    k[4, 256](da, db, dout)
    np.testing.assert_array_equal(dout.copy_to_host(), a + b)
    assert checks == ["vecadd"] and len(fake.launches) == 2


def test_whatever_the_checker_reads_is_checked_again(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b = (device(np.ones(1000, np.float32)) for _ in range(2))
    out = device(np.zeros(1000, np.float32))
    k[4, 256](a, b, out)
    longer = device(np.zeros(2000, np.float32))
    with pytest.raises(ferrox.LaunchError) as info:
        k[4, 256](a, b, longer)
    assert info.value.problems == [
        "@vecadd requires len(arg0) >= len(arg2), but len(arg0) = 1000 and len(arg2) = 2000 "
        "[arg0 is %a, arg2 is %out]",
        "@vecadd requires len(arg1) >= len(arg2), but len(arg1) = 1000 and len(arg2) = 2000 "
        "[arg1 is %b, arg2 is %out]",
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 4 * 256 = "
        "1024 elements, but len(%out) = 2000 (grid.x must be at least 8)",
    ]
    overlapping = DeviceArray(a.ptr, (1000,), "f32")
    with pytest.raises(ferrox.LaunchError, match="overlap by 4000 bytes"):
        k[4, 256](a, b, overlapping)
    a2, b2 = (device(np.ones(2000, np.float32)) for _ in range(2))
    k[8, 256](a2, b2, longer)
    np.testing.assert_array_equal(longer.copy_to_host(), np.full(2000, 2, np.float32))
    assert checks == ["vecadd"] * 4 and len(fake.launches) == 2


def test_scalars_are_part_of_the_signature(fake, checks):
    k = ferrox.load(SAXPY, device="gpu")["saxpy"]
    x = np.arange(1000, dtype=np.float32)
    dx, dy = device(x), device(np.ones(1000, np.float32))
    for alpha in (2.0, 2.0, 3.0, -0.0, 0.0):
        fake.view(dy.ptr, dy.nbytes)[:] = np.ones(1000, np.float32).view(np.uint8)
        k[4, 256](alpha, dx, dy)
        np.testing.assert_array_equal(dy.copy_to_host(), np.float32(alpha) * x + 1)
    assert checks == ["saxpy"] * 4 and len(fake.launches) == 5
    assert signature([-0.0]) != signature([0.0]) and signature([2]) != signature([2.0])


def test_numpy_arrays_are_checked_every_time(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b = np.ones(1000, np.float32), np.ones(1000, np.float32)
    out = np.full(1000, np.nan, np.float32)
    k[4, 256](a, b, out)
    k[4, 256](a, b, out)
    np.testing.assert_array_equal(out, a + b)
    assert checks == ["vecadd"] * 2 and signature([a]) is None


def test_device_arrays_relaunch_on_an_explicit_stream(fake, checks, monkeypatch):
    from ferrox.driver.runtime import launcher
    from ferrox.driver.runtime.streams import LEGACY, Stream

    streams: list[int] = []
    real = launcher._launch_packed

    def recorded(kernel, dims, stream, packed):
        streams.append(stream)
        real(kernel, dims, stream, packed)

    monkeypatch.setattr(launcher, "_launch_packed", recorded)
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b = np.arange(1000, dtype=np.float32), np.ones(1000, np.float32)
    da, db, dout = device(a), device(b), device(np.full(1000, np.nan, np.float32))
    side = Stream()
    k[4, 256](da, db, dout, stream=side)  # checked in full
    poison(fake, dout)
    k[4, 256](da, db, dout, stream=side)  # relaunched, on the same stream
    k[4, 256](da, db, dout)  # and on the legacy one
    np.testing.assert_array_equal(dout.copy_to_host(), a + b)
    assert checks == ["vecadd"] and streams == [side.handle, side.handle, LEGACY]


def test_a_relaunch_on_new_buffers_of_the_same_shapes_skips_the_checker(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    rng = np.random.default_rng(11)
    first = [device(v) for v in rng.standard_normal((3, 1000), dtype=np.float32)]
    k[4, 256](*first)
    poison(fake, first[2])
    for _ in range(2):
        a, b = rng.standard_normal((2, 1000), dtype=np.float32)
        da, db, dout = device(a), device(b), device(np.full(1000, np.nan, np.float32))
        k[4, 256](da, db, dout)  # other addresses, the same key: the packed addresses rewritten
        np.testing.assert_array_equal(dout.copy_to_host(), a + b)
    assert np.isnan(first[2].copy_to_host()).all(), "the first launch's output was written again"
    assert checks == ["vecadd"] and len(fake.launches) == 3


def test_the_aliasing_rule_runs_on_every_relaunch(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    base = device(np.ones(5000, np.float32))  # a, out, b inside, with room around a
    a, out, b = (DeviceArray(base.ptr + at, (1000,), "f32") for at in (4000, 8000, 16000))
    k[4, 256](a, b, out)
    for start, shared in ((a.ptr, 4000), (a.ptr + 400, 3600), (a.ptr - 3996, 4)):
        with pytest.raises(ferrox.LaunchError) as info:
            k[4, 256](a, b, DeviceArray(start, (1000,), "f32"))
        assert info.value.problems == [
            f"%a (argument #0) and %out (argument #2) of @vecadd overlap by {shared} bytes, but "
            "%out is an exclusive output (disjoint slice) and must not alias any other argument "
            "(pass a copy)"
        ]
    k[4, 256](a, a, out)  # two inputs may share memory: relaunched
    np.testing.assert_array_equal(out.copy_to_host(), np.full(1000, 2, np.float32))
    assert checks == ["vecadd"] * 4 and len(fake.launches) == 2


def test_a_grid_that_only_equals_an_int_is_checked_in_full(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    for grid in (4.0, True, (4.0,)):
        with pytest.raises(ferrox.LaunchError) as info:
            k[grid, 256](a, b, out)
        assert info.value.problems[0] == f"grid must be 1 to 3 positive integers, got {grid!r}"
    assert checks == ["vecadd"] * 4 and len(fake.launches) == 1


def test_the_memo_keeps_no_buffer_alive(fake):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    k[4, 256](a, b, out)
    gone = weakref.ref(out)
    del out
    gc.collect()
    assert gone() is None


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def doubled(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = x[i] * 2.0


def test_a_decorated_kernel_relaunches_as_a_loaded_one_does(fake, checks):
    k = doubled.on("gpu")
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = rng.standard_normal(300, dtype=np.float32)
        dx, dout = device(x), device(np.full(300, np.nan, np.float32))
        k[2, 256](dx, dout)
        np.testing.assert_array_equal(dout.copy_to_host(), x * np.float32(2))
    with pytest.raises(ferrox.LaunchError) as aliased:
        k[2, 256](dx, dx)
    assert str(aliased.value) == (
        "%x (argument #0) and %out (argument #1) of @doubled overlap by 1200 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    )
    assert checks == ["doubled"] * 2 and len(fake.launches) == 3


class Tensor:
    """Just enough of a torch tensor for `signature` (the class is named as torch's is)."""

    def __init__(self, ptr: int, shape: tuple, contiguous: bool = True, cuda: bool = True):
        self.ptr, self.shape, self.contiguous, self.is_cuda = ptr, shape, contiguous, cuda
        self.dtype = "torch.float32"
        self.device = ("cuda", 0) if cuda else ("cpu", -1)  # torch's: its type and index

    def data_ptr(self) -> int:
        return self.ptr

    def is_contiguous(self) -> bool:
        return self.contiguous


Tensor.__module__ = "torch"


def test_a_torch_tensors_signature_is_its_kind_and_its_address():
    t = Tensor(0x1000, (4, 8))
    cuda0 = ("cuda", 0)
    assert signature([t]) == ((Tensor, ("torch.float32", (4, 8), True, cuda0)), [0x1000])
    assert signature([t, 3, Tensor(0x2000, (4, 8))]) == (
        (Tensor, ("torch.float32", (4, 8), True, cuda0), int, 3, Tensor, signature([t])[0][1]),
        [0x1000, 0x2000],
    )
    assert signature([Tensor(0x1000, (4, 8), contiguous=False)]) != signature([t])
    on_cpu = signature([Tensor(0x1000, (4, 8), cuda=False)])  # a key no passed launch has
    assert on_cpu is not None and on_cpu[0] != signature([t])[0]
    assert signature([t, np.zeros(3)]) is None


def test_the_launch_stream_is_torchs_current_raw_stream(monkeypatch):
    fake_torch = types.SimpleNamespace(
        _C=types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0xABC + device)
    )
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    from ferrox.driver.runtime import streams

    monkeypatch.setattr(streams, "_raw_stream", None)
    assert streams.torch_current_stream(1) == 0xABD
    fake_torch._C._cuda_getCurrentRawStream = lambda device: 0
    monkeypatch.setattr(streams, "_raw_stream", None)
    assert streams.torch_current_stream(0) == streams.LEGACY


def test_the_packed_launch_reads_the_drivers_status(monkeypatch):
    from cuda.bindings import driver as cu

    from ferrox.driver.runtime import launcher
    from ferrox.driver.runtime.errors import CudaError

    calls, status = [], [cu.CUresult.CUDA_SUCCESS]

    def launch(*args):
        calls.append(args)
        return (status[0],)

    monkeypatch.setattr(launcher._cu, "cuLaunchKernel", launch)
    kernel = types.SimpleNamespace(_function="the function")
    packed = types.SimpleNamespace(address=0x1234)
    launcher._launch_packed(kernel, ((2, 1, 1), (32, 1, 1), 0), 0xABC, packed)
    assert calls[0][:8] + calls[0][9:] == ("the function", 2, 1, 1, 32, 1, 1, 0, 0x1234, 0)
    assert int(calls[0][8]) == 0xABC
    status[0] = cu.CUresult.CUDA_ERROR_INVALID_VALUE
    with pytest.raises(CudaError) as info:
        launcher._launch_packed(kernel, ((2, 1, 1), (32, 1, 1), 0), 0xABC, packed)
    error = info.value  # the driver's sentence for it, where there is a driver to ask
    assert (error.call, error.code, error.name) == ("cuLaunchKernel", 1, "CUDA_ERROR_INVALID_VALUE")


def test_a_relaunch_goes_on_torchs_current_stream_read_each_call(monkeypatch):
    from ferrox.driver.checker.relaunch import Relaunch
    from ferrox.driver.runtime.streams import LEGACY

    current = [0xABC]
    fake_torch = types.SimpleNamespace(
        _C=types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: current[0] * device)
    )
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    seen: list[int] = []
    on_torch = Relaunch((), seen.append, [], [], device=2)
    assert on_torch([]) and seen == [0xABC * 2]
    current[0] = 0  # torch's default stream: the legacy one
    assert on_torch([]) and seen == [0xABC * 2, LEGACY]
    assert Relaunch((), seen.append, [], [], device=None)([]) and seen[-1] == LEGACY
    current[0] = 0x500
    assert on_torch([], stream=0x500 * 2) and seen[-1] == 0x500 * 2  # torch's current: taken
    assert not on_torch([], stream=0x700) and seen[-1] == 0x500 * 2  # another: check in full
    assert Relaunch((), seen.append, [], [], device=None)([], 0x700) and seen[-1] == 0x700


def test_an_array_on_another_gpu_is_refused(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    elsewhere = DeviceArray(out.ptr, (1000,), "f32", ordinal=1)
    with pytest.raises(ferrox.LaunchError) as info:
        k[4, 256](a, b, elsewhere)
    assert info.value.problems == [
        "%out (argument #2) of @vecadd is on GPU 1, but the module is loaded on GPU 0: a kernel "
        "reaches only its own device's memory (move the array there)"
    ]
    assert len(fake.launches) == 1


def test_shared_bytes_that_only_equal_an_int_are_checked_in_full(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out, shared_bytes=0)
    k[4, 256](a, b, out, shared_bytes=0)
    with pytest.raises(TypeError) as info:  # unhashable: the checker's own error, not the memo's
        k[4, 256](a, b, out, shared_bytes=[0])
    assert str(info.value) == (
        "int() argument must be a string, a bytes-like object or a real number, not 'list'"
    )
    k[4, 256](a, b, out, shared_bytes=0.0)  # the checker takes int(0.0), checked in full
    assert checks == ["vecadd"] * 3 and len(fake.launches) == 3


def test_a_repeated_unsafe_launch_rewrites_only_the_addresses(fake, checks, bindings):
    """`unsafe_launch` keeps its packed parameters per signature key too: a repeat on other
    buffers of the same shapes binds nothing and computes on the new buffers; still nothing is
    checked (grid 1 covers 256 of 1000 elements, which the checker would refuse)."""
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    rng = np.random.default_rng()
    results = []
    for _ in range(3):
        a, b = rng.standard_normal((2, 1000), dtype=np.float32)
        da, db, dout = device(a), device(b), device(np.full(1000, np.nan, np.float32))
        k.unsafe_launch(1, 256, da, db, dout)
        results.append((a, b, dout.copy_to_host()))
    for a, b, out in results:
        np.testing.assert_array_equal(out[:256], a[:256] + b[:256])
        assert np.isnan(out[256:]).all()
    assert checks == [] and bindings == ["vecadd"] and len(fake.launches) == 3


def test_a_repeated_unsafe_launch_compares_no_aliasing_pairs(fake, checks, bindings):
    """The caller of `unsafe_launch` vouches for aliasing: an output that is also an input is
    launched on the memo as given (the checked API refuses it)."""
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    rng = np.random.default_rng()
    a, b = rng.standard_normal((2, 256), dtype=np.float32)
    da, db, dout = device(a), device(b), device(np.full(256, np.nan, np.float32))
    k.unsafe_launch(1, 256, da, db, dout)
    k.unsafe_launch(1, 256, da, db, da)  # a += b, in place
    np.testing.assert_array_equal(da.copy_to_host(), a + b)
    np.testing.assert_array_equal(dout.copy_to_host(), a + b)
    assert checks == [] and bindings == ["vecadd"] and len(fake.launches) == 2
    with pytest.raises(ferrox.LaunchError):
        k[1, 256](da, db, da)
