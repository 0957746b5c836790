"""Shared memory: each `simt.shared_alloc` becomes an addrspace(3) global of its kernel.

`llvm.mlir.global internal @<function>_<name>() {addr_space = 3, alignment = 16}` of an (nested)
LLVM array type, uninitialised (NVPTX cannot initialise `.shared` variables), and the op becomes
its `llvm.mlir.addressof`. Shared memory is never a kernel parameter: the launcher passes global
pointers only, and the driver rejects such modules. The 16-byte alignment allows vector accesses.

`simt.shared_load`/`simt.shared_store` index the array row-major with one GEP over the array type;
they are unchecked (the dialect keeps them inside `unsafe`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from ferrox.dialects.simt import SharedAllocOp, SharedLoadOp, SharedStoreOp
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter
from ferrox.lowering.simt_to_nvvm.types import SHARED, SHARED_PTR, memory_type

ALIGNMENT = 16


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


class SharedAllocToGlobal(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SharedAllocOp, rewriter: PatternRewriter, /) -> None:
        assert isinstance(op.result.type, SharedArrayType)
        global_type = array_type(op.result.type)
        module, kernel = _top_level(op)
        owner = kernel.properties.get("sym_name")
        prefix = owner.data if isinstance(owner, StringAttr) else "shared"
        name = _unique_name(module, f"{prefix}_{op.result.name_hint or 'shared'}")
        glob = llvm.GlobalOp(global_type, name, "internal", addr_space=SHARED, alignment=ALIGNMENT)
        glob.location = op.location
        rewriter.insert(glob, InsertPoint.before(kernel))
        e = SimtEmitter.before(rewriter, op)
        address = e(llvm.AddressOfOp(name, SHARED_PTR))
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
