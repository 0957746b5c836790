"""A tile launch in terms of the SIMT kernel it was compiled to.

The caller passes the tile kernel's arguments (output partitions as whole arrays, input
tensors, scalars). `TileLaunch.sources` says where each SIMT parameter's value comes from: a
tile argument itself, or one dimension of its tensor. The grid has one block per tile of the
partition `grid_partition`; every `!tile.tensor` dimension the type fixes must be the bound
array's. A kernel's grid order (`TileLaunch.grid_order`) puts tile-grid axis `order[i]` on CUDA
axis i: the grids here are CUDA grids (what launches), the tile grid permuted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ferrox.artifact import KernelArtifact, ParamKind, TileLaunch
from ferrox.driver.checker.args import BufferArg


def _shape(shape: Sequence[int | None]) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def tile_grid(
    kernel: KernelArtifact, args: Sequence[object], sms: int = 1
) -> tuple[int, ...] | None:
    """The CUDA grid the partition `grid_partition` asks for, in the kernel's grid order (None
    when its argument is no buffer); for a persistent kernel `min(tiles, sms)` blocks on grid.x,
    `sms` the device's multiprocessor count."""
    tile = kernel.tile
    assert tile is not None
    buffer = args[tile.grid_partition]
    if not isinstance(buffer, BufferArg) or len(buffer.shape) != len(tile.grid_tile):
        return None
    return tile.launch_grid(tile.tile_counts(buffer.shape), sms)


def grid_axis_note(kernel: str, tile: TileLaunch, axis: int, size: int) -> str:
    """Why grid axis `axis` of a tile launch is `size` blocks, over the device's limit: the
    tile-grid axis the kernel's grid order put there (y and z allow 65535 blocks, x 2^31 - 1)."""
    d = tile.grid_order[axis] if tile.grid_order else axis
    xyz = "xyz"[axis]
    order = f"its grid order {list(tile.grid_order)}" if tile.grid_order else "the default order"
    return (
        f"{kernel}'s tile-grid axis {d} has {size} tiles and {order} puts it on grid.{xyz} "
        "(put it on grid.x, which allows 2^31 - 1, or use larger tiles)"
    )


def shape_problems(kernel: str, kernel_art: KernelArtifact, args: Sequence[object],
                   name: Callable[[int], str]) -> list[str]:  # fmt: skip
    """Each tile tensor's and partition's rank, and every static dimension, against its array."""
    out = []
    for i, (param, value) in enumerate(zip(kernel_art.params, args)):
        if param.kind not in (ParamKind.TILE_TENSOR, ParamKind.PARTITION):
            continue
        if not isinstance(value, BufferArg):
            continue
        if len(value.shape) != len(param.shape):
            out.append(
                f"{name(i)} of {kernel} has shape {_shape(param.shape)} (rank {len(param.shape)}), "
                f"but the array bound to it has shape {list(value.shape)}"
            )
            continue
        for d, (need, got) in enumerate(zip(param.shape, value.shape)):
            if need is not None and need != got:
                out.append(
                    f"{name(i)} of {kernel} has shape {_shape(param.shape)}, but the array bound "
                    f"to it has shape {list(value.shape)} (dimension {d} is {got}, not {need})"
                )
    return out


def grid_problems(kernel: str, kernel_art: KernelArtifact, grid: tuple[int, ...],
                  args: Sequence[object], name: Callable[[int], str]) -> list[str]:  # fmt: skip
    """The tile grid rule: one block per tile of every output partition, the same for each; a
    persistent kernel (docs/safety.md#simt-1-persistent) any 1-D grid of at least one block."""
    out = []
    if kernel_art.tile is not None and kernel_art.tile.persistent:
        if len(grid) != 1 or grid[0] < 1:
            out.append(
                f"grid is {list(grid)}, but {kernel} is persistent: it loops over its tiles on "
                "a 1-D grid of at least one block (the host launches min(tiles, SMs) blocks)"
            )
        return out
    for i, param in enumerate(kernel_art.params):
        value = args[i]
        if param.kind is not ParamKind.PARTITION or not isinstance(value, BufferArg):
            continue
        if len(value.shape) != len(param.tile):
            continue  # reported by shape_problems
        tiles = tuple(-(-s // t) for s, t in zip(value.shape, param.tile))
        need = kernel_art.tile.launch_grid(tiles) if kernel_art.tile else tiles
        if tuple(grid) != need:
            order = kernel_art.tile.grid_order if kernel_art.tile else ()
            how = f" in its grid order {list(order)}" if order else ""
            out.append(
                f"grid is {list(grid)}, but {kernel}'s output partition {name(i)} of shape "
                f"{list(value.shape)} in tiles of {list(param.tile)} has {list(tiles)} tiles "
                f"(the grid must be {list(need)}{how})"
            )
    return out


def simt_arguments(tile: TileLaunch, args: Sequence[object]) -> list[object]:
    """The lowered kernel's arguments, in its parameter order, from the tile launch's `args`."""
    values: list[object] = []
    for i, d in tile.sources:
        value = args[i]
        if d is None:
            values.append(value)
        else:
            assert isinstance(value, BufferArg)
            values.append(value.shape[d])
    return values


__all__ = ["grid_problems", "grid_axis_note", "shape_problems", "simt_arguments", "tile_grid"]
