"""Whether a launch's grid reaches every element of each disjoint output.

A disjoint slice is written only through a witness, and a witness exists only for the threads
the grid launches, so an element no thread's witness reaches stays as it was: poisoned, for an
output. Where the kernel's types say how threads map to elements, `prepare` refuses such a
grid before the launch. The rule, per `simt.get_mut` on a disjoint-slice parameter `%out`
(threads_x = grid.x * block.x, threads_y = grid.y * block.y):

- `1d`: threads_x >= len(%out);
- `warp`: threads_x / 32 >= len(%out) (one writer per warp);
- `2d<S>` and `2d_runtime` (S = the width parameter's value): threads_x >= min(S, len(%out))
  columns and threads_y >= ceil(len(%out) / S) rows;
- `tile<[T0, ..], w, argN>` (per `simt.store_chunk`; block `b` owns the tile at `b * T` of a
  tensor of dimensions `S` = parameters `argN ..`): grid[d] >= ceil(S[d] / T[d]) for each d.

Outputs written any other way (atomic slices, raw pointers) and inputs read through plain
thread ids cannot be judged from the IR; their kernels state what they need as `requires`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.ir import BlockArgument, SSAValue

from ferrox.dialects import simt
from ferrox.dialects.simt.types import DisjointSliceType

Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class Write:
    """One witness-guarded write: which parameter, which index space, which width parameter."""

    param: int
    space: str
    stride: int = 0
    width_param: int | None = None
    tile: tuple[int, ...] = ()


def _param_index(kernel: simt.KernelOp, value: SSAValue) -> int | None:
    if isinstance(value, BlockArgument) and value.owner is kernel.body.blocks[0]:
        return value.index
    return None


def writes(kernel: simt.KernelOp) -> list[Write]:
    """Every get_mut of a kernel parameter, with what its witness says about coverage."""
    found: list[Write] = []
    for op in kernel.walk():
        if isinstance(op, simt.StoreChunkOp):
            param = _param_index(kernel, op.slice)
            space = getattr(op.slice.type, "space", None)
            if param is not None and space is not None and space.kind.data == "tile":
                write = Write(
                    param, "tile", width_param=space.dims_arg.data, tile=space.get_tile_shape()
                )
                if write not in found:
                    found.append(write)
            continue
        if not isinstance(op, simt.GetMutOp):
            continue
        param = _param_index(kernel, op.slice)
        if param is None or not isinstance(op.slice.type, DisjointSliceType):
            continue
        space = op.slice.type.space
        width = None
        producer = op.witness.owner
        if isinstance(producer, simt.Index2DRuntimeOp):
            width = _param_index(kernel, producer.width)
            if width is None:
                continue  # a width the host cannot know; verify-disjoint requires a parameter
        write = Write(param, space.kind.data, space.stride.data, width)
        if write not in found:
            found.append(write)
    return found


def problems(
    kernel: simt.KernelOp,
    grid: Dim3,
    block: Dim3,
    length: Callable[[int], int],
    scalar: Callable[[int], int],
    name: Callable[[int], str],
) -> list[str]:
    """One sentence per disjoint output the grid leaves partly unwritten."""
    tx, ty = grid[0] * block[0], grid[1] * block[1]
    out: list[str] = []
    for w in writes(kernel):
        n = length(w.param)
        if n == 0:
            continue
        what = f"len({name(w.param)}) = {n}"
        if w.space == "1d":
            if tx < n:
                out.append(
                    f"the grid does not cover {name(w.param)}: its 1d witness reaches grid.x * block.x "
                    f"= {grid[0]} * {block[0]} = {tx} elements, but {what} "
                    f"(grid.x must be at least {-(-n // block[0])})"
                )
        elif w.space == "warp":
            if tx // 32 < n:
                out.append(
                    f"the grid does not cover {name(w.param)}: its warp witness reaches "
                    f"grid.x * block.x / 32 = {tx // 32} elements (one per warp), but {what} "
                    f"(grid.x must be at least {-(-n * 32 // block[0])})"
                )
        elif w.space in ("2d", "2d_runtime"):
            out.extend(_two_d(w, grid, block, n, scalar, name))
        elif w.space == "tile" and w.width_param is not None:
            out.extend(_tiles(w, grid, scalar, name))
    return out


def _tiles(w: Write, grid: Dim3, scalar, name) -> list[str]:
    out = []
    for d, t in enumerate(w.tile):
        size = scalar(w.width_param + d)
        need = -(-size // t)
        if grid[d] < need:
            axis = "xyz"[d]
            out.append(
                f"the grid does not cover {name(w.param)}: grid.{axis} = {grid[d]} tiles of {t}, but "
                f"dimension {d} ({name(w.width_param + d)}) is {size} (grid.{axis} must be at least {need})"
            )
    return out


def _two_d(w: Write, grid: Dim3, block: Dim3, n: int, scalar, name) -> list[str]:
    if w.width_param is None:
        stride, which = w.stride, f"the row stride {w.stride}"
    else:
        stride = scalar(w.width_param)
        which = f"the row width {name(w.width_param)} = {stride}"
    if stride <= 0:
        return [
            f"{name(w.param)} has {n} elements, but {which} leaves no element in bounds "
            "of any witness"
        ]
    tx, ty = grid[0] * block[0], grid[1] * block[1]
    cols, rows = min(stride, n), -(-n // stride)
    out = []
    if tx < cols:
        out.append(
            f"the grid does not cover {name(w.param)}: grid.x * block.x = {grid[0]} * {block[0]} "
            f"= {tx} columns, but {which} needs {cols} (grid.x must be at least "
            f"{-(-cols // block[0])})"
        )
    if ty < rows:
        out.append(
            f"the grid does not cover {name(w.param)}: grid.y * block.y = {grid[1]} * {block[1]} "
            f"= {ty} rows, but len({name(w.param)}) = {n} at {which} needs {rows} "
            f"(grid.y must be at least {-(-rows // block[1])})"
        )
    return out
