"""The bf16 examples on the CPU: the MLIR tile matmul_bf16 runs its convert-tile-to-simt
lowering on the SIMT engine (bf16 memory, shared bf16 tiles, mma.sync on bf16 fragments), and the
Python example takes bf16 arrays, both checked against NumPy on fresh random data with
NaN-poisoned outputs."""

from __future__ import annotations

from pathlib import Path

import in_process  # tests/support
import numpy as np
import pytest
from bf16_step import bf16_step
from compiled import compiled
from tile_gemm import within_f32_sum_bound

import ferrox
from ferrox.driver.interpreter import tile_lowered
from ferrox.driver.interpreter.tile_kernel import run_tile_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.simt import DisjointSlice, Slice, bf16, f32

ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "examples" / "tile" / "matmul_bf16.mlir"


@pytest.fixture
def rng():
    return np.random.default_rng()


def test_mlir_matmul_bf16_runs_its_lowering_on_the_engine(rng, monkeypatch):
    module = parse_module(make_context(), MATMUL.read_text(), str(MATMUL))
    engine_runs = []
    run = tile_lowered.run_simt_kernel

    def counted(*args, **kwargs):
        engine_runs.append(args[1])
        return run(*args, **kwargs)

    monkeypatch.setattr(tile_lowered, "run_simt_kernel", counted)
    m, n, k = 67, 130, 45  # ragged: padded loads, masked stores
    a, b = ferrox.to_bf16(rng.uniform(-1, 1, (m, k))), ferrox.to_bf16(rng.uniform(-1, 1, (k, n)))
    c = np.full((m, n), np.nan, np.float32)
    tile_lowered.run_lowered_tile_kernel(module, "matmul_bf16", [c, a, b])
    assert engine_runs == ["matmul_bf16"]  # the lowered SIMT kernel, not the tile interpreter
    assert within_f32_sum_bound(c, a.float32(), b.float32())
    reference = np.full((m, n), np.nan, np.float32)
    run_tile_kernel(module, "matmul_bf16", [reference, a, b])  # the whole-tile reference
    assert within_f32_sum_bound(reference, a.float32(), b.float32())


def test_mlir_matmul_bf16_through_ferrox_load_on_the_cpu(rng):
    # the example's sm_90 compile the test run shares (tests/support/compiled.py; compiling it
    # takes seconds), loaded on the CPU: ferrox.load's own compile of a path is tested on
    # smaller examples (tests/api/test_api_cpu.py, tests/test_diagnostics_launch.py)
    kernel = ferrox.load(compiled(MATMUL, "sm_90"), device="cpu")["matmul_bf16"]
    a, b = (
        ferrox.to_bf16(rng.uniform(-2, 2, (64, 96))),
        ferrox.to_bf16(rng.uniform(-2, 2, (96, 65))),
    )
    c = np.full((64, 65), np.nan, np.float32)
    kernel(c, a, b)
    assert within_f32_sum_bound(c, a.float32(), b.float32())
    with pytest.raises(ferrox.LaunchError) as info:
        kernel(c, a.float32(), b)
    assert info.value.problems == [
        "%a (argument #1) of @matmul_bf16 is a tile tensor of bf16, but the array holds f32 (its "
        "element type must be bf16): NumPy has no bf16, so pass bf16 bit patterns as "
        "ferrox.bf16_bits(uint16 array), or round floats with ferrox.to_bf16(array)"
    ]


def test_python_matmul_bf16_example_on_the_cpu():
    # In this process (the script's `__main__`, its argv and working directory): a new Python
    # would spend most of the test importing ferrox; tests/frontend/test_tile_examples.py runs
    # a tile example script in a new Python once.
    done = in_process.script(
        ROOT / "examples" / "python" / "tile_matmul_bf16.py",
        *("--device", "cpu", "--m", "65", "--n", "129", "--k", "33"),
        cwd=ROOT / "examples",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "tile matmul bf16 65x33 @ 33x129 on cpu: matches NumPy"


def test_python_matmul_bf16_example_with_a_bf16_output_on_the_cpu():
    """`--bf16-out` (`OUT_BF16`): C in bf16, each element between the roundings of the f32
    bound's two ends."""
    done = in_process.script(
        ROOT / "examples" / "python" / "tile_matmul_bf16.py",
        *("--device", "cpu", "--m", "65", "--n", "129", "--k", "33", "--bf16-out"),
        cwd=ROOT / "examples",
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last == "tile matmul bf16 65x33 @ 33x129 (bf16 out) on cpu: matches NumPy"


def test_the_bf16_output_check_has_teeth(rng):
    """The example's check of a bf16 C takes the f32 sums rounded, and refuses a sum left
    unrounded or a bf16 one step past what the bound admits."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "tile_matmul_bf16_check", ROOT / "examples" / "python" / "tile_matmul_bf16.py"
    )
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    x = ferrox.to_bf16(rng.uniform(-1, 1, (8, 40))).float32()
    y = ferrox.to_bf16(rng.uniform(-1, 1, (40, 8))).float32()
    exact = x.astype(np.float64) @ y.astype(np.float64)
    good = ferrox.to_bf16(exact).float32()
    assert example.within(good, x, y, True).all()
    assert not example.within(exact.astype(np.float32), x, y, True).all()
    # one bf16 step past either end of what the check admits (a step from `good` itself may
    # still be admitted: the bound's ends can round to neighbouring bf16 values)
    low, high = example.bf16_ends(*example.sum_bound(x, y))
    assert (low <= good).all() and (good <= high).all()
    for i, j in [(2, 3), (0, 0), (7, 7)]:
        for past in (bf16_step(high[i, j], True), bf16_step(low[i, j], False)):
            off = good.copy()
            off[i, j] = past
            assert not example.within(off, x, y, True)[i, j], (i, j, past)


def test_the_bound_has_teeth(rng):
    x, y = rng.uniform(-1, 1, (8, 40)).astype(np.float32), rng.uniform(-1, 1, (40, 8))
    exact = x.astype(np.float64) @ y
    assert within_f32_sum_bound(exact.astype(np.float32), x, y.astype(np.float32))
    assert not within_f32_sum_bound((exact * (1 + 2.0**-10)).astype(np.float32), x, y)


@ferrox.simt.kernel(block=256, requires=["len(x) >= len(y)"])
def axpy_bf16(alpha: f32, x: Slice[bf16], y: DisjointSlice[bf16]):
    w = ferrox.simt.thread_index_1d()
    i = w.value
    with y[w] as slot:
        slot.value = bf16(alpha * f32(x[i]) + f32(slot.value))


def test_a_python_simt_kernel_over_bf16_slices_takes_bf16_bits(rng):
    n = 3001
    x, y0 = ferrox.to_bf16(rng.uniform(-1, 1, n)), ferrox.to_bf16(rng.uniform(-1, 1, n))
    y = y0.copy()
    axpy_bf16.on("cpu")[-(-n // 256), 256](1.5, x, y)
    # f32 products and sums of bf16 values, each rounded once to bf16 at the end
    expected = ferrox.to_bf16(np.float32(1.5) * x.float32() + y0.float32())
    assert np.array_equal(y.view(np.ndarray), expected.view(np.ndarray))
