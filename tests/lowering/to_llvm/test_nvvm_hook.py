"""convert-to-llvm lowers nvvm ops in the same walk as the other dialects (the patterns of
convert-nvvm-to-llvm), and a module without them is unchanged by those patterns."""

from __future__ import annotations

from ferrox.lowering.to_llvm import convert_to_llvm
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


def test_modules_without_nvvm_ops_lower_as_before() -> None:
    module = parse_module(make_context(), WITHOUT_NVVM, "f.mlir")
    convert_to_llvm(module)
    assert [op.name for op in module.walk()] == ["builtin.module", "llvm.func", "llvm.return"]
