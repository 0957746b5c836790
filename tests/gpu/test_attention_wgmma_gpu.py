"""The fused attention example on sm_90's wgmma path (lowering/tile_to_simt/attention_wgmma.py)
on the GPU: pipelined and synchronous, head dims 64 and 128, tile shapes whose two products
have the same wgmma shape (d 64 x BN 64, d 128 x BN 128: the fourth session's register-A build
was wrong exactly there) and others, full and causal, ragged sequences, fresh random data, a
NaN-poisoned output, checked against float64 NumPy.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_attention_wgmma_gpu.py`.
"""

from __future__ import annotations

import pytest
from tile_attention_example import load, matches_numpy_on_gpu

from ferrox.lowering.tile_to_simt import attention_wgmma

pytestmark = pytest.mark.gpu

CASES = [
    # dim, causal, BM, BN, heads, seq
    (64, False, 128, 64, 3, 1000),  # same shape: m64n64 scores and output
    (64, True, 128, 64, 2, 777),
    (64, True, 64, 64, 2, 300),
    (64, True, 128, 128, 2, 1000),
    (128, False, 128, 64, 2, 1000),
    (128, True, 64, 32, 2, 1000),
    (128, True, 128, 128, 2, 1000),  # same shape: m64n128 scores and output
]


@pytest.mark.parametrize("pipelined", [True, False])
@pytest.mark.parametrize("dim, causal, bm, bn, heads, seq", CASES)
def test_wgmma_attention_matches_numpy(
    torch, monkeypatch, tmp_path, pipelined, dim, causal, bm, bn, heads, seq
):
    monkeypatch.setattr(attention_wgmma, "PIPELINE", pipelined)
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))  # no other test's entries
    ex = load("tile_attention_gpu")  # a fresh copy: its kernel's compile cache empty
    constants = {"D": dim, "CAUSAL": causal, "BM": bm, "BN": bn}
    ptx = ex.attention.ptx("sm_90", **constants)
    assert "wgmma.mma_async" in ptx and ("wait_group.sync.aligned 1" in ptx) == pipelined
    matches_numpy_on_gpu(torch, ex, heads, seq, **constants)
