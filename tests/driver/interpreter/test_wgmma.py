"""The warpgroup tensor-core ops on the CPU interpreter, against NumPy: one m64n16k16 product read
from 128-byte swizzled shared tiles (the fragment layout and the swizzle), the faults the GPU's
rules imply (a tile start off the swizzle grid, indices that differ within a warpgroup, a tile
past the array), the generated GEMM example at several configurations and sizes, ragged ones
included, on fresh random data with NaN-poisoned outputs, and the register-A form
(`simt.wgmma_reg_a`: two chained k steps, K-major and MN-major B, n = 64 and 128)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from ferrox.dialects.simt.wgmma import fragment_position
from ferrox.driver.interpreter.errors import KernelFault
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.driver.interpreter.memory import steps_disjoint
from ferrox.driver.interpreter.simt_ops import shared as shared_ops
from ferrox.driver.interpreter.simt_ops import wgmma as wgmma_ops
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


# --- the tile reads in one batch (simt_ops/shared.load_steps) against the step-by-step loads ---


def _outcome(monkeypatch, run, batched: bool):
    """`run()`'s result (or its fault's text) and every shared array's values and race records,
    with the wgmma's tiles read (and fragments and copies stored) in one batch or (`batched`
    False) one load (store) per row and k step."""
    made = []
    real = shared_ops.shared_buffer

    def alloc(*args):
        made.append(real(*args))
        return made[-1]

    with monkeypatch.context() as patch:
        patch.setattr(shared_ops, "shared_buffer", alloc)
        if not batched:  # every tile read and multi-step store step by step
            patch.setattr(shared_ops, "batched", lambda *args: False)
            patch.setattr(wgmma_ops, "batched", lambda *args: False)
            patch.setattr(shared_ops, "steps_disjoint", lambda *args: False)
        try:
            result = run()
        except KernelFault as e:
            result = str(e)
    race = [(b.race.thread, b.race.op, b.race.interval, b.race.warp_epoch) for b in made]
    return result, [b.array for b in made], race


def _same_both_ways(monkeypatch, run):
    """Run `run` batched and step by step: the same result or fault, the same shared memory and
    the same recorded readers and writers. Returns the batched result."""
    got, arrays, race = _outcome(monkeypatch, run, True)
    want, want_arrays, want_race = _outcome(monkeypatch, run, False)
    if isinstance(want, str):
        assert got == want
    else:
        np.testing.assert_array_equal(got, want)
    for a, b in zip(
        arrays + [r for rows in race for r in rows],
        want_arrays + [r for rows in want_race for r in rows],
    ):
        np.testing.assert_array_equal(a, b)
    assert len(arrays) == len(want_arrays) > 0
    return got


def _kernel_run(kernel, a, b, ia=0, skew=0, shared=10240):
    module = parse_module(make_context(), kernel, "one.mlir")

    def run():
        out = np.full(128, np.nan, np.float32)
        run_simt_kernel(module, "one", (1, 1, 1), (128, 1, 1), [a, b, out, ia, skew], shared)
        return out

    return run


@pytest.mark.parametrize("ia", [0, 48, 512])  # 512: A's rows 8 .. 71 of 64, a trap
def test_batched_tile_reads_are_the_step_by_step_ones(monkeypatch, rng, ia):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    got = _same_both_ways(monkeypatch, _kernel_run(KERNEL, a, b, ia))
    if ia == 512:  # the first step out of range is row 8 + 56 + 8 (j = 1), first at lane 96
        assert "simt.wgmma (A) out of range: index 4096 of %as (length 4096)" in got
        assert "thread (96, 0, 0)" in got


@pytest.mark.parametrize("barrier", ["", "simt.sync_threads"])
def test_batched_retire_is_the_step_by_step_one(monkeypatch, rng, barrier):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    run = _kernel_run(_two_groups(barrier), a, b, shared=12288)
    got = _same_both_ways(monkeypatch, run)
    assert isinstance(got, str) == (barrier == "")


def test_batched_reads_in_the_generated_gemm_are_the_step_by_step_ones(monkeypatch, rng):
    """Two warpgroups reading one B tile, a ring array holding every stage, wait 0."""
    cfg, m, n, k = Config(2, 1, 64, 3, split=False, pending=0), 100, 64, 80
    a, b = _bf16(rng.uniform(-1, 1, (m, k))), _bf16(rng.uniform(-1, 1, (n, k)))
    got = _same_both_ways(monkeypatch, lambda: _gemm(cfg, a, b, k))
    exact = a.astype(np.float64) @ b.astype(np.float64).T
    bound = k * 2.0**-23 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64).T)
    assert np.all(np.abs(got - exact) <= bound + 1e-30)


def test_steps_that_share_an_element_are_read_step_by_step():
    assert steps_disjoint(np.array([[0, 1, 1], [2, 3, 3]]), 4)
    assert not steps_disjoint(np.array([[0, 1], [2, 1]]), 4)
    assert steps_disjoint(np.array([[5, 5]]), 6)


def _with(kernel: str, after: str, lines: str) -> str:
    """`kernel` with `lines` inserted after the (first) line that holds `after`."""
    at = kernel.index("\n", kernel.index(after)) + 1
    return kernel[:at] + lines + kernel[at:]


STORE = """      %y = arith.constant 3.0 : bf16
      simt.shared_store %y, %bs[%ib] : !simt.shared<bf16, [1024]>
"""


def test_a_store_into_a_tile_in_flight_races_with_the_wgmma(monkeypatch, rng):
    """Each thread t stores element 8 t of B's tile after the wgmma, before its wait and any
    barrier: thread 0's store of element 0 races with the last reader of it the wgmma recorded
    (thread 124: lanes 0, 4, .., 124 read B's column 0 at k 0)."""
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    kernel = _with(KERNEL, "simt.wgmma_commit", STORE)
    got = _same_both_ways(monkeypatch, _kernel_run(kernel, a, b))
    assert got.startswith(
        "one.mlir:38:7: error: data race on element 0 of %bs: thread (0, 0, 0) writes it here, "
        "and thread (124, 0, 0) read it at one.mlir:35:7 in the same barrier interval"
    )
    assert got.endswith(
        "one.mlir:35:7: note: thread (124, 0, 0) of block (0, 0, 0) read element 0 of %bs here"
    )


def test_a_wgmma_reading_a_store_of_its_barrier_interval_races(monkeypatch, rng):
    """The stores of the test above before the fence instead: the first lane of the first step
    of B whose element another thread wrote reports it (lane 1 reads column 2 at k 0, element
    2 * 64 + (0 ^ 16) = 144, which thread 18 wrote; lane 0's element 0 is its own)."""
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    kernel = _with(
        KERNEL, "%ia2 = arith.addi", "    simt.unsafe {\n" + STORE + "      simt.yield\n    }\n"
    )
    got = _same_both_ways(monkeypatch, _kernel_run(kernel, a, b))
    assert "data race on element 144 of %bs: thread (1, 0, 0) reads it here, and thread " in got
    assert "(18, 0, 0) wrote it at" in got


# KERNEL with its tiles loaded by TMA instead: thread 0 loads the 64 x 64 bf16 A and a 16 x 64 B
# (128-byte swizzled) on one mbarrier, all wait for it; REFILL (thread 0 loading B's tile again,
# the barrier's next phase) comes BEFORE or AFTER the wgmma's wait.
TMA_ISSUE = """      %first = arith.cmpi eq, %t, %c0 : index
      %c16 = arith.constant 16 : index
      %c64 = arith.constant 64 : index
      %nab = arith.constant 10240 : index
      %nb = arith.constant 2048 : index
      scf.if %first {
        simt.mbarrier_init %bar[%c0], %c1 : !simt.shared<i64, [1]>
        simt.tma_load %a[%c0, %c0] shape(%c64, %c64), %as[%c0], %bar[%c0] {box = array<i64: 64, 64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>
        LOAD_B
        simt.mbarrier_arrive_expect_tx %bar[%c0], %nab : !simt.shared<i64, [1]>
      }
      simt.mbarrier_wait %bar[%c0], %c0 : !simt.shared<i64, [1]>
"""
LOAD_B = (
    "simt.tma_load %b[%c0, %c0] shape(%c16, %c64), %bs[%c0], %bar[%c0] {box = array<i64: 16, "
    "64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [1024]>, !simt.shared<i64, [1]>"
)


def _tma_kernel(before: str, after: str) -> str:
    bar = "    %bar = simt.shared_alloc {dynamic} : !simt.shared<i64, [1]>\n"
    kernel = _with(KERNEL, "%bs = simt.shared_alloc", bar)
    copies = kernel.index("    scf.for %j")
    kernel = kernel[:copies] + kernel[kernel.index("    %warp = ") :]
    kernel = _with(kernel, "%r:2 = simt.unsafe", TMA_ISSUE.replace("LOAD_B", LOAD_B))
    kernel = _with(kernel, "simt.wgmma_commit", before)
    wait = "      simt.mbarrier_wait %bar[%c0], %c1 : !simt.shared<i64, [1]>\n"
    kernel = _with(kernel, "%e:8 = simt.wgmma_wait", after + wait)
    return kernel.replace("shared_bytes = 10240", "shared_bytes = 10248")


REFILL = f"""      scf.if %first {{
        {LOAD_B}
        simt.mbarrier_arrive_expect_tx %bar[%c0], %nb : !simt.shared<i64, [1]>
      }}
"""


def test_a_tma_refill_after_the_wait_gives_the_product(monkeypatch, rng):
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    kernel = _tma_kernel("", REFILL)
    got = _same_both_ways(monkeypatch, _kernel_run(kernel, a, b, shared=10248))
    d = (
        a.reshape(64, 64).astype(np.float64)[:, :16]
        @ b.reshape(16, 64).astype(np.float64)[:, :16].T
    )
    lane = np.arange(128)
    row, col = 16 * (lane // 32) + (lane % 32) // 4, 2 * (lane % 4)
    want = d[row, col].astype(np.float32) + d[row, col + 1].astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_a_tma_refill_of_a_tile_in_flight_traps_at_the_wait(monkeypatch, rng):
    """The refill before the wgmma's wait: the copy may land while the tensor cores read B."""
    a, b = _bf16(rng.standard_normal(4096)), _bf16(rng.standard_normal(1024))
    kernel = _tma_kernel(REFILL, "")
    got = _same_both_ways(monkeypatch, _kernel_run(kernel, a, b, shared=10248))
    assert (
        "element 0 of %bs, which a 'simt.wgmma' reads, changed before the 'simt.wgmma_wait' "
        "that retires its group"
    ) in got


# --- simt.wgmma_reg_a: A from the warpgroup's registers -------------------------------------


def _reg_a_kernel(n: int, length: int, starts: tuple[int, int], mn_stride: int | None) -> str:
    """One warpgroup copies B (`length` bf16) into shared memory as it is, loads its eight A
    registers (k step `s`, register `q` at `8 t + 4 s + q`), runs two chained `simt.wgmma_reg_a`
    (B's tiles at `starts`) and stores its n / 2 accumulator values at `out[t n / 2 + i]`."""
    half = n // 2
    shared = f"!simt.shared<bf16, [{length}]>"
    attrs = f"n = {n}" + ("" if mn_stride is None else f", b_mn_stride = {mn_stride}")
    f32s = ", ".join(["f32"] * half)
    zs = ", ".join(["%z"] * half)
    loads = "".join(
        f"    %i{k} = arith.addi %base, %c{k} : index\n"
        f"    %a{k} = simt.load %aw[%i{k}] : !simt.slice<i32>\n"
        for k in range(8)
    )
    stores = "".join(
        f"      %o{i} = arith.addi %o, %c{i} : index\n"
        f"      simt.ptr_store %r#{i}, %out[%o{i}] : !simt.ptr<f32>\n"
        for i in range(half)
    )
    consts = "".join(
        f"    %c{k} = arith.constant {k} : index\n"
        for k in sorted({*range(max(8, half)), 128, half, length // 1024, *starts})
    )
    d = ", ".join(f"%d#{i}" for i in range(half))
    e = ", ".join(f"%e#{i}" for i in range(half))
    f = ", ".join(f"%f#{i}" for i in range(half))
    return f"""builtin.module {{
  simt.kernel @reg_a(%aw: !simt.slice<i32>, %b: !simt.slice<bf16>, %out: !simt.ptr<f32>) contract<domain = 1, block = [128], shared_bytes = {2 * length}> {{
    %bs = simt.shared_alloc {{dynamic}} : {shared}
    %t = simt.thread_id x
{consts}    %z = arith.constant 0.0 : f32
    scf.for %j = %c0 to %c{length // 1024} step %c1 {{
      %j128 = arith.muli %j, %c128 : index
      %q = arith.addi %j128, %t : index
      %i = arith.muli %q, %c8 : index
      simt.unsafe {{
        simt.async_copy %b[%i], %c8, %bs[%i] {{width = 8}} : !simt.slice<bf16>, {shared}
        simt.yield
      }}
    }}
    simt.async_commit
    simt.async_wait {{pending = 0}}
    simt.sync_threads
    %base = arith.muli %t, %c8 : index
{loads}    %r:{half} = simt.unsafe -> {f32s} {{
      simt.wgmma_fence
      %d:{half} = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %bs[%c{starts[0]}], acc({zs}) {{{attrs}}} : {shared}
      %e:{half} = simt.wgmma_reg_a (%a4, %a5, %a6, %a7), %bs[%c{starts[1]}], acc({d}) {{{attrs}}} : {shared}
      simt.wgmma_commit
      %f:{half} = simt.wgmma_wait {e} {{pending = 0}}
      simt.yield {f} : {f32s}
    }}
    simt.unsafe {{
      %o = arith.muli %t, %c{half} : index
{stores}      simt.yield
    }}
    simt.return
  }}
}}"""


def _a_registers(a: np.ndarray) -> np.ndarray:
    """The warpgroup's A registers for a 64 x 32 bf16 matrix (two k steps): thread `l`'s
    register `q` of k step `s` at `8 l + 4 s + q`, two elements each, the lower column low."""
    bits = (a.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint32)
    lane = np.arange(128)
    w, g = lane // 32, lane % 32
    words = np.zeros((128, 2, 4), np.uint32)
    for s in range(2):
        for q in range(4):
            row, col = 16 * w + g // 4 + 8 * (q % 2), 16 * s + 8 * (q // 2) + 2 * (g % 4)
            words[:, s, q] = bits[row, col] | (bits[row, col + 1] << np.uint32(16))
    return words.reshape(-1).view(np.int32)


@pytest.mark.parametrize("n", [64, 128])
@pytest.mark.parametrize("mn_major", [False, True])
def test_wgmma_reg_a_against_numpy(rng, n, mn_major):
    """Two chained k steps of a 64 x 32 A from registers by B K-major (N rows of 64, the tile at
    columns 0 and 16) or MN-major (blocks of 64 columns, 32 k-rows each, 2048 apart: the tile
    at k-rows 0 and 16)."""
    a = _bf16(rng.standard_normal((64, 32)))
    if mn_major:
        stride, blocks = 2048, n // 64
        length, starts = blocks * stride, (0, 16 * 64)
        flat = _bf16(rng.standard_normal(length))
        b_kn = np.concatenate(
            [_logical(flat[q * stride : (q + 1) * stride]) for q in range(blocks)], 1
        )
        d = a.astype(np.float64) @ b_kn[:32, :n].astype(np.float64)
    else:
        stride, length, starts = None, 64 * n, (0, 16)
        flat = _bf16(rng.standard_normal(length))
        d = a.astype(np.float64) @ _logical(flat)[:n, :32].astype(np.float64).T
    module = parse_module(make_context(), _reg_a_kernel(n, length, starts, stride), "reg_a.mlir")
    out = np.full(128 * n // 2, np.nan, np.float32)
    args = [_a_registers(a), flat, out]
    run_simt_kernel(module, "reg_a", (1, 1, 1), (128, 1, 1), args, 2 * length)
    lane = np.arange(128)
    want = np.stack([d[fragment_position(i, lane)] for i in range(n // 2)], 1)
    np.testing.assert_allclose(out.reshape(128, n // 2), want, rtol=1e-5, atol=1e-5)
