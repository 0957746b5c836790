"""The type conversion of `convert-simt-to-nvvm`: what each SIMT type becomes below SIMT.

A slice is two values, its global pointer and its length (`!llvm.ptr<1>`, `i64`), and a witness
two more, its raw index and whether the thread's coordinates are valid in its space (`i64`, `i1`).
Patterns pass such values around as those parts (`expanded`); only where a SIMT value crosses
control flow (an `scf.if` result, a block argument) does it travel packed in one LLVM struct
(`packed`), which LLVM takes apart again for free. Raw pointers stay global pointers and a
shared-memory array is the address of its addrspace(3) global.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AnyFloat, IndexType, IntAttr, IntegerType, i1, i64
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import Attribute

from ferrox.dialects.simt.types import (
    SLICE_TYPES,
    PtrType,
    SharedArrayType,
    ThreadIndexType,
)
from ferrox.lowering.conversion import Unsupported

GLOBAL = 1
SHARED = 3
GLOBAL_PTR = LLVMPointerType(IntAttr(GLOBAL))
SHARED_PTR = LLVMPointerType(IntAttr(SHARED))


class SimtTypeError(Unsupported):
    """A SIMT type the lowering cannot represent; the message becomes a located diagnostic."""


_SIMT_TYPES = (*SLICE_TYPES, ThreadIndexType, PtrType, SharedArrayType)
_IS_SIMT: dict[type, bool] = {}


def is_simt_type(t: Attribute) -> bool:
    # By the type's class, answered once per class: the cast pass asks it of every result and
    # block argument of the module, and an `isinstance` against these classes is slow.
    cls = type(t)
    found = _IS_SIMT.get(cls)
    if found is None:
        found = _IS_SIMT[cls] = issubclass(cls, _SIMT_TYPES)
    return found


def expanded(t: Attribute) -> list[Attribute]:
    """The values a SIMT-typed value stands for after lowering (one for non-SIMT types)."""
    if isinstance(t, SLICE_TYPES):
        return [GLOBAL_PTR, i64]
    if isinstance(t, ThreadIndexType):
        return [i64, i1]
    if isinstance(t, PtrType):
        return [GLOBAL_PTR]
    if isinstance(t, SharedArrayType):
        return [SHARED_PTR]
    return [t]


def packed(t: Attribute) -> Attribute:
    """The one value that carries a SIMT value across control flow."""
    parts = expanded(t)
    return parts[0] if len(parts) == 1 else LLVMStructType.from_type_list(parts)


_IN_MEMORY_AS_IS: set[type] = set()
"""The integer and float type classes `memory_type` met (`isinstance` against `AnyFloat`'s
classes goes through an ABC's check; the lowering asks for every load and store)."""


def memory_type(element: Attribute) -> Attribute:
    """The type an element has in memory: integers and floats as they are, `index` as the i64 it
    is on nvptx64 (as `convert-to-llvm` lowers `index`)."""
    cls = type(element)
    if cls in _IN_MEMORY_AS_IS:
        return element
    if isinstance(element, IndexType):
        return i64
    if isinstance(element, IntegerType | AnyFloat):
        _IN_MEMORY_AS_IS.add(cls)
    else:
        raise SimtTypeError(
            f"memory of {element} elements cannot be lowered; use integer or float elements"
        )
    return element


def byte_size(element: Attribute) -> int:
    """The size of one element in memory (i1 takes a byte)."""
    t = memory_type(element)
    width = t.width.data if isinstance(t, IntegerType) else t.bitwidth
    return max(1, (width + 7) // 8)
