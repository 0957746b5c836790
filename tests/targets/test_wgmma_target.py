"""The arch-specific target wgmma needs: a module opts in with `"ferrox.chip" = "sm_90a"` and
keeps it when an sm_90 device (or `ferrox.compile`'s default) asks for sm_90; any other chip, or
a module that does not opt in, is refused at the first wgmma op; other modules are unchanged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from compiled import assembled, compiled

from ferrox.diagnostics import DiagnosticError
from ferrox.dialects.simt.wgmma import WGMMA_OPS, WgmmaRegAOp
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module
from ferrox.targets.toolchain import find_ptxas, run_ptxas

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "simt" / "gemm_wgmma.mlir"


def _module(text: str):
    return parse_module(make_context(), text, "gemm_wgmma.mlir")


def test_an_sm_90_request_compiles_the_opted_in_module_for_sm_90a():
    artifact = compiled(EXAMPLE, "sm_90")  # one compile for the tests that only read it
    assert artifact.chip == "sm_90a"
    assert ".target sm_90a" in artifact.ptx
    ops = EXAMPLE.read_text().count("= simt.wgmma %")  # one PTX wgmma each (the loop unrolled)
    assert ops == 12
    assert artifact.ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16") == ops
    for instruction in (
        "fence.proxy.async.shared::cta",
        "wgmma.fence.sync.aligned",
        "wgmma.commit_group.sync.aligned",
        "wgmma.wait_group.sync.aligned 0",
    ):
        assert instruction in artifact.ptx


def test_the_descriptors_encode_a_128_byte_swizzled_k_major_tile():
    """Start address >> 4 in bits 0-13 (masked to 18 bits first), leading byte offset 16 (1),
    stride byte offset 1024 (64: 8 rows of 128 bytes), swizzle mode 1 (128 bytes) in 62-63."""
    ptx = compiled(EXAMPLE, "sm_90").ptx
    assert (1 << 62) | (64 << 32) | (1 << 16) == 4611686293305360384
    assert "4611686293305360384" in ptx
    assert "setp.ne.b32 p, " in ptx and ", p, 1, 1, 0, 0; }" in ptx  # scale-d, no transposes


def test_a_module_without_the_opt_in_is_refused_on_sm_90():
    text = EXAMPLE.read_text().replace(' attributes {"ferrox.chip" = "sm_90a"}', "")
    with pytest.raises(DiagnosticError) as e:
        compile_module(_module(text), chip="sm_90", cubin=False)
    assert str(e.value).endswith(
        "error: 'simt.wgmma_fence' needs the arch-specific target sm_90a (PTX wgmma), but the "
        'target is sm_90: set "ferrox.chip" = "sm_90a" on the module or compile with --chip '
        "sm_90a"
    )


def test_another_chip_is_refused():
    with pytest.raises(DiagnosticError) as e:
        compile_module(_module(EXAMPLE.read_text()), chip="sm_100a", cubin=False)
    assert str(e.value).endswith(
        "error: 'simt.wgmma_fence' needs the arch-specific target sm_90a (PTX wgmma), but the "
        'target is sm_100a: set "ferrox.chip" = "sm_90a" on the module or compile with --chip '
        "sm_90a"
    )


def test_other_modules_keep_sm_90():
    text = (ROOT / "examples" / "simt" / "vecadd.mlir").read_text()
    artifact = compile_module(_module(text), chip="sm_90", cubin=False)
    assert artifact.chip == "sm_90" and ".target sm_90\n" in artifact.ptx


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
def test_the_wgmma_ptx_assembles_for_sm_90a():
    artifact = compiled(EXAMPLE, "sm_90")
    resources = assembled(artifact.ptx, "sm_90a").resources["gemm_wgmma"]
    assert resources.spill_stores == 0 and resources.registers <= 255


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
def test_the_f16_variant_assembles():
    text = EXAMPLE.read_text().replace("bf16", "f16")
    artifact = compile_module(_module(text), chip="sm_90", cubin=False)
    assert artifact.ptx.count("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16") == 12
    assert run_ptxas(artifact.ptx, "sm_90a").resources["gemm_wgmma"].spill_stores == 0


@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
def test_the_pipelined_example_is_not_serialised_by_ptxas():
    """The K loop keeps a wgmma group in flight across steps; a branch between a wgmma and its
    wait (a trap or a fallback path in a copy) makes ptxas serialise every wgmma of the kernel,
    which it reports as C7518 or C7520 ('... are serialized ...')."""
    artifact = compiled(EXAMPLE, "sm_90")
    assert "wgmma.wait_group.sync.aligned 1;" in artifact.ptx
    log = assembled(artifact.ptx, "sm_90a").log
    assert "serialized" not in log, log


# simt.wgmma_reg_a (A from registers), K-major and MN-major B, chained from a simt.wgmma of its
# shape; its A registers loaded before the fence.
REG_A = """builtin.module attributes {"ferrox.chip" = "sm_90a"} {
  simt.kernel @reg_a(%q: !simt.slice<i32>)
      contract<domain = 1, block = [128], shared_bytes = 32768> {
    %as = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %bs = simt.shared_alloc {dynamic} : !simt.shared<bf16, [4096]>
    %cs = simt.shared_alloc {dynamic} : !simt.shared<f32, [4096]>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c16 = arith.constant 16 : index
    %z = arith.constant 0.0 : f32
    %t = simt.thread_id x
    %a0 = simt.load %q[%t] : !simt.slice<i32>
    %t1 = arith.addi %t, %c1 : index
    %a1 = simt.load %q[%t1] : !simt.slice<i32>
    %t2 = arith.addi %t, %c2 : index
    %a2 = simt.load %q[%t2] : !simt.slice<i32>
    %t3 = arith.addi %t, %c3 : index
    %a3 = simt.load %q[%t3] : !simt.slice<i32>
    simt.unsafe {
      simt.wgmma_fence
      %d:32 = simt.wgmma %as[%c0], %bs[%c0], acc(ZS) {n = 64} : SH, SH
      %e:32 = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %bs[%c16], acc(DS) {n = 64} : SH
      %f:32 = simt.wgmma_reg_a (%a0, %a1, %a2, %a3), %bs[%c0], acc(ES)
          {n = 64, b_mn_stride = 2048} : SH
      simt.wgmma_commit
      %g:32 = simt.wgmma_wait FS {pending = 0}
      simt.wgmma_store %cs[%c0], GS {n = 64, stride = 64} : !simt.shared<f32, [4096]>
      simt.yield
    }
    simt.return
  }
}""".replace("ZS", ", ".join(["%z"] * 32)).replace("SH", "!simt.shared<bf16, [4096]>")
for _x in "DEFG":
    REG_A = REG_A.replace(f"{_x}S", ", ".join(f"%{_x.lower()}#{i}" for i in range(32)))


def test_wgmma_reg_a_is_an_sm_90a_op():
    assert WgmmaRegAOp in WGMMA_OPS  # check_target refuses it off sm_90a, as every wgmma op
    with pytest.raises(DiagnosticError) as e:
        compile_module(_module(REG_A), chip="sm_100a", cubin=False)
    assert "needs the arch-specific target sm_90a (PTX wgmma), but the target is sm_100a" in str(
        e.value
    )


@pytest.mark.ptxas
@pytest.mark.skipif(find_ptxas() is None, reason="needs ptxas")
def test_the_wgmma_reg_a_ptx_assembles_for_sm_90a():
    """PTX's register-A form: four 32-bit registers for A, B's descriptor, scale-d, the two
    scales and trans-b alone (0 for K-major, 1 for MN-major; no trans-a)."""
    artifact = compile_module(_module(REG_A), chip="sm_90", cubin=False)
    assert artifact.chip == "sm_90a"
    form = r"wgmma\.mma_async\.sync\.aligned\.m64n64k16\.f32\.bf16\.bf16 \{[^}]*\}, "
    regs = r"\{%r\d+, %r\d+, %r\d+, %r\d+\}, db, p, 1, 1, "
    assert len(re.findall(form + regs + r"0; \}", artifact.ptx)) == 1
    assert len(re.findall(form + regs + r"1; \}", artifact.ptx)) == 1
    assert len(re.findall(form + r"da, db, p, 1, 1, 0, 0; \}", artifact.ptx)) == 1
    result = run_ptxas(artifact.ptx, "sm_90a")
    assert result.resources["reg_a"].spill_stores == 0
    assert "serialized" not in result.log, result.log
