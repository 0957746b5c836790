"""The tile bf16/f16 matmul on sm_90's TMA + wgmma path (lowering/tile_to_simt/gemm_wgmma.py)
on the GPU: 128 x 128, 256 x 128 and 128 x 256 tiles (k 64), fresh random data, ragged shapes
(not multiples of the tile), outputs poisoned with NaN, checked against NumPy within the f32
summation bound; the same data on the interpreter agrees within the bound too; a tensor whose
rows are not a multiple of 16 bytes, or whose address is not 16-byte aligned (no TMA map can
describe it), runs the kernel's portable twin instead, and matches NumPy too.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_gemm_wgmma_gpu.py`.
"""

from __future__ import annotations

import numpy as np
import pytest
from tile_gemm import matmul, misaligned_operands, within_f32_sum_bound

import ferrox

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("tile", [(128, 128), (256, 128), (128, 256)])
@pytest.mark.parametrize("element", ["bf16", "f16"])
@pytest.mark.parametrize("m, n, k", [(128, 128, 64), (1000, 1048, 1000), (130, 72, 200)])
def test_wgmma_matmul_matches_numpy(torch, tile, element, m, n, k):
    dtype = torch.bfloat16 if element == "bf16" else torch.float16
    kernel = ferrox.load(matmul(tile[0], tile[1], 64, el=element), device="gpu")["mm"]
    a = torch.rand(m, k, device="cuda").sub(0.5).to(dtype)
    b = torch.rand(k, n, device="cuda").sub(0.5).to(dtype)
    c = torch.full((m, n), float("nan"), device="cuda")
    kernel(c, a, b)
    torch.cuda.synchronize()
    x, y = a.float().cpu().numpy(), b.float().cpu().numpy()
    got = c.cpu().numpy()
    assert not np.isnan(got).any()
    assert within_f32_sum_bound(got, x, y)


def test_gpu_and_interpreter_agree_within_the_bound(torch):
    text = matmul(128, 128, 64, el="bf16")
    rng = np.random.default_rng()
    a = ferrox.to_bf16(rng.uniform(-1, 1, (130, 128)))
    b = ferrox.to_bf16(rng.uniform(-1, 1, (128, 136)))
    for device in ("gpu", "cpu"):
        c = np.full((130, 136), np.nan, np.float32)
        ferrox.load(text, device=device)["mm"](c, a, b)
        assert within_f32_sum_bound(c, a.float32(), b.float32())


@pytest.mark.parametrize("m, k, n", [(64, 100, 64), (200, 100, 150), (130, 64, 150)])
def test_rows_off_16_bytes_run_the_portable_twin(torch, m, k, n):
    """No TMA map fits a row that is not a multiple of 16 bytes: the launch runs the kernel's
    portable twin (`@mm__portable`, cp.async + mma.sync) instead, and matches NumPy."""
    module = ferrox.load(matmul(128, 256, 64, el="bf16"), device="gpu")
    assert module["mm"].artifact.tile.portable == "mm__portable"
    a = torch.rand(m, k, device="cuda").sub(0.5).to(torch.bfloat16)
    b = torch.rand(k, n, device="cuda").sub(0.5).to(torch.bfloat16)
    c = torch.full((m, n), float("nan"), device="cuda")
    module["mm"](c, a, b)
    torch.cuda.synchronize()
    got = c.cpu().numpy()
    assert not np.isnan(got).any()
    assert within_f32_sum_bound(got, a.float().cpu().numpy(), b.float().cpu().numpy())


def test_a_misaligned_slice_runs_the_portable_twin(torch):
    """A view starting 2 bytes into its storage: no TMA map (16-byte aligned addresses only)."""
    module = ferrox.load(matmul(128, 128, 64, el="bf16"), device="gpu")
    base = torch.rand(130 * 64 + 1, device="cuda").sub(0.5).to(torch.bfloat16)
    a = base[1:].view(130, 64)
    b = torch.rand(64, 72, device="cuda").sub(0.5).to(torch.bfloat16)
    c = torch.full((130, 72), float("nan"), device="cuda")
    module["mm"](c, a, b)
    torch.cuda.synchronize()
    got = c.cpu().numpy()
    assert not np.isnan(got).any()
    assert within_f32_sum_bound(got, a.float().cpu().numpy(), b.float().cpu().numpy())


def test_only_the_misaligned_launch_takes_the_twin():
    """bf16 DeviceArrays: a slice 2 bytes into its storage runs the twin, an aligned array of
    the same shapes after it runs the TMA kernel (nothing of the twin's launch remembered for
    those shapes), each matching NumPy with its output poisoned."""
    from ferrox.driver.runtime.buffers import DeviceArray

    m, k, n = 130, 64, 72
    a, b, shifted, aligned, y = misaligned_operands(m, k, n)
    kernel = ferrox.load(matmul(128, 128, 64, el="bf16"), device="gpu")["mm"]
    for x in (shifted, aligned, shifted, aligned):
        c = DeviceArray.from_numpy(np.full((m, n), np.nan, np.float32))
        kernel(c, x, y)
        got = c.copy_to_host()
        assert not np.isnan(got).any()
        assert within_f32_sum_bound(got, a.float32(), b.float32())
        assert not kernel[None, None]._kept
