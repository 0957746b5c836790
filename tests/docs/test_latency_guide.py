"""The examples of docs/latency.md: a compile's miss, hit and forced compile through the kernel
cache, and a loop of launches on NumPy arrays (on the GPU where there is one, else on the CPU
interpreter; each checked in full)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import ferrox
from ferrox.targets import cache

ROOT = Path(__file__).resolve().parents[2]


def test_a_hit_parses_nothing_and_cache_false_compiles(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(ROOT)
    parsed: list[str] = []
    parse = cache._parse
    monkeypatch.setattr(
        cache, "_parse", lambda text, name: parsed.append(name) or parse(text, name)
    )
    # doc:begin cache
    first = ferrox.compile("examples/simt/vecadd.mlir")  # a miss: parsed, compiled, stored
    again = ferrox.compile("examples/simt/vecadd.mlir")  # a hit: read back, nothing parsed
    fresh = ferrox.compile("examples/simt/vecadd.mlir", cache=False)  # compiled again
    assert again.ptx == first.ptx == fresh.ptx
    # doc:end
    assert len(parsed) == 2  # the miss and the forced compile; the hit parsed nothing
    assert cache.cache_usage(tmp_path)[0] == 1  # one entry, the miss's


def test_a_relaunch_of_the_same_shapes_computes_each_result(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    monkeypatch.chdir(ROOT)
    rng = np.random.default_rng()
    # doc:begin relaunch
    vecadd = ferrox.load("examples/simt/vecadd.mlir")["vecadd"]  # the GPU, else the CPU
    launch = vecadd[4, 256]  # kept: a loop looks its grid and block up once
    for _ in range(3):  # NumPy arrays: each call checked in full (device data takes the memo)
        a, b = rng.standard_normal(1000, np.float32), rng.standard_normal(1000, np.float32)
        out = np.full(1000, np.nan, np.float32)
        launch(a, b, out)
        assert np.array_equal(out, a + b)
    # doc:end
