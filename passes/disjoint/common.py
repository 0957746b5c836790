"""What the disjointness checks share: the functions of a module, naming values, ancestry,
program order, and whether an op sits in unsafe code."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from ferrox.dialects.simt import CallOp, FuncOp, KernelOp, UnsafeOp

Function = KernelOp | FuncOp


@dataclass
class Context:
    """Module-wide facts: the device functions by name, and which of them are convergent."""

    funcs: dict[str, FuncOp] = field(default_factory=dict[str, FuncOp])
    convergent_funcs: set[str] = field(default_factory=set[str])

    def callee(self, call: CallOp) -> FuncOp | None:
        return self.funcs.get(call.callee.root_reference.data)


def functions(root: Operation) -> Iterator[Function]:
    for op in root.walk():
        if isinstance(op, KernelOp | FuncOp):
            yield op


def describe(value: SSAValue) -> str:
    """`%name` where the value has one, else its type."""
    if value.name_hint:
        return f"`%{value.name_hint}`"
    return f"of type {value.type}"


def ancestors(op: Operation, stop: Operation) -> Iterator[Operation]:
    """The ops strictly enclosing `op`, innermost first, up to (excluding) `stop`."""
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        yield parent
        parent = parent.parent_op()


def in_unsafe(op: Operation, fn: Function) -> bool:
    """Inside a `simt.unsafe` region or an `unsafe` kernel/function."""
    return fn.unsafe is not None or any(isinstance(a, UnsafeOp) for a in ancestors(op, fn))


def owner(value: SSAValue) -> Operation | None:
    """The op that defines a value, or the op whose region holds the block argument."""
    if isinstance(value, BlockArgument):
        return value.block.parent_op()
    return value.owner  # type: ignore[return-value]


def _chain(op: Operation) -> list[Operation]:
    chain = [op]
    while (parent := chain[-1].parent_op()) is not None:
        chain.append(parent)
    return chain


# Ops whose regions are alternatives: at most one of them runs.
EXCLUSIVE_REGIONS = (scf.IfOp, scf.IndexSwitchOp)


def order(a: Operation, b: Operation) -> str:
    """How `a` relates to `b` in one run of the enclosing function: "before" (a runs first),
    "after", "exclusive" (alternative branches), or "same"."""
    if a is b:
        return "same"
    chain_a = _chain(a)
    blocks_a = {id(x.parent_block()): x for x in chain_a if x.parent_block() is not None}
    y: Operation | None = b
    while y is not None:
        blk = y.parent_block()
        if blk is not None and id(blk) in blocks_a:
            x = blocks_a[id(blk)]
            return _order_in_block(a, b, x, y, blk)
        y = y.parent_op()
    return "exclusive"  # different functions


def _order_in_block(a: Operation, b: Operation, x: Operation, y: Operation, blk: Block) -> str:
    if x is y:
        if x is a:
            return "before"  # b is inside a's regions: a starts first
        if x is b:
            return "after"
        ra, rb = _region_index(a, x), _region_index(b, x)
        if ra == rb:
            return "exclusive"  # different blocks of one region (unstructured): not ordered here
        if isinstance(x, EXCLUSIVE_REGIONS):
            return "exclusive"
        return "before" if ra < rb else "after"
    for op in blk.ops:
        if op is x:
            return "before"
        if op is y:
            return "after"
    raise AssertionError("ops not in their block")


def _region_index(op: Operation, ancestor: Operation) -> int:
    node = op
    while (parent := node.parent_op()) is not ancestor:
        assert parent is not None, "`ancestor` does not contain `op`"
        node = parent
    return ancestor.regions.index(node.parent_region())


LOOPS = (scf.ForOp, scf.WhileOp, scf.ParallelOp)


def loop_between(use: Operation, value: SSAValue) -> Operation | None:
    """The innermost loop enclosing `use` but not the definition of `value`, if any."""
    defining = owner(value)
    def_chain = set(map(id, _chain(defining))) if defining is not None else set()
    for anc in _chain(use)[1:]:
        if id(anc) in def_chain:
            return None
        if isinstance(anc, LOOPS):
            return anc
    return None
