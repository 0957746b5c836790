"""Rules 1-3: witnesses come only from trusted ops, are linear, never escape, and agree with the
index space of the slice they index.

Linearity: `simt.get_mut` moves its witness. A second move is `use of moved value`, unless the two
sit in alternative branches of one `scf.if` / `scf.index_switch`; a move inside a loop that does not
also define the witness moves it again on the next iteration. `simt.witness_value` only reads the
witness (a borrow); a read after the move is `borrow of moved value`. Any other use is an escape.
"""

from __future__ import annotations

from xdsl.dialects import func, memref, scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import (
    ATOMIC_OPS,
    TRUSTED_INDEX_OPS,
    CallOp,
    GetMutOp,
    Index2DRuntimeOp,
    KernelOp,
    PtrStoreOp,
    ReturnOp,
    SharedStoreOp,
    StoreChunkOp,
    ThreadIndexType,
    WitnessValueOp,
    YieldOp,
)
from ferrox.passes.disjoint.common import Context, Function, loop_between, order

_STORES = (PtrStoreOp, SharedStoreOp, memref.StoreOp, *ATOMIC_OPS)
_RETURNS = (ReturnOp, func.ReturnOp)
_YIELDS = (YieldOp, scf.YieldOp, scf.ConditionOp)
_CALLS = (CallOp, func.CallOp)
WITNESS_MOVES = (GetMutOp, StoreChunkOp)
"""The guarded writes: each moves its witness (operand 1) and writes the slice (operand 0)."""


def _witness_values(fn: Function) -> list[SSAValue]:
    values: list[SSAValue] = []
    for block in _blocks(fn):
        values.extend(a for a in block.args if isinstance(a.type, ThreadIndexType))
    for op in fn.walk():
        values.extend(r for r in op.results if isinstance(r.type, ThreadIndexType))
    return values


def _blocks(fn: Function):
    for region in fn.regions:
        yield from region.blocks
    for op in fn.walk():
        if op is fn:
            continue
        for region in op.regions:
            yield from region.blocks


def _origin(value: SSAValue, fn: Function) -> str | None:
    """Why `value` is not a trusted witness, or None when it is."""
    if isinstance(value, BlockArgument):
        if value.block.parent_op() is fn and value.block is fn.body.blocks[0]:
            return "a kernel parameter" if isinstance(fn, KernelOp) else "a function parameter"
        return "a block argument"
    assert isinstance(value.owner, Operation)
    if isinstance(value.owner, TRUSTED_INDEX_OPS):
        return None
    return f"'{value.owner.name}'"


def _escape(use: Operation) -> str:
    if isinstance(use, _STORES):
        return "cannot store a witness to memory"
    if isinstance(use, _RETURNS):
        return "cannot return a witness"
    if isinstance(use, _CALLS):
        return "cannot pass a witness to a call"
    if isinstance(use, _YIELDS):
        return "cannot yield a witness out of its region"
    return (
        f"witness used by '{use.name}': a witness may only index simt.get_mut "
        "or be read by simt.witness_value"
    )


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    for value in _witness_values(fn):
        why = _origin(value, fn)
        if why is not None:
            engine.error(
                value,
                f"witness not produced by a trusted index op: {value.type} comes from {why}",
            )
            continue
        _check_uses(value, engine)
    _check_spaces(fn, engine)
    _check_runtime_widths(fn, engine)


def _check_uses(value: SSAValue, engine: DiagnosticEngine) -> None:
    moves: list[Operation] = []
    reads: list[Operation] = []
    for use in value.uses:
        op = use.operation
        if isinstance(op, WITNESS_MOVES) and use.index == 1:
            moves.append(op)
        elif isinstance(op, WitnessValueOp):
            reads.append(op)
        else:
            engine.error(op, _escape(op))
    for i, later in enumerate(moves):
        loop = loop_between(later, value)
        if loop is not None:
            engine.error(
                later,
                "use of moved value: witness",
                [(later, "value moved here, in previous iteration of loop")],
            )
            continue
        for earlier in moves[:i] + moves[i + 1 :]:
            if order(earlier, later) == "before":
                engine.error(
                    later,
                    "use of moved value: witness",
                    [(earlier, "value moved here"), (later, "value used here after move")],
                )
                break
    for read in reads:
        for move in moves:
            if order(move, read) == "before":
                engine.error(
                    read,
                    "borrow of moved value: witness",
                    [(move, "value moved here"), (read, "value borrowed here after move")],
                )
                break


def _check_spaces(fn: Function, engine: DiagnosticEngine) -> None:
    for op in fn.walk():
        if not isinstance(op, WITNESS_MOVES):
            continue
        witness_type, slice_type = op.witness.type, op.slice.type
        assert isinstance(witness_type, ThreadIndexType)
        if witness_type.space != slice_type.space:  # type: ignore[attr-defined]
            engine.error(
                op,
                f"index space mismatch: expected {slice_type.space}, found {witness_type.space}",  # type: ignore[attr-defined]
            )


def _check_runtime_widths(fn: Function, engine: DiagnosticEngine) -> None:
    first: Index2DRuntimeOp | None = None
    for op in fn.walk():
        if not isinstance(op, Index2DRuntimeOp):
            continue
        width = op.width
        is_param = (
            isinstance(fn, KernelOp)
            and isinstance(width, BlockArgument)
            and width.block is fn.body.blocks[0]
        )
        if not is_param:
            engine.error(
                op,
                "runtime row width must be a kernel parameter, "
                "so that every thread uses the same width",
            )
            continue
        if first is None:
            first = op
        elif first.width is not width:
            engine.error(
                op,
                "conflicting runtime row widths: every simt.index_2d_runtime in a kernel "
                "must use the same width parameter",
                [(first, "first width used here")],
            )
