"""What the disjointness checks share: the functions of a module, naming values, ancestry,
program order, and whether an op sits in unsafe code."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue

from ferrox.dialects.simt import CallOp, FuncOp, KernelOp, UnsafeOp
from ferrox.dialects.typetest import type_test
from ferrox.passes.analysis.cfg import RegionGraph
from ferrox.passes.analysis.uniformity import Level, Uniformity

Function = KernelOp | FuncOp


@dataclass
class Context:
    """Module-wide facts: the device functions by name, and which of them are convergent (with
    the uniformity, a `passes.analysis.uniformity.Level`, their call sites need)."""

    funcs: dict[str, FuncOp] = field(default_factory=dict[str, FuncOp])
    convergent_funcs: dict[str, Level] = field(default_factory=dict[str, Level])
    # What the call sites pass a device function: per parameter, the least uniform argument
    # (with the call that passes it); unset for a function nothing calls.
    param_levels: dict[str, list[tuple[Level, CallOp | None]]] = field(
        default_factory=dict[str, list[tuple[Level, CallOp | None]]]
    )
    analyses: dict[str, Uniformity] = field(default_factory=dict[str, Uniformity])
    # Every op of each function (by id), in `walk()` order: the checks walk each function
    # several times, and the IR does not change while they run.
    walks: dict[int, list[Operation]] = field(default_factory=dict[int, list[Operation]])

    def callee(self, call: CallOp) -> FuncOp | None:
        return self.funcs.get(call.callee.root_reference.data)

    def ops(self, fn: Operation) -> list[Operation]:
        """`list(fn.walk())`, made once per function."""
        found = self.walks.get(id(fn))
        if found is None:
            found = self.walks[id(fn)] = walk(fn)
        return found


def walk(root: Operation) -> list[Operation]:
    """`list(root.walk())` (`root`, then every op nested in it, in pre-order), a few times
    faster than xDSL's nested generators."""
    found = [root]
    append = found.append

    def visit(op: Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    append(child)
                    if child.regions:
                        visit(child)

    visit(root)
    return found


_is_function = type_test((KernelOp, FuncOp))


def functions(root: Operation) -> Iterator[Function]:
    for op in walk(root):
        if _is_function(op):
            yield op  # type: ignore[misc]


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


def order(a: Operation, b: Operation, fresh: Operation | None = None) -> str:
    """How `a` relates to `b` in one run of the enclosing function: "before" (a runs first, and
    b never runs before it), "after", "exclusive" (never both: alternative branches), "same",
    or "unknown": both may run, in either order or more than once (blocks on a cycle of an
    unstructured region, the regions of an `scf.while` or of an op the verifier does not know,
    ops of different functions). Callers must read "unknown" as "may both run".

    `fresh`: the op that defines the value both use; in an unstructured region a path through
    its block makes a new value, so such paths do not order `a` and `b`."""
    if a is b:
        return "same"
    chain_a = _chain(a)
    blocks_a = {id(x.parent_block()): x for x in chain_a if x.parent_block() is not None}
    y: Operation | None = b
    while y is not None:
        blk = y.parent_block()
        if blk is not None and id(blk) in blocks_a:
            x = blocks_a[id(blk)]
            return _order_in_block(a, b, x, y, blk, fresh)
        y = y.parent_op()
    return "unknown"  # different functions


def _order_in_block(
    a: Operation, b: Operation, x: Operation, y: Operation, blk: Block, fresh: Operation | None
) -> str:
    if x is y:
        if x is a:
            return "before"  # b is inside a's regions: a starts first
        if x is b:
            return "after"
        ra, rb = _region_index(a, x), _region_index(b, x)
        if ra == rb:
            region = x.regions[ra]
            cut = None
            if fresh is not None and fresh is not x and x.is_ancestor(fresh):
                cut = _block_in(fresh, x)
                cut = cut if cut.parent is region else None
            return _order_in_region(_block_in(a, x), _block_in(b, x), region, cut)
        if isinstance(x, EXCLUSIVE_REGIONS):
            return "exclusive"
        return "unknown"  # the regions of a loop, or of an op not known here
    for op in blk.ops:
        if op is x:
            return "before"
        if op is y:
            return "after"
    raise AssertionError("ops not in their block")


def _order_in_region(block_a: Block, block_b: Block, region: Region, cut: Block | None) -> str:
    """Two different blocks of one region: what its control-flow graph allows, along paths that
    do not enter `cut` (the block that makes the value anew)."""
    graph = RegionGraph.of(region)
    na, nb = graph.node(block_a), graph.node(block_b)
    avoid = graph.node(cut) if cut is not None else None
    a_then_b = graph.reaches(na, nb, avoid)
    b_then_a = graph.reaches(nb, na, avoid)
    if a_then_b and b_then_a:
        return "unknown"
    if a_then_b:
        return "before"
    if b_then_a:
        return "after"
    return "exclusive"


def _block_in(op: Operation, ancestor: Operation) -> Block:
    """The block of one of `ancestor`'s regions that holds `op`."""
    node = op
    while (parent := node.parent_op()) is not ancestor:
        assert parent is not None, "`ancestor` does not contain `op`"
        node = parent
    block = node.parent_block()
    assert block is not None
    return block


def _region_index(op: Operation, ancestor: Operation) -> int:
    node = op
    while (parent := node.parent_op()) is not ancestor:
        assert parent is not None, "`ancestor` does not contain `op`"
        node = parent
    return ancestor.regions.index(node.parent_region())


LOOPS = (scf.ForOp, scf.WhileOp, scf.ParallelOp)


def loop_between(use: Operation, value: SSAValue) -> Operation | None:
    """The innermost loop that repeats `use` without repeating the definition of `value`, if
    any: a structured loop enclosing `use` but not the definition, or a cycle of an unstructured
    region through `use`'s block that does not pass the definition's block. The op holding that
    loop or region is returned."""
    defining = owner(value)
    def_chain = set(map(id, _chain(defining))) if defining is not None else set()
    node = use
    while (block := node.parent_block()) is not None:
        region = block.parent
        parent = node.parent_op()
        if region is None or parent is None:
            return None
        if id(parent) in def_chain:
            # The definition is in this region too: only a cycle that avoids its block repeats
            # the use without making a new value.
            if len(region.blocks) > 1 and defining is not None:
                def_block = _block_in(defining, parent) if defining is not parent else None
                graph = RegionGraph.of(region)
                avoid = None
                if def_block is not None and def_block.parent is region:
                    avoid = graph.node(def_block)
                if avoid != graph.node(block) and graph.on_cycle_avoiding(graph.node(block), avoid):
                    return parent
            return None
        if len(region.blocks) > 1:
            graph = RegionGraph.of(region)
            if graph.on_cycle_avoiding(graph.node(block), None):
                return parent
        if isinstance(parent, LOOPS):
            return parent
        node = parent
    return None
