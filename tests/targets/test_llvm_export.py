"""The LLVM export's Python API: IR built with xDSL's builders, exported, checked by LLVM itself."""

from __future__ import annotations

import llvmlite.binding as llvm_binding
import pytest
from xdsl.builder import Builder
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntAttr,
    ModuleOp,
    StringAttr,
    UnitAttr,
    f32,
    i32,
)
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint

from ferrox.diagnostics import DiagnosticError
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.llvm_export import (
    NVPTX_DATALAYOUT,
    NVPTX_TRIPLE,
    LLVMIRTarget,
    is_convergent_intrinsic,
    to_llvm_ir,
)

GLOBAL = llvm.LLVMPointerType(IntAttr(1))


def _kernel() -> ModuleOp:
    """`out[i] = in[i]` built with xDSL's own llvm op classes, as other passes build it."""
    block = Block(arg_types=[GLOBAL, GLOBAL, i32])
    src, dst, index = block.args
    builder = Builder(InsertPoint.at_end(block))
    gep_in = builder.insert(llvm.GEPOp(src, [llvm.GEP_USE_SSA_VAL], f32, ssa_indices=[index]))
    gep_out = builder.insert(llvm.GEPOp(dst, [llvm.GEP_USE_SSA_VAL], f32, ssa_indices=[index]))
    value = builder.insert(llvm.LoadOp(gep_in, f32))
    builder.insert(llvm.StoreOp(value, gep_out))
    builder.insert(llvm.ReturnOp())
    fn = llvm.FuncOp(
        "copy",
        llvm.LLVMFunctionType([GLOBAL, GLOBAL, i32]),
        linkage=llvm.LinkageAttr("external"),
        body=Region(block),
        other_props={
            "arg_attrs": ArrayAttr(
                [
                    DictionaryAttr({"llvm.noalias": UnitAttr(), "llvm.readonly": UnitAttr()}),
                    DictionaryAttr({"llvm.noalias": UnitAttr()}),
                    DictionaryAttr({}),
                ]
            )
        },
        extra_attrs={"nvvm.kernel": UnitAttr()},
    )
    return ModuleOp([fn])


def test_triple_and_layout_are_nvptx():
    text = to_llvm_ir(_kernel())
    assert f'target triple = "{NVPTX_TRIPLE}"' in text
    assert f'target datalayout = "{NVPTX_DATALAYOUT}"' in text


def test_built_kernel_is_a_ptx_entry_with_global_geps():
    text = to_llvm_ir(_kernel())
    assert 'define ptx_kernel void @"copy"(ptr addrspace(1) noalias readonly' in text
    # xDSL's own exporter would bitcast the base to `ptr` (address space 0) here.
    assert text.count("getelementptr float, ptr addrspace(1)") == 2
    assert "bitcast" not in text
    module = llvm_binding.parse_assembly(text)
    module.verify()
    (function,) = [f for f in module.functions if f.name == "copy"]
    assert str(function).startswith("define ptx_kernel void @copy(")  # as LLVM itself prints it


def test_module_may_name_its_own_triple():
    module = _kernel()
    module.attributes["llvm.target_triple"] = StringAttr("nvptx-nvidia-cuda")
    text = to_llvm_ir(module)
    assert 'target triple = "nvptx-nvidia-cuda"' in text
    assert 'target datalayout = ""' in text


def test_export_errors_are_located_and_all_reported():
    source = """
llvm.func @k() -> i32 attributes {nvvm.kernel} {
  %0 = llvm.mlir.constant(1 : i32) : i32
  llvm.return %0 : i32
}
llvm.func internal @decl()
"""
    module = parse_module(make_context(), source, "k.mlir")
    with pytest.raises(DiagnosticError) as caught:
        to_llvm_ir(module)
    messages = [(d.loc.line, d.message) for d in caught.value.diagnostics]
    assert messages == [
        (2, "kernel @k must return void, not i32"),
        (6, "function declaration @decl has 'internal' linkage; a declaration must be 'external' "
            "or 'extern_weak' (give it a body or drop the linkage)"),
    ]  # fmt: skip


def test_conflicting_declarations_of_an_intrinsic_are_an_error():
    source = """
llvm.func @k(%a: i32, %b: i64) {
  %0 = llvm.call_intrinsic "llvm.nvvm.foo"(%a) : (i32) -> i32
  %1 = llvm.call_intrinsic "llvm.nvvm.foo"(%b) : (i64) -> i64
  llvm.return
}
"""
    module = parse_module(make_context(), source, "k.mlir")
    with pytest.raises(DiagnosticError) as caught:
        to_llvm_ir(module)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.loc.line == 4
    assert (
        "'llvm.nvvm.foo' is used with type i64 (i64) here but was declared with"
        in diagnostic.message
    )


@pytest.mark.parametrize(
    ("name", "convergent"),
    [
        ("llvm.nvvm.barrier0", True),
        ("llvm.nvvm.barrier.cta.sync.aligned.all", True),
        ("llvm.nvvm.bar.warp.sync", True),
        ("llvm.nvvm.shfl.sync.idx.i32", True),
        ("llvm.nvvm.vote.ballot.sync", True),
        ("llvm.nvvm.redux.sync.add", True),
        ("llvm.nvvm.read.ptx.sreg.tid.x", False),
        ("llvm.nvvm.fabs.f", False),
    ],
)
def test_convergent_intrinsics(name: str, convergent: bool):
    assert is_convergent_intrinsic(name) is convergent


def test_target_is_registered_for_ferrox_opt():
    from io import StringIO

    from ferrox.registry import all_targets

    target_class = all_targets()["llvm"]()
    assert target_class is LLVMIRTarget and LLVMIRTarget.name == "llvm"
    out = StringIO()
    LLVMIRTarget().emit(make_context(), _kernel(), out)
    assert out.getvalue() == to_llvm_ir(_kernel())
