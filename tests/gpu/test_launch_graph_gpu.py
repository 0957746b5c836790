"""Checked relaunches on the GPU (`driver/checker/relaunch.py`): torch tensors of the same
shapes at other addresses launched from the memo of passed launches, on torch's current stream;
the aliasing rule judged again on every call's addresses; explicit streams (torch's current
one relaunched, another checked in full and ordered); and checked launches, the memo's and
one checked in full, captured in a CUDA graph with `torch.cuda.graph` and replayed.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_launch_graph_gpu.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ferrox
from ferrox import simt
from ferrox.simt import DisjointSlice, Slice, f32

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"
VECTOR_ADD = ROOT / "examples" / "tile" / "vector_add.mlir"


@pytest.fixture
def vecadd():
    """A new load each test: a module of its own, so its memo starts empty."""
    return ferrox.load(VECADD, device="gpu")["vecadd"]


def tensors(torch, n: int):
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    return a, b, torch.full((n,), float("nan"), device="cuda")


@simt.kernel(block=256, requires=["len(x) >= len(out)"])
def doubled(x: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = x[i] * 2.0


def test_relaunches_on_other_tensors_compute_each_result(vecadd, torch):
    launch = vecadd[4, 256]
    for _ in range(4):  # the first is checked in full, the others come from the memo
        a, b, out = tensors(torch, 1000)
        launch(a, b, out)
        assert torch.equal(out, a + b)
    for _ in range(3):
        x = torch.randn(300, device="cuda")
        out = torch.full((300,), float("nan"), device="cuda")
        doubled[2, 256](x, out)
        assert torch.equal(out, x * 2)


def test_the_aliasing_rule_judges_every_relaunch(vecadd, torch):
    launch = vecadd[4, 256]
    a, b, out = tensors(torch, 1000)
    launch(a, b, out)
    whole = torch.full((2000,), float("nan"), device="cuda")
    with pytest.raises(ferrox.LaunchError) as info:
        launch(whole[:1000], b, whole[500:1500])  # same key as (a, b, out): other addresses
    assert info.value.problems == [
        "%a (argument #0) and %out (argument #2) of @vecadd overlap by 2000 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    with pytest.raises(ferrox.LaunchError) as same:
        doubled[2, 256](a[:300], a[:300])
    assert same.value.problems == [
        "%x (argument #0) and %out (argument #1) of @doubled overlap by 1200 bytes, but %out is "
        "an exclusive output (disjoint slice) and must not alias any other argument (pass a copy)"
    ]
    torch.cuda.synchronize()
    assert whole.isnan().all(), "a refused launch wrote"
    whole[:1000] = a
    launch(whole[:1000], b, whole[1000:])  # beside each other: launched
    assert torch.equal(whole[1000:], a + b)


def test_explicit_streams(vecadd, torch):
    launch = vecadd[4, 256]
    a, b, out = tensors(torch, 1000)
    current = torch.cuda.current_stream()
    for _ in range(2):  # torch's current stream, given: checked once, then relaunched
        out.fill_(float("nan"))
        launch(a, b, out, stream=current)
        torch.cuda.synchronize()
        assert torch.equal(out, a + b)
    side = torch.cuda.Stream()
    for factor in (3, 5):  # another stream: each call checked in full, ordered after torch's
        made = a * factor  # work on torch's current stream, as the fill below
        out.fill_(float("nan"))
        launch(made, b, out, stream=side)
        side.synchronize()
        assert torch.equal(out, made + b)


def test_checked_launches_captured_in_a_cuda_graph(vecadd, torch):
    n = 1 << 16
    launch = vecadd[n // 256, 256]
    tile = ferrox.load(VECTOR_ADD, device="gpu")["vector_add"]
    a, b, out = tensors(torch, n)
    c, d, out2 = tensors(torch, n)
    x, z = torch.randn(300, device="cuda"), torch.full((300,), float("nan"), device="cuda")
    y, w = torch.randn(3001, device="cuda"), torch.full((3001,), float("nan"), device="cuda")
    # doc:begin graph
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up off the capture: checked in full, kept in the memo
        launch(a, b, out)
        doubled[2, 256](x, z)
        tile(w, y, y)
        vecadd[4, 256](a[:1000], b[:1000], out[:1000])  # the kernel loaded for the grid below
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        launch(a, b, out)  # from the memo
        launch(c, d, out2)  # the memo's launch on other addresses
        doubled[2, 256](x, z)  # a decorated kernel's relaunch
        tile(w, y, y)  # a tile kernel's
        vecadd[8, 256](c[:2000], d[:2000], a[:2000])  # a new grid: checked in full, captured
    for t in (out, out2, z, w):
        t.fill_(float("nan"))
    a.copy_(torch.randn(n, device="cuda"))  # a replay reads what the buffers hold then
    fresh_a = a.clone()
    graph.replay()
    # doc:end
    torch.cuda.synchronize()
    assert torch.equal(out, fresh_a + b)
    assert torch.equal(out2, c + d)
    assert torch.equal(z, x * 2)
    assert torch.equal(w, y + y)
    assert torch.equal(a[:2000], c[:2000] + d[:2000]) and torch.equal(a[2000:], fresh_a[2000:])
