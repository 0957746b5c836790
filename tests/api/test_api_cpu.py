"""The Python API on the CPU interpreter: good launches match NumPy on fresh random data with
poisoned outputs; bad ones are refused by the launch checker with its exact message, and the
output stays untouched."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ferrox
from ferrox.artifact import ModuleArtifact

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
VECTOR_ADD = ROOT / "examples" / "tile" / "vector_add.mlir"


@pytest.fixture(scope="module")
def vecadd():
    return ferrox.load(VECADD, device="cpu")["vecadd"]


@pytest.fixture(scope="module")
def vector_add():
    return ferrox.load(VECTOR_ADD, device="cpu")["vector_add"]


def inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    return a, b, np.full(n, np.nan, np.float32)


def refused(launch, *args) -> list[str]:
    with pytest.raises(ferrox.LaunchError) as info:
        launch(*args)
    return info.value.problems


def test_import_ferrox_is_cheap():
    code = "import sys, ferrox; assert 'xdsl' not in sys.modules and 'numpy' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_compile_gives_the_artifact(tmp_path, monkeypatch):
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path))
    artifact = ferrox.compile(VECADD)
    assert isinstance(artifact, ModuleArtifact) and artifact.chip == "sm_90"
    k = artifact["vecadd"]
    assert k.contract is not None and k.contract.block == (256, 1, 1)
    assert [p.name for p in k.params] == ["a", "b", "out"]


def test_load_on_the_cpu(vecadd):
    module = ferrox.load(VECADD, device="cpu")
    assert module.device == "cpu" and "vecadd" in module
    with pytest.raises(KeyError, match="no kernel named 'nope'"):
        module["nope"]


def test_auto_falls_back_to_the_cpu_and_says_why(monkeypatch):
    from ferrox.driver.runtime import device

    monkeypatch.setattr(device, "unavailable_reason", lambda ordinal=0: "no CUDA driver here")
    module = ferrox.load(VECADD)
    assert (module.device, module.fallback) == ("cpu", "no CUDA driver here")


def test_a_simt_kernel_needs_its_grid_and_check_launches_nothing(vecadd):
    a, b, out = inputs(1000)
    with pytest.raises(TypeError, match="@vecadd is a SIMT kernel: give its grid"):
        vecadd(a, b, out)
    checked = vecadd.check(4, None, a, b, out)
    assert (checked.grid, checked.block) == ((4, 1, 1), (256, 1, 1))
    assert np.isnan(out).all()


@pytest.mark.parametrize("config", [(4,), (4, 256), ([4], [256])])
def test_a_simt_launch_matches_numpy(vecadd, config):
    a, b, out = inputs(1000, seed=len(config))
    launch = vecadd[config[0], config[1]] if len(config) == 2 else vecadd[config[0]]
    launch(a, b, out)
    np.testing.assert_array_equal(out, a + b)


def test_a_tile_launch_matches_numpy(vector_add):
    x, y, z = inputs(3001, seed=7)
    vector_add[3](z, x, y)
    np.testing.assert_array_equal(z, x + y)
    z[:] = np.nan
    vector_add(z, x, y)  # the grid from the output partition
    np.testing.assert_array_equal(z, x + y)


def test_a_too_small_grid_is_refused_and_writes_nothing(vecadd):
    a, b, out = inputs(1000)
    assert refused(vecadd[1], a, b, out) == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 1 * 256 = 256 "
        "elements, but len(%out) = 1000 (grid.x must be at least 4)"
    ]
    assert np.isnan(out).all()


def test_a_wrong_block_is_refused(vecadd):
    a, b, out = inputs(1000)
    assert refused(vecadd[8, 128], a, b, out) == [
        "block is (128, 1, 1), but @vecadd's contract requires block = [256], i.e. (256, 1, 1)"
    ]
    assert np.isnan(out).all()


def test_a_2d_grid_on_a_domain_1_kernel_is_refused(vecadd):
    a, b, out = inputs(1000)
    for launch in (vecadd[(4, 2), 256], vecadd[[4, 2]]):
        assert refused(launch, a, b, out) == [
            "grid has 2 dimensions, but @vecadd's contract has domain = 1"
        ]
    assert np.isnan(out).all()


def test_a_violated_requires_is_refused(vecadd):
    a, b, out = inputs(1000)
    assert refused(vecadd[4], a[:999], b, out) == [
        "@vecadd requires len(arg0) >= len(arg2), but len(arg0) = 999 and len(arg2) = 1000 "
        "[arg0 is %a, arg2 is %out]"
    ]
    assert np.isnan(out).all()


def test_an_output_passed_as_an_input_is_refused(vecadd):
    a, _, out = inputs(1000)
    assert refused(vecadd[4], a, out, out) == [
        "%b (argument #1) and %out (argument #2) of @vecadd overlap by 4000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    assert np.isnan(out).all()


def test_overlapping_slices_of_one_array_are_refused(vecadd):
    whole = np.full(1500, np.nan, np.float32)
    whole[:500] = 1.0
    before = whole.copy()
    b = np.ones(1000, np.float32)
    assert refused(vecadd[4], whole[:1000], b, whole[500:]) == [
        "%a (argument #0) and %out (argument #2) of @vecadd overlap by 2000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    np.testing.assert_array_equal(whole, before)


def test_disjoint_slices_of_one_array_are_fine(vecadd):
    rng = np.random.default_rng(3)
    whole = rng.standard_normal(3000).astype(np.float32)
    whole[2000:] = np.nan
    vecadd[4](whole[:1000], whole[1000:2000], whole[2000:])
    np.testing.assert_array_equal(whole[2000:], whole[:1000] + whole[1000:2000])


def test_a_tile_launch_with_the_wrong_grid_or_aliasing_is_refused(vector_add):
    x, y, z = inputs(3001)
    assert refused(vector_add[2], z, x, y) == [
        "grid is [2], but @vector_add's output partition %z of shape [3001] in tiles of [1024] "
        "has [3] tiles (the grid must be [3])"
    ]
    assert refused(vector_add[3], z, z, y) == [
        "%z (argument #0) and %x (argument #1) of @vector_add overlap by 12004 bytes, but %z is "
        "an exclusive output (partition) and must not alias any other argument (pass a copy)"
    ]
    assert np.isnan(z).all()


def test_element_types_are_checked(vecadd):
    a, b, out = inputs(1000)
    assert refused(vecadd[4], a.astype(np.float64), b, out) == [
        "%a (argument #0) of @vecadd is a slice of f32, but the array holds f64 (its element "
        "type must be f32)"
    ]


def test_unsafe_launch_is_the_raw_path(vecadd):
    a, b, out = inputs(1000)
    vecadd.unsafe_launch(1, 256, a, b, out)  # too small a grid: nobody stops it
    np.testing.assert_array_equal(out[:256], a[:256] + b[:256])
    assert np.isnan(out[256:]).all()


def test_torch_cpu_tensors_are_written_in_place(vecadd, vector_add):
    torch = pytest.importorskip("torch")
    a, b = torch.randn(1000), torch.randn(1000)
    out = torch.full((1000,), float("nan"))
    vecadd[4](a, b, out)
    assert torch.equal(out, a + b)
    x, y = torch.randn(3001).bfloat16(), torch.randn(3001).bfloat16()
    z = torch.full((3001,), float("nan"), dtype=torch.float32)
    with pytest.raises(ferrox.LaunchError, match="but the array holds bf16"):
        vector_add(z, x, y)


def test_what_the_interpreter_refuses_is_a_launch_error_too(vecadd):
    a, b, out = inputs(1000)
    with pytest.raises(ferrox.LaunchError) as info:
        vecadd.unsafe_launch(8, 128, a, b, out)  # no checker: the interpreter's .reqntid check
    assert "(128, 1, 1)" in str(info.value) and "(256, 1, 1)" in str(info.value)
    assert np.isnan(out).all()
