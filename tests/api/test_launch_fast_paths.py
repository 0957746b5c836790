"""Every check still fires on the fast relaunch paths, after a cached relaunch: CuPy arrays
(read through their CUDA array interface, relaunched only on the legacy stream), a
`@simt.kernel` and a `@tile.kernel` called again (served by the written-out relaunch), and a
`ferrox.load` tile kernel's direct call. On the fake GPU with torch and CuPy stand-ins
(`tests/support/fake_arrays.py`): packing and launches are real, kernels run on the
interpreter, and each refusal is pinned to its message."""

from __future__ import annotations

from pathlib import Path

import fake_arrays
import fake_gpu
import numpy as np
import pytest

import ferrox
from ferrox import simt, tile
from ferrox.driver.runtime.errors import ArgumentError
from ferrox.simt import DisjointSlice, Slice, f32
from ferrox.tile import Partition, Tensor

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
N = 1000
OVERLAP = (
    "%a (argument #0) and %out (argument #2) of @vecadd overlap by {} bytes, but %out is an "
    "exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
)


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        fake.torch, fake.cupy = fake_arrays.install(monkeypatch)
        yield fake


def cupy(fake, values: np.ndarray, **kw) -> fake_arrays.ndarray:
    ptr = fake.alloc(values.nbytes)
    fake.view(ptr, values.nbytes)[:] = values.view(np.uint8)
    return fake_arrays.ndarray(ptr, values.shape, values.dtype, **kw)


def tensor(fake, values: np.ndarray, **kw) -> fake_arrays.Tensor:
    ptr = fake.alloc(values.nbytes)
    fake.view(ptr, values.nbytes)[:] = values.view(np.uint8)
    return fake_arrays.Tensor(ptr, values.shape, **kw)


def address(array) -> int:
    return array.data.ptr if isinstance(array, fake_arrays.ndarray) else array.data_ptr()


def read(fake, array, n: int = N) -> np.ndarray:
    return fake.view(address(array), 4 * n).view(np.float32).copy()


def refuses(launch, a, b, refusals: dict) -> None:
    """`launch(a, b, out)` for each `out` of `refusals` raises its one problem."""
    for out, problem in refusals.items():
        with pytest.raises(ferrox.LaunchError) as info:
            launch(a, b, out)
        assert info.value.problems == [problem]


def test_cupy_arrays_are_relaunched_without_the_checker(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b = np.arange(N, dtype=np.float32), np.full(N, 2, np.float32)
    da, db, out = cupy(fake, a), cupy(fake, b), cupy(fake, np.zeros(N, np.float32))
    for _ in range(3):
        k[4, 256](da, db, out)
    np.testing.assert_array_equal(read(fake, out), a + b)
    other = cupy(fake, np.zeros(N, np.float32))
    k[4, 256](da, db, other)  # other addresses, the same key: relaunched on them
    np.testing.assert_array_equal(read(fake, other), a + b)
    assert checks == ["vecadd"] and len(fake.launches) == 4


def test_a_cupy_overlap_is_refused_after_a_cached_relaunch(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    base = fake.alloc(5000 * 4)
    a, out, b = (fake_arrays.ndarray(base + at, (N,)) for at in (4000, 8000, 16000))
    k[4, 256](a, b, out)
    k[4, 256](a, b, out)
    for start, shared in ((a.data.ptr, 4000), (a.data.ptr + 400, 3600), (a.data.ptr - 3996, 4)):
        with pytest.raises(ferrox.LaunchError) as info:
            k[4, 256](a, b, fake_arrays.ndarray(start, (N,)))
        assert info.value.problems == [OVERLAP.format(shared)]
    assert checks == ["vecadd"] * 4 and len(fake.launches) == 2


def test_a_cupy_array_that_changed_is_checked_in_full_and_refused(fake, checks):
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (cupy(fake, np.ones(N, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    k[4, 256](a, b, out)
    strided = fake_arrays.ndarray(out.data.ptr, (N // 2,), strides=(8,))
    elsewhere = fake_arrays.ndarray(out.data.ptr, (N,), device=1)
    halves = fake_arrays.ndarray(out.data.ptr, (N,), np.float16)
    refusals = {
        strided: "%out (argument #2) of @vecadd: ndarray of shape (500,) with strides (2,) (in "
        "elements) is not C-contiguous: make it contiguous first (.contiguous() in PyTorch, "
        "cupy.ascontiguousarray in CuPy)",
        elsewhere: "%out (argument #2) of @vecadd is on GPU 1, but the module is loaded on GPU "
        "0: a kernel reaches only its own device's memory (move the array there)",
        halves: "%out (argument #2) of @vecadd is a disjoint slice of f32, but the array holds "
        "f16 (its element type must be f32)",
    }
    refuses(k[4, 256], a, b, refusals)
    assert len(fake.launches) == 2


def test_cupy_on_another_stream_is_checked_in_full_every_call(fake, checks):
    """A producer on a stream other than the legacy one needs ordering, which only the full
    path's export does: no key, so no relaunch; an explicit stream other than the legacy one
    is never relaunched on either."""
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (cupy(fake, np.ones(N, np.float32)) for _ in range(3))
    k[4, 256](a, b, out)
    k[4, 256](a, b, out)
    fake.cupy.current = 0x900
    k[4, 256](a, b, out)
    k[4, 256](a, b, out)
    fake.cupy.current = 0
    k[4, 256](a, b, out)  # back on the legacy stream: relaunched
    k[4, 256](a, b, out, stream=0x700)
    k[4, 256](a, b, out, stream=1)  # the legacy stream itself: relaunched
    assert checks == ["vecadd"] * 4 and len(fake.launches) == 7


def test_cupy_arrays_beside_torch_tensors_are_always_checked(fake, checks):
    """Torch tensors go on torch's current stream, which the CuPy producer's is not: such a
    launch is never kept."""
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    ones = np.ones(N, np.float32)
    a, b, out = tensor(fake, ones), cupy(fake, ones), tensor(fake, np.zeros(N, np.float32))
    for _ in range(3):
        k[4, 256](a, b, out)
    np.testing.assert_array_equal(read(fake, out), ones * 2)
    assert checks == ["vecadd"] * 3 and len(fake.launches) == 3


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def halved(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    out[w] = x[w.value] * 0.5


def test_a_decorated_simt_kernels_cached_relaunch_still_checks(fake, checks):
    k = halved.on("gpu")
    x, out = tensor(fake, np.full(N, 4, np.float32)), tensor(fake, np.zeros(N, np.float32))
    for _ in range(3):
        k[4, 256](x, out)
    np.testing.assert_array_equal(read(fake, out), np.full(N, 2, np.float32))
    assert k[4, 256]._hot is not None  # served by the written-out relaunch
    with pytest.raises(ferrox.LaunchError) as aliased:
        k[4, 256](x, fake_arrays.Tensor(x.ptr + 8, (N - 2,)))
    assert aliased.value.problems == [
        "%x (argument #0) and %out (argument #1) of @halved overlap by 3992 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    longer = tensor(fake, np.zeros(2 * N, np.float32))
    with pytest.raises(ferrox.LaunchError) as short:
        k[4, 256](x, longer)
    assert short.value.problems[0] == (
        "@halved requires len(arg0) >= len(arg1), but len(arg0) = 1000 and len(arg1) = 2000 "
        "[arg0 is %x, arg1 is %out]"
    )
    strided = fake_arrays.Tensor(out.ptr, (N // 2,), strides=(2,))
    with pytest.raises(ferrox.LaunchError) as info:
        k[4, 256](x, strided)
    assert info.value.problems == [
        "%out (argument #1) of @halved is a disjoint slice of f32, but the array is a strided "
        "view: a kernel buffer must be contiguous (pass a contiguous copy)"
    ]
    k[4, 256](x, out)  # and the kept launch still serves its own key
    assert checks == ["halved"] * 4 and len(fake.launches) == 4


@tile.kernel
def tile_copy(z: Partition[f32, 256], x: Tensor[f32, None]):
    tile.store(tile.load_like(x, z), z)


def test_a_decorated_tile_kernels_cached_relaunch_still_checks(fake, checks):
    x, z = tensor(fake, np.arange(N, dtype=np.float32)), tensor(fake, np.zeros(N, np.float32))
    k = tile_copy.on("gpu")
    for _ in range(3):
        k(z, x)
    np.testing.assert_array_equal(read(fake, z), np.arange(N, dtype=np.float32))
    with pytest.raises(ferrox.LaunchError) as aliased:
        k(fake_arrays.Tensor(x.ptr + 4, (N,)), x)
    assert aliased.value.problems == [
        "%z (argument #0) and %x (argument #1) of @tile_copy overlap by 3996 bytes, but %z is "
        "an exclusive output (partition) and must not alias any other argument (pass a copy)"
    ]
    assert checks == ["tile_copy"] * 2 and len(fake.launches) == 3


def test_a_written_out_unsafe_relaunch_binds_again_whatever_changed(fake, checks, bindings):
    """`unsafe_launch` repeats go through the written-out relaunch of its (grid, block, shared
    bytes), ints only; another length, element type or grid binds the arguments afresh (never
    checked: the caller vouches for it; an element type the ABI cannot pack still refused)."""
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    a, b, out = (tensor(fake, np.ones(N, np.float32)) for _ in range(3))
    for _ in range(3):
        k.unsafe_launch(4, 256, a, b, out)
    assert bindings == ["vecadd"] and len(fake.launches) == 3
    k.unsafe_launch(4, 256, a, b, tensor(fake, np.zeros(N // 2, np.float32)))
    with pytest.raises(ArgumentError) as info:  # the packing's own refusal stays
        k.unsafe_launch(4, 256, a, b, fake_arrays.Tensor(out.ptr, (N,), fake_arrays.int32))
    assert str(info.value) == "argument 'out' (f32 disjoint slice): expected f32 elements, got i32"
    k.unsafe_launch(2, 256, a, b, out)
    np.testing.assert_array_equal(read(fake, out)[:512], np.full(512, 2, np.float32))
    k.unsafe_launch(2, 256, a, b, out)
    assert bindings == ["vecadd"] * 4 and checks == [] and len(fake.launches) == 6


def test_torch_relaunches_still_refuse_what_changed(fake, checks):
    """`ferrox.load`'s `k[grid, block]` on torch tensors, served by its written-out relaunch,
    then each changed read checked in full and refused with its message, launching nothing."""
    k = ferrox.load(VECADD, device="gpu")["vecadd"]
    launch = k[4, 256]
    a, b, out = (tensor(fake, np.ones(N, np.float32)) for _ in range(3))
    for _ in range(3):
        launch(a, b, out)
    assert launch._hot is not None and checks == ["vecadd"]
    halves = fake_arrays.Tensor(out.ptr, (N,), fake_arrays.float16)
    strided = fake_arrays.Tensor(out.ptr, (N // 2,), strides=(2,))
    on_cpu = fake_arrays.Tensor(out.ptr, (N,), device=fake_arrays.Device("cpu", None))
    refusals = {
        fake_arrays.Tensor(a.ptr - 400, (N,)): OVERLAP.format(3600),
        halves: "%out (argument #2) of @vecadd is a disjoint slice of f32, but the array holds "
        "f16 (its element type must be f32)",
        strided: "%out (argument #2) of @vecadd is a disjoint slice of f32, but the array is a "
        "strided view: a kernel buffer must be contiguous (pass a contiguous copy)",
        on_cpu: "%out (argument #2) of @vecadd is a CPU tensor: move it to the GPU (.cuda()) or "
        "pass a NumPy array, which is copied in and back",
    }
    refuses(launch, a, b, refusals)
    launch(a, b, out)  # the CPU tensor is refused by the binding, before the checker
    assert checks == ["vecadd"] * 4 and len(fake.launches) == 4
