"""The fused attention example's switches for short sequences on the GPU (docs/performance.md,
"Attention at short sequences" and "Attention defaults, fourteenth session"): q by TMA
(`attention_tma.TMA_Q`), the output's staging in slabs (`attention_wgmma.OUTPUT_SLABS`) and the
reciprocal epilogue (`RECIPROCAL`), all on by default since the fourteenth session, against all
three off (the thirteenth session's kernel, kept for A/B timing), at the BM 64 tiles and the
benchmark's, full and causal, ragged sequences, a NaN-poisoned output, against float64 NumPy.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_attention_short_gpu.py`.
"""

from __future__ import annotations

import pytest
from tile_attention_example import load, matches_numpy_on_gpu

from ferrox.lowering.tile_to_simt import attention_tma, attention_wgmma

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


@pytest.mark.parametrize("settings", ["default", "all-off"])
@pytest.mark.parametrize("dim, causal, bm, bn, heads, seq", CASES)
def test_short_sequence_switches_match_numpy(
    torch, monkeypatch, tmp_path, settings, dim, causal, bm, bn, heads, seq
):
    constants = {"D": dim, "CAUSAL": causal, "BM": bm, "BN": bn}
    if settings == "default":
        assert attention_tma.TMA_Q and attention_wgmma.OUTPUT_SLABS == 2
    else:
        monkeypatch.setattr(attention_tma, "TMA_Q", False)
        monkeypatch.setattr(attention_wgmma, "OUTPUT_SLABS", 1)
        constants["RECIPROCAL"] = False
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))  # no other test's entries
    ex = load("tile_attention_short_gpu")  # a fresh copy: its kernel's compile cache empty
    ptx = ex.attention.ptx("sm_90", **constants)
    assert "cp.async.bulk.tensor" in ptx
    # the TMA kernel alone: its portable twin is compiled only when a launch needs it
    assert ".entry attention__portable(" not in ptx
    kernel = ptx[ptx.index(".entry attention(") :]
    assert ("cp.async.commit" in kernel) == (settings == "all-off")  # q by `cp.async`
    matches_numpy_on_gpu(torch, ex, heads, seq, **constants)
