"""What every `convert-to-llvm` pattern shares beyond the conversion toolkit
(`ferrox.lowering.conversion`, which reports unsupported ops): operand and result type
legalization, and the location of the ops a pattern replaces its op with.

The conversion is MLIR's, in small. A pattern rewrites one op into llvm ops whose types went
through `convert_type`. An operand whose type still needs converting (an `index` value from an op
not rewritten yet, say) is cast with `builtin.unrealized_conversion_cast`; a result whose type
changed is cast back to its old type for users not rewritten yet. Once every op is rewritten the
casts come in inverse pairs and `casts.reconcile` removes them.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import UnrealizedConversionCastOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from ferrox.lowering.conversion import morph
from ferrox.lowering.to_llvm.types import convert_type


def cast_one(value: SSAValue, to: Attribute) -> tuple[UnrealizedConversionCastOp, SSAValue]:
    """`UnrealizedConversionCastOp.cast_one(value, to)` through `create`: the same op without
    the generic builder's work on its arguments (two thirds of the op's cost)."""
    cast = UnrealizedConversionCastOp.create(operands=(value,), result_types=(to,))
    result = cast.results[0]
    if value.name_hint is not None:
        result.name_hint = value.name_hint
    return cast, result


def legal_operand(rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    """`value` in its converted type: itself, the input of the cast that made it, or a new cast."""
    target = convert_type(value.type)
    if target == value.type:
        return value
    owner = value.owner
    if (
        isinstance(owner, UnrealizedConversionCastOp)
        and len(owner.inputs) == 1
        and owner.inputs[0].type == target
    ):
        return owner.inputs[0]
    cast, result = cast_one(value, target)
    if isinstance(owner, Operation):
        cast.location = owner.location
    rewriter.insert(cast)
    return result


def legal_operands(rewriter: PatternRewriter, values: Sequence[SSAValue]) -> list[SSAValue]:
    """All of `values` converted; checks every type before inserting any cast."""
    for v in values:
        convert_type(v.type)
    return [legal_operand(rewriter, v) for v in values]


def replace_op(
    rewriter: PatternRewriter,
    op: Operation,
    new_ops: Sequence[Operation],
    new_results: Sequence[SSAValue] | None = None,
) -> None:
    """Replace `op` by `new_ops` (given its location), casting back results whose type changed."""
    for new_op in new_ops:
        new_op.location = op.location
    if new_results is None:
        new_results = list(new_ops[-1].results) if new_ops else []
    casts: list[Operation] = []
    results: list[SSAValue] = []
    for old, new in zip(op.results, new_results, strict=True):
        if old.type == new.type:
            results.append(new)
            continue
        cast, back = cast_one(new, old.type)
        cast.location = op.location
        casts.append(cast)
        results.append(back)
    rewriter.replace(op, [*new_ops, *casts], results)


def convert_block_signature(rewriter: PatternRewriter, block: Block) -> None:
    """Give `block` arguments of converted types, casting back for users not rewritten yet.

    Idempotent, so the function pattern and each branch pattern may call it on the same block.
    """
    for arg in list(block.args):
        target = convert_type(arg.type)
        if target == arg.type:
            continue
        old_type = arg.type
        new_arg = rewriter.replace_value_with_new_type(arg, target)
        cast, back = cast_one(new_arg, old_type)
        cast.location = arg.location
        rewriter.insert(cast, InsertPoint.at_start(block))
        rewriter.replace_uses_with_if(new_arg, back, lambda use, c=cast: use.operation is not c)


def result_types(op: Operation) -> list[Attribute]:
    return [convert_type(r.type) for r in op.results]


__all__ = [
    "cast_one",
    "convert_block_signature",
    "legal_operand",
    "legal_operands",
    "morph",
    "replace_op",
    "result_types",
]
