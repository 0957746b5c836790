"""The vectorized engine: divergent control flow under lane masks, many lanes per op, and the
thread-by-thread replay when a collective is reached by part of its lanes."""

from __future__ import annotations

import numpy as np

from ferrox.driver.interpreter import run_simt_kernel
from ferrox.driver.interpreter.launch import GROUP_LANES


def test_a_loop_with_a_trip_count_per_lane(kernel):
    # out[g] = 0 + 1 + ... + (g % 37 - 1): every lane leaves the loop at its own iteration.
    text = """
  simt.kernel @tri(%out: !simt.ptr<i32>) unsafe {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c37 = arith.constant 37 : index
    %zero = arith.constant 0 : i32
    %w = simt.thread_index_1d
    %g = simt.witness_value %w : !simt.thread_index<1d>
    %n = arith.remui %g, %c37 : index
    %s = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
      %k32 = arith.index_cast %k : index to i32
      %next = arith.addi %acc, %k32 : i32
      scf.yield %next : i32
    }
    simt.ptr_store %s, %out[%g] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.full(1024, -1, np.int32)
    run_simt_kernel(kernel(text), "tri", (8, 1, 1), (128, 1, 1), [out])
    m = np.arange(1024) % 37
    assert out.tolist() == (m * (m - 1) // 2).tolist()


def test_integer_ops_wrap_and_round_toward_zero_on_every_lane(kernel, rng):
    text = """
  simt.kernel @ops(%a: !simt.ptr<i32>, %b: !simt.ptr<i32>, %out: !simt.ptr<i32>) unsafe {
    %c4 = arith.constant 4 : index
    %t = simt.thread_index_1d
    %i = simt.witness_value %t : !simt.thread_index<1d>
    %x = simt.ptr_load %a[%i] : !simt.ptr<i32>
    %y = simt.ptr_load %b[%i] : !simt.ptr<i32>
    %m = arith.muli %x, %y : i32
    %q = arith.divsi %x, %y : i32
    %r = arith.remsi %x, %y : i32
    %s = arith.shli %x, %y : i32
    %j = arith.muli %i, %c4 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %j1 = arith.addi %j, %c1 : index
    %j2 = arith.addi %j, %c2 : index
    %j3 = arith.addi %j, %c3 : index
    simt.ptr_store %m, %out[%j] : !simt.ptr<i32>
    simt.ptr_store %q, %out[%j1] : !simt.ptr<i32>
    simt.ptr_store %r, %out[%j2] : !simt.ptr<i32>
    simt.ptr_store %s, %out[%j3] : !simt.ptr<i32>
    simt.return
  }
"""
    n = 512
    a = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    b = rng.integers(-40, 40, n).astype(np.int32)
    b[b == 0] = 7
    a[:2], b[:2] = -(2**31), -1  # INT_MIN / -1 wraps to INT_MIN
    out = np.zeros(4 * n, np.int32)
    run_simt_kernel(kernel(text), "ops", (4, 1, 1), (128, 1, 1), [a, b, out])
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.trunc(a64 / b64).astype(np.int64)
    q[:2] = 2**31
    r = a64 - np.trunc(a64 / b64).astype(np.int64) * b64
    shift = b.astype(np.uint32)
    s = np.where(shift >= 32, 0, a.astype(np.uint32) << np.minimum(shift, 31))
    got = out.reshape(n, 4)
    assert got[:, 0].tolist() == (a64 * b64).astype(np.int32).tolist()
    assert got[:, 1].tolist() == q.astype(np.int32).tolist()
    assert got[:, 2].tolist() == r.astype(np.int32).tolist()
    assert got[:, 3].view(np.uint32).tolist() == s.astype(np.uint32).tolist()


def test_a_barrier_in_a_branch_uniform_per_block_runs_blocks_side_by_side(kernel):
    # Only block 0 takes the branch with the barrier; all its threads do, so it is legal, and
    # the group holding several blocks must not call it partial.
    text = """
  simt.kernel @first(%out: !simt.ptr<i32>) unsafe {
    %tile = simt.shared_alloc : !simt.shared<i32, [32]>
    %c0 = arith.constant 0 : index
    %c31 = arith.constant 31 : index
    %t = simt.thread_id x
    %b = simt.block_id x
    %n = simt.block_dim x
    %base = arith.muli %b, %n : index
    %g = arith.addi %base, %t : index
    %t32 = arith.index_cast %t : index to i32
    %zero = arith.cmpi eq, %b, %c0 : index
    %r = scf.if %zero -> (i32) {
      simt.shared_store %t32, %tile[%t] : !simt.shared<i32, [32]>
      simt.sync_threads
      %o = arith.subi %c31, %t : index
      %x = simt.shared_load %tile[%o] : !simt.shared<i32, [32]>
      scf.yield %x : i32
    } else {
      scf.yield %t32 : i32
    }
    simt.ptr_store %r, %out[%g] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.zeros(96, np.int32)
    run_simt_kernel(kernel(text), "first", (3, 1, 1), (32, 1, 1), [out])
    assert out.tolist() == list(range(31, -1, -1)) + list(range(32)) * 2


def test_a_grid_larger_than_a_group_runs_in_several_groups(example, rng):
    n = GROUP_LANES * 2 + 1000
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    run_simt_kernel(example("vecadd"), "vecadd", (-(-n // 256), 1, 1), (256, 1, 1), [a, b, out])
    assert np.array_equal(out, a + b)


def test_a_shuffle_in_a_loop_some_lanes_left_is_replayed_thread_by_thread(kernel):
    # Odd lanes loop twice, even lanes once and return: at the second shuffle only the odd lanes
    # of each warp are live, which is legal, and the even lanes' values are poison by then. The
    # engine cannot run that in lockstep; the replay does, and the atomic before the loop is
    # counted once (the writable arguments are restored before the replay).
    text = """
  simt.kernel @k(%out: !simt.ptr<i32>, %cnt: !simt.ptr<i32>) unsafe {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %t = simt.thread_id x
    %lane = simt.lane_id
    %odd = arith.andi %lane, %c1 : index
    %trips = arith.addi %odd, %c1 : index
    %t32 = arith.index_cast %t : index to i32
    %old = simt.atomic_add %cnt[%c0], %one : !simt.ptr<i32>
    %r = scf.for %k = %c0 to %trips step %c1 iter_args(%acc = %t32) -> (i32) {
      %s = simt.shuffle xor %acc, %one : i32
      %n = arith.addi %acc, %s : i32
      scf.yield %n : i32
    }
    simt.ptr_store %r, %out[%t] : !simt.ptr<i32>
    simt.return
  }
"""
    out, cnt = np.zeros(64, np.int32), np.zeros(1, np.int32)
    run_simt_kernel(kernel(text), "k", (1, 1, 1), (64, 1, 1), [out, cnt])
    t = np.arange(64)
    first = t + (t ^ 1)
    poison = np.int32(-559038737)  # 0xDEADBEEF: what an exited lane's shuffle source holds
    want = np.where(t % 2 == 0, first, (first.astype(np.int32) + poison))
    assert out.tolist() == want.astype(np.int32).tolist()
    assert cnt[0] == 64
