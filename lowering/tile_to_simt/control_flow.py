"""The walk over a tile kernel's body, scalar code, and `scf.for` / `scf.if` with tile values.

A tile kernel's control flow is per tile block, so it stays control flow: the same `scf.for`
(its bounds are kernel parameters, block ids and arithmetic on them, so every thread of the
block runs the same iterations, as barriers and shuffles inside need) with each loop-carried
tile spread into its registers, in the layout `assign.py` chose. `scf.if` likewise. Scalar ops
(arith, math) are copied with their operands renamed. A tile op whose lowering has barriers or
warp collectives must be reached uniformly enough for them (`uniform.check`).
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects.tile.types import TileType
from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.tile_to_simt.context import Dist, Lowering
from ferrox.lowering.tile_to_simt.gemm import lower_pipelined
from ferrox.lowering.tile_to_simt.rules import RULES
from ferrox.lowering.tile_to_simt.uniform import check

SCALAR_DIALECTS = ("arith", "math")


def lower_block(ctx: Lowering, block: Block) -> None:
    for op in block.ops:
        lower_op(ctx, op)


def lower_op(ctx: Lowering, op: Operation) -> None:
    ctx.lowering(op)
    r = RULES.get(type(op))
    if r is not None:
        ctx.need = None
        r.lower(ctx, op)
        check(ctx.control, op, ctx.need)
    elif isinstance(op, scf.ForOp):
        _for(ctx, op)
    elif isinstance(op, scf.IfOp):
        _if(ctx, op)
    elif isinstance(op, scf.YieldOp):
        raise AssertionError("scf.yield is lowered with its parent")
    elif op.dialect_name() in SCALAR_DIALECTS and not op.regions:
        _clone(ctx, op)
    else:
        raise Unsupported(f"'{op.name}' has no lowering to SIMT inside a tile kernel")


def _clone(ctx: Lowering, op: Operation) -> None:
    if any(isinstance(v.type, TileType) for v in (*op.operands, *op.results)):
        raise Unsupported(f"'{op.name}' on tiles has no lowering; use the tile dialect's ops")
    mapping = {v: ctx.scalar(v) for v in op.operands}
    new = op.clone(value_mapper=mapping)
    if len(new.results) == 1:  # merged with an equal value, or folded, where it can be
        ctx.bind(op.results[0], ctx(new))
        return
    ctx.emit(new)
    for old, result in zip(op.results, new.results):
        ctx.bind(old, result)


def flatten(ctx: Lowering, values, targets) -> list[SSAValue]:
    """The SIMT values standing for `values` (tiles in the layout of the matching `targets`)."""
    out: list[SSAValue] = []
    for v, t in zip(values, targets):
        if isinstance(v.type, TileType):
            out.extend(ctx.tile(v, ctx.layout_of(t)))
        else:
            out.append(ctx.scalar(v))
    return out


def unflatten(ctx: Lowering, olds, news: list[SSAValue], like=None) -> None:
    """Bind each of `olds` to its share of `news`, in the order `flatten` gave them: a tile in
    its own layout, or in that of the matching value of `like` (a loop's results are in its
    carried values' layouts, whatever layout the assignment hinted for them)."""
    i = 0
    for n, old in enumerate(olds):
        if isinstance(old.type, TileType):
            layout = ctx.layout_of(old if like is None else like[n])
            ctx.bind(old, Dist(layout, news[i : i + layout.num_regs]))
            i += layout.num_regs
        else:
            ctx.bind(old, news[i])
            i += 1


def _lower_region_into(ctx: Lowering, source: Block, target: Block, carried) -> None:
    """Lower `source`'s ops into `target`; its `scf.yield` yields in `carried`'s layouts."""
    with ctx.at(InsertPoint.at_end(target)):
        for op in source.ops:
            if isinstance(op, scf.YieldOp):
                ctx.lowering(op)
                ctx.emit(scf.YieldOp(*flatten(ctx, op.operands, carried)))
            else:
                lower_op(ctx, op)


def _for(ctx: Lowering, op: scf.ForOp) -> None:
    if lower_pipelined(ctx, op):  # a GEMM main loop (gemm.py)
        return
    body = op.body.block
    carried = list(body.args[1:])
    inits = flatten(ctx, op.iter_args, carried)
    lb, ub, step = (ctx.scalar(v) for v in (op.lb, op.ub, op.step))
    new_body = Block(arg_types=[op.body.block.args[0].type, *(v.type for v in inits)])
    ctx.bind(body.args[0], new_body.args[0])
    unflatten(ctx, carried, list(new_body.args[1:]))
    ctx.loop_depth += 1
    try:
        _lower_region_into(ctx, body, new_body, carried)
    finally:
        ctx.loop_depth -= 1
    ctx.lowering(op)
    new = scf.ForOp(lb, ub, step, inits, Region(new_body))
    ctx.emit(new)
    unflatten(ctx, op.results, list(new.results), like=carried)


def _if(ctx: Lowering, op: scf.IfOp) -> None:
    cond = ctx.scalar(op.cond)
    results = list(op.results)
    then = Block()
    _lower_region_into(ctx, op.true_region.block, then, results)
    other = None
    if op.false_region.blocks:
        other = Block()
        _lower_region_into(ctx, op.false_region.block, other, results)
    ctx.lowering(op)
    types = [t for r in results for t in _types(ctx, r)]
    new = scf.IfOp(cond, types, Region(then), Region(other) if other is not None else None)
    ctx.emit(new)
    unflatten(ctx, results, list(new.results))


def _types(ctx: Lowering, value: SSAValue):
    if isinstance(value.type, TileType):
        return [value.type.element_type] * ctx.layout_of(value).num_regs
    return [value.type]


__all__ = ["flatten", "lower_block", "lower_op", "unflatten"]
