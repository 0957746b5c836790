"""`tile.constant`, `tile.full`, `tile.iota` (made where they are used, in the layout wanted
there) and `tile.extract`.

- A splat constant and `tile.full` are one value in every register.
- `tile.iota` is each register's element coordinate (`index`), converted to the element type
  (`index_cast` for integers, `sitofp` for floats: round to nearest even).
- A constant that lists its elements is known per register only where the layout gives every
  thread every element (`replicated`); elsewhere it is made replicated (thread 0 stores the
  table) and exchanged through shared memory.
- `tile.extract` of a rank-0 tile is its one register (every thread holds it).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, i64
from xdsl.ir import Operation, SSAValue

from ferrox.dialects import tile
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.tile_to_simt.context import Dist, Lazy, Lowering
from ferrox.lowering.tile_to_simt.exchange import convert
from ferrox.lowering.tile_to_simt.layout import Layout, replicated
from ferrox.lowering.tile_to_simt.rules import no_results, rule


def _lazy(op: Operation, operands, config) -> list[Layout | None]:
    return [None]


def _constant(ctx: Lowering, op: tile.ConstantOp, layout: Layout) -> list[SSAValue]:
    t = op.result.type
    assert isinstance(t, TileType)
    values = list(op.value.get_values())
    element = t.element_type
    if op.value.is_splat() or len(set(values)) == 1:
        v = ctx.constant(values[0], element)
        return [v] * layout.num_regs
    if layout.replica_mask == (1 << len(layout.lanes)) - 1:
        return [
            ctx.constant(values[layout.static_element(r)], element) for r in range(layout.num_regs)
        ]
    table = replicated(layout.shape, layout.threads)
    return convert(ctx, Dist(table, _constant(ctx, op, table)), layout)


@rule(tile.ConstantOp, infer=_lazy)
def lower_constant(ctx: Lowering, op: tile.ConstantOp) -> None:
    ctx.bind(op.result, Lazy(lambda layout: _constant(ctx, op, layout)))


@rule(tile.FullOp, infer=_lazy)
def lower_full(ctx: Lowering, op: tile.FullOp) -> None:
    value = ctx.scalar(op.value)
    ctx.bind(op.result, Lazy(lambda layout: [value] * layout.num_regs))


def _iota(ctx: Lowering, element, layout: Layout) -> list[SSAValue]:
    out = []
    for r in range(layout.num_regs):
        (i,) = ctx.coords(layout, r)
        if isinstance(element, IndexType):
            out.append(i)
        elif isinstance(element, IntegerType):
            out.append(ctx(arith.IndexCastOp(i, element)))
        else:
            assert isinstance(element, AnyFloat)
            out.append(ctx(arith.SIToFPOp(ctx(arith.IndexCastOp(i, i64)), element)))
    return out


@rule(tile.IotaOp, infer=_lazy)
def lower_iota(ctx: Lowering, op: tile.IotaOp) -> None:
    t = op.result.type
    assert isinstance(t, TileType)
    ctx.bind(op.result, Lazy(lambda layout: _iota(ctx, t.element_type, layout)))


@rule(tile.ExtractOp, infer=no_results)
def lower_extract(ctx: Lowering, op: tile.ExtractOp) -> None:
    (value,) = ctx.tile(op.input, replicated((), ctx.threads))
    ctx.bind(op.result, value)


__all__ = ["lower_constant", "lower_extract", "lower_full", "lower_iota"]
