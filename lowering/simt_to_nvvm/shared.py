"""Shared memory: each static `simt.shared_alloc` becomes an addrspace(3) global of its kernel,
each dynamic one an offset into the module's `.extern .shared` array.

`llvm.mlir.global internal @<function>_<name>() {addr_space = 3, alignment = A}` of an (nested)
LLVM array type, uninitialised (NVPTX cannot initialise `.shared` variables), and the op becomes
its `llvm.mlir.addressof`. Shared memory is never a kernel parameter: the launcher passes global
pointers only, and the driver rejects such modules. `A` is the op's alignment (16, which allows
vector accesses, or its `{align}`): PTX `.shared .align A`.

A dynamic array (`{dynamic}`) is `ferrox_dynamic_shared + offset`, where
`ferrox_dynamic_shared` is `llvm.mlir.global external` of `!llvm.array<0 x i8>` in addrspace(3)
(PTX `.extern .shared .align 1024 .b8 ferrox_dynamic_shared[]`, the block's dynamic shared
memory, its base as aligned as any `{align}` may ask) and the offset is the array's place in
`dynamic_layout`, a multiple of its alignment (the kernel's contract provides the bytes: the
kernel verifier checks it).

`simt.shared_load`/`simt.shared_store` index the array row-major with one GEP over the array type;
they are unchecked (the dialect keeps them inside `unsafe`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i8,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from ferrox.dialects.simt import SharedAllocOp, SharedLoadOp, SharedStoreOp
from ferrox.dialects.simt.shared import MAX_ALIGNMENT, dynamic_layout
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter
from ferrox.lowering.simt_to_nvvm.types import SHARED, SHARED_PTR, memory_type

DYNAMIC_GLOBAL = "ferrox_dynamic_shared"
OFFSET_ATTR = "ferrox.dynamic_offset"
"""Set on every dynamic alloc of a kernel when the first is lowered: its byte offset."""


def array_type(t: SharedArrayType) -> Attribute:
    """`!llvm.array<d0 x array<d1 x T>>` for `!simt.shared<T, [d0, d1]>`."""
    result = memory_type(t.get_element_type())
    for d in reversed(t.get_shape()):
        result = llvm.LLVMArrayType(d, result)
    return result


def _top_level(op: Operation) -> tuple[ModuleOp, Operation]:
    """The module and the op directly in it (the kernel) that contain `op`."""
    child = op
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, ModuleOp):
        child, parent = parent, parent.parent_op()
    if parent is None:
        raise Unsupported("shared memory needs an enclosing module to hold its global")
    return parent, child


def _unique_name(module: ModuleOp, base: str) -> str:
    name, n = base, 0
    while SymbolTable.lookup_symbol(module, name) is not None:
        n += 1
        name = f"{base}_{n}"
    return name


def _dynamic_offset(kernel: Operation, op: SharedAllocOp) -> int:
    """`op`'s offset in the dynamic region; the first dynamic alloc lowered in a kernel, in any
    walk order (none is lowered yet, so the layout sees them all), annotates every one."""
    if OFFSET_ATTR not in op.attributes:
        offsets, _ = dynamic_layout(kernel)
        if op not in offsets:
            raise AssertionError("a dynamic shared array lowered after its kernel's layout")
        for alloc, offset in offsets.items():
            alloc.attributes[OFFSET_ATTR] = IntegerAttr(offset, i64)
    attr = op.attributes[OFFSET_ATTR]
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


class SharedAllocToGlobal(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SharedAllocOp, rewriter: PatternRewriter, /) -> None:
        assert isinstance(op.result.type, SharedArrayType)
        if op.is_dynamic:
            self._dynamic(op, rewriter)
            return
        global_type = array_type(op.result.type)
        module, kernel = _top_level(op)
        owner = kernel.properties.get("sym_name")
        prefix = owner.data if isinstance(owner, StringAttr) else "shared"
        name = _unique_name(module, f"{prefix}_{op.result.name_hint or 'shared'}")
        glob = llvm.GlobalOp(
            global_type, name, "internal", addr_space=SHARED, alignment=op.alignment
        )
        glob.location = op.location
        rewriter.insert(glob, InsertPoint.before(kernel))
        e = SimtEmitter.before(rewriter, op)
        address = e(llvm.AddressOfOp(name, SHARED_PTR))
        rewriter.replace(op, [], [e.pack([address], op.result.type)])

    def _dynamic(self, op: SharedAllocOp, rewriter: PatternRewriter) -> None:
        module, kernel = _top_level(op)
        offset = _dynamic_offset(kernel, op)
        if SymbolTable.lookup_symbol(module, DYNAMIC_GLOBAL) is None:
            glob = llvm.GlobalOp(
                llvm.LLVMArrayType(0, i8),
                DYNAMIC_GLOBAL,
                "external",
                addr_space=SHARED,
                alignment=MAX_ALIGNMENT,
            )
            glob.location = op.location
            rewriter.insert(glob, InsertPoint.at_start(module.body.block))
        e = SimtEmitter.before(rewriter, op)
        base = e(llvm.AddressOfOp(DYNAMIC_GLOBAL, SHARED_PTR))
        address = e.element(base, [offset], i8, inbounds=True) if offset else base
        rewriter.replace(op, [], [e.pack([address], op.result.type)])


def shared_element(e: SimtEmitter, array: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    """The address of `array[indices]` in shared memory (unchecked)."""
    assert isinstance(array.type, SharedArrayType)
    (base,) = e.unpack(array)
    return e.element(base, [0, *(e.to_i64(i) for i in indices)], array_type(array.type))


class SharedLoadToLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SharedLoadOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        address = shared_element(e, op.array, op.indices)
        rewriter.replace(op, [], [e.load(address, op.result.type)])


class SharedStoreToStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SharedStoreOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        e.store(op.value, shared_element(e, op.array, op.indices))
        rewriter.erase(op)


SHARED_PATTERNS: tuple[RewritePattern, ...] = (
    SharedAllocToGlobal(),
    SharedLoadToLoad(),
    SharedStoreToStore(),
)
