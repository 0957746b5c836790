"""Uniformity: which values, and which control flow, are the same for every thread of the grid, of
a block or of a warp (docs/uniformity-analysis.md states the levels, transfer and join rules).

Barriers need control flow that is uniform across the block, warp collectives control flow that is
uniform across the warp (SIMT rule 7). The analysis is a forward dataflow over the SSA values of
one function, optimistic (every value starts at the top and only ever falls), iterated to a
fixpoint; a value or a region not proven uniform is divergent.

The sweeps are incremental: after the first, an op without regions is evaluated again only when
one of its operands' facts, or the control level it is reached under, changed since it was last
evaluated (its transfer reads nothing else a sweep changes, except where `rule` decides it).
Skipping it changes nothing, so each sweep computes what a full sweep would, in the same order,
and the fixpoint is the same (`incremental = False` sweeps everything, for tests that compare).

API: `uniformity(fn)` is a `Uniformity`, a mapping from each value of `fn` to its `Level`, which
also answers `control(op)` (how uniformly `op` is reached) and `divergence(op, level)` (the
innermost construct that makes it less uniform than `level`); `region_uniformity(op)` is the
control level of `op` in its enclosing function.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Block, Operation, Region, SSAValue

from ferrox.dialects import simt
from ferrox.passes.analysis.cfg import RegionGraph, branch_condition, successor_operands

WARP_SIZE = 32
ALIGN_CAP = 1 << 32


class UniformityInternalError(RuntimeError):
    """A bug in the uniformity analysis itself (a fixpoint that does not end), never a verdict
    on the program."""


class Level(IntEnum):
    """How widely a value (or a decision) is shared; higher is more uniform."""

    THREAD = 0  # may differ between any two threads
    WARP = 1  # the same on every lane of a warp
    BLOCK = 2  # the same on every thread of a block
    GRID = 3  # the same on every thread of the launch

    @property
    def scope(self) -> str:
        return {Level.WARP: "warp", Level.BLOCK: "block", Level.GRID: "grid"}.get(self, "thread")


@dataclass(frozen=True)
class Fact:
    """What the analysis knows of one value: its level, a power of two it is known to be a
    multiple of (`align`, for integers), and `lane`: the value is A + l with A uniform across the
    warp and a multiple of 32, and l in 0..31 (thread id x in a block whose x is a multiple of 32,
    the lane id). Such a value is divergent, but its quotient by 32 is warp-uniform."""

    level: Level
    align: int = 1
    lane: bool = False

    def join(self, other: Fact) -> Fact:
        """The fact that holds of a value that may be either."""
        return Fact(
            min(self.level, other.level), min(self.align, other.align), self.lane and other.lane
        )

    def cap(self, level: Level) -> Fact:
        """This fact for a value chosen by a decision of `level` (a phi, a loop's result)."""
        if self.lane and level < Level.WARP:
            return Fact(Level.THREAD, self.align)
        if level >= self.level:
            return self
        return Fact(level, self.align, self.lane)


TOP = Fact(Level.GRID, ALIGN_CAP)
THREAD = Fact(Level.THREAD)
LANE = Fact(Level.THREAD, 1, lane=True)


@dataclass(frozen=True)
class Decision:
    """Something that decides whether, or how often, a region or block runs: an `scf.if`, a loop,
    a branch, a `simt.get_mut` region; `value` is what it decides on, where there is one."""

    op: Operation
    kind: str  # "branch", "bounds", "trip", "in_bounds" or "unknown"
    level: Level
    value: SSAValue | None = None

    def note(self, need: Level) -> str:
        """Why the decision is divergent at `need`, for a diagnostic's note."""
        what = {
            "branch": "not every thread may take this branch",
            "bounds": "the bounds of this loop depend on the thread",
            "trip": "the trip count of this loop may differ between threads",
            "in_bounds": "this region runs only where the witness is in bounds",
            "unknown": f"'{self.op.name}' may run its regions on some threads only",
        }[self.kind]
        if self.value is not None:
            name = f"`%{self.value.name_hint}`" if self.value.name_hint else "its operand"
            what += f" ({name} is not uniform across the {need.scope})"
        return f"control flow diverges here: {what}"


ResultRule = Callable[[Operation, "Uniformity"], "list[Level] | None"]
"""An extension for ops the analysis does not know: the levels of the op's results, or None."""


class Uniformity(Mapping[SSAValue, Level]):
    """The analysis of one function: the level of each value, and how uniformly each block runs.

    `fn` is a `simt.kernel` or `simt.func`, or any op whose first region is a function body (a
    `tile.kernel`, for the tile lowering). The parameters of a kernel are uniform across the grid;
    those of a device function are `params` (divergent unless the caller knows better: one level
    for all, or one per parameter). The
    contract's block shape (`block`, default the kernel's contract) decides what thread ids along
    y and z and thread id x / 32 are.
    """

    incremental = True  # False: every sweep evaluates every op (the plain algorithm)

    def __init__(
        self,
        fn: Operation,
        params: Level | Sequence[Level] | None = None,
        block: tuple[int, int, int] | None = None,
        rule: ResultRule | None = None,
    ):
        self.fn = fn
        if block is None and isinstance(fn, simt.KernelOp) and fn.contract is not None:
            block = fn.contract.block_xyz
        self.block = block
        if params is None:
            params = Level.THREAD if isinstance(fn, simt.FuncOp) else Level.GRID
        self.params: Level | Sequence[Level] = params
        self.rule = rule
        self.facts: dict[SSAValue, Fact] = {}
        self.controls: dict[Block, Level] = {}
        self.graphs: dict[Region, RegionGraph] = {}
        self._changed = False
        # Per block, its ops with their kinds (the IR does not change while it is analysed).
        self._plans: dict[Block, list[tuple[Operation, int]]] = {}
        # id of an op without regions -> the control level it was last evaluated under; ids of
        # such ops whose operands' facts changed since.
        self._evaluated: dict[int, Level] = {}
        self._dirty: set[int] = set()
        self._size = 2  # the function itself, and one more
        self._run()

    # -- the Mapping interface -------------------------------------------------------------
    def __getitem__(self, value: SSAValue) -> Level:
        return self.facts[value].level

    def __iter__(self) -> Iterator[SSAValue]:
        return iter(self.facts)

    def __len__(self) -> int:
        return len(self.facts)

    def fact(self, value: SSAValue) -> Fact:
        """What is known of `value`; a value from outside the function is divergent."""
        return self.facts.get(value, THREAD)

    # -- control -----------------------------------------------------------------------------
    def control(self, op: Operation) -> Level:
        """How uniformly `op` is reached: every thread of a (grid | block | warp) that starts the
        function reaches it, and as often, when this is at least that level."""
        block = op.parent_block()
        assert block is not None and block in self.controls, "op outside the analysed function"
        return self.controls[block]

    def divergence(self, op: Operation, need: Level) -> Decision | None:
        """The innermost decision that makes `op` run less uniformly than `need` (None when it
        runs at least that uniformly)."""
        block = op.parent_block()
        while block is not None and block in self.controls:
            if self.controls[block] >= need:
                return None
            region = block.parent
            assert region is not None
            graph = self.graphs.get(region)
            if graph is not None:
                found = self._cfg_divergence(graph, graph.node(block), need, set())
                if found is not None:
                    return found
            parent = region.parent
            if parent is None or parent is self.fn:
                return None
            decision = self._decision(parent, region)
            if decision is not None and decision.level < need:
                return decision
            block = parent.parent_block()
        return None

    def _cfg_divergence(
        self, graph: RegionGraph, node: int, need: Level, seen: set[int]
    ) -> Decision | None:
        seen.add(node)
        deps = graph.control_dependences()[node]
        for x in sorted(deps):
            decision = self._branch_decision(graph, x)
            if decision.level < need:
                return decision
        for x in sorted(deps):
            if x not in seen and self.controls[graph.blocks[x]] < need:
                found = self._cfg_divergence(graph, x, need, seen)
                if found is not None:
                    return found
        return None

    def _branch_decision(self, graph: RegionGraph, node: int) -> Decision:
        term = graph.terminator(node)
        assert term is not None
        cond = branch_condition(term)
        if cond is None:
            return Decision(term, "unknown", Level.THREAD)
        return Decision(term, "branch", self._fact(cond).level, cond)

    def _decision(self, op: Operation, region: Region) -> Decision | None:
        """What decides whether (and how often) `region` of `op` runs, or None when it runs
        exactly once each time `op` does."""
        if isinstance(op, scf.IfOp):
            return Decision(op, "branch", self._fact(op.cond).level, op.cond)
        if isinstance(op, scf.IndexSwitchOp):
            return Decision(op, "branch", self._fact(op.arg).level, op.arg)
        if isinstance(op, scf.ForOp):
            worst = min((op.lb, op.ub, op.step), key=lambda v: self._fact(v).level)
            return Decision(op, "bounds", self._fact(worst).level, worst)
        if isinstance(op, scf.WhileOp):
            cond = _while_condition(op)
            if cond is None:
                return Decision(op, "trip", Level.THREAD)
            return Decision(op, "trip", self._fact(cond).level, cond)
        if isinstance(op, simt.GetMutOp):
            return Decision(op, "in_bounds", Level.THREAD)
        if isinstance(op, scf.ExecuteRegionOp | simt.UnsafeOp | simt.SpecializeOp):
            return None  # a `simt.specialize` region: its partition is the block there
        return Decision(op, "unknown", Level.THREAD)

    # -- the fixpoint --------------------------------------------------------------------------
    def _run(self) -> None:
        body = self.fn.regions[0]
        for arg in body.blocks[0].args if body.blocks else ():
            level = self.params if isinstance(self.params, Level) else self.params[arg.index]
            self.facts[arg] = Fact(level)
        # Each value's fact only falls, through at most 3 levels, 33 alignments and the lane
        # flag; a sweep that changes nothing ends the iteration. The first sweep visits every op
        # of the function and counts them (with the function and one more, `size`).
        sweeps = 0
        while sweeps == 0 or sweeps < 40 * self._size + 2:
            sweeps += 1
            self._changed = False
            self._region(body, Level.GRID)
            if not self._changed:
                # What only the sweeps need: the analysis may be kept as long as the IR.
                self._plans, self._evaluated, self._dirty = {}, {}, set()
                return
        raise UniformityInternalError(
            f"internal error: the uniformity analysis of '{self.fn.name}' did not converge"
        )

    def _fact(self, value: SSAValue) -> Fact:
        # Optimistic: a value not yet reached (a loop-carried one, on the first sweep) is TOP.
        return self.facts.get(value, TOP)

    def _set(self, value: SSAValue, fact: Fact) -> None:
        if self.facts.get(value) != fact:
            self.facts[value] = fact
            self._changed = True
            dirty = self._dirty
            for use in value.uses:
                dirty.add(id(use.operation))

    def _set_control(self, block: Block, level: Level) -> None:
        if self.controls.get(block) != level:
            self.controls[block] = level
            self._changed = True

    def _region(self, region: Region, control: Level) -> None:
        """Sweep `region`, entered under `control`; the entry block's arguments are set by the
        region's owner."""
        first = region.first_block
        if first is None:
            return
        if first.next_block is None:
            self._block(first, control)
            return
        graph = self.graphs.get(region)
        if graph is None:
            graph = self.graphs[region] = RegionGraph.of(region)
        deps = graph.control_dependences()
        for node in _order(graph):
            block = graph.blocks[node]
            level = control
            for x in deps[node]:
                level = min(level, self._branch_decision(graph, x).level)
                level = min(level, self.controls.get(graph.blocks[x], Level.GRID))
            if node != 0:
                self._phis(graph, node)
            self._block(block, level)

    def _phis(self, graph: RegionGraph, node: int) -> None:
        """A block's arguments: the join of what each predecessor passes, capped by every
        branch from which the block is reachable (threads that chose differently there may
        arrive here along different paths, with different values)."""
        block = graph.blocks[node]
        cap = Level.GRID
        facts: list[Fact | None] = [None] * len(block.args)
        for x in range(len(graph.blocks)):
            if graph.branches(x) and node in graph.reachable(x):
                cap = min(cap, self._branch_decision(graph, x).level)
            term = graph.terminator(x)
            if term is None:
                continue
            for i, succ in enumerate(term.successors):
                if succ is not block:
                    continue
                passed = successor_operands(term, i)
                for k in range(len(block.args)):
                    # A value not reached yet (along a back edge, on the first sweep) is skipped.
                    got = (
                        THREAD if passed is None or k >= len(passed) else self.facts.get(passed[k])
                    )
                    old = facts[k]
                    if got is not None:
                        facts[k] = got if old is None else old.join(got)
        for arg, joined in zip(block.args, facts):
            self._set(arg, (joined or TOP).cap(cap))

    def _block(self, block: Block, control: Level) -> None:
        self._set_control(block, control)
        plan = self._plans.get(block)
        if plan is None:
            plan = self._plans[block] = [(op, _kind(op)) for op in block.ops]
            self._size += len(plan)
        evaluated, dirty, known = self._evaluated, self._dirty, self.facts
        always = _RULE if self.rule is not None else -1  # without a rule, THREAD whatever comes
        for op, kind in plan:
            if kind >= _LEAF:
                key = id(op)
                if kind != always and evaluated.get(key) == control and key not in dirty:
                    continue  # its inputs are as they were: it would compute what it holds
                if self.incremental:
                    evaluated[key] = control
                    dirty.discard(key)
                for r, f in zip(op.results, self._transfer(op, kind, control)):
                    if known.get(r) != f:  # `_set`, inline: most ops are here
                        known[r] = f
                        self._changed = True
                        for use in r.uses:
                            dirty.add(id(use.operation))
            else:
                self._op(op, kind, control)

    def _op(self, op: Operation, kind: int, control: Level) -> None:
        if kind == _IF:
            decision = self._decision(op, op.regions[0])
            assert decision is not None
            for region in op.regions:
                self._region(region, min(control, decision.level))
            self._results(op, [_yielded(r) for r in op.regions], decision.level)
        elif kind == _FOR:
            assert isinstance(op, scf.ForOp)
            self._for(op, control)
        elif kind == _WHILE:
            assert isinstance(op, scf.WhileOp)
            self._while(op, control)
        elif kind == _SPECIALIZE:
            # Each region runs once on whole warpgroups, for which it is the block: a barrier
            # there is the partition's (dialects/simt/specialize.py). Nothing crosses the grid.
            for region in op.regions:
                self._region(region, min(control, Level.BLOCK))
        elif kind == _EXECUTE:
            region = op.regions[0]
            self._region(region, control)
            cap = Level.GRID
            graph = self.graphs.get(region)
            if graph is not None:
                for x in range(len(graph.blocks)):
                    if graph.branches(x):
                        cap = min(cap, self._branch_decision(graph, x).level)
            exits = [
                _yield_values(b.last_op)
                for b in region.blocks
                if b.last_op is not None and not b.last_op.successors
            ]
            self._results(op, exits, cap)
        else:
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        self._set(arg, THREAD)
                self._region(region, Level.THREAD)
            for i, r in enumerate(op.results):
                self._set(r, self._unknown_result(op, i))

    def _unknown_result(self, op: Operation, index: int) -> Fact:
        if self.rule is not None:
            levels = self.rule(op, self)
            if levels is not None:
                return Fact(levels[index])
        return THREAD

    def _results(self, op: Operation, yields: list[tuple[SSAValue, ...] | None], cap: Level):
        """An op's results: the join over the regions' yields, capped by the deciding level."""
        for i, r in enumerate(op.results):
            fact: Fact | None = None
            for values in yields:
                f = THREAD if values is None or i >= len(values) else self._fact(values[i])
                fact = f if fact is None else fact.join(f)
            self._set(r, (fact or THREAD).cap(cap))

    def _for(self, op: scf.ForOp, control: Level) -> None:
        bounds = self._decision(op, op.body)
        assert bounds is not None
        level = bounds.level
        body = op.body.block
        lb, step = self._fact(op.lb), self._fact(op.step)
        self._set(body.args[0], Fact(level, min(lb.align, step.align)))
        yielded = _yield_values(body.last_op)
        for k, (arg, init) in enumerate(zip(body.args[1:], op.iter_args)):
            f = self._fact(init)
            if yielded is not None and k < len(yielded):
                back = self.facts.get(yielded[k])
                f = f if back is None else f.join(back)
            elif yielded is None:
                f = THREAD
            self._set(arg, f.cap(level))
        self._region(op.body, min(control, level))
        self._results(op, [tuple(body.args[1:])], level)

    def _while(self, op: scf.WhileOp, control: Level) -> None:
        cond = _while_condition(op)
        level = Level.THREAD if cond is None else self._fact(cond).level
        before = op.before_region.blocks[0] if op.before_region.blocks else None
        after = op.after_region.blocks[0] if op.after_region.blocks else None
        back = _yield_values(after.last_op) if after is not None else None
        if before is not None:
            for k, (arg, init) in enumerate(zip(before.args, op.arguments)):
                f = self._fact(init)
                if back is None or k >= len(back):
                    f = THREAD
                elif back[k] in self.facts:
                    f = f.join(self.facts[back[k]])
                self._set(arg, f.cap(level))
        self._region(op.before_region, min(control, level))
        cond = _while_condition(op)
        level = Level.THREAD if cond is None else self._fact(cond).level
        forwarded = _condition_args(op)
        if after is not None:
            for k, arg in enumerate(after.args):
                ok = forwarded is not None and k < len(forwarded)
                f = self._fact(forwarded[k]) if ok else THREAD  # type: ignore[index]
                self._set(arg, f.cap(level))
        self._region(op.after_region, min(control, level))
        for k, r in enumerate(op.results):
            ok = forwarded is not None and k < len(forwarded)
            f = self._fact(forwarded[k]) if ok else THREAD  # type: ignore[index]
            self._set(r, f.cap(level))

    # -- transfer functions of single ops ---------------------------------------------------
    def _transfer(self, op: Operation, kind: int, control: Level) -> list[Fact]:
        """The facts of the results of `op` (no regions; `kind` is `_kind(op)`)."""
        n = len(op.results)
        if kind == _ARITH:
            return [self._arith(op)] * n if n == 1 else [self._generic(op)] * n
        if kind == _CONSTANT:
            assert isinstance(op, arith.ConstantOp)
            return [_constant_fact(op)]
        if kind == _THREAD_ID:
            assert isinstance(op, simt.ThreadIdOp)
            return [self._thread_id(op.dimension.data.value)]
        if kind == _LANE_ID:
            return [LANE]
        if kind == _BLOCK_ID:  # a block id, or a persistent loop's bounds (`simt.tile_schedule`)
            return [Fact(Level.BLOCK)] * n
        if kind == _BLOCK_DIM:
            assert isinstance(op, simt.BlockDimOp)
            if self.block is not None:
                size = self.block["xyz".index(op.dimension.data.value)]
                return [Fact(Level.GRID, _pow2_divisor(size))]
            return [Fact(Level.GRID)]
        if kind == _GRID_DIM:
            return [Fact(Level.GRID)]
        if kind == _LEN:  # a slice's length or alignment: a property of the slice alone
            assert isinstance(op, simt.LenOp | simt.SliceAlignedOp)
            return [Fact(self._fact(op.slice).level)]
        if kind == _WITNESS_VALUE:
            assert isinstance(op, simt.WitnessValueOp)
            return [self._fact(op.witness)]
        warp_x = self.block is not None and self.block[0] % WARP_SIZE == 0
        if kind == _WARP_INDEX:
            # (block id x * block dim x + thread id x) / 32
            return [Fact(Level.WARP) if warp_x else THREAD]
        if kind == _THREAD_INDEX:
            # block id x * block dim x + thread id x
            return [LANE if warp_x else THREAD]
        if kind == _COLLECTIVE:
            return [self._collective(op, control)]
        if kind == _SHARED_ALLOC:
            return [Fact(Level.BLOCK)]
        if kind == _RULE and self.rule is not None:
            levels = self.rule(op, self)
            if levels is not None:
                return [Fact(level) for level in levels]
        return [THREAD] * n

    def _thread_id(self, dim: str) -> Fact:
        if self.block is None:
            return THREAD
        x, y, z = self.block
        size = {"x": x, "y": y, "z": z}[dim]
        if size == 1:
            return Fact(Level.GRID, ALIGN_CAP)  # always 0
        if dim == "x":
            return LANE if x % WARP_SIZE == 0 else THREAD
        # A warp is 32 consecutive linear thread ids: it lies in one row (one y, one z) when the
        # rows (x) are a multiple of 32, in one plane (one z) when the planes (x * y) are.
        row = x if dim == "y" else x * y
        return Fact(Level.WARP) if row % WARP_SIZE == 0 else THREAD

    def _collective(self, op: Operation, control: Level) -> Fact:
        """A warp collective's result is shared by the warp only where the whole warp runs it."""
        if control < Level.WARP:
            return THREAD
        if isinstance(op, simt.ShuffleOp):
            value = self._fact(op.value)
            if value.level >= Level.WARP and not value.lane:
                return Fact(value.level, value.align)  # every lane holds the same value
            if op.mode.data.value == "idx" and self._fact(op.offset).level >= Level.WARP:
                return Fact(Level.WARP)  # every lane reads the same source lane
            return THREAD
        pred = self._fact(op.operands[0])
        return Fact(max(Level.WARP, pred.level) if not pred.lane else Level.WARP)

    def _generic(self, op: Operation) -> Fact:
        get = self.facts.get
        facts = [get(v, TOP) for v in op.operands]
        if any(f.lane for f in facts):
            return THREAD
        return Fact(min((f.level for f in facts), default=Level.GRID))

    def _arith(self, op: Operation) -> Fact:
        """arith/math ops compute their result from their operands alone; thread id x / 32 (and
        the like) keeps warp uniformity, and alignment is tracked through + - * <<."""
        name = op.name.removeprefix("arith.")
        operands = op.operands
        get = self.facts.get
        facts = [get(v, TOP) for v in operands]  # `_fact`, inline
        if len(facts) == 2:
            a, b = facts
            # The constants are looked up only where a rule reads them (lane values, shli).
            if name in ("addi", "subi"):
                if a.lane and _aligned_uniform(b):
                    return LANE
                if name == "addi" and b.lane and _aligned_uniform(a):
                    return LANE
            if a.lane and (c := _const_int(operands[1])) is not None:
                if name == "divui" and c > 0 and c % WARP_SIZE == 0:
                    return Fact(Level.WARP)
                if name in ("shrui", "shrsi") and 5 <= c < _int_width(op.results[0].type):
                    return Fact(Level.WARP)
                if name == "andi" and c % WARP_SIZE == 0:
                    return Fact(Level.WARP)
            if name == "andi" and b.lane:
                c = _const_int(operands[0])
                if c is not None and c % WARP_SIZE == 0:
                    return Fact(Level.WARP)
            if not (a.lane or b.lane):
                level = min(a.level, b.level)
                if name in ("addi", "subi"):
                    return Fact(level, min(a.align, b.align))
                if name == "muli":
                    return Fact(level, min(a.align * b.align, ALIGN_CAP))
                if name == "shli":
                    c = _const_int(operands[1])
                    if c is not None and 0 <= c < 64:
                        return Fact(level, min(a.align << c, ALIGN_CAP))
                return Fact(level)
            return THREAD
        if len(facts) == 1 and name in ("index_cast", "index_castui", "extui", "extsi", "trunci"):
            (a,) = facts
            width = _int_width(op.results[0].type)
            if a.lane:
                return LANE if width >= 5 else THREAD
            return Fact(a.level, min(a.align, 1 << width))
        return self._generic(op)


def uniformity(fn: Operation, **options) -> Uniformity:
    """The uniformity of every value of `fn` (see `Uniformity` for `options`)."""
    return Uniformity(fn, **options)


def enclosing_function(op: Operation) -> Operation | None:
    """The `simt.kernel` or `simt.func` that holds `op` (or `op` itself)."""
    node: Operation | None = op
    while node is not None and not isinstance(node, simt.KernelOp | simt.FuncOp):
        node = node.parent_op()
    return node


def region_uniformity(op: Operation, analysis: Uniformity | None = None) -> Level:
    """How uniformly `op` is reached in its function: at least BLOCK means every thread of a
    block reaches it together (a barrier may sit there), at least WARP every lane of a warp."""
    if analysis is None:
        fn = enclosing_function(op)
        assert fn is not None, "op is not inside a simt.kernel or simt.func"
        analysis = Uniformity(fn)
    return analysis.control(op)


# -- what each op is, for the sweep's dispatch -------------------------------------------------
# Ops with regions (kind < _LEAF) are evaluated on every sweep; ops without regions are skipped
# when their inputs did not change, except _RULE ones where there is a rule (an op left to
# `rule`, which may read any fact; without a rule such an op is divergent whatever comes).
_IF, _FOR, _WHILE, _EXECUTE, _UNKNOWN_REGIONS, _SPECIALIZE = range(6)
_LEAF = 10
(
    _ARITH,
    _CONSTANT,
    _THREAD_ID,
    _LANE_ID,
    _BLOCK_ID,
    _BLOCK_DIM,
    _GRID_DIM,
    _LEN,
    _WITNESS_VALUE,
    _WARP_INDEX,
    _THREAD_INDEX,
    _COLLECTIVE,
    _SHARED_ALLOC,
    _RULE,
) = range(_LEAF, _LEAF + 14)

_LEAF_KINDS: tuple[tuple[type[Operation] | tuple[type[Operation], ...], int], ...] = (
    (arith.ConstantOp, _CONSTANT),
    (simt.ThreadIdOp, _THREAD_ID),
    (simt.LaneIdOp, _LANE_ID),
    ((simt.BlockIdOp, simt.TileScheduleOp), _BLOCK_ID),
    (simt.BlockDimOp, _BLOCK_DIM),
    (simt.GridDimOp, _GRID_DIM),
    ((simt.LenOp, simt.SliceAlignedOp), _LEN),
    (simt.WitnessValueOp, _WITNESS_VALUE),
    (simt.WarpIndexOp, _WARP_INDEX),
    (simt.ThreadIndex1DOp, _THREAD_INDEX),
    ((simt.ShuffleOp, simt.VoteAllOp, simt.VoteAnyOp, simt.BallotOp), _COLLECTIVE),
    (simt.SharedAllocOp, _SHARED_ALLOC),
)


def _kind(op: Operation) -> int:
    """How the sweep treats `op`: the first case of the transfer functions that matches it."""
    by_type = _TYPE_KINDS.get(type(op))
    if by_type is None:
        by_type = _TYPE_KINDS[type(op)] = _type_kind(op)
    if by_type < _LEAF:
        return by_type
    if op.regions:
        return _UNKNOWN_REGIONS
    if by_type != _RULE:
        return by_type
    name = op.name
    arithmetic = _ARITH_NAMES.get(name)
    if arithmetic is None:
        arithmetic = _ARITH_NAMES[name] = name.split(".", 1)[0] in ("arith", "math")
    return _ARITH if arithmetic else _RULE


def _type_kind(op: Operation) -> int:
    """What `isinstance` says of `op` (so of every op of its type): a structured op's kind, a
    leaf kind, or _RULE when neither (the op's regions and name decide then)."""
    if isinstance(op, scf.IfOp | scf.IndexSwitchOp):
        return _IF
    if isinstance(op, scf.ForOp):
        return _FOR
    if isinstance(op, scf.WhileOp):
        return _WHILE
    if isinstance(op, scf.ExecuteRegionOp | simt.UnsafeOp):
        return _EXECUTE
    if isinstance(op, simt.SpecializeOp):
        return _SPECIALIZE
    for types, kind in _LEAF_KINDS:
        if isinstance(op, types):
            return kind
    return _RULE


_TYPE_KINDS: dict[type[Operation], int] = {}
_ARITH_NAMES: dict[str, bool] = {}


# -- helpers ----------------------------------------------------------------------------------
def _order(graph: RegionGraph) -> list[int]:
    """Reverse post-order from the entry (definitions before uses), then unreachable blocks."""
    seen: set[int] = set()
    post: list[int] = []
    stack: list[tuple[int, int]] = [(0, 0)]
    seen.add(0)
    while stack:
        node, i = stack.pop()
        succs = graph.succs[node]
        if i < len(succs):
            stack.append((node, i + 1))
            s = succs[i]
            if s not in seen:
                seen.add(s)
                stack.append((s, 0))
        else:
            post.append(node)
    order = post[::-1]
    order.extend(n for n in range(len(graph.blocks)) if n not in seen)
    return order


def _yield_values(op: Operation | None) -> tuple[SSAValue, ...] | None:
    if isinstance(op, scf.YieldOp | simt.YieldOp):
        return tuple(op.operands)
    return None


def _yielded(region: Region) -> tuple[SSAValue, ...] | None:
    return _yield_values(region.blocks[0].last_op) if region.blocks else None


def _while_condition(op: scf.WhileOp) -> SSAValue | None:
    blocks = op.before_region.blocks
    last = blocks[0].last_op if blocks else None
    return last.condition if isinstance(last, scf.ConditionOp) else None


def _condition_args(op: scf.WhileOp) -> tuple[SSAValue, ...] | None:
    blocks = op.before_region.blocks
    last = blocks[0].last_op if blocks else None
    return tuple(last.args) if isinstance(last, scf.ConditionOp) else None


def _const_int(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _constant_fact(op: arith.ConstantOp) -> Fact:
    if isinstance(op.value, IntegerAttr):
        return Fact(Level.GRID, _pow2_divisor(op.value.value.data))
    return Fact(Level.GRID)


def _pow2_divisor(v: int) -> int:
    if v == 0:
        return ALIGN_CAP
    return min(v & -v, ALIGN_CAP)


def _int_width(t) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    return 64  # index


def _aligned_uniform(f: Fact) -> bool:
    return not f.lane and f.level >= Level.WARP and f.align >= WARP_SIZE
