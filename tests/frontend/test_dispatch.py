"""A decorated SIMT kernel called again: `k[grid, block]` is one kept launcher, and a call with
argument kinds it has dispatched before goes straight to the loaded kernel's checked launch (no
argument splitting, no key, no cache). What that must not change: Constexpr values still pick
their specialisation, other argument types take the first-call path, and the launch checker
still judges every call."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from ferrox import simt, tile
from ferrox.simt import Constexpr, DisjointSlice, SimtKernel, Slice, f32
from ferrox.tile import Partition, TileKernel
from ferrox.tile import Tensor as TileTensor

N = 300
RNG = np.random.default_rng()


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def times(x: Slice[f32], out: DisjointSlice[f32], K: Constexpr = 2.0):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = x[i] * K


def fresh() -> tuple[np.ndarray, np.ndarray]:
    return RNG.uniform(-1, 1, N).astype(np.float32), np.full(N, np.nan, np.float32)


@pytest.fixture
def splits(monkeypatch):
    """How many calls went through the first-call path (splitting the arguments)."""
    seen: list[int] = []
    split = SimtKernel._split

    def counted(self, *args, **kwargs):
        seen.append(1)
        return split(self, *args, **kwargs)

    monkeypatch.setattr(SimtKernel, "_split", counted)
    return seen


def test_a_repeated_call_is_dispatched_without_the_first_call_path(splits):
    k = times.on("cpu")
    assert k is times.on("cpu") and k[2, 256] is k[2, 256]
    for _ in range(3):
        x, out = fresh()
        k[2, 256](x, out)
        assert np.array_equal(out, x * np.float32(2.0))
    assert len(splits) <= 1  # the first call only (none if an earlier test dispatched these kinds)


def test_constexpr_values_still_pick_their_specialisation(splits):
    k = times.on("cpu")
    for given, factor in (((), 2.0), ((3.0,), 3.0), ((), 2.0), ((5.0,), 5.0)):
        x, out = fresh()
        k[2, 256](x, out, *given)
        assert np.array_equal(out, x * np.float32(factor)), given
    x, out = fresh()
    k[2, 256](x, out, K=4.0)
    assert np.array_equal(out, x * np.float32(4.0))
    # a Constexpr given by position or keyword always goes through the first-call path
    assert len(splits) >= 3


def test_other_argument_types_take_the_first_call_path(splits):
    k = times.on("cpu")
    x, out = fresh()
    k[2, 256](x, out)
    before = len(splits)
    with pytest.raises(ferrox.LaunchError) as refused:
        k[2, 256](x.astype(np.float64), out)
    assert str(refused.value) == (
        "%x (argument #0) of @times is a slice of f32, but the array holds f64 (its element "
        "type must be f32)"
    )
    assert len(splits) == before + 1


def test_the_launch_checker_judges_every_dispatched_call():
    k = times.on("cpu")
    x, out = fresh()
    k[2, 256](x, out)  # these kinds are dispatched from now on
    with pytest.raises(ferrox.LaunchError) as short:
        k[2, 256](x[:10], out)
    assert str(short.value) == (
        "@times requires len(arg0) >= len(arg1), but len(arg0) = 10 and len(arg1) = 300 "
        "[arg0 is %x, arg1 is %out]"
    )
    with pytest.raises(ferrox.LaunchError) as aliased:
        k[2, 256](x, x)
    assert str(aliased.value) == (
        "%x (argument #0) and %out (argument #1) of @times overlap by 1200 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    )
    with pytest.raises(ferrox.LaunchError) as uncovered:
        k[1, 256](x, out)
    assert str(uncovered.value) == (
        "the grid does not cover %out: its 1d witness reaches grid.x * block.x = 1 * 256 = 256 "
        "elements, but len(%out) = 300 (grid.x must be at least 2)"
    )
    x, out = fresh()
    k[2, 256](x, out)  # and a good call after the refusals runs
    assert np.array_equal(out, x * np.float32(2.0))


def test_a_grid_given_as_a_list_launches():
    x, out = fresh()
    times.on("cpu")[[2], 256](x, out)
    assert np.array_equal(out, x * np.float32(2.0))


# -- tile kernels: the same shortcut, keyed by the globals the kernel reads --------------------

OFFSET = 1.0


@tile.kernel
def shifted(z: Partition[f32, 256], x: TileTensor[f32, None]):
    tile.store(tile.load_like(x, z) + OFFSET, z)


def test_a_repeated_tile_call_is_dispatched_and_sees_a_changed_global(monkeypatch):
    k = shifted.on("cpu")
    x, out = fresh()
    k(out, x)
    assert np.array_equal(out, x + np.float32(1.0))
    reads: list[int] = []
    params = TileKernel._params

    def counted(self):
        reads.append(1)
        return params(self)

    monkeypatch.setattr(TileKernel, "_params", counted)
    for _ in range(2):
        x, out = fresh()
        k(out, x)
        assert np.array_equal(out, x + np.float32(1.0))
    assert reads == []  # dispatched: no argument splitting, no key
    monkeypatch.setitem(globals(), "OFFSET", 2.5)  # another kernel now
    x, out = fresh()
    k(out, x)
    assert np.array_equal(out, x + np.float32(2.5))
    assert reads == [1]
    with pytest.raises(ferrox.LaunchError) as refused:  # the checker judges every call
        k(out, x.astype(np.float64))
    assert str(refused.value) == (
        "%x (argument #1) of @shifted is a tile tensor of f32, but the array holds f64 (its "
        "element type must be f32)"
    )


def test_repeated_calls_on_the_gpu_backend(monkeypatch, tmp_path):
    """The fake GPU (runtime seams faked, packing real): each dispatched call is a launch of
    its own, checked, with its own arguments."""
    import fake_gpu

    from ferrox.driver.runtime.buffers import DeviceArray

    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        k = times.on("gpu")
        for _ in range(3):
            x, out = fresh()
            dx, dout = DeviceArray.from_numpy(x), DeviceArray.from_numpy(out)
            k[2, 256](dx, dout)
            assert np.array_equal(dout.copy_to_host(), x * np.float32(2.0))
        assert [(n, g) for n, g, *_ in fake.launches] == [("times", (2, 1, 1))] * 3
        with pytest.raises(ferrox.LaunchError) as short:
            k[2, 256](DeviceArray.from_numpy(x[:10]), dout)
        assert str(short.value) == (
            "@times requires len(arg0) >= len(arg1), but len(arg0) = 10 and len(arg1) = 300 "
            "[arg0 is %x, arg1 is %out]"
        )
