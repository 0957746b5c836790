"""16-bit outputs: `tile.store` of `tile.astype` (f32 -> bf16 or f16) into a 16-bit partition,
the f32 result rounded once in registers. The GEMM's wgmma epilogue hands its sums on in the
8-element chunks of the 16-bit store (`gemm_wgmma.stored_element`), so nothing goes through
shared memory but the f32 slabs it had; a whole chunk is one 16-byte store whose halves pair
up into `cvt.rn.bf16x2.f32` (simt_to_nvvm/tile_support.py `_chunk_value`). The fused
attention converts in its fragment layout and stages the output in bf16. Checked: what the
lowered kernels hold, verify-disjoint, the PTX, and the interpreter's values against NumPy on
ragged shapes with NaN-poisoned outputs: every element of a GEMM's C lies between the
roundings of `exact - bound` and `exact + bound` (rounding is monotonic, the f32 sum is within
the bound)."""

# The fixture `example` comes from test_attention_fused; ruff takes its uses for redefinitions:
# ruff: noqa: F811

from __future__ import annotations

import re

import numpy as np
import pytest
from bf16_step import bf16_step
from tile_gemm import matmul
from xdsl.dialects.builtin import BFloat16Type, StringAttr

import ferrox
from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt.convert import convert_tile_to_simt
from ferrox.passes.verify_disjoint import collect
from ferrox.verify import verify_module

from .conftest import lower_text, simt_kernel
from .test_attention_fused import count, example  # noqa: F401


def poisoned(shape, out: str):
    """A NaN-filled output of element `out` (bf16, f16, f32): bf16 bits (`ferrox.to_bf16`) or
    a NumPy array."""
    nan = np.full(shape, np.nan, np.float32)
    if out == "bf16":
        return ferrox.to_bf16(nan)
    return nan.astype(np.float16) if out == "f16" else nan


def values(c) -> np.ndarray:
    return c.float32() if hasattr(c, "float32") else np.asarray(c, np.float32)


def rounded(x: np.ndarray, out: str) -> np.ndarray:
    """float64 values rounded once to `out`, as float32."""
    if out == "bf16":
        return ferrox.to_bf16(x).float32()
    return x.astype(np.float16).astype(np.float32)  # NumPy rounds float64 to half correctly


def rounded_bounds(x, y, out: str) -> tuple[np.ndarray, np.ndarray]:
    """The roundings to `out` of the two ends of the f32 bound around `x @ y`
    (tile_gemm.within_f32_sum_bound), the float64 ends widened far past their own rounding:
    every rounding of an f32 sum within the bound lies between them (rounding is monotonic)."""
    exact = x.astype(np.float64) @ y.astype(np.float64)
    bound = x.shape[1] * 2.0**-23 * (np.abs(x).astype(np.float64) @ np.abs(y).astype(np.float64))
    slack = bound + 2.0**-40 * np.abs(exact)
    return rounded(exact - slack, out), rounded(exact + slack, out)


def within_rounded_bound(got, x, y, out: str) -> np.ndarray:
    """Where `got` is a rounding to `out` of some f32 sum of `x @ y` within the f32 bound."""
    low, high = rounded_bounds(x, y, out)
    return (low <= got) & (got <= high)


def operands(rng, m: int, n: int, k: int, el: str):
    """Random `[m, k]` and `[k, n]` operands of `el`, and their values as float32."""
    x, y = rng.uniform(-1, 1, (m, k)), rng.uniform(-1, 1, (k, n))
    if el == "bf16":
        a, b = ferrox.to_bf16(x), ferrox.to_bf16(y)
        return a, b, a.float32(), b.float32()
    a, b = x.astype(np.float16), y.astype(np.float16)
    return a, b, a.astype(np.float32), b.astype(np.float32)


def test_the_check_has_teeth():
    """One bf16 step past either end of the bound, or the f32 sum left unrounded, is caught
    (the step is from the bound's end, not from the exact rounding, which may lie one step
    inside it)."""
    rng = np.random.default_rng()
    _, _, x, y = operands(rng, 16, 16, 40, "bf16")
    exact = x.astype(np.float64) @ y.astype(np.float64)
    good = rounded(exact, "bf16")
    assert within_rounded_bound(good, x, y, "bf16").all()
    low, high = rounded_bounds(x, y, "bf16")
    assert bf16_step(1.0, True) == np.float32(1 + 2.0**-7)
    assert bf16_step(-1.0, True) == np.float32(-1 + 2.0**-8)
    for i, j in [(3, 5), (0, 0), (15, 15)]:
        for past in (bf16_step(high[i, j], True), bf16_step(low[i, j], False)):
            off = good.copy()
            off[i, j] = past
            assert not within_rounded_bound(off, x, y, "bf16")[i, j], (i, j, past)
    unrounded = exact.astype(np.float32)
    assert not within_rounded_bound(unrounded, x, y, "bf16").all()


# -- the GEMM on wgmma -------------------------------------------------------------------------


def wgmma_kernel(tiles=(128, 256, 64), out: str = "bf16"):
    module = lower_text(matmul(*tiles, chip="sm_90a", out=out))
    return module, simt_kernel(module, "mm")


def shared_arrays(kernel) -> list[tuple[str, int]]:
    return [
        (str(op.result.type.element_type), op.result.type.num_elements)
        for op in kernel.walk()
        if isinstance(op, simt.SharedAllocOp)
    ]


@pytest.mark.parametrize("tiles", [(128, 256, 64), (128, 128, 64), (256, 128, 64)])
def test_the_epilogue_hands_on_the_chunks_of_the_bf16_store(tiles):
    """The conversion needs no exchange of its own: the bf16 kernel's shared arrays are the f32
    kernel's (the stages and the epilogue's f32 slabs), every store is of 8 bf16 (16 bytes),
    and the kernel passes verify-disjoint."""
    _, kernel = wgmma_kernel(tiles, "bf16")
    _, f32_kernel = wgmma_kernel(tiles, "f32")
    assert count(kernel, simt.WgmmaOp) > 0
    assert shared_arrays(kernel) == shared_arrays(f32_kernel)
    assert kernel.contract.shared_bytes.data == f32_kernel.contract.shared_bytes.data
    stores = [
        op for op in kernel.walk() if isinstance(op, simt.StoreChunkOp | simt.UncheckedStoreChunkOp)
    ]
    assert stores and all(len(op.values) == 8 for op in stores)
    assert all(isinstance(op.values[0].type, BFloat16Type) for op in stores)
    chunks = tiles[0] * tiles[1] // 8 // kernel.contract.block_xyz[0]
    assert count(kernel, simt.UncheckedStoreChunkOp) == count(kernel, simt.StoreChunkOp) == chunks
    assert collect(kernel) == []


def tma_kernel_ptx(text: str) -> str:
    art = ferrox.compile(text, chip="sm_90")
    assert art.chip == "sm_90a"
    return art.ptx.split(".entry mm__portable")[0]


def test_whole_chunks_are_16_byte_stores_of_packed_pairs():
    """Each whole chunk is one `st.global.v4.b32` of four `cvt.rn.bf16x2.f32` pairs; a single
    conversion feeds only a 2-byte store of the ragged fallback (a chunk cut by the tensor's
    edge or misaligned, element by element as the f32 output's 4-byte one is)."""
    ptx = tma_kernel_ptx(matmul(128, 256, 64, out="bf16"))
    pairs = len(re.findall(r"cvt\.rn\.bf16x2\.f32", ptx))
    singles = len(re.findall(r"cvt\.rn\.bf16\.f32", ptx))
    vectors = len(re.findall(r"st\.global\.v4\.b32", ptx))
    scalars = len(re.findall(r"st\.global\.b16", ptx))
    chunks = 128 * 256 // 8 // 256
    assert vectors == 2 * chunks  # the whole-tile path's and the masked path's
    assert pairs == 4 * vectors
    assert singles == scalars == 8 * chunks
    assert "st.global.b32" not in ptx and "st.global.v2" not in ptx
    f32_ptx = tma_kernel_ptx(matmul(128, 256, 64))
    assert len(re.findall(r"st\.global\.v4\.b32", f32_ptx)) == 2 * vectors  # half the stores


@pytest.mark.parametrize(
    "el, tiles, mnk",
    [
        ("bf16", (128, 256, 64), (140, 270, 130)),  # slabs cut on the warpgroup bit
        ("bf16", (128, 128, 64), (130, 200, 300)),
        ("f16", (256, 128, 64), (260, 130, 70)),
        ("bf16", (128, 128, 64), (129, 131, 70)),  # odd rows: no chunk whole and aligned
    ],
)
def test_wgmma_gemm_with_a_16_bit_output_matches_numpy(interpreter, el, tiles, mnk):
    """Within the bound, and exactly the f32 output's kernel's sums rounded once: the same
    products in the same order, then one rounding."""
    m, n, k = mnk
    module = lower_text(matmul(*tiles, el=el, chip="sm_90a", out=el))
    assert count(simt_kernel(module, "mm"), simt.WgmmaOp) > 0
    a, b, x, y = operands(np.random.default_rng(), m, n, k, el)
    c = poisoned((m, n), el)
    interpreter(module, "mm", [c, a, b])
    got = values(c)
    assert not np.isnan(got).any()
    assert within_rounded_bound(got, x, y, el).all()
    sums = poisoned((m, n), "f32")
    interpreter(lower_text(matmul(*tiles, el=el, chip="sm_90a")), "mm", [sums, a, b])
    assert np.array_equal(got, rounded(sums.astype(np.float64), el))


@pytest.mark.parametrize(
    "knob, tiles, mnk",
    [
        # two ragged tiles each way (12 rows, 24 columns) and 4 trips, the last ragged: one
        # whole round of the 4-stage ring (was 300 rows: a third row of tiles, 1.5x the work)
        ("gemm_specialized.WARP_SPECIALIZE", (128, 256, 64), (140, 280, 200)),
        ("gemm_wgmma.PERSISTENT", (256, 128, 64), (300, 264, 130)),
    ],
)
def test_the_other_schedules_round_the_same(interpreter, monkeypatch, knob, tiles, mnk):
    """The warp-specialised loop and the persistent one take the same epilogue: their bf16 C
    is their f32 C rounded once, bit for bit."""
    import importlib

    module_name, _, name = knob.partition(".")
    target = importlib.import_module(f"ferrox.lowering.tile_to_simt.{module_name}")
    monkeypatch.setattr(target, name, True)
    m, n, k = mnk
    a, b, _, _ = operands(np.random.default_rng(), m, n, k, "bf16")
    got = {}
    made = simt.SpecializeOp if "SPECIALIZE" in knob else simt.TileScheduleOp
    for out in ("f32", "bf16"):
        module = lower_text(matmul(*tiles, chip="sm_90a", out=out))
        assert count(simt_kernel(module, "mm"), made) == 1  # the schedule the knob asks for
        c = poisoned((m, n), out)
        interpreter(module, "mm", [c, a, b])
        got[out] = values(c)
    assert not np.isnan(got["bf16"]).any()
    assert np.array_equal(got["bf16"], rounded(got["f32"].astype(np.float64), "bf16"))


@pytest.mark.parametrize("chip, tiles", [("", (64, 64, 32)), ("sm_90a", (64, 64, 32))])
def test_mma_sync_gemm_with_a_bf16_output_matches_numpy(interpreter, chip, tiles):
    """The portable path (mma.sync): its output converted in the fragment layout and staged in
    bf16 through shared memory."""
    module = lower_text(matmul(*tiles, chip=chip, out="bf16"))
    assert count(simt_kernel(module, "mm"), simt.MmaSyncOp) > 0
    a, b, x, y = operands(np.random.default_rng(), 100, 70, 90, "bf16")
    c = poisoned((100, 70), "bf16")
    interpreter(module, "mm", [c, a, b])
    assert within_rounded_bound(values(c), x, y, "bf16").all()


def test_the_f32_epilogue_is_unchanged():
    """The f32 output's loop result is made in the f32 store's chunks (4 a thread), as before;
    `tile_matmul` kernels store it with no conversion."""
    from ferrox.lowering.tile_to_simt.gemm_wgmma import stored_element

    module = ferrox.parser.parse_module(
        ferrox.registry.make_context(), matmul(128, 256, 64, out="f32"), "mm.mlir"
    )
    loop = next(op for op in module.walk() if op.name == "scf.for")
    assert str(stored_element(loop)) == "f32"
    module16 = ferrox.parser.parse_module(
        ferrox.registry.make_context(), matmul(128, 256, 64, out="bf16"), "mm.mlir"
    )
    loop16 = next(op for op in module16.walk() if op.name == "scf.for")
    assert str(stored_element(loop16)) == "bf16"


# -- the fused attention -----------------------------------------------------------------------


def attention_module(example, **constants):
    module = example.attention.module(**constants)
    module.attributes["ferrox.chip"] = StringAttr("sm_90a")
    convert_tile_to_simt(module)
    verify_module(module)
    kernels = [op for op in module.walk() if isinstance(op, simt.KernelOp)]
    (op,) = [k for k in kernels if not k.sym_name.data.endswith("__portable")]
    return module, op


def test_attention_stores_chunks_of_8_bf16(example):
    """The default sm_90 loop (TMA stages) with `OUT_BF16`: the output is staged in bf16 (an
    array of half the f32 one's bytes) and stored 8 bf16 a chunk; it passes verify-disjoint."""
    _, op = attention_module(example, D=128, BN=128, OUT_BF16=True)
    _, f32_op = attention_module(example, D=128, BN=128)
    stores = [o for o in op.walk() if isinstance(o, simt.StoreChunkOp | simt.UncheckedStoreChunkOp)]
    assert stores and all(len(o.values) == 8 for o in stores)
    assert all(isinstance(o.values[0].type, BFloat16Type) for o in stores)
    assert op.contract.shared_bytes.data < f32_op.contract.shared_bytes.data
    assert collect(op) == []


@pytest.mark.parametrize(
    "heads, seq, dim, causal, bn",
    [(2, 130, 64, False, 64), (1, 190, 128, True, 128), (2, 70, 64, True, 64)],
)
def test_attention_with_a_bf16_output_matches_numpy(
    example, interpreter, heads, seq, dim, causal, bn
):
    module, op = attention_module(example, D=dim, CAUSAL=causal, BN=bn, OUT_BF16=True)
    assert count(op, simt.WgmmaRegAOp) > 0
    rng = np.random.default_rng()
    q, k, v = (ferrox.to_bf16(rng.standard_normal((heads, seq, dim))) for _ in range(3))
    out = poisoned((heads, seq, dim), "bf16")
    interpreter(module, "attention", [out, q, k, v])
    got = out.float32()
    expected = example.reference(q.float32(), k.float32(), v.float32(), causal)
    assert not np.isnan(got).any()
    # p's rounding to bf16 (relative 2^-9) and the output's own (2^-8 at most)
    np.testing.assert_allclose(got, expected, rtol=1e-2 + 2.0**-8, atol=1e-2)
    f32_module, _ = attention_module(example, D=dim, CAUSAL=causal, BN=bn)
    f32_out = poisoned((heads, seq, dim), "f32")
    interpreter(f32_module, "attention", [f32_out, q, k, v])
    assert np.array_equal(got, ferrox.to_bf16(f32_out).float32())  # the f32 output, rounded once
