"""A persistent tile kernel (issue 13; `gemm_wgmma.PERSISTENT`, off by default): one loop over the
kernel's tiles instead of one block a tile.

The lowered kernel's body is `for %t = %first to %count step %step` over a `simt.tile_schedule`
of its output's persistent space (docs/safety.md#simt-1-persistent): `%first` the block's
`ctaid.x`, `%count` the tile count (0 off `ctaid.y = ctaid.z = 0`), `%step` the grid's
`nctaid.x`. The tile kernel's body runs once per iteration for tile `%t`: `tile.block_id d` is
`b_d` of `%t` decomposed as the schedule does it (`b_0 = t mod n_0`, `b_1 = (t div n_0) mod
n_1`, axis 0 fastest), the stores' witnesses name `tile(%t)`, and the loop carries `%round`, the
block's tile count so far (0 for its first tile), for the wgmma ring (`gemm_wgmma.Wgmma`),
which runs on across tiles. The host launches
`min(tiles, SMs)` blocks on grid.x (`TileLaunch.persistent`); any grid of at least one block
writes every tile once.

Which kernels: those `applies` accepts (one output partition, no grid order, an sm_90 wgmma
loop on the default schedule whose tile keeps one block an SM, 128 x 256 or 256 x 128, its A
rows and B columns tile axes 0 and 1); the rest keep one block a tile, byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.types import DisjointSliceType

GRID_PERSISTENT_KEY = "persistent"
"""In `tile.grid` of a persistent kernel (a unit attribute): the host launches min(tiles, SMs)
blocks on grid.x."""


def applies(kernel: tile.KernelOp, chip: str) -> bool:
    """Whether `kernel` lowers persistent (module docstring)."""
    from ferrox.lowering.tile_to_simt import gemm_wgmma

    if not gemm_wgmma.PERSISTENT or kernel.grid_order is not None or kernel.grid_reverse:
        return False
    if len(kernel.partitions) != 1:
        return False
    from ferrox.lowering.tile_to_simt.gemm import match

    plans = gemm_wgmma._plans(kernel, chip)
    if not plans or plans[0].producers:
        return False
    p = plans[0]
    if p.m * p.n // p.threads <= gemm_wgmma.TWO_BLOCKS_ACCUMULATORS:
        return False  # two blocks an SM: a grid of one block an SM would idle half of it
    # The ring loads the next tile's first iterations (`Wgmma.step_at`) from its block ids: the
    # loop's A rows and B columns must be tile axes 0 and 1 themselves.
    for op in kernel.body.block.ops:
        if isinstance(op, scf.ForOp) and (g := match(op)) is not None:
            return _axis(g.i) == 0 and _axis(g.j) == 1
    return False


def _axis(value: SSAValue) -> int | None:
    owner = value.owner
    return owner.axis.value.data if isinstance(owner, tile.BlockIdOp) else None


@dataclass
class Loop:
    """The persistent loop being emitted: its op, the schedule's results, `%t`, `%n`, and `%t`'s
    tile coordinates."""

    op: scf.ForOp
    first: SSAValue
    count: SSAValue
    step: SSAValue
    tile: SSAValue
    iteration: SSAValue
    coords: list[SSAValue]
    dims: list[SSAValue]
    shape: tuple[int, ...]

    def coords_of(self, ctx, t: SSAValue) -> list[SSAValue]:
        """Tile `t`'s coordinates, as `simt.tile_schedule` numbers tiles (its docstring)."""
        out = []
        q = t
        for dim, size in zip(self.dims, self.shape):
            n = ctx(arith.CeilDivUIOp(dim, ctx.index(size)))
            n = ctx(arith.MaxUIOp(n, ctx.index(1)))  # inside the loop every n_d >= 1
            out.append(ctx(arith.RemUIOp(q, n)))
            q = ctx(arith.DivUIOp(q, n))
        return out


def begin(ctx) -> Loop:
    """Emit the schedule and the loop at the current point and continue inside its body."""
    grid = ctx.grid
    assert grid is not None and grid.tile is not None
    t = grid.slice.type
    assert isinstance(t, DisjointSliceType) and t.space.is_persistent
    schedule = ctx.emit(simt.TileScheduleOp(list(grid.dims), t.space))
    first, count, step = schedule.results
    first.name_hint, count.name_hint, step.name_hint = "first", "count", "step"
    body = Block(arg_types=[IndexType(), IndexType()])
    zero = ctx.index(0)
    op = scf.ForOp(first, count, step, [zero], Region(body))
    ctx.emit(op)
    body.args[0].name_hint, body.args[1].name_hint = "tile", "round"
    ctx.continue_in(body)
    loop = Loop(op, first, count, step, body.args[0], body.args[1], [], list(grid.dims),
                grid.tile)  # fmt: skip
    loop.coords = loop.coords_of(ctx, loop.tile)
    return loop


def end(ctx, loop: Loop) -> None:
    """Close the loop body (the next iteration count) and emit the kernel's return after it."""
    ctx.emit(scf.YieldOp(ctx(arith.AddiOp(loop.iteration, ctx.index(1)))))
    ctx.leave(InsertPoint.after(loop.op))
    ctx.emit(simt.ReturnOp())


__all__ = ["GRID_PERSISTENT_KEY", "Loop", "applies", "begin", "end"]
