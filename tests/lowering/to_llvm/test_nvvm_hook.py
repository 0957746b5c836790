"""convert-to-llvm loads the nvvm patterns only for modules with nvvm ops, and says clearly when
they cannot be loaded."""

from __future__ import annotations

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.lowering.to_llvm import convert_to_llvm, nvvm
from ferrox.parser import parse_module
from ferrox.registry import make_context

WITH_NVVM = """
func.func @k() -> i32 {
  %t = nvvm.read.ptx.sreg.tid.x : i32
  func.return %t : i32
}
"""
WITHOUT_NVVM = """
func.func @f(%x: i32) -> i32 {
  func.return %x : i32
}
"""


def test_nvvm_ops_lower_with_the_other_dialects() -> None:
    module = parse_module(make_context(), WITH_NVVM, "k.mlir")
    convert_to_llvm(module)
    assert [op.name for op in module.walk()] == [
        "builtin.module",
        "llvm.func",
        "llvm.call_intrinsic",
        "llvm.return",
    ]


def test_missing_nvvm_patterns_are_reported_at_the_first_nvvm_op(monkeypatch) -> None:
    monkeypatch.setattr(nvvm, "NVVM_MODULE", "ferrox.lowering.no_such_module")
    module = parse_module(make_context(), WITH_NVVM, "k.mlir")
    with pytest.raises(DiagnosticError) as e:
        convert_to_llvm(module)
    assert str(e.value).startswith(
        "k.mlir:3:3: error: nvvm ops need the nvvm-to-llvm patterns, but "
        "ferrox.lowering.no_such_module cannot be imported"
    )


def test_modules_without_nvvm_ops_do_not_need_them(monkeypatch) -> None:
    monkeypatch.setattr(nvvm, "NVVM_MODULE", "ferrox.lowering.no_such_module")
    module = parse_module(make_context(), WITHOUT_NVVM, "f.mlir")
    convert_to_llvm(module)
    assert [op.name for op in module.walk()] == ["builtin.module", "llvm.func", "llvm.return"]
