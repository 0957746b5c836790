"""`simt.specialize` below SIMT (lowering/simt_to_nvvm/specialize.py): a `simt.tile_index` in the
consumer region counts chunks over the consumers, not the block (`c = k * P + t`, P the
consumers' threads), also where a `simt.store_chunk` lowers it at its own position (on
2026-12-06 the H200 found the store path taking the block's 384 there: NaN left in the ragged
edges of the warp-specialised GEMM's output, which the interpreter, running SIMT, could not
see)."""

from __future__ import annotations

import pytest
from tile_gemm import matmul
from xdsl.dialects import arith

from ferrox.dialects import simt
from ferrox.lowering.simt_to_nvvm.convert import convert_simt_to_nvvm
from ferrox.lowering.tile_to_simt import convert_tile_to_simt, gemm_specialized
from ferrox.parser import parse_module
from ferrox.registry import make_context

T = "tile<[8, 32], 4, arg1>"
S, W = f"!simt.disjoint_slice<f32, {T}>", f"!simt.thread_index<{T}>"
PARAMS = f"%out: {S}, %d0: index, %d1: index, %kk: index"
KERNEL = f"""builtin.module {{
  simt.kernel @k({PARAMS}) contract<domain = 2, block = [256]> {{
    %z = arith.constant 0.0 : f32
    simt.specialize producers(1) {{
      simt.yield
    }} consumers {{
      %w = simt.tile_index %kk dims(%d0, %d1) : {W}
      simt.store_chunk %out[%w], %z, %z, %z, %z : {S}, {W}
      simt.yield
    }}
    simt.return
  }}
}}"""


def _chunk_threads(module) -> list[int | None]:
    """The `P` of every lowered chunk index `c = k * P + t` in `module`."""
    out = []
    for op in module.walk():
        if isinstance(op, arith.AddiOp) and op.result.name_hint == "chunk":
            mul = op.lhs.owner
            assert isinstance(mul, arith.MuliOp)
            p = mul.rhs.owner
            out.append(p.value.value.data if isinstance(p, arith.ConstantOp) else None)
    return out


def test_a_stores_witness_counts_chunks_over_the_consumers():
    module = parse_module(make_context(), KERNEL, "k.mlir")
    convert_simt_to_nvvm(module)  # (no verify-disjoint: the split fills no stage)
    assert _chunk_threads(module) == [128]  # the consumers, not the block's 256


def test_the_warp_specialised_gemm_stores_over_its_256_consumers(monkeypatch):
    monkeypatch.setattr(gemm_specialized, "WARP_SPECIALIZE", True)
    module = parse_module(make_context(), matmul(128, 256, 64, chip="sm_90a"), "mm.mlir")
    convert_tile_to_simt(module)
    kernel = next(
        op for op in module.walk() if isinstance(op, simt.KernelOp) and op.sym_name.data == "mm"
    )
    assert kernel.contract.block_xyz == (384, 1, 1)
    convert_simt_to_nvvm(module)
    found = _chunk_threads(module)
    assert found and set(found) == {256}, found


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__])
