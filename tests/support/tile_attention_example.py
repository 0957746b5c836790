"""The fused attention example (`examples/python/tile_attention.py`) as a fresh module: its kernel
with an empty compile cache, `reference`, `main`. For the tests that run it outside its folder."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python" / "tile_attention.py"


def load(name: str = "tile_attention") -> ModuleType:
    """A new copy of the example module, named `name`."""
    spec = importlib.util.spec_from_file_location(name, EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
