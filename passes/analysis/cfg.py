"""The control-flow graph of one region: its blocks, the edges their terminators name, what
reaches what, post-dominance and control dependence.

A region of one block has no edges. Blocks whose terminator has no successor leave the region
(a return, a yield); a block from which no exit is reachable (an endless loop) is given an edge
to the exit as well, so that post-dominance is defined for every block, as in LLVM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.dialects import cf
from xdsl.ir import Block, Operation, Region, SSAValue

EXIT = -1
"""The virtual exit node of a region's graph."""


def successor_operands(term: Operation, i: int) -> Sequence[SSAValue] | None:
    """The values `term` passes to its i-th successor's arguments, or None when the op is not one
    whose forwarding is known."""
    if isinstance(term, cf.BranchOp):
        return tuple(term.arguments)
    if isinstance(term, cf.ConditionalBranchOp):
        return tuple(term.then_arguments if i == 0 else term.else_arguments)
    if isinstance(term, cf.SwitchOp):
        if i == 0:
            return tuple(term.default_operands)
        return tuple(term.case_operand[i - 1])
    return None


def branch_condition(term: Operation) -> SSAValue | None:
    """The value that decides which successor a `cf` branch takes (None for other ops)."""
    if isinstance(term, cf.ConditionalBranchOp):
        return term.cond
    if isinstance(term, cf.SwitchOp):
        return term.flag
    return None


@dataclass
class RegionGraph:
    """The blocks of a region as nodes 0..n-1 (0 is the entry), with `EXIT` as the sink."""

    blocks: list[Block]
    succs: list[list[int]] = field(default_factory=list[list[int]])
    index: dict[int, int] = field(default_factory=dict[int, int])
    _pdom: list[set[int]] | None = None
    _reach: list[set[int]] | None = None

    @staticmethod
    def of(region: Region) -> RegionGraph:
        blocks = list(region.blocks)
        graph = RegionGraph(blocks, index={id(b): i for i, b in enumerate(blocks)})
        for block in blocks:
            term = block.last_op
            succs: list[int] = []
            if term is not None:
                for s in term.successors:
                    j = graph.index.get(id(s))
                    if j is not None and j not in succs:
                        succs.append(j)
            graph.succs.append(succs)
        return graph

    def node(self, block: Block) -> int:
        return self.index[id(block)]

    def terminator(self, node: int) -> Operation | None:
        return self.blocks[node].last_op

    def branches(self, node: int) -> bool:
        """Whether the block's terminator chooses between two or more blocks."""
        return len(self.succs[node]) > 1

    def reachable(self, node: int) -> set[int]:
        """The blocks reachable from `node` through one or more edges."""
        if self._reach is None:
            self._reach = [self._search(self.succs[n], avoid=None) for n in range(len(self.blocks))]
        return self._reach[node]

    def reaches(self, src: int, dst: int, avoid: int | None = None) -> bool:
        """Whether a path of one or more edges leads from `src` to `dst` without entering
        `avoid`."""
        if avoid is None:
            return dst in self.reachable(src)
        return dst in self._search(self.succs[src], avoid)

    def on_cycle_avoiding(self, node: int, avoid: int | None) -> bool:
        """Whether `node` reaches itself again along a path that does not enter `avoid`."""
        return node in self._search(self.succs[node], avoid)

    def _search(self, start: list[int], avoid: int | None) -> set[int]:
        seen: set[int] = set()
        stack = [s for s in start if s != avoid]
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            stack.extend(s for s in self.succs[n] if s != avoid and s not in seen)
        return seen

    def _exit_succs(self) -> list[list[int]]:
        """Successors with the exit edges: from blocks that leave the region, and from blocks
        that cannot reach any such block."""
        n = len(self.blocks)
        out = [list(s) for s in self.succs]
        leaving = {i for i in range(n) if not self.succs[i]}
        for i in range(n):
            if i in leaving or not (self.reachable(i) & leaving):
                out[i].append(EXIT)
        return out

    def post_dominators(self) -> list[set[int]]:
        """pdom[b]: the blocks every path from b to the exit passes through (b included)."""
        if self._pdom is None:
            n = len(self.blocks)
            succs = self._exit_succs()
            full = set(range(n))
            pdom = [set(full) for _ in range(n)]
            changed = True
            while changed:
                changed = False
                for b in reversed(range(n)):
                    meet: set[int] | None = None
                    for s in succs[b]:
                        other = set() if s == EXIT else pdom[s]
                        meet = set(other) if meet is None else meet & other
                    new = (meet or set()) | {b}
                    if new != pdom[b]:
                        pdom[b] = new
                        changed = True
            self._pdom = pdom
        return self._pdom

    def control_dependences(self) -> list[set[int]]:
        """deps[b]: the branching blocks whose choice decides whether (or how often) b runs: b
        post-dominates a successor of the branch but does not strictly post-dominate the
        branch itself (b may be the branch, in a loop)."""
        pdom = self.post_dominators()
        deps: list[set[int]] = [set() for _ in self.blocks]
        for x, succs in enumerate(self.succs):
            if len(succs) < 2:
                continue
            strict = pdom[x] - {x}
            for s in succs:
                for b in pdom[s]:
                    if b not in strict:
                        deps[b].add(x)
        return deps
