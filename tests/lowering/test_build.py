"""`lowering/build.py`: each builder makes the op its xDSL constructor makes (operands, result
types, properties, attributes and successors alike, and the same printed form), and the
dispatch table of `conversion.Dispatch` is the same whether worked out afresh or remembered."""

from __future__ import annotations

import io

import pytest
from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    UnrealizedConversionCastOp,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Block, Operation, Region
from xdsl.printer import Printer

from ferrox.lowering import build
from ferrox.lowering.conversion import ConversionState, Dispatch, Guarded
from ferrox.lowering.to_llvm.convert import STANDARD_PATTERNS


def _generic(op: Operation) -> str:
    """`op` in MLIR's generic form (every property and attribute spelled out)."""
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


def _same(built: Operation, expected: Operation) -> None:
    assert type(built) is type(expected)
    assert list(built.operands) == list(expected.operands)
    assert built.result_types == expected.result_types
    assert dict(built.properties) == dict(expected.properties)
    assert dict(built.attributes) == dict(expected.attributes)
    assert list(built.successors) == list(expected.successors)
    assert _generic(built) == _generic(expected)


@pytest.fixture
def block() -> Block:
    return Block(arg_types=[i64, i64, IndexType(), f32, f32, f32, llvm.LLVMPointerType(), i1])


def test_constants(block: Block) -> None:
    del block
    for value, t in ((5, i64), (-3, i32), (7, IndexType()), (1, i1)):
        _same(build.int_constant(value, t), arith.ConstantOp(IntegerAttr(value, t)))
    value = IntegerAttr(42, i64)
    _same(build.llvm_constant(value, i64), llvm.ConstantOp(value, i64))
    for x in (0.0, -0.0, 1.5, float("inf")):
        attr = build.f32_attr(x)
        assert attr == FloatAttr(x, f32)
        assert str(attr) == str(FloatAttr(x, f32))  # -0.0 stays -0.0
    assert build.int_attr(3, i64) is build.int_attr(3, i64)


def test_arith(block: Block) -> None:
    a, b, n = block.args[0], block.args[1], block.args[2]
    for pred in build.CMPI_PREDICATES:
        _same(build.cmpi(a, b, pred), arith.CmpiOp(a, b, pred))
    for cls in (arith.AddiOp, arith.SubiOp, arith.MuliOp, arith.ShLIOp):  # with overflow flags
        _same(build.same_type(cls, a, b), cls(a, b))
    for cls in (arith.AndIOp, arith.OrIOp, arith.XOrIOp, arith.ShRUIOp):
        _same(build.same_type(cls, a, b), cls(a, b))
    _same(build.convert(arith.IndexCastOp, n, i64), arith.IndexCastOp(n, i64))
    _same(build.convert(arith.ExtUIOp, block.args[7], i64), arith.ExtUIOp(block.args[7], i64))
    _same(build.convert(arith.TruncIOp, a, i32), arith.TruncIOp(a, i32))


def test_llvm(block: Block) -> None:
    a, x, y, z, ptr, c = block.args[0], *block.args[3:6], block.args[6], block.args[7]
    for cls in (llvm.FAddOp, llvm.FSubOp, llvm.FMulOp, llvm.FDivOp):
        _same(build.float_op(cls, x, y), cls(x, y))
        fast = llvm.FastMathAttr("fast")
        _same(build.float_op(cls, x, y, fastmath=fast), cls(x, y, fast))
    _same(build.float_op(llvm.FMAOp, x, y, z), llvm.FMAOp(x, y, z))
    _same(build.float_op(llvm.FNegOp, x), llvm.FNegOp(x))
    for inbounds in (False, True):
        expected = llvm.GEPOp(ptr, [llvm.GEP_USE_SSA_VAL, 2], f32, [a], ptr.type, inbounds)
        _same(build.gep(ptr, [llvm.GEP_USE_SSA_VAL, 2], f32, [a], ptr.type, inbounds), expected)
    for align in (None, 16):
        _same(build.load(ptr, f32, align), llvm.LoadOp(ptr, f32, alignment=align))
        _same(build.store(x, ptr, align), llvm.StoreOp(x, ptr, alignment=align))
    region = Region([Block(), Block(arg_types=[f32]), Block(arg_types=[f32, i64])])
    first, one, two = region.blocks
    _same(build.br(one, x), llvm.BrOp(one, x))
    _same(build.br(first), llvm.BrOp(first))
    _same(build.cond_br(c, one, [x], two, [y, a]), llvm.CondBrOp(c, one, [x], two, [y, a]))
    _same(build.cond_br(c, first, [], first, []), llvm.CondBrOp(c, first, [], first, []))


def test_scf(block: Block) -> None:
    x, c = block.args[3], block.args[7]
    _same(build.yield_(x, c), scf.YieldOp(x, c))
    _same(build.yield_(), scf.YieldOp())
    built = build.if_(c, [f32], Region(Block([build.yield_(x)])), Region(Block([build.yield_(x)])))
    expected = scf.IfOp(c, [f32], Region(Block([scf.YieldOp(x)])), Region(Block([scf.YieldOp(x)])))
    _same(built, expected)
    _same(
        build.if_(c, [], Region(Block([build.yield_()]))),
        scf.IfOp(c, [], Region(Block([scf.YieldOp()]))),
    )


def test_intrinsic_calls_and_casts(block: Block) -> None:
    a, x, c = block.args[0], block.args[3], block.args[7]
    for name, args, results in (
        ("llvm.assume", [c], []),
        ("llvm.trap", [], []),
        ("llvm.nvvm.fmax.f", [x, x], [f32]),
    ):
        _same(build.call_intrinsic(name, args, results), llvm.CallIntrinsicOp(name, args, results))
    _same(build.cast([a, x], [i1]), UnrealizedConversionCastOp.get([a, x], [i1]))
    _same(build.cast([c], [i64, f32]), UnrealizedConversionCastOp.get([c], [i64, f32]))


def test_dispatch_table_remembered() -> None:
    """A second conversion over the same module-level patterns (new wrappers, new state) offers
    each op class the same candidates as the first, in the same order."""
    classes = [arith.AddiOp, arith.ConstantOp, arith.CmpiOp, llvm.AddOp, ModuleOp, arith.SelectOp]

    def table() -> list[list[type]]:
        state = ConversionState("llvm")
        d = Dispatch([Guarded(p, state) for p in STANDARD_PATTERNS])
        return [[type(p.pattern) for p in d.candidates(cls)] for cls in classes]

    first, second = table(), table()
    assert first == second
    assert first[0] and first[1] and not first[3]  # arith lowers; llvm ops are left alone
