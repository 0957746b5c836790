"""The test run's environment: the installed ferrox first, the tools' one-line diagnostics, and
a kernel cache of the run's own (one per pytest-xdist worker).

The `.mlir` files of tests/filecheck are a lit suite, run by tests/filecheck/test_lit.py.
"""

from __future__ import annotations

import gc
import os
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Tests import the installed ferrox. `python -m pytest` puts the working directory first on
# sys.path, where the checkout's `ferrox/` folder (the core alone: setup.py maps the other root
# folders into the package) would shadow a non-editable install. Drop it before anything imports
# ferrox; an editable install still resolves to the checkout through its own finder.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]
# The same for every Python the tests start (`python -m ferrox.driver.tools.opt`, the console
# scripts): no working directory first on their sys.path either.
os.environ["PYTHONSAFEPATH"] = "1"
# The tools' diagnostics in their one-line form (`file:line:col: error[CODE]: ...`), which the
# tests pin; tests of the human form ask for it (`--error-format=human`).
os.environ["FERROX_ERROR_FORMAT"] = "short"
assert "ferrox" not in sys.modules, "ferrox was imported before tests/conftest.py"


def pytest_configure(config: pytest.Config) -> None:
    """The whole run (and the tools it starts) uses a kernel cache of its own, never the user's:
    a test must not be answered by PTX a different compiler left behind. Under xdist the
    controller makes it and its workers share it (a worker inherits the controller's
    environment): each example is compiled once for the whole run, not once per worker (the
    tensor-core GEMMs take seconds each). The cache is safe for concurrent processes (one
    compiles an entry under its lock, the others read it). Tests that count compiles or hits
    use a folder of their own (`monkeypatch.setenv("FERROX_CACHE_DIR", ...)`)."""
    if "FERROX_CACHE_DIR" not in os.environ:
        import tempfile

        folder = tempfile.mkdtemp(prefix="ferrox-test-cache-")
        os.environ["FERROX_CACHE_DIR"] = folder
        config._ferrox_cache = folder  # type: ignore[attr-defined]
    for name, value in MALLOC.items():
        os.environ.setdefault(name, value)


# glibc's allocator, for the processes the run starts after `pytest_configure` (the xdist
# workers, and the tools they run): freed memory stays in the process for the next array, instead
# of going back to the kernel and being faulted in, page by page, again. The interpreter makes
# and drops NumPy arrays of megabytes (a tile read's steps x lanes of race records) at every op;
# with glibc's defaults (arrays over 128 KiB mapped and unmapped each time, the heap trimmed above
# 128 KiB free) the fused attention's drift tests took 1.1-1.3 million page faults and 2.4-2.9 s
# of system time, with these 49,000 and 0.15-0.24 s (about 20 MB more resident at the peak).
# Allocation only: no result depends on it. Either setting alone made it worse (each one turns
# off glibc's adaptive mmap threshold). A value set already in the environment is kept.
MALLOC = {
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),  # glibc's largest: only arrays over 32 MiB mapped
    "MALLOC_TRIM_THRESHOLD_": str(256 << 20),  # the heap keeps up to 256 MiB free
    "MALLOC_TOP_PAD_": str(16 << 20),  # and grows 16 MiB at a time
}


def pytest_collection_finish(session: pytest.Session) -> None:
    """Python's cyclic collector, less often in the test processes: every 10,000 net
    allocations instead of 700 (the later generations' thresholds as they were). A worker's heap
    grows to hundreds of thousands of objects (the modules the tests compile, parse and run) and
    the collector's passes over it, mostly whole-heap ones, were about a tenth of the CPU of
    tests that lower or interpret outside `compile_module` (which pauses it itself: the walk
    orders, the fused attention's interpreter runs: 3.1 -> 1.5 s of 28 s). A test's garbage is
    all collected; a test that needs a collection at a point asks for it (`gc.collect()`).

    Also: each compile's ptxas run is kept for the tests that then ask ptxas about the same PTX
    (`assembled`, tests/support/compiled.py), and `ferrox-opt` and `parse_source` in the test
    processes parse a text once (tests/support/parsed_once.py)."""
    gc.set_threshold(10_000, *gc.get_threshold()[1:])
    import compiled
    import parsed_once

    compiled.remember_compiles_ptxas()
    parsed_once.install()
    # The imported modules and the collected items, frozen without a collection first (0.47 s
    # of CPU a worker over its whole heap): what garbage the imports and the collection left
    # stays, once.
    gc.freeze()


def _freeze_the_heap() -> None:
    """Collect, then move every object left (all reachable) into the collector's permanent
    generation (`gc.freeze()`), which its passes never visit again. Called after each test
    file's last test (its module fixtures torn down): what is left then is the run's caches of
    parsed, lowered and compiled modules (a worker's heap reached 1-2 million objects), which
    every later whole-heap pass walked again: 93 and 73 such passes, 5.6 and 9.3 s of CPU in the
    two workers of one run, and 29 s of collections in all. Frozen objects are still freed by
    reference counting; only a cycle among them that becomes garbage later stays (memory, not a
    result). Each test's own objects are collected as before, and a test's `gc.collect()` sees
    them all."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    yield
    if nextitem is None or nextitem.path != item.path:
        _freeze_the_heap()


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = getattr(config, "_ferrox_cache", None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


# The suite's longest files, longest first (from `pytest -n 2 --durations`, 2026-12-03): their
# tests go to the front of the collection, so under pytest-xdist (`--dist worksteal`, in
# pyproject.toml) they start first and the run ends on short tests that share out evenly,
# instead of one long test keeping one worker busy while the other sits idle. Order only: every
# test still runs, and a file missing from this list runs where it always did.
LONG_FIRST = (
    "driver/tools/test_new_e2e.py",
    "lowering/tile_to_simt/test_examples.py",
    "frontend/test_jit.py",
    "fuzz/test_fuzz_smoke.py",
    # added 2026-12-04: parse_split's single long test and the fused attention's interpreter
    # cases, which their place in the collection had left to the end of the run
    "test_parse_split.py",
    "lowering/tile_to_simt/test_attention_fused.py",
    "lowering/tile_to_simt/test_attention_wgmma.py",  # added 2026-12-06, its interpreter cases
    "lowering/simt_to_nvvm/test_walk_order.py",
    "targets/test_compile_stages.py",
    "driver/host_runner/test_gpu_backend.py",
    "targets/test_wgmma_target.py",
    "frontend/test_tile_examples.py",
    "frontend/test_examples.py",
    "examples/test_attention.py",
    "targets/test_compile_artifact.py",
    "driver/interpreter/test_wgmma.py",
    "lowering/tile_to_simt/test_dynamic_shared.py",
    "examples/test_tile_examples_interp.py",
    "examples/test_run_simt_examples.py",
    "frontend/test_twins.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {ROOT / "tests" / name: i for i, name in enumerate(LONG_FIRST)}
    last = len(LONG_FIRST)
    items.sort(key=lambda item: rank.get(item.path, last))  # stable: in-file order kept
