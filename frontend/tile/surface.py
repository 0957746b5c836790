"""The names a tile kernel uses: parameter annotations and the tile functions.

`Partition[f32, (4, 1024)]` is an exclusive output partition whose tiles are 4 x 1024 (static
powers of two); `Tensor[f32, (None, 1024)]` a shared input tensor, `None` a dimension known only
at launch; a dtype (`f32`, `i32`, `index`) a scalar; `Constexpr` a compile-time constant, which
annotations and shapes may use. Every function here is an `Intrinsic`: it exists only inside a
`@ferrox.tile.kernel`, where it becomes one tile op (docs/python-tile.md has the table).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ferrox.frontend.common.intrinsics import Intrinsic


@dataclass(frozen=True)
class ShapedAnnotation:
    """`Partition[dtype, shape]` or `Tensor[dtype, shape]` as evaluated from an annotation."""

    kind: str  # "partition" or "tensor"
    dtype: Any
    shape: Any

    def __repr__(self) -> str:
        return f"{self.kind.capitalize()}[{self.dtype!r}, {self.shape!r}]"


class _ShapedFactory:
    def __init__(self, kind: str, doc: str):
        self.kind = kind
        self.__doc__ = doc

    def __getitem__(self, item: Any) -> ShapedAnnotation:
        if not isinstance(item, tuple) or len(item) != 2:
            raise TypeError(
                f"{self.kind.capitalize()}[...] takes an element type and a shape, "
                f"e.g. {self.kind.capitalize()}[f32, (4, 1024)]"
            )
        return ShapedAnnotation(self.kind, item[0], item[1])

    def __repr__(self) -> str:
        return self.kind.capitalize()


Partition = _ShapedFactory(
    "partition",
    "`Partition[f32, (4, 1024)]`: an output tensor split into tiles of a static shape; each tile "
    "block owns one tile (the first partition fixes the grid).",
)
Tensor = _ShapedFactory(
    "tensor",
    "`Tensor[f32, (None, None)]`: a read-only input tensor; `None` is a dimension known at launch.",
)


def dims(shape: Any) -> list[Any]:
    """A shape annotation as a list of dimensions (an int or None alone is one dimension)."""
    if isinstance(shape, (list, tuple)):
        return list(shape)
    return [shape]


def _intrinsic(name: str, doc: str) -> Intrinsic:
    return Intrinsic(name, "tile kernel", doc)


load = _intrinsic(
    "load",
    "load(x, index, shape, padding='zero'): the tile at `index` of tensor x viewed as a grid of "
    "tiles of `shape`; elements outside x read as the padding (zero, neg_inf, pos_inf, nan).",
)
load_like = _intrinsic(
    "load_like",
    "load_like(x, out, padding='zero'): the tile of x at this block's position and shape in out.",
)
store = _intrinsic(
    "store",
    "store(value, out): write this block's tile of the output partition out (masked at edges).",
)
block_id = _intrinsic("block_id", "block_id(axis): this tile block's index along a grid axis.")
num_blocks = _intrinsic("num_blocks", "num_blocks(axis): the number of tile blocks along an axis.")
grid_order = _intrinsic(
    "grid_order",
    "grid_order(1, 0, 2, reverse=(1,)): CUDA grid axis i (x, y, z) walks tile-grid axis "
    "order[i], and the axes in `reverse` last tile first (block b takes tile n - 1 - b); a "
    "statement run once at compile time (a Constexpr `if` may choose it), changing only the "
    "launch order.",
)
dim = _intrinsic("dim", "dim(x, axis): a tensor's (or a whole partitioned tensor's) size.")
full = _intrinsic("full", "full(shape, value, dtype=None): a tile with every element `value`.")
zeros = _intrinsic("zeros", "zeros(shape, dtype=f32): a tile of zeros.")
iota = _intrinsic("iota", "iota(n, dtype=i32): the rank-1 tile [0, 1, ..., n-1].")
broadcast = _intrinsic(
    "broadcast", "broadcast(t, shape): NumPy broadcasting to `shape`, made explicit."
)
reshape = _intrinsic("reshape", "reshape(t, shape): the same elements in row-major order.")
transpose = _intrinsic("transpose", "transpose(t): a rank-2 tile transposed (also `t.T`).")
permute = _intrinsic("permute", "permute(t, axes): result axis i is axis axes[i] of t.")
sum = _intrinsic("sum", "sum(t, axis, keepdims=False): the sum along an axis.")
prod = _intrinsic("prod", "prod(t, axis, keepdims=False): the product along an axis.")
max = _intrinsic("max", "max(t, axis, keepdims=False): the maximum along an axis (NaN wins).")
min = _intrinsic("min", "min(t, axis, keepdims=False): the minimum along an axis (NaN wins).")
maximum = _intrinsic("maximum", "maximum(a, b): the elementwise maximum (NaN wins).")
minimum = _intrinsic("minimum", "minimum(a, b): the elementwise minimum (NaN wins).")
mma = _intrinsic("mma", "mma(x, y, acc): acc + x @ y (x [M, K], y [K, N], acc [M, N] f32).")
astype = _intrinsic("astype", "astype(t, dtype): each element converted (also `f32(t)`).")
extract = _intrinsic("extract", "extract(t): the scalar in a rank-0 tile.")
cdiv = _intrinsic("cdiv", "cdiv(a, b): ceil(a / b) of index values (a loop's trip count).")

REDUCTIONS = {sum: "sum", prod: "prod", max: "max", min: "min"}
SHAPE_OPS = (broadcast, reshape, transpose, permute)


def is_shape(value: Any) -> bool:
    """A compile-time tile shape: a tuple of ints (or one int)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return True
    return isinstance(value, (tuple, list)) and all(
        isinstance(d, int) and not isinstance(d, bool) for d in value
    )


ALL: Sequence[Intrinsic] = (
    load,
    load_like,
    store,
    block_id,
    num_blocks,
    grid_order,
    dim,
    full,
    zeros,
    iota,
    broadcast,
    reshape,
    transpose,
    permute,
    sum,
    prod,
    max,
    min,
    maximum,
    minimum,
    mma,
    astype,
    extract,
    cdiv,
)
