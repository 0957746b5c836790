"""Shared memory past the 48 KiB static limit: a tile kernel whose lowering needs more puts its
arrays in dynamic shared memory and asks for the bytes in its launch contract; the checker
refuses a launch needing more than the device allows; the SIMT verifier holds a kernel's dynamic
arrays to its contract."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from ferrox.dialects import simt
from ferrox.driver.checker.errors import LaunchError
from ferrox.driver.interpreter.launch import find_kernel, run_simt_kernel
from ferrox.driver.interpreter.tile_lowered import lowered_module, simt_launch
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.verify import verify_module

MATMUL = """builtin.module {
  tile.kernel @mm(%c: !tile.partition<f32, [BM, BN]>, %a: !tile.tensor<T, [?, ?]>,
                  %b: !tile.tensor<T, [?, ?]>) {
    %i = tile.block_id 0
    %j = tile.block_id 1
    %k = tile.dim %a, 1 : !tile.tensor<T, [?, ?]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ck = arith.constant BK : index
    %ktiles = arith.ceildivui %k, %ck : index
    %zero = tile.constant dense<0.0> : !tile.tile<f32, [BM, BN]>
    %acc = scf.for %kk = %c0 to %ktiles step %c1 iter_args(%sum = %zero)
        -> (!tile.tile<f32, [BM, BN]>) {
      %x = tile.load %a[%i, %kk] : !tile.tensor<T, [?, ?]> -> !tile.tile<T, [BM, BK]>
      %y = tile.load %b[%kk, %j] : !tile.tensor<T, [?, ?]> -> !tile.tile<T, [BK, BN]>
      %next = tile.mma %x, %y, %sum
          : !tile.tile<T, [BM, BK]>, !tile.tile<T, [BK, BN]>, !tile.tile<f32, [BM, BN]>
      scf.yield %next : !tile.tile<f32, [BM, BN]>
    }
    tile.store %acc, %c : !tile.tile<f32, [BM, BN]>, !tile.partition<f32, [BM, BN]>
    tile.return
  }
}
"""


def matmul(t: str, bm: int, bn: int, bk: int) -> str:
    text = MATMUL.replace("BM", str(bm)).replace("BN", str(bn)).replace("BK", str(bk))
    return text.replace("<T,", f"<{t},")


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261203)


def _bf16(x: np.ndarray) -> np.ndarray:
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


def test_a_128x64_bf16_tile_with_a_64_wide_k_step_runs_on_the_interpreter(rng):
    module = parse_module(make_context(), matmul("bf16", 128, 64, 64), "mm.mlir")
    lowered = lowered_module(module)
    kernel = find_kernel(lowered, "mm")
    allocs = [op for op in kernel.walk() if isinstance(op, simt.SharedAllocOp)]
    assert allocs and all(op.is_dynamic for op in allocs)
    _, total = simt.dynamic_layout(kernel)
    assert kernel.contract is not None and kernel.contract.shared_bytes.data == total > 48 * 1024
    m, k, n = 150, 100, 90
    a, b = _bf16(rng.standard_normal((m, k))), _bf16(rng.standard_normal((k, n)))
    c = np.full((m, n), np.nan, np.float32)
    grid, block, args = simt_launch(kernel, [c, a, b])
    run_simt_kernel(lowered, "mm", (*grid, 1), block, args, total)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


def test_the_dynamic_arrays_reach_the_artifact_and_the_ptx():
    artifact = ferrox.compile(matmul("bf16", 128, 64, 64))
    contract = artifact.kernels["mm"].contract
    assert contract is not None and contract.shared_bytes > 48 * 1024
    assert contract.static_shared_bytes == 0
    assert ".extern .shared .align 1024 .b8 ferrox_dynamic_shared[];" in artifact.ptx


def test_a_small_tile_keeps_static_shared_memory():
    artifact = ferrox.compile(matmul("f32", 32, 32, 16))
    contract = artifact.kernels["mm"].contract
    assert contract is not None and contract.shared_bytes == 0
    assert 0 < contract.static_shared_bytes <= 48 * 1024


def test_a_tile_needing_more_than_any_block_can_opt_in_to_is_refused():
    from ferrox.diagnostics import DiagnosticError

    with pytest.raises(DiagnosticError) as e:
        ferrox.compile(matmul("f32", 256, 256, 128))
    # two stages of x (k-major, 128 x 256) and y (128 x 256) f32 in one array
    # (lowering/tile_to_simt/gemm.py) already overflow
    assert (
        "cannot lower 'scf.for' to SIMT: the lowering needs 524288 bytes of shared memory, more "
        "than the 232448 a block can opt in to; use smaller tiles or fewer threads"
    ) in str(e.value)


BIG = """builtin.module {
  simt.kernel @big(%out: !simt.disjoint_slice<f32, 1d>)
      contract<domain = 1, block = [32], shared_bytes = 262144> {
    %s = simt.shared_alloc {dynamic} : !simt.shared<f32, [65536]>
    simt.return
  }
}
"""


def test_a_launch_needing_more_than_the_device_allows_is_refused():
    module = ferrox.load(BIG, device="cpu")
    with pytest.raises(LaunchError) as e:
        module["big"][1, 32](np.zeros(32, np.float32))
    assert (
        "dynamic shared memory is 262144 bytes, but the reference interpreter allows at most "
        "232448 per block" in str(e.value)
    )


DYNAMIC = """builtin.module {
  simt.kernel @k(%out: !simt.ptr<f32>) unsafe
      contract<domain = 1, block = [32], shared_bytes = SB> {
    %s = simt.shared_alloc {dynamic} : !simt.shared<f32, [16384]>
    %t = simt.shared_alloc {dynamic} : !simt.shared<f32, [3]>
    simt.return
  }
}
"""


def test_the_contract_must_provide_the_dynamic_arrays_bytes():
    module = parse_module(make_context(), DYNAMIC.replace("SB", "65548"), "k.mlir")
    verify_module(module)  # 65536 + 12 bytes, the second array at offset 65536
    short = parse_module(make_context(), DYNAMIC.replace("SB", "65540"), "k.mlir")
    with pytest.raises(Exception) as e:
        verify_module(short)
    assert (
        "the kernel's dynamic shared arrays take 65548 bytes, but its launch contract provides "
        "shared_bytes = 65540" in str(e.value)
    )


def test_the_interpreter_holds_an_uncontracted_launch_to_the_dynamic_arrays():
    from ferrox.driver.interpreter.errors import LaunchError as InterpreterLaunchError

    text = DYNAMIC.replace("\n      contract<domain = 1, block = [32], shared_bytes = SB>", "")
    module = parse_module(make_context(), text, "k.mlir")
    out = np.zeros(1, np.float32)
    with pytest.raises(InterpreterLaunchError) as e:
        run_simt_kernel(module, "k", (1, 1, 1), (32, 1, 1), [out], 1024)
    assert "@k's dynamic shared arrays take 65548 bytes, but the launch provides " in str(e.value)
    run_simt_kernel(module, "k", (1, 1, 1), (32, 1, 1), [out], 65548)


def test_the_runtime_opts_in_to_the_dynamic_bytes_and_launches_with_them(
    monkeypatch, tmp_path, rng
):
    """On the (fake) GPU: the loaded kernel is opted in to its contract's dynamic shared memory
    once, and the launch passes that many bytes (the fake runs the kernel on the interpreter)."""
    import fake_gpu

    from ferrox.driver.runtime import launcher

    fake = fake_gpu.install(monkeypatch, tmp_path)
    opted: list[int] = []
    monkeypatch.setattr(launcher, "_opt_in_shared", lambda core, ordinal, n: opted.append(n))
    module = ferrox.load(matmul("f32", 128, 128, 16), device="gpu")
    needed = module.artifact.kernels["mm"].contract.shared_bytes
    assert needed > 48 * 1024
    a = rng.standard_normal((130, 40)).astype(np.float32)
    b = rng.standard_normal((40, 70)).astype(np.float32)
    for _ in range(2):
        c = np.full((130, 70), np.nan, np.float32)
        module["mm"](c, a, b)
        np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)
    assert opted == [needed]
    assert [launch[3] for launch in fake.launches] == [needed, needed]
