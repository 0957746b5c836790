"""The TMA-fed wgmma GEMM (benchmarks/wgmma_tma.py) on the CPU interpreter against NumPy, ragged
sizes (rows past m and n, K tiles past k: all zero-filled by the TMA) on fresh random bf16 and
f16 data with NaN-poisoned outputs, both refill schedules; the generated kernel compiles for
sm_90a with its two tensor maps as by-value parameters after its own; every timed variant
passes verify-disjoint; examples/simt/gemm_tma.mlir is the generator's output."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from benchmarks.wgmma import Config, grid
from benchmarks.wgmma_tma import (
    EXAMPLE,
    EXAMPLE_NAME,
    EXAMPLE_VARIANT,
    NAME,
    VARIANTS,
    Variant,
    shared_bytes,
    tma_text,
)
from ferrox.artifact import AbiSlot, TensorMap
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context


def _rounded(x: np.ndarray, dtype: str) -> np.ndarray:
    """`x` rounded to bf16 (by truncation, held as f32: what the interpreter takes for bf16) or
    to f16 (a float16 array)."""
    if dtype == "f16":
        return x.astype(np.float16)
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


@pytest.mark.parametrize(
    "v, m, n, k",
    [
        (Variant(Config(1, 1, 64, 4)), 70, 72, 200),
        (Variant(Config(1, 1, 64, 3), late=False), 64, 64, 512),
        # both warpgroups, two chains each, a 2 x 2 grid ragged in m, n and k; at n = 64 (the
        # interpreter's cost grows with the tile's width, the schedule is the same)
        (Variant(Config(2, 2, 64, 4)), 300, 100, 136),
        (Variant(Config(1, 1, 64, 2), dtype="f16"), 70, 72, 200),  # two stages, 2 rounds + 1
        (Variant(Config(1, 1, 64, 4, pending=2)), 64, 80, 320),
        (Variant(Config(2, 1, 64, 3, unroll=True), late=False), 130, 64, 136),
    ],
    ids=lambda v: v.label if isinstance(v, Variant) else str(v),
)
def test_tma_gemm_matches_numpy(v, m, n, k):
    cfg = v.cfg
    module = parse_module(make_context(), tma_text(v), "gemm_wgmma_tma.mlir")
    rng = np.random.default_rng()
    a = _rounded(rng.uniform(-1, 1, m * k), v.dtype)
    b = _rounded(rng.uniform(-1, 1, n * k), v.dtype)
    c = np.full(m * n, np.nan, np.float32)
    args = [a, b, c, m, n, k]
    run_simt_kernel(
        module, NAME, (*grid(cfg, m, n), 1), (cfg.threads, 1, 1), args, shared_bytes(cfg)
    )
    want = a.reshape(m, k).astype(np.float64) @ b.reshape(n, k).astype(np.float64).T
    np.testing.assert_allclose(c.reshape(m, n), want, rtol=1e-5, atol=1e-4)


def test_tma_gemm_compiles_with_its_maps():
    art = ferrox.compile(tma_text(Config(1, 1, 64, 4)))[NAME]
    assert art.tensor_maps == (
        TensorMap(0, 3, 5, "bf16", (64, 64), 128),
        TensorMap(1, 4, 5, "bf16", (64, 64), 128),
    )
    assert art.abi[-2:] == (AbiSlot.TENSOR_MAP, AbiSlot.TENSOR_MAP)


@pytest.mark.parametrize("v", VARIANTS, ids=lambda v: v.label)
def test_every_timed_variant_passes_verify_disjoint(v):
    module = parse_module(make_context(), tma_text(v), "gemm_wgmma_tma.mlir")
    assert collect(module) == []


def test_the_example_is_the_generators_output():
    assert EXAMPLE.read_text() == tma_text(EXAMPLE_VARIANT, name=EXAMPLE_NAME, host=True)
