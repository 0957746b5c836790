"""Warp collectives: `nvvm.shfl.sync`, `nvvm.vote.sync`, `nvvm.redux.sync`.

Syntax and semantics follow MLIR's nvvm ops of the same names. Every lane named in the member mask
must execute the op together, so all three are `Convergent`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I1, I32, Float32Type, IntegerType, UnitAttr, i1, i32
from xdsl.dialects.llvm import LLVMStructType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.nvvm.attributes import (
    ReduxKind,
    ReduxKindAttr,
    ShflKind,
    ShflKindAttr,
    VoteSyncKind,
    VoteSyncKindAttr,
)
from ferrox.dialects.nvvm.traits import Convergent

_I32_OR_F32 = EqAttrConstraint(i32) | BaseAttr(Float32Type)


def predicated_result(val_type: Attribute) -> LLVMStructType:
    """The result of a shuffle that also returns whether the source lane was valid."""
    return LLVMStructType.from_type_list([val_type, i1])


@irdl_op_definition
class ShflOp(IRDLOperation):
    """`shfl.sync.<kind>.b32`: read `val` from another lane of the warp.

    `offset` is the source lane (`idx`) or lane offset (`up`, `down`, `bfly`); `mask_and_clamp`
    packs the segment mask and the clamp bound. With `return_value_and_is_valid` the result is
    `!llvm.struct<(T, i1)>`, whose `i1` says whether the source lane was in range.
    """

    name = "nvvm.shfl.sync"
    thread_mask = operand_def(I32)
    val = operand_def(_I32_OR_F32)
    offset = operand_def(I32)
    mask_and_clamp = operand_def(I32)
    kind = prop_def(ShflKindAttr)
    return_value_and_is_valid = opt_prop_def(UnitAttr)
    res = result_def(_I32_OR_F32 | BaseAttr(LLVMStructType))
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$kind $thread_mask `,` $val `,` $offset `,` $mask_and_clamp attr-dict "
        "`:` type($val) `->` type($res)"
    )
    traits = traits_def(Convergent())

    def __init__(
        self,
        kind: ShflKind,
        thread_mask: SSAValue,
        val: SSAValue,
        offset: SSAValue,
        mask_and_clamp: SSAValue,
        *,
        return_value_and_is_valid: bool = False,
    ):
        res = predicated_result(val.type) if return_value_and_is_valid else val.type
        super().__init__(
            operands=[thread_mask, val, offset, mask_and_clamp],
            properties={
                "kind": ShflKindAttr(kind),
                "return_value_and_is_valid": UnitAttr() if return_value_and_is_valid else None,
            },
            result_types=[res],
        )

    def verify_(self) -> None:
        val_type = self.val.type
        if self.return_value_and_is_valid is not None:
            if self.res.type != predicated_result(val_type):
                raise VerifyException(
                    f"with `return_value_and_is_valid` the result must be "
                    f"{predicated_result(val_type)}, found {self.res.type}"
                )
        elif self.res.type != val_type:
            raise VerifyException(
                f"result type {self.res.type} must equal the shuffled value's type {val_type}"
                + (
                    " (a struct result needs `return_value_and_is_valid`)"
                    if isinstance(self.res.type, LLVMStructType)
                    else ""
                )
            )


@irdl_op_definition
class VoteSyncOp(IRDLOperation):
    """`vote.sync.<kind>`: `any`/`all`/`uni` give an `i1`, `ballot` the lanes' bits as `i32`."""

    name = "nvvm.vote.sync"
    mask = operand_def(I32)
    pred = operand_def(I1)
    kind = prop_def(VoteSyncKindAttr)
    res = result_def(IntegerType)
    assembly_format = "$kind $mask `,` $pred attr-dict `->` type($res)"
    traits = traits_def(Convergent())

    def __init__(self, kind: VoteSyncKind, mask: SSAValue, pred: SSAValue):
        super().__init__(
            operands=[mask, pred],
            properties={"kind": VoteSyncKindAttr(kind)},
            result_types=[i32 if kind == VoteSyncKind.BALLOT else i1],
        )

    def verify_(self) -> None:
        expected = i32 if self.kind.data == VoteSyncKind.BALLOT else i1
        if self.res.type != expected:
            raise VerifyException(
                f"vote.sync {self.kind.data} returns {expected}, found {self.res.type}"
            )


@irdl_op_definition
class ReduxOp(IRDLOperation):
    """`redux.sync.<kind>`: reduce a 32-bit integer across the lanes of `mask_and_clamp` (sm_80)."""

    name = "nvvm.redux.sync"
    val = operand_def(I32)
    mask_and_clamp = operand_def(I32)
    kind = prop_def(ReduxKindAttr)
    res = result_def(IntegerType)
    assembly_format = "$kind $val `,` $mask_and_clamp attr-dict `:` type($val) `->` type($res)"
    traits = traits_def(Convergent())

    def __init__(self, kind: ReduxKind, val: SSAValue, mask_and_clamp: SSAValue):
        super().__init__(
            operands=[val, mask_and_clamp],
            properties={"kind": ReduxKindAttr(kind)},
            result_types=[val.type],
        )

    def verify_(self) -> None:
        if self.res.type != self.val.type:
            raise VerifyException(
                f"result type {self.res.type} must equal the reduced value's type {self.val.type}"
            )
