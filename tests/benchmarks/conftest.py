"""The benchmarks package lives at the checkout's root, outside `ferrox`, and xDSL's wheel
installs another top-level package named `benchmarks`: import this one by its path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "benchmarks"


def _ours() -> None:
    loaded = sys.modules.get("benchmarks")
    if loaded is not None and Path(loaded.__file__ or "").parent == PACKAGE:
        return
    spec = importlib.util.spec_from_file_location(
        "benchmarks", PACKAGE / "__init__.py", submodule_search_locations=[str(PACKAGE)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["benchmarks"] = module
    spec.loader.exec_module(module)


_ours()
