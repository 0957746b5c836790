"""Atomics and fences, missing from xDSL's llvm dialect: `llvm.atomicrmw`, `llvm.cmpxchg`,
`llvm.fence`.

Spelled as in MLIR, including the synchronisation scope that GPUs need
(`syncscope("block")` is a CTA-scoped atomic on NVPTX):

    %old = llvm.atomicrmw fadd %p, %v syncscope("block") monotonic {alignment = 4 : i64}
             : !llvm.ptr<1>, f32
    %pair = llvm.cmpxchg %p, %cmp, %new acq_rel monotonic : !llvm.ptr<1>, i32
    llvm.fence syncscope("device") acq_rel
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    I64,
    AnyFloat,
    AnyFloatConstr,
    IntegerAttr,
    IntegerType,
    SignlessIntegerConstraint,
    StringAttr,
    UnitAttr,
    VectorType,
    i1,
    i64,
)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    InferenceContext,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)
from xdsl.irdl.constraints import VerificationContext
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.llvm.enums import (
    ACQ_REL,
    FLOAT_BIN_OPS,
    MONOTONIC,
    RELEASE,
    AtomicBinOp,
    AtomicOrdering,
    bin_op_attr,
    bin_op_name,
    ordering_attr,
    ordering_name,
)

_ATOMIC_VALUE = (
    SignlessIntegerConstraint
    | AnyFloatConstr
    | base(LLVMPointerType)
    | VectorType.constr(AnyFloatConstr)
)
_CMPXCHG_VALUE = SignlessIntegerConstraint | base(LLVMPointerType)
_ATOMIC_INT_WIDTHS = (8, 16, 32, 64)


def _common_props(
    syncscope: str | None, alignment: int | None, volatile: bool
) -> dict[str, Attribute | None]:
    return {
        "syncscope": StringAttr(syncscope) if syncscope is not None else None,
        "alignment": IntegerAttr(alignment, i64) if alignment is not None else None,
        "volatile_": UnitAttr() if volatile else None,
    }


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`llvm.atomicrmw`: atomically apply `bin_op` to memory and return the old value."""

    name = "llvm.atomicrmw"

    T: ClassVar = VarConstraint("T", _ATOMIC_VALUE)

    ptr = operand_def(LLVMPointerType)
    val = operand_def(T)
    res = result_def(T)

    bin_op = prop_def(IntegerAttr[I64])
    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)
    alignment = opt_prop_def(IntegerAttr[I64])
    volatile_ = opt_prop_def(UnitAttr)

    custom_directives = (AtomicBinOp, AtomicOrdering)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "(`volatile` $volatile_^)? custom<AtomicBinOp>($bin_op) $ptr `,` $val"
        " (`syncscope` `(` $syncscope^ `)`)? custom<AtomicOrdering>($ordering)"
        " attr-dict `:` type($ptr) `,` type($val)"
    )

    def __init__(
        self,
        bin_op: str,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        ordering: str = "monotonic",
        *,
        syncscope: str | None = None,
        alignment: int | None = None,
        volatile: bool = False,
    ):
        super().__init__(
            operands=[ptr, val],
            result_types=[SSAValue.get(val).type],
            properties={
                "bin_op": bin_op_attr(bin_op),
                "ordering": ordering_attr(ordering),
                **_common_props(syncscope, alignment, volatile),
            },
        )

    @property
    def bin_op_name(self) -> str:
        return bin_op_name(self.bin_op)

    @property
    def ordering_name(self) -> str:
        return ordering_name(self.ordering)

    def verify_(self) -> None:
        op, ty = self.bin_op_name, self.val.type
        if op.startswith("<invalid"):
            raise VerifyException(f"{op}")
        if op in FLOAT_BIN_OPS:
            elem = ty.element_type if isinstance(ty, VectorType) else ty
            if not isinstance(elem, AnyFloat):
                raise VerifyException(f"'{op}' expects a floating point value, got {ty}")
        elif op == "xchg":
            if isinstance(ty, VectorType):
                raise VerifyException(
                    f"'xchg' expects an integer, float or pointer value, got {ty}"
                )
        elif not (isinstance(ty, IntegerType) and ty.width.data in _ATOMIC_INT_WIDTHS):
            raise VerifyException(f"'{op}' expects an i8, i16, i32 or i64 value, got {ty}")
        if self.ordering.value.data < MONOTONIC or self.ordering_name.startswith("<invalid"):
            raise VerifyException(
                f"atomicrmw ordering must be at least 'monotonic', got '{self.ordering_name}'"
            )


@dataclass(frozen=True)
class CmpXchgResult(AttrConstraint[LLVMStructType]):
    """`!llvm.struct<(T, i1)>`, inferred from the exchanged value's type `T`."""

    var: str

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        expected = constraint_context.get_variable(self.var)
        if not (
            isinstance(attr, LLVMStructType)
            and len(attr.types) == 2
            and attr.types.data[1] == i1
            and (expected is None or attr.types.data[0] == expected)
        ):
            value = "T" if expected is None else str(expected)
            raise VerifyException(f"expected !llvm.struct<({value}, i1)>, got {attr}")

    def can_infer(self, var_constraint_names: AbstractSet[str]) -> bool:
        return self.var in var_constraint_names

    def infer(self, context: InferenceContext) -> LLVMStructType:
        value = context.get_variable(self.var)
        assert value is not None
        return LLVMStructType.from_type_list([value, i1])

    def mapping_type_vars(self, type_var_mapping) -> CmpXchgResult:
        return self


@irdl_op_definition
class CmpXchgOp(IRDLOperation):
    """`llvm.cmpxchg`: store `val` if memory holds `cmp`; returns the old value and success flag."""

    name = "llvm.cmpxchg"

    T: ClassVar = VarConstraint("T", _CMPXCHG_VALUE)

    ptr = operand_def(LLVMPointerType)
    cmp = operand_def(T)
    val = operand_def(T)
    res = result_def(CmpXchgResult("T"))

    success_ordering = prop_def(IntegerAttr[I64])
    failure_ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)
    alignment = opt_prop_def(IntegerAttr[I64])
    weak = opt_prop_def(UnitAttr)
    volatile_ = opt_prop_def(UnitAttr)

    custom_directives = (AtomicOrdering,)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "(`weak` $weak^)? (`volatile` $volatile_^)? $ptr `,` $cmp `,` $val"
        " (`syncscope` `(` $syncscope^ `)`)?"
        " custom<AtomicOrdering>($success_ordering) custom<AtomicOrdering>($failure_ordering)"
        " attr-dict `:` type($ptr) `,` type($val)"
    )

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        val: SSAValue | Operation,
        success_ordering: str = "seq_cst",
        failure_ordering: str = "seq_cst",
        *,
        syncscope: str | None = None,
        alignment: int | None = None,
        weak: bool = False,
        volatile: bool = False,
    ):
        value_type = SSAValue.get(val).type
        super().__init__(
            operands=[ptr, cmp, val],
            result_types=[LLVMStructType.from_type_list([value_type, i1])],
            properties={
                "success_ordering": ordering_attr(success_ordering),
                "failure_ordering": ordering_attr(failure_ordering),
                "weak": UnitAttr() if weak else None,
                **_common_props(syncscope, alignment, volatile),
            },
        )

    def verify_(self) -> None:
        success, failure = self.success_ordering.value.data, self.failure_ordering.value.data
        names = ordering_name(self.success_ordering), ordering_name(self.failure_ordering)
        if min(success, failure) < MONOTONIC or any(n.startswith("<invalid") for n in names):
            raise VerifyException(
                f"cmpxchg orderings must be at least 'monotonic', got '{names[0]}' and '{names[1]}'"
            )
        if failure in (RELEASE, ACQ_REL):
            raise VerifyException(f"cmpxchg failure ordering cannot be '{names[1]}'")
        if (
            isinstance(self.val.type, IntegerType)
            and self.val.type.width.data not in _ATOMIC_INT_WIDTHS
        ):
            raise VerifyException(
                f"cmpxchg expects an i8, i16, i32, i64 or pointer value, got {self.val.type}"
            )


@irdl_op_definition
class FenceOp(IRDLOperation):
    """`llvm.fence`: orders memory operations around it, within `syncscope` (default: system)."""

    name = "llvm.fence"

    ordering = prop_def(IntegerAttr[I64])
    syncscope = opt_prop_def(StringAttr)

    custom_directives = (AtomicOrdering,)
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "(`syncscope` `(` $syncscope^ `)`)? custom<AtomicOrdering>($ordering) attr-dict"
    )

    def __init__(self, ordering: str = "seq_cst", syncscope: str | None = None):
        super().__init__(
            properties={
                "ordering": ordering_attr(ordering),
                "syncscope": StringAttr(syncscope) if syncscope is not None else None,
            }
        )

    def verify_(self) -> None:
        name = ordering_name(self.ordering)
        if name not in ("acquire", "release", "acq_rel", "seq_cst"):
            raise VerifyException(
                f"fence ordering must be acquire, release, acq_rel or seq_cst, got '{name}'"
            )
