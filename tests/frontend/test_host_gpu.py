"""Host programs in Python on the GPU backend, through the fake GPU (`fake_gpu`: the runtime's
seams faked, compilation and argument packing real, kernels run on the interpreter): NumPy
caller arrays copied in and the result copied back into them, device arrays written in place
and given back as themselves (no copy), tensors the program made given back as NumPy, and
device arrays that share memory refused at bind."""

from __future__ import annotations

import fake_gpu
import numpy as np
import pytest

from ferrox import host, simt
from ferrox.driver.runtime.buffers import DeviceArray
from ferrox.simt import DisjointSlice, Slice, f32


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with fake_gpu.installed(monkeypatch, tmp_path) as fake:
        yield fake


@simt.kernel(block=256, requires=["len(a) >= len(out)", "len(b) >= len(out)"])
def vecadd(a: Slice[f32], b: Slice[f32], out: DisjointSlice[f32]):
    w = simt.thread_index_1d()
    i = w.value
    out[w] = a[i] + b[i]


@host.program
def add_into(x, y, out):
    s = host.stream()
    p = host.prepare(vecadd, -(-len(out) // 256), 256, x, y, out)
    out = host.launch(p, s, x, y, out)
    host.sync(s)
    return out


@host.program
def add_fresh(x, y):
    out = host.poison(x.shape, f32)
    s = host.stream()
    p = host.prepare(vecadd, -(-len(out) // 256), 256, x, y, out)
    out = host.launch(p, s, x, y, out)
    host.sync(s)
    return out


def inputs(n: int):
    rng = np.random.default_rng()
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    return x, y


def test_numpy_arrays_on_the_gpu_come_back_holding_the_result(fake):
    x, y = inputs(1000)
    out = np.full(1000, np.nan, np.float32)
    program = add_into.on("gpu")
    assert program(x, y, out) is out
    assert np.array_equal(out, x + y)
    assert program.last_run.device == "gpu"
    assert [(n, g, b) for n, g, b, _ in fake.launches] == [("vecadd", (4, 1, 1), (256, 1, 1))]


def test_device_arrays_are_written_in_place_and_given_back_as_themselves(fake):
    x, y = inputs(1000)
    dx, dy = DeviceArray.from_numpy(x), DeviceArray.from_numpy(y)
    dout = DeviceArray.from_numpy(np.full(1000, np.nan, np.float32))
    assert add_into.on("gpu")(dx, dy, dout) is dout
    assert np.array_equal(dout.copy_to_host(), x + y)


def test_a_tensor_the_program_made_comes_back_as_numpy(fake):
    x, y = inputs(700)
    result = add_fresh.on("gpu")(x, y)
    assert isinstance(result, np.ndarray) and np.array_equal(result, x + y)


def test_device_arrays_that_share_memory_are_refused_at_bind(fake):
    x, y = inputs(1000)
    whole = DeviceArray.from_numpy(np.full(1500, np.nan, np.float32))
    a = DeviceArray(whole.ptr, 1000, "f32")
    out = DeviceArray(whole.ptr + 2000, 1000, "f32")  # elements 500..1499 of `whole`
    with pytest.raises(host.FrontendError) as e:
        add_into.on("gpu")(a, DeviceArray.from_numpy(y), out)
    lines = open(__file__, encoding="utf-8").read().splitlines()
    line = next(i for i, t in enumerate(lines) if t.startswith("def add_into")) + 1
    text = lines[line - 1]
    x_col, out_col = text.index("x") + 1, text.index("out") + 1
    assert str(e.value) == (
        f"{__file__}:{line}:{out_col}: error[E1101]: caller arrays `x` and `out` share memory "
        "(ferrox f32 1000 on cuda:0 and ferrox f32 1000 on cuda:0); each caller array is bound "
        "to its own tensor, so no two may alias (pass a copy)\n"
        f"{__file__}:{line}:{x_col}: note: `x` bound here"
    )
    assert fake.launches == []
