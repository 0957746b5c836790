"""The type conversion that every `convert-to-llvm` pattern shares.

MLIR's LLVMTypeConverter in small: `index` becomes `i64` (ferrox targets nvptx64, whose pointers
and sizes are 64-bit), integers, floats and vectors of them stay as they are, and a statically
shaped memref becomes a bare `!llvm.ptr` in its memory space (kernels only index such memrefs with
static strides, so no descriptor is needed). llvm types are already legal.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    AnyFloat,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    VectorType,
)
from xdsl.dialects.llvm import (
    LLVMArrayType,
    LLVMFunctionType,
    LLVMPointerType,
    LLVMStructType,
    LLVMVoidType,
)
from xdsl.ir import Attribute

from ferrox.lowering.conversion import Unsupported

INDEX_WIDTH = 64
"""Bit width of `index` after conversion (nvptx64)."""

INDEX_LLVM_TYPE = IntegerType(INDEX_WIDTH)
"""`index` converted, made once: building a type checks its parameters, and a tile kernel's
conversion asks for this one about a thousand times."""


class TypeConversionError(Unsupported):
    """A type with no llvm equivalent; the message says why, for a located diagnostic."""


def memref_address_space(memref: MemRefType) -> int:
    """The integer address space of a memref (`NoneAttr` and absent mean generic, 0)."""
    space = memref.memory_space
    if isinstance(space, NoneAttr):
        return 0
    if isinstance(space, IntegerAttr):
        return space.value.data
    if isinstance(space, IntAttr):
        return space.data
    raise TypeConversionError(f"memory space {space} has no llvm address space")


def is_static_memref(memref: MemRefType) -> bool:
    return all(d >= 0 for d in memref.get_shape()) and isinstance(memref.layout, NoneAttr)


_SAME: set[type] = set()
"""Classes of types that are their own conversion whatever their parameters (integers,
floats, llvm types), learned from the chain below: `isinstance` against `AnyFloat`'s
abstract classes costs a few µs, and a conversion asks about every operand and result."""


def convert_type(t: Attribute) -> Attribute:
    """The llvm-dialect type for `t`; raises `TypeConversionError` when there is none."""
    cls = type(t)
    if cls in _SAME:
        return t
    if cls is IndexType:
        return INDEX_LLVM_TYPE
    if isinstance(
        t,
        IntegerType
        | AnyFloat
        | LLVMPointerType
        | LLVMStructType
        | LLVMArrayType
        | LLVMVoidType
        | LLVMFunctionType,
    ):
        _SAME.add(cls)
        return t
    return _convert_other(t)


def _convert_other(t: Attribute) -> Attribute:
    if isinstance(t, IndexType):
        return INDEX_LLVM_TYPE
    if isinstance(t, IntegerType | AnyFloat):
        return t
    if isinstance(t, VectorType):
        element = convert_type(t.element_type)
        if element == t.element_type:
            return t
        return VectorType(element, t.get_shape(), t.scalable_dims)
    if isinstance(t, MemRefType):
        if not is_static_memref(t):
            raise TypeConversionError(
                f"only statically shaped memrefs with the identity layout lower to llvm, got {t}"
            )
        return pointer_type(memref_address_space(t))
    if isinstance(
        t, LLVMPointerType | LLVMStructType | LLVMArrayType | LLVMVoidType | LLVMFunctionType
    ):
        return t
    raise TypeConversionError(f"type {t} has no llvm equivalent")


def pointer_type(address_space: int = 0) -> LLVMPointerType:
    """`!llvm.ptr` for the generic space (spelled without `<0>`, as MLIR prints it)."""
    return LLVMPointerType() if address_space == 0 else LLVMPointerType(IntAttr(address_space))


def try_convert_type(t: Attribute) -> Attribute | None:
    try:
        return convert_type(t)
    except TypeConversionError:
        return None


def is_legal(t: Attribute) -> bool:
    """Whether `t` already is its own conversion (no cast needed)."""
    return try_convert_type(t) == t


def function_type(inputs: list[Attribute], outputs: list[Attribute]) -> LLVMFunctionType:
    """An llvm function type; the caller has checked there is at most one result."""
    output = convert_type(outputs[0]) if outputs else LLVMVoidType()
    return LLVMFunctionType([convert_type(t) for t in inputs], output)


__all__ = [
    "INDEX_LLVM_TYPE",
    "INDEX_WIDTH",
    "TypeConversionError",
    "convert_type",
    "function_type",
    "is_legal",
    "is_static_memref",
    "memref_address_space",
    "pointer_type",
    "try_convert_type",
]
