"""Constants made once a function, at the start of its entry block.

Each pattern of `convert-simt-to-nvvm` used to make the constants it needed where it needed
them: 146 of softmax's 664 ops after this stage, which `convert-to-llvm` and the export then
handled one by one. Likewise `convert-to-llvm`'s expansions of `math.exp` and f32 division made
theirs once an op (softmax: 56 `llvm.mlir.constant`s of 11 values). In LLVM IR a constant is an
operand, not an instruction, so where (and how often) it is defined does not change the LLVM
IR's instructions or the PTX; a constant at the function's entry dominates every use in the
function. A branch being built (its block not yet inserted) uses the constants of the function
of the op the pattern lowers, where the pattern inserts it. Ops built outside a function, or
outside `pools()` (which `convert_simt_to_nvvm` and `convert_to_llvm` open for their walks),
make their own. The pools live only as long as that walk: a constant refers to its block, so a
pool kept past the compile would keep the whole lowered module alive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects import func, llvm
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects.simt import FuncOp, KernelOp
from ferrox.lowering.build import int_constant, llvm_constant
from ferrox.lowering.conversion import Emitter

_FUNCTIONS = (func.FuncOp, llvm.FuncOp, KernelOp, FuncOp)

Pool = dict[tuple[object, Attribute], SSAValue]

_POOLS: ContextVar[dict[Block, Pool] | None] = ContextVar("ferrox_constant_pools", default=None)
"""Per function entry block: the constants made there, by value and type (this thread's walk)."""


@contextmanager
def pools() -> Iterator[None]:
    """Pool the constants that `pooled` makes until the block ends."""
    token = _POOLS.set({})
    try:
        yield
    finally:
        _POOLS.reset(token)


def _entry(block: Block | None) -> Block | None:
    """The entry block of the function whose body holds `block`, if it is in one."""
    while block is not None:
        op = block.parent_op()
        if op is None:
            return None
        if isinstance(op, _FUNCTIONS):
            return op.regions[0].blocks[0]
        block = op.parent_block()
    return None


def pooled(e: Emitter, value: int, t: Attribute) -> SSAValue:
    """`arith.constant value : t`, the function's one such constant where `e` inserts into a
    function, else a new one at `e`'s insertion point."""
    return _pooled(e, value, t, lambda: int_constant(value, t))


def pooled_llvm(e: Emitter, value: Attribute, t: Attribute) -> SSAValue:
    """`llvm.mlir.constant value : t` (not a NaN: it equals no other), likewise."""
    return _pooled(e, value, t, lambda: llvm_constant(value, t))


def _pooled(e: Emitter, value: object, t: Attribute, make: Callable[[], Operation]) -> SSAValue:
    every = _POOLS.get()
    entry = None
    if every is not None:
        entry = _entry(e.point.block)
        if entry is None and e.point.block.parent is None and e.origin is not None:
            # A branch being built, not inserted yet: every pattern inserts it where the op it
            # lowers is, so that op's function's constants dominate it.
            entry = _entry(e.origin.parent_block())
    if every is None or entry is None:
        return e(make())
    pool = every.setdefault(entry, {})
    key = (value, t)
    found = pool.get(key)
    if found is not None and isinstance(found.owner, Operation) and found.owner.parent is entry:
        return found
    last = _last_constant(pool, entry)
    point = InsertPoint.after(last) if last is not None else InsertPoint.at_start(entry)
    made = e.at(point)(make())
    pool[key] = made
    return made


def _last_constant(pool: Pool, entry: Block) -> Operation | None:
    """The latest pooled constant still in `entry` (new ones go after it, in first-use order)."""
    for value in reversed(pool.values()):
        owner = value.owner
        if isinstance(owner, Operation) and owner.parent is entry:
            return owner
    return None


__all__ = ["pooled", "pooled_llvm", "pools"]
