"""A ferrox kernel as a torch custom operator (`ferrox.torch_op`): its schema from the kernel's
parameters (checked everywhere), and the operator itself, eager and under `torch.compile`, on the
CPU interpreter (skipped where torch is not installed; the GPU host runs the example)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ferrox import simt, tile, torch_op
from ferrox.simt import AtomicSlice, Constexpr, DisjointSlice, Slice, f32, i32

ROOT = Path(__file__).resolve().parents[2]
HAS_TORCH = importlib.util.find_spec("torch") is not None
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed here")


@simt.kernel(block=256, requires=["len(x) >= len(y)"])
def affine_relu(a: f32, x: Slice[f32], b: f32, y: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    y[w] = max(a * x[i] + b, 0.0)  # stored only where w is in bounds of y


@simt.kernel(block=256, requires=["len(x) >= len(lo)", "len(x) >= len(hi)"])
def split(x: Slice[f32], n: i32, lo: DisjointSlice[f32], hi: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    lo[w] = x[w.value] - 1.0
    v = simt.thread_index_1d()
    hi[v] = x[v.value] + 1.0


@simt.kernel(block=256)
def scaled(x: Slice[f32], y: DisjointSlice[f32], k: Constexpr = 2):
    w = simt.thread_index_1d()
    y[w] = x[w.value] * k


@simt.kernel(block=256)
def count(x: Slice[f32], bins: AtomicSlice[i32]):
    w = simt.thread_index_1d()
    if w.value < len(x):
        simt.atomic_add(bins, 0, 1)


@tile.kernel
def tile_scale(z: tile.Partition[f32, 256], x: tile.Tensor[f32, None], k: f32):
    tile.store(tile.load_like(x, z) * k, z)


def test_the_schema_is_the_kernels_inputs_returning_its_outputs():
    found = torch_op.schema_of(affine_relu)
    assert found.schema == "(float a, Tensor x, float b) -> Tensor"
    assert found.inputs == ("a", "x", "b") and found.outputs == ("y",)
    assert torch_op.schema_of(split).schema == "(Tensor x, int n) -> (Tensor, Tensor)"
    assert torch_op.schema_of(count).schema == "(Tensor x) -> Tensor"
    assert torch_op.schema_of(tile_scale).schema == "(Tensor x, float k) -> Tensor"


def test_a_kernel_with_constexpr_parameters_is_refused():
    with pytest.raises(TypeError) as e:
        torch_op.schema_of(scaled)
    assert str(e.value) == (
        "scaled has Constexpr parameters (k); an operator is one specialisation: bind them first"
    )


def test_the_operators_kernel_matches_numpy_on_the_interpreter():
    """What the operator launches, launched directly on NumPy arrays (no torch needed)."""
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, 1000).astype(np.float32)
    y = np.full(1000, np.nan, np.float32)
    affine_relu.on("cpu")[4, None](1.5, x, -0.25, y)
    expected = np.maximum(np.float32(1.5) * x + np.float32(-0.25), np.float32(0))
    assert np.array_equal(y, expected)


@needs_torch
def test_the_operator_eager_and_compiled_on_the_cpu():
    import torch

    op = torch_op.custom_op(
        "ferrox_tests::affine_relu",
        affine_relu,
        grid=lambda a, x, b, y: -(-y.numel() // 256),
        outputs=lambda a, x, b: torch.full_like(x, float("nan")),
    )
    x = torch.empty(1000).uniform_(-1, 1)
    expected = torch.relu(1.5 * x - 0.25)
    y = op(1.5, x, -0.25)
    torch.testing.assert_close(y, expected)
    assert torch.ops.ferrox_tests.affine_relu(1.5, x, -0.25).shape == (1000,)
    compiled = torch.compile(lambda t: op(1.5, t, -0.25) + 1.0, fullgraph=True)
    torch.testing.assert_close(compiled(x), expected + 1.0)


@needs_torch
def test_a_tile_kernel_as_an_operator_eager_and_compiled():
    import torch

    op = torch_op.custom_op(
        "ferrox_tests::tile_scale",
        tile_scale,
        outputs=lambda x, k: torch.full_like(x, float("nan")),
    )
    x = torch.empty(1000).uniform_(-1, 1)
    torch.testing.assert_close(op(x, 3.0), x * 3.0)
    compiled = torch.compile(lambda t: op(t, 3.0) - 1.0, fullgraph=True)
    torch.testing.assert_close(compiled(x), x * 3.0 - 1.0)


def test_a_simt_kernel_needs_a_grid_and_a_tile_kernel_takes_none():
    pytest.importorskip("torch", reason="torch is not installed here")
    with pytest.raises(TypeError) as e:
        torch_op.custom_op("ferrox_tests::no_grid", affine_relu)
    assert str(e.value) == "affine_relu is a SIMT kernel: custom_op needs grid="
    with pytest.raises(TypeError) as e:
        torch_op.custom_op("ferrox_tests::with_grid", tile_scale, grid=lambda *a: 1)
    assert str(e.value) == "tile_scale is a tile kernel: its grid is its output's tile grid"


@needs_torch
def test_a_refused_launch_is_the_checkers_error():
    import torch

    op = torch_op.custom_op(
        "ferrox_tests::affine_relu_short",
        affine_relu,
        grid=lambda a, x, b, y: 1,  # one block of 256 threads for 1000 elements
        outputs=lambda a, x, b: torch.full_like(x, float("nan")),
    )
    from ferrox.driver.checker import LaunchError

    with pytest.raises(LaunchError) as e:
        op(1.5, torch.zeros(1000), 0.0)
    assert str(e.value) == (
        "the grid does not cover %y: its 1d witness reaches grid.x * block.x = 1 * 256 = 256 "
        "elements, but len(%y) = 1000 (grid.x must be at least 4)"
    )


@needs_torch
def test_the_torch_example_runs_on_the_interpreter():
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "python" / "torch_custom_op.py"),
            "--device",
            "cpu",
            "--n",
            "3001",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT / "examples",
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (
        "torch custom op affine_relu of 3001 elements on cpu, eager and compiled: matches"
    )
