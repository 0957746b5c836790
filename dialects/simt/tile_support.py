"""What the tile track's lowering needs of SIMT: a witness to a chunk of a tile, chunked stores
through it, and chunked padded loads (16-byte accesses where alignment allows).

A tile kernel lowered to SIMT (`convert-tile-to-simt`) runs one CUDA block per tile block; each
thread owns chunks of `w` consecutive elements of its block's output tile. The index space
`tile<[T0, ..., T(r-1)], w, argN>` says which:

- the tile shape `T` (rank 1 to 3, powers of two) and the chunk width `w` (a power of two that
  divides `T(r-1)`, so a chunk lies in one row of the tile);
- `argN`: the kernel parameters `argN .. argN+r-1` hold the tensor's dimensions `S` (`index`).

Every witness of one space uses the same `T`, `w` and `S` (its `dims` operands must be those
parameters, checked by `simt.tile_index`'s verifier), so the space alone fixes which element a
witness names. With `P` the block's thread count and `t` the thread's linear index in its block,
`simt.tile_index %k` names chunk `c = k * P + t` of the tile of block `b`, `b_d = ctaid[i]` for the
CUDA grid axis `i` that walks tile-grid axis `d` (`order[i] = d`; the identity, `b = ctaid[0 ..
r)`, unless the space says `order [...]`): tile elements with row-major flat index `c*w + j` for
`j < w`, at tensor coordinates `b * T + e`. Two threads of one block have different `c`, two
blocks different tiles (the order is a permutation of the axes `0 .. r-1`, so `ctaid -> b` is one
to one, and the CUDA axes past `r` must be 0), and an in-bounds element has one row-major index
in `S`, so no two threads ever hold a witness to the same element (docs/safety.md#simt-1).
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from xdsl.dialects import scf
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AnyOf,
    AttrSizedOperandSegments,
    BaseAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import AttrParser
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.constraints import any_slice_of, disjoint_of, slice_of
from ferrox.dialects.simt.types import DisjointSliceType, IndexSpaceAttr, SliceType, ThreadIndexType

MAX_CHUNK = 16
"""The widest chunk: 16 one-byte elements make one 16-byte access."""


@cache
def _segments(sizes: tuple[int, ...]) -> DenseArrayBase:
    """An op's `operandSegmentSizes`, made once per tuple of sizes."""
    return DenseArrayBase.from_list(i32, sizes)


@cache
def _i64_attr(value: int) -> IntegerAttr:
    return IntegerAttr(value, i64)


def _pow2(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def grid_order_problem(order: tuple[int, ...], rank: int, what: str) -> str | None:
    """Why `order` is not a grid order of a rank-`rank` grid (a permutation of its axes), or None.
    A permutation keeps block -> tile one to one, which the witness rule rests on."""
    if sorted(order) != list(range(rank)):
        return (
            f"{what} must be a permutation of the grid's axes 0 .. {rank - 1} "
            f"(rank {rank}), found {list(order)}"
        )
    return None


def grid_reverse_problem(axes: tuple[int, ...], rank: int, what: str) -> str | None:
    """Why `axes` is not a grid reversal of a rank-`rank` grid (distinct tile-grid axes, in
    increasing order so that one reversal has one spelling), or None. Reversing an axis maps
    block `b` to tile `n - 1 - b`, one to one on `0 .. n-1`, which the witness rule rests on."""
    if list(axes) != sorted(set(axes)) or not all(0 <= a < rank for a in axes):
        return (
            f"{what} must list distinct tile-grid axes of 0 .. {rank - 1} (rank {rank}) in "
            f"increasing order, found {list(axes)}"
        )
    return None


def tile_space_problem(
    shape: tuple[int, ...],
    chunk: int,
    dims_arg: int,
    order: tuple[int, ...] | None = None,
    persistent: bool = False,
    reverse: tuple[int, ...] | None = None,
) -> str | None:
    """Why `tile<shape, chunk, argN, order [...], reverse [...]>` (or `tile<shape, chunk, argN,
    persistent>`) is not a valid index space, or None (`order` None: the identity, written by
    leaving it out; `reverse` None: no axis reversed)."""
    if not 1 <= len(shape) <= 3:
        return f"tile index space needs a tile of rank 1 to 3, found rank {len(shape)}"
    if not all(_pow2(d) for d in shape):
        return f"tile index space needs static power-of-two tile dimensions, found {list(shape)}"
    if not _pow2(chunk) or chunk > MAX_CHUNK or shape[-1] % chunk:
        return (
            f"tile chunk width must be a power of two up to {MAX_CHUNK} that divides the tile's "
            f"last dimension {shape[-1]}, found {chunk}"
        )
    if dims_arg < 0:
        return "tile index space dimensions must name a kernel parameter"
    if order is not None and persistent:
        return (
            "a persistent tile space takes no grid order: its tiles are numbered row-major "
            "with axis 0 fastest, whatever the grid"
        )
    if reverse is not None and persistent:
        return (
            "a persistent tile space takes no grid reversal: its tiles are numbered row-major "
            "with axis 0 fastest, whatever the grid"
        )
    if order is not None:
        if list(order) == list(range(len(shape))):
            return "the identity grid order is written by leaving it out"
        if problem := grid_order_problem(order, len(shape), "a tile index space's grid order"):
            return problem
    if reverse is not None:
        if not reverse:
            return "a grid reversal of no axis is written by leaving it out"
        return grid_reverse_problem(reverse, len(shape), "a tile index space's grid reversal")
    return None


def parse_tile_space(parser: AttrParser) -> IndexSpaceAttr:
    """The rest of `tile<[T0, ...], chunk, argN>`, after the keyword `tile`."""
    start = parser.pos
    with parser.in_angle_brackets():
        shape = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
        )
        parser.parse_punctuation(",")
        chunk = parser.parse_integer(allow_boolean=False, context_msg=" (chunk width)")
        parser.parse_punctuation(",")
        name = parser.parse_identifier(" (argN: the parameter holding the first dimension)")
        if not (name.startswith("arg") and name[3:].isdigit()):
            parser.raise_error(
                f"expected argN naming the first dimension parameter, found '{name}'"
            )
        order = None
        reverse = None
        persistent = False
        while parser.parse_optional_punctuation(",") is not None:
            if parser.parse_optional_keyword("persistent") is not None:
                persistent = True
                continue
            if parser.parse_optional_keyword("reverse") is not None:
                reverse = tuple(parse_axes(parser))
                continue
            parser.parse_keyword(
                "order",
                " (a tile space's grid order: order [1, 0], its reversal: reverse [0], "
                "or persistent)",
            )
            order = tuple(parse_axes(parser))
    problem = tile_space_problem(tuple(shape), chunk, int(name[3:]), order, persistent, reverse)
    if problem is not None:
        parser.raise_error(problem, start, parser.pos)
    return IndexSpaceAttr.tile(shape, chunk, int(name[3:]), order or (), persistent, reverse or ())


def parse_axes(parser: AttrParser) -> list[int]:
    """`[1, 0]`: a grid order's or a grid reversal's axes."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def tile_space(t: Attribute) -> IndexSpaceAttr | None:
    """The `tile` space of a witness or disjoint-slice type, if it has one."""
    space = getattr(t, "space", None)
    if isinstance(space, IndexSpaceAttr) and space.kind.data == "tile":
        return space
    return None


def _kernel_of(op: IRDLOperation):
    from ferrox.dialects.simt.kernel import FuncOp, KernelOp

    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp | FuncOp):
        parent = parent.parent_op()
    return parent if isinstance(parent, KernelOp) else None


def _check_dims(op: IRDLOperation, space: IndexSpaceAttr, dims) -> None:
    """`dims` must be the kernel parameters `argN ..` that `space` names, one per tile axis, so
    every thread (and every op of the space) uses the same tensor shape."""
    rank = len(space.tile_shape.data)
    if len(dims) != rank:
        raise VerifyException(
            f"'{op.name}' of a rank-{rank} tile needs {rank} dimensions, got {len(dims)}"
        )
    kernel = _kernel_of(op)
    if kernel is None:
        raise VerifyException(
            f"'{op.name}' must sit in a 'simt.kernel' (its space names kernel parameters)"
        )
    params = kernel.body.blocks[0].args if kernel.body.blocks else ()
    first = space.dims_arg.data
    for i, dim in enumerate(dims):
        want = first + i
        if not (
            isinstance(dim, BlockArgument)
            and dim.block is kernel.body.blocks[0]
            and dim.index == want
        ):
            raise VerifyException(
                f"'{op.name}' dimension {i} must be kernel parameter arg{want} "
                f"(its index space {space} names it), "
                "so that every thread uses the same tensor shape"
            )
    if first + rank > len(params):
        raise VerifyException(
            f"index space {space} names parameters past the kernel's {len(params)}"
        )


@irdl_op_definition
class TileScheduleOp(IRDLOperation):
    """`%first, %count, %step = simt.tile_schedule dims(%d0, %d1) <tile<[128, 256], 4, arg3,
    persistent>>`: the bounds of a persistent loop over the tiles of a `persistent` tile space
    (docs/safety.md#simt-1-persistent), computed here, not taken from anything the kernel could
    choose:

    - `%first`, the block's `ctaid.x`;
    - `%count`, the tile count `prod ceildiv(S[d], T[d])` of the tensor whose dimensions `S` are
      the kernel parameters the space names (the `dims` operands, checked as `simt.tile_index`
      checks them), or 0 in a block whose `ctaid.y` or `ctaid.z` is not 0 (such blocks run no
      tile: the grid's blocks at y = z = 0 run them all);
    - `%step`, the grid's `nctaid.x`.

    A persistent loop is an `scf.for` whose lower bound, upper bound and step are exactly these
    three (`schedule_of`); none may sit in another (nor may the op). `for %t = %first to %count
    step %step` runs tile `t` on block `x = t mod G` (of `y = z = 0`, `G = nctaid.x`) in its
    iteration `t div G`, once. The results
    are ordinary values otherwise (the lowering computes the next tile from them): only a
    persistent loop's induction variable names a witness's tile.
    Tile `t` is `b_0 = t mod n_0`, `b_1 = (t div n_0) mod n_1`, ... with `n_d = ceildiv(S[d],
    T[d])`: axis 0 fastest, as the ordinary grid's x walks axis 0.
    """

    name = "simt.tile_schedule"

    dims = var_operand_def(IndexType())
    space = prop_def(IndexSpaceAttr)
    first = result_def(IndexType())
    count = result_def(IndexType())
    step = result_def(IndexType())

    traits = traits_def(Pure())

    assembly_format = "`dims` `(` $dims `)` $space attr-dict"

    def __init__(self, dims: list[SSAValue], space: IndexSpaceAttr):
        super().__init__(
            operands=[dims], properties={"space": space}, result_types=[IndexType()] * 3
        )

    def verify_(self) -> None:
        space = self.space
        if tile_space(ThreadIndexType(space)) is None or not space.is_persistent:
            raise VerifyException(
                f"'simt.tile_schedule' schedules a persistent tile space "
                f"(tile<[T..], w, argN, persistent>), found {space}"
            )
        _check_dims(self, space, self.dims)
        loops = [self] + [
            u.operation for r in self.results for u in r.uses if isinstance(u.operation, scf.ForOp)
        ]
        for loop in loops:
            if (outer := enclosing_persistent_loop(loop)) is not None:
                raise VerifyException(
                    "persistent loops do not nest: this 'simt.tile_schedule' or a loop over it "
                    f"sits in another persistent loop ('{outer.name}' over a "
                    "'simt.tile_schedule')"
                )


def schedule_of(loop: Operation) -> TileScheduleOp | None:
    """The `simt.tile_schedule` whose first tile, tile count and step are exactly `loop`'s
    lower bound, upper bound and step, or None (not a persistent loop)."""
    if not isinstance(loop, scf.ForOp):
        return None
    owner = loop.lb.owner
    if not isinstance(owner, TileScheduleOp):
        return None
    if loop.lb is not owner.first or loop.ub is not owner.count or loop.step is not owner.step:
        return None
    return owner


def enclosing_persistent_loop(op: Operation) -> Operation | None:
    """The nearest persistent loop (`schedule_of`) strictly around `op`, or None."""
    parent = op.parent_op()
    while parent is not None:
        if schedule_of(parent) is not None:
            return parent
        parent = parent.parent_op()
    return None


@irdl_op_definition
class TileIndexOp(IRDLOperation):
    """`%w = simt.tile_index %k dims(%d0, %d1) : !simt.thread_index<tile<[4, 1024], 4, arg1>>`,
    or in a persistent space `%w = simt.tile_index %k dims(%d0, %d1) tile(%t) :
    !simt.thread_index<tile<[128, 256], 4, arg3, persistent>>`.

    The witness to chunk `c = k * P + t` of this block's tile (module docstring). Element `j` of
    the chunk is in bounds of a slice of length `len` when `c * w < prod(T)`, the block ids past
    the tile's rank are 0, every coordinate `g = b * T + e` is below its dimension, its row-major
    index (computed exactly) is below `len`; the in-bounds elements are a prefix of the chunk.
    The `dims` must be the kernel parameters the space names, so every thread and every witness
    of the space agree on the tensor's shape.

    In a persistent space the tile `b` is not the block's ids but the tile `%t` names (as
    `simt.tile_schedule` decomposes it), and `%t` must be the induction variable of a
    persistent loop: an `scf.for` whose bounds are exactly a `simt.tile_schedule`'s results,
    for the same tile shape and dimensions (docs/safety.md#simt-1-persistent). No block id
    enters it.
    """

    name = "simt.tile_index"

    chunk_index = operand_def(IndexType())
    dims = var_operand_def(IndexType())
    tile = opt_operand_def(IndexType())
    result = result_def(ThreadIndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "$chunk_index `dims` `(` $dims `)` (`tile` `(` $tile^ `)`)? attr-dict `:` type($result)"
    )

    def __init__(
        self,
        chunk_index: SSAValue,
        dims: list[SSAValue],
        space: IndexSpaceAttr,
        tile: SSAValue | None = None,
    ):
        # (`Operation.__init__`, as `create`: no IRDL builder; the segment sizes made once)
        tiles = () if tile is None else (tile,)
        Operation.__init__(
            self,
            operands=(chunk_index, *dims, *tiles),
            result_types=(ThreadIndexType(space),),
            properties={"operandSegmentSizes": _segments((1, len(dims), len(tiles)))},
        )

    @property
    def space(self) -> IndexSpaceAttr:
        t = self.result.type
        assert isinstance(t, ThreadIndexType)
        return t.space

    def verify_(self) -> None:
        space = tile_space(self.result.type)
        if space is None:
            raise VerifyException(
                f"'simt.tile_index' produces a tile<...> witness, found {self.space}"
            )
        _check_dims(self, space, self.dims)
        if not space.is_persistent:
            if self.tile is not None:
                raise VerifyException(
                    f"'simt.tile_index' takes tile(...) only in a persistent space, not {space}: "
                    "its tile is the block's"
                )
            return
        if self.tile is None:
            raise VerifyException(
                f"'simt.tile_index' of the persistent space {space} needs tile(%t), the "
                "induction variable of its persistent loop: a block's ids do not name its tiles"
            )
        t = self.tile
        loop = t.owner.parent_op() if isinstance(t, BlockArgument) else None
        schedule = schedule_of(loop) if loop is not None else None
        if (
            schedule is None
            or not isinstance(t, BlockArgument)
            or t.index != 0
            or t.block is not loop.regions[0].blocks[0]  # type: ignore[union-attr]
        ):
            raise VerifyException(
                "'simt.tile_index' tile(...) must be the induction variable of a persistent "
                "loop: an 'scf.for' from a 'simt.tile_schedule''s first tile to its tile count "
                "in steps of its step (the grid's block count)"
            )
        if (
            schedule.space.get_tile_shape() != space.get_tile_shape()
            or schedule.space.dims_arg.data != space.dims_arg.data
        ):
            raise VerifyException(
                f"'simt.tile_index' of {space} names a tile of a loop over {schedule.space}: "
                "the two must have the same tile shape and dimensions"
            )


@irdl_op_definition
class StoreChunkOp(IRDLOperation):
    """`simt.store_chunk %out[%w], %v0, %v1, %v2, %v3
        : !simt.disjoint_slice<f32, S>, !simt.thread_index<S>`.

    Moves the witness and writes value `j` to element `j` of its chunk where that element is in
    bounds (see `simt.tile_index`); the other elements are not touched (a masked store). As with
    `simt.get_mut`, no address exists in the IR, so none can escape. Takes one value per element
    of the chunk.
    """

    name = "simt.store_chunk"

    T: ClassVar = VarConstraint("T", AnyAttr())

    slice = operand_def(disjoint_of(T))
    witness = operand_def(ThreadIndexType)
    values = var_operand_def(T)

    assembly_format = (
        "$slice `[` $witness `]` `,` $values attr-dict `:` type($slice) `,` type($witness)"
    )

    def __init__(self, slice: SSAValue, witness: SSAValue, values: list[SSAValue]):
        super().__init__(operands=[slice, witness, values])

    def verify_(self) -> None:
        t = self.slice.type
        assert isinstance(t, DisjointSliceType)
        space = tile_space(t)
        if space is None:
            raise VerifyException(
                f"'simt.store_chunk' writes a slice of a tile<...> space, found {t.space}"
            )
        if len(self.values) != space.chunk.data:
            raise VerifyException(
                f"'simt.store_chunk' to chunks of {space.chunk.data} "
                f"takes {space.chunk.data} values, got {len(self.values)}"
            )


@irdl_op_definition
class LoadChunkOp(IRDLOperation):
    """`%a, %b = simt.load_chunk %x[%i], %n, %pad : !simt.slice<f32> -> f32, f32`.

    Result `j` is `x[i + j]` for `j < n` and `%pad` for `j >= n` (the padding of a ragged tile);
    an element `j < n` out of range traps, as `simt.load` does. The lowering reads the chunk
    with one vector access where all of it is read and its address is aligned to the chunk's
    size (at most 16 bytes), element by element otherwise.
    """

    name = "simt.load_chunk"

    T: ClassVar = VarConstraint("T", AnyAttr())

    slice = operand_def(slice_of(T))
    index = operand_def(IndexType())
    count = operand_def(IndexType())
    padding = operand_def(T)
    res = var_result_def(T)

    assembly_format = (
        "$slice `[` $index `]` `,` $count `,` $padding attr-dict `:` type($slice) `->` type($res)"
    )

    def __init__(
        self, slice: SSAValue, index: SSAValue, count: SSAValue, padding: SSAValue, width: int
    ):
        t = slice.type
        assert isinstance(t, SliceType)
        Operation.__init__(  # (as `create`: no IRDL builder)
            self,
            operands=(slice, index, count, padding),
            result_types=(t.element_type,) * width,
        )

    def verify_(self) -> None:
        width = len(self.res)
        if not _pow2(width) or width > MAX_CHUNK:
            raise VerifyException(
                f"'simt.load_chunk' reads a power-of-two chunk of at most {MAX_CHUNK} elements, "
                f"got {width}"
            )


def _element_bytes(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    return max(1, t.bitwidth // 8)  # type: ignore[attr-defined]


def _check_vector(op: IRDLOperation, element: Attribute, width: int) -> None:
    """A whole chunk is one vector access: a power of two of at most 16 bytes, of elements the
    vector ops take (not `i1`, not `index`)."""
    if isinstance(element, IndexType) or (
        isinstance(element, IntegerType) and element.width.data == 1
    ):
        raise VerifyException(f"'{op.name}' reads or writes vectors of {element}: not i1 or index")
    if not _pow2(width) or width * _element_bytes(element) > MAX_VECTOR_BYTES:
        raise VerifyException(
            f"'{op.name}' moves a power-of-two chunk of at most {MAX_VECTOR_BYTES} bytes, got "
            f"{width} of {element}"
        )


MAX_VECTOR_BYTES = 16


@irdl_op_definition
class SliceAlignedOp(IRDLOperation):
    """`%ok = simt.slice_aligned %x {bytes = 16} : !simt.slice<f32>`: whether the address of the
    slice's element 0 is a multiple of `bytes` (a power of two up to 16). The ABI promises only
    element alignment; the tile lowering tests a tile's alignment once with this."""

    name = "simt.slice_aligned"

    T: ClassVar = VarConstraint("T", AnyAttr())

    slice = operand_def(any_slice_of(T))
    bytes = prop_def(IntegerAttr[IntegerType])
    result = result_def(i1)

    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$slice attr-dict `:` type($slice)"

    def __init__(self, slice: SSAValue, bytes: int):
        Operation.__init__(  # (as `create`: no IRDL builder; the attribute made once)
            self, operands=(slice,), result_types=(i1,), properties={"bytes": _i64_attr(bytes)}
        )

    def verify_(self) -> None:
        b = self.bytes.value.data
        if not _pow2(b) or b > MAX_VECTOR_BYTES:
            raise VerifyException(
                f"'simt.slice_aligned' tests a power-of-two alignment of at most "
                f"{MAX_VECTOR_BYTES} bytes, got {b}"
            )


@irdl_op_definition
class UncheckedLoadChunkOp(IRDLOperation):
    """`%a, %b, %c, %d = simt.unchecked_load_chunk %x[%i] : !simt.slice<f32> -> f32, f32, f32,
    f32`: elements `i .. i + w - 1` in one vector access, with no range or alignment check.
    Unsafe (verify-disjoint keeps it in unsafe code): the code that emits it vouches that
    `i + w <= len` and that the address is aligned to the chunk's size (`w` elements, at most
    16 bytes). The tile lowering emits it only under a per-tile test that proves both
    (`lowering/tile_to_simt/memory.py`, docs/safety.md#trusted-whole-tile)."""

    name = "simt.unchecked_load_chunk"

    T: ClassVar = VarConstraint("T", AnyAttr())

    slice = operand_def(slice_of(T))
    index = operand_def(IndexType())
    res = var_result_def(T)

    assembly_format = "$slice `[` $index `]` attr-dict `:` type($slice) `->` type($res)"

    def __init__(self, slice: SSAValue, index: SSAValue, width: int):
        t = slice.type
        assert isinstance(t, SliceType)
        super().__init__(operands=[slice, index], result_types=[[t.element_type] * width])

    def verify_(self) -> None:
        t = self.slice.type
        assert isinstance(t, SliceType)
        _check_vector(self, t.element_type, len(self.res))


@irdl_op_definition
class UncheckedStoreChunkOp(IRDLOperation):
    """`simt.unchecked_store_chunk %out[%i], %v0, %v1, %v2, %v3 : !simt.disjoint_slice<f32, S>`:
    writes value `j` to element `i + j` in one vector access, with no witness and no range or
    alignment check. Unsafe (verify-disjoint keeps it in unsafe code): the code that emits it
    vouches that the elements are in range, aligned as for `simt.unchecked_load_chunk`, and
    exactly those a `simt.tile_index` witness of the slice's space would let this thread write
    (so no two threads write one element)."""

    name = "simt.unchecked_store_chunk"

    T: ClassVar = VarConstraint("T", AnyAttr())

    slice = operand_def(disjoint_of(T))
    index = operand_def(IndexType())
    values = var_operand_def(T)

    assembly_format = "$slice `[` $index `]` `,` $values attr-dict `:` type($slice)"

    def __init__(self, slice: SSAValue, index: SSAValue, values: list[SSAValue]):
        super().__init__(operands=[slice, index, values])

    def verify_(self) -> None:
        t = self.slice.type
        assert isinstance(t, DisjointSliceType)
        if tile_space(t) is None:
            raise VerifyException(
                f"'simt.unchecked_store_chunk' writes a slice of a tile<...> space, found {t.space}"
            )
        _check_vector(self, t.element_type, len(self.values))


UNCHECKED_CHUNK_OPS = (UncheckedLoadChunkOp, UncheckedStoreChunkOp)
"""Global chunk accesses without checks: only in unsafe code (verify-disjoint's rule 6)."""


MMA_FRAGMENTS = {"a": 4, "b": 2, "c": 4}


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """`%d0, %d1, %d2, %d3 = simt.mma_sync bf16 A[%a0, %a1, %a2, %a3] B[%b0, %b1]
    C[%c0, %c1, %c2, %c3]`.

    One warp's tensor-core `D = A * B + C` for a 16 x 16 (`A`, row-major, `bf16` or `f16`) times
    16 x 8 (`B`) product with a 16 x 8 f32 accumulator: PTX `mma.sync.aligned.m16n8k16.row.col`.
    Each lane holds fragments, with `g = lane / 4`, `q = lane % 4`: the i32 `A` registers pack two
    elements each (low half first), element `i` (0..7) at row `g + 8 * (i / 2 % 2)`, column
    `2q + i % 2 + 8 * (i / 4)`; `B` element `i` (0..3) at row `2q + i % 2 + 8 * (i / 2)`, column
    `g`; `C` and `D` element `i` at row `g + 8 * (i / 2)`, column `2q + i % 2`. A warp collective:
    all 32 lanes take part (verify-disjoint's convergence rule covers it).
    """

    name = "simt.mma_sync"

    element = prop_def(AnyOf((BaseAttr(BFloat16Type), BaseAttr(Float16Type))))
    a = var_operand_def(i32)
    b = var_operand_def(i32)
    c = var_operand_def(f32)
    d0 = result_def(f32)
    d1 = result_def(f32)
    d2 = result_def(f32)
    d3 = result_def(f32)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = "$element `A` `[` $a `]` `B` `[` $b `]` `C` `[` $c `]` attr-dict"

    def __init__(self, element: Attribute, a: list[SSAValue], b: list[SSAValue], c: list[SSAValue]):
        super().__init__(
            operands=[a, b, c], properties={"element": element}, result_types=[f32] * 4
        )

    def verify_(self) -> None:
        for group, values in (("a", self.a), ("b", self.b), ("c", self.c)):
            if len(values) != MMA_FRAGMENTS[group]:
                raise VerifyException(
                    f"'simt.mma_sync' takes {MMA_FRAGMENTS[group]} {group.upper()} registers, "
                    f"got {len(values)}"
                )


TILE_SUPPORT_OPS = (
    TileIndexOp,
    TileScheduleOp,
    StoreChunkOp,
    LoadChunkOp,
    MmaSyncOp,
    SliceAlignedOp,
    *UNCHECKED_CHUNK_OPS,
)
