"""The fused attention loop with TMA stages (lowering/tile_to_simt/attention_tma.py, the knob
`TMA`): what the loop is made of (a 3-D TMA load a 64-column box, mbarrier waits and arrivals,
no block barrier and no `cp.async` in the loop), that it passes verify-disjoint and ptxas, that
the kernel names a portable twin, and its results on the CPU interpreter against float64
NumPy with a poisoned output (ragged sequences, two heads, causal, head dims 64 and 128)."""

# The fixture `example` comes from test_attention_fused; ruff takes its uses for redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import numpy as np
import pytest
from compiled import assembled
from xdsl.dialects.builtin import StringAttr

import ferrox
from ferrox.dialects import simt
from ferrox.dialects.simt.tma import MbarrierArriveOp, MbarrierWaitOp, TmaLoadOp
from ferrox.lowering.tile_to_simt import attention_tma, attention_wgmma
from ferrox.lowering.tile_to_simt.convert import convert_tile_to_simt
from ferrox.passes.verify_disjoint import collect
from ferrox.targets.kernel_facts import portable_of
from ferrox.targets.toolchain import find_ptxas
from ferrox.verify import verify_module

from .conftest import knobs
from .test_attention_fused import attention_split, count, example  # noqa: F401
from .test_attention_wgmma import key_loop

# Lowered modules, by the source's text and the lowering's settings: the interpreter cases (and
# the drift tests') share a lowering where they differ only in the sizes they run.
_LOWERED: dict[tuple, tuple] = {}


def lowered(kernel, **constants):
    """The module of `kernel` lowered for sm_90a, and its TMA kernel (the module's only one:
    its portable twin is compiled apart, when a launch needs it). Lowered once per source and
    settings in this process: callers read and run it, and must not change it."""
    module = kernel.module(**constants)
    key = (str(module), knobs())
    if key not in _LOWERED:
        module.attributes["ferrox.chip"] = StringAttr("sm_90a")
        convert_tile_to_simt(module)
        verify_module(module)
        (op,) = [op for op in module.walk() if isinstance(op, simt.KernelOp)]
        _LOWERED[key] = module, op
    return _LOWERED[key]


@pytest.fixture
def tma(monkeypatch):
    """The plain TMA loop: no turns, each product retired at once (tests may add either)."""
    monkeypatch.setattr(attention_tma, "TMA", True)
    monkeypatch.setattr(attention_tma, "PINGPONG", False)
    monkeypatch.setattr(attention_wgmma, "PIPELINE", False)


@pytest.fixture
def turns(tma, monkeypatch):
    monkeypatch.setattr(attention_tma, "PINGPONG", True)


def test_the_warpgroups_take_turns(example, turns):
    _, kernel = lowered(example.attention, D=64, CAUSAL=True, BN=64)
    loop = key_loop(kernel)
    # each product: warpgroup g syncs on barrier 1 + g, then arrives on the other's
    got = [
        (op.id.value.data, op.arrive is not None)
        for op in loop.walk()
        if isinstance(op, simt.NamedBarrierOp)
    ]
    assert got == [(1, False), (2, False), (2, True), (1, True)] * 2
    # before the loop warpgroup 1 arrives on 0's barrier, after it 0 syncs on it once more
    # and (`EVEN_WAITS`, on by default) 1 syncs alone on `ALONE`, evening racecheck's count
    outside = [op for op in kernel.walk() if isinstance(op, simt.NamedBarrierOp)]
    assert len(outside) == 8 + 3 and collect(kernel) == []
    alone = [op for op in outside if op.id.value.data == attention_tma.ALONE]
    assert len(alone) == 1 and alone[0].arrive is None


@pytest.mark.parametrize("dim, bn", [(64, 64), (128, 128)])
def test_the_loop_loads_by_tma_on_mbarriers(example, tma, dim, bn):
    module, kernel = lowered(example.attention, D=dim, CAUSAL=True, BN=bn)
    loop = key_loop(kernel)
    loads = [op for op in loop.walk() if isinstance(op, TmaLoadOp)]
    # k's and v's next tiles, a [BN, 64] box a 64 columns of the head dim, one plane deep
    assert len(loads) == 2 * dim // 64
    assert {op.box_shape for op in loads} == {(bn, 64)} and all(op.plane for op in loads)
    assert {op.swizzle.value.data for op in loads} == {128}
    # each product: warp 0's wait for the stage it refills, the wait for its own stage
    assert count(loop, MbarrierWaitOp) == 4 and count(loop, MbarrierArriveOp) == 2
    assert count(loop, simt.SyncThreadsOp) == 0 and count(loop, simt.AsyncCopyOp) == 0
    assert count(loop, simt.UncheckedAsyncCopyOp) == 0
    assert collect(kernel) == []
    # the launch needs tensor maps: the kernel names its portable twin (mma.sync), which the
    # module does not carry (a launch that needs it compiles it: test_attention_tma_launch.py)
    names = [op.sym_name.data for op in module.walk() if isinstance(op, simt.KernelOp)]
    assert names == ["attention"] and portable_of(kernel) == "attention__portable"


@pytest.mark.parametrize("turns_on", [False, True])
def test_pipelined_on_tma(example, tma, monkeypatch, turns_on):
    monkeypatch.setattr(attention_wgmma, "PIPELINE", True)
    monkeypatch.setattr(attention_tma, "PINGPONG", turns_on)
    _, kernel = lowered(example.attention, D=128, CAUSAL=True, BN=64)
    loop = key_loop(kernel)
    waits = [op for op in loop.walk() if isinstance(op, simt.WgmmaWaitOp)]
    assert [(op.pending.value.data, op.retired_count) for op in waits] == [(0, 0), (1, 32)]
    assert count(loop, TmaLoadOp) == 2 * 2 and count(loop, simt.SyncThreadsOp) == 0
    # warp 0's two waits for free stages, then k of t + 1 and v of t
    assert count(loop, MbarrierWaitOp) == 4
    assert count(loop, simt.NamedBarrierOp) == (4 if turns_on else 0)
    assert collect(kernel) == []


def test_on_by_default_pipelined_without_turns(example):
    """The default (measured fastest on the H200, and racecheck-clean): TMA stages and the
    pipelined loop (`PIPELINE` None: on TMA stages), the warpgroups not taking turns."""
    assert attention_tma.TMA and not attention_tma.PINGPONG and attention_wgmma.PIPELINE is None
    _, kernel = lowered(example.attention, D=64, CAUSAL=False)
    loop = key_loop(kernel)
    waits = [op for op in loop.walk() if isinstance(op, simt.WgmmaWaitOp)]
    assert [op.pending.value.data for op in waits] == [0, 1]
    assert count(loop, TmaLoadOp) == 2 and count(loop, simt.NamedBarrierOp) == 0
    assert count(loop, simt.SyncThreadsOp) == 0 and collect(kernel) == []


@pytest.mark.skipif(find_ptxas() is None, reason="no ptxas")
@pytest.mark.parametrize(
    "dim, bn, pingpong", [(64, 64, False), (128, 128, False), (128, 128, True)]
)
def test_ptx_assembles_for_sm90a_without_spills(example, tma, monkeypatch, dim, bn, pingpong):
    monkeypatch.setattr(attention_tma, "PINGPONG", pingpong)
    from ferrox.lowering.simt_to_nvvm import wgmma

    art = ferrox.compile(str(example.attention.module(D=dim, CAUSAL=True, BN=bn)), chip="sm_90")
    assert art.chip == wgmma.WGMMA_CHIP
    assert "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier" in art.ptx
    assert ("bar.sync 1, 256" in art.ptx) == attention_tma.PINGPONG
    assert len(art.kernels["attention"].tensor_maps) == 3  # q's (`TMA_Q`), k's and v's
    assert {m.planes_param for m in art.kernels["attention"].tensor_maps} != {-1}
    info = assembled(art.ptx, wgmma.WGMMA_CHIP).resources["attention"]  # the compile's run
    assert info.spill_stores == 0 and info.spill_loads == 0


RUNS = [
    # heads, seq, dim, causal, BN, two loops
    (1, 130, 64, False, 64, False),  # ragged last key block and query block
    (2, 70, 64, True, 64, False),  # two heads; seq shorter than a query block
    (1, 200, 64, True, 128, False),  # below, on and past the diagonal
    (2, 100, 128, False, 64, False),  # two boxes a tile; the second head's rows after the first's
    (1, 190, 128, True, 128, False),
    (1, 200, 64, True, 64, True),  # two loops a kernel: barriers of their own
]


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bn, two, pingpong, pipe",
    [(*r, False, False) for r in RUNS]
    + [(2, 190, 128, True, 64, False, True, False), (1, 200, 64, True, 64, True, True, False)]
    + [(*r, False, True) for r in RUNS[:4]]
    + [(1, 190, 128, True, 128, False, True, True), (1, 200, 64, True, 64, True, True, True)],
)
def test_matches_numpy_on_the_interpreter(
    example, interpreter, tma, monkeypatch, heads, seq, dim, causal, bn, two, pingpong, pipe
):
    monkeypatch.setattr(attention_tma, "PINGPONG", pingpong)
    monkeypatch.setattr(attention_wgmma, "PIPELINE", pipe)
    kernel = attention_split if two else example.attention
    module, op = lowered(kernel, D=dim, CAUSAL=causal, BN=bn)
    assert count(op, TmaLoadOp) > 0
    name = "attention_split" if two else "attention"
    matches_numpy(example, interpreter, module, name, heads, seq, dim, causal)


def matches_numpy(example, interpreter, module, name, heads, seq, dim, causal) -> None:
    """Kernel `name` of the lowered `module` on the interpreter, q, k and v random bf16 of
    `[heads, seq, dim]`, against the example's float64 reference (the output poisoned first)."""
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((heads, seq, dim))) for _ in range(3))
    out = np.full((heads, seq, dim), np.nan, np.float32)
    interpreter(module, name, [out, q, k, v])
    expected = example.reference(q.float32(), k.float32(), v.float32(), causal)
    assert not np.isnan(out).any()
    np.testing.assert_allclose(out, expected, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("heads, seq, dim, causal", [(2, 190, 64, True), (1, 130, 128, False)])
def test_the_default_matches_numpy_on_the_interpreter(
    example, interpreter, heads, seq, dim, causal
):
    """Every knob at its default, as sm_90 compiles the example (the CPU device's own run takes
    the mma.sync loop): TMA stages, `PIPELINE` None, which pipelines them, and no turns. Causal
    walks its two query blocks (the first ragged) heaviest first: the grid reversal's block ids
    feed the loop's bound and q's copy, its witnesses the store."""
    assert attention_tma.TMA and not attention_tma.PINGPONG and attention_wgmma.PIPELINE is None
    module, op = lowered(example.attention, D=dim, CAUSAL=causal)
    waits = [w.pending.value.data for w in key_loop(op).walk() if isinstance(w, simt.WgmmaWaitOp)]
    assert waits == [0, 1] and count(op, TmaLoadOp) > 0 and count(op, simt.NamedBarrierOp) == 0
    space = op.body.blocks[0].args[0].type.space
    assert space.get_grid_reverse() == ((1,) if causal else ())
    matches_numpy(example, interpreter, module, "attention", heads, seq, dim, causal)
