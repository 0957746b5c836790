"""The tile lowering's build-time folding and value numbering (`fold.py`, `Lowering.__call__`):
integer arithmetic on constants folded with the target's wrap-around, each constant made once
at the kernel's start, an equal pure op reused only where it dominates the insertion point."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, f16, f32, i1, i32
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt.config import Config
from ferrox.lowering.tile_to_simt.context import Lowering
from ferrox.lowering.tile_to_simt.fold import PREDICATES, fold, wrap

from .conftest import lower_text

ROOT = Path(__file__).resolve().parents[3]
INDEX = IndexType()


def _const(v: int, t=INDEX):
    return arith.ConstantOp(IntegerAttr(v, t)).result


def _arg(t=INDEX):
    return Block(arg_types=[t]).args[0]


@pytest.mark.parametrize(
    "cls, a, b, expected",
    [
        (arith.AddiOp, 2**63 - 1, 1, -(2**63)),  # index is 64 bits and wraps
        (arith.SubiOp, 0, 1, -1),
        (arith.MuliOp, 2**62, 4, 0),
        (arith.AndIOp, -1, 255, 255),
        (arith.XOrIOp, 6, 3, 5),
        (arith.ShLIOp, 1, 63, -(2**63)),
        (arith.ShRUIOp, -1, 60, 15),  # unsigned: the sign bit shifts in as 0
        (arith.CeilDivUIOp, 7, 2, 4),
        (arith.CeilDivUIOp, -1, 2**62, 4),  # 2**64 - 1 over 2**62, rounded up
        (arith.RemUIOp, -1, 10, (2**64 - 1) % 10),
        (arith.MinUIOp, -1, 5, 5),  # -1 is the largest unsigned value
        (arith.MinSIOp, -1, 5, -1),
    ],
)
def test_both_constant(cls, a, b, expected) -> None:
    assert fold(cls, [_const(a), _const(b)]) == expected


def test_i32_wraps_at_32_bits() -> None:
    assert fold(arith.AddiOp, [_const(2**31 - 1, i32), _const(1, i32)]) == -(2**31)


def test_not_folded() -> None:
    x = _arg()
    assert fold(arith.ShLIOp, [_const(1), _const(64)]) is None  # poison: left to the target
    assert fold(arith.DivUIOp, [_const(1), _const(0)]) is None
    assert fold(arith.AddiOp, [x, _const(3)]) is None
    assert fold(arith.SubiOp, [_const(0), x]) is None  # 0 - x is not x


@pytest.mark.parametrize(
    "pred, a, b, expected",
    [("ult", -1, 1, False), ("slt", -1, 1, True), ("uge", -1, 1, True), ("eq", 3, 3, True)],
)
def test_compare(pred, a, b, expected) -> None:
    got = fold(arith.CmpiOp, [_const(a), _const(b)], PREDICATES[pred])
    assert got == (-1 if expected else 0)  # i1 true in signed form


def test_identities() -> None:
    x = _arg()
    zero, one, ones = _const(0), _const(1), _const(-1)
    assert fold(arith.AddiOp, [x, zero]) is x
    assert fold(arith.AddiOp, [zero, x]) is x
    assert fold(arith.MuliOp, [one, x]) is x
    assert fold(arith.MuliOp, [x, zero]) == 0
    assert fold(arith.AndIOp, [x, ones]) is x
    assert fold(arith.AndIOp, [zero, x]) == 0
    assert fold(arith.ShRUIOp, [x, zero]) is x
    cond = _arg(i1)
    y = _arg()
    assert fold(arith.SelectOp, [_const(-1, i1), x, y]) is x
    assert fold(arith.SelectOp, [_const(0, i1), x, y]) is y
    assert fold(arith.SelectOp, [cond, x, x]) is x
    assert fold(arith.SelectOp, [cond, x, y]) is None


def test_wrap() -> None:
    assert wrap(2**64 + 5, 64) == 5
    assert wrap(255, 8) == -1
    assert wrap(1, 1) == -1


def _lowering() -> Lowering:
    return Lowering(Config(32, 4), {}, Block())


def test_each_constant_once_at_the_start() -> None:
    ctx = _lowering()
    x = ctx.tid()
    a = ctx.add(x, 5)
    assert ctx.index(5) is ctx.index(5)
    assert ctx.constant(True, i1) is ctx.constant(1, i1)  # the same i1 true
    assert ctx.constant(-0.0, f32) is not ctx.constant(0.0, f32)  # -0.0 is its own constant
    assert ctx.constant(math.nan, f32) is ctx.constant(math.nan, f32)
    # a constant spelt out by a caller is the cached one
    assert ctx(arith.ConstantOp(IntegerAttr(5, INDEX))) is ctx.index(5)
    ops = list(ctx.entry.ops)
    consts = [op for op in ops if isinstance(op, arith.ConstantOp)]
    assert ops[: len(consts)] == consts  # every constant before the first other op
    assert [str(op.value) for op in consts][:1] == ["5 : index"]
    assert a.owner in ops


def test_folding_emits_nothing() -> None:
    ctx = _lowering()
    c = ctx.mul(ctx.index(3), 4)
    assert isinstance(c.owner, arith.ConstantOp) and c.owner.value == IntegerAttr(12, INDEX)
    x = ctx.tid()
    assert ctx.add(x, ctx.index(0)) is x
    assert ctx.cmp("ult", ctx.index(2), 3) is ctx.constant(True, i1)
    assert ctx.all_of([ctx.constant(True, i1), ctx.cmp("ult", x, 3)]).owner.name == "arith.cmpi"
    assert Counter(op.name for op in ctx.entry.ops) == {
        "arith.constant": 6,  # 3, 4, 12, 0, 2, true
        "simt.thread_id": 1,
        "arith.cmpi": 1,
    }


def test_pure_op_reused_where_it_dominates() -> None:
    ctx = _lowering()
    x = ctx.tid()
    outer = ctx.add(x, 7)
    assert ctx.add(x, 7) is outer
    assert ctx(arith.AddiOp(x, ctx.index(7))) is outer  # built by a caller: still merged
    inner_block = Block()
    with ctx.at(InsertPoint.at_end(inner_block)):
        assert ctx.add(x, 7) is outer  # the enclosing block's value is visible inside
        inner = ctx.mul(x, 3)
    sibling = Block()
    with ctx.at(InsertPoint.at_end(sibling)):
        again = ctx.mul(x, 3)  # not the first block's: it does not dominate here
    assert again is not inner and again.owner.parent is sibling
    after = ctx.mul(x, 3)
    assert after is not inner and after is not again and after.owner.parent is ctx.entry
    # ops with effects are never merged
    s1 = ctx(simt.ShuffleOp("xor", outer, ctx.constant(1, i32)))
    s2 = ctx(simt.ShuffleOp("xor", outer, ctx.constant(1, i32)))
    assert s1 is not s2


def test_prologue_does_not_reuse_the_body() -> None:
    ctx = _lowering()
    x = ctx.tid()
    body = ctx.add(x, 9)  # at the end of the entry block
    early = ctx.in_prologue(arith.AddiOp(x, ctx.index(9)))
    assert early is not body
    ops = list(ctx.entry.ops)
    assert ops.index(early.owner) < ops.index(body.owner)
    assert ctx.add(x, 9) in (body, early)  # later uses may take either: both dominate here


def test_float_constants_keep_their_value() -> None:
    ctx = _lowering()
    v = ctx.constant(-math.inf, f32)
    assert v.owner.value == FloatAttr(-math.inf, f32)


def _constants(kernel_text: str) -> Counter:
    module = lower_text(kernel_text)
    (kernel,) = [op for op in module.walk() if isinstance(op, simt.KernelOp)]
    return Counter(
        (str(op.value), op.parent is kernel.body.blocks[0])
        for op in kernel.walk()
        if isinstance(op, arith.ConstantOp)
    )


@pytest.mark.parametrize("name", ["softmax", "layernorm", "matmul_f32", "attention"])
def test_examples_make_each_constant_once(name: str) -> None:
    text = (ROOT / "examples" / "tile" / f"{name}.mlir").read_text()
    counts = _constants(text)
    assert counts, name
    for (value, at_top), n in counts.items():
        assert at_top, f"{value} is made inside a region of {name}'s kernel"
        assert n == 1, f"{value} is made {n} times in {name}'s kernel"


def test_make_builds_what_the_constructor_builds() -> None:

    ctx = _lowering()
    x, h = _arg(f32), _arg(f16)
    first = ctx.make(arith.AddfOp, x, x)  # the template's own op
    second = ctx.make(arith.AddfOp, first, x)  # built from the template
    half = ctx.make(arith.AddfOp, h, h)  # another operand type: another template
    for value, (a, b) in ((second, (first, x)), (half, (h, h))):
        expected = arith.AddfOp(a, b)
        assert value.owner.properties == expected.properties
        assert value.owner.attributes == expected.attributes
        assert list(value.owner.operands) == [a, b]
        assert value.type == a.type
    assert ctx.make(arith.AddfOp, first, x) is second  # pure: merged
    lt = ctx.make(arith.CmpfOp, x, x, extra="olt", build=lambda: arith.CmpfOp(x, x, "olt"))
    gt = ctx.make(arith.CmpfOp, x, x, extra="ogt", build=lambda: arith.CmpfOp(x, x, "ogt"))
    assert lt is not gt and gt.owner.properties == arith.CmpfOp(x, x, "ogt").properties
    off = ctx.constant(1, i32)
    shuffles = [
        ctx.make(simt.ShuffleOp, x, off, extra="xor", build=lambda: simt.ShuffleOp("xor", x, off))
        for _ in range(2)
    ]
    assert shuffles[0] is not shuffles[1]  # a warp collective is never merged
    assert shuffles[1].owner.properties == simt.ShuffleOp("xor", x, off).properties
