# ruff: noqa: E501  (the embedded MLIR kernels keep their lines whole)
"""Barriers under `scf.while`, `scf.index_switch` and `cf.switch` on uniform decisions: each
kernel passes verify-disjoint, runs on the interpreter as NumPy says (outputs poisoned first),
and compiles to PTX with the barrier inside the loop or case, which ptxas assembles. The
lowering of the constructs themselves is pinned in
tests/filecheck/lowering/to_llvm/scf-while-switch.mlir."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ferrox.driver.interpreter import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.passes.verify_disjoint import collect
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module
from ferrox.targets.toolchain import find_ptxas, run_ptxas
from ferrox.verify import verify_module

# Each thread loads its element (0 past the end) into shared memory; then a tree reduction
# whose halving stride is an scf.while (uniform: it starts from a constant), a barrier in each
# trip; every thread writes its block's total.
WHILE = """
simt.kernel @tree(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
  %tile = simt.shared_alloc : !simt.shared<f32, [256]>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  %tid = simt.thread_id x
  %n = simt.len %in : !simt.slice<f32>
  %inb = arith.cmpi ult, %i, %n : index
  %v = scf.if %inb -> (f32) {
    %x = simt.load %in[%i] : !simt.slice<f32>
    scf.yield %x : f32
  } else {
    scf.yield %zero : f32
  }
  simt.unsafe {
    simt.shared_store %v, %tile[%tid] : !simt.shared<f32, [256]>
    simt.yield
  }
  simt.sync_threads
  %last = scf.while (%stride = %c128) : (index) -> index {
    %more = arith.cmpi ugt, %stride, %c0 : index
    scf.condition(%more) %stride : index
  } do {
  ^bb0(%s: index):
    %active = arith.cmpi ult, %tid, %s : index
    scf.if %active {
      %other = arith.addi %tid, %s : index
      simt.unsafe {
        %x = simt.shared_load %tile[%tid] : !simt.shared<f32, [256]>
        %y = simt.shared_load %tile[%other] : !simt.shared<f32, [256]>
        %t = arith.addf %x, %y : f32
        simt.shared_store %t, %tile[%tid] : !simt.shared<f32, [256]>
        simt.yield
      }
    }
    simt.sync_threads
    %half = arith.shrui %s, %c1 : index
    scf.yield %half : index
  }
  %total = simt.unsafe -> f32 {
    %x = simt.shared_load %tile[%c0] : !simt.shared<f32, [256]>
    simt.yield %x : f32
  }
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %total : f32
  }
  simt.return
}
"""

# A kernel scalar picks, for the whole grid, how each block permutes its elements through
# shared memory: 0 rotates by one, 1 reverses, anything else keeps them (no barrier).
SWITCH = """
simt.kernel @permute(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>, %mode: index) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
  %tile = simt.shared_alloc : !simt.shared<f32, [256]>
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c255 = arith.constant 255 : index
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  %tid = simt.thread_id x
  %n = simt.len %in : !simt.slice<f32>
  %inb = arith.cmpi ult, %i, %n : index
  %v = scf.if %inb -> (f32) {
    %x = simt.load %in[%i] : !simt.slice<f32>
    scf.yield %x : f32
  } else {
    scf.yield %zero : f32
  }
  %r = scf.index_switch %mode -> f32
  case 0 {
    simt.unsafe {
      simt.shared_store %v, %tile[%tid] : !simt.shared<f32, [256]>
      simt.yield
    }
    simt.sync_threads
    %next = arith.addi %tid, %c1 : index
    %j = arith.andi %next, %c255 : index
    %x = simt.unsafe -> f32 {
      %y = simt.shared_load %tile[%j] : !simt.shared<f32, [256]>
      simt.yield %y : f32
    }
    scf.yield %x : f32
  }
  case 1 {
    simt.unsafe {
      simt.shared_store %v, %tile[%tid] : !simt.shared<f32, [256]>
      simt.yield
    }
    simt.sync_threads
    %j = arith.subi %c255, %tid : index
    %x = simt.unsafe -> f32 {
      %y = simt.shared_load %tile[%j] : !simt.shared<f32, [256]>
      simt.yield %y : f32
    }
    scf.yield %x : f32
  }
  default {
    scf.yield %v : f32
  }
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %r : f32
  }
  simt.return
}
"""

# The same choice as a cf.switch over the kernel's own blocks, on an i32 kernel scalar.
CF_SWITCH = """
simt.kernel @permute_cf(%in: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>, %mode: i32) contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
  %tile = simt.shared_alloc : !simt.shared<f32, [256]>
  %zero = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %c255 = arith.constant 255 : index
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  %tid = simt.thread_id x
  %n = simt.len %in : !simt.slice<f32>
  %inb = arith.cmpi ult, %i, %n : index
  %v = scf.if %inb -> (f32) {
    %x = simt.load %in[%i] : !simt.slice<f32>
    scf.yield %x : f32
  } else {
    scf.yield %zero : f32
  }
  cf.switch %mode : i32, [
    default: ^join(%v : f32),
    0: ^rotate,
    1: ^reverse
  ]
^rotate:
  simt.unsafe {
    simt.shared_store %v, %tile[%tid] : !simt.shared<f32, [256]>
    simt.yield
  }
  simt.sync_threads
  %next = arith.addi %tid, %c1 : index
  %j = arith.andi %next, %c255 : index
  %x = simt.unsafe -> f32 {
    %y = simt.shared_load %tile[%j] : !simt.shared<f32, [256]>
    simt.yield %y : f32
  }
  cf.br ^join(%x : f32)
^reverse:
  simt.unsafe {
    simt.shared_store %v, %tile[%tid] : !simt.shared<f32, [256]>
    simt.yield
  }
  simt.sync_threads
  %k = arith.subi %c255, %tid : index
  %z = simt.unsafe -> f32 {
    %y = simt.shared_load %tile[%k] : !simt.shared<f32, [256]>
    simt.yield %y : f32
  }
  cf.br ^join(%z : f32)
^join(%r: f32):
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %r : f32
  }
  simt.return
}
"""

# An scf.execute_region of several blocks (an early choice) inside a get_mut region.
EXECUTE_REGION = """
simt.kernel @relu(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [128], requires = [len(arg0) >= len(arg1)]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %zero = arith.constant 0.0 : f32
    %v = simt.load %x[%i] : !simt.slice<f32>
    %r = scf.execute_region -> f32 {
      %neg = arith.cmpf olt, %v, %zero : f32
      cf.cond_br %neg, ^clip, ^keep
    ^clip:
      scf.yield %zero : f32
    ^keep:
      scf.yield %v : f32
    }
    simt.yield %r : f32
  }
  simt.return
}
"""

rng = np.random.default_rng(1203)


def module_of(text: str):
    module = parse_module(make_context(), f"builtin.module {{\n{text}\n}}", "control.mlir")
    verify_module(module)
    assert collect(module) == []
    return module


def blocks_of(x: np.ndarray) -> np.ndarray:
    """`x` padded with zeros to whole blocks of 256, one block per row."""
    padded = np.zeros(-(-x.size // 256) * 256, np.float32)
    padded[: x.size] = x
    return padded.reshape(-1, 256)


def permuted(x: np.ndarray, mode: int) -> np.ndarray:
    b = blocks_of(x)
    if mode == 0:
        b = np.roll(b, -1, axis=1)
    elif mode == 1:
        b = b[:, ::-1]
    return b.reshape(-1)[: x.size]


@pytest.mark.parametrize("n", [1000, 256, 3])
def test_barrier_in_a_uniform_while(n):
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    blocks = -(-n // 256)
    run_simt_kernel(module_of(WHILE), "tree", (blocks, 1, 1), (256, 1, 1), [x, out])
    sums = blocks_of(x).astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(out, np.repeat(sums, 256)[:n], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("text", "name"), [(SWITCH, "permute"), (CF_SWITCH, "permute_cf")])
@pytest.mark.parametrize("mode", [0, 1, 2, -1])
def test_barrier_in_a_case_on_a_kernel_scalar(text, name, mode):
    n = 700
    x = rng.standard_normal(n).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    run_simt_kernel(module_of(text), name, (3, 1, 1), (256, 1, 1), [x, out, mode])
    np.testing.assert_array_equal(out, permuted(x, mode))


@pytest.mark.parametrize(
    ("text", "name"), [(WHILE, "tree"), (SWITCH, "permute"), (CF_SWITCH, "permute_cf")]
)
def test_compiles_with_the_barrier_inside(text, name):
    result = compile_module(module_of(text), chip="sm_90", opt=3, cubin=False)
    body = re.search(rf"\.entry {name}\((.*?)\n\}}", result.ptx, re.S)
    assert body is not None
    # The while's 8 trips (LLVM unrolls them) or the two cases each keep their barrier.
    assert body.group(0).count("bar.sync") >= 2, body.group(0)


@pytest.mark.parametrize(
    ("text", "name"),
    [(WHILE, "tree"), (SWITCH, "permute"), (CF_SWITCH, "permute_cf"), (EXECUTE_REGION, "relu")],
)
@pytest.mark.ptxas
def test_ptxas_assembles_it(text, name):
    if find_ptxas() is None:
        pytest.skip("needs ptxas (not on PATH and no nvidia-cuda-nvcc wheel)")
    result = compile_module(module_of(text), chip="sm_90", opt=3, cubin=False)
    assembled = run_ptxas(result.ptx, "sm_90")
    assert assembled.cubin and assembled.resources[name].spill_stores == 0
    assert (assembled.resources[name].barriers > 0) == (name != "relu")


def test_execute_region_compiles():
    """Compiled only (assembled above): the interpreter's region runner is another module's."""
    result = compile_module(module_of(EXECUTE_REGION), chip="sm_90", opt=3, cubin=False)
    assert ".entry relu(" in result.ptx
