"""The SIMT surface's Python names: parameter annotations and the kernel intrinsics.

`ferrox.simt` re-exports all of them. Annotations name the IR types one-to-one:

    Slice[f32]                 !simt.slice<f32>              read-only, shared by all threads
    DisjointSlice[f32]         !simt.disjoint_slice<f32, 1d> written at this thread's element
    DisjointSlice[f32, space_2d(64)], [f32, SPACE_2D_RUNTIME], [f32, SPACE_WARP]   other spaces
                               (the strings "2d<64>", "2d_runtime", "warp" work too)
    AtomicSlice[i32]           !simt.atomic_slice<i32>       updated only with atomics
    Ptr[f32]                   !simt.ptr<f32>                raw, unsafe kernels only
    Witness["1d"]              !simt.thread_index<1d>        (device function parameters)
    f32, i32, index, ...       scalars; `float` is f32, `int` is index, `bool` is i1
    Constexpr                  a compile-time constant that specialises the kernel
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Attribute

from ferrox.dialects.simt import (
    AtomicSliceType,
    DisjointSliceType,
    IndexSpaceAttr,
    PtrType,
    SliceType,
    ThreadIndexType,
)
from ferrox.frontend.common.intrinsics import Intrinsic
from ferrox.frontend.common.types import DType, as_dtype

SPACES = ("1d", "2d<S>", "2d_runtime", "warp")
SPACE_1D = "1d"
SPACE_WARP = "warp"
SPACE_2D_RUNTIME = "2d_runtime"


def space_2d(stride: int) -> str:
    """The `2d<S>` index space, S a positive constant: `DisjointSlice[f32, space_2d(64)]`."""
    if not isinstance(stride, int) or isinstance(stride, bool) or stride <= 0:
        raise TypeError(f"space_2d takes a positive row stride, not {stride!r}")
    return f"2d<{stride}>"


@dataclass(frozen=True)
class TileSpace:
    """`space_tile(shape, chunk, dims)`: the chunk witnesses' space (`tile<[T...], w, argN>`):
    each thread owns chunks of `chunk` consecutive elements of its block's `shape` tile of a
    tensor whose dimensions are the parameters from `dims` (a parameter's name) on."""

    shape: tuple[int, ...]
    chunk: int
    dims: str

    def attr(self, positions: Mapping[str, int]) -> IndexSpaceAttr:
        if self.dims not in positions:
            raise TypeError(f"space_tile's dims `{self.dims}` is not a parameter of the kernel")
        return IndexSpaceAttr.tile(self.shape, self.chunk, positions[self.dims])

    def __str__(self) -> str:
        return f"tile<{list(self.shape)}, {self.chunk}, {self.dims}>"


def space_tile(shape: int | tuple[int, ...], chunk: int, dims: str) -> TileSpace:
    """The chunk witness's space: `DisjointSlice[f32, space_tile((1024,), 4, "n")]`."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return TileSpace(shape, chunk, dims)


def parse_space(text: Any, positions: Mapping[str, int] | None = None) -> IndexSpaceAttr:
    """`"1d"`, `"2d<64>"`, `"2d_runtime"`, `"warp"` or a `space_tile(...)` as the IR's index
    space (a tile space needs the kernel's parameter positions)."""
    if isinstance(text, IndexSpaceAttr):
        return text
    if isinstance(text, TileSpace):
        if positions is None:
            raise TypeError("a space_tile(...) slice is a kernel parameter only")
        return text.attr(positions)
    if text in ("1d", "2d_runtime", "warp"):
        return IndexSpaceAttr(text)
    match = re.fullmatch(r"2d<(\d+)>", str(text))
    if match and int(match.group(1)) > 0:
        return IndexSpaceAttr.two_d(int(match.group(1)))
    raise TypeError(f"unknown index space {text!r} (expected one of {', '.join(SPACES)})")


@dataclass(frozen=True)
class SliceAnnotation:
    """A parameter annotation of the SIMT surface: its IR type, read by `ir()`."""

    kind: str
    element: DType | None
    space: Any = "1d"

    def ir(self, positions: Mapping[str, int] | None = None) -> Attribute:
        """The IR type (`positions`: the kernel's parameters by name, for a tile space)."""
        if self.kind == "witness":
            return ThreadIndexType(parse_space(self.space, positions))
        assert self.element is not None
        element = self.element.ir
        if self.kind == "slice":
            return SliceType(element)
        if self.kind == "atomic":
            return AtomicSliceType(element)
        if self.kind == "ptr":
            return PtrType(element)
        return DisjointSliceType(element, parse_space(self.space, positions))

    def __repr__(self) -> str:
        names = {
            "slice": "Slice",
            "atomic": "AtomicSlice",
            "ptr": "Ptr",
            "disjoint": "DisjointSlice",
        }
        if self.kind == "witness":
            return f"Witness[{self.space!r}]"
        extra = f", {self.space!r}" if self.kind == "disjoint" and self.space != "1d" else ""
        return f"{names[self.kind]}[{self.element}{extra}]"


class _Family:
    def __init__(self, kind: str, name: str):
        self.kind = kind
        self.__name__ = name

    def __getitem__(self, item: Any) -> SliceAnnotation:
        if self.kind == "witness":
            parse_space(item)
            return SliceAnnotation("witness", None, str(item))
        items = item if isinstance(item, tuple) else (item,)
        element = as_dtype(items[0])
        if element is None:
            raise TypeError(f"{self.__name__}[...] takes an element type first, not {items[0]!r}")
        if self.kind == "disjoint":
            space = items[1] if len(items) > 1 else "1d"
            if not isinstance(space, TileSpace):
                parse_space(space)
                space = str(space)
            if len(items) > 2:
                raise TypeError("DisjointSlice[element, space] takes two parameters")
            return SliceAnnotation("disjoint", element, space)
        if len(items) != 1:
            raise TypeError(f"{self.__name__}[element] takes one parameter")
        return SliceAnnotation(self.kind, element)

    def __repr__(self) -> str:
        return self.__name__


Slice = _Family("slice", "Slice")
DisjointSlice = _Family("disjoint", "DisjointSlice")
AtomicSlice = _Family("atomic", "AtomicSlice")
Ptr = _Family("ptr", "Ptr")
Witness = _Family("witness", "Witness")


def _i(name: str, doc: str) -> Intrinsic:
    return Intrinsic(name, "SIMT kernel", doc)


class Dims:
    """`thread_id.x`, `block_id.y`, ...: the CUDA built-in vectors, each component an index."""

    def __init__(self, name: str, cuda: str):
        self.name = name
        self.__doc__ = f"`{name}.x|y|z`: CUDA's {cuda} (index)."

    def __repr__(self) -> str:
        return f"<ferrox {self.name}>"


thread_id = Dims("thread_id", "threadIdx")
block_id = Dims("block_id", "blockIdx")
block_dim = Dims("block_dim", "blockDim")
grid_dim = Dims("grid_dim", "gridDim")

thread_index_1d = _i("thread_index_1d", "the 1d witness: blockIdx.x * blockDim.x + threadIdx.x")
index_2d = _i("index_2d", "index_2d(S): the 2d<S> witness, row * S + col (S a constant)")
index_2d_runtime = _i("index_2d_runtime", "index_2d_runtime(width): the 2d_runtime witness")
warp_index = _i("warp_index", "the warp witness: the global warp id, held by lane 0")
witness_value = _i("witness_value", "witness_value(w), or w.value: the witness's index")
lane_id = _i("lane_id", "this thread's lane in its warp, 0 to 31 (index)")
shared = _i("shared", "shared(f32, (16, 16)): a static array in the block's shared memory")
sync_threads = _i("sync_threads", "__syncthreads(): every thread of the block must reach it")
shuffle_xor = _i("shuffle_xor", "shuffle_xor(v, m): v from lane ^ m (i32 or f32)")
shuffle_down = _i("shuffle_down", "shuffle_down(v, d): v from lane + d")
shuffle_up = _i("shuffle_up", "shuffle_up(v, d): v from lane - d")
shuffle_idx = _i("shuffle_idx", "shuffle_idx(v, k): v from lane k")
vote_all = _i("vote_all", "vote_all(p): p holds on every lane of the warp")
vote_any = _i("vote_any", "vote_any(p): p holds on some lane")
ballot = _i("ballot", "ballot(p): an i32 with bit k set where p holds on lane k")
unsafe = _i(
    "unsafe",
    "`with unsafe():` a region whose shared-memory and raw-pointer access the author vouches for",
)
tile_index = _i(
    "tile_index",
    "tile_index(out, k): the chunk witness for chunk k * threads + thread of this block's tile "
    "of `out` (a space_tile slice)",
)
load_chunk = _i(
    "load_chunk",
    "load_chunk(x, i, count, pad, width): x[i + j] for j < count, pad for the rest (a tuple)",
)
async_copy = _i(
    "async_copy",
    "async_copy(x, i, count, t, j, width): x[i + e] for e < count, zeros for the rest of the "
    "width elements (16 bytes), into t[j ..] of a 1-D shared array, landing by async_wait",
)
async_commit = _i("async_commit", "async_commit(): the copies issued since the last form a group")
async_wait = _i(
    "async_wait", "async_wait(pending): wait until at most `pending` groups (0 to 7) are in flight"
)
shared_load_vector = _i(
    "shared_load_vector",
    "shared_load_vector(t, i, width): t[i .. i + width) of a 1-D shared array in one access "
    "(a tuple; at most 16 bytes, i a multiple of width)",
)
ldmatrix = _i(
    "ldmatrix",
    "ldmatrix(t, i, trans=False): four 8 x 8 matrices of 16-bit elements as mma fragments "
    "(four i32; a warp collective)",
)
mma_sync = _i(
    "mma_sync",
    "mma_sync(bf16 or f16, a, b, c): a warp's 16 x 16 by 16 x 8 tensor-core product plus c, "
    "from fragment tuples (4 i32, 2 i32, 4 f32) to the 4 f32 of d",
)
ATOMIC_KINDS = ("add", "sub", "min", "max", "and", "or", "xor", "exch")
atomic_add = _i("atomic_add", "atomic_add(t, i, v, scope='gpu', ordering='relaxed') -> old")
atomic_sub = _i("atomic_sub", "atomic_sub(t, i, v) -> old (integers)")
atomic_min = _i("atomic_min", "atomic_min(t, i, v) -> old")
atomic_max = _i("atomic_max", "atomic_max(t, i, v) -> old")
atomic_and = _i("atomic_and", "atomic_and(t, i, v) -> old (integers)")
atomic_or = _i("atomic_or", "atomic_or(t, i, v) -> old (integers)")
atomic_xor = _i("atomic_xor", "atomic_xor(t, i, v) -> old (integers)")
atomic_exch = _i("atomic_exch", "atomic_exch(t, i, v) -> old")
atomic_cas = _i("atomic_cas", "atomic_cas(t, i, expected, new) -> old (integers)")
ATOMICS = {
    atomic_add: "add",
    atomic_sub: "sub",
    atomic_min: "min",
    atomic_max: "max",
    atomic_and: "and",
    atomic_or: "or",
    atomic_xor: "xor",
    atomic_exch: "exch",
}
