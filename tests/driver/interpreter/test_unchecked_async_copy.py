"""`simt.unchecked_async_copy` (dialects/simt/pipeline.py): on the interpreter it copies what a
whole-chunk `simt.async_copy` copies, and (unchecked on the GPU, not here) a chunk out of range
or a misaligned source is a fault naming the op; on the GPU it is one `cp.async` of 16 bytes,
with no trap, vote or scalar fallback."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ferrox.driver.interpreter.errors import KernelFault
from ferrox.driver.interpreter.launch import run_simt_kernel
from ferrox.parser import parse_module
from ferrox.registry import make_context

# 32 lanes copy chunk `t + start` of %x (4 f32 each) into shared chunk `t`, then each lane
# reads its chunk back out to %out.
KERNEL = """builtin.module {
  simt.kernel @copy(%x: !simt.slice<f32>, %out: !simt.ptr<f32>, %start: index) unsafe {
    %s = simt.shared_alloc : !simt.shared<f32, [128]>
    %t = simt.thread_id x
    %c4 = arith.constant 4 : index
    %chunk = arith.addi %t, %start : index
    %i = arith.muli %chunk, %c4 : index
    %j = arith.muli %t, %c4 : index
    simt.unchecked_async_copy %x[%i], %s[%j] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [128]>
    simt.async_commit
    simt.async_wait {pending = 0}
    simt.sync_threads
    %v0, %v1, %v2, %v3 = simt.shared_load_vector %s[%j] {width = 4} : !simt.shared<f32, [128]> -> f32, f32, f32, f32
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %j1 = arith.addi %j, %c1 : index
    %j2 = arith.addi %j, %c2 : index
    %j3 = arith.addi %j, %c3 : index
    simt.ptr_store %v0, %out[%j] : !simt.ptr<f32>
    simt.ptr_store %v1, %out[%j1] : !simt.ptr<f32>
    simt.ptr_store %v2, %out[%j2] : !simt.ptr<f32>
    simt.ptr_store %v3, %out[%j3] : !simt.ptr<f32>
    simt.return
  }
}
"""


def _run(x: np.ndarray, start: int) -> np.ndarray:
    module = parse_module(make_context(), KERNEL, "copy.mlir")
    out = np.full(128, np.nan, np.float32)
    run_simt_kernel(module, "copy", (1, 1, 1), (32, 1, 1), [x, out, start])
    return out


@pytest.mark.parametrize("start", [0, 3])
def test_unchecked_copy_copies_whole_chunks(rng, start):
    x = rng.standard_normal(4 * (32 + start)).astype(np.float32)
    np.testing.assert_array_equal(_run(x, start), x[4 * start :])


def test_a_chunk_past_the_slice_is_a_fault():
    x = np.arange(127, dtype=np.float32)  # one element short: the last lane's chunk overruns
    with pytest.raises(KernelFault) as e:
        _run(x, 0)
    assert "simt.unchecked_async_copy out of range: elements 124 to 127 of %x" in str(e.value)


def test_a_misaligned_source_is_a_fault():
    backing = np.zeros(129, np.float32)
    x = backing[1:] if backing.ctypes.data % 16 == 0 else backing[:128]
    assert x.ctypes.data % 16 != 0
    with pytest.raises(KernelFault) as e:
        _run(x, 0)
    assert "simt.unchecked_async_copy at element 0 of %x: the address is not a multiple of 16" in (
        str(e.value)
    )


def test_it_lowers_to_one_cp_async_without_checks():
    import ferrox

    ptx = ferrox.compile(KERNEL).ptx
    copies = re.findall(r"cp\.async\.cg\.shared\.global[^;]*;", ptx)
    assert len(copies) == 1 and re.fullmatch(
        r"cp\.async\.cg\.shared\.global \[%rd\d+\], \[%rd\d+\], 16;", copies[0]
    ), copies
    for check in ("trap", "vote", "ld.global.nc.b32", "st.shared.b32"):
        assert check not in ptx, check
