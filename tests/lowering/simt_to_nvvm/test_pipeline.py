"""`lower-to-llvm` and `compile_module`: the stages, host code, errors, and the ABI the
launcher gets back."""

from __future__ import annotations

import re

import pytest
from xdsl.dialects import llvm

from ferrox.artifact import Contract, ModuleArtifact, ParamKind
from ferrox.diagnostics import DiagnosticError
from ferrox.lowering.pipeline import (
    STAGES,
    ExtractDeviceCodePass,
    LowerToLLVMPass,
    expand_stages,
    lower_to_llvm,
)
from ferrox.parser import parse_module
from ferrox.passes.verify_disjoint import VerifyDisjointPass
from ferrox.registry import make_context
from ferrox.targets.compile import compile_module

TWO_KERNELS = """
simt.func @twice(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  simt.return %y : f32
}
simt.kernel @scale(%a: !simt.slice<f32>, %out: !simt.disjoint_slice<f32, 1d>, %k: f32)
    contract<domain = 1, block = [128], shared_bytes = 64, min_cc = 80> {
  %w = simt.thread_index_1d
  %i = simt.witness_value %w : !simt.thread_index<1d>
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    %x = simt.load %a[%i] : !simt.slice<f32>
    %y = simt.call @twice(%x) : (f32) -> f32
    %z = arith.mulf %y, %k : f32
    simt.yield %z : f32
  }
  simt.return
}
simt.kernel @fill(%p: !simt.ptr<i32>, %n: index, %v: i32) unsafe {
  %t = simt.thread_id x
  %ok = arith.cmpi ult, %t, %n : index
  scf.if %ok {
    simt.ptr_store %v, %p[%t] : !simt.ptr<i32>
  }
  simt.return
}
func.func @main() {
  %n = host.param "n" = 16 : index
  func.return
}
"""


def parse(text: str):
    return parse_module(make_context(), text, "test.mlir")


def test_stage_names():
    assert [stage.name for stage in STAGES] == [
        "verify-disjoint",
        "extract-device-code",
        "convert-simt-to-nvvm",
        "canonicalize",
        "cse",
        "convert-to-llvm",
    ]
    assert LowerToLLVMPass.name == "lower-to-llvm"
    assert expand_stages([VerifyDisjointPass(), LowerToLLVMPass()]) == (
        VerifyDisjointPass(),
        *STAGES,
    )


def test_lower_to_llvm_calls_back_after_every_stage():
    seen: list[str] = []

    def after(stage, module, following):
        if stage is not None:
            seen.append(stage.name)

    lower_to_llvm(parse(TWO_KERNELS), callback=after)
    assert seen == [stage.name for stage in STAGES]


def test_lower_to_llvm_leaves_only_llvm_and_drops_host_code():
    module = parse(TWO_KERNELS)
    lower_to_llvm(module)
    names = [op.sym_name.data for op in module.ops]
    assert names == ["twice", "scale", "fill"], "@main is host code"
    assert all(isinstance(op, llvm.FuncOp) for op in module.ops)
    assert {op.dialect_name() for op in module.walk()} <= {"builtin", "llvm"}
    twice = next(op for op in module.ops if op.sym_name.data == "twice")
    assert twice.linkage.linkage.data == "internal"


def test_compile_module():
    module = parse(TWO_KERNELS)
    before = str(module)
    result = compile_module(module, chip="sm_90", opt=3, cubin=False)
    assert str(module) == before, "the caller's module is not changed"
    assert isinstance(result, ModuleArtifact) and result.chip == "sm_90"
    assert result.source == before, "the host program stays in the source"
    assert list(result.kernels) == ["scale", "fill"]
    scale, fill = result["scale"], result["fill"]
    assert [(p.name, p.kind, p.element) for p in scale.params] == [
        ("a", ParamKind.SHARED_SLICE, "f32"),
        ("out", ParamKind.DISJOINT_SLICE, "f32"),
        ("k", ParamKind.SCALAR, "f32"),
    ]
    assert scale.contract == Contract(1, (128, 1, 1), shared_bytes=64, min_cc=80)
    assert [(p.name, p.kind, p.element) for p in fill.params] == [
        ("p", ParamKind.POINTER, "i32"),
        ("n", ParamKind.SCALAR, "index"),
        ("v", ParamKind.SCALAR, "i32"),
    ]
    assert fill.contract is None
    assert re.search(r"\.entry scale\(", result.ptx) and re.search(r"\.entry fill\(", result.ptx)
    assert ".func" not in result.ptx, "the internal device function is inlined and dropped"
    assert ".reqntid 128, 1, 1" in result.ptx
    assert result.ptx.count(".reqntid") == 1


def test_chip_from_the_module_and_min_cc():
    module = parse('builtin.module attributes {ferrox.chip = "sm_80"} {' + TWO_KERNELS + "}")
    result = compile_module(module, cubin=False)
    assert result.chip == "sm_80" and ".target sm_80" in result.ptx
    with pytest.raises(
        DiagnosticError,
        match=r"test.mlir:6:1: error: kernel @scale needs compute capability 8.0 "
        r"\(its contract's min_cc = 80\), but the target is sm_75",
    ):
        compile_module(module, chip="sm_75")


def test_unsafe_ir_is_not_lowered():
    module = parse(
        """
simt.kernel @twice(%out: !simt.disjoint_slice<f32, 1d>) contract<domain = 1, block = [64]> {
  %w = simt.thread_index_1d
  %one = arith.constant 1.0 : f32
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %one : f32
  }
  simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
  ^bb0(%old: f32):
    simt.yield %one : f32
  }
  simt.return
}
"""
    )
    with pytest.raises(DiagnosticError, match="use of moved value: witness"):
        lower_to_llvm(module)
    with pytest.raises(DiagnosticError, match="use of moved value: witness"):
        compile_module(module)


def test_extract_device_code_keeps_kernels_and_drops_host_functions():
    module = parse(
        """
func.func @lowered(%n: i64) attributes {nvvm.kernel} {
  func.return
}
func.func @helper() {
  func.return
}
simt.kernel @k() unsafe {
  simt.return
}
"""
    )
    ExtractDeviceCodePass().apply(make_context(), module)
    assert [op.sym_name.data for op in module.ops] == ["lowered", "k"]
