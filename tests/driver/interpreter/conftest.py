"""Helpers for the interpreter tests: parse an example or an inline kernel with locations."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from parsed_once import parse_once

from ferrox.registry import make_context
from ferrox.verify import verify_module

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples" / "simt"


def parse(text: str, name: str = "test.mlir"):
    module = parse_once(make_context(), text, name)
    verify_module(module)
    return module


@pytest.fixture
def example():
    """`example("vecadd")`: the parsed example module (kernels located in their file)."""

    def load(name: str):
        path = EXAMPLES / f"{name}.mlir"
        return parse(path.read_text(), str(path))

    return load


@pytest.fixture
def kernel():
    """`kernel(body)`: a module holding the given kernel text, parsed as `test.mlir`."""
    return lambda text: parse(f"builtin.module {{\n{text}\n}}")


@pytest.fixture
def rng():
    return np.random.default_rng(20240611)


def poisoned(n: int, dtype=np.float32) -> np.ndarray:
    return np.full(n, np.nan, dtype=dtype)
