"""SIMT 1 (persistent tile spaces) on the tile GEMM's own persistent kernel
(`gemm_wgmma.PERSISTENT`, lowering/tile_to_simt/persistent.py): the lowered kernel passes
verify-disjoint and the op verifiers, and each edit that would let two blocks (or two
iterations) write one tile is refused (the FileCheck tests pin the same rule on hand-written
kernels: tests/filecheck/dialects/simt/persistent-invalid.mlir)."""

from __future__ import annotations

import pytest
from tile_gemm import lowered_sm90_gemm
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects import simt
from ferrox.dialects.simt.tile_support import schedule_of
from ferrox.lowering.tile_to_simt import gemm_wgmma
from ferrox.passes.verify_disjoint import collect


@pytest.fixture
def kernel(monkeypatch) -> simt.KernelOp:
    monkeypatch.setattr(gemm_wgmma, "PERSISTENT", True)
    return lowered_sm90_gemm()


def _loop(kernel: simt.KernelOp) -> scf.ForOp:
    return next(op for op in kernel.walk() if schedule_of(op) is not None)


def _constant(kernel: simt.KernelOp, value: int):
    c = arith.ConstantOp(IntegerAttr(value, IndexType()))
    Rewriter.insert_op(c, InsertPoint.before(_loop(kernel)))
    return c.result


def _refused(kernel: simt.KernelOp) -> str:
    with pytest.raises(VerifyException) as info:
        kernel.verify()
    return str(info.value)


def test_the_lowered_kernel_passes(kernel):
    kernel.verify()
    assert [d.message for d in collect(kernel)] == []


@pytest.mark.parametrize("bound", [0, 1, 2])  # the start, the tile count, the step
def test_a_forged_bound_of_the_loop_is_refused(kernel, bound):
    loop = _loop(kernel)
    loop.operands[bound] = _constant(kernel, 1)
    assert "must be the induction variable of a persistent loop" in _refused(kernel)


def test_a_witness_of_the_block_id_is_refused(kernel):
    witness = next(op for op in kernel.walk() if isinstance(op, simt.TileIndexOp))
    block = simt.BlockIdOp("x")
    Rewriter.insert_op(block, InsertPoint.before(witness))
    witness.operands[len(witness.operands) - 1] = block.result
    assert "must be the induction variable of a persistent loop" in _refused(kernel)


def test_a_persistent_loop_in_another_is_refused(kernel):
    """The whole kernel body wrapped in a second loop over the same schedule."""
    loop = _loop(kernel)
    schedule = loop.lb.owner
    body = loop.body.block
    outer = scf.ForOp(schedule.first, schedule.count, schedule.step, [], [scf.Block()])
    outer.body.block.add_op(scf.YieldOp())
    Rewriter.insert_op(outer, InsertPoint.before(loop))
    loop.detach()
    outer.body.block.insert_op_before(loop, outer.body.block.last_op)
    assert body.parent_op() is loop
    assert "persistent loops do not nest" in _refused(kernel)
