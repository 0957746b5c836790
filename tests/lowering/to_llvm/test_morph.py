"""`support.morph`: an op turned into another class in place is the op `create` would make
(operands, result types, properties with their defaults, attributes, generic printed form), keeps
its place, location, result values and their uses, and tells the walker it changed."""

from __future__ import annotations

import io

from xdsl.dialects import arith, cf, llvm, test
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1, i32, i64
from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.printer import Printer

from ferrox.lowering.build import cond_br, int_attr
from ferrox.lowering.to_llvm.support import morph


def _generic(op: Operation) -> str:
    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(op)
    return out.getvalue()


def test_morph_is_create_in_place():
    index = IndexType()
    source = test.TestOp(result_types=[index, index, i64, i64])
    a, b, x, y = source.results
    add = arith.AddiOp(a, b)
    add.attributes["stale"] = IntegerAttr(1, i64)
    user = test.TestOp(operands=[add.result])
    block = Block([source, add, user])
    props = {"overflowFlags": int_attr(0, i32)}
    expected = llvm.AddOp.create(operands=[x, y], result_types=[i64], properties=props)
    result = add.result
    rewriter = PatternRewriter(add)
    morph(rewriter, add, llvm.AddOp, (x, y), (i64,), props)
    assert type(add) is llvm.AddOp and rewriter.has_done_action
    assert add.results[0] is result and result.type == i64
    assert list(block.ops) == [source, add, user] and user.operands[0] is result
    assert not a.uses and add in {u.operation for u in x.uses}
    assert add.properties == expected.properties and add.attributes == expected.attributes
    assert _generic(add) == _generic(expected)


def test_morph_fills_default_properties():
    source = test.TestOp(result_types=[i1, i64, i64])
    c = source.results
    select = arith.SelectOp(*c)
    Block([source, select])
    expected = llvm.SelectOp.create(operands=c, result_types=[i64])
    morph(PatternRewriter(select), select, llvm.SelectOp, c, (i64,), {})
    assert "fastmathFlags" in expected.properties
    assert select.properties == expected.properties
    select.verify()
    assert _generic(select) == _generic(expected)


def test_a_branch_keeps_its_successors():
    """`cf.cond_br` -> `llvm.cond_br` (convert-to-llvm's `CondBranchToLLVM`): the same operands
    and successors, as `build.cond_br` would make it."""
    source = test.TestOp(result_types=[i1, i64])
    c, x = source.results
    then, other = Block(arg_types=[i64]), Block()
    branch = cf.ConditionalBranchOp(c, then, [x], other, [])
    Region([Block([source, branch]), then, other])
    expected = cond_br(c, then, [x], other, [])
    sizes = expected.properties["operandSegmentSizes"]
    morph(
        PatternRewriter(branch), branch, llvm.CondBrOp, [c, x], (), {"operandSegmentSizes": sizes}
    )
    assert type(branch) is llvm.CondBrOp and list(branch.successors) == [then, other]
    assert branch.properties == expected.properties
    branch.verify()
    assert _generic(branch) == _generic(expected)
