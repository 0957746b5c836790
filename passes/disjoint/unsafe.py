"""Rule 6: a contracted kernel takes no raw mutable buffer, and raw pointers, shared memory, the
unchecked chunk accesses and named barriers are used only inside a `simt.unsafe` region or an
`unsafe` kernel or function."""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.llvm import LLVMPointerType

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import (
    ATOMIC_OPS,
    SHARED_ACCESS_OPS,
    UNCHECKED_CHUNK_OPS,
    KernelOp,
    NamedBarrierOp,
    PtrLoadOp,
    PtrStoreOp,
    PtrType,
    SharedArrayType,
)
from ferrox.passes.disjoint.common import Context, Function, describe, in_unsafe, type_test

RAW_BUFFERS = (PtrType, MemRefType, LLVMPointerType)
_is_ptr_access = type_test((PtrLoadOp, PtrStoreOp))
_is_atomic = type_test(ATOMIC_OPS)
_is_shared_access = type_test(SHARED_ACCESS_OPS)
_is_unchecked = type_test(UNCHECKED_CHUNK_OPS)
_is_named_barrier = type_test(NamedBarrierOp)


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    if isinstance(fn, KernelOp) and fn.contract is not None:
        for param in fn.params:
            if isinstance(param.type, RAW_BUFFERS):
                engine.error(
                    param,
                    "contracted kernels cannot take a raw mutable buffer: "
                    f"parameter {describe(param)} is {param.type}; "
                    "take a !simt.disjoint_slice or !simt.atomic_slice, "
                    "or drop the contract and launch unsafely",
                )
    for op in ctx.ops(fn):
        if _is_ptr_access(op):
            assert isinstance(op, PtrLoadOp | PtrStoreOp)
            target = op.ptr.type
        elif _is_atomic(op):
            assert isinstance(op, ATOMIC_OPS)
            target = op.target.type
        elif _is_shared_access(op):
            assert isinstance(op, SHARED_ACCESS_OPS)
            target = op.array.type
        elif _is_unchecked(op):
            if not in_unsafe(op, fn):
                engine.error(
                    op,
                    f"'{op.name}' checks neither range nor alignment: it is unsafe and "
                    "requires an unsafe region or kernel",
                )
            continue
        elif _is_named_barrier(op):
            if not in_unsafe(op, fn):
                engine.error(
                    op,
                    "'simt.named_barrier' waits for a count of threads that nothing checks (a "
                    "wrong count hangs the block): it is unsafe and requires an unsafe region "
                    "or kernel",
                )
            continue
        else:
            continue
        if in_unsafe(op, fn):
            continue
        if isinstance(target, PtrType):
            engine.error(
                op, "dereference of raw pointer is unsafe and requires an unsafe region or kernel"
            )
        elif isinstance(target, SharedArrayType):
            engine.error(
                op, "access to shared memory is unsafe and requires an unsafe region or kernel"
            )
