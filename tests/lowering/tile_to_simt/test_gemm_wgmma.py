"""The tile GEMM main loop on TMA + wgmma (lowering/tile_to_simt/gemm_wgmma.py): which loops and
chips select it, what the PTX holds, and the lowered kernels on the CPU interpreter against
NumPy on fresh random bf16 and f16 data, ragged shapes (m, n, k not multiples of the tile) and a
loop over part of K included, outputs poisoned with NaN."""

from __future__ import annotations

import numpy as np
import pytest
from tile_gemm import matmul
from xdsl.dialects.builtin import f32

import ferrox
from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt.gemm_wgmma import target_chip
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.cache import portable_artifact
from ferrox.targets.toolchain import find_ptxas

from .conftest import lower_text, simt_kernel


def ops(module) -> set[str]:
    return {op.name for op in simt_kernel(module, "mm").walk()}


def test_sm90_selects_wgmma_with_an_mn_major_b():
    module = lower_text(matmul(128, 128, 64, chip="sm_90a"))
    kernel = simt_kernel(module, "mm")
    found = ops(module)
    assert {"simt.wgmma", "simt.tma_load", "simt.mbarrier_wait"} <= found
    assert "simt.mma_sync" not in found and "simt.async_copy" not in found
    wgmmas = [op for op in kernel.walk() if isinstance(op, simt.WgmmaOp)]
    # 2 stages (two blocks an SM) x 4 k16 steps, one m64n128 chain per warpgroup, B's
    # 64-column blocks 64 k apart.
    assert len(wgmmas) == 8 and {op.mn_stride for op in wgmmas} == {64 * 64}
    assert kernel.contract.block_xyz == (256, 1, 1)
    assert 2 * (kernel.contract.shared_bytes.data + 1024) <= 228 * 1024


def test_two_chains_a_warpgroup_and_the_slab_epilogue_fit_shared_memory():
    module = lower_text(matmul(256, 128, 64, chip="sm_90a"))
    kernel = simt_kernel(module, "mm")
    wgmmas = [op for op in kernel.walk() if isinstance(op, simt.WgmmaOp)]
    assert len(wgmmas) == 4 * 4 * 2  # stages x k16 steps x chains
    assert kernel.contract.block_xyz == (256, 1, 1)
    assert kernel.contract.shared_bytes.data <= 227 * 1024


def test_a_128_by_256_tile_gets_4_stages_by_cutting_the_epilogue_on_the_warpgroup():
    module = lower_text(matmul(128, 256, 64, chip="sm_90a"))
    kernel = simt_kernel(module, "mm")
    wgmmas = [op for op in kernel.walk() if isinstance(op, simt.WgmmaOp)]
    assert len(wgmmas) == 4 * 4  # stages x k16 steps, one m64n256 chain a warpgroup
    assert kernel.contract.shared_bytes.data <= 227 * 1024
    staging = [  # the epilogue's f32 array: slabs of 32 rows, not 64
        op.result.type.num_elements
        for op in kernel.walk()
        if isinstance(op, simt.SharedAllocOp) and op.result.type.element_type == f32
    ]
    assert staging == [32 * (256 + 8)]


@pytest.mark.parametrize(
    "chip, shape",
    [("", (128, 128, 64)), ("sm_80", (128, 128, 64)), ("sm_90a", (64, 64, 32))],
)
def test_other_chips_and_shapes_keep_mma_sync(chip, shape):
    found = ops(lower_text(matmul(*shape, chip=chip)))
    assert "simt.mma_sync" in found and "simt.wgmma" not in found


def test_f32_keeps_its_fmas_on_sm90():
    found = ops(lower_text(matmul(64, 64, 64, el="f32", chip="sm_90a")))
    assert "simt.wgmma" not in found and "simt.mma_sync" not in found


def test_target_chip_turns_sm90_into_sm90a_only_for_a_wgmma_loop():
    ctx = make_context()
    hopper = parse_module(ctx, matmul(128, 128, 64), "a.mlir")
    other = parse_module(ctx, matmul(64, 64, 32), "b.mlir")
    assert target_chip(hopper, "sm_90") == "sm_90a"
    assert target_chip(hopper, "sm_80") == "sm_80"
    assert target_chip(other, "sm_90") == "sm_90"


def test_ptx_has_wgmma_and_tensor_loads():
    art = ferrox.compile(matmul(128, 128, 64, el="f16"), chip="sm_90")
    assert art.chip == "sm_90a"
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in art.ptx
    # the TMA kernel alone; its portable twin (mma.sync, for tensors no TMA map fits) apart
    assert "cp.async.bulk.tensor" in art.ptx and "mma.sync" not in art.ptx
    twin = portable_artifact(art, "mm").ptx
    assert "mma.sync" in twin and "cp.async.bulk" not in twin and "wgmma" not in twin
    maps = art.kernels["mm"].tensor_maps
    assert [(m.element, m.box, m.swizzle) for m in maps] == [
        ("f16", (128, 64), 128),
        ("f16", (64, 64), 128),
    ]
    if find_ptxas() is not None:
        assert art.cubin is not None  # ptxas assembled it for sm_90a


def test_ptx_for_another_chip_keeps_mma_sync():
    art = ferrox.compile(matmul(128, 128, 64), chip="sm_80")
    assert art.chip == "sm_80" and "mma.sync" in art.ptx and "wgmma" not in art.ptx


def _data(rng, shape, el):
    x = rng.uniform(-1, 1, shape)
    if el == "bf16":
        bits = ferrox.to_bf16(x)
        return bits, bits.float32()
    h = x.astype(np.float16)
    return h, h.astype(np.float32)


@pytest.mark.parametrize(
    "el, tile, mnk, part",
    [
        ("bf16", (64, 64, 64), (70, 50, 100), False),
        ("f16", (64, 128, 64), (60, 130, 70), False),
        ("bf16", (128, 64, 128), (130, 70, 300), False),
        ("f16", (64, 64, 64), (64, 64, 256), True),
        ("bf16", (128, 256, 64), (140, 270, 130), False),  # slabs cut on the warpgroup bit
    ],
)
def test_interpreter_matches_numpy(interpreter, el, tile, mnk, part):
    bm, bn, bk = tile
    m, n, k = mnk
    module = lower_text(matmul(bm, bn, bk, el=el, chip="sm_90a", part=part))
    assert "simt.wgmma" in ops(module)
    rng = np.random.default_rng()
    a, x = _data(rng, (m, k), el)
    b, y = _data(rng, (k, n), el)
    if part:  # K tiles 1 .. ktiles - 2
        kt = -(-k // bk)
        x, y = x[:, bk : (kt - 1) * bk], y[bk : (kt - 1) * bk, :]
    c = np.full((m, n), np.nan, np.float32)
    interpreter(module, "mm", [c, a, b])
    assert_product(c, x, y, k)


def product_on_interpreter(interpreter, module, el: str, mnk: tuple[int, int, int]) -> None:
    """Kernel `mm` of `module` on fresh random `el` data of `m x k` by `k x n`, into a
    NaN-poisoned output, is the product (`assert_product`)."""
    m, n, k = mnk
    rng = np.random.default_rng()
    a, x = _data(rng, (m, k), el)
    b, y = _data(rng, (k, n), el)
    c = np.full((m, n), np.nan, np.float32)
    interpreter(module, "mm", [c, a, b])
    assert_product(c, x, y, k)


def assert_product(c, x, y, k: int) -> None:
    """`c` is `x @ y` within f32 rounding of `k` sums, nothing left NaN."""
    exact = x.astype(np.float64) @ y.astype(np.float64)
    bound = max(k, 1) * 2.0**-23 * (np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64))
    assert not np.isnan(c).any()
    assert (np.abs(c - exact) <= bound + 1e-30).all(), np.abs(c - exact).max()
