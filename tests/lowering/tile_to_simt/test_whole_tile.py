# ruff: noqa: E501  (the embedded MLIR kernels keep their lines whole)
"""The whole-tile fast path of tile loads and stores (`lowering/tile_to_simt/memory.py`,
docs/safety.md "the whole-tile fast path"): a tile wholly inside its tensor and slice, with an
aligned base and rows, is read and written by unchecked vector chunk ops under one test a tile;
any other tile takes the masked path. Kernels run on the interpreter (outputs poisoned first)
at shapes where some tiles are whole and some ragged, and must agree with NumPy; the
interpreter checks each unchecked access's range, alignment and ownership, so a wrong fast path
fails here. The count of unchecked accesses shows which path ran."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ferrox.dialects import simt
from ferrox.driver.interpreter.simt_ops import tile_support as interp
from ferrox.passes.verify_disjoint import collect

rng = np.random.default_rng(20261203)

SOFTMAX = """
tile.kernel @softmax(%out: !tile.partition<f32, [4, 256]>, %x: !tile.tensor<f32, [?, ?]>) {
  %t = tile.load_like %x, %out padding = neg_inf : !tile.tensor<f32, [?, ?]>, !tile.partition<f32, [4, 256]> -> !tile.tile<f32, [4, 256]>
  %max = tile.reduce_max %t axis = 1 keepdims : !tile.tile<f32, [4, 256]> -> !tile.tile<f32, [4, 1]>
  %maxb = tile.broadcast %max : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 256]>
  %shifted = tile.sub %t, %maxb : !tile.tile<f32, [4, 256]>
  %e = tile.exp %shifted : !tile.tile<f32, [4, 256]>
  %sum = tile.reduce_sum %e axis = 1 keepdims : !tile.tile<f32, [4, 256]> -> !tile.tile<f32, [4, 1]>
  %sumb = tile.broadcast %sum : !tile.tile<f32, [4, 1]> -> !tile.tile<f32, [4, 256]>
  %r = tile.div %e, %sumb : !tile.tile<f32, [4, 256]>
  tile.store %r, %out : !tile.tile<f32, [4, 256]>, !tile.partition<f32, [4, 256]>
  tile.return
}
"""

# Each block owns 16 rows and walks them in [16, 64] tiles: whole tiles inside, ragged ones at
# the right and bottom edges; the [16] output has fewer chunks than threads.
ROW_SUM = """
tile.kernel @row_sum(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %n = tile.dim %x, 1 : !tile.tensor<f32, [?, ?]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %tiles = arith.ceildivui %n, %c64 : index
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [16]>
  %sum = scf.for %j = %c0 to %tiles step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [16]>) {
    %t = tile.load %x[%i, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 64]>
    %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 64]> -> !tile.tile<f32, [16]>
    %next = tile.add %acc, %s : !tile.tile<f32, [16]>
    scf.yield %next : !tile.tile<f32, [16]>
  }
  tile.store %sum, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
"""

# A 3-D copy plus one (f16: 8-element chunks).
COPY3 = """
tile.kernel @copy3(%out: !tile.partition<f16, [2, 4, 32]>, %x: !tile.tensor<f16, [?, ?, ?]>) {
  %t = tile.load_like %x, %out : !tile.tensor<f16, [?, ?, ?]>, !tile.partition<f16, [2, 4, 32]> -> !tile.tile<f16, [2, 4, 32]>
  %one = tile.constant dense<1.0> : !tile.tile<f16, [2, 4, 32]>
  %r = tile.add %t, %one : !tile.tile<f16, [2, 4, 32]>
  tile.store %r, %out : !tile.tile<f16, [2, 4, 32]>, !tile.partition<f16, [2, 4, 32]>
  tile.return
}
"""


@pytest.fixture
def counted(monkeypatch):
    """How many unchecked chunk accesses the interpreter made (lanes, all ops together)."""
    seen = {"lanes": 0}
    real = interp._unchecked_range

    def spy(ex, op, buffer, index, w, mask):
        seen["lanes"] += int(np.count_nonzero(np.broadcast_to(mask, (ex.n,))))
        return real(ex, op, buffer, index, w, mask)

    monkeypatch.setattr(interp, "_unchecked_range", spy)
    return seen


@pytest.fixture
def run(lower, interpreter, find_kernel):
    def go(text: str, name: str, args: list, threads: int = 0):
        module = lower(text, threads)
        kernel = find_kernel(module, name)
        assert collect(kernel) == []
        ops = [op for op in kernel.walk() if isinstance(op, simt.UNCHECKED_CHUNK_OPS)]
        assert ops, "the lowering emitted no fast path"
        assert all(isinstance(op.parent_op(), simt.UnsafeOp) for op in ops)
        interpreter(module, name, args)

    return go


def _softmax(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("threads", [0, 32])
@pytest.mark.parametrize(
    ("rows", "cols", "fast"),
    [(30, 256, True), (32, 256, True), (30, 200, False), (3, 256, False), (30, 254, False)],
)
def test_softmax_whole_and_ragged_tiles(run, counted, threads, rows, cols, fast):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    out = np.full((rows, cols), np.nan, np.float32)
    run(SOFTMAX, "softmax", [out, x], threads)
    np.testing.assert_allclose(out, _softmax(x), rtol=1e-5, atol=1e-6)
    # Whole [4, 256] tiles: rows // 4 of them, each read and written once (a lane a chunk).
    whole = rows // 4 if fast else 0
    assert counted["lanes"] == 2 * whole * 4 * 256 // 4


@pytest.mark.parametrize(("rows", "cols"), [(40, 200), (48, 128), (5, 64), (40, 61)])
def test_row_sum_loop_whole_and_ragged_tiles(run, counted, rows, cols):
    x = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    out = np.full(rows, np.nan, np.float32)
    run(ROW_SUM, "row_sum", [out, x], 64)
    np.testing.assert_allclose(out, x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    aligned = cols % 4 == 0
    loads = (rows // 16) * (cols // 64) * (16 * 64 // 4) if aligned else 0
    stores = (rows // 16) * (16 // 4)  # the [16] output's four chunks, in whole blocks
    assert counted["lanes"] == loads + stores


def test_three_dimensional_f16_tiles(run, counted):
    x = rng.standard_normal((5, 8, 64)).astype(np.float16)
    out = np.full(x.shape, np.nan, np.float16)
    run(COPY3, "copy3", [out, x])
    np.testing.assert_array_equal(out, x + np.float16(1))
    whole = (5 // 2) * (8 // 4) * (64 // 32)
    assert counted["lanes"] == 2 * whole * (2 * 4 * 32 // 8)


def test_a_misaligned_input_takes_the_masked_path(run, counted):
    rows, cols = 32, 256
    storage = rng.standard_normal(rows * cols + 1).astype(np.float32)
    x = storage[1:].reshape(rows, cols)  # element 0 four bytes past a 16-byte boundary
    assert x.ctypes.data % 16 != 0
    out = np.full((rows, cols), np.nan, np.float32)
    run(SOFTMAX, "softmax", [out, x])
    np.testing.assert_allclose(out, _softmax(x), rtol=1e-5, atol=1e-6)
    assert counted["lanes"] == (rows // 4) * 256  # the stores only: the loads were masked


# A SIMT kernel of the three ops alone: what their nvvm lowering leaves in the PTX.
WHOLE_COPY = """
simt.kernel @whole_copy(%out: !simt.disjoint_slice<f32, tile<[256], 4, arg1>>, %n: index, %x: !simt.slice<f32>) contract<domain = 1, block = [64], requires = [len(arg0) == arg1, len(arg2) == arg1]> {
  %ok = simt.slice_aligned %x {bytes = 16} : !simt.slice<f32>
  scf.if %ok {
    %c0 = arith.constant 0 : index
    %w = simt.tile_index %c0 dims(%n) : !simt.thread_index<tile<[256], 4, arg1>>
    %i = simt.witness_value %w : !simt.thread_index<tile<[256], 4, arg1>>
    simt.unsafe {
      %a, %b, %c, %d = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32, f32
      simt.unchecked_store_chunk %out[%i], %a, %b, %c, %d : !simt.disjoint_slice<f32, tile<[256], 4, arg1>>
      simt.yield
    }
  }
  simt.return
}
"""


def test_unchecked_chunks_are_one_vector_access_each_in_the_ptx():
    from ferrox.parser import parse_module
    from ferrox.registry import make_context
    from ferrox.targets.compile import compile_module

    module = parse_module(make_context(), WHOLE_COPY, "whole_copy.mlir")
    ptx = compile_module(module, chip="sm_90", opt=3, cubin=False).ptx
    assert len(re.findall(r"ld\.global\.nc\.v4\.b32", ptx)) == 1
    assert len(re.findall(r"st\.global\.v4\.b32", ptx)) == 1
    # No scalar path and no trap: the one test left is slice_aligned's, on the pointer's bits 2
    # and 3 (the ABI's 4-byte alignment of an f32 slice settles bits 0 and 1).
    assert not re.search(r"ld\.global\.nc\.b32|st\.global\.b32|trap", ptx)
    assert re.search(r"and\.b64\s+%rd\d+, %rd\d+, 12;", ptx)
