"""The fused attention kernel's variants for short sequences (issue 13 item 5: at 1024-2048
keys one block of 8 warps an SM leaves each block's prologue and epilogue unhidden): one
warpgroup of 64 query rows (`BM = 64`, 128 threads) on the default sm_90 path (TMA stages, the
pipelined loop), so that two to four blocks share an SM, and the example's `RECIPROCAL`
epilogue (a division a row, not an element). Checked here: the shared bytes a block that decide
how many fit (the barriers laid out after the 1024-aligned stages, not before them), the
epilogue's f64 work, and the results on the CPU interpreter against float64 NumPy with a
poisoned output, ragged sequences, full and causal."""

# The fixture `example` comes from test_attention_fused; ruff takes its uses for redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import pytest
from xdsl.dialects import arith

from ferrox.dialects import simt
from ferrox.dialects.simt.shared import dynamic_layout
from ferrox.dialects.simt.tma import TmaLoadOp
from ferrox.passes.verify_disjoint import collect

from .test_attention_fused import count, example  # noqa: F401
from .test_attention_tma import lowered, matches_numpy

SM_SHARED = 228 * 1024
"""Shared memory an sm_90 SM has for its blocks; each block also takes `RESERVED` more."""
RESERVED = 1024


def blocks_by_shared(kernel: simt.KernelOp) -> int:
    """How many blocks of `kernel` an SM's shared memory holds."""
    assert kernel.contract is not None
    return SM_SHARED // (kernel.contract.shared_bytes.data + RESERVED)


@pytest.mark.parametrize(
    "dim, bm, bn, blocks",
    [(128, 64, 64, 2), (128, 64, 32, 2), (64, 64, 64, 3), (64, 128, 64, 2)],
)
def test_blocks_an_sm_by_shared_memory(example, dim, bm, bn, blocks):
    """d 128 at 64 x 64 takes 115,008 bytes: two blocks an SM (115,968 with the barriers
    first, which left one)."""
    _, kernel = lowered(example.attention, D=dim, CAUSAL=True, BM=bm, BN=bn)
    assert kernel.contract is not None and kernel.contract.block_xyz[0] == 2 * bm
    assert blocks_by_shared(kernel) == blocks
    offsets, total = dynamic_layout(kernel)
    by_name = {op.result.name_hint: at for op, at in offsets.items()}
    assert by_name["full"] > by_name["q"] > by_name["stream1"] > by_name["stream0"] == 0
    assert total == kernel.contract.shared_bytes.data
    assert collect(kernel) == []


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bn",
    [
        (1, 200, 128, True, 64),  # 4 query blocks, the last ragged; below, on, past the diagonal
        (2, 130, 128, False, 64),  # two heads, a ragged last key block of 2
        (1, 200, 64, True, 32),
        (2, 100, 64, False, 64),
    ],
)
def test_bm64_matches_numpy_on_the_interpreter(example, interpreter, heads, seq, dim, causal, bn):
    module, op = lowered(example.attention, D=dim, CAUSAL=causal, BM=64, BN=bn)
    assert count(op, TmaLoadOp) > 0 and count(op, simt.WgmmaOp) > 0
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)


def divisions(kernel: simt.KernelOp) -> int:
    """The kernel's f32 divisions (`arith.divf`, each lowered to some 8 instructions)."""
    return count(kernel, arith.DivfOp)


@pytest.mark.parametrize("dim, bm, bn", [(128, 128, 128), (64, 64, 64)])
def test_reciprocal_divides_once_a_row(example, dim, bm, bn):
    """Without it each thread divides each of its output elements (BM x D in all); with it
    each of its rows' sums, once."""
    _, plain = lowered(example.attention, D=dim, CAUSAL=False, BM=bm, BN=bn)
    _, recip = lowered(example.attention, D=dim, CAUSAL=False, BM=bm, BN=bn, RECIPROCAL=True)
    per_thread = bm * dim // (2 * bm)
    assert divisions(plain) == per_thread and divisions(recip) <= 4
    assert collect(recip) == []


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bm, bn",
    [(1, 200, 128, True, 128, 128), (2, 130, 64, False, 64, 64), (1, 200, 64, True, 128, 64)],
)
def test_reciprocal_matches_numpy_on_the_interpreter(
    example, interpreter, heads, seq, dim, causal, bm, bn
):
    constants = dict(D=dim, CAUSAL=causal, BM=bm, BN=bn, RECIPROCAL=True)
    module, _ = lowered(example.attention, **constants)
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)
