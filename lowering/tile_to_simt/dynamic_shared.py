"""Shared memory beyond the 48 KiB a block may declare statically: when a tile kernel's lowering
needs more, every shared array it made becomes dynamic (`simt.shared_alloc {dynamic}`, laid out
one after another in the block's dynamic shared memory) and the kernel's launch contract asks
for their bytes (`shared_bytes`). The runtime opts the kernel in to that much at load
(`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`) and the launch checker refuses a launch that
needs more than the device allows per block (227 KiB on an H100/H200), with both figures.

Kernels within 48 KiB keep static arrays, so their contracts and PTX do not change.
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr

from ferrox.dialects import simt
from ferrox.dialects.simt.contract import LaunchContractAttr
from ferrox.dialects.simt.shared import STATIC_SHARED_LIMIT, dynamic_layout
from ferrox.passes.disjoint.common import type_test, walk


def place(kernel: simt.KernelOp, shared_bytes: int) -> None:
    """Make `kernel`'s shared arrays dynamic when they take more than the static limit."""
    if shared_bytes <= STATIC_SHARED_LIMIT:
        return
    ops = walk(kernel)
    for op in ops:
        if _is_alloc(op):
            op.properties["dynamic"] = UnitAttr()
    _, total = dynamic_layout(kernel, ops)
    c = kernel.contract
    assert c is not None and c.shared_bytes.data == 0
    kernel.contract = LaunchContractAttr(
        c.domain.data, c.block_shape, total, c.min_cc.data, c.requires.data
    )


_is_alloc = type_test(simt.SharedAllocOp)

__all__ = ["place"]
