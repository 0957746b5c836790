"""Whether a launch's grid reaches every element of each exclusive output.

A disjoint slice is written only through a witness, and a witness exists only for the threads
the grid launches, so an element no thread's witness reaches stays as it was: poisoned, for an
output. The compiler records each witness-guarded write in the artifact (`Write`); the rule,
per write of parameter `%out` (threads_x = grid.x * block.x, threads_y = grid.y * block.y):

- `1d`: threads_x >= len(%out);
- `warp`: threads_x / 32 >= len(%out) (one writer per warp);
- `2d<S>` and `2d_runtime` (S = the width parameter's value): threads_x >= min(S, len(%out))
  columns and threads_y >= ceil(len(%out) / S) rows;
- `tile<[T0, ..], w, argN>` (block `b` owns the tile at `b * T` of a tensor whose dimensions
  are parameters `argN ..`): grid[i] >= ceil(S[d] / T[d]) for each d, with i the CUDA axis that
  walks tile axis d (the space's order; i = d by default). A reversed axis (`reverse [d]`:
  block b takes tile n_d - 1 - b) needs the same: its blocks 0 .. n_d - 1 are still every tile,
  last first, and a grid short of n_d leaves tiles 0 .. n_d - 1 - grid[i] unwritten;
- `tile<[T0, ..], w, argN, persistent>`: any grid of at least one block (each block of
  `y = z = 0` loops over tiles `t = ctaid.x, + nctaid.x, ..` below the tile count,
  docs/safety.md#simt-1-persistent).

Outputs written any other way (atomic slices, raw pointers) cannot be judged from the kernel's
types; their kernels state what they need as `requires`.
"""

from __future__ import annotations

from collections.abc import Callable

from ferrox.artifact import Write

Dim3 = tuple[int, int, int]


def problems(
    writes: tuple[Write, ...],
    grid: Dim3,
    block: Dim3,
    length: Callable[[int], int],
    scalar: Callable[[int], int],
    name: Callable[[int], str],
) -> list[str]:
    """One sentence per exclusive output the grid leaves partly unwritten."""
    tx = grid[0] * block[0]
    out: list[str] = []
    for w in writes:
        n = length(w.param)
        if n == 0:
            continue
        kind = w.space.kind
        what = f"len({name(w.param)}) = {n}"
        if kind == "1d":
            if tx < n:
                out.append(
                    f"the grid does not cover {name(w.param)}: its 1d witness reaches "
                    f"grid.x * block.x = {grid[0]} * {block[0]} = {tx} elements, but {what} "
                    f"(grid.x must be at least {-(-n // block[0])})"
                )
        elif kind == "warp":
            if tx // 32 < n:
                out.append(
                    f"the grid does not cover {name(w.param)}: its warp witness reaches "
                    f"grid.x * block.x / 32 = {tx // 32} elements (one per warp), but {what} "
                    f"(grid.x must be at least {-(-n * 32 // block[0])})"
                )
        elif kind in ("2d", "2d_runtime"):
            out.extend(_two_d(w, grid, block, n, scalar, name))
        elif kind == "tile" and w.space.persistent:
            if grid[0] * grid[1] * grid[2] < 1:
                out.append(
                    f"the grid does not cover {name(w.param)}: its persistent tile loop needs at "
                    "least one block"
                )
        elif kind == "tile" and w.space.dims_param is not None:
            out.extend(_tiles(w, w.space.dims_param, grid, scalar, name))
    return out


def _tiles(w: Write, first: int, grid: Dim3, scalar, name) -> list[str]:
    out = []
    for d, t in enumerate(w.space.tile):
        size = scalar(first + d)
        need = -(-size // t)
        i = w.space.block_axis(d)
        if grid[i] < need:
            axis = "xyz"[i]
            out.append(
                f"the grid does not cover {name(w.param)}: grid.{axis} = {grid[i]} tiles of {t}, "
                f"but dimension {d} ({name(first + d)}) is {size} "
                f"(grid.{axis} must be at least {need})"
            )
    return out


def _two_d(w: Write, grid: Dim3, block: Dim3, n: int, scalar, name) -> list[str]:
    if w.width_param is None:
        stride, which = w.space.stride, f"the row stride {w.space.stride}"
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


__all__ = ["problems"]
