"""The device layer: the probe never raises, limits are queried once, the context is made
current once per thread, and `check_launch` states every exceeded limit with both values."""

from __future__ import annotations

import threading

import pytest

from ferrox.driver.runtime import device
from ferrox.driver.runtime.device import DeviceLimits
from ferrox.driver.runtime.errors import CudaUnavailable

LIMITS = DeviceLimits(
    ordinal=0,
    name="Test GPU",
    compute_capability=(8, 0),
    sm_count=108,
    warp_size=32,
    max_threads_per_block=1024,
    max_block_dims=(1024, 1024, 64),
    max_grid_dims=(2**31 - 1, 65535, 65535),
    max_shared_per_block=48 * 1024,
    max_shared_per_block_optin=163 * 1024,
    max_registers_per_block=65536,
    total_memory=40 * 2**30,
)


def test_a_launch_that_fits_has_no_problems():
    assert LIMITS.check_launch((100, 1, 1), (256, 1, 1), 1024) == []
    assert LIMITS.chip == "sm_80"


def test_every_exceeded_limit_is_named_with_both_values():
    assert LIMITS.check_launch((1, 70000, 1), (2048, 1, 65), 200 * 1024, (9, 0)) == [
        "block.x is 2048, but Test GPU allows at most 1024",
        "block.z is 65, but Test GPU allows at most 64",
        "block has 133120 threads, but Test GPU allows at most 1024 per block",
        "grid.y is 70000, but Test GPU allows at most 65535",
        "dynamic shared memory is 204800 bytes, but Test GPU allows at most 166912 per block",
        "the kernel needs compute capability 9.0, but Test GPU has 8.0",
    ]


@pytest.mark.parametrize(
    "count, expected",
    [
        (0, "the CUDA driver reports no GPU"),
        (1, None),
    ],
)
def test_unavailable_reason_by_device_count(monkeypatch, count, expected):
    monkeypatch.setattr(device, "_count_devices", lambda: count)
    assert device.unavailable_reason() == expected
    assert device.unavailable_reason(3) == (expected or "no CUDA device 3: this machine has 1")


def test_unavailable_reason_never_raises(monkeypatch):
    def missing():
        raise CudaUnavailable("the CUDA driver library (libcuda.so) could not be loaded: gone")

    monkeypatch.setattr(device, "_count_devices", missing)
    assert device.unavailable_reason() == (
        "the CUDA driver library (libcuda.so) could not be loaded: gone"
    )

    def broken():
        raise KeyError("probe")

    monkeypatch.setattr(device, "_count_devices", broken)
    assert device.unavailable_reason() == "CUDA probe failed: KeyError: 'probe'"


def test_the_real_probe_answers_without_raising():
    reason = device.unavailable_reason()
    assert reason is None or isinstance(reason, str) and reason


def test_limits_are_queried_once_per_device(monkeypatch):
    calls = []
    monkeypatch.setattr(device, "_limits", {})
    monkeypatch.setattr(
        DeviceLimits, "query", classmethod(lambda cls, o: calls.append(o) or LIMITS)
    )
    assert device.device_limits(0) is LIMITS and device.device_limits(0) is LIMITS
    assert calls == [0]


def test_the_context_is_made_current_once_per_thread(monkeypatch):
    opened = []
    monkeypatch.setattr(device, "_count_devices", lambda: 2)
    monkeypatch.setattr(device, "_open_device", lambda o: opened.append(o) or f"device {o}")
    monkeypatch.setattr(device, "_current", threading.local())
    assert [device.core_device(0) for _ in range(3)] == ["device 0"] * 3
    assert opened == [0]
    thread = threading.Thread(target=device.core_device, args=(0,))
    thread.start()
    thread.join()
    assert opened == [0, 0]
    assert device.core_device(1) == "device 1" and opened == [0, 0, 1]
    with pytest.raises(CudaUnavailable, match=r"^no CUDA device 2: this machine has 2$"):
        device.core_device(2)
