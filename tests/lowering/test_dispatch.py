"""`conversion.dispatch`: each op is offered only the patterns that can match its class, in the
order given, the first that changes it winning, as xDSL's greedy applier would do."""

from __future__ import annotations

from xdsl.dialects import arith, builtin, func
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from ferrox.lowering.conversion import ConversionState, Guarded, Unsupported, dispatch, op_types

calls: list[tuple[str, str]] = []


class AddToSub(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter, /) -> None:
        calls.append(("AddToSub", op.name))
        rewriter.replace(op, arith.SubiOp(op.lhs, op.rhs))


class AddOrMulNever(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: arith.AddiOp | arith.MuliOp, rewriter: PatternRewriter, /
    ) -> None:
        calls.append(("AddOrMulNever", op.name))


class Watcher(RewritePattern):
    """Untyped: offered every op."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        calls.append(("Watcher", op.name))


def test_op_types_reads_the_annotation_through_wrappers():
    state = ConversionState("test")
    assert op_types(AddToSub()) == (arith.AddiOp,)
    assert op_types(AddOrMulNever()) == (arith.AddiOp, arith.MuliOp)
    assert op_types(Watcher()) is None
    assert op_types(Guarded(AddOrMulNever(), state)) == (arith.AddiOp, arith.MuliOp)


def test_each_op_meets_only_its_patterns_in_order():
    calls.clear()
    c = arith.ConstantOp.from_int_and_width(3, 32)
    add = arith.AddiOp(c, c)
    mul = arith.MuliOp(add, c)
    body = [c, add, mul, func.ReturnOp()]
    fn = func.FuncOp("f", ((), ()))
    fn.body.block.add_ops(body)
    module = builtin.ModuleOp([fn])
    applier = dispatch([AddOrMulNever(), AddToSub(), Watcher()])
    PatternRewriteWalker(applier, apply_recursively=False).rewrite_module(module)
    names = [op.name for op in fn.body.block.ops]
    assert names == ["arith.constant", "arith.subi", "arith.muli", "func.return"]
    assert ("AddToSub", "arith.addi") in calls
    assert ("Watcher", "arith.addi") not in calls, "the add was rewritten: the try ended"
    assert ("AddOrMulNever", "arith.constant") not in calls
    assert ("AddOrMulNever", "arith.muli") in calls and ("Watcher", "arith.muli") in calls
    assert ("AddToSub", "arith.muli") not in calls
    assert calls.index(("AddOrMulNever", "arith.addi")) < calls.index(("AddToSub", "arith.addi"))


class Refuses(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.MuliOp, rewriter: PatternRewriter, /) -> None:
        raise Unsupported("no multiplier here")


def _module_with_a_mul() -> builtin.ModuleOp:
    c = arith.ConstantOp.from_int_and_width(3, 32)
    fn = func.FuncOp("f", ((), ()))
    fn.body.block.add_ops([c, arith.MuliOp(c, c), func.ReturnOp()])
    return builtin.ModuleOp([fn])


def test_a_plan_kept_across_runs_reports_to_each_runs_own_state():
    """The plans of one tuple of patterns are kept across runs whose `Guarded` wrappers share
    one state (each conversion's); a refusal still goes to that run's state."""
    refuses = Refuses()
    states = [ConversionState("test"), ConversionState("test")]
    for state in states:
        applier = dispatch([Guarded(refuses, state)])
        PatternRewriteWalker(applier, apply_recursively=False).rewrite_module(_module_with_a_mul())
    assert [len(s.diagnostics.diagnostics) for s in states] == [1, 1]
    assert "no multiplier here" in states[1].diagnostics.diagnostics[0].message


def test_wrappers_with_states_of_their_own_report_to_their_own():
    first, second = ConversionState("first"), ConversionState("second")
    shared = ConversionState("shared")
    refuses = Refuses()
    dispatch([Guarded(refuses, shared)])  # (a plan kept for one state: not used below)
    applier = dispatch([Guarded(refuses, first), Guarded(Refuses(), second)])
    PatternRewriteWalker(applier, apply_recursively=False).rewrite_module(_module_with_a_mul())
    assert [len(s.diagnostics.diagnostics) for s in (first, second, shared)] == [1, 1, 0]
