"""SIMT rule 7 at the tile level: where the barriers and warp collectives of a tile op may go.

A tile kernel's control flow stays control flow in its SIMT kernel (`control_flow.py`), so the
barriers and shuffles a `tile.reduce_*`, a `tile.mma` or a layout exchange lowers to sit under
the same `scf.if` and `scf.for` as the tile op. That is sound only where every thread of the
block takes the same path. Before lowering a kernel, `analyse` runs the uniformity analysis
(`passes/analysis/uniformity.py`) over the tile kernel with `tile_rule` for the tile ops it does
not know; after lowering each tile op, `check` compares what the op emitted (a barrier needs
the block, a warp collective the warp) with how uniformly the op is reached, and refuses it at
the tile op, with the deciding construct as the note.

`tile_rule` gives the tile scalars their level as the lowered SIMT kernel shows it, so that what
passes here also passes `verify-disjoint` on the lowered kernel: `tile.block_id` is the block's
(`simt.block_id`), `tile.num_blocks` and `tile.dim` the grid's (a grid dimension, a kernel
parameter). A `tile.extract` is left divergent: its value is the same on every thread by the
lowering's construction (a replicated layout), but in SIMT it comes out of shuffles and shared
memory, which the analysis does not prove uniform.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.ir import Operation, SSAValue

from ferrox.dialects import simt, tile
from ferrox.passes.analysis.uniformity import Level, Uniformity, uniformity


def tile_rule(op: Operation, analysis: Uniformity) -> list[Level] | None:
    """The level of a tile op's results the analysis does not know by itself (None: divergent)."""
    if isinstance(op, tile.BlockIdOp):
        return [Level.BLOCK]
    if isinstance(op, tile.NumBlocksOp | tile.DimOp):
        return [Level.GRID]
    return None


def analyse(kernel: tile.KernelOp, threads: int) -> Uniformity:
    """How uniformly each op of `kernel` is reached, for a block of `threads` threads."""
    return uniformity(kernel, block=(threads, 1, 1), rule=tile_rule)


def need_of(op: Operation) -> Level | None:
    """What an emitted SIMT op needs of its control flow (None: nothing). By class, answered
    once per class: the lowering asks it of every op it emits, and `isinstance` against op
    classes goes through an ABC each time."""
    cls = type(op)
    found = _NEEDS.get(cls, _UNKNOWN)
    if found is _UNKNOWN:
        if len(_NEEDS) >= 1024:  # (classes made at run time, a test's, add one each)
            _NEEDS.clear()
        found = _NEEDS[cls] = _need_of_class(cls)
    return found  # type: ignore[return-value]


def _need_of_class(cls: type[Operation]) -> Level | None:
    if issubclass(cls, simt.SyncThreadsOp):
        return Level.BLOCK
    if issubclass(cls, simt.CONVERGENT_WARP_OPS):
        return Level.WARP
    return None


_UNKNOWN = object()
_NEEDS: dict[type[Operation], Level | None] = {}


@dataclass
class Divergent(Exception):
    """A tile op whose lowering needs more uniform control flow than it has."""

    op: Operation
    message: str
    notes: list[tuple[Operation, str]] = field(default_factory=list[tuple[Operation, str]])


EXTRACT_NOTE = (
    "it is computed from a value read out of a tile here, which is the same on every thread "
    "but is not proven uniform once lowered (it comes out of shuffles and shared memory)"
)


def _extracted(value: SSAValue | None) -> Operation | None:
    """The `tile.extract` that `value` is computed from through scalar arithmetic, if any."""
    seen: set[SSAValue] = set()
    todo = [value] if value is not None else []
    while todo:
        v = todo.pop()
        if v in seen or not isinstance(v.owner, Operation):
            continue
        seen.add(v)
        if isinstance(v.owner, tile.ExtractOp):
            return v.owner
        if v.owner.dialect_name() in ("arith", "math"):
            todo.extend(v.owner.operands)
    return None


_WHAT = {
    Level.BLOCK: "a barrier, which every thread of the tile block must reach together",
    Level.WARP: "warp collectives, which every lane of a warp must reach together",
}


def check(analysis: Uniformity | None, op: Operation, need: Level | None) -> None:
    """Raise `Divergent` if `op`, whose lowering needs `need`, is reached less uniformly."""
    if analysis is None or need is None or analysis.control(op) >= need:
        return
    decision = analysis.divergence(op, need)
    notes = [(decision.op, decision.note(need))] if decision is not None else []
    source = _extracted(decision.value) if decision is not None else None
    if source is not None:
        notes.append((source, EXTRACT_NOTE))
    message = f"'{op.name}' under divergent control flow: it lowers to {_WHAT[need]}"
    raise Divergent(op, message, notes)


__all__ = ["Divergent", "analyse", "check", "need_of", "tile_rule"]
