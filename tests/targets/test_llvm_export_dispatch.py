"""The export's converters chosen once per op class (`llvm_export.xdsl_ops`, `ops._route`) write
the same LLVM IR as xDSL's `convert_op`, which picks one per op: flags of every family, compares,
constants, selects, aggregates, branches with block arguments, and the lowered examples."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.backend.llvm import convert_op as xdsl_convert
from xdsl.builder import Builder
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Region
from xdsl.rewriter import InsertPoint

from ferrox.lowering.pipeline import COMPILE_STAGES, lower_to_llvm
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.llvm_export import ops, to_llvm_ir, xdsl_ops
from ferrox.targets.ptx import CHIP_ATTR

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _every_family() -> ModuleOp:
    """One function with a binary op of each flag family (with and without its flags), casts
    with and without theirs, icmp, fcmp, fneg, a constant, select, insert/extractvalue, and
    branches passing block arguments."""
    entry = Block(arg_types=[i32, i32, f32, f32])
    a, b, x, y = entry.args
    exit_block, other = Block(arg_types=[i64]), Block()
    at = Builder(InsertPoint.at_end(entry))
    add = at.insert(
        llvm.AddOp(a, b, overflow=llvm.OverflowAttr([llvm.OverflowFlag.NO_SIGNED_WRAP]))
    )
    sub = at.insert(llvm.SubOp(add.res, b))
    div = at.insert(llvm.UDivOp(sub.res, b, is_exact=llvm.UnitAttr()))
    div2 = at.insert(llvm.UDivOp(div.res, b))
    orr = at.insert(llvm.OrOp(div2.res, a, is_disjoint=llvm.UnitAttr()))
    fadd = at.insert(llvm.FAddOp(x, y, llvm.FastMathAttr("fast")))
    fmul = at.insert(llvm.FMulOp(fadd.res, y))
    neg = at.insert(llvm.FNegOp(fmul.res))
    less = at.insert(llvm.ICmpOp(orr.res, a, IntegerAttr(6, 64)))
    fless = at.insert(llvm.FCmpOp(neg.res, x, "olt"))
    seven = at.insert(llvm.ConstantOp(IntegerAttr(7, i32), i32))
    pick = at.insert(llvm.SelectOp(less.res, seven.result, orr.res))
    wide = at.insert(llvm.ZExtOp(pick.res, i64, non_neg=llvm.UnitAttr()))
    wide2 = at.insert(llvm.ZExtOp(a, i64))
    narrow = at.insert(
        llvm.TruncOp(
            wide2.res, i32, overflow=llvm.OverflowAttr([llvm.OverflowFlag.NO_UNSIGNED_WRAP])
        )
    )
    pair_t = llvm.LLVMStructType.from_type_list([i32, i1])
    undef = at.insert(llvm.UndefOp(pair_t))
    pair = at.insert(llvm.InsertValueOp(DenseArrayBase.from_list(i64, [0]), undef.res, narrow.res))
    first = at.insert(llvm.ExtractValueOp(DenseArrayBase.from_list(i64, [0]), pair.res, i32))
    last = at.insert(llvm.ZExtOp(first.res, i64))
    at.insert(llvm.CondBrOp(fless.res, exit_block, [wide.res], other, []))
    Builder(InsertPoint.at_end(other)).insert(llvm.BrOp(exit_block, last.res))
    Builder(InsertPoint.at_end(exit_block)).insert(llvm.ReturnOp(exit_block.args[0]))
    fn = llvm.FuncOp(
        "f",
        llvm.LLVMFunctionType([i32, i32, f32, f32], i64),
        linkage=llvm.LinkageAttr("external"),
        body=Region([entry, other, exit_block]),
    )
    return ModuleOp([fn])


def _through_xdsl(module: ModuleOp, monkeypatch: pytest.MonkeyPatch) -> str:
    """The module's LLVM IR with every op xDSL converts going through its `convert_op`."""
    with monkeypatch.context() as m:
        m.setattr(ops, "xdsl_converter", lambda cls: xdsl_convert.convert_op)
        m.setattr(ops, "_ROUTES", {})
        return to_llvm_ir(module)


def test_every_flag_family_as_xdsl_writes_it(monkeypatch: pytest.MonkeyPatch):
    module = _every_family()
    text = to_llvm_ir(module)
    assert text == _through_xdsl(module, monkeypatch)
    for flag in ("add nsw", "udiv exact", "or disjoint", "reassoc", "zext nneg", "trunc nuw"):
        assert flag in text


@pytest.mark.parametrize("example", ["simt/vecadd", "simt/block_reduce", "tile/softmax"])
def test_examples_as_xdsl_writes_them(example: str, monkeypatch: pytest.MonkeyPatch):
    ctx = make_context()
    module = parse_module(ctx, (EXAMPLES / f"{example}.mlir").read_text())
    module.attributes[CHIP_ATTR] = StringAttr("sm_90")
    lower_to_llvm(module, ctx, None, COMPILE_STAGES)
    assert to_llvm_ir(module) == _through_xdsl(module, monkeypatch)


def test_a_subclass_goes_to_xdsl():
    """A class outside the table (here a subclass of one in it) keeps xDSL's own choice."""

    class MyConstant(llvm.ConstantOp):
        pass

    assert xdsl_ops.converter(MyConstant) is xdsl_convert.convert_op
    assert xdsl_ops.converter(llvm.ConstantOp) is not xdsl_convert.convert_op
