"""Out-of-range accesses trap with the op's location and the faulting thread; nothing reads wild."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ferrox.driver.interpreter import KernelTrap, run_simt_kernel

SHIFTED_LOAD = """
  simt.kernel @shifted(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
    %c1 = arith.constant 1 : index
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %j = arith.addi %i, %c1 : index
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %v = simt.load %x[%j] : !simt.slice<f32>
      simt.yield %v : f32
    }
    simt.return
  }
"""


def test_shared_slice_load_out_of_range_traps_with_location(kernel):
    x = np.arange(4, dtype=np.float32)
    out = np.full(4, np.nan, dtype=np.float32)
    with pytest.raises(KernelTrap) as info:
        run_simt_kernel(kernel(SHIFTED_LOAD), "shifted", (1, 1, 1), (4, 1, 1), [x, out])
    e = info.value
    assert str(e) == (
        "test.mlir:10:7: error: simt.load out of range: index 4 of %x (length 4) "
        "(block (0, 0, 0), thread (3, 0, 0))"
    )
    assert (str(e.location), e.block, e.thread) == ("test.mlir:10:7", (0, 0, 0), (3, 0, 0))
    assert e.op.name == "simt.load"
    # The threads run in lockstep, as a warp does: the trap at the load stops all four before
    # the region's write, so nothing was written.
    assert np.isnan(out).all()


def test_negative_index_is_a_huge_unsigned_one(kernel):
    text = """
  simt.kernel @neg(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
    %m1 = arith.constant -1 : index
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %v = simt.load %x[%m1] : !simt.slice<f32>
      simt.yield %v : f32
    }
    simt.return
  }
"""
    x, out = np.zeros(2, np.float32), np.zeros(2, np.float32)
    with pytest.raises(KernelTrap, match=r"index 18446744073709551615 of %x \(length 2\)"):
        run_simt_kernel(kernel(text), "neg", (1, 1, 1), (2, 1, 1), [x, out])


RAW = """
  simt.kernel @raw(%src: !simt.ptr<f32>, %dst: !simt.ptr<f32>, %off: index) unsafe {
    %t = simt.thread_id x
    %i = arith.addi %t, %off : index
    %v = simt.ptr_load %src[%i] : !simt.ptr<f32>
    simt.ptr_store %v, %dst[%t] : !simt.ptr<f32>
    simt.return
  }
"""


def test_raw_pointer_read_past_the_array_traps(kernel):
    src, dst = np.arange(8, dtype=np.float32), np.full(8, np.nan, np.float32)
    run_simt_kernel(kernel(RAW), "raw", (1, 1, 1), (4, 1, 1), [src, dst, 4])
    assert dst[:4].tolist() == [4, 5, 6, 7]
    with pytest.raises(KernelTrap) as info:
        run_simt_kernel(kernel(RAW), "raw", (1, 1, 1), (4, 1, 1), [src, dst, 5])
    assert "simt.ptr_load (unchecked on the GPU) out of range: index 8 of %src (length 8)" in str(
        info.value
    )
    assert info.value.thread == (3, 0, 0)


def test_raw_pointer_write_past_the_array_traps(kernel):
    src, dst = np.arange(8, dtype=np.float32), np.full(3, np.nan, np.float32)
    with pytest.raises(
        KernelTrap, match=r"test.mlir:7:5: error: simt.ptr_store .* index 3 of %dst \(length 3\)"
    ):
        run_simt_kernel(kernel(RAW), "raw", (1, 1, 1), (4, 1, 1), [src, dst, 0])


def test_shared_index_is_checked_per_dimension(kernel):
    # [0, 4] is flat element 4 of a 4x4 tile, inside the allocation: the GPU would read row 1.
    text = """
  simt.kernel @tile(%out: !simt.ptr<f32>) unsafe {
    %t = simt.shared_alloc : !simt.shared<f32, [4, 4]>
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %v = simt.shared_load %t[%c0, %c4] : !simt.shared<f32, [4, 4]>
    simt.ptr_store %v, %out[%c0] : !simt.ptr<f32>
    simt.return
  }
"""
    with pytest.raises(
        KernelTrap, match=r"simt.shared_load out of range: index \[0, 4\] of %t \(shape \[4, 4\]\)"
    ):
        run_simt_kernel(kernel(text), "tile", (1, 1, 1), (1, 1, 1), [np.zeros(1, np.float32)])


def test_atomic_out_of_range_traps(kernel):
    text = """
  simt.kernel @count(%c: !simt.atomic_slice<i32>) {
    %one = arith.constant 1 : i32
    %t = simt.thread_id x
    %old = simt.atomic_add %c[%t], %one : !simt.atomic_slice<i32>
    simt.return
  }
"""
    c = np.zeros(2, np.int32)
    with pytest.raises(
        KernelTrap, match=r"simt.atomic_add out of range: index 2 of %c \(length 2\)"
    ):
        run_simt_kernel(kernel(text), "count", (1, 1, 1), (4, 1, 1), [c])
    assert c.tolist() == [1, 1]


def test_integer_division_by_zero_traps(kernel):
    text = """
  simt.kernel @div(%out: !simt.ptr<i32>, %d: i32) unsafe {
    %c0 = arith.constant 0 : index
    %c7 = arith.constant 7 : i32
    %q = arith.divui %c7, %d : i32
    simt.ptr_store %q, %out[%c0] : !simt.ptr<i32>
    simt.return
  }
"""
    out = np.zeros(1, np.int32)
    run_simt_kernel(kernel(text), "div", (1, 1, 1), (1, 1, 1), [out, 2])
    assert out[0] == 3
    with pytest.raises(
        KernelTrap, match=r"test.mlir:6:5: error: integer division by zero in 'arith.divui'"
    ):
        run_simt_kernel(kernel(text), "div", (1, 1, 1), (1, 1, 1), [out, 0])


def test_trap_after_a_barrier_ends_the_launch_and_its_threads(kernel):
    text = """
  simt.kernel @late(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) {
    %c1 = arith.constant 1 : index
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    %j = arith.addi %i, %c1 : index
    simt.sync_threads
    %v = simt.load %x[%j] : !simt.slice<f32>
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
    simt.return
  }
"""
    before = threading.active_count()
    x, out = np.zeros(64, np.float32), np.zeros(64, np.float32)
    with pytest.raises(KernelTrap) as info:
        run_simt_kernel(kernel(text), "late", (1, 1, 1), (64, 1, 1), [x, out])
    assert info.value.thread == (63, 0, 0) and "index 64 of %x" in str(info.value)
    assert threading.active_count() == before


UNCHECKED_CHUNK = """
  simt.kernel @chunks(%x: !simt.slice<f32>, %dst: !simt.ptr<f32>, %off: index) unsafe {
    %c4 = arith.constant 4 : index
    %t = simt.thread_id x
    %s = arith.muli %t, %c4 : index
    %i = arith.addi %s, %off : index
    %a, %b, %c, %d = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32, f32
    %v = arith.addf %a, %d : f32
    simt.ptr_store %v, %dst[%t] : !simt.ptr<f32>
    simt.return
  }
"""


def test_an_unchecked_chunk_past_the_array_or_misaligned_traps(kernel):
    """The whole-tile path's unchecked vector loads: the interpreter checks what the lowering's
    one test promised, the chunk inside the slice and its address a multiple of its size."""
    x, dst = np.arange(16, dtype=np.float32), np.full(4, np.nan, np.float32)
    run_simt_kernel(kernel(UNCHECKED_CHUNK), "chunks", (1, 1, 1), (4, 1, 1), [x, dst, 0])
    assert dst.tolist() == [3, 11, 19, 27]
    with pytest.raises(KernelTrap) as info:
        run_simt_kernel(kernel(UNCHECKED_CHUNK), "chunks", (1, 1, 1), (4, 1, 1), [x, dst, 4])
    assert str(info.value) == (
        "test.mlir:8:5: error: simt.unchecked_load_chunk out of range: elements 16 to 19 of %x "
        "(length 16) (block (0, 0, 0), thread (3, 0, 0))"
    )
    with pytest.raises(KernelTrap) as info:
        run_simt_kernel(kernel(UNCHECKED_CHUNK), "chunks", (1, 1, 1), (2, 1, 1), [x, dst, 1])
    assert str(info.value) == (
        "test.mlir:8:5: error: simt.unchecked_load_chunk at element 1 of %x: the address is not "
        "a multiple of 16 bytes (block (0, 0, 0), thread (0, 0, 0))"
    )
