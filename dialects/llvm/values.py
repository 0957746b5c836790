"""`llvm.mlir.poison` and `llvm.freeze`, which xDSL's llvm dialect lacks.

Poison is the placeholder MLIR builds vectors and structs from (`llvm.mlir.undef` is deprecated
in MLIR); `freeze` pins a possibly-poison value, as after a speculated load.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import NoMemoryEffect


@irdl_op_definition
class PoisonOp(IRDLOperation):
    name = "llvm.mlir.poison"

    res = result_def()

    traits = traits_def(NoMemoryEffect())

    assembly_format = "attr-dict `:` type($res)"

    def __init__(self, result_type: Attribute):
        Operation.__init__(self, result_types=(result_type,))  # (as `create`: no IRDL builder)


@irdl_op_definition
class FreezeOp(IRDLOperation):
    name = "llvm.freeze"

    T: ClassVar = VarConstraint("T", AnyAttr())

    val = operand_def(T)
    res = result_def(T)

    traits = traits_def(NoMemoryEffect())

    assembly_format = "$val attr-dict `:` type($val)"

    def __init__(self, val: Operation | SSAValue):
        super().__init__(operands=[val], result_types=[SSAValue.get(val).type])
