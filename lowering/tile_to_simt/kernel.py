"""`tile.kernel` to `simt.kernel`: the parameters, the launch contract, what the host needs to
launch it, and `tile.return`.

Parameters, in the tile kernel's order, each tensor followed by its dimensions:
- an output partition `!tile.partition<E, T>` of rank `r` becomes
  `!simt.disjoint_slice<E, tile<T, w, argN>>` and `r` `index` parameters `argN ..` (the
  partitioned tensor's shape);
- an input tensor `!tile.tensor<E, S>` becomes `!simt.slice<E>` and `rank(S)` dimensions;
- a scalar stays a scalar.

The contract: `domain` = the grid's rank (the first partition's), `block = [threads]`, and for
each tensor `len(slice) == d0 * d1 * ...`, which the host checks before a safe launch, so the
dimensions the kernel computes with are the buffers' real shape.

For the host, the SIMT kernel keeps the tile kernel's name and carries
- `tile.lowering = {threads = P, elems_per_thread = w}`: the block is `[P]`; `w` is the first
  partition's chunk width;
- `tile.params`: for each SIMT parameter, where its value comes from: `"argI"` (tile parameter
  `I` itself: its buffer, or the scalar) or `"argI.dimD"` (dimension `D` of tile parameter `I`);
- `tile.grid = {partition = I, tile = array<i64: T0, ...>}`: tile-grid dimension `d` is
  `ceildiv(dim d of tile parameter I, T[d])`, the first partition's tiles (x, y, z in order),
  and with `order = array<i64: ...>` (a kernel's non-identity `grid_order`) CUDA grid axis `i`
  is tile-grid dimension `order[i]`; every partition's space carries the same order; with
  `persistent` (a persistent kernel, `persistent.py`) the host launches `min(tiles, SMs)`
  blocks on grid.x, the contract's domain is 1 and the output's space `tile<..., persistent>`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation

from ferrox.dialects import simt, tile
from ferrox.dialects.simt.contract import LaunchContractAttr, SizeExprAttr, SizeRelationAttr
from ferrox.dialects.simt.types import DisjointSliceType, IndexSpaceAttr, SliceType
from ferrox.dialects.tile.types import PartitionType, TileTensorType, TileType
from ferrox.lowering.tile_to_simt.config import Config
from ferrox.lowering.tile_to_simt.context import Lowering, Tensor
from ferrox.lowering.tile_to_simt.persistent import GRID_PERSISTENT_KEY
from ferrox.lowering.tile_to_simt.rules import no_results, rule

LOWERING_ATTR = "tile.lowering"
PARAMS_ATTR = "tile.params"
GRID_ATTR = "tile.grid"
GRID_ORDER_KEY = "order"
"""In GRID_ATTR of a kernel with a non-identity grid order: CUDA axis i walks tile axis order[i]."""
GRID_REVERSE_KEY = "reverse"
"""In GRID_ATTR of a kernel with a grid reversal: the tile-grid axes walked last tile first."""
PORTABLE_KEY = "portable"
"""In LOWERING_ATTR of a kernel whose loads go through TMA: the kernel to launch instead when a
launch's tensors cannot have TMA maps, its portable twin, compiled apart when a launch first
needs it (`convert.py`, `PORTABLE_ATTR`)."""
TWIN_OF_KEY = "twin_of"
"""In LOWERING_ATTR of a portable twin: the tile kernel it is the twin of (whose parameters it
takes)."""
PORTABLE_ATTR = "ferrox.portable"
"""On a module: the names of the tile kernels whose portable twins the tile lowering makes, and
nothing else (the twins' own compile: `targets.cache.portable_artifact`)."""


@dataclass(frozen=True)
class Param:
    type: Attribute
    name: str | None
    source: str


def partition_chunk(t: PartitionType, config: Config) -> int:
    shape = t.get_shape()
    return config.width(t.element_type, shape[-1])


def signature(kernel: tile.KernelOp, config: Config) -> list[Param]:
    params: list[Param] = []
    order = kernel.get_grid_order()
    for i, arg in enumerate(kernel.args):
        t = arg.type
        name = arg.name_hint
        if isinstance(t, PartitionType | TileTensorType):
            first_dim = len(params) + 1
            if isinstance(t, PartitionType):
                chunk = partition_chunk(t, config)
                space = IndexSpaceAttr.tile(
                    t.get_shape(),
                    chunk,
                    first_dim,
                    order,
                    persistent=config.persistent,
                    grid_reverse=kernel.get_grid_reverse(),
                )
                slice_type: Attribute = DisjointSliceType(t.element_type, space)
            else:
                slice_type = SliceType(t.element_type)
            params.append(Param(slice_type, name, f"arg{i}"))
            for d in range(t.rank):
                params.append(
                    Param(IndexType(), f"{name}_d{d}" if name else None, f"arg{i}.dim{d}")
                )
        else:
            params.append(Param(t, name, f"arg{i}"))
    return params


def contract(kernel: tile.KernelOp, params: list[Param], config: Config) -> LaunchContractAttr:
    relations = []
    for j, p in enumerate(params):
        if isinstance(p.type, SliceType | DisjointSliceType):
            rank = 0
            while j + 1 + rank < len(params) and params[j + 1 + rank].source.startswith(
                f"{p.source}.dim"
            ):
                rank += 1
            size = SizeExprAttr.arg(j + 1)
            for d in range(1, rank):
                size = size.binary("*", SizeExprAttr.arg(j + 1 + d))
            relations.append(SizeRelationAttr(SizeExprAttr.len_of(j), "==", size))
    domain = 1 if config.persistent else kernel.grid_rank  # a persistent grid is grid.x alone
    return LaunchContractAttr(domain, [config.threads], requires=relations)


def host_attributes(
    kernel: tile.KernelOp, params: list[Param], config: Config
) -> dict[str, Attribute]:
    first = kernel.partitions[0]
    part = first.type
    assert isinstance(part, PartitionType)
    grid: dict[str, Attribute] = {
        "partition": IntegerAttr(first.index, i64),
        "tile": DenseArrayBase.from_list(i64, part.get_shape()),
    }
    if kernel.grid_order is not None:
        grid[GRID_ORDER_KEY] = DenseArrayBase.from_list(i64, list(kernel.get_grid_order()))
    if kernel.grid_reverse is not None:
        grid[GRID_REVERSE_KEY] = DenseArrayBase.from_list(i64, list(kernel.get_grid_reverse()))
    if config.persistent:
        grid[GRID_PERSISTENT_KEY] = UnitAttr()
    return {
        LOWERING_ATTR: DictionaryAttr(
            {
                "threads": IntegerAttr(config.threads, i64),
                "elems_per_thread": IntegerAttr(partition_chunk(part, config), i64),
            }
        ),
        PARAMS_ATTR: ArrayAttr(StringAttr(p.source) for p in params),
        GRID_ATTR: DictionaryAttr(grid),
    }


def new_kernel(kernel: tile.KernelOp, config: Config) -> tuple[simt.KernelOp, list[Param]]:
    params = signature(kernel, config)
    op = simt.KernelOp(
        kernel.sym_name.data, [p.type for p in params], contract(kernel, params, config)
    )
    op.attributes.update(host_attributes(kernel, params, config))
    op.location = kernel.location
    for arg, p in zip(op.body.blocks[0].args, params):
        if p.name:
            arg.name_hint = p.name
    return op, params


def bind_params(ctx: Lowering, kernel: tile.KernelOp, simt_kernel: simt.KernelOp) -> None:
    """Each tile parameter's SIMT values, in the order `signature` laid them out."""
    args = list(simt_kernel.body.blocks[0].args)
    j = 0
    for arg in kernel.args:
        t = arg.type
        if isinstance(t, PartitionType | TileTensorType):
            tensor = Tensor(
                args[j],
                args[j + 1 : j + 1 + t.rank],
                t.get_shape() if isinstance(t, PartitionType) else None,
            )
            ctx.bind(arg, tensor)
            if isinstance(t, PartitionType) and ctx.grid is None:
                ctx.grid = tensor
                ctx.grid_order = kernel.get_grid_order()
                ctx.grid_reverse = kernel.get_grid_reverse()
            j += 1 + t.rank
        else:
            ctx.bind(arg, args[j])
            j += 1


def kernel_tiles(kernel: tile.KernelOp) -> list[tuple[int, Attribute, int]]:
    """(elements, element type, last dimension) of every tile the kernel handles."""
    found = []
    for op in kernel.walk():
        values = list(op.results) + [a for r in op.regions for b in r.blocks for a in b.args]
        for v in values:
            t = v.type
            if isinstance(t, TileType | PartitionType) and t.get_shape():
                shape = t.get_shape()
                n = 1
                for d in shape:
                    n *= d
                found.append((n, t.element_type, shape[-1]))
    return found


@rule(tile.ReturnOp, infer=no_results)
def lower_return(ctx: Lowering, op: Operation) -> None:
    if ctx.specialized is not None:  # the kernel's return follows the `simt.specialize`
        ctx.emit(simt.YieldOp())
        return
    if ctx.persistent is not None:  # the tile's body ends: the next tile, then the return
        from ferrox.lowering.tile_to_simt import persistent

        persistent.end(ctx, ctx.persistent)
        return
    ctx.emit(simt.ReturnOp())


__all__ = [
    "GRID_ATTR",
    "GRID_ORDER_KEY",
    "GRID_REVERSE_KEY",
    "GRID_PERSISTENT_KEY",
    "LOWERING_ATTR",
    "PARAMS_ATTR",
    "PORTABLE_KEY",
    "Param",
    "bind_params",
    "kernel_tiles",
    "new_kernel",
    "signature",
]
