"""Shared-memory arrays: one per `simt.shared_alloc` op per block, living as long as the block.
Loads and stores are unchecked, so they belong in an unsafe region or kernel.

An array is static (a `.shared` variable of the kernel: at most 48 KiB in all) or, with
`{dynamic}`, placed in the block's dynamic shared memory (PTX `.extern .shared`): the dynamic
arrays of a kernel follow one another in the order the kernel lists them, each at an offset
rounded up to its alignment, and the kernel's launch contract must provide `shared_bytes` for
all of them, padding included (`dynamic_layout`, the one layout the lowering, the verifier and
the launch checkers share).

Every array is 16-byte aligned (vector accesses); `{align = N}` (a power of two, 16 to 1024)
asks for more, as the 128-byte swizzle of TMA and wgmma needs (1024: the swizzle is on address
bits). The dynamic region's base is declared 1024-byte aligned (`MAX_ALIGNMENT`), so an offset
that is a multiple of N gives an address that is one. A block may opt in to more dynamic shared
memory than static (227 KiB on sm_90); the launch checker holds the launch to what the device
allows.

The tile track's GEMM pipeline reads and fills shared arrays with the ops of `pipeline.py`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    IndexType,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
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
from ferrox.dialects.typetest import type_test

STATIC_SHARED_LIMIT = 48 * 1024
"""Static shared memory a block may declare; more must be dynamic (opted in at load)."""
MIN_ALIGNMENT = 16
"""Every shared array's alignment at least: a 16-byte vector access needs no more."""
MAX_ALIGNMENT = 1024
"""The most `{align}` may ask; the dynamic region's base is declared this aligned."""


@irdl_op_definition
class SharedAllocOp(IRDLOperation):
    """`%t = simt.shared_alloc : !simt.shared<f32, [32, 33]>`: the block's array for this op
    (allocated once per block, wherever the op sits; uninitialised); `{dynamic}` places it in the
    block's dynamic shared memory and `{align = 1024}` aligns its base (module docstring)."""

    name = "simt.shared_alloc"

    result = result_def(SharedArrayType)
    dynamic = opt_prop_def(UnitAttr)
    align = opt_prop_def(IntegerAttr[I64])

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, type: SharedArrayType, dynamic: bool = False, align: int | None = None):
        properties: dict[str, Attribute] = {"dynamic": UnitAttr()} if dynamic else {}
        if align is not None:
            properties["align"] = IntegerAttr(align, i64)
        super().__init__(result_types=[type], properties=properties)

    @property
    def is_dynamic(self) -> bool:
        return self.dynamic is not None

    @property
    def alignment(self) -> int:
        """The base's alignment in bytes: `{align}`, else `MIN_ALIGNMENT`."""
        return MIN_ALIGNMENT if self.align is None else max(MIN_ALIGNMENT, self.align.value.data)

    def verify_(self) -> None:
        if self.align is not None:
            n = self.align.value.data
            if not (MIN_ALIGNMENT <= n <= MAX_ALIGNMENT and n & (n - 1) == 0):
                raise VerifyException(
                    f"a shared array's align must be a power of two from {MIN_ALIGNMENT} to "
                    f"{MAX_ALIGNMENT}, got {n}"
                )
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


def static_shared_bound(allocs: Iterable[SharedAllocOp]) -> int:
    """Bytes a block's static arrays `allocs` can take once ptxas places them, padding included,
    whatever order it picks. Sizes are rounded up to `MIN_ALIGNMENT`; if every rounded size is a
    multiple of `g` (a power of two), every array starts at a multiple of `g` before its own
    padding (by induction over the placed arrays), so an array aligned to `A` pads at most
    `A - min(A, g)` bytes. Exact when no array asks for more than `g`."""
    ops = list(allocs)
    sizes = []
    for op in ops:
        assert isinstance(op.result.type, SharedArrayType)
        size = shared_array_bytes(op.result.type)
        sizes.append(-(-size // MIN_ALIGNMENT) * MIN_ALIGNMENT)
    g = min([MAX_ALIGNMENT] + [size & -size for size in sizes if size])
    return sum(sizes) + sum(op.alignment - min(op.alignment, g) for op in ops)


_is_alloc = type_test(SharedAllocOp)


def dynamic_layout(
    kernel: Operation, ops: Iterable[Operation] | None = None
) -> tuple[dict[SharedAllocOp, int], int]:
    """The byte offset of each dynamic array of `kernel` in its dynamic shared memory, in the
    order the kernel lists them, each rounded up to its alignment, and the bytes they take in
    all (padding included). `ops`: the kernel's ops in `walk()` order, where the caller has
    them."""
    offsets: dict[SharedAllocOp, int] = {}
    total = 0
    for op in kernel.walk() if ops is None else ops:
        if not _is_alloc(op):
            continue
        assert isinstance(op, SharedAllocOp)
        if op.is_dynamic:
            total = -(-total // op.alignment) * op.alignment
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
        # (`Operation.__init__`, as `create`: no IRDL builder)
        Operation.__init__(
            self, operands=(array, *indices), result_types=(array.type.element_type,)
        )

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
        Operation.__init__(self, operands=(value, array, *indices))  # (as `create`)

    def verify_(self) -> None:
        check_rank(self, self.array, self.indices)
