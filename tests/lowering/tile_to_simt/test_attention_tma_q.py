"""q by TMA in the fused attention loop (lowering/tile_to_simt/attention_tma.py, the knob
`TMA_Q`, on by default since the fourteenth session): what the kernel is made of (q's boxes on
a fifth barrier, no `cp.async` left, a third tensor map), that it passes verify-disjoint and
ptxas without spills, and its results on the CPU interpreter against float64 NumPy with a
poisoned output: pipelined and not, head dims 64 and 128, BM 64 and 128, ragged sequences, and
the kernel of two loops (the second reads q as the first loaded it); and the knob off (q by
`cp.async`, for A/B timing) still right."""

# The fixture `example` comes from test_attention_fused; ruff takes its uses for redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import pytest
from compiled import assembled
from xdsl.dialects import arith

import ferrox
from ferrox.dialects import simt
from ferrox.dialects.simt.tma import MbarrierInitOp, MbarrierWaitOp, TmaLoadOp
from ferrox.lowering.tile_to_simt import attention_tma, attention_wgmma
from ferrox.passes.verify_disjoint import collect
from ferrox.targets.toolchain import find_ptxas

from .test_attention_fused import attention_split, count, example  # noqa: F401
from .test_attention_tma import lowered, matches_numpy


@pytest.fixture
def tma_q(monkeypatch):
    """The default loop (TMA stages, `PIPELINE` None: pipelined there) with q by TMA (the
    default, set here so that these tests keep testing it)."""
    monkeypatch.setattr(attention_tma, "TMA_Q", True)


@pytest.fixture
def q_by_cp_async(monkeypatch):
    """`TMA_Q` off: q copied by every thread's `cp.async`, as before the fourteenth session."""
    monkeypatch.setattr(attention_tma, "TMA_Q", False)


def _constant(v) -> int | None:
    owner = v.owner
    return owner.value.value.data if isinstance(owner, arith.ConstantOp) else None


@pytest.mark.parametrize("dim, bm, bn", [(64, 128, 64), (128, 64, 64)])
def test_q_comes_by_tma_on_its_own_barrier(example, tma_q, dim, bm, bn):
    _, kernel = lowered(example.attention, D=dim, CAUSAL=True, BM=bm, BN=bn)
    loads = [op for op in kernel.walk() if isinstance(op, TmaLoadOp)]
    # q's boxes first: [BM, 64] a 64 columns, on barrier 4 (its first load in program order)
    boxes = [op for op in loads if op.box_shape == (bm, 64)] if bm != bn else loads[: dim // 64]
    assert len(boxes) == dim // 64 and loads[: dim // 64] == boxes
    assert count(kernel, simt.AsyncCopyOp) == count(kernel, simt.UncheckedAsyncCopyOp) == 0
    assert count(kernel, simt.AsyncWaitOp) == 0
    assert count(kernel, MbarrierInitOp) == 5 + 4
    # every thread waits once for q's phase 0: `full[4]`
    waits = [op for op in kernel.walk() if isinstance(op, MbarrierWaitOp)]
    assert [w for w in waits if _constant(w.index) == 4 and _constant(w.parity) == 0]
    assert collect(kernel) == []


def test_on_by_default(example):
    assert attention_tma.TMA_Q
    _, kernel = lowered(example.attention, D=64, CAUSAL=False)
    assert count(kernel, simt.UncheckedAsyncCopyOp) == 0 and count(kernel, MbarrierInitOp) == 9


def test_off_q_by_cp_async(example, q_by_cp_async):
    _, kernel = lowered(example.attention, D=64, CAUSAL=False)
    assert count(kernel, simt.UncheckedAsyncCopyOp) > 0 and count(kernel, MbarrierInitOp) == 8
    assert count(kernel, simt.AsyncWaitOp) > 0 and collect(kernel) == []


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas")
@pytest.mark.parametrize("dim, bm, bn", [(64, 128, 64), (128, 128, 128), (128, 64, 64)])
def test_ptx_assembles_without_spills_with_three_maps(example, tma_q, dim, bm, bn):
    from ferrox.lowering.simt_to_nvvm import wgmma

    text = str(example.attention.module(D=dim, CAUSAL=True, BM=bm, BN=bn))
    art = ferrox.compile(text, chip="sm_90")
    assert art.chip == wgmma.WGMMA_CHIP and "cp.async.ca" not in art.ptx
    maps = art.kernels["attention"].tensor_maps
    assert len(maps) == 3 and sorted(m.box for m in maps)[-1] == (max(bm, bn), 64)
    info = assembled(art.ptx, wgmma.WGMMA_CHIP).resources["attention"]
    assert info.spill_stores == 0 and info.spill_loads == 0


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bm, bn, pipe",
    [
        (1, 200, 64, True, 128, 64, None),  # the default path: pipelined on TMA stages
        (2, 130, 128, False, 64, 64, None),  # two heads: q's plane; a ragged last query block
        (1, 190, 128, True, 128, 128, None),
        (2, 100, 64, False, 128, 64, False),  # the synchronous loop: q waited before the loop
        (1, 200, 64, True, 64, 32, False),
        (1, 20, 64, True, 128, 64, None),  # one key block, q's box zeros past row 20
        (2, 1, 128, False, 64, 64, False),  # one query, one key
    ],
)
def test_matches_numpy_on_the_interpreter(
    example, interpreter, tma_q, monkeypatch, heads, seq, dim, causal, bm, bn, pipe
):
    monkeypatch.setattr(attention_wgmma, "PIPELINE", pipe)
    module, op = lowered(example.attention, D=dim, CAUSAL=causal, BM=bm, BN=bn)
    assert count(op, simt.UncheckedAsyncCopyOp) == 0 and count(op, MbarrierInitOp) == 9
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)


def test_two_loops_share_q_on_the_interpreter(example, interpreter, tma_q):
    """The first loop loads q by TMA; the second reads its array (no second load of q)."""
    module, op = lowered(attention_split, D=64, CAUSAL=True, BN=64)
    inits = [w for w in op.walk() if isinstance(w, MbarrierInitOp)]
    assert len(inits) == 9 + 8
    matches_numpy(example, interpreter, module, "attention_split", 1, 200, 64, True)


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bm, bn, pipe",
    [
        (2, 130, 128, False, 64, 64, None),  # pipelined on TMA stages, a ragged query block
        (1, 200, 64, True, 128, 64, False),  # the synchronous loop
    ],
)
def test_off_matches_numpy_on_the_interpreter(
    example, interpreter, q_by_cp_async, monkeypatch, heads, seq, dim, causal, bm, bn, pipe
):
    monkeypatch.setattr(attention_wgmma, "PIPELINE", pipe)
    module, op = lowered(example.attention, D=dim, CAUSAL=causal, BM=bm, BN=bn)
    assert count(op, simt.UncheckedAsyncCopyOp) > 0 and count(op, MbarrierInitOp) == 8
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)
