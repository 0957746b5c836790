"""`llvm.extractelement`, the read half of xDSL's `llvm.insertelement`, which it lacks.

Vectorised kernels load `vector<4xf32>` (16-byte accesses) and take the lanes apart:

    %x = llvm.extractelement %v[%i : i32] : vector<4xf32>
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, IntAttr, SignlessIntegerConstraint, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    RangeOf,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    name = "llvm.extractelement"

    ELEMENT: ClassVar = VarConstraint("ELEMENT", AnyAttr())

    vector = operand_def(
        VectorType.constr(ELEMENT, shape=ArrayAttr.constr(RangeOf(IntAttr).of_length(1)))
    )
    position = operand_def(SignlessIntegerConstraint)
    res = result_def(ELEMENT)

    traits = traits_def(NoMemoryEffect())

    assembly_format = "$vector `[` $position `:` type($position) `]` attr-dict `:` type($vector)"

    def __init__(self, vector: Operation | SSAValue, position: Operation | SSAValue):
        vector, position = SSAValue.get(vector), SSAValue.get(position)
        vector_type = vector.type
        assert isinstance(vector_type, VectorType)
        # (`Operation.__init__`, as `create`: IRDL's builder sorts the arguments into the op's
        # operand and result definitions, a few times the cost of the op for two operands)
        Operation.__init__(
            self, operands=(vector, position), result_types=(vector_type.element_type,)
        )
