"""The TMA-fed wgmma GEMM (benchmarks/wgmma_tma.py) on the CPU interpreter against NumPy, ragged
sizes (rows past m and n, K tiles past k: all zero-filled by the TMA) on fresh random bf16 data
with NaN-poisoned outputs; and the generated kernel compiles for sm_90a with its two tensor maps
as by-value parameters after its own."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from benchmarks.wgmma import Config, grid
from benchmarks.wgmma_tma import CONFIGS, NAME, shared_bytes, tma_text
from ferrox.artifact import AbiSlot, TensorMap
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context


def _bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


@pytest.mark.parametrize(
    "cfg, m, n, k",
    [
        (Config(1, 1, 64, 4), 70, 72, 200),
        (Config(1, 1, 64, 3), 64, 64, 512),
        # both warpgroups, two chains each, a 2 x 2 grid ragged in m, n and k; at n = 64 (the
        # interpreter's cost grows with the tile's width, the schedule is the same)
        (Config(2, 2, 64, 4), 300, 100, 136),
    ],
)
def test_tma_gemm_matches_numpy(cfg, m, n, k):
    module = parse_module(make_context(), tma_text(cfg), "gemm_wgmma_tma.mlir")
    rng = np.random.default_rng()
    a = _bf16(rng.uniform(-1, 1, m * k))
    b = _bf16(rng.uniform(-1, 1, n * k))
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


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.label)
def test_every_timed_config_passes_verify_disjoint(cfg):
    module = parse_module(make_context(), tma_text(cfg), "gemm_wgmma_tma.mlir")
    assert collect(module) == []
