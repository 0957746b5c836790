"""Shared-memory arrays: one per `simt.shared_alloc` op per block, living as long as the block.
Loads and stores are unchecked, so they belong in an unsafe region or kernel.

An array is static (a `.shared` variable of the kernel: at most 48 KiB in all) or, with
`{dynamic}`, placed in the block's dynamic shared memory (PTX `.extern .shared`): the dynamic
arrays of a kernel follow one another in the order the kernel lists them, each at a 16-byte
aligned offset, and the kernel's launch contract must provide `shared_bytes` for all of them
(`dynamic_layout`). A block may opt in to more dynamic shared memory than static (227 KiB on
sm_90); the launch checker holds the launch to what the device allows.

The tile track's GEMM pipeline reads and fills shared arrays with the ops of `pipeline.py`.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    IndexType,
    IntegerType,
    UnitAttr,
)
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.constraints import shared_of
from ferrox.dialects.simt.types import SharedArrayType

STATIC_SHARED_LIMIT = 48 * 1024
"""Static shared memory a block may declare; more must be dynamic (opted in at load)."""
DYNAMIC_ALIGNMENT = 16


@irdl_op_definition
class SharedAllocOp(IRDLOperation):
    """`%t = simt.shared_alloc : !simt.shared<f32, [32, 33]>`: the block's array for this op
    (allocated once per block, wherever the op sits; uninitialised); `{dynamic}` places it in the
    block's dynamic shared memory (module docstring)."""

    name = "simt.shared_alloc"

    result = result_def(SharedArrayType)
    dynamic = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, type: SharedArrayType, dynamic: bool = False):
        super().__init__(result_types=[type], properties={"dynamic": UnitAttr()} if dynamic else {})

    @property
    def is_dynamic(self) -> bool:
        return self.dynamic is not None

    def verify_(self) -> None:
        if not self.is_dynamic:
            return
        owner = self.parent_op()
        while owner is not None and owner.name not in ("simt.kernel", "simt.func"):
            owner = owner.parent_op()
        if owner is None:
            return  # not in a kernel yet (being built)
        if owner.name == "simt.func":
            raise VerifyException(
                "a dynamic shared array belongs in a kernel (its offset is the kernel's), not "
                "in a device function"
            )
        contract = getattr(owner, "contract", None)
        if contract is None:
            return  # an uncontracted kernel: its launch passes the bytes unchecked
        _, total = dynamic_layout(owner)
        if total > contract.shared_bytes.data:
            raise VerifyException(
                f"the kernel's dynamic shared arrays take {total} bytes, but its launch "
                f"contract provides shared_bytes = {contract.shared_bytes.data}"
            )


def shared_array_bytes(t: SharedArrayType) -> int:
    """The bytes of an array (i1 and index elements as the lowering stores them)."""
    element = t.get_element_type()
    if isinstance(element, IndexType):
        size = 8
    elif isinstance(element, IntegerType):
        size = max(1, (element.width.data + 7) // 8)
    else:
        size = max(1, (element.bitwidth + 7) // 8)  # type: ignore[attr-defined]
    return t.num_elements * size


def dynamic_layout(kernel: Operation) -> tuple[dict[SharedAllocOp, int], int]:
    """The byte offset of each dynamic array of `kernel` in its dynamic shared memory, in the
    order the kernel lists them, each 16-byte aligned, and the bytes they take in all."""
    offsets: dict[SharedAllocOp, int] = {}
    total = 0
    for op in kernel.walk():
        if isinstance(op, SharedAllocOp) and op.is_dynamic:
            total = -(-total // DYNAMIC_ALIGNMENT) * DYNAMIC_ALIGNMENT
            offsets[op] = total
            assert isinstance(op.result.type, SharedArrayType)
            total += shared_array_bytes(op.result.type)
    return offsets, total


def check_rank(op: IRDLOperation, array: SSAValue, indices) -> None:
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
        check_rank(self, self.array, self.indices)


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
        check_rank(self, self.array, self.indices)
