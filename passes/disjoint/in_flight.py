"""Rule 8's flow half (docs/safety.md#simt-8): no shared tile that a wgmma still in flight may
read is written, and nothing is in flight where the thread leaves the rule's sight.

A `simt.wgmma` reads its two shared tiles (a `simt.wgmma_reg_a` its B tile) asynchronously, from
its issue until the `simt.wgmma_wait` that retires its group. A forward analysis over each
function's structured control flow tracks, at every op, what this thread's warpgroup may have in
flight: the wgmma ops issued since the last `simt.wgmma_commit` (the open group) and the
committed groups, oldest first, each as the set of `simt.shared_alloc` arrays its wgmma ops
read. `simt.wgmma_commit` closes the open group; `simt.wgmma_wait {pending = N}` keeps the
newest N groups (PTX `wgmma.wait_group N`). Joins align the groups by age from the newest (a
wait keeps the newest) and unite them; loops and unknown regions run to a fixpoint (a region may
run any number of times), so a group committed in one iteration and retired in the next is seen
in flight across the back edge. Then:
- an op that writes a shared array (`simt.async_copy`, `simt.shared_store`, `simt.wgmma_store`,
  and any other op with a shared array operand) may not write an allocation that a group in
  flight reads (distinct allocations never overlap; an array that is not a `simt.shared_alloc`
  is taken to overlap every tile);
- a `simt.call`, a `simt.return` and a `simt.wgmma_wait` that would leave wgmma ops uncommitted
  are refused while anything is in flight (a wait does not wait for uncommitted ops).
Reading a tile in flight is fine, and so is a barrier. The accumulators' half of the rule (each
in-flight value used once, by a wgmma, a wait or a yield that carries it) is op-local, in
`dialects/simt/wgmma.py`. Other threads' writes are ordered by barriers, which this rule does not
reason about: shared memory is unsafe code ([SIMT 6]), and the interpreter checks those races.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Block, Operation, Region

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import CallOp
from ferrox.dialects.simt.pipeline import LdMatrixOp, SharedLoadVectorOp
from ferrox.dialects.simt.shared import SharedLoadOp
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.dialects.simt.wgmma import (
    WGMMA_PRODUCT_OPS,
    WgmmaCommitOp,
    WgmmaWaitOp,
    alloc_of,
    producers,
    tiles,
)
from ferrox.dialects.typetest import type_test
from ferrox.passes.disjoint.common import Function

ANY = 0
"""The tile of an array that is not a `simt.shared_alloc`: it may overlap every allocation."""
MAX_GROUPS = 8
"""Groups tracked apart (PTX's wait takes 0 to 7); older ones are merged, which only keeps them
in flight longer (sound)."""
_READERS = (SharedLoadOp, SharedLoadVectorOp, LdMatrixOp, *WGMMA_PRODUCT_OPS)


@dataclass(frozen=True)
class State:
    """The open group and the committed ones, oldest first: each the keys of the allocations
    its wgmma ops read and the `id` of each of those ops (a wait's `retired` claim is checked
    against them; an op's id is never an allocation's, both objects being alive)."""

    groups: tuple[frozenset[int], ...] = ()
    open: frozenset[int] = frozenset()

    def busy(self) -> frozenset[int]:
        out = self.open
        for g in self.groups:
            out = out | g
        return out

    def join(self, other: State) -> State:
        a, b = self.groups, other.groups
        n = max(len(a), len(b))
        a = (frozenset(),) * (n - len(a)) + a
        b = (frozenset(),) * (n - len(b)) + b
        return State(tuple(x | y for x, y in zip(a, b, strict=True)), self.open | other.open)


def _cap(groups: tuple[frozenset[int], ...]) -> tuple[frozenset[int], ...]:
    while len(groups) > MAX_GROUPS:
        groups = (groups[0] | groups[1], *groups[2:])
    return groups


class _Flow:
    def __init__(self, engine: DiagnosticEngine):
        self.engine = engine
        self.report = False  # only the last pass over a fixpoint reports
        self.reported: set[int] = set()
        self.names: dict[int, str] = {}

    def key(self, array) -> int:
        alloc = alloc_of(array)
        if alloc is None:
            return ANY
        self.names[id(alloc)] = f"%{array.name_hint}" if array.name_hint else "a shared array"
        return id(alloc)

    def error(self, op: Operation, message: str) -> None:
        if self.report and id(op) not in self.reported:
            self.reported.add(id(op))
            self.engine.error(op, message)

    # --- transfer ------------------------------------------------------------------------------
    def op(self, op: Operation, s: State) -> State:
        if isinstance(op, WGMMA_PRODUCT_OPS):
            return State(s.groups, s.open | {self.key(t) for t in tiles(op)} | {id(op)})
        if isinstance(op, WgmmaCommitOp):
            return State(_cap((*s.groups, s.open)), frozenset())
        if isinstance(op, WgmmaWaitOp):
            if s.open:
                self.error(
                    op,
                    "'simt.wgmma_wait' waits only for committed groups: commit the wgmma ops "
                    "issued before it with 'simt.wgmma_commit' first",
                )
            n = op.pending.value.data
            kept = State(s.groups[len(s.groups) - n :] if n else (), s.open)
            self.retires(op, kept.busy())
            return kept
        busy = s.busy()
        if busy and (isinstance(op, CallOp) or op.name == "simt.return"):
            self.error(
                op,
                f"'{op.name}' while wgmma ops may be in flight: retire them first with "
                "'simt.wgmma_commit' then 'simt.wgmma_wait' with pending = 0",
            )
        if busy and not isinstance(op, _READERS):
            self.writes(op, busy)
        return self.regions(op, s) if op.regions else s

    def retires(self, op: WgmmaWaitOp, busy: frozenset[int]) -> None:
        """A wait's `retired = K` claim: no wgmma its first K operands may come from is in a
        group the wait leaves pending."""
        for k, v in enumerate(op.values[: op.retired_count]):
            if producers(v) & busy:
                self.error(
                    op,
                    f"operand {k} of 'simt.wgmma_wait' is named retired (retired = "
                    f"{op.retired_count}) but may come from a wgmma of a group the wait leaves "
                    f"pending (pending = {op.pending.value.data}): commit that group before the "
                    "ones left pending, or wait with a smaller pending",
                )
                return

    def writes(self, op: Operation, busy: frozenset[int]) -> None:
        for v in op.operands:
            if not isinstance(v.type, SharedArrayType):
                continue
            key = self.key(v)
            if key == ANY or ANY in busy:
                self.error(
                    op,
                    f"'{op.name}' writes shared memory that a wgmma in flight may read (the "
                    "rule tells tiles apart only by their 'simt.shared_alloc'): retire the "
                    "wgmma's group first with 'simt.wgmma_wait'",
                )
            elif key in busy:
                self.error(
                    op,
                    f"'{op.name}' writes {self.names[key]} while a wgmma that reads it may be in "
                    "flight: retire that wgmma's group first ('simt.wgmma_wait' with a smaller "
                    "pending), or write another allocation",
                )

    def regions(self, op: Operation, s: State) -> State:
        if op.name == "simt.unsafe":  # runs once
            return self.region(op.regions[0], s)
        if op.name == "scf.if":
            out = self.region(op.regions[0], s)
            return out.join(self.region(op.regions[1], s) if op.regions[1].blocks else s)
        # A loop or an op whose regions may run any number of times, in any order.
        report, self.report = self.report, False
        entry = s
        while True:
            out = entry
            for region in op.regions:
                out = out.join(self.region(region, entry))
            if out == entry:
                break
            entry = out
        self.report = report
        for region in op.regions:
            self.region(region, entry)
        return entry

    def region(self, region: Region, s: State) -> State:
        blocks = list(region.blocks)
        if not blocks:
            return s
        if len(blocks) == 1:
            return self.block(blocks[0], s)
        # Branches: any block may follow any other.
        report, self.report = self.report, False
        entry = s
        while True:
            out = entry
            for b in blocks:
                out = out.join(self.block(b, entry))
            if out == entry:
                break
            entry = out
        self.report = report
        for b in blocks:
            self.block(b, entry)
        return entry

    def block(self, block: Block, s: State) -> State:
        for op in block.ops:
            s = self.op(op, s)
        return s


_is_wgmma = type_test((*WGMMA_PRODUCT_OPS, WgmmaCommitOp, WgmmaWaitOp))


def check(fn: Function, ops: list[Operation], engine: DiagnosticEngine) -> None:
    """Rule 8's flow half over `fn` (whose ops, in walk order, are `ops`)."""
    if not any(map(_is_wgmma, ops)):
        return
    flow = _Flow(engine)
    flow.report = True
    flow.region(fn.body, State())  # every way out is a simt.return, which reports what is left
