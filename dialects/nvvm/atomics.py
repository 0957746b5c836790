"""Scoped atomics: `nvvm.atomic.rmw` and `nvvm.atomic.cas`, PTX `atom.<sem>.<scope>.<space>.<op>`.

MLIR's nvvm dialect has no atomics (it uses `llvm.atomicrmw`), so the spelling is ferrox's:

    %old = nvvm.atomic.rmw add %ptr, %v : !llvm.ptr<1>, i32
    %old = nvvm.atomic.rmw fadd %ptr, %f scope = #nvvm.mem_scope<sys> ordering = acq_rel
             : !llvm.ptr<1>, f32
    %old = nvvm.atomic.cas %ptr, %cmp, %new scope = #nvvm.mem_scope<cta> : !llvm.ptr<3>, i32

Both return the value in memory before the operation. The defaults (`gpu` scope, `relaxed`) are
those of a plain PTX `atom`. The pointer's address space picks the state space: generic (0),
global (1) or shared (3).
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntAttr, IntegerType, f32, f64, i32, i64
from xdsl.dialects.llvm import LLVMPointerType
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.nvvm.attributes import (
    AtomicBinOp,
    AtomicBinOpAttr,
    MemOrder,
    MemOrderAttr,
    MemScope,
    MemScopeAttr,
)

ADDRESS_SPACES = {0: "generic", 1: "global", 3: "shared"}
INT_TYPES = (i32, i64)
FLOAT_TYPES = (f32, f64)

_SCOPE_ORDER_FORMAT = "(`scope` `=` qualified($scope)^)? (`ordering` `=` $ordering^)? attr-dict"


def address_space(ptr_type: Attribute) -> int:
    assert isinstance(ptr_type, LLVMPointerType)
    space = ptr_type.addr_space
    return space.data if isinstance(space, IntAttr) else 0


def _verify_pointer(ptr_type: Attribute) -> None:
    space = address_space(ptr_type)
    if space not in ADDRESS_SPACES:
        raise VerifyException(
            f"atomics need a generic (0), global (1) or shared (3) pointer, "
            f"found address space {space}"
        )


class _ScopedAtomic(IRDLOperation):
    scope = prop_def(MemScopeAttr, default_value=MemScopeAttr(MemScope.GPU))
    ordering = prop_def(MemOrderAttr, default_value=MemOrderAttr(MemOrder.RELAXED))


@irdl_op_definition
class AtomicRMWOp(_ScopedAtomic):
    """Atomically apply `bin_op` to `*ptr` and `val`; returns the old value."""

    name = "nvvm.atomic.rmw"
    T: ClassVar = VarConstraint("T", base(IntegerType) | base(type(f32)) | base(type(f64)))
    bin_op = prop_def(AtomicBinOpAttr)
    ptr = operand_def(LLVMPointerType)
    val = operand_def(T)
    res = result_def(T)
    assembly_format = f"$bin_op $ptr `,` $val {_SCOPE_ORDER_FORMAT} `:` type($ptr) `,` type($val)"

    def __init__(
        self,
        bin_op: AtomicBinOp,
        ptr: SSAValue,
        val: SSAValue,
        scope: MemScope = MemScope.GPU,
        ordering: MemOrder = MemOrder.RELAXED,
    ):
        super().__init__(
            operands=[ptr, val],
            result_types=[val.type],
            properties={
                "bin_op": AtomicBinOpAttr(bin_op),
                "scope": MemScopeAttr(scope),
                "ordering": MemOrderAttr(ordering),
            },
        )

    def verify_(self) -> None:
        _verify_pointer(self.ptr.type)
        op, t = self.bin_op.data, self.val.type
        if op == AtomicBinOp.FADD:
            if t not in FLOAT_TYPES:
                raise VerifyException(f"atomic fadd needs an f32 or f64 value, found {t}")
        elif t not in INT_TYPES:
            raise VerifyException(f"atomic {op} needs an i32 or i64 value, found {t}")


@irdl_op_definition
class AtomicCASOp(_ScopedAtomic):
    """Atomically store `new` at `ptr` if it holds `cmp`; returns the old value."""

    name = "nvvm.atomic.cas"
    T: ClassVar = VarConstraint("T", base(IntegerType))
    ptr = operand_def(LLVMPointerType)
    cmp = operand_def(T)
    new = operand_def(T)
    res = result_def(T)
    assembly_format = f"$ptr `,` $cmp `,` $new {_SCOPE_ORDER_FORMAT} `:` type($ptr) `,` type($cmp)"

    def __init__(
        self,
        ptr: SSAValue,
        cmp: SSAValue,
        new: SSAValue,
        scope: MemScope = MemScope.GPU,
        ordering: MemOrder = MemOrder.RELAXED,
    ):
        super().__init__(
            operands=[ptr, cmp, new],
            result_types=[cmp.type],
            properties={"scope": MemScopeAttr(scope), "ordering": MemOrderAttr(ordering)},
        )

    def verify_(self) -> None:
        _verify_pointer(self.ptr.type)
        if self.cmp.type not in INT_TYPES:
            raise VerifyException(f"atomic cas needs an i32 or i64 value, found {self.cmp.type}")
