"""The tile lowering's wgmma GEMM asks for 1024-byte aligned stages (`{align = 1024}`), so every
array a TMA load fills and a wgmma reads starts on a 1024-byte boundary of the dynamic layout."""

from __future__ import annotations

import pytest

from ferrox.dialects import simt
from ferrox.dialects.simt.tma import TmaLoadOp

from .conftest import lower_text, simt_kernel
from .test_gemm_wgmma import matmul


@pytest.mark.parametrize(("bm", "bn"), [(128, 128), (256, 128), (64, 64)])
def test_every_swizzled_stage_is_1024_byte_aligned(bm, bn):
    kernel = simt_kernel(lower_text(matmul(bm, bn, 64, chip="sm_90a")), "mm")
    stages = {op.tile.owner for op in kernel.walk() if isinstance(op, TmaLoadOp)}
    stages |= {
        array.owner
        for op in kernel.walk()
        if isinstance(op, simt.WgmmaOp)
        for array in (op.a, op.b)
    }
    assert stages and all(isinstance(op, simt.SharedAllocOp) for op in stages)
    assert {op.alignment for op in stages} == {1024}
    offsets, total = simt.dynamic_layout(kernel)
    assert all(op in offsets and offsets[op] % 1024 == 0 for op in stages)
    assert kernel.contract is not None and kernel.contract.shared_bytes.data == total
