"""Builders shared by the nvvm patterns: intrinsic calls, i32 constants, PTX inline asm."""

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, UnitAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from ferrox.dialects.nvvm.traits import Convergent
from ferrox.lowering.build import NO_BUNDLES, NO_FASTMATH, i32_array, intrinsic_name
from ferrox.lowering.build import call_intrinsic as build_call
from ferrox.lowering.conversion import morph

CONVERGENT = "convergent"
"""Unit attribute on a call lowered from a `Convergent` op; the exporter must emit the call with
LLVM's `convergent` call-site attribute (LLVM declares most NVPTX collectives convergent, but not
the `mma` intrinsics, which are only `memory(none)`)."""


def i32_constant(value: int) -> llvm.ConstantOp:
    return llvm.ConstantOp(IntegerAttr(value, i32), i32)


def call_intrinsic(
    name: str, args: Sequence[SSAValue], result: Attribute | None = None
) -> llvm.CallIntrinsicOp:
    """`llvm.call_intrinsic "name"(args)`; the exporter declares it with the operands' types."""
    return build_call(name, args, [result] if result is not None else [])


def lowered_call(
    op: Operation, name: str, args: Sequence[SSAValue], result: Attribute | None = None
) -> llvm.CallIntrinsicOp:
    """The intrinsic call replacing `op`, marked `convergent` when `op` is."""
    call = call_intrinsic(name, args, result)
    if op.has_trait(Convergent):
        call.attributes[CONVERGENT] = UnitAttr()
    return call


def replace_by_call(
    rewriter: PatternRewriter,
    op: Operation,
    name: str,
    args: Sequence[SSAValue],
    result: Attribute | None = None,
) -> None:
    """`rewriter.replace(op, lowered_call(op, name, args, result))`; where the call has as many
    operands and results as `op` (a shuffle, a vote, a special register), `op` becomes that call
    in place (`conversion.morph`): the same op, without building one and replacing."""
    results = [result] if result is not None else []
    if len(args) != len(op.operands) or len(results) != len(op.results) or op.regions:
        rewriter.replace(op, lowered_call(op, name, args, result))
        return
    props: dict[str, Attribute] = {
        "intrin": intrinsic_name(name),
        "op_bundle_sizes": NO_BUNDLES,
        "operandSegmentSizes": i32_array((len(args), 0)),
        "fastmathFlags": NO_FASTMATH,
    }
    attrs: dict[str, Attribute] | None = (
        {CONVERGENT: UnitAttr()} if op.has_trait(Convergent) else None
    )
    morph(rewriter, op, llvm.CallIntrinsicOp, args, results, props, attrs)


def ptx_asm(
    asm: str, constraints: str, args: Sequence[SSAValue] = (), result: Attribute | None = None
) -> llvm.InlineAsmOp:
    """PTX with side effects and a memory clobber, so LLVM neither drops nor reorders it."""
    clobber = "~{memory}"
    return llvm.InlineAsmOp(
        asm,
        f"{constraints},{clobber}" if constraints else clobber,
        list(args),
        [result] if result is not None else None,
        has_side_effects=True,
    )
