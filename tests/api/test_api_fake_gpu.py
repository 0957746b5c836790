"""The Python API's GPU path on the fake GPU (`fake_gpu`: the runtime's seams faked, packing and
compilation real, kernels run on the interpreter): NumPy arrays copied in and back, device
arrays used in place, tile launches mapped to their SIMT kernel; a refused launch launches
nothing and copies nothing back. The real GPU runs are tests/gpu/test_api_gpu.py."""

from __future__ import annotations

from pathlib import Path

import fake_gpu
import numpy as np
import pytest
from tile_gemm import matmul

import ferrox
from ferrox.driver.runtime.buffers import DeviceArray

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
VECTOR_ADD = ROOT / "examples" / "tile" / "vector_add.mlir"


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        yield fake


def inputs(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    return a, b, np.full(n, np.nan, np.float32)


def test_numpy_arrays_are_copied_in_and_back(fake):
    module = ferrox.load(VECADD)  # auto: the (fake) GPU is there
    assert module.device == "gpu" and module.fallback is None
    a, b, out = inputs(1000, seed=1)
    module["vecadd"][4](a, b, out)
    np.testing.assert_array_equal(out, a + b)
    assert [(name, grid, block) for name, grid, block, _ in fake.launches] == [
        ("vecadd", (4, 1, 1), (256, 1, 1))
    ]


def test_a_refused_launch_launches_nothing_and_copies_nothing_back(fake):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = inputs(1000)
    with pytest.raises(ferrox.LaunchError) as info:
        k[1](a, b, out)
    assert info.value.problems == [
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 1 * 256 = 256 "
        "elements, but len(%out) = 1000 (grid.x must be at least 4)"
    ]
    with pytest.raises(ferrox.LaunchError, match="overlap by 2000 bytes"):
        whole = np.full(1500, np.nan, np.float32)
        k[4](whole[:1000], b, whole[500:])
    assert fake.launches == [] and np.isnan(out).all() and np.isnan(whole).all()


def test_device_arrays_are_used_in_place_and_checked_for_overlap(fake):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, _ = inputs(1000, seed=2)
    da, db = DeviceArray.from_numpy(a), DeviceArray.from_numpy(b)
    dout = DeviceArray.from_numpy(np.full(1000, np.nan, np.float32))
    k[4, 256](da, db, dout)
    np.testing.assert_array_equal(dout.copy_to_host(), a + b)
    whole = DeviceArray.from_numpy(np.zeros(2000, np.float32))
    first = DeviceArray(whole.ptr, (1000,), "f32")  # two views of one allocation
    overlapping = DeviceArray(whole.ptr + 4 * 500, (1000,), "f32")
    with pytest.raises(ferrox.LaunchError) as info:
        k[4](first, db, overlapping)
    assert info.value.problems == [
        "%a (argument #0) and %out (argument #2) of @vecadd overlap by 2000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    assert len(fake.launches) == 1


def test_a_tile_launch_on_the_gpu(fake):
    k = ferrox.load(VECTOR_ADD, device="gpu")["vector_add"]
    x, y, z = inputs(3001, seed=3)
    k(z, x, y)
    np.testing.assert_array_equal(z, x + y)
    assert [(grid, block) for _, grid, block, _ in fake.launches] == [((3, 1, 1), (256, 1, 1))]


def test_unsafe_launch_on_the_gpu(fake):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = inputs(1000, seed=4)
    k.unsafe_launch(1, 256, a, b, out)
    np.testing.assert_array_equal(out[:256], a[:256] + b[:256])
    assert np.isnan(out[256:]).all()


COPY = """builtin.module {
  simt.kernel @copy(%a: !simt.slice<T>, %out: !simt.disjoint_slice<T, 1d>) contract<domain = 1, block = [32], requires = [len(arg0) >= len(arg1)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<T, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: T):
      %x = simt.load %a[%i] : !simt.slice<T>
      simt.yield %x : T
    }
    simt.return
  }
}
"""  # noqa: E501


def test_two_kernels_with_one_image_keep_their_own_parameter_types(fake):
    """An f32 and an i32 copy compile to the same PTX (LLVM moves both as 32-bit integers); the
    second load must not be handed the first's loaded module and its parameter facts (the
    H200's differential run found an f32 kernel refused as 'expected i32 elements')."""
    as_int = ferrox.compile(COPY.replace("T", "i32"))
    as_float = ferrox.compile(COPY.replace("T", "f32"))
    assert as_int.ptx == as_float.ptx
    rng = np.random.default_rng()
    ints = rng.integers(-1000, 1000, 100, dtype=np.int32)
    out_i = np.full(100, -1, np.int32)
    ferrox.load(as_int, device="gpu")["copy"][4, 32](ints, out_i)
    np.testing.assert_array_equal(out_i, ints)
    floats = rng.standard_normal(100, dtype=np.float32)
    out_f = np.full(100, np.nan, np.float32)
    ferrox.load(as_float, device="gpu")["copy"][4, 32](floats, out_f)
    np.testing.assert_array_equal(out_f, floats)


def test_a_bf16_device_array_is_device_memory_to_a_cpu_module(fake):
    """bf16 has no `__cuda_array_interface__`: a bf16 DeviceArray is still known as device
    memory, and a module on the CPU interpreter refuses it as such."""
    k = ferrox.load(matmul(32, 32, 16), device="cpu")["mm"]
    on_gpu = DeviceArray.from_numpy(np.asarray(ferrox.to_bf16(np.ones((64, 64)))), element="bf16")
    out = np.full((64, 64), np.nan, np.float32)
    with pytest.raises(ferrox.LaunchError) as info:
        k(out, on_gpu, on_gpu)
    assert info.value.problems == [
        f"%{name} (argument #{i}) of @mm is a DeviceArray on a CUDA device, but this "
        "module runs on the CPU interpreter: pass a host array, or load it with device='gpu'"
        for i, name in ((1, "a"), (2, "b"))
    ]
    assert fake.launches == [] and np.isnan(out).all()
