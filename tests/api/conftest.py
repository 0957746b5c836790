"""Fixtures of the launch API's tests."""

from __future__ import annotations

import pytest

from ferrox import loaded


@pytest.fixture
def checks(monkeypatch):
    """The kernels the launch checker saw, one entry a full check."""
    seen: list[str] = []
    real = loaded.check_launch

    def counted(artifact, *args, **kwargs):
        seen.append(artifact.name)
        return real(artifact, *args, **kwargs)

    monkeypatch.setattr(loaded, "check_launch", counted)
    return seen


@pytest.fixture
def bindings(monkeypatch):
    """How many launches bound their arguments afresh (DLPack, array interfaces)."""
    seen: list[str] = []
    real = loaded.GpuDevice.arguments

    def counted(self, artifact, args, stream):
        seen.append(artifact.name)
        return real(self, artifact, args, stream)

    monkeypatch.setattr(loaded.GpuDevice, "arguments", counted)
    return seen
