"""memref -> llvm for what kernels use: `alloca`, `load` and `store` on static shapes.

A static memref is a bare pointer (see `types`), so an access is one `getelementptr inbounds`
at the row-major linear index (sum of index * static stride) and a load or store.
`memref.alloca` is thread-private memory (PTX `.local`) and so only in the generic space.
"""

from __future__ import annotations

from xdsl.dialects import llvm, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, VectorType, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.to_llvm.support import legal_operands, replace_op
from ferrox.lowering.to_llvm.types import convert_type, is_static_memref, memref_address_space


def _static(t: Attribute) -> MemRefType:
    if not isinstance(t, MemRefType) or not is_static_memref(t):
        raise Unsupported(f"only statically shaped memrefs with the identity layout, got {t}")
    return t


def _byte_size(t: Attribute) -> int:
    if isinstance(t, VectorType):
        n = 1
        for d in t.get_shape():
            n *= d
        return n * _byte_size(t.element_type)
    width = getattr(t, "bitwidth", None)
    if not isinstance(width, int):
        raise Unsupported(f"element type {t} has no known size")
    return max(1, width // 8)


def _strides(shape: tuple[int, ...]) -> list[int]:
    strides, step = [], 1
    for d in reversed(shape):
        strides.append(step)
        step *= d
    return list(reversed(strides))


def _element_pointer(
    ptr: SSAValue, indices: list[SSAValue], t: MemRefType, ops: list[Operation]
) -> SSAValue:
    """The address of element `indices` of `t` at `ptr`; appends the ops it needs to `ops`."""
    if not indices:
        return ptr
    linear: SSAValue | None = None
    for index, stride in zip(indices, _strides(t.get_shape())):
        term = index
        if stride != 1:
            c = llvm.ConstantOp(IntegerAttr(stride, i64), i64)
            mul = llvm.MulOp(index, c.result)
            ops += [c, mul]
            term = mul.res
        if linear is None:
            linear = term
        else:
            add = llvm.AddOp(linear, term)
            ops.append(add)
            linear = add.res
    assert linear is not None
    gep = llvm.GEPOp(
        ptr,
        [llvm.GEP_USE_SSA_VAL],
        convert_type(t.element_type),
        ssa_indices=[linear],
        result_type=ptr.type,  # keeps the address space
        inbounds=True,
    )
    ops.append(gep)
    return gep.result


class AllocaToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.AllocaOp, rewriter: PatternRewriter, /) -> None:
        t = _static(op.memref.type)
        if memref_address_space(t) != 0:
            raise Unsupported(
                "memref.alloca allocates thread-private memory; memory space "
                f"{memref_address_space(t)} cannot be allocated on the stack"
            )
        element = convert_type(t.element_type)
        count = 1
        for d in t.get_shape():
            count *= d
        size = llvm.ConstantOp(IntegerAttr(count, i64), i64)
        align = op.alignment.value.data if op.alignment is not None else _byte_size(element)
        alloca = llvm.AllocaOp(size.result, element, alignment=align)
        replace_op(rewriter, op, [size, alloca])


class LoadToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.LoadOp, rewriter: PatternRewriter, /) -> None:
        t = _static(op.memref.type)
        element = convert_type(t.element_type)
        ptr, *indices = legal_operands(rewriter, [op.memref, *op.indices])
        ops: list[Operation] = []
        address = _element_pointer(ptr, indices, t, ops)
        ops.append(llvm.LoadOp(address, element))
        replace_op(rewriter, op, ops)


class StoreToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.StoreOp, rewriter: PatternRewriter, /) -> None:
        t = _static(op.memref.type)
        value, ptr, *indices = legal_operands(rewriter, [op.value, op.memref, *op.indices])
        ops: list[Operation] = []
        address = _element_pointer(ptr, indices, t, ops)
        ops.append(llvm.StoreOp(value, address))
        replace_op(rewriter, op, ops, [])


MEMREF_PATTERNS: tuple[RewritePattern, ...] = (AllocaToLLVM(), LoadToLLVM(), StoreToLLVM())
