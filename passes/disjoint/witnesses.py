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
from ferrox.passes.disjoint.common import (
    Context,
    Function,
    describe,
    loop_between,
    order,
    type_test,
)

_STORES = (PtrStoreOp, SharedStoreOp, memref.StoreOp, *ATOMIC_OPS)
_RETURNS = (ReturnOp, func.ReturnOp)
_YIELDS = (YieldOp, scf.YieldOp, scf.ConditionOp)
_CALLS = (CallOp, func.CallOp)
WITNESS_MOVES = (GetMutOp, StoreChunkOp)
"""The guarded writes: each moves its witness (operand 1) and writes the slice (operand 0)."""
_is_move = type_test(WITNESS_MOVES)
_is_runtime_2d = type_test(Index2DRuntimeOp)
_is_witness_type = type_test(ThreadIndexType)


def _witness_values(fn: Function, ctx: Context) -> list[SSAValue]:
    values: list[SSAValue] = []
    for block in _blocks(fn, ctx):
        values.extend(a for a in block.args if _is_witness_type(a.type))
    for op in ctx.ops(fn):
        values.extend(r for r in op.results if _is_witness_type(r.type))
    return values


def _blocks(fn: Function, ctx: Context):
    for region in fn.regions:
        yield from region.blocks
    for op in ctx.ops(fn):
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
    ops = ctx.ops(fn)
    position = {id(op): i for i, op in enumerate(ops)}
    for value in _witness_values(fn, ctx):
        why = _origin(value, fn)
        if why is not None:
            engine.error(
                value,
                f"witness not produced by a trusted index op: {value.type} comes from {why}",
            )
            continue
        _check_uses(value, engine, position)
    moves: list[Operation] = [op for op in ops if _is_move(op)]
    _check_spaces(moves, engine)
    _check_runtime_widths(fn, ops, moves, engine)


def _check_uses(value: SSAValue, engine: DiagnosticEngine, position: dict[int, int]) -> None:
    moves: list[Operation] = []
    reads: list[Operation] = []
    for use in sorted(value.uses, key=lambda u: position.get(id(u.operation), -1)):
        op = use.operation
        if isinstance(op, WITNESS_MOVES) and use.index == 1:
            moves.append(op)
        elif isinstance(op, WitnessValueOp):
            reads.append(op)
        else:
            engine.error(op, _escape(op))
    fresh = value.owner if isinstance(value.owner, Operation) else None
    for i, later in enumerate(moves):
        loop = loop_between(later, value)
        if loop is not None:
            engine.error(
                later,
                "use of moved value: witness",
                [(later, "value moved here, in previous iteration of loop")],
            )
            continue
        for j, earlier in enumerate(moves):
            # "unknown" means both may run, in either order: report it once, at the later one in
            # the text.
            relation = order(earlier, later, fresh) if j != i else "same"
            if relation == "before" or (relation == "unknown" and j < i):
                engine.error(
                    later,
                    "use of moved value: witness",
                    [(earlier, "value moved here"), (later, "value used here after move")],
                )
                break
    for read in reads:
        for move in moves:
            if order(move, read, fresh) in ("before", "unknown"):
                engine.error(
                    read,
                    "borrow of moved value: witness",
                    [(move, "value moved here"), (read, "value borrowed here after move")],
                )
                break


def _check_spaces(moves: list[Operation], engine: DiagnosticEngine) -> None:
    """`moves`: the function's guarded writes, in walk order."""
    for op in moves:
        assert isinstance(op, WITNESS_MOVES)
        witness_type, slice_type = op.witness.type, op.slice.type
        assert isinstance(witness_type, ThreadIndexType)
        if witness_type.space != slice_type.space:  # type: ignore[attr-defined]
            engine.error(
                op,
                f"index space mismatch: expected {slice_type.space}, found {witness_type.space}",  # type: ignore[attr-defined]
            )


def _width_param(fn: Function, op: Index2DRuntimeOp) -> SSAValue | None:
    width = op.width
    if (
        isinstance(fn, KernelOp)
        and isinstance(width, BlockArgument)
        and width.block is fn.body.blocks[0]
    ):
        return width
    return None


def _check_runtime_widths(
    fn: Function, ops: list[Operation], moves: list[Operation], engine: DiagnosticEngine
) -> None:
    """A `2d_runtime` width is a kernel parameter, and every witness that writes one slice has
    the same width: two widths over one slice would give two threads one element. Different
    slices may have different widths. (`ops`: the function's ops, `moves` its guarded writes,
    in walk order.)"""
    for op in ops:
        if _is_runtime_2d(op) and _width_param(fn, op) is None:  # type: ignore[arg-type]
            engine.error(
                op,
                "runtime row width must be a kernel parameter, "
                "so that every thread uses the same width",
            )
    first: dict[SSAValue, tuple[Operation, SSAValue]] = {}
    for op in moves:
        assert isinstance(op, WITNESS_MOVES)
        producer = op.witness.owner
        if not isinstance(producer, Index2DRuntimeOp):
            continue
        width = _width_param(fn, producer)
        if width is None:
            continue
        seen = first.setdefault(op.slice, (op, width))
        if seen[1] is not width:
            name = describe(op.slice)
            engine.error(
                op,
                f"conflicting runtime row widths for {name}: this witness has row width "
                f"{describe(width)}, but {name} is written with row width {describe(seen[1])}; "
                "every witness that writes one slice must use the same width parameter",
                [(seen[0], f"{name} first written here, with row width {describe(seen[1])}")],
            )
