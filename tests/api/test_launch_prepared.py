"""The checked relaunch's own path to the driver (`LoadedKernel.prepared`, `Relaunch`): on the
fake GPU with `launcher._launch_packed` the real one and the driver calls replaced by a
recorder that reads the parameter array as the driver would (each `void*` to its value), so
what is pinned is what a relaunch hands the driver: this call's addresses written in place,
nothing launched on a refused call, the driver's status read. And what the memo's key must
miss on: an element type, a shape, a kernel with TMA tensor maps."""

from __future__ import annotations

import ctypes
import types
from pathlib import Path

import fake_gpu
import numpy as np
import pytest

import ferrox
from ferrox.driver.checker.relaunch import relaunch_for
from ferrox.driver.runtime import launcher
from ferrox.driver.runtime.buffers import DeviceArray
from ferrox.driver.runtime.errors import CudaError

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
SUCCESS = launcher._cu.CUresult.CUDA_SUCCESS


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        yield fake


@pytest.fixture
def driver(fake, monkeypatch):
    """The native packed path, down to a recording `cuLaunchKernel` (status: `driver.status`):
    each launch as (grid, block, shared bytes, stream handle, the parameters' 8-byte values)."""
    record = types.SimpleNamespace(launches=[], status=SUCCESS)

    def cu_launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        pointers = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = tuple(ctypes.c_uint64.from_address(pointers[i]).value for i in range(6))
        record.launches.append(((gx, gy, gz), (bx, by, bz), shared, int(stream), values))
        return (record.status,)

    def launch_ex(config, function, params, extra):  # a relaunch's: the same, from its config
        c = config.contents
        return int(cu_launch(function, *c.grid, *c.block, c.shared, c.stream, params.value, 0)[0])

    monkeypatch.setattr(launcher, "_launch_packed", launcher._native_launch_packed)
    monkeypatch.setattr(launcher._cu, "cuLaunchKernel", cu_launch)
    monkeypatch.setattr(launcher, "_launch_ex", launch_ex)
    return record


def device(values: np.ndarray) -> DeviceArray:
    return DeviceArray.from_numpy(values)


def test_a_relaunch_hands_the_driver_this_calls_addresses(driver, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    first = [device(np.ones(1000, np.float32)) for _ in range(3)]
    k[4, 256](*first)  # checked in full, then packed once
    assert checks == ["vecadd"] and len(driver.launches) == 1
    for _ in range(3):  # other buffers of the same kind: the memo, no check
        a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
        k[4, 256](a, b, out)
        assert driver.launches[-1] == (
            (4, 1, 1),
            (256, 1, 1),
            0,
            1,  # the legacy default stream: no torch tensor, no stream given
            (a.ptr, 1000, b.ptr, 1000, out.ptr, 1000),
        )
    assert checks == ["vecadd"] and len(driver.launches) == 4


def test_an_overlapping_relaunch_reaches_no_driver(driver, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    base = device(np.ones(4000, np.float32))
    a, b, out = (DeviceArray(base.ptr + at, (1000,), "f32") for at in (0, 4000, 8000))
    k[4, 256](a, b, out)
    with pytest.raises(ferrox.LaunchError) as info:
        k[4, 256](a, b, DeviceArray(base.ptr + 2000, (1000,), "f32"))  # the memo's key
    assert info.value.problems == [
        f"%{name} (argument #{i}) and %out (argument #2) of @vecadd overlap by 2000 bytes, but "
        "%out is an exclusive output (disjoint slice) and must not alias any other argument "
        "(pass a copy)"
        for i, name in enumerate("ab")
    ]
    assert checks == ["vecadd"] * 2 and len(driver.launches) == 1
    k[4, 256](a, b, out)  # the memo still serves the launch it holds, on its addresses
    assert driver.launches[-1][4] == (a.ptr, 1000, b.ptr, 1000, out.ptr, 1000)
    assert checks == ["vecadd"] * 2 and len(driver.launches) == 2


def test_a_relaunch_reads_the_drivers_status(driver):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    driver.status = launcher._cu.CUresult.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    with pytest.raises(CudaError) as info:
        k[4, 256](a, b, out)  # from the memo: the prepared launch
    error = info.value
    assert (error.call, error.name, error.detail) == (
        "cuLaunchKernelEx",
        "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
        None,
    )
    assert len(driver.launches) == 2


def test_another_element_type_misses_the_memo(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    for dtype, name in ((np.int32, "i32"), (np.float64, "f64")):
        wrong = device(np.zeros(1000, dtype))
        with pytest.raises(ferrox.LaunchError) as info:
            k[4, 256](a, b, wrong)
        assert info.value.problems == [
            f"%out (argument #2) of @vecadd is a disjoint slice of f32, but the array holds "
            f"{name} (its element type must be f32)"
        ]
    assert checks == ["vecadd"] * 3 and len(fake.launches) == 1


def test_another_shape_misses_the_memo(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 1000), dtype=np.float32)
    a, b = device(x), device(y)
    out = device(np.full(1000, np.nan, np.float32))
    k[4, 256](a, b, out)
    square = device(np.full((10, 100), np.nan, np.float32))  # the same bytes, another shape
    k[4, 256](a, b, square)
    np.testing.assert_array_equal(square.copy_to_host().ravel(), x + y)
    np.testing.assert_array_equal(out.copy_to_host(), x + y)
    assert checks == ["vecadd"] * 2 and len(fake.launches) == 2


def test_a_kernel_with_tensor_maps_is_never_kept():
    """Its maps were encoded from the first launch's addresses: a rewritten address slot
    would leave a map on the old buffer, so every such launch is checked and packed anew."""
    artifact = types.SimpleNamespace(tensor_maps=("a map",))
    assert relaunch_for((), [], artifact, None, None, None, None) is None  # type: ignore[arg-type]


def test_one_launch_object_serves_its_repeats_and_nothing_else(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    launch = k[4, 256]  # made once: its own memo, then the device's
    rng = np.random.default_rng(9)
    for shape in [(1000,), (10, 100), (1000,), (10, 100)]:  # two keys in turn
        x, y = rng.standard_normal((2, *shape), dtype=np.float32)
        out = device(np.full(shape, np.nan, np.float32))
        launch(device(x), device(y), out, shared_bytes=0)
        np.testing.assert_array_equal(out.copy_to_host(), x + y)
    assert checks == ["vecadd"] * 2 and len(fake.launches) == 4
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    launch(a, b, out, shared_bytes=0.0)  # equal to 0, hashed as 0, but not an int: in full
    launch(a, b, out)  # no shared bytes: another key
    assert checks == ["vecadd"] * 4 and len(fake.launches) == 6
    with pytest.raises(ferrox.LaunchError) as info:
        launch(a, b, a, shared_bytes=0)
    assert info.value.problems == [
        "%a (argument #0) and %out (argument #2) of @vecadd overlap by 4000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    assert checks == ["vecadd"] * 5 and len(fake.launches) == 6


def test_a_launch_written_per_call_is_the_one_made_before(fake, checks):
    module = ferrox.load(VECADD, device="gpu")
    k = module["vecadd"]
    assert k[4, 256] is module["vecadd"][4, 256] is k[(4, 256)]
    assert k[(4,), 256] is not k[4, 256] and k[4.0, 256] is not k[4.0, 256]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    with pytest.raises(ferrox.LaunchError) as info:  # equal to 4, never the memo's
        k[4.0, 256](a, b, out)
    assert info.value.problems == ["grid must be 1 to 3 positive integers, got 4.0"]
    assert checks == ["vecadd"] * 2 and len(fake.launches) == 1


def test_the_driver_is_called_through_ctypes_with_the_config_and_three_pointers(fake, monkeypatch):
    """The real ctypes call (`_LAUNCH_EX` of an address) into a C-callable stand-in for the
    driver's `cuLaunchKernelEx`: what arrives is the config (grid, block, shared bytes,
    stream, no attributes), the function, the parameter array and no `extra`."""
    seen = []

    def driver_launch_ex(config, function, params, extra):
        c = launcher._LaunchConfig.from_address(config)
        values = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        first = ctypes.c_uint64.from_address(values[0]).value
        seen.append((tuple(c.grid), tuple(c.block), c.shared, c.stream, c.num_attrs, extra, first))
        return 0 if len(seen) < 3 else 719  # then CUDA_ERROR_LAUNCH_FAILED

    c_type = ctypes.CFUNCTYPE(ctypes.c_int, *[ctypes.c_void_p] * 4)
    stand_in = c_type(driver_launch_ex)
    address = ctypes.cast(stand_in, ctypes.c_void_p).value
    monkeypatch.setattr(launcher, "_driver_launch_ex", lambda: launcher._LAUNCH_EX(address))
    monkeypatch.setattr(launcher, "_launch_ex", launcher._first_launch_ex)
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)  # checked in full: the seam's launch
    monkeypatch.setattr(launcher, "_launch_packed", launcher._native_launch_packed)
    k[4, 256](a, b, out)
    other = device(np.ones(1000, np.float32))
    k[4, 256](other, b, out)
    assert seen == [
        ((4, 1, 1), (256, 1, 1), 0, 1, 0, None, a.ptr),
        ((4, 1, 1), (256, 1, 1), 0, 1, 0, None, other.ptr),
    ]
    with pytest.raises(CudaError) as info:
        k[4, 256](a, b, out)
    assert (info.value.call, info.value.name) == ("cuLaunchKernelEx", "CUDA_ERROR_LAUNCH_FAILED")


def test_without_the_drivers_entry_cuda_bindings_launches_the_config(driver, monkeypatch):
    monkeypatch.setattr(launcher, "_driver_launch_ex", lambda: False)
    monkeypatch.setattr(launcher, "_launch_ex", launcher._first_launch_ex)
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    k[5, 256](a, b, out)  # a grid of its own: checked, then relaunched
    k[5, 256](a, b, out)
    assert launcher._launch_ex is launcher._bindings_launch_ex
    assert driver.launches[-1] == (
        (5, 1, 1),
        (256, 1, 1),
        0,
        1,
        (a.ptr, 1000, b.ptr, 1000, out.ptr, 1000),
    )
