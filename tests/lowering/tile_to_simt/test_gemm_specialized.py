"""The warp-specialised tile GEMM loop (lowering/tile_to_simt/gemm_specialized.py): what the
lowered kernel holds, its PTX through ptxas, and the kernel on the CPU interpreter against NumPy
(the producer and consumer partitions as coroutines that hand over at mbarrier waits)."""

from __future__ import annotations

import numpy as np
import pytest
from tile_gemm import matmul

import ferrox
from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt import gemm_specialized

from .conftest import lower_text, simt_kernel
from .test_gemm_wgmma import _data, assert_product, product_on_interpreter


@pytest.fixture
def specialised(monkeypatch):
    monkeypatch.setattr(gemm_specialized, "WARP_SPECIALIZE", True)


def test_the_loop_splits_into_a_producer_and_two_consumer_warpgroups(specialised):
    kernel = simt_kernel(lower_text(matmul(128, 256, 64, chip="sm_90a")), "mm")
    assert kernel.contract.block_xyz == (384, 1, 1)
    (spec,) = [op for op in kernel.walk() if isinstance(op, simt.SpecializeOp)]
    assert spec.producers == 1 and isinstance(spec.next_op, simt.ReturnOp)
    producer = {op.name for op in spec.producer.walk()}
    consumer = {op.name for op in spec.consumer.walk()}
    assert "simt.tma_load" in producer and "simt.wgmma" not in producer
    assert "simt.wgmma" in consumer and "simt.tma_load" not in consumer
    assert "simt.sync_threads" not in producer
    loop = next(op for op in spec.consumer.walk() if op.name == "scf.for")
    assert "simt.sync_threads" not in {op.name for op in loop.walk()}  # none in the K loop
    assert "simt.store_chunk" in consumer or "simt.unchecked_store_chunk" in consumer


def test_other_tiles_and_the_knob_off_keep_the_default_schedule(monkeypatch):
    kernel = simt_kernel(lower_text(matmul(128, 256, 64, chip="sm_90a")), "mm")
    assert not any(isinstance(op, simt.SpecializeOp) for op in kernel.walk())
    monkeypatch.setattr(gemm_specialized, "WARP_SPECIALIZE", True)
    kernel = simt_kernel(lower_text(matmul(128, 128, 64, chip="sm_90a")), "mm")  # two an SM
    assert not any(isinstance(op, simt.SpecializeOp) for op in kernel.walk())


def test_ptx_splits_registers_and_names_the_consumers_barrier(specialised):
    art = ferrox.compile(matmul(128, 256, 64, el="f16"), chip="sm_90")
    tma = art.ptx  # (the TMA kernel alone: its twin is compiled when a launch needs it)
    assert ".reqntid 384, 1, 1" in tma
    assert "setmaxnreg.dec.sync.aligned.u32 24;" in tma
    assert "setmaxnreg.inc.sync.aligned.u32 240;" in tma
    assert "bar.sync \t1, 256;" in tma
    assert tma.count("bar.sync \t0;") == 1  # after the barriers' init, before the split


@pytest.mark.parametrize(
    "el, tile, mnk, pending",
    [
        ("bf16", (128, 256, 64), (140, 200, 330), 1),  # 6 trips: rounds 0, 1 of 4 stages; 2 x 1
        ("f16", (256, 128, 64), (260, 70, 64), 1),  # one trip, ragged M
        ("bf16", (128, 256, 64), (100, 200, 300), 0),  # each stage retired at once
        ("f16", (128, 256, 64), (130, 260, 520), 2),  # held across rounds; 2 x 2 blocks
    ],
)
def test_interpreter_matches_numpy(specialised, monkeypatch, interpreter, el, tile, mnk, pending):
    monkeypatch.setattr(gemm_specialized, "CONSUMER_PENDING", min(pending, 1))
    monkeypatch.setattr(gemm_specialized, "ACROSS_ROUNDS", pending == 2)
    module = lower_text(matmul(*tile, el=el, chip="sm_90a"))
    assert any(isinstance(op, simt.SpecializeOp) for op in simt_kernel(module, "mm").walk())
    product_on_interpreter(interpreter, module, el, mnk)


def test_interpreter_replays_it_thread_by_thread(specialised, monkeypatch, interpreter):
    """Where a launch is replayed one thread at a time (the cooperative scheduler), each thread
    runs its own region, a wait parks it until another thread completes the phase, and the
    consumers' barrier releases the consumers alone."""
    from ferrox.driver.interpreter import launch
    from ferrox.driver.interpreter.engine import Diverged

    def diverge(*args, **kwargs):
        raise Diverged()

    module = lower_text(matmul(128, 256, 64, el="bf16", chip="sm_90a"))
    rng = np.random.default_rng(3)
    m, n, k = 40, 50, 128
    a, x = _data(rng, (m, k), "bf16")
    b, y = _data(rng, (k, n), "bf16")
    c = np.full((m, n), np.nan, np.float32)
    monkeypatch.setattr(launch, "_run_groups", diverge)  # straight to the replay
    interpreter(module, "mm", [c, a, b])
    assert_product(c, x, y, k)
