"""The warpgroup tensor-core ops on the CPU interpreter, against NumPy: one m64n16k16 product read
from 128-byte swizzled shared tiles (the fragment layout and the swizzle), the faults the GPU's
rules imply (a tile start off the swizzle grid, indices that differ within a warpgroup, a tile
past the array), and the generated GEMM example at several configurations and sizes, ragged ones
included, on fresh random data with NaN-poisoned outputs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from ferrox.driver.interpreter.errors import KernelFault
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context


def _generator():
    """benchmarks/wgmma.py, loaded by its path (xDSL's wheel has a `benchmarks` package too)."""
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "wgmma.py"
    spec = importlib.util.spec_from_file_location("ferrox_bench_wgmma", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_gen = _generator()
EXAMPLE, Config, example_text = _gen.EXAMPLE, _gen.Config, _gen.example_text

# One warpgroup copies A (4096 bf16: 64 rows of 64) and B (1024: 16 rows) into shared memory
# as they are (so the arrays hold them in swizzled form: logical (r, c) at 64 r + (c ^ 8 (r % 8))),
# then multiplies the 64 x 16 tile of A starting at element %ia (plus %skew times the thread's
# warp) by the 16 x 16 tile of B at element 0, and writes each thread's value 0 and 1 of its
# fragment.
KERNEL = """builtin.module {
  simt.kernel @one(%a: !simt.slice<bf16>, %b: !simt.slice<bf16>, %out: !simt.disjoint_slice<f32, 1d>, %ia: index, %skew: index) contract<domain = 1, block = [128], shared_bytes = 10240> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>
    %t = simt.thread_id x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %z = arith.constant 0.0 : f32
    scf.for %j = %c0 to %c4 step %c1 {
      %j128 = arith.muli %j, %c128 : index
      %q = arith.addi %j128, %t : index
      %i = arith.muli %q, %c8 : index
      simt.unsafe {
        simt.async_copy %a[%i], %c8, %as[%i] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>
        simt.yield
      }
    }
    %ib = arith.muli %t, %c8 : index
    simt.unsafe {
      simt.async_copy %b[%ib], %c8, %bs[%ib] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>
      simt.yield
    }
    simt.async_commit
    simt.async_wait {pending = 0}
    simt.sync_threads
    %warp = arith.divui %t, %c32 : index
    %off = arith.muli %warp, %skew : index
    %ia2 = arith.addi %ia, %off : index
    %r:2 = simt.unsafe -> f32, f32 {
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%ia2], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %e:8 = simt.wgmma_wait %d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7 {pending = 0}
      simt.yield %e#0, %e#1 : f32, f32
    }
    %w = simt.thread_index_1d
    simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32):
      %s = arith.addf %r#0, %r#1 : f32
      simt.yield %s : f32
    }
    simt.return
  }
}"""


@pytest.fixture
def rng():
    return np.random.default_rng()


def _bf16(x: np.ndarray) -> np.ndarray:
    """float32 holding bf16 values (truncated), the interpreter's bf16 host format."""
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


def _logical(flat: np.ndarray) -> np.ndarray:
    """The matrix a 128-byte swizzled array holds: element (r, c) at 64 r + (c ^ 8 (r % 8))."""
    rows = flat.size // 64
    r, c = np.meshgrid(np.arange(rows), np.arange(64), indexing="ij")
    return flat[64 * r + (c ^ (8 * (r % 8)))]


def _one(a, b, ia=0, skew=0, kernel=KERNEL):
    module = parse_module(make_context(), kernel, "one.mlir")
    out = np.full(128, np.nan, np.float32)
    run_simt_kernel(module, "one", (1, 1, 1), (128, 1, 1), [a, b, out, ia, skew], 10240)
    return out


@pytest.mark.parametrize("ia", [0, 16, 48])
def test_one_wgmma_reads_swizzled_tiles_into_the_fragment_layout(rng, ia):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    got = _one(a, b, ia)
    r0, c0 = divmod(ia, 64)
    tile_a = _logical(a).astype(np.float64)[r0 : r0 + 64, c0 : c0 + 16]
    tile_b = _logical(b).astype(np.float64)[:16, :16]
    d = tile_a @ tile_b.T  # 64 x 16
    lane = np.arange(128)
    row, col = 16 * (lane // 32) + (lane % 32) // 4, 2 * (lane % 4)
    want = d[row, col].astype(np.float32) + d[row, col + 1].astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_f16_tiles(rng):
    a = rng.standard_normal(4096).astype(np.float16)
    b = rng.standard_normal(1024).astype(np.float16)
    got = _one(a, b, 16, kernel=KERNEL.replace("bf16", "f16"))
    d = _logical(a).astype(np.float64)[:64, 16:32] @ _logical(b).astype(np.float64)[:16, :16].T
    lane = np.arange(128)
    row, col = 16 * (lane // 32) + (lane % 32) // 4, 2 * (lane % 4)
    want = d[row, col].astype(np.float32) + d[row, col + 1].astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_a_tile_start_off_the_swizzle_grid_faults(rng):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    with pytest.raises(KernelFault) as e:
        _one(a, b, ia=8)
    assert (
        "'simt.wgmma' reads A from element 8 of %as: a tile starts at a row that is a multiple "
        "of 8 and a column of 0, 16, 32 or 48 (element % 512 in 0, 16, 32, 48)" in str(e.value)
    )


def test_indices_that_differ_within_the_warpgroup_fault(rng):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    with pytest.raises(KernelFault) as e:
        _one(a, b, ia=0, skew=16)
    assert "'simt.wgmma' needs the same indices on every thread of the warpgroup" in str(e.value)


def test_a_tile_past_the_array_traps(rng):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    with pytest.raises(KernelFault) as e:
        _one(a, b, ia=512)  # rows 8 .. 71 of a 64-row array
    assert "simt.wgmma (A) out of range: index 4096 of %as (length 4096)" in str(e.value)


# Two groups: one reading %bs, a barrier, one reading %cs; the wait with pending = 1 retires the
# first while the second runs on; then %bs is written. SIMT 8 allows it (this thread's group
# reading %bs is retired), but another thread may not have retired its own yet: without a
# barrier between the wait and the write, the interpreter reports the race, because it reads a
# group's tiles again when the wait retires it (the reads at the issue are in an earlier
# barrier interval, so they alone would not show it).
TWO_GROUPS = """
      simt.wgmma_fence
      %d:8 = simt.wgmma %as[%ia2], %bs[%c0], acc(%z, %z, %z, %z, %z, %z, %z, %z) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      simt.sync_threads
      simt.wgmma_fence
      %d2:8 = simt.wgmma %as[%ia2], %cs[%c0], acc(%d#0, %d#1, %d#2, %d#3, %d#4, %d#5, %d#6, %d#7) {n = 16} : !simt.shared<bf16, [4096]>, !simt.shared<bf16, [1024]>
      simt.wgmma_commit
      %w:8 = simt.wgmma_wait %d2#0, %d2#1, %d2#2, %d2#3, %d2#4, %d2#5, %d2#6, %d2#7 {pending = 1}
      BARRIER
      %y = arith.constant 3.0 : bf16
      simt.shared_store %y, %bs[%ib] : !simt.shared<bf16, [1024]>
      %e:8 = simt.wgmma_wait %w#0, %w#1, %w#2, %w#3, %w#4, %w#5, %w#6, %w#7 {pending = 0}
"""


def _two_groups(barrier: str) -> str:
    kernel = KERNEL.replace(
        "    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>\n",
        "    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>\n"
        "    %cs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [1024]>\n",
    )
    kernel = kernel.replace(
        "      simt.async_copy %b[%ib], %c8, %bs[%ib] {width = 8} : !simt.slice<bf16>, "
        "!simt.shared<bf16, [1024]>\n",
        "      simt.async_copy %b[%ib], %c8, %bs[%ib] {width = 8} : !simt.slice<bf16>, "
        "!simt.shared<bf16, [1024]>\n"
        "      simt.async_copy %b[%ib], %c8, %cs[%ib] {width = 8} : !simt.slice<bf16>, "
        "!simt.shared<bf16, [1024]>\n",
    )
    start = kernel.index("      simt.wgmma_fence\n")
    end = kernel.index("      simt.yield %e#0, %e#1")
    kernel = kernel[:start] + TWO_GROUPS.lstrip("\n").replace("BARRIER", barrier) + kernel[end:]
    return kernel.replace("shared_bytes = 10240", "shared_bytes = 12288")


def test_a_tile_written_after_its_group_retires_but_before_a_barrier_races(rng):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    module = parse_module(make_context(), _two_groups(""), "one.mlir")
    out = np.full(128, np.nan, np.float32)
    with pytest.raises(KernelFault) as e:
        run_simt_kernel(module, "one", (1, 1, 1), (128, 1, 1), [a, b, out, 0, 0], 12288)
    assert str(e.value).startswith(
        "one.mlir:46:7: error: data race on element 0 of %bs: thread (0, 0, 0) writes it here, "
        "and thread (124, 0, 0) read it "
    )
    assert str(e.value).endswith(
        "one.mlir:37:7: note: thread (124, 0, 0) of block (0, 0, 0) read element 0 of %bs here"
    )


def test_a_tile_written_after_its_group_retires_and_a_barrier(rng):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    module = parse_module(make_context(), _two_groups("simt.sync_threads"), "one.mlir")
    out = np.full(128, np.nan, np.float32)
    run_simt_kernel(module, "one", (1, 1, 1), (128, 1, 1), [a, b, out, 0, 0], 12288)
    d = 2 * (_logical(a).astype(np.float64)[:64, :16] @ _logical(b).astype(np.float64)[:16, :16].T)
    lane = np.arange(128)
    row, col = 16 * (lane // 32) + (lane % 32) // 4, 2 * (lane % 4)
    want = d[row, col].astype(np.float32) + d[row, col + 1].astype(np.float32)
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-6)


def test_the_example_is_the_generators_output():
    assert EXAMPLE.read_text() == example_text()


def _gemm(cfg: Config, a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    m, n = a.shape[0], b.shape[0]
    text = EXAMPLE.read_text() if cfg == Config() else example_text(cfg, host=False)
    module = parse_module(make_context(), text, "gemm_wgmma.mlir")
    c = np.full(m * n, np.nan, np.float32)
    grid = (-(-m // cfg.bm), -(-n // cfg.bn), 1)
    args = [a.reshape(-1), b.reshape(-1), c, m, n, k]
    run_simt_kernel(module, "gemm_wgmma", grid, (cfg.threads, 1, 1), args, cfg.shared_bytes)
    return c.reshape(m, n)


@pytest.mark.parametrize(
    ("cfg", "m", "n", "k"),
    [
        (Config(), 128, 256, 256),  # k: one round of stages + 1
        (Config(), 70, 200, 40),  # ragged: zero-filled copies, witnesses store inside C only
        # The other schedules at n = 64 (m64n64 products): the interpreter's cost grows with the
        # tile's width, and what each row tests is its schedule, not the width.
        (Config(2, 2, 64, 4), 256, 64, 128),  # two chains a warpgroup, 4 stages
        (Config(1, 2, 64, 5), 130, 64, 200),  # one warpgroup, two chains, 5 stages, rows past m
        (Config(2, 1, 64, 3, split=False, pending=0), 128, 64, 256),  # one ring array, wait 0
        (Config(2, 1, 64, 6, pending=2), 128, 64, 448),  # two groups in flight, ring wraps
    ],
)
def test_gemm_wgmma_against_numpy(rng, cfg, m, n, k):
    a, b = _bf16(rng.uniform(-1, 1, (m, k))), _bf16(rng.uniform(-1, 1, (n, k)))
    got = _gemm(cfg, a, b, k)
    exact = a.astype(np.float64) @ b.astype(np.float64).T
    bound = k * 2.0**-23 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64).T)
    assert np.all(np.abs(got - exact) <= bound + 1e-30)
