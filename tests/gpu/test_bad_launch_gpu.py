"""Bad input on the GPU: each refused with a clear, located error before any launch (or, for an
unsafe launch the driver refuses, with the driver's reason), and a good launch right after works.
Caller arrays from PyTorch and CuPy are used in place.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_bad_launch_gpu.py`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.driver.runtime import errors
from ferrox.run_api import run_program

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "simt"
T = "!host.tensor<f32, [?]>"

DOUBLE = """
simt.kernel @double(%x: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>)
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
"""


def program(tmp_path: Path, main: str, name: str = "prog.mlir") -> Path:
    path = tmp_path / name
    path.write_text(DOUBLE + main)
    return path


def from_arrays(blocks: int = 4, threads: int = 256, launch: str = "prepared") -> str:
    if launch == "prepared":
        body = (
            f"  %p = host.prepare @double grid(%blocks) block(%threads) args(%x, %out : {T}, {T})\n"
            f"  %out2 = host.launch @double with %p on %s ins(%x : {T}) outs(%out : {T}) -> {T}\n"
        )
    else:
        body = (
            f"  %out2 = host.unsafe_launch @double grid(%blocks) block(%threads) on %s "
            f"ins(%x : {T}) outs(%out : {T}) -> {T}\n"
        )
    return (
        f"func.func @main() -> {T} {{\n"
        f"  %x = host.from_array 0 : {T}\n"
        f"  %out = host.from_array 1 : {T}\n"
        "  %s = host.stream\n"
        f"  %blocks = arith.constant {blocks} : index\n"
        f"  %threads = arith.constant {threads} : index\n" + body + "  host.sync_on %s\n"
        f'  host.check %out2, "2 * x" (x = %x : {T}) : {T}\n'
        f"  func.return %out2 : {T}\n"
        "}\n"
    )


def arrays(n: int = 1000):
    return [np.arange(n, dtype=np.float32), np.full(n, np.nan, np.float32)]


def good_run(tmp_path: Path) -> None:
    result = run_program(
        program(tmp_path, from_arrays(), "good.mlir"), device="gpu", arrays=arrays(), out=None
    )
    assert result.device == "gpu" and result.ok
    np.testing.assert_array_equal(result.outputs[0], 2 * np.arange(1000, dtype=np.float32))


def refused(path: Path, **kw) -> str:
    with pytest.raises(DiagnosticError) as info:
        run_program(path, device="gpu", out=None, **kw)
    return str(info.value)


def test_a_grid_that_does_not_cover_the_output(tmp_path):
    message = refused(program(tmp_path, from_arrays(blocks=3)), arrays=arrays())
    assert (
        "cannot prepare the launch of @double: the grid does not cover %out: its 1d witness "
        "reaches grid.x * block.x = 3 * 256 = 768 elements, but len(%out) = 1000" in message
    )
    good_run(tmp_path)


def test_a_block_over_the_contract(tmp_path):
    message = refused(program(tmp_path, from_arrays(threads=512)), arrays=arrays())
    assert (
        "block is (512, 1, 1), but @double's contract requires block = [256], i.e. (256, 1, 1)"
        in message
    )
    good_run(tmp_path)


def test_an_unsafe_launch_against_reqntid_fails_at_the_driver_with_the_reason(tmp_path):
    message = refused(
        program(tmp_path, from_arrays(blocks=8, threads=128, launch="unsafe")), arrays=arrays()
    )
    description = errors.error_description(1)  # CUDA_ERROR_INVALID_VALUE, in the driver's words
    assert message.endswith(
        "launch of @double failed: cuLaunchKernelEx failed: "
        f"CUDA_ERROR_INVALID_VALUE ({description}): "
        "block (128, 1, 1) does not match the kernel's contract block (256, 1, 1)"
    )
    good_run(tmp_path)


def test_a_grid_over_the_device_limit(tmp_path):
    m = 16 * 65536 + 1  # ceil(m / 16) = 65537 blocks along y, where the device allows 65535
    with pytest.raises(DiagnosticError) as info:
        run_program(
            EXAMPLES / "sgemm_naive.mlir", device="gpu", params={"m": m, "n": 1, "k": 1}, out=None
        )
    assert "grid.y is 65537, but" in str(info.value) and "allows at most 65535" in str(info.value)
    good_run(tmp_path)


def test_a_contract_the_device_cannot_meet(tmp_path):
    path = tmp_path / "cc.mlir"
    path.write_text(
        DOUBLE.replace("block = [256],", "block = [256], min_cc = 120,") + from_arrays()
    )
    assert "compute capability 12.0" in refused(path, arrays=arrays())
    good_run(tmp_path)


def test_wrong_dtype_shape_and_missing_arrays(tmp_path):
    path = program(tmp_path, from_arrays())
    x, out = arrays()
    assert "caller array 0 has element type f64, but the tensor's is f32" in refused(
        path, arrays=[x.astype(np.float64), out]
    )
    assert "caller array 1 has 2 dimension(s) [10, 100]" in refused(
        path, arrays=[x, out.reshape(10, 100)]
    )
    assert "host.from_array 1 needs caller array 1, but only 1 array was given" in refused(
        path, arrays=[x]
    )
    good_run(tmp_path)


def test_torch_arrays_are_used_in_place(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    path = program(tmp_path, from_arrays())
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.full((1000,), float("nan"), device="cuda")
    result = run_program(path, device="gpu", arrays=[x, out], out=None)
    assert result.ok
    torch.cuda.synchronize()
    assert torch.equal(out, 2 * x)  # the kernel wrote the caller's memory
    wrong = torch.zeros(1000, dtype=torch.float16, device="cuda")
    assert "caller array 1 has element type f16, but the tensor's is f32" in refused(
        path, arrays=[x, wrong]
    )
    strided = torch.zeros(2000, device="cuda")[::2]
    assert "is not C-contiguous" in refused(path, arrays=[x, strided])
    if torch.cuda.device_count() > 1:
        other = torch.zeros(1000, device="cuda:1")
        assert "array is on CUDA device 1, but the kernel runs on device 0" in refused(
            path, arrays=[x, other]
        )
    good_run(tmp_path)


def test_cupy_arrays_are_used_in_place(tmp_path):
    cupy = pytest.importorskip("cupy")
    path = program(tmp_path, from_arrays())
    x = cupy.arange(1000, dtype=cupy.float32)
    out = cupy.full(1000, cupy.nan, dtype=cupy.float32)
    result = run_program(path, device="gpu", arrays=[x, out], out=None)
    assert result.ok
    cupy.cuda.Device().synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(out), 2 * np.arange(1000, dtype=np.float32))
