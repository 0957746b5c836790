"""Fixtures for the host-runner tests: parse a program, and a fake GPU for the GPU backend."""

from __future__ import annotations

import fake_gpu
import pytest


@pytest.fixture
def program(tmp_path):
    """`program(text)`: a verified module from host-program text, located in `prog.mlir`."""
    from ferrox.run_api import load_program

    def load(text: str, name: str = "prog.mlir"):
        path = tmp_path / name
        path.write_text(text)
        return load_program(path)

    return load


@pytest.fixture
def fake_device(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        yield fake
