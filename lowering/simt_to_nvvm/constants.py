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

from xdsl.dialects import arith, func, llvm
from xdsl.dialects.builtin import i64
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects.simt import FuncOp, KernelOp
from ferrox.lowering.build import convert, int_constant, llvm_constant
from ferrox.lowering.conversion import Emitter

_FUNCTIONS = (func.FuncOp, llvm.FuncOp, KernelOp, FuncOp)

Pool = dict[tuple[object, Attribute], SSAValue]

_POOLS: ContextVar[dict[Block, Pool] | None] = ContextVar("ferrox_constant_pools", default=None)
"""Per function entry block: the constants made there, by value and type (this thread's walk)."""

_REUSED: ContextVar[dict[Block, dict[object, SSAValue]] | None] = ContextVar(
    "ferrox_reused_values", default=None
)
"""Per function entry block: the last read of each special register (by its op class, as i64)
and the last i64 cast of each parameter (by the parameter), for `_reused`."""


@contextmanager
def pools() -> Iterator[None]:
    """Pool the constants that `pooled` makes, and keep the values `pooled_register` and
    `pooled_cast` make, until the block ends."""
    token, reused = _POOLS.set({}), _REUSED.set({})
    try:
        yield
    finally:
        _REUSED.reset(reused)
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


def pooled_register(e: Emitter, op_type: type[Operation], name: str | None) -> SSAValue:
    """A special register (`op_type`, 32 bits) zero-extended to i64 at `e`'s point, or the one
    read earlier in the function where it comes before that point (a register holds one value
    for the whole kernel; `nvvm.read.ptx.sreg.*` is pure)."""

    def read() -> SSAValue:
        return e(convert(arith.ExtUIOp, e(op_type()), i64), name)

    return _reused(e, op_type, read)


def pooled_cast(e: Emitter, argument: BlockArgument, make: Callable[[], Operation]) -> SSAValue:
    """`make()`, a cast of the parameter `argument` that LLVM IR does not write (`index` to i64),
    at `e`'s point, or the one made earlier in the function where it comes before that point (a
    kernel's `%rows` is cast wherever a witness, a bounds check or a contract fact needs it)."""
    return _reused(e, argument, lambda: e(make()))


def _reused(e: Emitter, key: object, make: Callable[[], SSAValue]) -> SSAValue:
    """`make()`'s value, made where `e` inserts, or the value it made for `key` earlier in the
    same function, if that comes before (`_before`). Never moved: where the IR first needs it,
    it stays, so LLVM sees the same instructions in the same order, less the repeats."""
    every = _REUSED.get()
    entry = _entry(e.point.block) if every is not None else None
    if every is None or entry is None:
        return make()
    known = every.setdefault(entry, {})
    found = known.get(key)
    if found is not None and isinstance(found.owner, Operation):
        if _before(found.owner, e.point, entry):
            return found
    value = known[key] = make()
    return value


_SCAN = 256
"""How many ops `_before` looks back over in the entry block before it gives up (the register is
then read again: a large kernel's entry block has thousands of ops)."""


def _before(op: Operation, point: InsertPoint, entry: Block) -> bool:
    """Whether `op`, in the function's entry block `entry`, dominates what is inserted at
    `point`: the point is inside another block of the function's body (which `entry`
    dominates), or in `entry` (or inside an op of it) within `_SCAN` ops after `op`."""
    if op.parent is not entry:
        return False
    block, later = point.block, point.insert_before
    while block is not entry:
        if block.parent is entry.parent:
            return True
        owner = block.parent_op()
        if owner is None or owner.parent is None:
            return False
        block, later = owner.parent, owner
    earlier = later.prev_op if later is not None else entry.last_op
    for _ in range(_SCAN):
        if earlier is None:
            return False
        if earlier is op:
            return True
        earlier = earlier.prev_op
    return False


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


__all__ = ["pooled", "pooled_cast", "pooled_llvm", "pooled_register", "pools"]
