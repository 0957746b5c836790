"""Global slices: shared-slice reads, lengths, and the witness-guarded exclusive access.

`simt.load` reads a shared slice; an index out of range traps (never reads wild). `simt.get_mut`
is the only way to write a disjoint slice: its region runs only when the witness is in bounds
(Rust's `Some` branch), receives the element's current value as its block argument and yields the
new value with `simt.yield`, which is stored back. No pointer to the element exists in the IR, so
none can escape the region.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.constraints import any_slice_of
from ferrox.dialects.simt.types import SLICE_TYPES, DisjointSliceType, ThreadIndexType

_INDEX = IndexType()


@irdl_op_definition
class LoadOp(IRDLOperation):
    """`%v = simt.load %a[%i] : !simt.slice<f32>`: element `%i` of a shared slice.

    Out of range traps. The operand type also admits disjoint and atomic slices so that
    verify-disjoint can report such a read with the rest of a kernel's violations.
    """

    name = "simt.load"

    T: ClassVar = VarConstraint("T", AnyAttr())

    slice = operand_def(any_slice_of(T))
    index = operand_def(IndexType())
    result = result_def(T)

    assembly_format = "$slice `[` $index `]` attr-dict `:` type($slice)"

    def __init__(self, slice: SSAValue, index: SSAValue):
        assert isinstance(slice.type, SLICE_TYPES)
        super().__init__(operands=[slice, index], result_types=[slice.type.element_type])


@irdl_op_definition
class LenOp(IRDLOperation):
    """`%n = simt.len %a : !simt.slice<f32>`: the element count of any global slice."""

    name = "simt.len"

    T: ClassVar = VarConstraint("T", AnyAttr())

    slice = operand_def(any_slice_of(T))
    result = result_def(IndexType())

    traits = traits_def(Pure())

    assembly_format = "$slice attr-dict `:` type($slice)"

    def __init__(self, slice: SSAValue):
        Operation.__init__(self, operands=(slice,), result_types=(_INDEX,))  # (as `create`)


@irdl_op_definition
class GetMutOp(IRDLOperation):
    """`simt.get_mut %out[%w] : !simt.disjoint_slice<f32, 1d>, !simt.thread_index<1d> {
    ^bb0(%old: f32): ... simt.yield %new : f32 }`

    Consumes the witness (a move). The region runs only when the witness is in bounds of the slice
    (index < len, and col < stride for 2-D spaces); it gets the current element and yields the new
    one, which is stored. Lowering may skip the load when the block argument is unused.
    """

    name = "simt.get_mut"

    slice = operand_def(DisjointSliceType)
    witness = operand_def(ThreadIndexType)
    body = region_def("single_block")

    assembly_format = "$slice `[` $witness `]` attr-dict `:` type($slice) `,` type($witness) $body"

    def __init__(self, slice: SSAValue, witness: SSAValue, body: Region | None = None):
        assert isinstance(slice.type, DisjointSliceType)
        if body is None:
            body = Region(Block(arg_types=[slice.type.element_type]))
        super().__init__(operands=[slice, witness], regions=[body])

    @property
    def element(self) -> SSAValue:
        """The block argument holding the element's current value."""
        return self.body.block.args[0]

    def verify_(self) -> None:
        assert isinstance(self.slice.type, DisjointSliceType)
        element = self.slice.type.element_type
        block = self.body.block
        if tuple(a.type for a in block.args) != (element,):
            raise VerifyException(
                f"'simt.get_mut' region takes one argument of the element type {element} "
                "(the current value)"
            )
        last = block.last_op
        if not isinstance(last, YieldOp) or tuple(v.type for v in last.values) != (element,):
            raise VerifyException(
                f"'simt.get_mut' region must end in 'simt.yield' of one {element} (the new value)"
            )


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`simt.yield %v : f32`: ends a `simt.get_mut` region (the new element) or a `simt.unsafe`
    region (its results)."""

    name = "simt.yield"

    values = var_operand_def()

    traits = traits_def(IsTerminator())

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue):
        Operation.__init__(self, operands=values)  # (as `create`: no IRDL builder)

    def verify_(self) -> None:
        from ferrox.dialects.simt.specialize import SpecializeOp
        from ferrox.dialects.simt.unsafe import UnsafeOp

        if not isinstance(self.parent_op(), GetMutOp | UnsafeOp | SpecializeOp):
            raise VerifyException(
                "'simt.yield' ends only a 'simt.get_mut', 'simt.unsafe' or 'simt.specialize' region"
            )
