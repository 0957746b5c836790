"""The fake GPU (tests/support/fake_gpu.py) for the runtime's own tests."""

from __future__ import annotations

import fake_gpu
import pytest


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        yield fake
