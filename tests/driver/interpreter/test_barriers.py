"""Barriers order the block's threads; a barrier or collective that part of the block or warp never
reaches is a deadlock on the GPU, and the interpreter says who waits where."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ferrox.driver.interpreter import KernelDeadlock, run_simt_kernel

REVERSE = """
  simt.kernel @reverse(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
    %tile = simt.shared_alloc : !simt.shared<f32, [64]>
    %c63 = arith.constant 63 : index
    %t = simt.thread_id x
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %v = simt.load %in[%i] : !simt.slice<f32>
    simt.unsafe {
      simt.shared_store %v, %tile[%t] : !simt.shared<f32, [64]>
      simt.yield
    }
    simt.sync_threads
    %r = arith.subi %c63, %t : index
    %m = simt.unsafe -> f32 {
      %x = simt.shared_load %tile[%r] : !simt.shared<f32, [64]>
      simt.yield %x : f32
    }
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %m : f32
    }
    simt.return
  }
"""


def test_barrier_orders_shared_memory_across_the_block(kernel, rng):
    x = rng.standard_normal(128, dtype=np.float32)
    out = np.full(128, np.nan, np.float32)
    run_simt_kernel(kernel(REVERSE), "reverse", (2, 1, 1), (64, 1, 1), [x, out])
    assert np.array_equal(out, x.reshape(2, 64)[:, ::-1].reshape(-1))


def test_shared_memory_starts_poisoned(kernel):
    text = """
  simt.kernel @peek(%f: !simt.ptr<f32>, %i: !simt.ptr<i32>) unsafe {
    %a = simt.shared_alloc : !simt.shared<f32, [8]>
    %b = simt.shared_alloc : !simt.shared<i32, [8]>
    %t = simt.thread_id x
    %x = simt.shared_load %a[%t] : !simt.shared<f32, [8]>
    %y = simt.shared_load %b[%t] : !simt.shared<i32, [8]>
    simt.ptr_store %x, %f[%t] : !simt.ptr<f32>
    simt.ptr_store %y, %i[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    f, i = np.zeros(8, np.float32), np.zeros(8, np.int32)
    run_simt_kernel(kernel(text), "peek", (1, 1, 1), (8, 1, 1), [f, i])
    assert np.isnan(f).all()
    assert (i.view(np.uint32) == 0xDEADBEEF).all()


def test_shared_arrays_are_per_block(kernel):
    # Each block's thread 0 adds to its own counter: no block sees another's.
    text = """
  simt.kernel @per_block(%out: !simt.ptr<i32>) unsafe {
    %s = simt.shared_alloc : !simt.shared<i32, [1]>
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %t = simt.thread_id x
    %b = simt.block_id x
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      simt.shared_store %zero, %s[%c0] : !simt.shared<i32, [1]>
    }
    simt.sync_threads
    %old = simt.atomic_add %s[%c0], %one scope cta : !simt.shared<i32, [1]>
    simt.sync_threads
    scf.if %first {
      %n = simt.shared_load %s[%c0] : !simt.shared<i32, [1]>
      simt.ptr_store %n, %out[%b] : !simt.ptr<i32>
    }
    simt.return
  }
"""
    out = np.zeros(3, np.int32)
    run_simt_kernel(kernel(text), "per_block", (3, 1, 1), (96, 1, 1), [out])
    assert out.tolist() == [96, 96, 96]


PARTIAL_BARRIER = """
  simt.kernel @partial(%out: !simt.ptr<f32>) unsafe {
    %c2 = arith.constant 2 : index
    %t = simt.thread_id x
    %low = arith.cmpi ult, %t, %c2 : index
    scf.if %low {
      simt.sync_threads
    }
    simt.return
  }
"""


def test_barrier_reached_by_part_of_the_block_is_a_deadlock(kernel):
    before = threading.active_count()
    with pytest.raises(KernelDeadlock) as info:
        run_simt_kernel(
            kernel(PARTIAL_BARRIER), "partial", (1, 1, 1), (4, 1, 1), [np.zeros(1, np.float32)]
        )
    assert str(info.value) == (
        "test.mlir:8:7: error: deadlock: 2 threads (linear ids 2-3; first (2, 0, 0)) of the block "
        "returned while 2 threads (linear ids 0-1; first (0, 0, 0)) still wait; a barrier or warp "
        "collective must be reached by every thread it waits for "
        "(block (0, 0, 0), thread (0, 0, 0))\n"
        "test.mlir:8:7: note: 2 threads (linear ids 0-1; first (0, 0, 0)) wait here at "
        "'simt.sync_threads'"
    )
    assert threading.active_count() == before


def test_threads_at_different_barriers_deadlock(kernel):
    text = """
  simt.kernel @split(%out: !simt.ptr<f32>) unsafe {
    %c1 = arith.constant 1 : index
    %t = simt.thread_id x
    %bit = arith.andi %t, %c1 : index
    %odd = arith.cmpi eq, %bit, %c1 : index
    scf.if %odd {
      simt.sync_threads
    } else {
      simt.sync_threads
    }
    simt.return
  }
"""
    with pytest.raises(KernelDeadlock) as info:
        run_simt_kernel(kernel(text), "split", (1, 1, 2), (8, 1, 1), [np.zeros(1, np.float32)])
    message = str(info.value)
    assert message.startswith(
        "test.mlir:11:7: error: deadlock: the threads of the block wait at different barriers"
    )
    assert "(block (0, 0, 0), thread (0, 0, 0))" in message
    assert (
        "test.mlir:9:7: note: 4 threads (linear ids 1, 3, 5, 7; first (1, 0, 0)) wait here"
        in message
    )
    assert (
        "test.mlir:11:7: note: 4 threads (linear ids 0, 2, 4, 6; first (0, 0, 0)) wait here"
        in message
    )


def test_warp_split_over_two_collectives_deadlocks(kernel):
    text = """
  simt.kernel @split_warp(%out: !simt.ptr<f32>, %v: f32) unsafe {
    %c16 = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %lane = simt.lane_id
    %low = arith.cmpi ult, %lane, %c16 : index
    %r = scf.if %low -> (f32) {
      %a = simt.shuffle xor %v, %one : f32
      scf.yield %a : f32
    } else {
      %b = simt.shuffle down %v, %one : f32
      scf.yield %b : f32
    }
    simt.return
  }
"""
    with pytest.raises(
        KernelDeadlock, match="the lanes of warp 0 wait at 2 different warp collectives"
    ) as info:
        run_simt_kernel(
            kernel(text), "split_warp", (1, 1, 1), (32, 1, 1), [np.zeros(1, np.float32), 1.0]
        )
    assert (
        "note: 16 threads (linear ids 16-31; first (16, 0, 0)) wait here at 'simt.shuffle'"
        in str(info.value)
    )


def test_lanes_at_a_shuffle_waiting_for_lanes_at_a_barrier_deadlock(kernel):
    text = """
  simt.kernel @mixed(%out: !simt.ptr<f32>, %v: f32) unsafe {
    %c16 = arith.constant 16 : index
    %one = arith.constant 1 : i32
    %lane = simt.lane_id
    %low = arith.cmpi ult, %lane, %c16 : index
    scf.if %low {
      %a = simt.shuffle xor %v, %one : f32
    } else {
      simt.sync_threads
    }
    simt.return
  }
"""
    with pytest.raises(
        KernelDeadlock,
        match="lanes wait at a warp collective for lanes of their warp that wait at a barrier",
    ):
        run_simt_kernel(
            kernel(text), "mixed", (1, 1, 1), (32, 1, 1), [np.zeros(1, np.float32), 1.0]
        )


def test_barriers_in_a_uniform_loop_are_fine(kernel):
    # Every thread passes the same barrier op once per iteration: 5 rounds of neighbour sums.
    text = """
  simt.kernel @rounds(%out: !simt.ptr<i32>) unsafe {
    %tile = simt.shared_alloc : !simt.shared<i32, [32]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %c31 = arith.constant 31 : index
    %t = simt.thread_id x
    %t32 = arith.index_cast %t : index to i32
    simt.shared_store %t32, %tile[%t] : !simt.shared<i32, [32]>
    simt.sync_threads
    scf.for %k = %c0 to %c5 step %c1 {
      %n1 = arith.addi %t, %c1 : index
      %n = arith.andi %n1, %c31 : index
      %a = simt.shared_load %tile[%t] : !simt.shared<i32, [32]>
      %b = simt.shared_load %tile[%n] : !simt.shared<i32, [32]>
      %s = arith.addi %a, %b : i32
      simt.sync_threads
      simt.shared_store %s, %tile[%t] : !simt.shared<i32, [32]>
      simt.sync_threads
    }
    %r = simt.shared_load %tile[%t] : !simt.shared<i32, [32]>
    simt.ptr_store %r, %out[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.zeros(32, np.int32)
    run_simt_kernel(kernel(text), "rounds", (1, 1, 1), (32, 1, 1), [out])
    v = np.arange(32)
    for _ in range(5):
        v = v + np.roll(v, -1)
    assert out.tolist() == v.tolist()
