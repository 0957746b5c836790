"""The loop shapes and tests SIMT 9 (`specialize.py`) recognises: ops of a block through
`simt.unsafe`, a round's parity `(iv / S) % 2` and its flip, the first round's `iv != 0`, the
one-thread test `thread_id x == c`, and rule 8's flow with a stage's release counted as a write
of it (`Releases`)."""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Block, Operation, SSAValue

from ferrox.dialects.simt import SharedArrayType, ThreadIdOp, UnsafeOp
from ferrox.passes.disjoint import in_flight
from ferrox.passes.disjoint.common import walk

RULE = "(SIMT 9, docs/safety.md#simt-9)"


def const(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def flat(block: Block) -> list[Operation]:
    """`block`'s ops in order, `simt.unsafe` regions opened in place (they run once, there)."""
    out: list[Operation] = []
    for op in block.ops:
        if isinstance(op, UnsafeOp):
            out.extend(flat(op.body.block))
        else:
            out.append(op)
    return out


def ops_of(region) -> list[Operation]:
    """Every op in `region`, nested ones included, in pre-order."""
    return [o for top in region.block.ops for o in walk(top)]


def shared_operands(op: Operation) -> list[SSAValue]:
    return [v for v in op.operands if isinstance(v.type, SharedArrayType)]


def round_parity(value: SSAValue, loop: scf.ForOp) -> bool:
    """`value` is `(iv / S) % 2` of `loop` (its step the constant S)."""
    rem = value.owner
    if not isinstance(rem, arith.RemUIOp) or const(rem.rhs) != 2:
        return False
    div = rem.lhs.owner
    step = const(loop.step)
    return (
        isinstance(div, arith.DivUIOp)
        and div.lhs is loop.body.block.args[0]
        and step is not None
        and const(div.rhs) == step
    )


def not_first(value: SSAValue, loop: scf.ForOp) -> bool:
    """`value` is `iv != 0` (or `iv > 0`, unsigned) of `loop`, which starts at 0."""
    cmp = value.owner
    if not isinstance(cmp, arith.CmpiOp) or cmp.predicate.value.data not in (1, 8):  # ne, ugt
        return False
    iv = loop.body.block.args[0]
    return cmp.lhs is iv and const(cmp.rhs) == 0 and const(loop.lb) == 0


def flipped_parity(value: SSAValue, loop: scf.ForOp) -> bool:
    """`value` is `((iv / S) % 2) ^ 1` of `loop`."""
    x = value.owner
    if not isinstance(x, arith.XOrIOp):
        return False
    a, b = x.lhs, x.rhs
    return (const(b) == 1 and round_parity(a, loop)) or (const(a) == 1 and round_parity(b, loop))


def elected(pred: SSAValue | None, lo: int, hi: int) -> bool:
    """`pred` is `thread_id x == c` with `lo <= c < hi` (one producer thread)."""
    if pred is None:
        return False
    cmp = pred.owner
    if not isinstance(cmp, arith.CmpiOp) or cmp.predicate.value.data != 0:  # eq
        return False
    for t, c in ((cmp.lhs, cmp.rhs), (cmp.rhs, cmp.lhs)):
        tid = t.owner
        value = const(c)
        if isinstance(tid, ThreadIdOp) and tid.dimension.data == "x" and value is not None:
            return lo <= value < hi
    return False


def before(a: Operation, b: Operation) -> bool:
    """`a` comes before `b` in their (common) block."""
    block = a.parent_block()
    if block is None or b.parent_block() is not block:
        return False
    return block.get_operation_index(a) < block.get_operation_index(b)


class Releases(in_flight._Flow):
    """Rule 8's flow over the kernel, reporting only arrives that free a stage a wgmma in
    flight may read (the rest is `in_flight.check`'s to report)."""

    def __init__(self, engine, frees: dict[int, set[int]], names: dict[int, str]):
        super().__init__(engine)
        self.frees = frees
        self.stage_names = names
        self.mine = False

    def error(self, op: Operation, message: str) -> None:
        if self.mine:
            super().error(op, message)

    def op(self, op: Operation, s: in_flight.State) -> in_flight.State:
        stages = self.frees.get(id(op))
        if stages:
            busy = s.busy()
            hit = sorted(self.stage_names[k] for k in stages if k in busy)
            if hit or in_flight.ANY in busy:
                self.mine = True
                self.error(
                    op,
                    f"'simt.mbarrier_arrive' frees stage {', '.join(hit) or 'a stage'} while a "
                    "wgmma that reads it may be in flight: retire it first ('simt.wgmma_wait' "
                    f"with pending = 0 before the arrive) {RULE}",
                )
                self.mine = False
        return super().op(op, s)


__all__ = [
    "RULE",
    "Releases",
    "before",
    "const",
    "elected",
    "flat",
    "flipped_parity",
    "not_first",
    "ops_of",
    "round_parity",
    "shared_operands",
]
