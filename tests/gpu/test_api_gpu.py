"""The Python API on the GPU: torch tensors (f32 and bf16) used in place on torch's current
stream, NumPy arrays copied in and back, CuPy arrays; every bad launch refused by the launch
checker with its exact message before anything is written.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_api_gpu.py`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ferrox

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
VECTOR_ADD = ROOT / "examples" / "tile" / "vector_add.mlir"


@pytest.fixture(scope="module")
def vecadd():
    module = ferrox.load(VECADD, device="gpu")
    assert module.device == "gpu"
    return module["vecadd"]


@pytest.fixture(scope="module")
def vector_add():
    return ferrox.load(VECTOR_ADD, device="gpu")["vector_add"]


@pytest.fixture(scope="module")
def vector_add_bf16():
    """examples/tile/vector_add.mlir's kernel on bf16 tensors."""
    text = VECTOR_ADD.read_text()
    kernel = text.split("func.func @main", 1)[0].rstrip() + "\n}\n"
    return ferrox.load(kernel.replace("f32", "bf16"), device="gpu")["vector_add"]


def refused(launch, *args) -> list[str]:
    with pytest.raises(ferrox.LaunchError) as info:
        launch(*args)
    return info.value.problems


def tensors(torch, n: int, dtype=None):
    dtype = dtype or torch.float32
    a = torch.randn(n, device="cuda").to(dtype)
    b = torch.randn(n, device="cuda").to(dtype)
    return a, b, torch.full((n,), float("nan"), device="cuda", dtype=dtype)


def test_torch_tensors_on_the_current_stream(vecadd, torch):
    a, b, out = tensors(torch, 1000)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())  # the inputs were made on the default stream
    with torch.cuda.stream(side):
        vecadd[4](a, b, out)
        side.synchronize()
    assert torch.equal(out, a + b)


def test_numpy_arrays_are_copied_in_and_back(vecadd):
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(1000, dtype=np.float32), rng.standard_normal(1000, dtype=np.float32)
    out = np.full(1000, np.nan, np.float32)
    vecadd[4, 256](a, b, out)
    np.testing.assert_array_equal(out, a + b)


def test_f32_and_bf16_tile_launches(vector_add, vector_add_bf16, torch):
    x, y, z = tensors(torch, 3001)
    vector_add[3](z, x, y)
    torch.cuda.synchronize()
    assert torch.equal(z, x + y)
    x, y, z = tensors(torch, 3001, torch.bfloat16)
    vector_add_bf16[3](z, x, y)
    torch.cuda.synchronize()
    assert torch.equal(z, (x.float() + y.float()).bfloat16())


def test_bad_grid_block_and_2d_grid_are_refused(vecadd, torch):
    a, b, out = tensors(torch, 1000)
    assert refused(vecadd[1], a, b, out) == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 1 * 256 = 256 "
        "elements, but len(%out) = 1000 (grid.x must be at least 4)"
    ]
    assert refused(vecadd[8, 128], a, b, out) == [
        "block is (128, 1, 1), but @vecadd's contract requires block = [256], i.e. (256, 1, 1)"
    ]
    assert refused(vecadd[(4, 2), 256], a, b, out) == [
        "grid has 2 dimensions, but @vecadd's contract has domain = 1"
    ]
    torch.cuda.synchronize()
    assert torch.isnan(out).all()


def test_requires_and_aliasing_are_refused(vecadd, torch):
    a, b, out = tensors(torch, 1000)
    assert refused(vecadd[4], a[:999], b, out) == [
        "@vecadd requires len(arg0) >= len(arg2), but len(arg0) = 999 and len(arg2) = 1000 "
        "[arg0 is %a, arg2 is %out]"
    ]
    assert refused(vecadd[4], a, out, out) == [
        "%b (argument #1) and %out (argument #2) of @vecadd overlap by 4000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    whole = torch.full((1500,), float("nan"), device="cuda")
    assert refused(vecadd[4], whole[:1000], b, whole[500:]) == [
        "%a (argument #0) and %out (argument #2) of @vecadd overlap by 2000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    torch.cuda.synchronize()
    assert torch.isnan(out).all() and torch.isnan(whole).all()


def test_bf16_tile_aliasing_is_refused(vector_add_bf16, torch):
    x, y, z = tensors(torch, 3001, torch.bfloat16)
    assert refused(vector_add_bf16[3], z, z, y) == [
        "%z (argument #0) and %x (argument #1) of @vector_add overlap by 6002 bytes, but %z is "
        "an exclusive output (partition) and must not alias any other argument (pass a copy)"
    ]
    torch.cuda.synchronize()
    assert torch.isnan(z.float()).all()


def test_unsafe_launch_is_the_raw_path(vecadd, torch):
    a, b, out = tensors(torch, 1000)
    vecadd.unsafe_launch(1, 256, a, b, out)
    torch.cuda.synchronize()
    assert torch.equal(out[:256], a[:256] + b[:256]) and torch.isnan(out[256:]).all()


def test_cupy_arrays(vecadd):
    cp = pytest.importorskip("cupy")
    a = cp.random.standard_normal(1000, dtype=cp.float32)
    b = cp.random.standard_normal(1000, dtype=cp.float32)
    out = cp.full(1000, cp.nan, dtype=cp.float32)
    vecadd[4](a, b, out)
    cp.cuda.Device().synchronize()
    assert bool((out == a + b).all())
