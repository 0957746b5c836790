"""16-bit outputs on the GPU: the tile GEMM with C in its inputs' type (TMA + wgmma, and the
portable twin on rows off 16 bytes) and the fused attention example with `OUT_BF16`, on fresh
random data, ragged shapes, NaN-poisoned outputs. Each is compared with the same kernel's f32
output on the same data, rounded once by torch (`.to(bfloat16)`, to nearest even): the sums are
made the same way, so the two must agree bit for bit; and with the peers (cuBLAS through
torch.matmul, SDPA) and NumPy within their tolerances plus the output's own rounding.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_bf16_out_gpu.py`.
"""

from __future__ import annotations

import numpy as np
import pytest
from tile_attention_example import load
from tile_gemm import matmul, within_f32_sum_bound

import ferrox

pytestmark = pytest.mark.gpu


def _gemm(torch, tile, element: str, m: int, n: int, k: int):
    """(C in f32, C in `element`) of the same random operands, each poisoned first."""
    dtype = torch.bfloat16 if element == "bf16" else torch.float16
    a = torch.rand(m, k, device="cuda").sub(0.5).to(dtype)
    b = torch.rand(k, n, device="cuda").sub(0.5).to(dtype)
    out = []
    for kind, out_dtype in (("f32", torch.float32), (element, dtype)):
        kernel = ferrox.load(matmul(*tile, 64, el=element, out=kind), device="gpu")["mm"]
        c = torch.full((m, n), float("nan"), device="cuda", dtype=out_dtype)
        kernel(c, a, b)
        out.append(c)
    torch.cuda.synchronize()
    return a, b, *out


@pytest.mark.parametrize("tile", [(128, 128), (256, 128), (128, 256)])
@pytest.mark.parametrize("element", ["bf16", "f16"])
@pytest.mark.parametrize("m, n, k", [(128, 128, 64), (1000, 1048, 1000), (130, 72, 200)])
def test_wgmma_matmul_16_bit_c_is_the_f32_c_rounded(torch, tile, element, m, n, k):
    a, b, c32, c16 = _gemm(torch, tile, element, m, n, k)
    assert not c16.isnan().any()
    assert torch.equal(c16, c32.to(c16.dtype))  # bit for bit: one rounding of the same sums
    x, y = a.float().cpu().numpy(), b.float().cpu().numpy()
    assert within_f32_sum_bound(c32.cpu().numpy(), x, y)
    peer = (a @ b).float()  # cuBLAS, 16-bit C
    scale = peer.abs().max().item()
    assert (
        c16.float() - peer
    ).abs().max().item() <= 2.0**-6 * scale  # an ulp apart at most, near a tie


@pytest.mark.parametrize("m, k, n", [(64, 100, 64), (200, 100, 150)])
def test_the_portable_twin_rounds_the_same(torch, m, k, n):
    """Rows off 16 bytes (k = 100): the twin (mma.sync) runs, its bf16 C staged in bf16."""
    module = ferrox.load(matmul(128, 256, 64, out="bf16"), device="gpu")
    assert module["mm"].artifact.tile.portable == "mm__portable"
    a, b, c32, c16 = _gemm(torch, (128, 256), "bf16", m, n, k)
    assert not c16.isnan().any()
    assert torch.equal(c16, c32.to(torch.bfloat16))


CASES = [
    # dim, causal, BM, BN, heads, seq
    (64, False, 64, 64, 3, 1000),  # the benchmark's d 64 tile up to 2048 keys
    (64, True, 64, 64, 2, 777),
    (64, True, 128, 64, 2, 1000),  # its d 64 tile past 2048 keys
    (128, False, 128, 128, 2, 1000),  # its d 128 tile
    (128, True, 128, 128, 2, 333),
]


@pytest.mark.parametrize("dim, causal, bm, bn, heads, seq", CASES)
def test_attention_bf16_out_is_the_f32_out_rounded(torch, dim, causal, bm, bn, heads, seq):
    import torch.nn.functional as F

    ex = load("tile_attention_bf16_gpu")
    constants = {"D": dim, "CAUSAL": causal, "BM": bm, "BN": bn}
    q, k, v = (torch.randn(heads, seq, dim, device="cuda").to(torch.bfloat16) for _ in "qkv")
    outs = []
    for bf16_out in (False, True):
        dtype = torch.bfloat16 if bf16_out else torch.float32
        out = torch.full((heads, seq, dim), float("nan"), device="cuda", dtype=dtype)
        ex.attention.on("gpu")(out, q, k, v, OUT_BF16=bf16_out, **constants)
        outs.append(out)
    torch.cuda.synchronize()
    f32_out, bf16_out = outs
    assert not bf16_out.isnan().any()
    assert torch.equal(bf16_out, f32_out.to(torch.bfloat16))
    x, y, z = (t.float().cpu().numpy() for t in (q, k, v))
    got = bf16_out.float().cpu().numpy()
    expected = ex.reference(x, y, z, causal)
    np.testing.assert_allclose(got, expected, rtol=1e-2 + 2.0**-8, atol=1e-2)
    sdpa = F.scaled_dot_product_attention(q, k, v, is_causal=causal).float()
    err = (bf16_out.float() - sdpa).abs().max().item()
    assert err <= 3e-2 + 2.0**-8 * sdpa.abs().max().item()


def test_the_examples_with_a_bf16_output(torch):
    from tile_attention_example import EXAMPLE

    assert load("tile_attention_bf16_main").main("gpu", 2, 300, 128, True, out_bf16=True) == 0
    spec_path = EXAMPLE.parent / "tile_matmul_bf16.py"
    import importlib.util

    spec = importlib.util.spec_from_file_location("tile_matmul_bf16_gpu", spec_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main("gpu", 1000, 1048, 1000, out_bf16=True) == 0
    assert module.main("gpu", 200, 150, 100, out_bf16=True) == 0  # rows off 16 bytes: the twin
