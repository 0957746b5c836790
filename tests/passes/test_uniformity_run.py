"""Kernels that verify-disjoint now lets through run correctly: a barrier under a condition on the
block id and a shuffle under a condition on the warp id (the uniformity analysis), and two
2d_runtime outputs with different row widths (per-slice widths), on the CPU interpreter, compared
with NumPy on fresh random data with poisoned outputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ferrox

BLOCK = 64
KERNEL = """simt.kernel @flip(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>)
    contract<domain = 1, block = [64], requires = [len(arg0) >= len(arg1)]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  %t = simt.thread_id x
  %b = simt.block_id x
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %one = arith.constant 1 : i32
  %tile = simt.shared_alloc : !simt.shared<f32, [64]>
  %v = simt.load %x[%i] : !simt.slice<f32>
  simt.unsafe {
    simt.shared_store %v, %tile[%t] : !simt.shared<f32, [64]>
    simt.yield
  }
  %parity = arith.remui %b, %c2 : index
  %even = arith.cmpi eq, %parity, %c0 : index
  %r = scf.if %even -> (f32) {
    simt.sync_threads
    %j = arith.subi %c63, %t : index
    %y = simt.unsafe -> f32 {
      %z = simt.shared_load %tile[%j] : !simt.shared<f32, [64]>
      simt.yield %z : f32
    }
    scf.yield %y : f32
  } else {
    scf.yield %v : f32
  }
  %warp = arith.divui %t, %c32 : index
  %first = arith.cmpi eq, %warp, %c0 : index
  %s = scf.if %first -> (f32) {
    %u = simt.shuffle xor %r, %one : f32
    scf.yield %u : f32
  } else {
    scf.yield %r : f32
  }
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %s : f32
  }
  simt.return
}
"""


def expected(x: np.ndarray) -> np.ndarray:
    blocks = x.reshape(-1, BLOCK).copy()
    blocks[0::2] = blocks[0::2, ::-1]  # even blocks: reversed through shared memory
    lanes = np.arange(32) ^ 1
    blocks[:, :32] = blocks[:, lanes]  # the first warp of each block: lanes swapped in pairs
    return blocks.reshape(-1)


@pytest.mark.parametrize("blocks", [1, 2, 5])
def test_barrier_and_shuffle_under_uniform_conditions_run(tmp_path: Path, blocks: int):
    source = tmp_path / "flip.mlir"
    source.write_text(KERNEL)
    flip = ferrox.load(source, device="cpu")["flip"]
    rng = np.random.default_rng(blocks)
    n = blocks * BLOCK
    x = rng.standard_normal(n, dtype=np.float32)
    out = np.full(n, np.nan, np.float32)
    flip[blocks, BLOCK](x, out)
    np.testing.assert_array_equal(out, expected(x))


def test_it_compiles_to_ptx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "flip.mlir"
    source.write_text(KERNEL)
    artifact = ferrox.compile(source)
    assert "bar.sync" in artifact.ptx and "shfl.sync.bfly" in artifact.ptx


TWO_WIDTHS = """simt.kernel @two_widths(%a: !simt.disjoint_slice<f32, 2d_runtime>, %wa: index,
    %b: !simt.disjoint_slice<f32, 2d_runtime>, %wb: index, %x: !simt.slice<f32>)
    contract<domain = 2, block = [16, 16],
             requires = [len(arg4) >= len(arg0), len(arg4) >= len(arg2)]> {
  %xa = simt.index_2d_runtime %wa
  %ia = simt.witness_value %xa : !simt.thread_index<2d_runtime>
  simt.get_mut %a[%xa] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    %v = simt.load %x[%ia] : !simt.slice<f32>
    simt.yield %v : f32
  }
  %xb = simt.index_2d_runtime %wb
  %ib = simt.witness_value %xb : !simt.thread_index<2d_runtime>
  simt.get_mut %b[%xb] : !simt.disjoint_slice<f32, 2d_runtime>, !simt.thread_index<2d_runtime> {
  ^bb0(%old: f32):
    %v = simt.load %x[%ib] : !simt.slice<f32>
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %v, %two : f32
    simt.yield %m : f32
  }
  simt.return
}
"""


def test_two_runtime_widths_run_and_are_checked_per_output(tmp_path: Path):
    source = tmp_path / "two_widths.mlir"
    source.write_text(TWO_WIDTHS)
    kernel = ferrox.load(source, device="cpu")["two_widths"]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(1000, dtype=np.float32)
    a = np.full(20 * 30, np.nan, np.float32)  # 20 rows of 30
    b = np.full(10 * 48, np.nan, np.float32)  # 10 rows of 48
    kernel[(3, 2), (16, 16)](a, 30, b, 48, x)
    np.testing.assert_array_equal(a, x[:600])
    np.testing.assert_array_equal(b, 2 * x[:480])
    with pytest.raises(ferrox.LaunchError) as info:
        kernel[(2, 1), (16, 16)](a, 30, b, 48, x)
    assert info.value.problems == [
        "the grid does not cover %a: grid.y * block.y = 1 * 16 = 16 rows, but len(%a) = 600 at "
        "the row width %wa = 30 needs 20 (grid.y must be at least 2)",
        "the grid does not cover %b: grid.x * block.x = 2 * 16 = 32 columns, but the row width "
        "%wb = 48 needs 48 (grid.x must be at least 3)",
    ]
