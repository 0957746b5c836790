"""The pipelined GEMM main loop (lowering/tile_to_simt/gemm.py): which loops it takes, and what
it computes, on the interpreter (which runs the lowered kernel, checking every shared index and
every shared access for races) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32

from ferrox.dialects import simt
from ferrox.dialects import tile as tile_dialect
from ferrox.driver.interpreter.launch import find_kernel, run_simt_kernel
from ferrox.driver.interpreter.simt_ops import tile_support as chunk_ops
from ferrox.driver.interpreter.tile_lowered import lowered_module, simt_launch
from ferrox.lowering.tile_to_simt import gemm
from ferrox.lowering.tile_to_simt.convert import default_threads
from ferrox.lowering.tile_to_simt.gemm import FMA_STAGE_BUDGET, MAX_STAGES, x_layout
from ferrox.lowering.tile_to_simt.matrix import spaced_layout
from ferrox.parser import parse_module
from ferrox.registry import make_context

LOOP = """builtin.module {
  tile.kernel @mm(%c: !tile.partition<f32, [BM, BN]>, %a: !tile.tensor<T, [?, ?]>,
                  %b: !tile.tensor<T, [?, ?]>, %lo: index) {
    %i = tile.block_id 0
    %j = tile.block_id 1
    %k = tile.dim %a, 1 : !tile.tensor<T, [?, ?]>
    %c1 = arith.constant 1 : index
    %ck = arith.constant BK : index
    %ktiles = arith.ceildivui %k, %ck : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [BM, BN]>
    %acc = scf.for %kk = %lo to %ktiles step %c1 iter_args(%sum = %zero)
        -> (!tile.tile<f32, [BM, BN]>) {
      %x = tile.load %a[%i, %kk] XPAD: !tile.tensor<T, [?, ?]> -> !tile.tile<T, [BM, BK]>
      %y = tile.load %b[%kk, %j] : !tile.tensor<T, [?, ?]> -> !tile.tile<T, [BK, BN]>
      %next = tile.mma %x, %y, %sum
          : !tile.tile<T, [BM, BK]>, !tile.tile<T, [BK, BN]>, !tile.tile<f32, [BM, BN]>
      EXTRA
    }
    tile.store %acc, %c : !tile.tile<f32, [BM, BN]>, !tile.partition<f32, [BM, BN]>
    tile.return
  }
}
"""
YIELD = "scf.yield %next : !tile.tile<f32, [BM, BN]>"


def source(t: str, bm: int, bn: int, bk: int, xpad: str = "", extra: str = YIELD) -> str:
    text = LOOP.replace("EXTRA", extra).replace("XPAD", xpad)
    text = text.replace("BM", str(bm)).replace("BN", str(bn)).replace("BK", str(bk))
    return text.replace("<T,", f"<{t},")


# Lowered modules of this file, by source text and the values of `gemm`'s knobs at the lowering:
# the cases of a test (and several tests) run one kernel on other sizes, and a kernel's lowering
# does not depend on them (the operands' shapes are dynamic), so each kernel is lowered once; with
# it, its kernel and whether it copies asynchronously (facts of the lowered module alone, read
# once rather than walked again at every run).
_LOWERED: dict[tuple, tuple[ModuleOp, simt.KernelOp, bool]] = {}


def knobs() -> tuple:
    """The values of `gemm`'s module-level settings (the names the tests monkeypatch, and the
    rest), which choose what the lowering makes of one source."""
    return tuple(
        (name, value)
        for name, value in sorted(vars(gemm).items())
        if name.isupper() and isinstance(value, (bool, int, type(None)))
    )


def lower(text: str) -> tuple[ModuleOp, simt.KernelOp, bool]:
    """`text` lowered, its kernel @mm, and whether @mm copies asynchronously (itself or in the
    module's shared copy functions it calls)."""
    key = (text, knobs())
    entry = _LOWERED.get(key)
    if entry is None:
        lowered = lowered_module(parse_module(make_context(), text, "mm.mlir"))
        kernel = find_kernel(lowered, "mm")
        funcs = {op.sym_name.data: op for op in lowered.ops if isinstance(op, simt.FuncOp)}
        called = [
            funcs[op.callee.root_reference.data]
            for op in kernel.walk()
            if isinstance(op, simt.CallOp)
        ]
        pipelined = any(
            isinstance(op, simt.AsyncCopyOp) for f in (kernel, *called) for op in f.walk()
        )
        entry = _LOWERED[key] = (lowered, kernel, pipelined)
    return entry


def run(text: str, a: np.ndarray, b: np.ndarray, lo: int = 0, kernels: list | None = None):
    lowered, kernel, pipelined = lower(text)
    m, n = a.shape[0], b.shape[1]
    c = np.full((m, n), np.nan, np.float32)
    grid, block, args = simt_launch(kernel, [c, a, b, lo])
    assert kernel.contract is not None
    run_simt_kernel(lowered, "mm", (*grid, 1), block, args, kernel.contract.shared_bytes.data)
    if kernels is not None:
        kernels.append(kernel)
    return c, pipelined


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(13)


@pytest.mark.parametrize(
    ("t", "tile", "mkn"),
    [
        ("f16", (64, 64, 32), (70, 45, 90)),  # tensor cores (f16: NumPy holds it exactly)
        ("f16", (128, 128, 32), (130, 100, 129)),
        ("f16", (64, 128, 64), (64, 128, 64)),  # whole tiles only
        ("f32", (64, 64, 32), (70, 45, 90)),  # FMAs
        ("f32", (128, 128, 16), (129, 37, 150)),  # 8 x 8 a thread: x k-major
        ("f32", (128, 128, 8), (1, 3, 5)),  # k-major, every x tile ragged
        ("f32", (128, 64, 8), (1, 3, 65)),
    ],
)
def test_the_pipelined_loop_matches_numpy(rng, t, tile, mkn):
    m, k, n = mkn
    dtype = np.float16 if t == "f16" else np.float32
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    kernels: list = []
    c, pipelined = run(source(t, *tile), a, b, kernels=kernels)
    assert pipelined
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))
    # The k-major FMA loop (64 accumulators a thread) asks ptxas for two blocks an SM.
    deep = t == "f32" and tile[0] * tile[1] >= 64 * 256
    assert kernels[0].attributes.get("nvvm.minctasm") == (IntegerAttr(2, i32) if deep else None)


@pytest.mark.parametrize(("lo", "tile"), [(1, 64), (3, 64), (5, 64), (7, 128)])
def test_a_loop_that_starts_late_or_runs_no_iteration(rng, lo, tile):
    """Iterations from `lo`: the K tiles before it are left out; `lo` past the end leaves the
    accumulator's initial zeros (the prologue's copies of missing iterations read nothing).
    [128, 128] tiles take the k-major x stages (through registers)."""
    m, k, n = 64, 100, 64
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    bk = 32 if tile == 64 else 16
    c, pipelined = run(source("f32", tile, tile, bk), a, b, lo)
    assert pipelined
    start = min(bk * lo, k)
    want = a[:, start:].astype(np.float64) @ b[start:].astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.fixture
def unchecked(monkeypatch):
    """How many unchecked chunk loads and copies (one a lane each) the interpreter made."""
    seen = {"simt.unchecked_load_chunk": 0, "simt.unchecked_async_copy": 0}
    real = chunk_ops._unchecked_range

    def spy(ex, op, buffer, index, w, mask):
        if op.name in seen:
            seen[op.name] += int(np.count_nonzero(np.broadcast_to(mask, (ex.n,))))
        return real(ex, op, buffer, index, w, mask)

    monkeypatch.setattr(chunk_ops, "_unchecked_range", spy)
    return seen


def misaligned(shape: tuple[int, int], rng) -> np.ndarray:
    """A C-contiguous f32 array whose element 0 is 4 bytes past a 16-byte boundary."""
    backing = np.empty(shape[0] * shape[1] + 4, np.float32)
    skip = (4 - backing.ctypes.data // 4 % 4) % 4 + 1
    out = backing[skip : skip + shape[0] * shape[1]].reshape(shape)
    out[...] = rng.standard_normal(shape)
    assert out.ctypes.data % 16 == 4
    return out


def check_product(rng, t: str, tile, mkn, skew: bool) -> None:
    """The pipelined kernel of `tile` gives the float64 product of random `t` operands of sizes
    `mkn` (`x` misaligned where `skew`), outputs NaN-poisoned first."""
    m, k, n = mkn
    dtype = np.float16 if t == "f16" else np.float32
    a = misaligned((m, k), rng) if skew else rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c, pipelined = run(source(t, *tile), a, b)
    assert pipelined and np.isnan(c).sum() == 0
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))


@pytest.mark.parametrize("fast", [True, False], ids=["two-loops", "checked-only"])
@pytest.mark.parametrize(
    ("t", "tile", "mkn", "whole", "skew"),
    [
        ("f32", (128, 128, 8), (256, 32, 256), 4, False),  # every block's tiles whole
        ("f32", (128, 128, 8), (200, 64, 256), 2, False),  # the first block row only
        ("f32", (128, 128, 8), (256, 36, 256), 0, False),  # the last K tile is ragged
        ("f32", (128, 128, 8), (256, 30, 256), 0, False),  # a row is not 16-byte aligned
        ("f32", (128, 128, 8), (256, 32, 256), 0, True),  # nor is x's element 0
        ("f32", (128, 128, 8), (200, 100, 150), 0, False),  # the example's ragged sizes
        ("f32", (128, 128, 16), (256, 64, 200), 2, False),  # the first block column only
        ("f32", (64, 64, 32), (128, 64, 128), 4, False),  # x copied row-major
        ("f16", (64, 64, 32), (128, 64, 136), 4, False),  # tensor cores; 2 of 3 columns
    ],
)
def test_whole_tiles_take_the_unchecked_loop(
    rng, monkeypatch, unchecked, fast, t, tile, mkn, whole, skew
):
    """Where every tile a block's loop copies is whole (`gemm._Pipeline.loop_whole`), the block
    runs the loop's second version: unchecked loads and copies only, S - 1 issues before the
    loop and one per iteration, each every chunk of both tiles; every other block runs the
    checked loop (its k-major `x` loads masked), and the product is the same (outputs
    NaN-poisoned first). With the knob off, no copy is unchecked (a k-major `x` load keeps
    `tile.load`'s own whole-tile test)."""
    monkeypatch.setattr(gemm, "FAST_COPIES", fast)
    check_product(rng, t, tile, mkn, skew)
    m, k, n = mkn
    bm, bn, bk = tile
    w = 8 if t == "f16" else 4
    stages = MAX_STAGES  # 4 at these tiles; a k-major f32 loop's within FMA_STAGE_BUDGET
    if t == "f32" and bm * bn >= 128 * 128:
        stages = min(MAX_STAGES, FMA_STAGE_BUDGET // (4 * (bm * bk + bk * bn)))  # 2 at BK 16
    issues = stages - 1 + -(-k // bk)
    per_issue = (bm * bk + bk * bn) // w
    # a k-major x (through registers) is loaded once more: an iteration ahead (gemm.X_AHEAD)
    ahead = bm * bk // w if t == "f32" and bm * bn >= 128 * 128 and gemm.X_AHEAD else 0
    if fast:
        assert sum(unchecked.values()) == whole * (issues * per_issue + ahead)
    else:
        assert unchecked["simt.unchecked_async_copy"] == 0


@pytest.mark.parametrize(
    ("xpad", "extra"),
    [
        # a padding other than zero: cp.async zero-fills, so the loop stays unpipelined
        ("padding = nan ", YIELD),
        # anything else in the body
        (
            "",
            "%twice = tile.add %next, %next : !tile.tile<f32, [BM, BN]>\n"
            "      scf.yield %twice : !tile.tile<f32, [BM, BN]>",
        ),
    ],
    ids=["nan-padding", "extra-op"],
)
def test_other_loops_keep_the_generic_lowering(rng, xpad, extra):
    m, k, n = 64, 64, 64
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c, pipelined = run(source("f32", 64, 64, 32, xpad, extra), a, b)
    assert not pipelined
    want = a.astype(np.float64) @ b.astype(np.float64)
    if "twice" in extra:  # acc <- 2 (acc + x y) per k tile
        want = np.zeros((m, n))
        for s in range(0, k, 32):
            want = 2 * (want + a[:, s : s + 32].astype(np.float64) @ b[s : s + 32])
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


def element(layout, thread: int, reg: int) -> int:
    """The element (row-major bits) that register `reg` of `thread` holds."""
    bits = [(reg >> i & 1, b) for i, b in enumerate(layout.regs)]
    bits += [(thread >> q & 1, b) for q, b in enumerate(layout.lanes)]
    return sum(v << b for v, b in bits if b is not None)


def test_x_is_loaded_for_conflict_free_k_major_stores():
    """`x_layout`: whole 16-byte chunks along k in registers, no replicas, and the 32 lanes of
    a warp on 32 consecutive rows at one k, so each transposed shared store hits 32 banks."""
    m, k = 128, 16
    layout = x_layout(m, k, 256)
    assert layout.chunk_width() == 4 and None not in layout.lanes
    held = {element(layout, t, r) for t in range(256) for r in range(layout.num_regs)}
    assert held == set(range(m * k))
    for warp in range(8):
        for r in range(layout.num_regs):
            rc = [divmod(element(layout, 32 * warp + lane, r), k) for lane in range(32)]
            assert len({c for _, c in rc}) == 1
            assert [row for row, _ in rc] == list(range(rc[0][0], rc[0][0] + 32))


@pytest.mark.parametrize(("threads", "columns"), [(256, 2), (512, 4)])
def test_deep_accumulators_take_square_warps(threads, columns):
    """A [128, 128] accumulator over 256 threads (8 x 8 a thread) takes 4 x 8-thread warps;
    over 512 (32 a thread) 16 x 2."""
    layout = spaced_layout(128, 128, threads)
    assert layout is not None
    ln = 7  # log2 of 128 columns: element bits 0-6 are the column
    warp = layout.lanes[:5]
    assert sum(1 for b in warp if b is not None and b < ln) == columns


NESTED = """builtin.module {
  tile.kernel @mm(%c: !tile.partition<f32, [128, 128]>, %a: !tile.tensor<f32, [?, ?]>,
                  %b: !tile.tensor<f32, [?, ?]>, %lo: index) {
    %i = tile.block_id 0
    %j = tile.block_id 1
    %k = tile.dim %a, 1 : !tile.tensor<f32, [?, ?]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %ktiles = arith.ceildivui %k, %c8 : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [128, 128]>
    %twice = scf.for %r = %c0 to %c2 step %c1 iter_args(%total = %zero)
        -> (!tile.tile<f32, [128, 128]>) {
      %acc = scf.for %kk = %lo to %ktiles step %c1 iter_args(%sum = %total)
          -> (!tile.tile<f32, [128, 128]>) {
        %x = tile.load %a[%i, %kk] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [128, 8]>
        %y = tile.load %b[%kk, %j] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [8, 128]>
        %next = tile.mma %x, %y, %sum
            : !tile.tile<f32, [128, 8]>, !tile.tile<f32, [8, 128]>, !tile.tile<f32, [128, 128]>
        scf.yield %next : !tile.tile<f32, [128, 128]>
      }
      scf.yield %acc : !tile.tile<f32, [128, 128]>
    }
    tile.store %twice, %c : !tile.tile<f32, [128, 128]>, !tile.partition<f32, [128, 128]>
    tile.return
  }
}
"""


@pytest.mark.parametrize(("text", "arrays"), [(source("f32", 128, 128, 8), 1), (NESTED, 3)])
def test_the_store_reuses_the_stages_of_a_loop_that_runs_once(rng, text, arrays):
    """f32 stages are one array, which the store's round trip through shared memory takes over
    after the loop (`Lowering.donate`); a GEMM loop inside another loop runs again after the
    round trip, so there the stages and the round trip keep arrays of their own. The
    interpreter checks every shared access of both for races."""
    m, k, n = 256, 32, 200
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    kernels: list = []
    c, pipelined = run(text, a, b, kernels=kernels)
    assert pipelined
    times = 2 if text is NESTED else 1
    want = times * (a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    allocs = [op for op in kernels[0].walk() if isinstance(op, simt.SharedAllocOp)]
    assert len(allocs) == arrays


@pytest.mark.parametrize(
    ("bk", "mkn", "lo"),
    [
        (8, (256, 32, 256), 0),  # whole tiles: the unchecked loop
        (8, (200, 100, 150), 0),  # ragged: the checked loop
        (16, (129, 37, 150), 0),
        (8, (256, 8, 200), 0),  # one iteration
        (16, (256, 100, 256), 3),  # from the fourth K tile
        (8, (128, 64, 128), 9),  # no iteration
    ],
)
def test_the_rotated_loop_matches_numpy(rng, monkeypatch, bk, mkn, lo):
    """`gemm.ROTATE`: the k-major loop with its barrier before each iteration's last k and the
    next stage's first fragments carried across it gives the NumPy product; the interpreter
    checks every shared access for races (a fragment read after the barrier from the stage
    that the next iteration's copies overwrite would be one)."""
    monkeypatch.setattr(gemm, "ROTATE", True)
    m, k, n = mkn
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c, pipelined = run(source("f32", 128, 128, bk), a, b, lo)
    assert pipelined
    start = min(bk * lo, k)
    want = a[:, start:].astype(np.float64) @ b[start:].astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(
    ("t", "tile", "mkn", "skew"),
    [
        ("f32", (128, 128, 16), (256, 64, 256), False),  # whole tiles: the unchecked loop
        ("f32", (128, 128, 8), (200, 100, 150), False),  # ragged: the checked loop
        ("f32", (128, 128, 8), (256, 32, 256), True),  # x misaligned
        ("f32", (64, 64, 32), (128, 64, 200), False),  # x copied row-major; a ragged column
        ("f16", (64, 64, 32), (128, 64, 136), False),  # tensor cores
    ],
)
def test_split_copy_addresses_match_numpy(rng, monkeypatch, t, tile, mkn, skew):
    """`gemm.SPLIT_ADDRESS`: each copy's element index as its tile's first element plus its
    loop-invariant offset copies the same elements (the interpreter checks every index)."""
    monkeypatch.setattr(gemm, "SPLIT_ADDRESS", True)
    check_product(rng, t, tile, mkn, skew)


@pytest.mark.parametrize(
    ("bk", "mkn", "lo", "store_k", "narrow", "rotate"),
    [
        (8, (256, 32, 256), 0, None, False, False),  # whole tiles: the unchecked loop
        (16, (256, 64, 256), 0, 8, False, False),  # stored within the compute
        (16, (256, 64, 256), 1, 2, True, False),  # the i32 counter
        (8, (200, 100, 150), 0, 4, False, False),  # ragged: the checked loop
        (16, (129, 37, 150), 0, None, False, False),
        (8, (256, 8, 200), 0, 1, False, False),  # one iteration
        (8, (128, 64, 128), 9, None, False, False),  # no iteration
        (16, (256, 64, 256), 0, None, False, True),  # rotated: stored before the barrier
        (8, (200, 100, 150), 1, None, False, True),
    ],
)
def test_x_loaded_an_iteration_ahead_matches_numpy(
    rng, monkeypatch, bk, mkn, lo, store_k, narrow, rotate
):
    """`gemm.X_AHEAD` (and `gemm.X_STORE_K`): the k-major loop's `x` registers loaded an
    iteration before the one that stores them, stored after the compute, within it or (rotated)
    before the barrier, give the NumPy product; the interpreter checks every shared access for
    races and every unchecked load's bounds (the look-ahead past the end loads the last tile
    again, or nothing)."""
    monkeypatch.setattr(gemm, "X_AHEAD", True)
    monkeypatch.setattr(gemm, "X_STORE_K", store_k)
    monkeypatch.setattr(gemm, "NARROW_COUNTER", narrow)
    monkeypatch.setattr(gemm, "ROTATE", rotate)
    m, k, n = mkn
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c, pipelined = run(source("f32", 128, 128, bk), a, b, lo)
    assert pipelined and np.isnan(c).sum() == 0
    start = min(bk * lo, k)
    want = a[:, start:].astype(np.float64) @ b[start:].astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("narrow", [True, False], ids=["i32-counter", "index-counter"])
@pytest.mark.parametrize(("lo", "whole"), [(2, 4), (8, 4), (2**40, 0)])
def test_the_unchecked_loop_from_a_later_tile(rng, monkeypatch, unchecked, narrow, lo, whole):
    """The unchecked loop of a loop starting at K tile `lo` (its i32 counter, `gemm.NARROW_COUNTER`,
    or the `index` one): the tiles before `lo` are left out, a loop with no iteration copies
    the last tile S - 1 times (never past it); a start at 2^40 does not fit the i32 counter, so
    with it the checked loop runs (and runs no iteration)."""
    monkeypatch.setattr(gemm, "NARROW_COUNTER", narrow)
    m, k, n = 256, 64, 256
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c, pipelined = run(source("f32", 128, 128, 8), a, b, lo)
    assert pipelined
    start = min(8 * lo, k)
    want = a[:, start:].astype(np.float64) @ b[start:].astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)
    iterations = max(0, k // 8 - lo)
    if lo >= 2**30 and not narrow:
        whole = 4  # the index counter's loop takes any start
    per_issue = (128 * 8 + 8 * 128) // 4
    ahead = 128 * 8 // 4  # x's registers of one more iteration, ahead (gemm.X_AHEAD)
    assert sum(unchecked.values()) == whole * ((MAX_STAGES - 1 + iterations) * per_issue + ahead)


@pytest.mark.parametrize(
    ("t", "tile", "threads"),
    [
        ("f32", (128, 128, 16), 128),  # 16 x 8 accumulators a thread (8 x 8 over 256)
        ("f32", (128, 128, 8), 128),
        ("f32", (256, 128, 16), 256),  # 128 a thread over 256, the default
        ("f32", (128, 64, 16), 256),  # 32 a thread: not deep, the default
        ("f16", (128, 128, 32), 256),  # tensor cores
    ],
)
def test_a_deep_f32_gemm_takes_128_accumulators_a_thread(t, tile, threads):
    """`gemm.fma_threads` through `convert.default_threads`: a kernel whose f32 GEMM gives a
    thread 64 or more accumulators at the default thread count takes its tile over 128 threads
    instead, where that is fewer."""
    module = parse_module(make_context(), source(t, *tile), "mm.mlir")
    (kernel,) = [op for op in module.ops if isinstance(op, tile_dialect.KernelOp)]
    assert default_threads(kernel) == threads


def test_a_tile_too_big_for_fewer_threads_keeps_the_default():
    """Another tile of the kernel that would spread more than `MAX_ELEMENTS_PER_THREAD` over the
    fewer threads keeps the default count (a [256, 256] tile: 256 elements over 256 threads)."""
    store = "tile.store %acc, %c : !tile.tile<f32, [128, 128]>, !tile.partition<f32, [128, 128]>"
    big = "%big = tile.constant dense<0.0> : !tile.tile<f32, [256, 256]>\n    " + store
    module = parse_module(
        make_context(), source("f32", 128, 128, 16).replace(store, big), "mm.mlir"
    )
    (kernel,) = [op for op in module.ops if isinstance(op, tile_dialect.KernelOp)]
    assert default_threads(kernel) == 256
