"""Which backend runs a program: `gpu`, `cpu`, or `auto` (the GPU when one can be used)."""

from __future__ import annotations

from ferrox.driver.host_runner.backend import Backend
from ferrox.driver.host_runner.cpu import CpuBackend
from ferrox.driver.host_runner.errors import BackendUnavailable

DEVICES = ("auto", "gpu", "cpu")


def select_backend(device: str = "auto", ordinal: int = 0) -> tuple[Backend, str | None]:
    """The backend for `device`, and, when `auto` fell back to the CPU, why.

    `gpu` raises `BackendUnavailable` (with the reason) where no GPU can be used.
    """
    if device not in DEVICES:
        raise ValueError(f"unknown device '{device}' (expected {', '.join(DEVICES)})")
    if device == "cpu":
        return CpuBackend(), None
    from ferrox.driver.host_runner.gpu import GpuBackend, unavailable_reason

    if device == "gpu":
        return GpuBackend(ordinal), None
    reason = unavailable_reason(ordinal)
    if reason is not None:
        return CpuBackend(), reason
    try:
        return GpuBackend(ordinal), None
    except BackendUnavailable as e:
        return CpuBackend(), str(e)
