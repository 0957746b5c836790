"""Skip `gpu`-marked tests, with the reason, where no CUDA driver or GPU can be used.

The probe runs once, only when a `gpu` test is about to run, and never raises: a missing
cuda-python, a missing libcuda.so and a machine with no device all become the skip reason.
"""

from __future__ import annotations

import functools

import pytest


@functools.cache
def gpu_unavailable_reason() -> str | None:
    try:
        from ferrox.driver.runtime.device import unavailable_reason

        return unavailable_reason()
    except Exception as exc:  # the probe itself must never take the test run down
        return f"CUDA probe failed: {type(exc).__name__}: {exc}"


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("gpu") is not None and (reason := gpu_unavailable_reason()):
        pytest.skip(f"needs an NVIDIA GPU: {reason}")


@pytest.fixture(scope="module")
def torch():
    """PyTorch with CUDA, for the tests that make and compare their operands on the device."""
    module = pytest.importorskip("torch")
    if not module.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    return module
