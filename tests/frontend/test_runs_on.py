"""`k.on(device).runs_on` says where a decorated kernel's launches run, for both tracks (the
examples print it in their success line): the interpreter for "cpu", and for "auto" without a
usable GPU; the GPU for "auto" where there is one."""

from __future__ import annotations

import fake_gpu
import pytest

from ferrox import simt, tile
from ferrox import tile as ft
from ferrox.simt import DisjointSlice, Slice, f32
from ferrox.tile import Partition, Tensor


@simt.kernel(domain=1, block=(64, 1, 1))
def scale(x: Slice[f32], out: DisjointSlice[f32, simt.Index1D]) -> None:
    w = simt.index_1d(out)
    out[w] = 2.0 * x[w.value]


@tile.kernel
def add(z: Partition[f32, (64,)], x: Tensor[f32, (None,)], y: Tensor[f32, (None,)]) -> None:
    a = ft.load_like(x, z)
    b = ft.load_like(y, z)
    ft.store(z, a + b)


@pytest.fixture(params=["simt", "tile"])
def kernel(request, monkeypatch):
    # Where "auto" runs is found once a process; each test here starts from nothing found.
    monkeypatch.setattr(ft, "_TARGETS", {})
    monkeypatch.setattr(scale._state, "targets", {})
    return {"simt": scale, "tile": add}[request.param]


def test_without_a_gpu_auto_and_cpu_run_on_the_interpreter(kernel, monkeypatch):
    from ferrox.driver.runtime import device

    monkeypatch.setattr(device, "_count_devices", lambda: 0)
    assert kernel.on("cpu").runs_on == "cpu"
    assert kernel.on("auto").runs_on == "cpu"


def test_with_a_gpu_auto_runs_there(kernel, monkeypatch, tmp_path):
    fake_gpu.install(monkeypatch, tmp_path)
    assert kernel.on("auto").runs_on == "gpu"
    assert kernel.on("cpu").runs_on == "cpu"
