"""The runtime on a real GPU: artifacts loaded (PTX and cubin), launched raw and through the
packed fast path, torch (f32 and bf16) and CuPy arrays viewed in place with stream ordering,
non-contiguous views refused, driver refusals explained. Outputs are poisoned with NaN first
and compared with NumPy.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_runtime_gpu.py`. Without a GPU
every test here skips with the reason (tests/gpu/conftest.py).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ferrox.driver.runtime import errors
from ferrox.driver.runtime.buffers import DeviceArray, view_of
from ferrox.driver.runtime.device import device_limits, driver_version, synchronize
from ferrox.driver.runtime.errors import ArrayError, CudaError
from ferrox.driver.runtime.launcher import LoadedModule
from ferrox.driver.runtime.streams import Stream, current_stream_for
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module
from ferrox.verify import verify_module

pytestmark = pytest.mark.gpu

VECADD = Path(__file__).resolve().parents[2] / "examples" / "simt" / "vecadd.mlir"
N = (1 << 20) + 37  # not a multiple of the block: the tail threads take the bounds branch

SCALE_BF16 = """
builtin.module {
  simt.kernel @scale_bf16(%a: !simt.slice<bf16>, %out: !simt.disjoint_slice<bf16, 1d>, %s: f32)
      contract<domain = 1, block = [256], requires = [len(arg0) >= len(arg1)]> {
    %w = simt.thread_index_1d
    %i = simt.witness_value %w : !simt.thread_index<1d>
    simt.get_mut %out[%w] : !simt.disjoint_slice<bf16, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: bf16):
      %x = simt.load %a[%i] : !simt.slice<bf16>
      %xf = arith.extf %x : bf16 to f32
      %y = arith.mulf %xf, %s : f32
      %r = arith.truncf %y : f32 to bf16
      simt.yield %r : bf16
    }
    simt.return
  }
}
"""


def compiled(text: str, name: str, cubin: bool | None):
    module = parse_module(make_context(), text, name)
    verify_module(module)
    return compile_module(module, chip=device_limits(0).chip, cubin=cubin)


@pytest.fixture(scope="module", params=[False, None], ids=["ptx", "cubin-if-ptxas"])
def vecadd(request):
    artifact = compiled(VECADD.read_text(), str(VECADD), request.param)
    module = LoadedModule.load(artifact)
    assert module.is_cubin == (artifact.cubin is not None)
    return module.kernel("vecadd")


def inputs(n: int = N, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)


def blocks(n: int) -> int:
    return (n + 255) // 256


def test_device_limits_are_sane():
    d = device_limits(0)
    major, minor = d.compute_capability
    assert d.name and major >= 7 and d.chip == f"sm_{major}{minor}"
    assert d.warp_size == 32 and d.max_threads_per_block == 1024
    assert d.max_block_dims == (1024, 1024, 64)
    assert d.max_grid_dims == (2**31 - 1, 65535, 65535)
    assert d.max_shared_per_block == 48 * 1024 <= d.max_shared_per_block_optin
    assert d.sm_count > 0 and d.total_memory > 2**30
    assert driver_version() >= (12, 0)


def test_the_artifacts_abi_is_the_drivers(vecadd):
    sizes = [info.size for info in vecadd.core.arguments_info]
    assert sizes == [slot.nbytes for slot in vecadd.info.abi] == [8] * 6


def test_numpy_staged_vecadd_matches_numpy(vecadd):
    a, b = inputs()
    da, db = DeviceArray.from_numpy(a), DeviceArray.from_numpy(b)
    out = DeviceArray.from_numpy(np.full(N, np.nan, np.float32))
    vecadd.launch(blocks(N), 256, [da, db, out])
    synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), a + b)  # one f32 add: bit-exact
    for array in (da, db, out):
        array.free()


def test_packed_fast_path_on_an_own_stream_with_opt_in_shared_memory(vecadd):
    a, b = inputs(seed=1)
    da, db = DeviceArray.from_numpy(a), DeviceArray.from_numpy(b)
    out = DeviceArray.from_numpy(np.full(N, np.nan, np.float32))
    packed = vecadd.pack([da, db, out.view])
    with Stream() as stream:
        for _ in range(3):
            vecadd.launch_packed(blocks(N), 256, packed, shared_bytes=100 * 1024, stream=stream)
        stream.synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), a + b)


def test_a_block_against_the_contract_is_refused_by_the_driver_and_explained(vecadd):
    a, _ = inputs(n=1024)
    da = DeviceArray.from_numpy(a)
    out = DeviceArray.from_numpy(np.full(1024, np.nan, np.float32))
    with pytest.raises(CudaError) as info:
        vecadd.launch(8, 128, [da, da, out])
    description = errors.error_description(1)
    assert description  # a loaded driver describes every error
    assert str(info.value) == (
        f"cuLaunchKernelEx failed: CUDA_ERROR_INVALID_VALUE ({description}): "
        "block (128, 1, 1) does not match the kernel's contract block (256, 1, 1)"
    )
    vecadd.launch(4, 256, [da, da, out])  # the refusal left the context usable
    synchronize()
    np.testing.assert_array_equal(out.copy_to_host(), a + a)


def test_torch_f32_in_place_on_torchs_current_stream(vecadd, torch):
    a, b = (torch.randn(N, device="cuda") for _ in range(2))
    out = torch.full((N,), float("nan"), device="cuda")
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        stream = current_stream_for([a, b, out])
        assert stream == side.cuda_stream
        vecadd.launch(blocks(N), 256, [a, b, out], stream=stream)
        side.synchronize()
    assert torch.equal(out, a + b)


def test_work_pending_on_the_producers_stream_is_ordered_before_the_launch(vecadd, torch):
    source = torch.randn(N, device="cuda")
    a = torch.full((N,), float("nan"), device="cuda")
    b = torch.randn(N, device="cuda")
    out = torch.full((N,), float("nan"), device="cuda")
    torch.cuda.synchronize()
    producer = torch.cuda.Stream()
    with Stream() as consumer:
        with torch.cuda.stream(producer):
            torch.cuda._sleep(200_000_000)  # ~0.1 s: without ordering, the kernel reads NaN
            a.copy_(source)
            views = [view_of(t, stream=consumer) for t in (a, b, out)]
        vecadd.launch(blocks(N), 256, views, stream=consumer)
        consumer.synchronize()
    assert torch.equal(out, source + b)


def test_torch_bf16(torch):
    artifact = compiled(SCALE_BF16, "scale_bf16.mlir", cubin=False)
    kernel = LoadedModule.load(artifact).kernel("scale_bf16")
    x = torch.randn(5000, device="cuda").bfloat16()
    out = torch.full((5000,), float("nan"), device="cuda").bfloat16()
    view = view_of(x)
    assert (view.element, view.nbytes, view.shape) == ("bf16", 10000, (5000,))
    kernel.launch(blocks(5000), 256, [x, out, 3.0])
    torch.cuda.synchronize()
    assert torch.equal(out, (x.float() * 3.0).bfloat16())


def test_non_contiguous_torch_views_are_refused(torch):
    m = torch.zeros((64, 32), device="cuda")
    with pytest.raises(ArrayError) as info:
        view_of(m.T)
    assert str(info.value) == (
        "Tensor of shape (32, 64) with strides (1, 32) (in elements) is not C-contiguous: "
        "make it contiguous first (.contiguous() in PyTorch, cupy.ascontiguousarray in CuPy)"
    )
    with pytest.raises(ArrayError, match=r"^Tensor of shape \(16,\) with strides \(2,\)"):
        view_of(m[0, ::2])
    with pytest.raises(ArrayError) as info:
        view_of(torch.zeros(3))
    assert str(info.value) == "Tensor lives in host memory, not on a CUDA device: copy it first"
    row = view_of(m[3])  # a contiguous slice is taken in place
    assert (row.ptr, row.shape) == (m.data_ptr() + 3 * 32 * 4, (32,))


def test_cupy_arrays(vecadd):
    cupy = pytest.importorskip("cupy")
    a, b = inputs(seed=3)
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    out = cupy.full(N, cupy.nan, dtype=cupy.float32)
    vecadd.launch(blocks(N), 256, [ca, cb, out])
    synchronize()
    np.testing.assert_array_equal(cupy.asnumpy(out), a + b)
    with pytest.raises(ArrayError, match=r"^ndarray of shape \(\d+,\) with strides \(2,\)"):
        view_of(ca[::2])
