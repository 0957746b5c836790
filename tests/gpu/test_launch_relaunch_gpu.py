"""The checked relaunch's prepared driver call on the GPU (`LoadedKernel.prepared`): results
against NumPy on fresh random data with poisoned outputs, for torch tensors (new ones each call,
on torch's default and on another current stream) and device arrays; a changed element type,
stride or device refused with the checker's message; relaunches from several threads at once,
each on its own tensors (the packed addresses are written and launched under the memo entry's
lock).

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_launch_relaunch_gpu.py`.
"""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

import ferrox
from ferrox.driver.runtime.buffers import DeviceArray

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
VECADD = ROOT / "examples" / "simt" / "vecadd.mlir"


@pytest.fixture
def vecadd():
    """A new load each test: a module of its own, so its memo starts empty."""
    return ferrox.load(VECADD, device="gpu")["vecadd"]


def operands(torch, rng, n: int):
    x, y = rng.standard_normal((2, n), dtype=np.float32)
    out = torch.full((n,), float("nan"), device="cuda")
    return x, y, torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda(), out


def test_torch_relaunches_match_numpy(vecadd, torch):
    rng = np.random.default_rng(17)
    launch = vecadd[4, 256]
    for _ in range(5):  # the first checked in full, then the memo on new tensors
        x, y, a, b, out = operands(torch, rng, 1000)
        launch(a, b, out)
        np.testing.assert_array_equal(out.cpu().numpy(), x + y)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):  # torch's current stream is now another one
        for _ in range(3):
            x, y, a, b, out = operands(torch, rng, 1000)
            launch(a, b, out)
            side.synchronize()
            np.testing.assert_array_equal(out.cpu().numpy(), x + y)


def test_device_array_relaunches_match_numpy(vecadd):
    rng = np.random.default_rng(19)
    for _ in range(4):
        x, y = rng.standard_normal((2, 1000), dtype=np.float32)
        out = DeviceArray.from_numpy(np.full(1000, np.nan, np.float32))
        vecadd[4, 256](DeviceArray.from_numpy(x), DeviceArray.from_numpy(y), out)
        np.testing.assert_array_equal(out.copy_to_host(), x + y)


def test_another_element_type_is_refused(vecadd, torch):
    rng = np.random.default_rng(23)
    x, y, a, b, out = operands(torch, rng, 1000)
    vecadd[4, 256](a, b, out)
    wide = torch.full((1000,), float("nan"), device="cuda", dtype=torch.float64)
    with pytest.raises(ferrox.LaunchError) as info:
        vecadd[4, 256](a, b, wide)
    assert info.value.problems == [
        "%out (argument #2) of @vecadd is a disjoint slice of f32, but the array holds f64 "
        "(its element type must be f32)"
    ]
    torch.cuda.synchronize()
    assert wide.isnan().all(), "a refused launch wrote"


def test_a_changed_stride_or_device_goes_back_to_the_full_check(vecadd, torch):
    rng = np.random.default_rng(31)
    x, y, a, b, out = operands(torch, rng, 1000)
    launch = vecadd[4, 256]
    launch(a, b, out)
    launch(a, b, out)  # the memo, on the buffers it holds
    strided = torch.full((2000,), float("nan"), device="cuda")[::2]  # 1000 f32, stride 2
    with pytest.raises(ferrox.LaunchError) as info:
        launch(a, b, strided)
    assert info.value.problems == [
        "%out (argument #2) of @vecadd is a disjoint slice of f32, but the array is a strided "
        "view: a kernel buffer must be contiguous (pass a contiguous copy)"
    ]
    host = torch.full((1000,), float("nan"))
    with pytest.raises(ferrox.LaunchError) as info:
        launch(a, b, host)
    assert info.value.problems == [
        "%out (argument #2) of @vecadd is a CPU tensor: move it to the GPU (.cuda()) or pass a "
        "NumPy array, which is copied in and back"
    ]
    torch.cuda.synchronize()
    assert strided.isnan().all() and host.isnan().all(), "a refused launch wrote"
    out.fill_(float("nan"))
    launch(a, b, out)  # the memo again, on its own buffers
    np.testing.assert_array_equal(out.cpu().numpy(), x + y)


def test_relaunches_from_several_threads(vecadd, torch):
    launch = vecadd[4, 256]
    rng = np.random.default_rng(29)
    x, y, a, b, out = operands(torch, rng, 1000)
    launch(a, b, out)  # kept in the memo: every thread's calls are relaunches
    failures: list[str] = []

    def work(seed: int) -> None:
        local = np.random.default_rng(seed)
        for _ in range(40):
            x, y, a, b, out = operands(torch, local, 1000)
            launch(a, b, out)
            torch.cuda.synchronize()
            if not np.array_equal(out.cpu().numpy(), x + y):
                failures.append(f"thread {seed}: a launch computed another result")
                return

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_cupy_relaunches_match_numpy_and_order_after_cupys_stream(vecadd):
    """CuPy arrays on CuPy's null stream are relaunched from the memo (on the legacy stream);
    on another CuPy stream each launch is checked in full, which orders it after that stream's
    pending work (a long fill queued there first)."""
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(23)
    launch = vecadd[4, 256]
    for _ in range(4):
        x, y = rng.standard_normal((2, 1000), dtype=np.float32)
        out = cupy.full(1000, cupy.nan, dtype=cupy.float32)
        launch(cupy.asarray(x), cupy.asarray(y), out)
        np.testing.assert_array_equal(cupy.asnumpy(out), x + y)
    with cupy.cuda.Stream(non_blocking=True) as side:
        big = cupy.zeros(1 << 26, dtype=cupy.float32)
        a, b = cupy.ones(1000, dtype=cupy.float32), cupy.ones(1000, dtype=cupy.float32)
        out = cupy.full(1000, cupy.nan, dtype=cupy.float32)
        big += 1  # pending work on the side stream before the inputs are written
        a *= 3
        launch(a, b, out)
        side.synchronize()
    cupy.cuda.Device().synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(out), np.full(1000, 4, np.float32))
