"""The `unsafe` region and raw global pointers, which only unsafe code may dereference.

`%r = simt.unsafe -> f32 { ...; simt.yield %v : f32 }` (or with no results, `simt.unsafe { ... }`)
marks code whose memory safety the author vouches for: raw pointer and shared-memory access. It
runs exactly once, in place, like `scf.execute_region`; it changes no semantics.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    region_def,
    result_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.constraints import ptr_of
from ferrox.dialects.simt.memory import YieldOp
from ferrox.dialects.simt.types import PtrType


@irdl_op_definition
class UnsafeOp(IRDLOperation):
    """An explicitly unsafe region; its `simt.yield` gives the op's results."""

    name = "simt.unsafe"

    res = var_result_def()
    body = region_def("single_block")

    assembly_format = "(`->` type($res)^)? attr-dict-with-keyword $body"

    def __init__(self, body: Region, result_types: Sequence[Attribute] = ()):
        Operation.__init__(self, regions=(body,), result_types=result_types)  # (as `create`)

    def verify_(self) -> None:
        last = self.body.block.last_op
        if not isinstance(last, YieldOp):
            raise VerifyException("'simt.unsafe' region must end in 'simt.yield'")
        if tuple(v.type for v in last.values) != tuple(r.type for r in self.res):
            raise VerifyException("'simt.yield' types do not match the 'simt.unsafe' results")


@irdl_op_definition
class PtrLoadOp(IRDLOperation):
    """`%v = simt.ptr_load %p[%i] : !simt.ptr<f32>`: element `%i` past `%p`, unchecked (unsafe)."""

    name = "simt.ptr_load"

    T: ClassVar = VarConstraint("T", AnyAttr())

    ptr = operand_def(ptr_of(T))
    index = operand_def(IndexType())
    result = result_def(T)

    assembly_format = "$ptr `[` $index `]` attr-dict `:` type($ptr)"

    def __init__(self, ptr: SSAValue, index: SSAValue):
        assert isinstance(ptr.type, PtrType)
        super().__init__(operands=[ptr, index], result_types=[ptr.type.element_type])


@irdl_op_definition
class PtrStoreOp(IRDLOperation):
    """`simt.ptr_store %v, %p[%i] : !simt.ptr<f32>`: write element `%i` past `%p`, unchecked."""

    name = "simt.ptr_store"

    T: ClassVar = VarConstraint("T", AnyAttr())

    value = operand_def(T)
    ptr = operand_def(ptr_of(T))
    index = operand_def(IndexType())

    assembly_format = "$value `,` $ptr `[` $index `]` attr-dict `:` type($ptr)"

    def __init__(self, value: SSAValue, ptr: SSAValue, index: SSAValue):
        super().__init__(operands=[value, ptr, index])
