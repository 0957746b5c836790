"""Rule 4: a disjoint slice is written only through `simt.get_mut`; it is never read, never
passed where a shared slice is expected, and never the target of an atomic. A shared slice is
read-only, so it is no atomic target either; an atomic slice is touched only by atomics.

Allowed uses: disjoint - `simt.get_mut` or `simt.store_chunk` (as the slice), `simt.len`, and
`simt.call` to a parameter of the same disjoint type; shared - `simt.load`, `simt.load_chunk`,
`simt.len`, `simt.call`; atomic - atomics, `simt.len`, `simt.call`. Any slice may be tested by
`simt.slice_aligned`; the unchecked chunk ops (a disjoint slice's store, a shared slice's load)
are allowed here and kept in unsafe code by rule 6 (`unsafe.py`).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import (
    ATOMIC_OPS,
    AsyncCopyOp,
    AtomicSliceType,
    CallOp,
    DisjointSliceType,
    GetMutOp,
    LenOp,
    LoadChunkOp,
    LoadOp,
    SliceAlignedOp,
    SliceType,
    StoreChunkOp,
    UncheckedAsyncCopyOp,
    UncheckedLoadChunkOp,
    UncheckedStoreChunkOp,
)
from ferrox.dialects.simt.tma import TmaLoadOp
from ferrox.passes.disjoint.common import Context, Function, describe, type_test

_is_slice_type = type_test((SliceType, DisjointSliceType, AtomicSliceType))


def _slice_values(fn: Function, ctx: Context) -> list[SSAValue]:
    values: list[SSAValue] = []
    for op in ctx.ops(fn):
        for region in op.regions:
            for block in region.blocks:
                values.extend(a for a in block.args if _is_slice_type(a.type))
        values.extend(r for r in op.results if _is_slice_type(r.type))
    return values


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    for value in _slice_values(fn, ctx):
        for use in value.uses:
            message = _violation(value, use.operation, use.index, ctx)
            if message is not None:
                engine.error(use.operation, message)


def _violation(value: SSAValue, op: Operation, index: int, ctx: Context) -> str | None:
    t = value.type
    name = describe(value)
    if isinstance(op, LenOp | SliceAlignedOp):
        return None
    if isinstance(op, CallOp):
        callee = ctx.callee(op)
        if callee is None:
            return None
        expected = callee.function_type.inputs.data[index]
        if isinstance(t, DisjointSliceType) and isinstance(expected, SliceType):
            return (
                f"mismatched types: expected {expected}, found {t}: a disjoint slice is never "
                "passed where a shared slice is expected"
            )
        return None
    if isinstance(t, DisjointSliceType):
        if isinstance(op, GetMutOp | StoreChunkOp | UncheckedStoreChunkOp) and index == 0:
            return None
        if isinstance(op, LoadOp):
            return (
                f"cannot read disjoint slice {name}: "
                "it is written only through simt.get_mut, never read"
            )
        if isinstance(op, ATOMIC_OPS):
            return (
                f"cannot update disjoint slice {name} atomically: it is written only through "
                "simt.get_mut; take an !simt.atomic_slice for shared updates"
            )
        return (
            f"disjoint slice {name} cannot be used by '{op.name}': "
            "it is written only through simt.get_mut"
        )
    if isinstance(t, SliceType):
        if isinstance(op, LoadOp | LoadChunkOp | UncheckedLoadChunkOp) or (
            isinstance(op, AsyncCopyOp | UncheckedAsyncCopyOp | TmaLoadOp) and index == 0
        ):
            return None  # reads (an async copy's operand 0 is checked as a chunk load, an
            # unchecked one's is vouched for by its unsafe region, as every shared access, a TMA
            # load's by the runtime's tensor map: docs/safety.md#tma-loads)
        if isinstance(op, ATOMIC_OPS):
            return (
                f"cannot update shared slice {name} atomically: a shared slice is read-only; "
                "take an !simt.atomic_slice instead"
            )
        return f"shared slice {name} cannot be used by '{op.name}': it is only read, with simt.load"
    if isinstance(t, AtomicSliceType):
        if isinstance(op, ATOMIC_OPS) and index == 0:
            return None
        if isinstance(op, LoadOp):
            return (
                f"cannot read atomic slice {name} with simt.load: "
                "other threads update it; use an atomic"
            )
        return f"atomic slice {name} cannot be used by '{op.name}': it is updated only by atomics"
    return None
