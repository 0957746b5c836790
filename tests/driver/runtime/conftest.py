"""The fake GPU (tests/support/fake_gpu.py) for the runtime's own tests."""

from __future__ import annotations

import gc

import fake_gpu
import pytest


@pytest.fixture
def fake(monkeypatch, tmp_path):
    yield fake_gpu.install(monkeypatch, tmp_path)
    gc.collect()  # free fake device buffers while the fake is still installed
