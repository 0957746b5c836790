"""Warp collectives: shuffles and votes over the full warp (mask 0xffffffff, width 32).

Convergent: all 32 lanes must execute them together, so verify-disjoint rejects them under
divergent control flow.
"""

from __future__ import annotations

from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import Float32Type, IntegerType, i1, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyOf,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)
from xdsl.utils.str_enum import StrEnum


class ShuffleMode(StrEnum):
    IDX = auto()
    UP = auto()
    DOWN = auto()
    XOR = auto()


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    """`idx`, `up`, `down` or `xor` (generic form `#simt<shuffle_mode xor>`)."""

    name = "simt.shuffle_mode"


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`%r = simt.shuffle xor %v, %offset : f32`: the value of `%v` held by another lane.

    Source lane: idx = `%offset`; up = lane - offset; down = lane + offset; xor = lane ^ offset.
    Where the source lane is outside 0..31 (up/down) a lane gets its own value, as in CUDA.
    """

    name = "simt.shuffle"

    T: ClassVar = VarConstraint("T", AnyOf.get(IntegerType(32), Float32Type()))

    mode = prop_def(ShuffleModeAttr)
    value = operand_def(T)
    offset = operand_def(i32)
    result = result_def(T)

    assembly_format = "$mode $value `,` $offset attr-dict `:` type($value)"

    def __init__(self, mode: ShuffleMode | str, value: SSAValue, offset: SSAValue):
        super().__init__(
            operands=[value, offset],
            result_types=[value.type],
            properties={"mode": ShuffleModeAttr(ShuffleMode(mode))},
        )


class _VoteOp(IRDLOperation):
    predicate = operand_def(i1)

    assembly_format = "$predicate attr-dict"

    def __init__(self, predicate: SSAValue):
        super().__init__(operands=[predicate], result_types=[self._result_type()])

    @classmethod
    def _result_type(cls):
        return i1


@irdl_op_definition
class VoteAllOp(_VoteOp):
    """`%b = simt.vote_all %p`: true when `%p` holds on every lane."""

    name = "simt.vote_all"

    result = result_def(i1)


@irdl_op_definition
class VoteAnyOp(_VoteOp):
    """`%b = simt.vote_any %p`: true when `%p` holds on some lane."""

    name = "simt.vote_any"

    result = result_def(i1)


@irdl_op_definition
class BallotOp(_VoteOp):
    """`%m = simt.ballot %p`: an i32 whose bit k is `%p` on lane k."""

    name = "simt.ballot"

    result = result_def(i32)

    @classmethod
    def _result_type(cls):
        return i32


CONVERGENT_WARP_OPS = (ShuffleOp, VoteAllOp, VoteAnyOp, BallotOp)
