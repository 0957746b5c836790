"""Every SIMT example as a host program on the GPU: at full size against NumPy (the program's
own check, and the outputs against NumPy computed here from the same seeds), and at the small
CI size against the CPU reference interpreter.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_examples_gpu.py`. Without a GPU
every test here skips with the reason (tests/gpu/conftest.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ferrox.run_api import run_program

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "simt"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))
FERROX = (
    shutil.which("ferrox", path=str(Path(sys.executable).parent))
    or shutil.which("ferrox")
    or "ferrox"
)

N = (1 << 24) + 3  # not a multiple of any block: the tail threads take the bounds branch
FULL = {
    "vecadd": {"n": N},
    "vecadd_vec4": {"n": N},
    "vecadd_unchecked": {"n": N},
    "saxpy": {"n": N, "alpha": 2.5},
    "neighbour": {"n": N},
    "transpose": {"rows": 4099, "cols": 2051},
    "sgemm_naive": {"m": 1030, "n": 1050, "k": 1000},
    "sgemm_tiled": {"m": 1030, "n": 1050, "k": 1000},
    "sgemm_micro": {"m": 1030, "n": 1050, "k": 1000},
    "gemm_wgmma": {"m": 1030, "n": 1050, "k": 1000},
    "gemm_tma": {"m": 1030, "n": 1050, "k": 1000},
    "tma_copy": {"rows": 4099, "cols": 2056},  # rows of 16 bytes: cols a multiple of 8
    "tma_copy_f32": {"rows": 4099, "cols": 2052},
    "warp_reduce": {"n": N + 2},
    "block_reduce": {"n": N + 4},
    "block_reduce_gridstride": {"n": N + 4},
    "histogram": {"n": 1 << 24, "nbins": 256},
    "gcd": {"n": N},
    "alu": {"n": N},
    "piecewise": {"n": N},
}
# GPU against interpreter at the CI size: the same inputs; where the GPU may round differently
# (fused multiply-adds, another order of additions) the tolerance says by how much.
AGREE = {
    "saxpy": {"rtol": 1e-6, "atol": 1e-6},
    "sgemm_naive": {"rtol": 1e-5, "atol": 1e-5},
    "sgemm_tiled": {"rtol": 1e-5, "atol": 1e-5},
    "warp_reduce": {"rtol": 1e-6, "atol": 1e-6},
    "block_reduce": {"rtol": 1e-6, "atol": 0},
    "block_reduce_gridstride": {"rtol": 1e-6, "atol": 0},  # float atomics in any order
    "gemm_wgmma": {"rtol": 1e-4, "atol": 1e-4},  # the tensor cores' f32 sums, in their order
    "gemm_tma": {"rtol": 1e-4, "atol": 1e-4},
}


import simt_examples as CPU  # noqa: E402


@pytest.mark.parametrize("name", NAMES)
def test_full_sizes_cover_every_example(name):
    assert name in FULL


@pytest.mark.parametrize("name", NAMES)
def test_full_size_on_the_gpu_matches_numpy(name):
    result = run_program(EXAMPLES / f"{name}.mlir", device="gpu", params=FULL[name], out=None)
    assert result.device == "gpu", result.device_name
    assert result.checks and result.ok, [c.line() for c in result.checks]
    want, tol = CPU.reference(name, {**CPU.DEFAULTS[name], **FULL[name]})
    (got,) = result.outputs
    assert got.shape == want.shape
    if name in ("block_reduce", "block_reduce_gridstride"):
        tol = {"rtol": 1e-4, "atol": 0}  # atomic adds of block totals, in any order
    elif name.startswith("sgemm") or name in ("gemm_wgmma", "gemm_tma"):
        tol = {"rtol": 1e-4, "atol": 1e-3}
    elif name == "warp_reduce":
        tol = {"rtol": 1e-5, "atol": 1e-4}
    elif name == "saxpy":
        tol = {"rtol": 1e-6, "atol": 1e-6}  # LLVM may fuse alpha * x + y into one fma
    np.testing.assert_allclose(got, want, **tol)


@pytest.mark.parametrize("name", NAMES)
def test_gpu_agrees_with_the_interpreter_at_the_ci_size(name):
    gpu = run_program(EXAMPLES / f"{name}.mlir", device="gpu", out=None)
    cpu = run_program(EXAMPLES / f"{name}.mlir", device="cpu", out=None)
    assert gpu.ok and cpu.ok
    (g,), (c,) = gpu.outputs, cpu.outputs
    if name in AGREE:
        np.testing.assert_allclose(g, c, **AGREE[name])
    else:
        np.testing.assert_array_equal(g, c)  # one rounding per element: bit for bit


def test_the_readme_command_runs_on_the_gpu():
    proc = subprocess.run(
        [FERROX, "run", str(EXAMPLES / "vecadd.mlir")], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    assert "no GPU here" not in proc.stderr  # no fallback line: auto found the GPU
    assert proc.stdout.startswith("check out2: ok (max abs err 0,")
    assert "vecadd.mlir: 1 check passed on " in proc.stdout and "interpreter" not in proc.stdout


# -- the tile track: each kernel lowered to SIMT (convert-tile-to-simt) and launched over its
# partition's grid. The examples' `@main` returns nothing, so the GPU is compared with the
# interpreter on the arrays their checks look at.
TILE_EXAMPLES = ROOT / "examples" / "tile"
TILE_NAMES = sorted(p.stem for p in TILE_EXAMPLES.glob("*.mlir"))
TILE_FULL = {
    "vector_add": {"n": 1 << 24, "ragged_n": (1 << 24) + 3001},
    "saxpy": {"n": (1 << 24) + 5},
    "row_sum": {"m": 8197, "n": 4099},
    "softmax": {"m": 65539, "n": 1000},
    "layernorm": {"m": 65539, "n": 1000},
    "transpose": {"m": 4103, "n": 2053},
    "matmul_f32": {"m": 1030, "n": 1050, "k": 1000},
    "matmul_bf16": {"m": 1030, "n": 1050, "k": 1000},
    "attention": {"heads": 8, "seq": 1000},
}


def checked_arrays(monkeypatch, path: Path, device: str, params=None):
    """Run, keeping a copy of every array a `host.check` compared."""
    from ferrox.driver.host_runner import functions

    seen: list[np.ndarray] = []
    compare = functions.checks.compare

    def recording(name, where, actual, expected, rtol, atol):
        seen.append(np.array(actual))
        return compare(name, where, actual, expected, rtol, atol)

    monkeypatch.setattr(functions.checks, "compare", recording)
    try:
        result = run_program(path, device=device, params=params, out=None)
    finally:
        monkeypatch.setattr(functions.checks, "compare", compare)
    return result, seen


@pytest.mark.parametrize("name", TILE_NAMES)
def test_tile_full_sizes_cover_every_example(name):
    assert name in TILE_FULL


@pytest.mark.parametrize("name", TILE_NAMES)
def test_tile_example_at_full_size_on_the_gpu(name):
    result = run_program(
        TILE_EXAMPLES / f"{name}.mlir", device="gpu", params=TILE_FULL[name], out=None
    )
    assert result.device == "gpu"
    assert result.checks and result.ok, [c.line() for c in result.checks]


@pytest.mark.parametrize("name", TILE_NAMES)
def test_tile_example_gpu_agrees_with_the_interpreter(monkeypatch, name):
    path = TILE_EXAMPLES / f"{name}.mlir"
    gpu, g = checked_arrays(monkeypatch, path, "gpu")
    cpu, c = checked_arrays(monkeypatch, path, "cpu")
    assert gpu.ok and cpu.ok and len(g) == len(c) == len(gpu.checks)
    for a, b in zip(g, c, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
