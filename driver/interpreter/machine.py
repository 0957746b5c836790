"""The scalar interpreter (xDSL's `Interpreter`, with a faster region loop) that the whole-tile
interpreter runs a tile block on, the step budget every launch has, and the thread and block
records of the cooperative replay (`threads.py`). SIMT kernels run on the vectorized engine
(`engine.py`); its `arith` and `math` definitions are the ones registered here too
(`ops.scalar_functions`).

xDSL's loop looks every operand up through a chain of scopes, dispatches through a wrapper that
pretty-prints the whole module on any error, and resolves the implementation on every step.
Here each block is planned once (implementation, operands, results per op) and values live in
one flat dict per function activation: SSA dominance makes scopes unnecessary, and
`simt.kernel` and `simt.func` are isolated from above, so a call simply starts a fresh frame.
Implementations are still xDSL `InterpreterFunctions`, registered the usual way.

Errors other than the interpreter's own are turned into a `KernelTrap` at the op that raised.

A launch has a step budget (`max_steps` operations over all its threads, counted a block at a
time so that the count costs nothing per op; the engine counts each op once per active lane):
a kernel that loops forever, or a grid too large for the interpreter, ends in a located
`KernelStepLimit` instead of a hang. The default is DEFAULT_MAX_STEPS; FERROX_MAX_STEPS in the
environment, `ferrox run --max-steps` or the `step_budget` context manager change it.
"""

from __future__ import annotations

import contextlib
import operator
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, ReturnedValues, _InterpreterFunctionImpls
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import IsTerminator

from ferrox.driver.interpreter.errors import (
    Dim3,
    InterpreterError,
    KernelFault,
    KernelStepLimit,
    KernelTrap,
)


def _unwrapped(fn: Callable) -> Callable | None:
    """The function under xDSL's `@impl` wrapper (which only packs its result in an
    `OpImplResult`), so that a plain op costs one call; None where the wrapper is not that."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_freevars != ("func",) or fn.__closure__ is None:
        return None
    inner = fn.__closure__[0].cell_contents
    return inner if callable(inner) else None


@dataclass(slots=True)
class ThreadCtx:
    """One GPU thread's coordinates, and the scheduler it waits on at barriers and collectives."""

    tid: Dim3
    bid: Dim3
    linear: int
    """threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)"""
    sync: Any = None

    @property
    def lane(self) -> int:
        return self.linear & 31


@dataclass
class BlockState:
    """What the threads of one block share: its static shared arrays (one per `shared_alloc` op)."""

    bid: Dim3
    linear: int
    shared: dict[int, Any] = field(default_factory=dict)  # by id of the shared_alloc op


# Some seconds on one core: the engine runs about 50 million lane-steps a second on wide
# groups, and an empty `scf.for` of one warp makes about 1.5 million trips in the budget;
# every example runs at its default size within it.
DEFAULT_MAX_STEPS = 100_000_000
_budget_override: list[int] = []


def max_steps() -> int:
    """The step budget of a launch that starts now: `step_budget`'s, else FERROX_MAX_STEPS,
    else DEFAULT_MAX_STEPS. A FERROX_MAX_STEPS that is not a positive integer is a ValueError
    (`ferrox run` checks it up front, as it checks its options)."""
    if _budget_override:
        return _budget_override[-1]
    text = os.environ.get("FERROX_MAX_STEPS", "").strip()
    return parse_max_steps(text) if text else DEFAULT_MAX_STEPS


def parse_max_steps(text: str) -> int:
    """A positive step count (`_` separators allowed), or ValueError saying what is wrong."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise ValueError(f"the step budget must be a positive integer, got {text!r}") from None
    if value <= 0:
        raise ValueError(f"the step budget must be a positive integer, got {text!r}")
    return value


@contextlib.contextmanager
def step_budget(steps: int) -> Iterator[None]:
    """Launches started inside get `steps` as their budget."""
    _budget_override.append(steps)
    try:
        yield
    finally:
        _budget_override.pop()


@dataclass
class Program:
    """What every thread of a launch shares: implementations, per-block plans and the step
    budget (`steps` so far, against `max_steps`)."""

    module: ModuleOp
    impls: _InterpreterFunctionImpls
    plans: dict[int, tuple] = field(default_factory=dict)
    cache: dict[Any, Any] = field(default_factory=dict)
    """Per-op static facts (callee, bit width, ...), computed once: `SimtInterpreter.static`."""
    max_steps: int = field(default_factory=max_steps)
    steps: int = 0


class SimtInterpreter(Interpreter):
    """One GPU thread's interpreter; `fork` makes another for a thread of the same launch."""

    def __init__(self, program: Program):
        super().__init__(program.module, index_bitwidth=64, _impls=program.impls)
        self.program = program
        self.block: BlockState | None = None
        self.thread: ThreadCtx | None = None
        self.env: dict[int, Any] = {}
        """The current frame: values by `id` of their SSAValue (its own hash is a Python call)."""

    # --- values: one flat frame per activation -------------------------------------------
    def get_values(self, values: Iterable[SSAValue]) -> tuple[Any, ...]:
        env = self.env
        return tuple([env[id(v)] for v in values])

    def set_values(self, pairs: Iterable[tuple[SSAValue, Any]]) -> None:
        env = self.env
        for value, result in pairs:
            env[id(value)] = result

    def call_region(self, region: Region, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Run an isolated-from-above body (a device function) in a fresh frame."""
        saved = self.env
        self.env = {}
        try:
            return self.run_ssacfg_region(region, args)
        finally:
            self.env = saved

    def static(self, op: Operation, compute: Callable[[Operation], Any]) -> Any:
        """`compute(op)`, once per op and launch (ops are immutable while a kernel runs)."""
        cache = self.program.cache
        key = (id(op), compute)
        try:
            return cache[key]
        except KeyError:
            value = cache[key] = compute(op)
            return value

    # --- the loop -----------------------------------------------------------------------
    def _plan(self, block: Block) -> tuple:
        table = self._impls._impl_dict  # pyright: ignore[reportPrivateUsage]
        steps = []
        for op in block.ops:
            entry = table.get(type(op))
            if entry is None:
                raise self.trap(
                    op, f"the interpreter has no implementation of '{op.name}'", KernelFault
                )
            ft, fn = entry
            operands = tuple(map(id, op.operands))
            fetch = (
                operands[0]
                if len(operands) == 1
                else (operator.itemgetter(*operands) if operands else None)
            )
            terminator = op.has_trait(IsTerminator)
            raw = None if terminator else _unwrapped(fn)
            results = tuple(map(id, op.results))
            steps.append(
                (raw or fn, ft, op, len(operands), fetch, results, terminator or raw is None)
            )
        plan = (tuple(map(id, block.args)), tuple(steps))
        self.program.plans[id(block)] = plan
        return plan

    def run_ssacfg_region(
        self, region: Region, args: tuple[Any, ...], name: str = "unknown"
    ) -> tuple[Any, ...]:
        block = region.blocks.first
        env = self.env
        program = self.program
        plans = program.plans
        entered_by: Operation | None = region.parent_op()
        while block is not None:
            plan = plans.get(id(block)) or self._plan(block)
            block_args, steps = plan
            program.steps += len(steps) + 1  # the block entry costs about one op
            if program.steps > program.max_steps:
                raise self._out_of_steps(entered_by)
            for arg, value in zip(block_args, args):
                env[arg] = value
            op = None
            try:
                for fn, ft, op, arity, fetch, results, wrapped in steps:
                    if arity == 1:
                        out = fn(ft, self, op, (env[fetch],))
                    elif arity:
                        out = fn(ft, self, op, fetch(env))
                    else:
                        out = fn(ft, self, op, ())
                    if (
                        wrapped
                    ):  # an OpImplResult: a terminator, or an implementation we could not unwrap
                        if out.terminator_value is not None:
                            break
                        out = out.values
                    if results:
                        if len(results) == 1:
                            env[results[0]] = out[0]
                        else:
                            for res, value in zip(results, out):
                                env[res] = value
                else:
                    return ()
            except InterpreterError:
                raise
            except Exception as e:  # a bug in the kernel's arithmetic (or ours): locate it
                name = op.name if op is not None else "?"
                raise self.trap(op, f"'{name}' failed: {type(e).__name__}: {e}") from e
            target = out.terminator_value
            if isinstance(target, ReturnedValues):
                return target.values
            block, args, entered_by = target.block, target.args, op
        return ()

    def _out_of_steps(self, op: Operation | None) -> KernelStepLimit:
        limit = self.program.max_steps
        return self.trap(
            op,
            f"the launch ran past its step budget of {limit:,} operations (a loop that does not "
            "end, or more work than the CPU interpreter is for); raise it with --max-steps or "
            "FERROX_MAX_STEPS",
            KernelStepLimit,
        )

    # --- faults -------------------------------------------------------------------------
    def where(self) -> tuple[Dim3 | None, Dim3 | None]:
        return (self.thread.bid if self.thread else None, self.thread.tid if self.thread else None)

    def trap(self, op: Operation | None, message: str, cls: type = KernelTrap):
        block, thread = self.where()
        return cls(op, message, block, thread)
