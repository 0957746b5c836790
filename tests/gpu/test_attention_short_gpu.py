"""The fused attention example's switches for short sequences on the GPU (docs/performance.md,
"Attention at short sequences"): q by TMA (`attention_tma.TMA_Q`), the output's staging in
slabs (`exchange_slabs.SLABS`) and the reciprocal epilogue (`RECIPROCAL`), at the BM 64 tiles
and the defaults, full and causal, ragged sequences, a NaN-poisoned output, against float64
NumPy.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_attention_short_gpu.py`.
"""

from __future__ import annotations

import pytest
from tile_attention_example import load, matches_numpy_on_gpu

from ferrox.lowering.tile_to_simt import attention_tma, exchange_slabs

pytestmark = pytest.mark.gpu

CASES = [
    # dim, causal, BM, BN, heads, seq
    (64, True, 64, 64, 2, 777),
    (64, False, 64, 32, 2, 1000),
    (64, True, 128, 64, 2, 300),
    (128, False, 64, 64, 2, 1000),
    (128, True, 64, 32, 2, 777),
    (128, True, 128, 128, 2, 1000),
]


@pytest.mark.parametrize("tma_q, slabs, recip", [(False, 1, False), (True, 2, True)])
@pytest.mark.parametrize("dim, causal, bm, bn, heads, seq", CASES)
def test_short_sequence_switches_match_numpy(
    torch, monkeypatch, tmp_path, tma_q, slabs, recip, dim, causal, bm, bn, heads, seq
):
    monkeypatch.setattr(attention_tma, "TMA_Q", tma_q)
    monkeypatch.setattr(exchange_slabs, "SLABS", slabs)
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))  # no other test's entries
    ex = load("tile_attention_short_gpu")  # a fresh copy: its kernel's compile cache empty
    constants = {"D": dim, "CAUSAL": causal, "BM": bm, "BN": bn, "RECIPROCAL": recip}
    ptx = ex.attention.ptx("sm_90", **constants)
    assert "cp.async.bulk.tensor" in ptx
    matches_numpy_on_gpu(torch, ex, heads, seq, **constants)
