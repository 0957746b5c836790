"""Scoped atomics to `nvvm.atomic.rmw` / `nvvm.atomic.cas`, keeping the scope and ordering.

The address: an atomic slice's element, after the same trap-unless-in-range check as a load (an
out-of-range atomic traps); a raw pointer's element or a shared array's element, unchecked (both
only in unsafe code). `convert-nvvm-to-llvm` emits the exact PTX `atom.<sem>.<scope>.<space>`.

Operations: `add` is integer `add` or float `fadd` (f32, f64); `sub` is `add` of the negated
value; `min`/`max` are the signed integer ones; `exch` of a float exchanges its bits. PTX atomics
are 32 or 64 bits wide, and there is no float min/max here: those are diagnostics.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from ferrox.dialects import nvvm
from ferrox.dialects.simt import (
    AtomicAddOp,
    AtomicAndOp,
    AtomicCasOp,
    AtomicExchOp,
    AtomicMaxOp,
    AtomicMinOp,
    AtomicOrOp,
    AtomicRMWOp,
    AtomicSubOp,
    AtomicXorOp,
)
from ferrox.dialects.simt.types import SLICE_TYPES, PtrType, SharedArrayType
from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.simt_to_nvvm.shared import shared_element
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter

INT_OPS: dict[type[Operation], nvvm.AtomicBinOp] = {
    AtomicAddOp: nvvm.AtomicBinOp.ADD,
    AtomicSubOp: nvvm.AtomicBinOp.ADD,
    AtomicMinOp: nvvm.AtomicBinOp.MIN,
    AtomicMaxOp: nvvm.AtomicBinOp.MAX,
    AtomicAndOp: nvvm.AtomicBinOp.AND,
    AtomicOrOp: nvvm.AtomicBinOp.OR,
    AtomicXorOp: nvvm.AtomicBinOp.XOR,
    AtomicExchOp: nvvm.AtomicBinOp.XCHG,
}


def _width(t: Attribute) -> int:
    return t.width.data if isinstance(t, IntegerType) else t.bitwidth  # type: ignore[attr-defined]


def _check_width(op: Operation, t: Attribute) -> None:
    if not isinstance(t, IntegerType | AnyFloat) or _width(t) not in (32, 64):
        raise Unsupported(f"PTX atomics are 32 or 64 bits wide; {t} is not")


def target_address(
    e: SimtEmitter, target: SSAValue, indices: list[SSAValue], element: Attribute
) -> SSAValue:
    """The element an atomic updates: range-checked in an atomic slice, unchecked otherwise."""
    if isinstance(target.type, SLICE_TYPES):
        return e.checked_element(target, indices[0], element)
    if isinstance(target.type, PtrType):
        (ptr,) = e.unpack(target)
        return e.element(ptr, [e.to_i64(indices[0])], element)
    assert isinstance(target.type, SharedArrayType)
    return shared_element(e, target, indices)


def _scope(op: Operation) -> tuple[nvvm.MemScope, nvvm.MemOrder]:
    scope = nvvm.MemScope(op.scope.data.value)  # type: ignore[attr-defined]
    ordering = nvvm.MemOrder(op.ordering.data.value)  # type: ignore[attr-defined]
    return scope, ordering


class AtomicRMWToNvvm(RewritePattern):
    OP_TYPES = (AtomicRMWOp,)  # what it can match (`conversion.op_types`)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, AtomicRMWOp):
            return
        t = op.value.type
        _check_width(op, t)
        is_float = isinstance(t, AnyFloat)
        if is_float and isinstance(op, AtomicMinOp | AtomicMaxOp):
            raise Unsupported(f"atomic min/max needs an i32 or i64 element, not {t}")
        e = SimtEmitter.before(rewriter, op)
        address = target_address(e, op.target, list(op.indices), t)
        scope, ordering = _scope(op)
        value = op.value
        if is_float and isinstance(op, AtomicExchOp):
            bits = IntegerType(_width(t))
            new_bits = e(arith.BitcastOp(value, bits))
            old = e(nvvm.AtomicRMWOp(nvvm.AtomicBinOp.XCHG, address, new_bits, scope, ordering))
            rewriter.replace(op, [], [e(arith.BitcastOp(old, t))])
            return
        if is_float:
            kind = nvvm.AtomicBinOp.FADD
        else:
            kind = INT_OPS[type(op)]
            if isinstance(op, AtomicSubOp):
                value = e(arith.SubiOp(e.const(0, t), value))
        rewriter.replace(op, [], [e(nvvm.AtomicRMWOp(kind, address, value, scope, ordering))])


class AtomicCasToNvvm(RewritePattern):
    OP_TYPES = (AtomicCasOp,)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, AtomicCasOp):
            return
        _check_width(op, op.value.type)
        e = SimtEmitter.before(rewriter, op)
        address = target_address(e, op.target, list(op.indices), op.value.type)
        scope, ordering = _scope(op)
        cas = nvvm.AtomicCASOp(address, op.expected, op.value, scope, ordering)
        rewriter.replace(op, [], [e(cas)])


ATOMIC_PATTERNS: tuple[RewritePattern, ...] = (AtomicRMWToNvvm(), AtomicCasToNvvm())
