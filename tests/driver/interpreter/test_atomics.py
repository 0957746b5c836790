"""Atomics return the old element and are indivisible; their arithmetic is PTX's."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter import KernelFault, KernelRace, run_simt_kernel


def test_atomic_add_returns_each_old_value_once(kernel):
    text = """
  simt.kernel @tickets(%c: !simt.atomic_slice<i32>, %out: !simt.disjoint_slice<i32, 1d>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %old = simt.atomic_add %c[%c0], %one : !simt.atomic_slice<i32>
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, 1d>, !simt.thread_index<1d> {
    ^bb0(%x: i32):
      simt.yield %old : i32
    }
    simt.return
  }
"""
    c, out = np.array([7], np.int32), np.full(200, -1, np.int32)
    run_simt_kernel(kernel(text), "tickets", (2, 1, 1), (100, 1, 1), [c, out])
    assert sorted(out.tolist()) == list(range(7, 207))
    assert c[0] == 207


RMW = """
  simt.kernel @rmw(%c: !simt.atomic_slice<i32>, %olds: !simt.ptr<i32>, %v: i32) unsafe {
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %i2 = arith.constant 2 : index
    %i3 = arith.constant 3 : index
    %i4 = arith.constant 4 : index
    %i5 = arith.constant 5 : index
    %i6 = arith.constant 6 : index
    %i7 = arith.constant 7 : index
    %o0 = simt.atomic_add %c[%i0], %v : !simt.atomic_slice<i32>
    %o1 = simt.atomic_sub %c[%i1], %v scope cta : !simt.atomic_slice<i32>
    %o2 = simt.atomic_min %c[%i2], %v scope sys ordering seq_cst : !simt.atomic_slice<i32>
    %o3 = simt.atomic_max %c[%i3], %v ordering acq_rel : !simt.atomic_slice<i32>
    %o4 = simt.atomic_and %c[%i4], %v : !simt.atomic_slice<i32>
    %o5 = simt.atomic_or %c[%i5], %v : !simt.atomic_slice<i32>
    %o6 = simt.atomic_xor %c[%i6], %v : !simt.atomic_slice<i32>
    %o7 = simt.atomic_exch %c[%i7], %v : !simt.atomic_slice<i32>
    simt.ptr_store %o0, %olds[%i0] : !simt.ptr<i32>
    simt.ptr_store %o1, %olds[%i1] : !simt.ptr<i32>
    simt.ptr_store %o2, %olds[%i2] : !simt.ptr<i32>
    simt.ptr_store %o3, %olds[%i3] : !simt.ptr<i32>
    simt.ptr_store %o4, %olds[%i4] : !simt.ptr<i32>
    simt.ptr_store %o5, %olds[%i5] : !simt.ptr<i32>
    simt.ptr_store %o6, %olds[%i6] : !simt.ptr<i32>
    simt.ptr_store %o7, %olds[%i7] : !simt.ptr<i32>
    simt.return
  }
"""


def test_each_rmw_op(kernel):
    start = np.array([2**31 - 1, -(2**31), 5, -5, 0b1100, 0b1100, 0b1100, 42], np.int32)
    c, olds = start.copy(), np.zeros(8, np.int32)
    run_simt_kernel(kernel(RMW), "rmw", (1, 1, 1), (1, 1, 1), [c, olds, -3])
    assert olds.tolist() == start.tolist()
    assert c.tolist() == [
        2**31 - 4,  # add
        -(2**31) + 3,  # sub of -3 adds 3
        -3,  # signed min
        -3,  # signed max(-5, -3)
        0b1100 & -3,
        0b1100 | -3,
        0b1100 ^ -3,
        -3,
    ]


def test_add_wraps_and_min_is_signed(kernel):
    c, olds = np.array([2**31 - 1, 0, 1, 1, 0, 0, 0, 0], np.int32), np.zeros(8, np.int32)
    run_simt_kernel(kernel(RMW), "rmw", (1, 1, 1), (1, 1, 1), [c, olds, 1])
    assert c[0] == -(2**31)
    c = np.array([0, 0, 7, 7, 0, 0, 0, 0], np.uint32)  # the same bits given unsigned
    run_simt_kernel(kernel(RMW), "rmw", (1, 1, 1), (1, 1, 1), [c, olds, -1])
    assert c[2] == 0xFFFFFFFF and c[3] == 7  # min(7, -1) = -1 signed


def test_cas_only_one_thread_wins(kernel):
    text = """
  simt.kernel @elect(%c: !simt.atomic_slice<i32>, %out: !simt.disjoint_slice<i32, 1d>) {
    %c0 = arith.constant 0 : index
    %five = arith.constant 5 : i32
    %t = simt.thread_id x
    %t32 = arith.index_cast %t : index to i32
    %c100 = arith.constant 100 : i32
    %mine = arith.addi %t32, %c100 : i32
    %old = simt.atomic_cas %c[%c0], %five, %mine : !simt.atomic_slice<i32>
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, 1d>, !simt.thread_index<1d> {
    ^bb0(%x: i32):
      simt.yield %old : i32
    }
    simt.return
  }
"""
    c, out = np.array([5], np.int32), np.zeros(64, np.int32)
    run_simt_kernel(kernel(text), "elect", (1, 1, 1), (64, 1, 1), [c, out])
    winners = [t for t in range(64) if out[t] == 5]
    assert len(winners) == 1
    assert c[0] == 100 + winners[0]
    assert all(out[t] == c[0] for t in range(64) if t != winners[0])


FADD = """
  simt.kernel @fadd(%c: !simt.atomic_slice<f32>, %d: !simt.atomic_slice<f64>, %old: !simt.ptr<f32>, %x: f32, %y: f64) unsafe {
    %c0 = arith.constant 0 : index
    %t = simt.thread_id x
    %o = simt.atomic_add %c[%c0], %x : !simt.atomic_slice<f32>
    %p = simt.atomic_add %d[%c0], %y : !simt.atomic_slice<f64>
    simt.ptr_store %o, %old[%t] : !simt.ptr<f32>
    simt.return
  }
"""


def test_f32_atomic_add_flushes_subnormals_and_f64_keeps_them(kernel):
    tiny = np.float32(1e-39)  # subnormal in f32
    c, d, old = np.array([tiny], np.float32), np.array([1e-310]), np.zeros(1, np.float32)
    run_simt_kernel(kernel(FADD), "fadd", (1, 1, 1), (1, 1, 1), [c, d, old, tiny, 1e-310])
    assert old[0] == tiny  # the old element comes back as it was
    assert c[0] == 0.0  # 1e-39 + 1e-39 = 2e-39 on the CPU; atom.add.f32 flushes inputs and result
    assert d[0] == 2e-310
    c = np.array([-tiny], np.float32)
    run_simt_kernel(kernel(FADD), "fadd", (1, 1, 1), (1, 1, 1), [c, d, old, np.float32(-0.0), 0.0])
    assert c[0] == 0.0 and np.signbit(c[0])  # sign-preserving zero


def test_f32_atomic_add_rounds_to_f32(kernel):
    # Each thread keeps its own old value (one shared element would be a write-write race).
    c, d, old = np.array([1.0], np.float32), np.zeros(1), np.zeros(64, np.float32)
    run_simt_kernel(
        kernel(FADD), "fadd", (1, 1, 1), (64, 1, 1), [c, d, old, np.float32(2**-24), 0.0]
    )
    assert c[0] == 1.0  # each 1 + 2^-24 rounds back to 1 (ties to even)


CTA = """
  simt.kernel @narrow(%c: !simt.atomic_slice<i32>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %old = simt.atomic_add %c[%c0], %one scope cta : !simt.atomic_slice<i32>
    simt.return
  }
"""


def test_cta_scope_is_exact_within_a_block(kernel):
    c = np.zeros(1, np.int32)
    run_simt_kernel(kernel(CTA), "narrow", (1, 1, 1), (128, 1, 1), [c])
    assert c[0] == 128


def test_cta_scope_on_global_memory_across_blocks_is_a_race(kernel):
    c = np.zeros(1, np.int32)
    with pytest.raises(KernelRace) as info:
        run_simt_kernel(kernel(CTA), "narrow", (2, 1, 1), (4, 1, 1), [c])
    assert str(info.value).startswith(
        "test.mlir:6:5: error: element 0 of %c is updated by block 0 and this block, but "
        "'scope cta' makes an atomic indivisible only within one block; use scope gpu "
        "(block (1, 0, 0), thread (0, 0, 0))"
    )


def test_no_float_min_atomic(kernel):
    text = """
  simt.kernel @fmin(%c: !simt.atomic_slice<f32>, %x: f32) {
    %c0 = arith.constant 0 : index
    %old = simt.atomic_min %c[%c0], %x : !simt.atomic_slice<f32>
    simt.return
  }
"""
    with pytest.raises(KernelFault, match="there is no PTX float min/max atomic"):
        run_simt_kernel(kernel(text), "fmin", (1, 1, 1), (1, 1, 1), [np.zeros(1, np.float32), 1.0])


def test_atomics_on_shared_memory(kernel):
    text = """
  simt.kernel @shared_count(%out: !simt.ptr<i32>) unsafe {
    %s = simt.shared_alloc : !simt.shared<i32, [2, 2]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %one = arith.constant 1 : i32
    %t = simt.thread_id x
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      simt.shared_store %zero, %s[%c1, %c0] : !simt.shared<i32, [2, 2]>
    }
    simt.sync_threads
    %old = simt.atomic_add %s[%c1, %c0], %one scope cta : !simt.shared<i32, [2, 2]>
    simt.ptr_store %old, %out[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.zeros(32, np.int32)
    run_simt_kernel(kernel(text), "shared_count", (1, 1, 1), (32, 1, 1), [out])
    assert sorted(out.tolist()) == list(range(32))


def test_float_atomic_adds_return_the_old_values_of_launch_order(kernel, rng):
    # 1024 threads add into one f32 element: each gets the sum of the threads before it in
    # launch order (block-major, then linear id), rounded to f32 at every step.
    text = """
  simt.kernel @acc(%c: !simt.atomic_slice<f32>, %x: !simt.ptr<f32>, %old: !simt.ptr<f32>) unsafe {
    %c0 = arith.constant 0 : index
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %v = simt.ptr_load %x[%i] : !simt.ptr<f32>
    %o = simt.atomic_add %c[%c0], %v : !simt.atomic_slice<f32>
    simt.ptr_store %o, %old[%i] : !simt.ptr<f32>
    simt.return
  }
"""
    x = rng.standard_normal(1024, dtype=np.float32)
    c, old = np.array([0.5], np.float32), np.full(1024, np.nan, np.float32)
    run_simt_kernel(kernel(text), "acc", (4, 1, 1), (256, 1, 1), [c, x, old])
    total, want = np.float32(0.5), []
    for v in x:
        want.append(total)
        total = np.float32(total + v)
    assert old.tolist() == want and c[0] == total
