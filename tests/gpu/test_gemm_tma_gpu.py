"""examples/simt/gemm_tma.mlir on the GPU against NumPy through the checked launch: ragged sizes
(rows past m and n, K tiles past k, zero-filled by the TMA) on fresh random bf16 data with
NaN-poisoned outputs; and the same kernel with f16 operands (the example's text with its element
type replaced, as `benchmarks/wgmma_tma.py` makes its f16 variant).

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_gemm_tma_gpu.py`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ferrox

pytestmark = pytest.mark.gpu

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "simt" / "gemm_tma.mlir"
BM, BN, THREADS = 256, 128, 256


def _check(torch, kernel, dtype, m, n, k):
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(1 << 31)))
    a = (torch.rand(m, k, device="cuda", generator=g) * 2 - 1).to(dtype)
    b = (torch.rand(n, k, device="cuda", generator=g) * 2 - 1).to(dtype)
    c = torch.full((m, n), float("nan"), device="cuda")
    grid = (-(-m // BM), -(-n // BN))
    kernel[grid, THREADS](a.reshape(-1), b.reshape(-1), c.reshape(-1), m, n, k)
    torch.cuda.synchronize()
    want = a.double().cpu().numpy() @ b.double().cpu().numpy().T
    np.testing.assert_allclose(c.cpu().numpy(), want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("m, n, k", [(1030, 1050, 1000), (256, 128, 64), (1, 8, 8)])
def test_the_example_matches_numpy(torch, m, n, k):
    kernel = ferrox.load(EXAMPLE, device="gpu")["gemm_tma"]
    _check(torch, kernel, torch.bfloat16, m, n, k)


def test_with_f16_operands_it_matches_numpy(torch):
    text = EXAMPLE.read_text().replace("bf16", "f16")
    kernel = ferrox.load(text, device="gpu")["gemm_tma"]
    _check(torch, kernel, torch.float16, 1030, 1050, 1000)
