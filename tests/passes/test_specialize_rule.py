"""SIMT 9 on the tile GEMM's own warp-specialised kernel (lowering/tile_to_simt/
gemm_specialized.py): the lowered kernel passes verify-disjoint, and each edit that breaks its
stage hand-off is refused with the rule's diagnostic (the FileCheck tests pin the same rule on a
hand-written kernel: tests/filecheck/passes/verify-disjoint-specialize-invalid.mlir)."""

from __future__ import annotations

import pytest
from tile_gemm import lowered_sm90_gemm
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.rewriter import InsertPoint, Rewriter

from ferrox.dialects import simt
from ferrox.dialects.simt.tma import (
    MbarrierArriveExpectTxOp,
    MbarrierArriveOp,
    MbarrierWaitOp,
)
from ferrox.lowering.tile_to_simt import gemm_specialized
from ferrox.passes.verify_disjoint import collect


@pytest.fixture
def kernel(monkeypatch) -> simt.KernelOp:
    monkeypatch.setattr(gemm_specialized, "WARP_SPECIALIZE", True)
    return lowered_sm90_gemm()


def _split(kernel: simt.KernelOp) -> simt.SpecializeOp:
    return next(op for op in kernel.walk() if isinstance(op, simt.SpecializeOp))


def _messages(kernel: simt.KernelOp) -> list[str]:
    return [d.message for d in collect(kernel)]


def test_the_lowered_kernel_passes(kernel):
    assert _messages(kernel) == []


def test_a_read_before_the_full_wait_is_refused(kernel):
    wait = next(op for op in _split(kernel).consumer.walk() if isinstance(op, MbarrierWaitOp))
    Rewriter.erase_op(wait)
    assert any("outside the consumers' hold of it" in m for m in _messages(kernel))


def test_a_release_before_the_wgmma_retires_is_refused(kernel):
    consumer = _split(kernel).consumer
    arrive = next(op for op in consumer.walk() if isinstance(op, MbarrierArriveOp))
    wait = arrive.prev_op  # the `simt.wgmma_wait {pending = 1}` that retires the stage's group
    assert isinstance(wait, simt.WgmmaWaitOp)
    arrive.detach()
    Rewriter.insert_op(arrive, InsertPoint.before(wait))
    assert any("while a wgmma that reads it may be in flight" in m for m in _messages(kernel))


def test_the_consumers_parity_on_the_empty_barrier_is_refused(kernel):
    wait = next(op for op in _split(kernel).producer.walk() if isinstance(op, MbarrierWaitOp))
    flip = wait.parity.owner
    assert isinstance(flip, arith.XOrIOp)
    wait.operands[2] = flip.lhs  # the round's parity, not flipped
    assert any(
        "the producer's wait on an empty barrier must have parity" in m for m in _messages(kernel)
    )


def test_fewer_bytes_expected_than_loaded_is_refused(kernel):
    expect = next(
        op for op in _split(kernel).producer.walk() if isinstance(op, MbarrierArriveExpectTxOp)
    )
    fewer = arith.ConstantOp(IntegerAttr(1024, IndexType()))
    Rewriter.insert_op(fewer, InsertPoint.before(expect))
    expect.operands[2] = fewer.result
    assert any(
        "the phase must complete exactly when they have landed" in m for m in _messages(kernel)
    )


@pytest.fixture
def across(monkeypatch, kernel) -> simt.KernelOp:
    monkeypatch.setattr(gemm_specialized, "ACROSS_ROUNDS", True)
    return lowered_sm90_gemm()


def _carried_arrive(kernel: simt.KernelOp) -> MbarrierArriveOp:
    return next(
        op
        for op in _split(kernel).consumer.walk()
        if isinstance(op, MbarrierArriveOp) and op.pred is not None
    )


def test_the_stage_held_across_rounds_passes(across):
    assert _carried_arrive(across) is not None
    assert _messages(across) == []


def test_its_release_in_round_0_is_refused(across):
    arrive = _carried_arrive(across)
    true = arith.ConstantOp(IntegerAttr(1, 1))
    Rewriter.insert_op(true, InsertPoint.before(arrive))
    arrive.operands[2] = true.result  # round 0 would free a stage no one used
    assert any("must be on 'iv != 0' of the loop" in m for m in _messages(across))


def test_its_release_without_a_predicate_is_refused(across):
    arrive = _carried_arrive(across)
    plain = MbarrierArriveOp(arrive.barriers, arrive.index)
    Rewriter.replace_op(arrive, plain)
    assert any("frees a stage the consumers do not hold" in m for m in _messages(across))
