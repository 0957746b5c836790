"""The GEMM pipeline's SIMT ops on the interpreter, against NumPy: `simt.async_copy` (with its
zero fill and bounds trap), `simt.ldmatrix` (plain and transposed) feeding `simt.mma_sync`."""

from __future__ import annotations

import numpy as np
import pytest

from ferrox.driver.interpreter.errors import KernelFault
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

# One warp: A (16 x 16, row-major) and B (16 x 8, row-major: k rows) are copied into shared
# memory asynchronously, 8 bf16 (16 bytes) a lane; ldmatrix x4 reads A's fragment (lane t names
# row t % 16, columns 8 (t / 16)..), ldmatrix x4 .trans B's (lane t names k row t % 16; lanes
# 16..31 repeat 0..15); one mma; each lane writes its four results of the 16 x 8 product.
KERNEL = """builtin.module {
  simt.kernel @frag(%a: !simt.slice<bf16>, %b: !simt.slice<bf16>, %out: !simt.ptr<f32>, %na: index) unsafe {
    %sa = simt.shared_alloc : !simt.shared<bf16, [256]>
    %sb = simt.shared_alloc : !simt.shared<bf16, [128]>
    %t = simt.thread_id x
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %c15 = arith.constant 15 : index
    %c16 = arith.constant 16 : index
    %t8 = arith.muli %t, %c8 : index
    simt.async_copy %a[%t8], %na, %sa[%t8] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [256]>
    %tb = arith.andi %t, %c15 : index
    %tb8 = arith.muli %tb, %c8 : index
    %full = arith.constant 8 : index
    %low = arith.cmpi ult, %t, %c16 : index
    scf.if %low {
      simt.async_copy %b[%tb8], %full, %sb[%tb8] {width = 8} : !simt.slice<bf16>, !simt.shared<bf16, [128]>
    }
    simt.async_commit
    simt.async_wait {pending = 0}
    simt.sync_threads
    %row = arith.andi %t, %c15 : index
    %half = arith.divui %t, %c16 : index
    %rowa = arith.muli %row, %c16 : index
    %cola = arith.muli %half, %c8 : index
    %ia = arith.addi %rowa, %cola : index
    %a0, %a1, %a2, %a3 = simt.ldmatrix %sa[%ia] : !simt.shared<bf16, [256]>
    %b0, %b1, %b2, %b3 = simt.ldmatrix %sb[%tb8] {trans} : !simt.shared<bf16, [128]>
    %z = arith.constant 0.0 : f32
    %d0, %d1, %d2, %d3 = simt.mma_sync bf16 A[%a0, %a1, %a2, %a3] B[%b0, %b1] C[%z, %z, %z, %z]
    %g = arith.divui %t, %c4 : index
    %q = arith.andi %t, %c3 : index
    %q2 = arith.muli %q, %c2 : index
    %r0 = arith.muli %g, %c8 : index
    %o0 = arith.addi %r0, %q2 : index
    %o1 = arith.addi %o0, %c1 : index
    %c64 = arith.constant 64 : index
    %o2 = arith.addi %o0, %c64 : index
    %o3 = arith.addi %o1, %c64 : index
    simt.ptr_store %d0, %out[%o0] : !simt.ptr<f32>
    simt.ptr_store %d1, %out[%o1] : !simt.ptr<f32>
    simt.ptr_store %d2, %out[%o2] : !simt.ptr<f32>
    simt.ptr_store %d3, %out[%o3] : !simt.ptr<f32>
    simt.return
  }
}
"""


def _bf16(x: np.ndarray) -> np.ndarray:
    """float32 holding bf16 values (truncated), the interpreter's bf16 host format."""
    return (x.astype(np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)


def _run(a: np.ndarray, b: np.ndarray, na: int) -> np.ndarray:
    module = parse_module(make_context(), KERNEL, "frag.mlir")
    out = np.full(128, np.nan, np.float32)
    run_simt_kernel(module, "frag", (1, 1, 1), (32, 1, 1), [a.reshape(-1), b.reshape(-1), out, na])
    return out.reshape(16, 8)


def test_async_copy_and_ldmatrix_feed_mma_as_numpy_multiplies(rng):
    a = _bf16(rng.standard_normal((16, 16)))
    b = _bf16(rng.standard_normal((16, 8)))
    got = _run(a, b, 8)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("na", [0, 3])
def test_async_copy_zero_fills_past_the_count(rng, na):
    a = _bf16(rng.standard_normal((16, 16)))
    b = _bf16(rng.standard_normal((16, 8)))
    kept = np.zeros_like(a)
    for row in range(16):  # each lane's chunk is 8 elements: the first `na` of each are copied
        for half in range(2):
            kept[row, 8 * half : 8 * half + na] = a[row, 8 * half : 8 * half + na]
    got = _run(a, b, na)
    np.testing.assert_allclose(got, kept.astype(np.float64) @ b, rtol=1e-6, atol=1e-6)


def test_async_copy_out_of_range_traps(rng):
    a = _bf16(rng.standard_normal(255))  # one element short: the last lane's chunk overruns
    b = _bf16(rng.standard_normal((16, 8)))
    with pytest.raises(KernelFault) as e:
        _run(a, b, 8)
    assert "simt.async_copy out of range: elements 248 to 255 of %a (length 255)" in str(e.value)


def test_the_pipeline_ops_lower_to_cp_async_and_ldmatrix():
    import ferrox

    ptx = ferrox.compile(KERNEL).ptx
    for instruction in (
        "cp.async.cg.shared.global",
        "cp.async.commit_group",
        "cp.async.wait_group 	0",
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
    ):
        assert instruction in ptx, instruction


RACY = """builtin.module {
  simt.kernel @racy(%a: !simt.slice<f32>, %out: !simt.ptr<f32>) unsafe {
    %s = simt.shared_alloc : !simt.shared<f32, [128]>
    %t = simt.thread_id x
    %c4 = arith.constant 4 : index
    %c32 = arith.constant 32 : index
    %first = arith.cmpi ult, %t, %c32 : index
    scf.if %first {
      %i = arith.muli %t, %c4 : index
      simt.async_copy %a[%i], %c4, %s[%i] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [128]>
    }
    simt.async_commit
    simt.async_wait {pending = 0}
    BARRIER
    %j = arith.remui %t, %c32 : index
    %v = simt.shared_load %s[%j] : !simt.shared<f32, [128]>
    simt.ptr_store %v, %out[%t] : !simt.ptr<f32>
    simt.return
  }
}
"""


@pytest.mark.parametrize("barrier", [True, False])
def test_a_copy_read_by_another_warp_needs_a_barrier(rng, barrier):
    """The copy's shared writes are recorded when it is issued: the second warp reading what the
    first copied is fine after a barrier and a data race without one."""
    from ferrox.driver.interpreter.errors import KernelRace

    text = RACY.replace("BARRIER", "simt.sync_threads" if barrier else "")
    module = parse_module(make_context(), text, "racy.mlir")
    a = rng.standard_normal(128).astype(np.float32)
    out = np.full(64, np.nan, np.float32)
    if barrier:
        run_simt_kernel(module, "racy", (1, 1, 1), (64, 1, 1), [a, out])
        np.testing.assert_array_equal(out, np.concatenate([a[:32], a[:32]]))
        return
    with pytest.raises(KernelRace) as e:
        run_simt_kernel(module, "racy", (1, 1, 1), (64, 1, 1), [a, out])
    assert "data race on element" in str(e.value)
    assert "(no simt.sync_threads between them)" in str(e.value)


# RACY with threads 40 and 41 reading elements 1 and 4 before the copy (threads 0 .. 31, 4
# elements each, element 4 t + j at step j), with no barrier between.
READS = """    %c1 = arith.constant 1 : index
    %c40 = arith.constant 40 : index
    %c41 = arith.constant 41 : index
    %is40 = arith.cmpi eq, %t, %c40 : index
    %is41 = arith.cmpi eq, %t, %c41 : index
    %either = arith.ori %is40, %is41 : i1
    scf.if %either {
      %r = arith.select %is40, %c1, %c4 : index
      %w = simt.shared_load %s[%r] : !simt.shared<f32, [128]>
    }
"""


def test_a_copy_over_elements_read_in_its_barrier_interval_races_at_its_first_chunk_element(rng):
    """The copy writes each thread's first element, then each thread's second, ..: thread 1's
    first (element 4, read by thread 41) comes before thread 0's second (element 1)."""
    from ferrox.driver.interpreter.errors import KernelRace

    at = RACY.index("    %first = ")
    text = (RACY[:at] + READS + RACY[at:]).replace("BARRIER", "")
    module = parse_module(make_context(), text, "copy.mlir")
    a, out = rng.standard_normal(128).astype(np.float32), np.full(64, np.nan, np.float32)
    with pytest.raises(KernelRace) as e:
        run_simt_kernel(module, "racy", (1, 1, 1), (64, 1, 1), [a, out])
    message = str(e.value)
    assert message.startswith(
        "copy.mlir:20:7: error: data race on element 4 of %s: thread (1, 0, 0) writes it here, "
        "and thread (41, 0, 0) read it at copy.mlir:15:7 "
    )
