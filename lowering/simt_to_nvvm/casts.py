"""The last step of `convert-simt-to-nvvm`: no SIMT type and no conversion cast may survive.

Patterns leave `unrealized_conversion_cast`s between a SIMT value's parts and the SIMT type (see
`support`). Once every SIMT op is lowered they come in inverse pairs, which fold away. A SIMT
value that crossed control flow (an `scf.if` result or loop-carried value of slice type, say)
has no pair: its type becomes the packed LLVM struct of `types.packed` and its casts become
`llvm.insertvalue`/`llvm.extractvalue`, which LLVM folds.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriteWalker, TypeConversionPattern
from xdsl.rewriter import InsertPoint, Rewriter

from ferrox.dialects.typetest import dialect_test
from ferrox.lowering.build import extract_value, insert_value, position
from ferrox.lowering.conversion import ConversionState
from ferrox.lowering.simt_to_nvvm.types import is_simt_type, packed
from ferrox.passes.disjoint.common import walk


def _casts(module: ModuleOp) -> list[UnrealizedConversionCastOp]:
    return [op for op in module.walk() if isinstance(op, UnrealizedConversionCastOp)]


def _erase_dead(casts: list[UnrealizedConversionCastOp]) -> None:
    """Erase the casts (of `casts`, the module's) whose results are unused, until none is: the
    same casts go as when the module is walked again after each round (erasing makes no cast)."""
    changed = True
    while changed:
        changed = False
        alive = []
        for cast in casts:
            if all(not r.uses for r in cast.results):
                Rewriter.erase_op(cast)
                changed = True
            else:
                alive.append(cast)
        casts = alive


def _fold_pairs(casts: list[UnrealizedConversionCastOp]) -> None:
    """A cast of a cast's results back to that cast's input types is its input (`casts`: the
    module's, in walk order)."""
    for cast in casts:
        producer = cast.inputs[0].owner if cast.inputs else None
        if (
            isinstance(producer, UnrealizedConversionCastOp)
            and list(cast.inputs) == list(producer.results)
            and [v.type for v in producer.inputs] == [r.type for r in cast.results]
        ):
            for result, source in zip(cast.results, producer.inputs):
                result.replace_all_uses_with(source)
    _erase_dead(casts)


@dataclass
class _PackSimtTypes(TypeConversionPattern):
    def convert_type(self, typ: Attribute, /) -> Attribute | None:
        return packed(typ) if is_simt_type(typ) else None


def _materialize(cast: UnrealizedConversionCastOp) -> bool:
    """Replace a cast between a packed struct and its fields (or an identity) by LLVM ops."""
    ins, outs = list(cast.inputs), list(cast.results)
    new: list[Operation] = []
    if [v.type for v in ins] == [r.type for r in outs]:
        values: list[SSAValue] = ins
    elif len(outs) == 1 and isinstance(outs[0].type, llvm.LLVMStructType):
        struct: SSAValue = _append(new, llvm.UndefOp(outs[0].type))
        for i, part in enumerate(ins):
            struct = _append(new, insert_value(position(i), struct, part))
        values = [struct]
    elif len(ins) == 1 and isinstance(ins[0].type, llvm.LLVMStructType):
        values = [
            _append(new, extract_value(position(i), ins[0], r.type)) for i, r in enumerate(outs)
        ]
    else:
        return False
    for op in new:
        op.location = cast.location
    Rewriter.insert_op(new, InsertPoint.before(cast))
    for result, value in zip(outs, values):
        result.replace_all_uses_with(value)
    Rewriter.erase_op(cast)
    return True


def _append(ops: list[Operation], op: Operation) -> SSAValue:
    ops.append(op)
    return op.results[0]


def _simt_typed(op: Operation) -> bool:
    """Whether a result of `op`, or an argument of a block in it, has a SIMT type."""
    for r in op.results:
        if is_simt_type(r.type):
            return True
    if not op.regions:
        return False
    return any(is_simt_type(a.type) for region in op.regions for b in region.blocks for a in b.args)


_is_simt = dialect_test("simt")


def finish(module: ModuleOp, state: ConversionState) -> None:
    """Fold the casts away, pack what crossed control flow, and report anything left.

    One walk finds the casts, the ops with SIMT types and the SIMT ops; folding only erases
    casts (which have no regions), so what it leaves of them is what walking again would find."""
    casts: list[UnrealizedConversionCastOp] = []
    typed: list[Operation] = []
    suspects: list[Operation] = []  # SIMT ops and casts, in walk order
    for op in walk(module):
        if type(op) is UnrealizedConversionCastOp:  # (no class derives from it: `isinstance`
            # would go through an ABC's check for every op)
            casts.append(op)
            suspects.append(op)
        elif _is_simt(op):
            suspects.append(op)
        if _simt_typed(op):
            typed.append(op)
    _fold_pairs(casts)
    if any(op.parent is not None for op in typed):
        PatternRewriteWalker(_PackSimtTypes(), apply_recursively=False).rewrite_module(module)
        for cast in _casts(module):
            _materialize(cast)
        suspects = list(module.walk())
    for op in suspects:
        if op.parent is None:  # a cast folded away
            continue
        if op.dialect_name() == "simt":
            state.cannot_lower(op, "no conversion pattern for it")
        elif isinstance(op, UnrealizedConversionCastOp):
            state.fail(op, "cannot lower a SIMT value here: its parts do not match its use")
