"""The GPU backend's own code on a fake driver (`fake_gpu`): compile, upload, pack, launch, read.

Kernels are really compiled (llvmlite), arguments really packed by the compiler's signatures,
and each launch decodes the packed parameters back into device memory before running the kernel
on the interpreter, so an argument passed in the wrong order or of the wrong size fails here.
The real GPU runs are tests/gpu/test_examples_gpu.py and tests/gpu/test_bad_launch_gpu.py.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from programs import EXAMPLES

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.host_runner import run_host_program, select_backend
from ferrox.driver.host_runner.gpu import GpuBackend
from ferrox.run_api import load_program

NAMES = sorted(p.stem for p in EXAMPLES.glob("*.mlir"))


@pytest.mark.parametrize("name", NAMES)
def test_every_example_on_the_fake_gpu(fake_device, name):
    module = load_program(EXAMPLES / f"{name}.mlir")
    out = io.StringIO()
    result = run_host_program(module, GpuBackend(), out=out)
    assert result.device == "gpu" and result.device_name == "Fake H200"
    assert result.checks and result.ok, out.getvalue()
    assert [launch[0] for launch in fake_device.launches] == [name]
    cpu = run_host_program(
        load_program(EXAMPLES / f"{name}.mlir"), select_backend("cpu")[0], out=None
    )
    for got, want in zip(result.outputs, cpu.outputs, strict=True):
        np.testing.assert_array_equal(got, want)


def test_auto_picks_the_gpu_when_there_is_one(fake_device):
    backend, why = select_backend("auto")
    assert isinstance(backend, GpuBackend) and why is None


def test_numpy_caller_arrays_are_copied(fake_device, program):
    module = program(SCALE)
    x = np.arange(300, dtype=np.float32)
    y = np.full(300, np.nan, dtype=np.float32)
    result = run_host_program(module, GpuBackend(), arrays=[x, y], out=None)
    assert result.ok
    np.testing.assert_array_equal(result.outputs[0], 2 * x)
    assert np.isnan(y).all()  # the device copy was written, not the caller's array


def test_refused_prepare_launches_nothing_and_the_next_launch_works(fake_device, program):
    module = program(
        SCALE.replace("%blocks = arith.constant 2 : index", "%blocks = arith.constant 1 : index")
    )
    x, y = np.arange(300, dtype=np.float32), np.zeros(300, dtype=np.float32)
    with pytest.raises(DiagnosticError, match="the grid does not cover %out"):
        run_host_program(module, GpuBackend(), arrays=[x, y], out=None)
    assert fake_device.launches == []
    result = run_host_program(program(SCALE, "good.mlir"), GpuBackend(), arrays=[x, y], out=None)
    assert result.ok and len(fake_device.launches) == 1


def test_device_arrays_of_the_wrong_device_are_refused(fake_device, program):
    from ferrox.driver.runtime.buffers import DeviceArray

    module = program(SCALE)
    other = DeviceArray(fake_device.alloc(1200), (300,), "f32", ordinal=1)
    y = np.zeros(300, dtype=np.float32)
    with pytest.raises(
        DiagnosticError, match="caller array 0 cannot be bound: array is on CUDA device 1"
    ):
        run_host_program(module, GpuBackend(), arrays=[other, y], out=None)
    assert fake_device.launches == []


def test_device_arrays_that_alias_are_refused(fake_device, program):
    from ferrox.driver.runtime.buffers import DeviceArray

    module = program(SCALE)
    whole = DeviceArray.from_numpy(np.zeros(600, dtype=np.float32))
    x = DeviceArray(whole.ptr, (300,), "f32")
    overlapping = DeviceArray(whole.ptr + 4 * 299, (300,), "f32")
    for second in (x, overlapping):
        message = str(
            pytest.raises(
                DiagnosticError,
                run_host_program,
                module,
                GpuBackend(),
                arrays=[x, second],
                out=None,
            ).value
        )
        assert (
            "caller array 1 cannot be bound: it shares device memory with another caller array"
            in message
        )
    apart = DeviceArray(whole.ptr + 4 * 300, (300,), "f32")
    assert run_host_program(module, GpuBackend(), arrays=[x, apart], out=None).ok


def test_device_arrays_are_used_in_place(fake_device, program):
    from ferrox.driver.runtime.buffers import DeviceArray

    module = program(SCALE)
    x = DeviceArray.from_numpy(np.arange(300, dtype=np.float32))
    y = DeviceArray.from_numpy(np.zeros(300, dtype=np.float32))
    result = run_host_program(module, GpuBackend(), arrays=[x, y], out=None)
    assert result.ok
    np.testing.assert_array_equal(y.copy_to_host(), 2 * np.arange(300, dtype=np.float32))


SCALE = """
simt.kernel @scale(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>)
    contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %v = simt.load %x[%i] : !simt.slice<f32>
    %r = arith.addf %v, %v : f32
    simt.yield %r : f32
  }
  simt.return
}
func.func @main() -> !host.tensor<f32, [?]> {
  %x = host.from_array 0 : !host.tensor<f32, [?]>
  %out = host.from_array 1 : !host.tensor<f32, [?]>
  %s = host.stream
  %blocks = arith.constant 2 : index
  %threads = arith.constant 256 : index
  %p = host.prepare @scale grid(%blocks) block(%threads)
      args(%x, %out : !host.tensor<f32, [?]>, !host.tensor<f32, [?]>)
  %out2 = host.launch @scale with %p on %s ins(%x : !host.tensor<f32, [?]>)
      outs(%out : !host.tensor<f32, [?]>) -> !host.tensor<f32, [?]>
  host.sync_on %s
  host.check %out2, "2 * x" (x = %x : !host.tensor<f32, [?]>) : !host.tensor<f32, [?]>
  func.return %out2 : !host.tensor<f32, [?]>
}
"""


TILE_EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "tile"
TILE_NAMES = sorted(p.stem for p in TILE_EXAMPLES.glob("*.mlir"))
SMALL = {  # ragged against every tile shape, and quick on the interpreter
    "matmul_f32": {"m": 70, "n": 40, "k": 20},
    "softmax": {"m": 5, "n": 300},
    "layernorm": {"m": 5, "n": 300},
    "row_sum": {"m": 20, "n": 200},
    "transpose": {"m": 40, "n": 70},
}


def checked_arrays(monkeypatch, module, backend, params) -> tuple[object, list[np.ndarray]]:
    """Run, and keep a copy of every array a `host.check` compared (the tile examples' `@main`
    returns nothing)."""
    from ferrox.driver.host_runner import functions

    seen: list[np.ndarray] = []
    compare = functions.checks.compare

    def recording(name, where, actual, expected, rtol, atol):
        seen.append(np.array(actual))
        return compare(name, where, actual, expected, rtol, atol)

    monkeypatch.setattr(functions.checks, "compare", recording)
    result = run_host_program(module, backend, params=params, out=None)
    monkeypatch.setattr(functions.checks, "compare", compare)
    return result, seen


@pytest.mark.parametrize("name", TILE_NAMES)
def test_every_tile_example_on_the_fake_gpu(fake_device, monkeypatch, name):
    """The tile kernel as the GPU runs it: lowered to SIMT, prepared against the lowered kernel's
    contract, launched over the partition's grid; its outputs against the tile interpreter's."""
    params = SMALL.get(name, {})
    path = TILE_EXAMPLES / f"{name}.mlir"
    result, gpu = checked_arrays(monkeypatch, load_program(path), GpuBackend(), params)
    assert result.checks and result.ok, [c.line() for c in result.checks]
    assert fake_device.launches and all(
        block[1:] == (1, 1) for _, _, block, _ in fake_device.launches
    )
    cpu_result, cpu = checked_arrays(
        monkeypatch, load_program(path), select_backend("cpu")[0], params
    )
    assert cpu_result.ok and len(gpu) == len(cpu) == len(result.checks)
    for got, want in zip(gpu, cpu, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
