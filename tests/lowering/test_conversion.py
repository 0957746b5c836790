"""The conversion toolkit every lowering shares: an unsupported op becomes one located
diagnostic in the conversion's wording, however often the walker retries it, and new ops carry
the location of the op they lower."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, test
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from ferrox.diagnostics import DiagnosticError
from ferrox.lowering.conversion import ConversionState, Emitter, Guarded, Unsupported
from ferrox.lowering.simt_to_nvvm.types import SimtTypeError
from ferrox.lowering.to_llvm.types import TypeConversionError
from ferrox.parser import parse_module
from ferrox.registry import make_context

SOURCE = """
func.func @f() -> i32 {
  %a = "test.op"() : () -> i32
  %b = "test.op"() : () -> i32
  func.return %a : i32
}
"""


def _module():
    ctx = make_context()  # xDSL's `test` dialect included, as in ferrox-opt
    return parse_module(ctx, SOURCE, "f.mlir")


class Refuse(RewritePattern):
    """Refuses every `test.op`, counting its attempts."""

    def __init__(self) -> None:
        self.attempts = 0

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "test.op":
            self.attempts += 1
            raise Unsupported("no reason at all")


class Replace(RewritePattern):
    """Replaces a `test.op` by an `arith.constant 7` placed with an `Emitter`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "test.op":
            e = Emitter.before(rewriter, op)
            rewriter.replace(op, [], [e(arith.ConstantOp(IntegerAttr(7, i32)), "seven")])


def test_each_unsupported_op_is_reported_once_at_its_location() -> None:
    module = _module()
    state = ConversionState("nvvm")
    refuse = Refuse()
    first = PatternRewriteWalker(GreedyRewritePatternApplier([Guarded(refuse, state)]))
    first.rewrite_module(module)
    PatternRewriteWalker(Guarded(refuse, state)).rewrite_module(module)  # tried again
    assert refuse.attempts == 4
    with pytest.raises(DiagnosticError) as e:
        state.diagnostics.raise_if_errors()
    assert str(e.value) == (
        "f.mlir:3:3: error: cannot lower 'test.op' to nvvm: no reason at all\n"
        "f.mlir:4:3: error: cannot lower 'test.op' to nvvm: no reason at all"
    )


def test_attempt_says_whether_the_lowering_succeeded() -> None:
    module = _module()
    op = next(o for o in module.walk() if isinstance(o, test.TestOp))
    state = ConversionState("SIMT")
    assert state.attempt(op, lambda: None)
    assert not state.diagnostics.diagnostics

    def refuse() -> None:
        raise Unsupported("too wide")

    assert not state.attempt(op, refuse)
    assert [d.format() for d in state.diagnostics.diagnostics] == [
        "f.mlir:3:3: error: cannot lower 'test.op' to SIMT: too wide"
    ]


@pytest.mark.parametrize("error", [SimtTypeError, TypeConversionError])
def test_a_type_without_lowering_is_an_unsupported_op(error: type[Exception]) -> None:
    module = _module()
    op = next(o for o in module.walk() if isinstance(o, test.TestOp))
    state = ConversionState("llvm")

    def refuse() -> None:
        raise error("!t has no llvm form")

    assert not state.attempt(op, refuse)
    assert [d.message for d in state.diagnostics.diagnostics] == [
        "cannot lower 'test.op' to llvm: !t has no llvm form"
    ]


def test_emitted_ops_carry_the_lowered_ops_location() -> None:
    module = _module()
    locations = [o.location for o in module.walk() if isinstance(o, test.TestOp)]
    PatternRewriteWalker(Replace()).rewrite_module(module)
    constants = [o for o in module.walk() if isinstance(o, arith.ConstantOp)]
    assert [c.location for c in constants] == locations
    assert [c.result.name_hint for c in constants] == ["seven", "seven"]
    assert [c.value for c in constants] == [IntegerAttr(7, i32)] * 2


class ReplaceByThree(RewritePattern):
    """Replaces a `test.op` by three constants placed at once (`Emitter.emit_all`), the last
    its value; the walker is told of each (`seen`)."""

    def __init__(self) -> None:
        self.seen: list[Operation] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "test.op":
            e = Emitter.before(rewriter, op)
            if self.seen.append not in rewriter.operation_insertion_handler:
                rewriter.operation_insertion_handler.append(self.seen.append)
            made = e.emit_all([arith.ConstantOp(IntegerAttr(k, i32)) for k in (1, 2, 3)])
            rewriter.replace(op, [], [made[-1].results[0]])


def test_emit_all_inserts_in_order_each_with_the_lowered_ops_location() -> None:
    module = _module()
    locations = [o.location for o in module.walk() if isinstance(o, test.TestOp)]
    pattern = ReplaceByThree()
    PatternRewriteWalker(pattern).rewrite_module(module)
    constants = [o for o in module.walk() if isinstance(o, arith.ConstantOp)]
    assert [c.value.value.data for c in constants] == [1, 2, 3, 1, 2, 3]
    assert [c.location for c in constants] == [loc for loc in locations for _ in range(3)]
    assert sorted(map(id, pattern.seen)) == sorted(map(id, constants))
