"""The SIMT engine: each op runs once for a whole group of threads, as NumPy arrays of lanes.

A group is a run of whole blocks (one block, or the whole grid in chunks when no thread waits
for another; see `launch.py`). Every value is an array with one entry per lane, or a NumPy
scalar that all lanes share. Control flow runs under an active-lane mask: a thread-dependent
`scf.if` runs both sides, each under its lanes, and merges the results; a loop runs until no
lane is active; a region of several blocks (`cf.br`, `cf.cond_br`, `cf.switch`) runs the lowest
block that lanes wait at, so lanes that branched apart meet again where the paths join. Ops
read only the lanes of the mask where it matters (memory, traps); arithmetic on inactive
lanes is computed and discarded.

Collectives check the mask: a `simt.sync_threads` must be reached by all of a block's threads at
once, a warp collective by every lane of the warp that has not returned. Where that fails the
engine raises `Diverged`, and the launch is replayed a thread at a time on the cooperative
scheduler (`threads.py`, one executor of one lane per GPU thread), which either finds the
interleaving the GPU would run or names the deadlock exactly as before.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import cf, func, scf
from xdsl.ir import Block, Operation, Region

from ferrox.dialects import simt
from ferrox.driver.interpreter.errors import (
    Dim3,
    InterpreterError,
    KernelFault,
    KernelStepLimit,
    KernelTrap,
)
from ferrox.driver.interpreter.ops import FACTORIES, Unsupported, lowers
from ferrox.registry import load_interpreter_plugins

RET, BRANCH, PLAIN = 0, 1, 2


class Diverged(Exception):
    """A collective reached by part of the lanes it waits for: replay thread by thread."""


def merge(select: Any, new: Any, old: Any) -> Any:
    """`new` on the lanes of `select`, `old` elsewhere."""
    if old is None or old is new:
        return new
    if not isinstance(new, np.ndarray | np.generic):  # a witness: merge its fields
        slots = getattr(type(new), "__slots__", ())
        if type(old) is not type(new) or not slots:
            return new
        merged = object.__new__(type(new))
        for name in slots:
            setattr(merged, name, merge(select, getattr(new, name), getattr(old, name)))
        return merged
    out = np.where(select, new, old)
    return out[()] if out.ndim == 0 else out


class Launch:
    """What every group of a launch shares: the grid, compiled plans, the step budget, and
    the race bookkeeping of global memory."""

    def __init__(self, module: Any, grid: Dim3, block: Dim3, max_steps: int):
        self.module = module
        self.grid = grid
        self.block = block
        self.tpb = block[0] * block[1] * block[2]
        self.wpb = -(-self.tpb // 32)
        self.plans: dict[int, tuple] = {}
        self.max_steps = max_steps
        self.steps = 0
        self.ops: list[Operation] = []
        self.op_numbers: dict[int, int] = {}
        self.cache: dict[Any, Any] = {}

    def op_number(self, op: Operation) -> int:
        n = self.op_numbers.get(id(op))
        if n is None:
            n = self.op_numbers[id(op)] = len(self.ops)
            self.ops.append(op)
        return n

    def coords(self, gid: int) -> tuple[Dim3, Dim3]:
        """(block, thread) coordinates of the thread with global id `gid` (block-major)."""
        b, t = divmod(int(gid), self.tpb)
        gx, gy, _ = self.grid
        bx, by, _ = self.block
        return (b % gx, (b // gx) % gy, b // (gx * gy)), (t % bx, (t // bx) % by, t // (bx * by))


def _compile(op: Operation):
    factory = FACTORIES.get(type(op))
    if factory is None:  # an installed dialect plugin's op: its module registers it on import
        load_interpreter_plugins()
        factory = FACTORIES.get(type(op))
    if factory is None:
        message = f"the interpreter has no implementation of '{op.name}'"
    else:
        try:
            return factory(op)
        except Unsupported as e:
            message = e.message

    def refuse(ex, args, mask):
        raise KernelFault(op, message)

    return refuse


_RETURNS = (scf.YieldOp, scf.ConditionOp, simt.YieldOp, simt.ReturnOp, func.ReturnOp)
_BRANCHES = (cf.BranchOp, cf.ConditionalBranchOp, cf.SwitchOp)


class Executor:
    """Runs regions for one group of lanes (`gids`, ascending: block-major, then linear id)."""

    def __init__(
        self,
        launch: Launch,
        gids: np.ndarray,
        first_block: int,
        nblocks: int,
        shared: dict[Any, Any],
        sync: Any = None,
        thread: Any = None,
    ):
        self.launch = launch
        self.gids = gids
        self.n = len(gids)
        self.first_block = first_block
        self.nblocks = nblocks
        self.shared = shared
        self.sync = sync  # the cooperative scheduler when replaying one lane per thread
        self.thread = thread
        self.epochs = np.zeros(nblocks, np.int64)
        self.warp_epochs = np.zeros(nblocks * launch.wpb, np.int64)
        self.exited = np.zeros(self.n, bool)
        self.barriers = 0  # how many barriers this group has passed (keys cached lane facts)
        self.partitions: Any = None  # the running `simt.specialize`'s coroutines, if any
        self.env: dict[int, Any] = {}
        self.cache: dict[Any, Any] = {}

    # --- lanes -------------------------------------------------------------------------------
    @functools.cached_property
    def linear(self) -> np.ndarray:
        """Each lane's linear thread id in its block."""
        tpb = self.launch.tpb
        if self.n == self.nblocks * tpb:  # whole blocks: no division
            return np.tile(np.arange(tpb, dtype=np.int64), self.nblocks)
        return self.gids % tpb

    @functools.cached_property
    def block_local(self) -> np.ndarray:
        """Each lane's block, counted from the group's first."""
        tpb = self.launch.tpb
        if self.n == self.nblocks * tpb:
            return np.repeat(np.arange(self.nblocks, dtype=np.int64), tpb)
        return self.gids // tpb - self.first_block

    @functools.cached_property
    def all_lanes(self) -> np.ndarray:
        return np.arange(self.n)

    @functools.cached_property
    def warp_local(self) -> np.ndarray:
        return self.block_local * self.launch.wpb + (self.linear >> 5)

    def lane_values(self, key: Any, compute) -> Any:
        value = self.cache.get(key)
        if value is None:
            value = self.cache[key] = compute()
        return value

    def fault(
        self,
        op: Operation | None,
        bad: Any,
        message: str,
        cls: type = KernelTrap,
        notes: Sequence[tuple[Operation | None, str]] = (),
    ) -> KernelFault:
        """The fault of the first lane of `bad` (in launch order)."""
        lane = int(np.argmax(np.broadcast_to(bad, (self.n,))))
        block, thread = self.launch.coords(self.gids[lane])
        return cls(op, message, block, thread, notes)

    def describe_thread(self, gid: int) -> str:
        block, thread = self.launch.coords(gid)
        return f"thread {thread} of block {block}"

    # --- regions -----------------------------------------------------------------------------
    def _plan(self, block: Block) -> tuple:
        steps = []
        for op in block.ops:
            kind = (
                RET if isinstance(op, _RETURNS) else BRANCH if isinstance(op, _BRANCHES) else PLAIN
            )
            steps.append(
                (
                    _compile(op),
                    op,
                    tuple(map(id, op.operands)),
                    tuple(map(id, op.results)),
                    kind,
                )
            )
        plan = (tuple(map(id, block.args)), tuple(steps))
        self.launch.plans[id(block)] = plan
        return plan

    def run_block(
        self, block: Block, args: Sequence[Any], mask: np.ndarray, merged: bool, entered: Any
    ):
        launch = self.launch
        plan = launch.plans.get(id(block)) or self._plan(block)
        arg_ids, steps = plan
        env = self.env
        active = int(np.count_nonzero(mask))
        launch.steps += (len(steps) + 1) * active
        if launch.steps > launch.max_steps:
            raise self.fault(
                entered,
                mask,
                f"the launch ran past its step budget of {launch.max_steps:,} operations (a loop "
                "that does not end, or more work than the CPU interpreter is for); raise it with "
                "--max-steps or FERROX_MAX_STEPS",
                KernelStepLimit,
            )
        for a, v in zip(arg_ids, args):
            env[a] = merge(mask, v, env.get(a)) if merged else v
        op = None
        try:
            for run, op, operands, results, kind in steps:
                out = run(self, [env[o] for o in operands], mask)
                if kind != PLAIN:
                    return kind, out, op
                if merged:
                    for r, v in zip(results, out):
                        env[r] = merge(mask, v, env.get(r))
                else:
                    for r, v in zip(results, out):
                        env[r] = v
        except (InterpreterError, Diverged):
            raise
        except Exception as e:  # a bug in the kernel's arithmetic (or ours): locate it
            name = op.name if op is not None else "?"
            raise self.fault(op, mask, f"'{name}' failed: {type(e).__name__}: {e}") from e
        raise self.fault(op, mask, "a block ended without a terminator", KernelFault)

    def run_region(
        self, region: Region, args: Sequence[Any], mask: np.ndarray, kernel_body: bool = False
    ) -> tuple:
        blocks = region.blocks
        first = blocks.first
        assert first is not None
        entered = region.parent_op()
        if first is blocks.last:
            kind, out, op = self.run_block(first, args, mask, False, entered)
            if kind != RET:
                raise self.fault(op, mask, f"'{op.name}' has no block to branch to", KernelFault)
            return tuple(out)
        return self._run_blocks(region, args, mask, kernel_body, entered)

    def _run_blocks(self, region, args, mask, kernel_body, entered) -> tuple:
        """Several blocks: run the earliest block that lanes wait at until none waits."""
        order = {id(b): i for i, b in enumerate(region.blocks)}
        blocks = list(region.blocks)
        pending: dict[int, list] = {0: [mask, list(args), entered]}
        result: list | None = None
        while pending:
            i = min(pending)
            m, a, came_from = pending.pop(i)
            kind, out, op = self.run_block(blocks[i], a, m, True, came_from)
            if kind == RET:
                result = (
                    list(out) if result is None else [merge(m, v, r) for v, r in zip(out, result)]
                )
                if kernel_body:
                    self.exited |= m
                continue
            for target, sel, targs in out:
                if not np.any(sel):
                    continue
                j = order[id(target)]
                if j in pending:
                    entry = pending[j]
                    entry[1] = [merge(sel, v, old) for v, old in zip(targs, entry[1])]
                    entry[0] = entry[0] | sel
                else:
                    pending[j] = [np.broadcast_to(sel, (self.n,)) & mask, list(targs), op]
        return tuple(result or ())

    # --- collectives ---------------------------------------------------------------------------
    def barrier(self, op: Operation, mask: np.ndarray, part: tuple[int, int] | None = None) -> None:
        """All threads of each block that reaches it (in a `simt.specialize`, those of its
        partition `part` = (first thread, count)), at once; then a new barrier interval."""
        self.barriers += 1
        expected = part[1] if part is not None else 0
        if self.sync is not None:
            self.sync.barrier(self.thread, op, part)
            self.epochs += 1
            return
        tpb = self.launch.tpb
        if self.n == self.nblocks * tpb:
            arrived = mask.reshape(self.nblocks, tpb).sum(axis=1)
        else:
            arrived = np.bincount(self.block_local[mask], minlength=self.nblocks)
        if np.any((arrived != 0) & (arrived != (expected or tpb))):
            raise Diverged()
        self.epochs[arrived > 0] += 1

    def warp_check(self, mask: np.ndarray) -> None:
        """Every lane of each warp taking part that has not returned must be here."""
        nw = self.nblocks * self.launch.wpb
        here = np.bincount(self.warp_local[mask], minlength=nw)
        live = self.lane_values(
            ("live", self.exited.sum()),
            lambda: np.bincount(self.warp_local[~self.exited], minlength=nw),
        )
        if np.any((here != 0) & (here != live)):
            raise Diverged()
        self.warp_epochs[here > 0] += 1


# --- control flow ------------------------------------------------------------------------------
def _uniform(value: Any) -> bool:
    return np.ndim(value) == 0


@lowers(scf.IfOp)
def _if(op: scf.IfOp):
    then_region, else_region = op.true_region, op.false_region
    has_else = bool(else_region.blocks)

    def run(ex: Executor, args, mask):
        c = args[0]
        if _uniform(c):
            if c:
                return ex.run_region(then_region, (), mask)
            return ex.run_region(else_region, (), mask) if has_else else ()
        taken = mask & c
        other = mask & ~c
        if not other.any():
            return ex.run_region(then_region, (), taken)
        if not taken.any():
            return ex.run_region(else_region, (), other) if has_else else ()
        then_values = ex.run_region(then_region, (), taken)
        if not has_else:
            return ()
        else_values = ex.run_region(else_region, (), other)
        return tuple(merge(c, t, e) for t, e in zip(then_values, else_values))

    return run


@lowers(scf.ForOp)
def _for(op: scf.ForOp):
    body = op.body

    def run(ex: Executor, args, mask):
        lb, ub, step, *carried = args
        if _uniform(lb) and _uniform(ub) and _uniform(step):
            i = lb
            while i < ub:
                carried = list(ex.run_region(body, (i, *carried), mask))
                i = i + step
            return tuple(carried)
        iv = np.broadcast_to(lb, (ex.n,)).copy()
        active = mask & (iv < ub)
        while active.any():
            out = ex.run_region(body, (iv, *carried), active)
            carried = [merge(active, new, old) for new, old in zip(out, carried)]
            iv = np.where(active, iv + step, iv)
            active = active & (iv < ub)
        return tuple(carried)

    return run


@lowers(scf.WhileOp)
def _while(op: scf.WhileOp):
    before, after = op.before_region, op.after_region

    def run(ex: Executor, args, mask):
        values = list(args)
        active = mask
        results: list | None = None
        while True:
            cond, *out = ex.run_region(before, values, active)
            leaving = active & ~np.asarray(cond, bool)
            if leaving.any():
                results = (
                    out if results is None else [merge(leaving, v, r) for v, r in zip(out, results)]
                )
            active = active & np.asarray(cond, bool)
            if not active.any():
                return tuple(results or out)
            values = list(ex.run_region(after, out, active))

    return run


@lowers(scf.IndexSwitchOp)
def _index_switch(op: scf.IndexSwitchOp):
    cases = [int(c) for c in op.cases.get_values()]
    regions = list(op.case_regions)
    default = op.default_region

    def run(ex: Executor, args, mask):
        arg = args[0]
        if _uniform(arg):
            for c, region in zip(cases, regions):
                if arg == c:
                    return ex.run_region(region, (), mask)
            return ex.run_region(default, (), mask)
        rest = mask
        results: list | None = None
        arms: list[tuple[int | None, Any]] = [*zip(cases, regions), (None, default)]
        for case, region in arms:
            sel = rest if case is None else rest & (arg == case)
            if case is not None:
                rest = rest & ~sel
            if not sel.any():
                continue
            out = ex.run_region(region, (), sel)
            results = (
                list(out) if results is None else [merge(sel, v, r) for v, r in zip(out, results)]
            )
        return tuple(results or ())

    return run


@lowers(scf.ExecuteRegionOp)
def _execute_region(op):
    return lambda ex, args, mask: ex.run_region(op.region, (), mask)


def region_return(op):
    """A terminator that ends its region with its operands as the region's results."""
    return lambda ex, args, mask: tuple(args)


for _op in (scf.YieldOp, scf.ConditionOp, func.ReturnOp):
    lowers(_op)(region_return)


@lowers(cf.BranchOp)
def _br(op: cf.BranchOp):
    n = len(op.arguments)
    return lambda ex, args, mask: [(op.successor, mask, args[:n])]


@lowers(cf.ConditionalBranchOp)
def _cond_br(op: cf.ConditionalBranchOp):
    nt = len(op.then_arguments)

    def run(ex, args, mask):
        c = args[0]
        then_args, else_args = args[1 : 1 + nt], args[1 + nt :]
        return [
            (op.then_block, mask & c, then_args),
            (op.else_block, mask & ~np.asarray(c), else_args),
        ]

    return run


@lowers(cf.SwitchOp)
def _switch(op: cf.SwitchOp):
    # The flag and the case values are compared as bit patterns of the flag's width; the first
    # case listing a value wins (the lowering's chain of compares).
    from ferrox.driver.interpreter.arith_ops import as_unsigned
    from ferrox.driver.interpreter.values import int_width

    width = int_width(op.flag.type) or 64
    values = (
        [int(v) & ((1 << width) - 1) for v in op.case_values.get_values()] if op.case_values else []
    )
    counts = [int(c) for c in op.case_operand_segments.get_values()]
    n_default = len(op.default_operands)

    def run(ex, args, mask):
        flag = np.asarray(as_unsigned(args[0], width)).astype(np.uint64)
        rest = mask.copy()
        targets = []
        at = 1 + n_default
        for value, block, count in zip(values, op.case_blocks, counts):
            sel = rest & (flag == np.uint64(value))
            rest &= ~sel
            targets.append((block, sel, args[at : at + count]))
            at += count
        targets.append((op.default_block, rest, args[1 : 1 + n_default]))
        return targets

    return run
