"""The fused attention loop on wgmma (lowering/tile_to_simt/attention_wgmma.py): which chips,
tiles and threads select it, what the lowered loop is made of (q @ k.T with both operands in
swizzled shared arrays, p @ v with p's registers as A and v's stage MN-major), that it passes
verify-disjoint and ptxas, and its results on the CPU interpreter (the module's chip selects
the path there too) against float64 NumPy with a poisoned output: full and causal, head dims
64 and 128, ragged sequences, key blocks below, on and past the diagonal, two loops a kernel."""

# The fixture `example` comes from test_attention_fused; ruff takes its uses for redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import numpy as np
import pytest
from compiled import assembled
from xdsl.dialects import scf
from xdsl.dialects.builtin import StringAttr

import ferrox
from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt import attention_wgmma
from ferrox.lowering.tile_to_simt.convert import convert_tile_to_simt
from ferrox.lowering.tile_to_simt.gemm_wgmma import target_chip
from ferrox.passes.verify_disjoint import collect
from ferrox.targets.toolchain import find_ptxas
from ferrox.verify import verify_module

from .test_attention_fused import attention_split, count, example  # noqa: F401


@pytest.fixture(autouse=True)
def cp_async_stages(monkeypatch):
    """These tests are of `WgmmaLoop` and `PipelinedLoop`, whose stages every thread fills with
    `cp.async`: TMA stages (the default where they fit) are test_attention_tma.py's."""
    from ferrox.lowering.tile_to_simt import attention_tma

    monkeypatch.setattr(attention_tma, "TMA", False)


def lowered(kernel, chip: str = "sm_90a", **constants):
    """The module of `kernel` lowered for `chip` (the module's `ferrox.chip`), and its kernel."""
    module = kernel.module(**constants)
    module.attributes["ferrox.chip"] = StringAttr(chip)
    convert_tile_to_simt(module)
    verify_module(module)
    (op,) = [op for op in module.walk() if isinstance(op, simt.KernelOp)]
    return module, op


def key_loop(kernel) -> scf.ForOp:
    (loop,) = [op for op in kernel.walk() if isinstance(op, scf.ForOp) and count(op, simt.WgmmaOp)]
    return loop


@pytest.mark.parametrize("dim, causal, bn", [(64, False, 64), (64, True, 128), (128, True, 64)])
def test_sm90_takes_wgmma_pipelined(example, monkeypatch, dim, causal, bn):
    monkeypatch.setattr(attention_wgmma, "PIPELINE", True)
    _, kernel = lowered(example.attention, D=dim, CAUSAL=causal, BN=bn)
    assert count(kernel, simt.MmaSyncOp) == 0 and count(kernel, simt.LdMatrixOp) == 0
    loop = key_loop(kernel)
    scores = [op for op in loop.walk() if isinstance(op, simt.WgmmaOp)]
    output = [op for op in loop.walk() if isinstance(op, simt.WgmmaRegAOp)]
    # one m64nBN k16 step a 16 of the head dim; one m64nD k16 step a 16 keys, v MN-major
    assert len(scores) == dim // 16 and {op.n.value.data for op in scores} == {bn}
    assert len(output) == bn // 16 and {op.n.value.data for op in output} == {dim}
    assert {op.mn_stride for op in output} == {bn * 64}
    assert {op.mn_stride for op in scores} == {None}
    # the next iteration's scores, then this one's p @ v; the wait retires the scores (its
    # first bn / 2 operands) and leaves p @ v in flight, retired at its first use next time
    waits = [op for op in loop.walk() if isinstance(op, simt.WgmmaWaitOp)]
    assert [(op.pending.value.data, op.retired_count) for op in waits] == [(0, 0), (1, bn // 2)]
    assert count(loop, simt.SyncThreadsOp) == 1 and count(loop, simt.AsyncWaitOp) == 1
    # k's and v's copies twice: unchecked where the tile is whole, else checked
    copies = 2 * (bn * dim // 8 // 256)
    assert count(loop, simt.UncheckedAsyncCopyOp) == count(loop, simt.AsyncCopyOp) == copies
    arrays = [op for op in kernel.walk() if isinstance(op, simt.SharedAllocOp)]
    swizzled = [op for op in arrays if "align" in op.properties]
    assert len(swizzled) == 3  # q, k's stages, v's stages: 1024-byte aligned
    assert kernel.contract.block_xyz == (256, 1, 1)
    assert collect(kernel) == []


def test_by_default_each_product_is_retired_at_once(example):
    """On `cp.async` stages the default (`PIPELINE` None) is the synchronous loop."""
    assert attention_wgmma.PIPELINE is None
    _, kernel = lowered(example.attention, D=64, CAUSAL=True)
    waits = [op for op in key_loop(kernel).walk() if isinstance(op, simt.WgmmaWaitOp)]
    assert [op.pending.value.data for op in waits] == [0, 0]
    assert count(kernel, simt.WgmmaOp) == 4 and collect(kernel) == []


@pytest.mark.parametrize("bm", [64, 128, 256])
def test_a_warpgroup_per_64_rows(example, bm):
    _, kernel = lowered(example.attention, D=64, CAUSAL=True, BM=bm)
    assert kernel.contract.block_xyz == (2 * bm, 1, 1)
    assert count(kernel, simt.WgmmaRegAOp) == 4 and collect(kernel) == []


@pytest.mark.parametrize("chip, dim", [("sm_80", 64), ("", 64), ("sm_90a", 32)])
def test_other_chips_and_head_dims_keep_mma_sync(example, chip, dim):
    """sm_80 and no chip; a head dim of 32 (half a 128-byte swizzled row)."""
    _, kernel = lowered(example.attention, chip, D=dim, CAUSAL=True)
    assert count(kernel, simt.WgmmaOp) == 0 and count(kernel, simt.WgmmaRegAOp) == 0
    assert count(kernel, simt.MmaSyncOp) > 0


def test_target_chip_asks_for_sm90a(example):
    assert target_chip(example.attention.module(D=64), "sm_90") == "sm_90a"
    assert target_chip(example.attention.module(D=64), "sm_80") == "sm_80"
    assert target_chip(example.attention.module(D=32), "sm_90") == "sm_90"


def test_two_loops_share_q_and_the_stages():
    _, kernel = lowered(attention_split, D=64, CAUSAL=True)
    names = [op.results[0].name_hint for op in kernel.walk() if isinstance(op, simt.SharedAllocOp)]
    assert sorted(n for n in names if n in ("q", "stream0", "stream1")) == [
        "q",
        "stream0",
        "stream1",
    ]
    assert count(kernel, simt.WgmmaOp) == 2 * 4 and collect(kernel) == []


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas")
@pytest.mark.parametrize("dim, bn", [(64, 64), (128, 64)])
def test_ptx_assembles_for_sm90a_without_spills(example, dim, bn):
    art = example.attention.artifact("sm_90", D=dim, CAUSAL=True, BN=bn)
    assert art.chip == "sm_90a"
    assert f"wgmma.mma_async.sync.aligned.m64n{bn}k16.f32.bf16.bf16" in art.ptx
    assert "mma.sync" not in art.ptx and "ldmatrix" not in art.ptx
    # the proxy fence only where the copies' writers hand the stages on, once an iteration
    # (and before the loop when pipelined); the products' fences order registers only
    assert art.ptx.count("fence.proxy.async") == 1
    # p rounded to bf16 and packed, two values an instruction (lowering/simt_to_nvvm/pack.py)
    assert art.ptx.count("cvt.rn.bf16x2.f32") == bn // 4
    info = assembled(art.ptx, "sm_90a").resources["attention"]  # the compile's ptxas run
    assert info.spill_stores == 0 and info.spill_loads == 0


CASES = [
    # heads, seq, dim, causal, BN
    (1, 130, 64, False, 64),  # ragged last key block and query block
    (2, 70, 64, True, 64),  # two heads; seq shorter than a query block
    (1, 200, 64, True, 128),  # below, on and past the diagonal; m64n128 scores, m64n64 output
    (1, 100, 128, False, 64),
    (1, 200, 128, True, 32),  # m64n32 scores, two k16 steps of p @ v
]


RUNS = [(*c, False, True) for c in CASES] + [
    (1, 200, 64, True, 64, True, True),  # two loops a kernel
    (1, 200, 64, True, 64, False, False),  # each product retired at once
    (1, 190, 128, True, 128, False, False),
]


@pytest.mark.parametrize("heads, seq, dim, causal, bn, two, pipe", RUNS)
def test_matches_numpy_on_the_interpreter(
    example, interpreter, monkeypatch, heads, seq, dim, causal, bn, two, pipe
):
    monkeypatch.setattr(attention_wgmma, "PIPELINE", pipe)
    kernel = attention_split if two else example.attention
    module, op = lowered(kernel, D=dim, CAUSAL=causal, BN=bn)
    assert count(op, simt.WgmmaRegAOp) > 0
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((heads, seq, dim))) for _ in range(3))
    out = np.full((heads, seq, dim), np.nan, np.float32)
    interpreter(module, "attention" if not two else "attention_split", [out, q, k, v])
    x, y, z = q.float32(), k.float32(), v.float32()
    expected = example.reference(x, y, z, causal)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, expected, rtol=1e-2, atol=1e-2)
    if causal:  # the mask is seen: the full product differs
        assert not np.allclose(out, example.reference(x, y, z, False), rtol=1e-2, atol=1e-2)


def off_by_one(x):
    """`x`'s values in an array that starts 2 bytes past a 16-byte boundary: no tile of it
    passes the whole-tile test's alignment rule, so every copy takes the checked path."""
    buffer = np.zeros(x.size + 8, np.uint16).view(type(x))
    shifted = buffer[1 : 1 + x.size].reshape(x.shape)
    shifted[...] = x
    assert shifted.ctypes.data % 16 == 2
    return shifted


def test_misaligned_tensors_take_the_checked_copies(example, interpreter):
    module, _ = lowered(example.attention, D=64, CAUSAL=False)
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((1, 256, 64))) for _ in range(3))
    out = np.full((1, 256, 64), np.nan, np.float32)
    interpreter(module, "attention", [out, off_by_one(q), off_by_one(k), off_by_one(v)])
    expected = example.reference(q.float32(), k.float32(), v.float32(), False)
    np.testing.assert_allclose(out, expected, rtol=1e-2, atol=1e-2)
