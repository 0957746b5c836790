"""The layout of a kernel's dynamic shared arrays (`simt.dynamic_layout`, the one layout the
verifier, the lowering and both launch checkers use): each array at an offset rounded up to its
alignment (16, or its `{align}`), and the total counting the padding."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects import simt
from ferrox.driver.interpreter.errors import LaunchError
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

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
