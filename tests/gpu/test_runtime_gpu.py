"""The runtime on a real GPU: llvmlite PTX launched, refusals explained, zero-copy interop.

Run on the GPU host: `python -m pytest -q -m gpu tests/gpu/test_runtime_gpu.py`. Without a GPU
every test here skips with the reason (tests/gpu/conftest.py).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from ferrox.driver.runtime import (
    CudaError,
    DeviceArray,
    KernelCache,
    KernelKey,
    Module,
    as_device_array,
    cuda,
    device_limits,
    pack_args,
    to_device,
)
from ferrox.driver.runtime.abi import ArgumentError
from ferrox.driver.runtime.arrays import ArrayError
from ferrox.targets.toolchain import find_ptxas

pytestmark = pytest.mark.gpu

VECADD_LL = Path(__file__).resolve().parents[1] / "driver" / "runtime" / "vecadd.ll"
SIG = ["slice:f32", "slice:f32", "slice:f32"]
N = (1 << 22) + 37  # not a multiple of the block: the tail threads must take the bounds branch


def compile_ll(text: str, chip: str) -> bytes:
    llvm = pytest.importorskip("llvmlite.binding")

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    module = llvm.parse_assembly(text)
    module.verify()
    target = llvm.Target.from_triple("nvptx64-nvidia-cuda")
    machine = target.create_target_machine(cpu=chip, features="+ptx80", opt=3)
    return machine.emit_assembly(module).encode()


@pytest.fixture(scope="module")
def ptx(tmp_path_factory) -> bytes:
    chip = device_limits(0).chip
    text = VECADD_LL.read_text()
    cache = KernelCache(tmp_path_factory.mktemp("kernel-cache"))
    key = KernelKey(text, chip, {"features": "+ptx80", "opt": 3})
    data = cache.get_or_compile(key, lambda: compile_ll(text, chip))
    assert b".reqntid 256, 1, 1" in data
    return data


@pytest.fixture(scope="module")
def module(ptx) -> Module:
    return Module.load(ptx, signatures={"vecadd": SIG, "vecadd_any": SIG})


def inputs(n: int = N, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n, dtype=np.float32)
    b = rng.standard_normal(n, dtype=np.float32)
    return a, b


def blocks(n: int, block: int = 256) -> int:
    return (n + block - 1) // block


def test_device_limits_are_sane():
    d = device_limits(0)
    assert (
        d.name
        and d.compute_capability >= (7, 0)
        and d.chip == f"sm_{d.compute_capability[0]}{d.compute_capability[1]}"
    )
    assert d.warp_size == 32 and d.max_threads_per_block == 1024
    assert d.max_block_dims == (1024, 1024, 64)
    assert d.max_grid_dims == (2**31 - 1, 65535, 65535)
    assert (
        d.max_shared_per_block == 48 * 1024
        and d.max_shared_per_block_optin >= d.max_shared_per_block
    )
    assert d.sm_count > 0 and d.total_memory > 2**30
    assert d.check_launch((blocks(N), 1, 1), (256, 1, 1)) == []
    assert d.check_launch((1, 1, 1), (2048, 1, 1)) == [
        f"block.x is 2048, but {d.name} allows at most 1024",
        f"block has 2048 threads, but {d.name} allows at most 1024 per block",
    ]
    assert cuda.driver_version() >= (12, 0)


def test_vecadd_matches_numpy_on_nan_poisoned_output(module):
    a, b = inputs()
    da, db = to_device(a), to_device(b)
    dc = DeviceArray.empty(N, "f32")
    dc.fill_nan()
    assert np.isnan(dc.copy_to_host()).all()
    kernel = module.kernel("vecadd")
    kernel.launch(blocks(N), 256, pack_args(SIG, [da, db, dc]))
    cuda.synchronize()
    out = dc.copy_to_host()
    assert not np.isnan(out).any()
    np.testing.assert_array_equal(out, a + b)  # one f32 add: bit-exact
    assert kernel.attribute("LOCAL_SIZE_BYTES") == 0  # no spills in the simple kernel
    for arr in (da, db, dc):
        arr.free()


def test_call_copies_numpy_in_and_back(module):
    a, b = inputs(seed=1)
    out = np.full(N, np.nan, np.float32)
    module.kernel("vecadd").call(blocks(N), 256, a, b, out)
    np.testing.assert_array_equal(out, a + b)


def test_wrong_block_is_refused_with_the_reqntid_reason_then_a_good_launch_works(module):
    a, b = inputs(1 << 16, seed=2)
    out = np.full(a.size, np.nan, np.float32)
    kernel = module.kernel("vecadd")
    with pytest.raises(CudaError) as info:
        kernel.call(blocks(a.size, 128), 128, a, b, out)
    err = info.value
    assert err.call == "cuLaunchKernel" and err.name == "CUDA_ERROR_INVALID_VALUE"
    assert str(err).startswith("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (")
    assert str(err).endswith(": block (128, 1, 1) does not match the kernel's .reqntid (256, 1, 1)")
    assert np.isnan(out).all()  # nothing ran, nothing was copied back
    kernel.call(blocks(a.size), 256, a, b, out)
    np.testing.assert_array_equal(out, a + b)
    # the same body without .reqntid takes any block
    out2 = np.full(a.size, np.nan, np.float32)
    module.kernel("vecadd_any").call(blocks(a.size, 128), 128, a, b, out2)
    np.testing.assert_array_equal(out2, a + b)


def test_bad_arguments_fail_before_the_launch_and_a_good_launch_follows(module):
    a, b = inputs(1024, seed=3)
    out = np.full(1024, np.nan, np.float32)
    kernel = module.kernel("vecadd")
    with pytest.raises(
        ArgumentError, match=r"argument 1 \(slice:f32\): expected f32 elements, got f64"
    ):
        kernel.call(4, 256, a, b.astype(np.float64), out)
    with pytest.raises(ArgumentError, match=r"kernel takes 3 arguments .* got 2"):
        kernel.call(4, 256, a, b)
    with pytest.raises(ArgumentError, match="takes 6 PTX parameters, got 4"):
        kernel.launch(4, 256, pack_args(SIG[:2], [to_device(a), to_device(b)]))
    kernel.call(4, 256, a, b, out)
    np.testing.assert_array_equal(out, a + b)


def test_launch_on_our_own_stream_timed_with_events(module):
    a, b = inputs(seed=4)
    da, db, dc = to_device(a), to_device(b), DeviceArray.empty(N, "f32")
    args = pack_args(SIG, [da, db, dc])
    with cuda.Stream() as stream:
        start, end = cuda.Event().record(stream), cuda.Event()
        for _ in range(10):
            module.kernel("vecadd").launch(blocks(N), 256, args, stream=stream)
        end.record(stream)
        ms = cuda.Event.elapsed_ms(start, end)
        stream.synchronize()
    assert 0 < ms < 1000
    np.testing.assert_array_equal(dc.copy_to_host(), a + b)
    gbps = 10 * 3 * N * 4 / (ms / 1e3) / 1e9
    print(f"vecadd {N} f32 on a stream: {ms / 10:.3f} ms per launch, {gbps:.0f} GB/s")


def test_module_is_loaded_once(ptx, module):
    assert Module.load(ptx) is module
    with pytest.raises(KeyError, match="no kernel named 'nope'"):
        module.kernel("nope")


def test_bad_ptx_carries_the_jit_log():
    bad = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus.op; ret; }\n"
    with pytest.raises(CudaError) as info:
        Module(bad)
    assert info.value.call == "cuModuleLoadDataEx"
    assert info.value.name == "CUDA_ERROR_INVALID_PTX"
    assert info.value.log and "JIT log:" in str(info.value)
    print(str(info.value))


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
def test_cubin_from_ptxas_loads_and_runs(ptx, tmp_path):
    src, cubin = tmp_path / "vecadd.ptx", tmp_path / "vecadd.cubin"
    src.write_bytes(ptx)
    subprocess.run(
        [find_ptxas(), f"-arch={device_limits(0).chip}", str(src), "-o", str(cubin)], check=True
    )
    module = Module(cubin.read_bytes(), signatures={"vecadd": SIG})
    assert not module.is_ptx
    a, b = inputs(4096, seed=5)
    out = np.full(4096, np.nan, np.float32)
    module.kernel("vecadd").call(16, 256, a, b, out)
    np.testing.assert_array_equal(out, a + b)


def test_pointer_device_and_interface_round_trip():
    d = DeviceArray.empty((4, 4), "f32")
    assert cuda.pointer_device_ordinal(d.ptr) == 0
    consumer = type("Consumer", (), {"__cuda_array_interface__": d.__cuda_array_interface__})()
    again = as_device_array(consumer, "f32")
    assert (again.ptr, again.shape) == (d.ptr, (4, 4))
    d.free()


def test_torch_tensors_are_used_in_place(module):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    a = torch.randn(N, device="cuda")
    b = torch.randn(N, device="cuda")
    c = torch.full((N,), float("nan"), device="cuda")
    args = pack_args(SIG, [a, b, c])
    assert args[0][1] == a.data_ptr() and args[4][1] == c.data_ptr() and args[5][1] == N
    module.kernel("vecadd").launch(blocks(N), 256, args)
    torch.cuda.synchronize()
    assert torch.equal(c, a + b)
    with pytest.raises(ArgumentError, match="not C-contiguous"):
        pack_args(SIG, [a[::2], b[::2], c[::2]])
    with pytest.raises(
        ArgumentError,
        match=r"argument 0 \(slice:f32\): (expected f32 elements, got bf16|unsupported)",
    ):
        pack_args(SIG, [a.bfloat16(), b, c])  # bf16 has no __cuda_array_interface__: via DLPack
    with pytest.raises(ArgumentError, match="lives on the host"):
        pack_args(SIG, [a.cpu(), b, c])
    needs_grad = torch.randn(16, device="cuda", requires_grad=True)
    with pytest.raises(ArgumentError, match=r"argument 0 \(slice:f32\): .*(grad|detach)"):
        pack_args(["slice:f32"], [needs_grad])
    assert as_device_array(needs_grad.detach(), "f32").ptr == needs_grad.data_ptr()
    # and the other way round: torch reads ferrox's output without a copy
    ours = DeviceArray.empty(8, "f32")
    ours.fill_nan()
    view = torch.as_tensor(ours, device="cuda")
    assert view.data_ptr() == ours.ptr and torch.isnan(view).all()


def test_cupy_arrays_are_used_in_place(module):
    cp = pytest.importorskip("cupy")
    a = cp.random.standard_normal(N, dtype=cp.float32)
    b = cp.random.standard_normal(N, dtype=cp.float32)
    c = cp.full(N, cp.nan, dtype=cp.float32)
    module.kernel("vecadd").launch(blocks(N), 256, pack_args(SIG, [a, b, c]))
    cp.cuda.runtime.deviceSynchronize()
    assert bool((c == a + b).all())
    with pytest.raises(ArrayError, match="not C-contiguous"):
        as_device_array(a[::2], "f32")
