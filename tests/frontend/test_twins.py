"""Each SIMT MLIR example has a Python twin: its IR passes the same checks (it compiles through
verify-disjoint), its artifact states the same parameters, contract and guarded writes, and on
the interpreter it computes the same values from the same inputs (outputs poisoned with NaN)."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest
from compiled import compiled

import ferrox

ROOT = Path(__file__).resolve().parents[2]
MLIR = ROOT / "examples" / "simt"
PY = ROOT / "examples" / "python"
_TWINS = runpy.run_path(str(Path(__file__).with_name("simt_twins.py")), run_name="simt_twins")


def twin(name: str):
    """The Python kernel that twins examples/simt/NAME.mlir."""
    files = {
        "vecadd": ("simt_vecadd.py", "vecadd"),
        "saxpy": ("simt_saxpy.py", "saxpy"),
        "neighbour": ("simt_stencil.py", "neighbour"),
        "block_reduce": ("simt_block_reduce.py", "block_reduce"),
        "block_reduce_gridstride": (
            "simt_block_reduce_gridstride.py",
            "block_reduce_gridstride",
        ),
        "warp_reduce": ("simt_warp_reduce.py", "warp_reduce"),
        "histogram": ("simt_histogram.py", "histogram"),
        "sgemm_tiled": ("simt_sgemm.py", "sgemm_tiled"),
        "sgemm_micro": ("simt_sgemm_micro.py", "sgemm_micro"),
    }
    if name in files:
        file, attr = files[name]
        return runpy.run_path(str(PY / file), run_name="twin")[attr]
    return _TWINS[name]


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def f32s(seed: int, *shape: int, lo: float = -1.0, hi: float = 1.0) -> np.ndarray:
    return rng(seed).uniform(lo, hi, shape).astype(np.float32)


def nan(*shape: int) -> np.ndarray:
    return np.full(shape, np.nan, np.float32)


# name: (grid, block, a function of a seed giving fresh arguments, indices of the outputs)
CASES = {
    "vecadd": ((4,), 256, lambda s: [f32s(s, 1000), f32s(s + 1, 1000), nan(1000)], [2]),
    "saxpy": ((4,), 256, lambda s: [0.75, f32s(s, 1000), f32s(s + 1, 1000)], [2]),
    "neighbour": ((4,), 256, lambda s: [f32s(s, 1000), nan(1000)], [1]),
    "transpose": ((3, 2), (32, 32), lambda s: [f32s(s, 70, 45), nan(45, 70), 70, 45], [1]),
    "sgemm_naive": (
        (2, 2),
        (16, 16),
        lambda s: [f32s(s, 20, 18), f32s(s + 1, 18, 24), nan(20, 24), 20, 24, 18],
        [2],
    ),
    "sgemm_tiled": (
        (2, 2),
        (16, 16),
        lambda s: [f32s(s, 20, 18), f32s(s + 1, 18, 24), nan(20, 24), 20, 24, 18],
        [2],
    ),
    "sgemm_micro": (  # ragged against the 128 x 128 tile and the 16-wide k step
        (1, 2),
        256,
        lambda s: [f32s(s, 40, 21), f32s(s + 1, 21, 150), nan(40, 150), 40, 150, 21],
        [2],
    ),
    "warp_reduce": ((4,), 256, lambda s: [f32s(s, 1000), nan(32)], [1]),
    "block_reduce": ((12,), 256, lambda s: [f32s(s, 3000, lo=0.0), np.zeros(1, np.float32)], [1]),
    "block_reduce_gridstride": (
        (3,),
        256,
        lambda s: [f32s(s, 9001, lo=0.0), np.zeros(1, np.float32)],
        [1],
    ),
    "histogram": (
        (12,),
        256,
        lambda s: [rng(s).integers(0, 1_000_000, 3000).astype(np.int32), np.zeros(64, np.int32)],
        [1],
    ),
    "vecadd_vec4": ((1,), 256, lambda s: [f32s(s, 1000), f32s(s + 1, 1000), nan(1000), 1000], [2]),
    "alu": (
        (4,),
        256,
        lambda s: [
            f32s(s, 1000),
            f32s(s + 1, 1000),
            rng(s + 2).integers(-1, 5, 1000).astype(np.int32),  # -1 and 3, 4 take the default
            nan(1000),
        ],
        [3],
    ),
    "gcd": (
        (4,),
        256,
        lambda s: [
            rng(s).integers(1, 1_000_000, 1000).astype(np.int32),
            rng(s + 1).integers(1, 1_000_000, 1000).astype(np.int32),
            np.full(1000, np.iinfo(np.int32).max, np.int32),
        ],
        [2],
    ),
    "piecewise": (
        (4,),
        256,
        lambda s: [f32s(s, 1000), rng(s + 1).integers(-1, 8, 1000).astype(np.int32), nan(1000)],
        [2],
    ),
    "vecadd_unchecked": (
        (4,),
        256,
        lambda s: [f32s(s, 1000), f32s(s + 1, 1000), nan(1000), 1000],
        [2],
    ),
}


def facts(kernel):
    """What the launch checker reads from an artifact, names aside (`in` is no Python name)."""
    params = [(p.kind, p.element, p.space) for p in kernel.params]
    return params, kernel.contract, kernel.writes


@pytest.mark.parametrize("name", sorted(CASES))
def test_python_twin_states_the_same_kernel_as_the_mlir_example(name):
    # the example's sm_90 compile that tests/targets/test_examples_ptx.py reads too (one compile
    # for the test run: tests/support/compiled.py)
    mlir = compiled(MLIR / f"{name}.mlir", "sm_90").kernels[name]
    python = twin(name).artifact().kernels[name]
    assert facts(python) == facts(mlir)


@pytest.mark.parametrize("name", sorted(CASES))
def test_python_twin_computes_what_the_mlir_example_computes(name):
    grid, block, make, outputs = CASES[name]
    seed = int(rng(None).integers(1 << 30))
    theirs, ours = make(seed), make(seed)
    # the example's shared sm_90 compile (the one the test above reads), loaded on the CPU:
    # ferrox.load's own compile of a path is tested in tests/api/test_api_cpu.py
    example = ferrox.load(compiled(MLIR / f"{name}.mlir", "sm_90"), device="cpu")[name]
    kernel = twin(name).on("cpu")
    if name == "vecadd_unchecked":
        example.unsafe_launch(grid, block, *theirs)
        kernel[grid, block].unsafe(*ours)
    else:
        example[grid, block](*theirs)
        kernel[grid, block](*ours)
    for i in outputs:
        assert not np.isnan(ours[i]).any() if ours[i].dtype == np.float32 else True
        assert np.array_equal(ours[i], theirs[i]), name
