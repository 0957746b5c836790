"""The checked relaunch (`driver/checker/relaunch.py`, `LoadedKernel.prepared`) down to the
driver call: on the fake GPU with the real `_launch_packed` and the driver calls replaced by a
recorder that reads the `void**` array as the driver would. A call on the buffers the packed
parameters already hold writes nothing and launches on them; a call on other buffers writes
its own; whatever the key holds that changes (scalar, grid, element type, device) goes back to
the full check and is refused with its exact message, launching nothing."""

from __future__ import annotations

import ctypes
import threading
import types
from pathlib import Path

import fake_gpu
import numpy as np
import pytest

import ferrox
from ferrox import loaded
from ferrox.driver.runtime import launcher
from ferrox.driver.runtime.buffers import DeviceArray

ROOT = Path(__file__).resolve().parents[3]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
SGEMM = ROOT / "examples" / "simt" / "sgemm_naive.mlir"
SUCCESS = launcher._cu.CUresult.CUDA_SUCCESS


@pytest.fixture
def driver(monkeypatch, tmp_path):
    """Each launch as (grid, stream handle, the first `slots` 8-byte parameter values), and the
    checker's calls."""
    with fake_gpu.installed(monkeypatch, tmp_path):
        yield recording(monkeypatch)


def recording(monkeypatch) -> types.SimpleNamespace:
    record = types.SimpleNamespace(launches=[], checks=[], slots=6)

    def cu_launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        pointers = ctypes.cast(params, ctypes.POINTER(ctypes.c_void_p))
        values = [ctypes.c_uint64.from_address(pointers[i]).value for i in range(record.slots)]
        record.launches.append(((gx, gy, gz), int(stream), tuple(values)))
        return (SUCCESS,)

    real = loaded.check_launch

    def counted(artifact, *args, **kwargs):
        record.checks.append(artifact.name)
        return real(artifact, *args, **kwargs)

    monkeypatch.setattr(launcher, "_launch_packed", launcher._native_launch_packed)

    def launch_ex(config, function, params, extra):  # a relaunch's: the same, from its config
        c = config.contents
        return int(cu_launch(function, *c.grid, *c.block, c.shared, c.stream, params.value, 0)[0])

    monkeypatch.setattr(launcher._cu, "cuLaunchKernel", cu_launch)
    monkeypatch.setattr(launcher, "_launch_ex", launch_ex)
    monkeypatch.setattr(loaded, "check_launch", counted)
    return record


def device(values: np.ndarray) -> DeviceArray:
    return DeviceArray.from_numpy(values)


def addresses(arrays) -> tuple:
    return tuple(v for a in arrays for v in (a.ptr, a.size))


class Cell:
    """A packed address cell that counts its writes."""

    def __init__(self, cell, writes: list):
        self.cell, self.writes = cell, writes

    @property
    def value(self) -> int:
        return self.cell.value

    @value.setter
    def value(self, address: int) -> None:
        self.writes.append(address)
        self.cell.value = address


def test_the_same_buffers_again_write_nothing_and_launch_on_them(driver):
    launch = ferrox.load(VECADD, device="gpu")["vecadd"][4, 256]
    first = [device(np.ones(1000, np.float32)) for _ in range(3)]
    other = [device(np.ones(1000, np.float32)) for _ in range(3)]
    launch(*first)  # checked in full; its Relaunch holds these addresses
    relaunch = launch._last[2]
    writes: list[int] = []
    relaunch._cells = [(k, Cell(cell, writes)) for k, cell in relaunch._cells]
    for arrays, written in ((first, 0), (first, 0), (other, 3), (other, 3), (first, 6)):
        launch(*arrays)
        assert driver.launches[-1] == ((4, 1, 1), 1, addresses(arrays))
        assert len(writes) == written
    assert writes == [a.ptr for a in other + first]
    assert driver.checks == ["vecadd"] and len(driver.launches) == 6


def test_an_overlap_on_buffers_held_before_is_still_refused(driver):
    launch = ferrox.load(VECADD, device="gpu")["vecadd"][4, 256]
    base = device(np.ones(4000, np.float32))
    a, b, out = (DeviceArray(base.ptr + at, (1000,), "f32") for at in (0, 4000, 8000))
    launch(a, b, out)
    launch(a, b, out)  # the addresses held: no rule to run again
    with pytest.raises(ferrox.LaunchError) as info:  # the memo's key, addresses overlapping
        launch(a, b, DeviceArray(base.ptr + 2000, (1000,), "f32"))
    assert info.value.problems == [
        f"%{name} (argument #{i}) and %out (argument #2) of @vecadd overlap by 2000 bytes, but "
        "%out is an exclusive output (disjoint slice) and must not alias any other argument "
        "(pass a copy)"
        for i, name in enumerate("ab")
    ]
    launch(a, b, out)
    assert driver.checks == ["vecadd"] * 2 and len(driver.launches) == 3
    assert driver.launches[-1][2] == addresses([a, b, out])


def test_a_changed_scalar_or_grid_is_checked_in_full_and_refused(driver):
    k = ferrox.load(SGEMM, device="gpu")["sgemm_naive"]
    driver.slots = 9
    a, b, c = (device(np.ones(256, np.float32)) for _ in range(3))
    k[(1, 1), (16, 16)](a, b, c, 16, 16, 16)
    k[(1, 1), (16, 16)](a, b, c, 16, 16, 16)
    assert driver.launches[-1] == ((1, 1, 1), 1, (*addresses([a, b, c]), 16, 16, 16))
    with pytest.raises(ferrox.LaunchError) as info:  # k doubled: the same buffers, one scalar
        k[(1, 1), (16, 16)](a, b, c, 16, 16, 32)
    assert info.value.problems == [
        "@sgemm_naive requires len(arg0) >= arg3 * arg5, but len(arg0) = 256 and "
        "arg3 * arg5 = 512 (arg3 = 16, arg5 = 32) [arg0 is %a, arg3 is %m, arg5 is %k]",
        "@sgemm_naive requires len(arg1) >= arg5 * arg4, but len(arg1) = 256 and "
        "arg5 * arg4 = 512 (arg5 = 32, arg4 = 16) [arg1 is %b, arg4 is %n, arg5 is %k]",
    ]
    c2 = device(np.ones(1024, np.float32))
    k[(2, 2), (16, 16)](a, b, c2, 32, 32, 8)
    with pytest.raises(ferrox.LaunchError) as info:  # the same arguments, half the grid
        k[(1, 2), (16, 16)](a, b, c2, 32, 32, 8)
    assert info.value.problems == [
        "the grid does not cover %c: grid.x * block.x = 1 * 16 = 16 columns, but the row width "
        "%n = 32 needs 32 (grid.x must be at least 2)"
    ]
    assert driver.checks == ["sgemm_naive"] * 4 and len(driver.launches) == 3


def test_a_changed_element_type_or_device_is_checked_in_full_and_refused(driver):
    launch = ferrox.load(VECADD, device="gpu")["vecadd"][4, 256]
    a, b, out = (device(np.ones(1000, np.float32)) for _ in range(3))
    launch(a, b, out)
    launch(a, b, out)
    with pytest.raises(ferrox.LaunchError) as info:
        launch(a, b, DeviceArray(out.ptr, (1000,), "i32"))  # the same address, another type
    assert info.value.problems == [
        "%out (argument #2) of @vecadd is a disjoint slice of f32, but the array holds i32 "
        "(its element type must be f32)"
    ]
    with pytest.raises(ferrox.LaunchError) as info:
        launch(a, b, DeviceArray(out.ptr, (1000,), "f32", ordinal=1))
    assert info.value.problems == [
        "%out (argument #2) of @vecadd is on GPU 1, but the module is loaded on GPU 0: a kernel "
        "reaches only its own device's memory (move the array there)"
    ]
    assert driver.checks == ["vecadd"] * 2 and len(driver.launches) == 2  # a device: bound


def test_threads_on_their_own_buffers_each_launch_their_own_addresses(driver):
    launch = ferrox.load(VECADD, device="gpu")["vecadd"][4, 256]
    launch(*(device(np.ones(1000, np.float32)) for _ in range(3)))
    mine = [[device(np.ones(1000, np.float32)) for _ in range(3)] for _ in range(4)]
    real, launched = launcher._launch_ex, []

    def tagged(*args):  # which thread launched: under the memo entry's lock
        launched.append(threading.current_thread().name)
        return real(*args)

    launcher._launch_ex = tagged  # restored by the fixture's monkeypatch
    start = threading.Barrier(4)

    def work(i: int) -> None:
        start.wait()
        for _ in range(200):
            launch(*mine[i])

    threads = [threading.Thread(target=work, args=(i,), name=str(i)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(launched) == len(driver.launches) - 1 == 800
    for name, (_, _, values) in zip(launched, driver.launches[1:], strict=True):
        assert values == addresses(mine[int(name)])
