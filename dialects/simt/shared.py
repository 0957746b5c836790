"""Static shared-memory arrays: one per `simt.shared_alloc` op per block, living as long as the
block. Loads and stores are unchecked, so they belong in an unsafe region or kernel."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.constraints import shared_of
from ferrox.dialects.simt.types import SharedArrayType


@irdl_op_definition
class SharedAllocOp(IRDLOperation):
    """`%t = simt.shared_alloc : !simt.shared<f32, [32, 33]>`: the block's static array for this op
    (allocated once per block, wherever the op sits; uninitialised)."""

    name = "simt.shared_alloc"

    result = result_def(SharedArrayType)

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, type: SharedArrayType):
        super().__init__(result_types=[type])


def _check_rank(op: IRDLOperation, array: SSAValue, indices) -> None:
    assert isinstance(array.type, SharedArrayType)
    rank = len(array.type.get_shape())
    if len(indices) != rank:
        raise VerifyException(
            f"'{op.name}' needs {rank} indices for {array.type}, got {len(indices)}"
        )


@irdl_op_definition
class SharedLoadOp(IRDLOperation):
    """`%v = simt.shared_load %t[%i, %j] : !simt.shared<f32, [32, 33]>` (row-major, unchecked)."""

    name = "simt.shared_load"

    T: ClassVar = VarConstraint("T", AnyAttr())

    array = operand_def(shared_of(T))
    indices = var_operand_def(IndexType())
    result = result_def(T)

    assembly_format = "$array `[` $indices `]` attr-dict `:` type($array)"

    def __init__(self, array: SSAValue, indices: list[SSAValue]):
        assert isinstance(array.type, SharedArrayType)
        super().__init__(operands=[array, indices], result_types=[array.type.element_type])

    def verify_(self) -> None:
        _check_rank(self, self.array, self.indices)


@irdl_op_definition
class SharedStoreOp(IRDLOperation):
    """`simt.shared_store %v, %t[%i, %j] : !simt.shared<f32, [32, 33]>` (row-major, unchecked)."""

    name = "simt.shared_store"

    T: ClassVar = VarConstraint("T", AnyAttr())

    value = operand_def(T)
    array = operand_def(shared_of(T))
    indices = var_operand_def(IndexType())

    assembly_format = "$value `,` $array `[` $indices `]` attr-dict `:` type($array)"

    def __init__(self, value: SSAValue, array: SSAValue, indices: list[SSAValue]):
        super().__init__(operands=[value, array, indices])

    def verify_(self) -> None:
        _check_rank(self, self.array, self.indices)
