"""Witnesses: which thread owns which element, and `get_mut` running only in bounds."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter import KernelRace, run_simt_kernel

FILL_2D = """
  simt.kernel @fill(%out: !simt.disjoint_slice<i32, 2d<5>>) {
    %c100 = arith.constant 100 : index
    %w = simt.index_2d : !simt.thread_index<2d<5>>
    %bx = simt.block_id x
    %by = simt.block_id y
    %tx = simt.thread_id x
    %ty = simt.thread_id y
    %dx = simt.block_dim x
    %dy = simt.block_dim y
    %x0 = arith.muli %bx, %dx : index
    %y0 = arith.muli %by, %dy : index
    %col = arith.addi %x0, %tx : index
    %row = arith.addi %y0, %ty : index
    %r100 = arith.muli %row, %c100 : index
    %v = arith.addi %r100, %col : index
    %v32 = arith.index_cast %v : index to i32
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, 2d<5>>, !simt.thread_index<2d<5>> {
    ^bb0(%old: i32):
      simt.yield %v32 : i32
    }
    simt.return
  }
"""


def test_index_2d_columns_past_the_stride_own_nothing(kernel):
    # 8 columns of threads over rows of 5: columns 5-7 would alias the next row's 0-2.
    out = np.full(22, -1, np.int32)
    run_simt_kernel(kernel(FILL_2D), "fill", (1, 2, 1), (8, 2, 1), [out])
    rows, cols = np.divmod(np.arange(20), 5)
    assert out[:20].tolist() == (rows * 100 + cols).tolist()
    assert out[20:].tolist() == [-1, -1]  # no row 4 in the grid


def test_index_2d_rows_past_the_length_own_nothing(kernel):
    out = np.full(12, -1, np.int32)  # 2 full rows and 2 elements of a third
    run_simt_kernel(kernel(FILL_2D), "fill", (1, 2, 1), (8, 2, 1), [out])
    assert out.tolist() == [0, 1, 2, 3, 4, 100, 101, 102, 103, 104, 200, 201]


def test_index_2d_runtime_width_is_a_parameter(kernel):
    text = """
  simt.kernel @fill_rt(%out: !simt.disjoint_slice<index, 2d_runtime>, %width: index) {
    %w = simt.index_2d_runtime %width
    %raw = simt.witness_value %w : !simt.thread_index<2d_runtime>
    simt.get_mut %out[%w] : !simt.disjoint_slice<index, 2d_runtime>, !simt.thread_index<2d_runtime> {
    ^bb0(%old: index):
      simt.yield %raw : index
    }
    simt.return
  }
"""
    out = np.full(3 * 6, -1, np.int64)
    run_simt_kernel(kernel(text), "fill_rt", (2, 2, 1), (4, 2, 1), [out, 6])
    assert out.tolist() == list(range(18))
    out = np.full(4, -1, np.int64)
    run_simt_kernel(
        kernel(text), "fill_rt", (1, 1, 1), (4, 2, 1), [out, 0]
    )  # width 0: no column is inside
    assert out.tolist() == [-1] * 4


WARP = """
  simt.kernel @per_warp(%out: !simt.disjoint_slice<index, warp>, %all: !simt.ptr<index>) {
    %w = simt.warp_index
    %raw = simt.witness_value %w : !simt.thread_index<warp>
    %bx = simt.block_id x
    %dx = simt.block_dim x
    %tx = simt.thread_id x
    %b0 = arith.muli %bx, %dx : index
    %gid = arith.addi %b0, %tx : index
    simt.unsafe {
      simt.ptr_store %raw, %all[%gid] : !simt.ptr<index>
      simt.yield
    }
    simt.get_mut %out[%w] : !simt.disjoint_slice<index, warp>, !simt.thread_index<warp> {
    ^bb0(%old: index):
      simt.yield %gid : index
    }
    simt.return
  }
"""


def test_warp_witness_belongs_to_lane_0_only(kernel):
    out, raws = np.full(6, -1, np.int64), np.full(128, -1, np.int64)
    run_simt_kernel(kernel(WARP), "per_warp", (2, 1, 1), (64, 1, 1), [out, raws])
    assert out.tolist() == [0, 32, 64, 96, -1, -1]  # written by global threads 0, 32, 64, 96
    assert raws.tolist() == [t // 32 for t in range(128)]  # every lane reads its warp's index


def test_region_does_not_run_out_of_bounds(example, rng):
    # Threads 100-255 hold out-of-bounds witnesses: their region's loads would trap if it ran.
    a, b = rng.standard_normal(100, dtype=np.float32), rng.standard_normal(100, dtype=np.float32)
    out = np.full(100, np.nan, np.float32)
    run_simt_kernel(example("vecadd"), "vecadd", (1, 1, 1), (256, 1, 1), [a, b, out])
    assert np.array_equal(out, a + b)


def test_region_receives_the_old_element(kernel):
    text = """
  simt.kernel @bump(%out: !simt.disjoint_slice<i32, 1d>) {
    %one = arith.constant 1 : i32
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<i32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: i32):
      %new = arith.addi %old, %one : i32
      simt.yield %new : i32
    }
    simt.return
  }
"""
    out = np.arange(10, dtype=np.int32)
    run_simt_kernel(kernel(text), "bump", (1, 1, 1), (16, 1, 1), [out])
    assert out.tolist() == list(range(1, 11))


def test_1d_witness_on_a_2d_launch_is_a_race(kernel):
    # Without a contract nothing stops this launch; threads (x, 0) and (x, 1) own the same element.
    text = """
  simt.kernel @flat(%out: !simt.disjoint_slice<f32, 1d>, %v: f32) {
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %v : f32
    }
    simt.return
  }
"""
    with pytest.raises(KernelRace) as info:
        run_simt_kernel(kernel(text), "flat", (1, 1, 1), (4, 2, 1), [np.zeros(4, np.float32), 1.0])
    assert str(info.value) == (
        "test.mlir:5:5: error: element 0 of %out is written by two threads (global thread 0 before "
        "this one): the launch does not fit the witness's index space "
        "(block (0, 0, 0), thread (0, 1, 0))"
    )
