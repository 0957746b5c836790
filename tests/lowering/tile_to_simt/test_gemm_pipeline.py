"""The pipelined GEMM main loop (lowering/tile_to_simt/gemm.py): which loops it takes, and what
it computes, on the interpreter (which runs the lowered kernel, checking every shared index and
every shared access for races) against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.dialects import simt
from ferrox.driver.interpreter.launch import find_kernel, run_simt_kernel
from ferrox.driver.interpreter.tile_lowered import lowered_module, simt_launch
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


def run(text: str, a: np.ndarray, b: np.ndarray, lo: int = 0):
    module = parse_module(make_context(), text, "mm.mlir")
    lowered = lowered_module(module)
    kernel = find_kernel(lowered, "mm")
    m, n = a.shape[0], b.shape[1]
    c = np.full((m, n), np.nan, np.float32)
    grid, block, args = simt_launch(kernel, [c, a, b, lo])
    assert kernel.contract is not None
    run_simt_kernel(lowered, "mm", (*grid, 1), block, args, kernel.contract.shared_bytes.data)
    # The copies are the kernel's own or its calls of the module's shared copy functions.
    funcs = {op.sym_name.data: op for op in lowered.ops if isinstance(op, simt.FuncOp)}
    called = [
        funcs[op.callee.root_reference.data] for op in kernel.walk() if isinstance(op, simt.CallOp)
    ]
    pipelined = any(isinstance(op, simt.AsyncCopyOp) for f in (kernel, *called) for op in f.walk())
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
        ("f32", (128, 128, 16), (129, 37, 150)),
        ("f32", (128, 64, 8), (1, 3, 65)),
    ],
)
def test_the_pipelined_loop_matches_numpy(rng, t, tile, mkn):
    m, k, n = mkn
    dtype = np.float16 if t == "f16" else np.float32
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c, pipelined = run(source(t, *tile), a, b)
    assert pipelined
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.sqrt(k))


@pytest.mark.parametrize("lo", [1, 3, 5])
def test_a_loop_that_starts_late_or_runs_no_iteration(rng, lo):
    """Iterations from `lo`: the K tiles before it are left out; `lo` past the end leaves the
    accumulator's initial zeros (the prologue's copies of missing iterations read nothing)."""
    m, k, n = 64, 100, 64
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c, pipelined = run(source("f32", 64, 64, 32), a, b, lo)
    assert pipelined
    start = min(32 * lo, k)
    want = a[:, start:].astype(np.float64) @ b[start:].astype(np.float64)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-4)


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
