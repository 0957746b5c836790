"""Scoped atomics: read-modify-write on an element, returning the old value.

Targets: an `!simt.atomic_slice<T>` (safe: any thread may update any element, atomically; an
index out of range traps), a raw `!simt.ptr<T>` or a `!simt.shared<T, [...]>` array (both only
inside unsafe). A shared (read-only) or disjoint slice is never an atomic target; verify-disjoint
reports it. Scope is `cta`, `gpu` (default) or `sys`; ordering `relaxed` (default), `acquire`,
`release`, `acq_rel` or `seq_cst`.
"""

from __future__ import annotations

from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ferrox.dialects.simt.constraints import atomic_target_of
from ferrox.dialects.simt.types import SharedArrayType


class Scope(StrEnum):
    CTA = auto()
    GPU = auto()
    SYS = auto()


class Ordering(StrEnum):
    RELAXED = auto()
    ACQUIRE = auto()
    RELEASE = auto()
    ACQ_REL = auto()
    SEQ_CST = auto()


@irdl_attr_definition
class ScopeAttr(EnumAttribute[Scope], SpacedOpaqueSyntaxAttribute):
    """`cta` | `gpu` | `sys` (generic form `#simt<scope gpu>`)."""

    name = "simt.scope"


@irdl_attr_definition
class OrderingAttr(EnumAttribute[Ordering], SpacedOpaqueSyntaxAttribute):
    """`relaxed` | `acquire` | `release` | `acq_rel` | `seq_cst` (generic form
    `#simt<ordering relaxed>`)."""

    name = "simt.ordering"


DEFAULT_SCOPE = ScopeAttr(Scope.GPU)
DEFAULT_ORDERING = OrderingAttr(Ordering.RELAXED)
_TAIL = "(`scope` $scope^)? (`ordering` $ordering^)? attr-dict `:` type($target)"


def _check(op: IRDLOperation, target: SSAValue, indices, value_type, ints_only: bool) -> None:
    want = len(target.type.get_shape()) if isinstance(target.type, SharedArrayType) else 1
    if len(indices) != want:
        raise VerifyException(
            f"'{op.name}' needs {want} indices for {target.type}, got {len(indices)}"
        )
    if ints_only and not isinstance(value_type, IntegerType):
        raise VerifyException(f"'{op.name}' needs an integer element type, found {value_type}")
    if not isinstance(value_type, IntegerType | AnyFloat):
        raise VerifyException(
            f"'{op.name}' needs an integer or float element type, found {value_type}"
        )


class AtomicRMWOp(IRDLOperation):
    """`%old = simt.atomic_<kind> %t[%i], %v [scope S] [ordering O] : TARGET`."""

    T: ClassVar = VarConstraint("T", AnyAttr())
    INTS_ONLY: ClassVar[bool] = False

    target = operand_def(atomic_target_of(T))
    indices = var_operand_def(IndexType())
    value = operand_def(T)
    scope = opt_prop_def(ScopeAttr, default_value=DEFAULT_SCOPE)
    ordering = opt_prop_def(OrderingAttr, default_value=DEFAULT_ORDERING)
    result = result_def(T)

    assembly_format = "$target `[` $indices `]` `,` $value " + _TAIL

    def __init__(
        self,
        target: SSAValue,
        indices: list[SSAValue],
        value: SSAValue,
        scope: Scope = Scope.GPU,
        ordering: Ordering = Ordering.RELAXED,
    ):
        super().__init__(
            operands=[target, indices, value],
            result_types=[value.type],
            properties={"scope": ScopeAttr(scope), "ordering": OrderingAttr(ordering)},
        )

    def verify_(self) -> None:
        _check(self, self.target, self.indices, self.value.type, self.INTS_ONLY)


@irdl_op_definition
class AtomicAddOp(AtomicRMWOp):
    name = "simt.atomic_add"


@irdl_op_definition
class AtomicSubOp(AtomicRMWOp):
    name = "simt.atomic_sub"
    INTS_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AtomicMinOp(AtomicRMWOp):
    name = "simt.atomic_min"


@irdl_op_definition
class AtomicMaxOp(AtomicRMWOp):
    name = "simt.atomic_max"


@irdl_op_definition
class AtomicAndOp(AtomicRMWOp):
    name = "simt.atomic_and"
    INTS_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AtomicOrOp(AtomicRMWOp):
    name = "simt.atomic_or"
    INTS_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AtomicXorOp(AtomicRMWOp):
    name = "simt.atomic_xor"
    INTS_ONLY: ClassVar[bool] = True


@irdl_op_definition
class AtomicExchOp(AtomicRMWOp):
    name = "simt.atomic_exch"


@irdl_op_definition
class AtomicCasOp(IRDLOperation):
    """`%old = simt.atomic_cas %t[%i], %expected, %new [scope S] [ordering O] : TARGET`: stores
    `%new` where the element equals `%expected`; returns the old element either way."""

    name = "simt.atomic_cas"

    T: ClassVar = VarConstraint("T", AnyAttr())

    target = operand_def(atomic_target_of(T))
    indices = var_operand_def(IndexType())
    expected = operand_def(T)
    value = operand_def(T)
    scope = opt_prop_def(ScopeAttr, default_value=DEFAULT_SCOPE)
    ordering = opt_prop_def(OrderingAttr, default_value=DEFAULT_ORDERING)
    result = result_def(T)

    assembly_format = "$target `[` $indices `]` `,` $expected `,` $value " + _TAIL

    def __init__(
        self,
        target: SSAValue,
        indices: list[SSAValue],
        expected: SSAValue,
        value: SSAValue,
        scope: Scope = Scope.GPU,
        ordering: Ordering = Ordering.RELAXED,
    ):
        super().__init__(
            operands=[target, indices, expected, value],
            result_types=[value.type],
            properties={"scope": ScopeAttr(scope), "ordering": OrderingAttr(ordering)},
        )

    def verify_(self) -> None:
        _check(self, self.target, self.indices, self.value.type, ints_only=True)


ATOMIC_OPS = (
    AtomicAddOp,
    AtomicSubOp,
    AtomicMinOp,
    AtomicMaxOp,
    AtomicAndOp,
    AtomicOrOp,
    AtomicXorOp,
    AtomicExchOp,
    AtomicCasOp,
)
