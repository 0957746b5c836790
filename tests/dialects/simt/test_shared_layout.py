"""The layout of a kernel's dynamic shared arrays (`simt.dynamic_layout`, the one layout the
verifier, the lowering and both launch checkers use): each array at an offset rounded up to its
alignment (16, or its `{align}`), and the total counting the padding."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

import ferrox
from ferrox.dialects import simt
from ferrox.driver.interpreter.errors import LaunchError
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.toolchain import find_ptxas

# Arrays of 16, 20, 64, 8 and 2 bytes: the 20-byte one follows the first at 16; the 1024-aligned
# one skips to 1024 (the padding after 36 bytes); the 256-aligned one lands on 1280; the plain
# one after it on the next 16 bytes.
KERNEL = """builtin.module {
  simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [32], shared_bytes = SHARED> {
    %small = simt.shared_alloc {dynamic} : !simt.shared<f32, [4]>
    %odd = simt.shared_alloc {dynamic} : !simt.shared<f32, [5]>
    %stage = simt.shared_alloc {dynamic, align = 1024} : !simt.shared<bf16, [32]>
    %mid = simt.shared_alloc {dynamic, align = 256} : !simt.shared<i64, [1]>
    %last = simt.shared_alloc {dynamic} : !simt.shared<i8, [2]>
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %one = arith.constant 1.0 : f32
      simt.yield %one : f32
    }
    simt.return
  }
}"""  # noqa: E501
OFFSETS = {"small": 0, "odd": 16, "stage": 1024, "mid": 1280, "last": 1296}
TOTAL = 1298


def _kernel(shared: int = TOTAL):
    module = parse_module(make_context(), KERNEL.replace("SHARED", str(shared)), "k.mlir")
    return module, next(op for op in module.walk() if isinstance(op, simt.KernelOp))


def test_each_array_is_placed_at_its_alignment_and_the_total_counts_the_padding():
    _, kernel = _kernel()
    offsets, total = simt.dynamic_layout(kernel)
    assert {op.result.name_hint: at for op, at in offsets.items()} == OFFSETS
    assert total == TOTAL
    assert {op.result.name_hint: op.alignment for op in offsets} == {
        "small": 16,
        "odd": 16,
        "stage": 1024,
        "mid": 256,
        "last": 16,
    }


def test_the_interpreters_launch_checks_the_padded_total():
    module, _ = _kernel()
    out = np.full(32, np.nan, np.float32)
    with pytest.raises(LaunchError) as e:
        run_simt_kernel(module, "k", (1, 1, 1), (32, 1, 1), [out], TOTAL - 1)
    assert str(e.value) == (
        f"@k's dynamic shared arrays take {TOTAL} bytes, but the launch provides "
        f"shared_bytes = {TOTAL - 1}"
    )
    run_simt_kernel(module, "k", (1, 1, 1), (32, 1, 1), [out], TOTAL)
    np.testing.assert_array_equal(out, np.ones(32, np.float32))


def test_the_contract_must_cover_the_padding():
    module, _ = _kernel(TOTAL - 1)
    with pytest.raises(VerifyException, match=f"take {TOTAL} bytes, but its launch contract"):
        module.verify()


# The same arrays made static: ptxas places them in an order of its own, so the launch checks
# count the bound `static_shared_bound` gives rather than one layout. Rounded sizes 16, 32, 64,
# 16, 16 (144) are all multiples of 16 only, so the 1024- and 256-aligned arrays may pad
# 1008 and 240 bytes.
STATIC = KERNEL.replace("{dynamic, ", "{").replace(" {dynamic}", "").replace("SHARED", "0")
STATIC_BOUND = 144 + 1008 + 240


def test_the_static_bound_counts_the_worst_padding():
    module = parse_module(make_context(), STATIC, "k.mlir")
    allocs = [op for op in module.walk() if isinstance(op, simt.SharedAllocOp)]
    assert len(allocs) == 5 and not any(op.is_dynamic for op in allocs)
    assert simt.static_shared_bound(allocs) == STATIC_BOUND
    # no padding to bound when every size is a multiple of the largest alignment
    aligned = STATIC.replace("[4]>", "[256]>").replace("[5]>", "[256]>").replace("[32]>", "[512]>")
    aligned = aligned.replace("i64, [1]>", "i64, [128]>").replace("i8, [2]>", "i8, [1024]>")
    allocs = [
        op
        for op in parse_module(make_context(), aligned, "k.mlir").walk()
        if isinstance(op, simt.SharedAllocOp)
    ]
    assert simt.static_shared_bound(allocs) == 5 * 1024


# A byte array, then a 1024-aligned one and a 256-aligned one, all written and read (so LLVM
# keeps them): ptxas's placement must fit the bound (16 + 1008 + 4096, then 240 + 256).
USED = """builtin.module {
  simt.kernel @k(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [32]> {
    %b = simt.shared_alloc : !simt.shared<i8, [1]>
    %big = simt.shared_alloc {align = 1024} : !simt.shared<f32, [1024]>
    %mid = simt.shared_alloc {align = 256} : !simt.shared<f32, [64]>
    %t = simt.thread_id x
    %c0 = arith.constant 0 : index
    %ti = arith.index_cast %t : index to i32
    %v = arith.sitofp %ti : i32 to f32
    %byte = arith.trunci %ti : i32 to i8
    simt.unsafe {
      simt.shared_store %byte, %b[%c0] : !simt.shared<i8, [1]>
      simt.shared_store %v, %big[%t] : !simt.shared<f32, [1024]>
      simt.shared_store %v, %mid[%t] : !simt.shared<f32, [64]>
      simt.yield
    }
    simt.sync_threads
    %x, %y, %z = simt.unsafe -> i8, f32, f32 {
      %x0 = simt.shared_load %b[%c0] : !simt.shared<i8, [1]>
      %y0 = simt.shared_load %big[%t] : !simt.shared<f32, [1024]>
      %z0 = simt.shared_load %mid[%t] : !simt.shared<f32, [64]>
      simt.yield %x0, %y0, %z0 : i8, f32, f32
    }
    %xf = arith.sitofp %x : i8 to f32
    %s = arith.addf %y, %z : f32
    %r = arith.addf %s, %xf : f32
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      simt.yield %r : f32
    }
    simt.return
  }
}"""
USED_BOUND = 16 + 4096 + 256 + 1008 + 240


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
def test_ptxas_places_the_static_arrays_within_the_bound():
    with_ptxas = ferrox.compile(USED, chip="sm_90", cache=False).kernels["k"]
    without = ferrox.compile(USED, chip="sm_90", cache=False, ptx=False).kernels["k"]
    assert without.contract.static_shared_bytes == USED_BOUND
    assert 16 + 4096 + 256 <= with_ptxas.contract.static_shared_bytes <= USED_BOUND
