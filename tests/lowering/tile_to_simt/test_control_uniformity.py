# ruff: noqa: E501  (the embedded MLIR kernels keep their lines whole)
"""Reductions and mma under tile-level control flow (docs/lowering-tile.md, "Control flow"):
under an `scf.if` on a block-uniform condition and in an `scf.for` with a uniform trip count
their barriers and shuffles stay under the branch or loop, the lowered kernel passes
verify-disjoint, runs on the interpreter as NumPy says (outputs poisoned first), and compiles
to PTX that ptxas assembles with the barrier inside the branch. Refusals are pinned in
tests/filecheck/lowering/tile_to_simt/invalid.mlir."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ferrox.parser import parse_module
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module
from ferrox.targets.toolchain import find_ptxas, run_ptxas

rng = np.random.default_rng(20261203)

# Even tile blocks sum their 16 rows, odd ones take the maximum; a grid-uniform scalar %scale
# decides whether to double the result (a second, nested branch).
ROW_CHOICE = """
tile.kernel @rows(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>, %scale: i32) {
  %i = tile.block_id 0
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0 : i32
  %t = tile.load %x[%i, %c0] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 128]>
  %parity = arith.remui %i, %c2 : index
  %even = arith.cmpi eq, %parity, %c0 : index
  %r = scf.if %even -> (!tile.tile<f32, [16]>) {
    %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
    scf.yield %s : !tile.tile<f32, [16]>
  } else {
    %m = tile.reduce_max %t axis = 1 : !tile.tile<f32, [16, 128]> -> !tile.tile<f32, [16]>
    %twice = arith.cmpi ne, %scale, %zero : i32
    %m2 = scf.if %twice -> (!tile.tile<f32, [16]>) {
      %d = tile.add %m, %m : !tile.tile<f32, [16]>
      scf.yield %d : !tile.tile<f32, [16]>
    } else {
      scf.yield %m : !tile.tile<f32, [16]>
    }
    scf.yield %m2 : !tile.tile<f32, [16]>
  }
  tile.store %r, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
  tile.return
}
"""

# Column tiles with an even index get A @ B (an mma loop over K inside the branch), odd ones
# the row sums of A's whole row block (a reduction in a loop inside the other branch).
MMA_CHOICE = """
tile.kernel @mm(%out: !tile.partition<f32, [32, 32]>, %a: !tile.tensor<f32, [?, ?]>, %b: !tile.tensor<f32, [?, ?]>) {
  %i = tile.block_id 0
  %j = tile.block_id 1
  %k = tile.dim %a, 1 : !tile.tensor<f32, [?, ?]>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %kt = arith.ceildivui %k, %c16 : index
  %zero = tile.constant dense<0.0> : !tile.tile<f32, [32, 32]>
  %parity = arith.remui %j, %c2 : index
  %even = arith.cmpi eq, %parity, %c0 : index
  %r = scf.if %even -> (!tile.tile<f32, [32, 32]>) {
    %acc = scf.for %t = %c0 to %kt step %c1 iter_args(%acc = %zero) -> (!tile.tile<f32, [32, 32]>) {
      %x = tile.load %a[%i, %t] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [32, 16]>
      %y = tile.load %b[%t, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 32]>
      %n = tile.mma %x, %y, %acc : !tile.tile<f32, [32, 16]>, !tile.tile<f32, [16, 32]>, !tile.tile<f32, [32, 32]>
      scf.yield %n : !tile.tile<f32, [32, 32]>
    }
    scf.yield %acc : !tile.tile<f32, [32, 32]>
  } else {
    %z1 = tile.constant dense<0.0> : !tile.tile<f32, [32, 1]>
    %sum = scf.for %t = %c0 to %kt step %c1 iter_args(%s = %z1) -> (!tile.tile<f32, [32, 1]>) {
      %x = tile.load %a[%i, %t] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [32, 16]>
      %p = tile.reduce_sum %x axis = 1 keepdims : !tile.tile<f32, [32, 16]> -> !tile.tile<f32, [32, 1]>
      %n = tile.add %s, %p : !tile.tile<f32, [32, 1]>
      scf.yield %n : !tile.tile<f32, [32, 1]>
    }
    %wide = tile.broadcast %sum : !tile.tile<f32, [32, 1]> -> !tile.tile<f32, [32, 32]>
    scf.yield %wide : !tile.tile<f32, [32, 32]>
  }
  tile.store %r, %out : !tile.tile<f32, [32, 32]>, !tile.partition<f32, [32, 32]>
  tile.return
}
"""


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


@pytest.fixture
def run(lower, interpreter, find_kernel):
    def go(text: str, name: str, args: list, threads: int = 0):
        module = lower(text, threads)
        assert collect(find_kernel(module, name)) == []
        interpreter(module, name, args)

    return go


@pytest.mark.parametrize("threads", [32, 128])
@pytest.mark.parametrize("scale", [0, 1])
def test_reductions_under_block_uniform_branches(run, threads, scale):
    rows = 75  # five tile blocks, the last one ragged
    x = f32(rows, 128)
    out = np.full(rows, np.nan, np.float32)
    run(ROW_CHOICE, "rows", [out, x, scale], threads)
    even = (np.arange(rows) // 16) % 2 == 0
    maxes = x.max(axis=1) * (2 if scale else 1)
    want = np.where(even, x.astype(np.float64).sum(axis=1), maxes)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("threads", [32, 128])
def test_mma_and_reduction_loops_under_a_block_uniform_branch(run, threads):
    m, k, n = 70, 40, 100  # ragged in every dimension
    a, b = f32(m, k), f32(k, n)
    out = np.full((m, n), np.nan, np.float32)
    run(MMA_CHOICE, "mm", [out, a, b], threads)
    even = (np.arange(n) // 32) % 2 == 0
    row_sums = a.astype(np.float64).sum(axis=1, keepdims=True)
    want = np.where(even[None, :], a.astype(np.float64) @ b, row_sums)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def _ptx(text: str, name: str) -> str:
    module = parse_module(make_context(), text, "control.mlir")
    return compile_module(module, chip="sm_90", opt=3, cubin=False).ptx


@pytest.mark.parametrize(("text", "name"), [(ROW_CHOICE, "rows"), (MMA_CHOICE, "mm")])
def test_compiles_with_the_barrier_under_the_branch(text, name):
    ptx = _ptx(text, name)
    body = re.search(rf"\.entry {name}\((.*?)\n\}}", ptx, re.S)
    assert body is not None
    assert "bar.sync" in body.group(0) and "shfl.sync" in body.group(0)
    # The branch on the block's parity is a real branch around code with barriers.
    assert re.search(r"@%p\d+ bra", body.group(0))


@pytest.mark.ptxas
@pytest.mark.parametrize(("text", "name"), [(ROW_CHOICE, "rows"), (MMA_CHOICE, "mm")])
def test_ptxas_assembles_it(text, name):
    if find_ptxas() is None:
        pytest.skip("needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)")
    assembled = run_ptxas(_ptx(text, name), "sm_90")
    assert assembled.cubin and assembled.resources[name].spill_stores == 0
    assert assembled.resources[name].barriers > 0
