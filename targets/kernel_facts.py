"""What a launcher must know of a kernel, read from its verified IR into the artifact's types.

The compiler (`ferrox.targets.compile`) calls these on the module as it stands after
`extract-device-code` (SIMT kernels, tile kernels lowered to SIMT) and on the caller's tile
kernels, so every fact comes from the types and attributes the safety rules were checked on:

- parameters: each block argument's kind (`ParamKind`), element type and index space;
- the launch contract, its `requires` as artifact `Relation`s, and the static shared memory the
  kernel's `simt.shared_alloc`s (and those of the device functions it calls) declare;
- the coverage writes: each witness-guarded write of a disjoint output, for the grid-coverage
  check (`Write`);
- for a tile kernel, the map from its launch to the lowered SIMT kernel's (`TileLaunch`), from
  the `tile.params`, `tile.grid` and `tile.lowering` attributes convert-tile-to-simt set.
"""

from __future__ import annotations

import re

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    DenseArrayBase,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue

from ferrox.artifact import (
    ELEMENT_BYTES,
    Contract,
    IndexSpace,
    Param,
    ParamKind,
    Relation,
    SizeExpr,
    TileLaunch,
    Write,
)
from ferrox.diagnostics import error
from ferrox.dialects import simt, tile
from ferrox.dialects.simt.contract import LaunchContractAttr, SizeExprAttr, SizeRelationAttr
from ferrox.dialects.simt.shared import SharedAllocOp
from ferrox.dialects.simt.types import (
    AtomicSliceType,
    DisjointSliceType,
    IndexSpaceAttr,
    PtrType,
    SliceType,
)
from ferrox.dialects.tile.types import PartitionType, TileTensorType
from ferrox.lowering.tile_to_simt.kernel import (
    GRID_ATTR,
    GRID_ORDER_KEY,
    GRID_PERSISTENT_KEY,
    GRID_REVERSE_KEY,
    LOWERING_ATTR,
    PARAMS_ATTR,
    PORTABLE_KEY,
    TWIN_OF_KEY,
)
from ferrox.passes.disjoint.common import walk

# -- types -----------------------------------------------------------------------------------


def element_name(t: Attribute) -> str | None:
    """The artifact's name of a scalar type (a key of ELEMENT_BYTES), or None."""
    if isinstance(t, IndexType):
        return "index"
    if isinstance(t, IntegerType):
        name = f"i{t.width.data}"
    elif isinstance(t, Float16Type):
        name = "f16"
    elif isinstance(t, BFloat16Type):
        name = "bf16"
    elif isinstance(t, Float32Type):
        name = "f32"
    elif isinstance(t, Float64Type):
        name = "f64"
    else:
        return None
    return name if name in ELEMENT_BYTES else None


def index_space(space: IndexSpaceAttr) -> IndexSpace:
    kind = space.kind.data
    if kind == "tile":
        order = tuple(d.data for d in space.grid_order.data)  # empty: the identity
        shape = space.get_tile_shape()
        persistent = space.is_persistent
        return IndexSpace(
            kind,
            0,
            shape,
            space.chunk.data,
            space.dims_arg.data,
            order,
            persistent,
            space.get_grid_reverse(),
        )
    return IndexSpace(kind, space.stride.data)


def _name(arg: BlockArgument) -> str:
    return arg.name_hint or f"arg{arg.index}"


def _element(kernel, arg: BlockArgument, t: Attribute) -> str:
    name = element_name(t)
    if name is None:
        raise error(
            kernel,
            f"parameter {_name(arg)} of @{kernel.sym_name.data} has elements of type {t}, "
            f"which no launcher can pass (elements: {', '.join(ELEMENT_BYTES)})",
        )
    return name


def simt_params(kernel: simt.KernelOp) -> tuple[Param, ...]:
    """A SIMT kernel's parameters, in order, as the launcher passes them."""
    params = []
    for arg in kernel.body.blocks[0].args:
        t = arg.type
        name = _name(arg)
        if isinstance(t, DisjointSliceType):
            element = _element(kernel, arg, t.get_element_type())
            params.append(
                Param(name, ParamKind.DISJOINT_SLICE, element, space=index_space(t.space))
            )
        elif isinstance(t, SliceType | AtomicSliceType | PtrType):
            kind = {
                SliceType: ParamKind.SHARED_SLICE,
                AtomicSliceType: ParamKind.ATOMIC_SLICE,
                PtrType: ParamKind.POINTER,
            }[type(t)]
            params.append(Param(name, kind, _element(kernel, arg, t.get_element_type())))
        else:
            params.append(Param(name, ParamKind.SCALAR, _element(kernel, arg, t)))
    return tuple(params)


def tile_params(kernel: tile.KernelOp) -> tuple[Param, ...]:
    """A tile kernel's parameters: tensors (shape, None where dynamic), partitions (their
    tensor's rank of dynamic dimensions, and the tile one block owns), scalars."""
    params = []
    for arg in kernel.args:
        t = arg.type
        name = _name(arg)
        if isinstance(t, TileTensorType):
            shape = tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())
            element = _element(kernel, arg, t.get_element_type())
            params.append(Param(name, ParamKind.TILE_TENSOR, element, shape=shape))
        elif isinstance(t, PartitionType):
            element = _element(kernel, arg, t.get_element_type())
            params.append(
                Param(
                    name,
                    ParamKind.PARTITION,
                    element,
                    shape=(None,) * t.rank,
                    tile=t.get_shape(),
                )
            )
        else:
            params.append(Param(name, ParamKind.SCALAR, _element(kernel, arg, t)))
    return tuple(params)


# -- contract --------------------------------------------------------------------------------


def size_expr(e: SizeExprAttr) -> SizeExpr:
    kind = e.kind.data
    if kind in ("const", "arg", "len"):
        return SizeExpr(kind, e.value.data)
    return SizeExpr(kind, 0, (size_expr(e.lhs), size_expr(e.rhs)))


def relation(r: SizeRelationAttr) -> Relation:
    return Relation(size_expr(r.lhs), r.relation.data, size_expr(r.rhs))


def contract(c: LaunchContractAttr | None, static_shared_bytes: int) -> Contract | None:
    if c is None:
        return None
    return Contract(
        domain=c.domain.data,
        block=c.block_xyz,
        shared_bytes=c.shared_bytes.data,
        min_cc=c.min_cc.data,
        requires=tuple(relation(r) for r in c.relations),
        static_shared_bytes=static_shared_bytes,
    )


def static_shared_bytes(kernel: simt.KernelOp, funcs: dict[str, simt.FuncOp]) -> int:
    """Bytes of the `simt.shared_alloc`s of `kernel` and of every device function it calls
    (each allocation once: one array per op, per block), with the alignment padding ptxas may
    put between them (`simt.static_shared_bound`); ptxas's own count replaces it when the
    kernel is compiled to PTX."""
    seen: set[str] = set()
    allocs: list[SharedAllocOp] = []
    pending: list = [kernel]
    while pending:
        fn = pending.pop()
        for op in walk(fn):
            if isinstance(op, SharedAllocOp) and not op.is_dynamic:  # dynamic: the contract's
                allocs.append(op)
            elif isinstance(op, simt.CallOp):
                callee = op.callee.string_value()
                if callee not in seen and callee in funcs:
                    seen.add(callee)
                    pending.append(funcs[callee])
    return simt.static_shared_bound(allocs)


# -- coverage --------------------------------------------------------------------------------


def _param_index(kernel: simt.KernelOp, value: SSAValue) -> int | None:
    if isinstance(value, BlockArgument) and value.owner is kernel.body.blocks[0]:
        return value.index
    return None


def writes(kernel: simt.KernelOp, ops: list[Operation] | None = None) -> tuple[Write, ...]:
    """Every witness-guarded write of a disjoint-slice parameter, once each: `simt.get_mut`
    (the slice's index space; a `2d_runtime` witness names its width parameter) and
    `simt.store_chunk` on a `tile` space (`ops`: the kernel's walk, where the caller has it)."""
    found: list[Write] = []
    for op in walk(kernel) if ops is None else ops:
        write: Write | None = None
        if isinstance(op, simt.StoreChunkOp):
            param = _param_index(kernel, op.slice)
            space = getattr(op.slice.type, "space", None)
            if param is not None and isinstance(space, IndexSpaceAttr):
                if space.kind.data == "tile":
                    write = Write(param, index_space(space))
        elif isinstance(op, simt.GetMutOp):
            param = _param_index(kernel, op.slice)
            if param is None or not isinstance(op.slice.type, DisjointSliceType):
                continue
            width = None
            producer = op.witness.owner
            if isinstance(producer, simt.Index2DRuntimeOp):
                width = _param_index(kernel, producer.width)
                if width is None:
                    continue  # a width the host cannot know; verify-disjoint requires a parameter
            write = Write(param, index_space(op.slice.type.space), width)
        if write is not None and write not in found:
            found.append(write)
    return tuple(found)


# -- tile launch map -------------------------------------------------------------------------

_SOURCE = re.compile(r"arg(\d+)(?:\.dim(\d+))?")


def tile_launch(lowered: simt.KernelOp) -> TileLaunch:
    """How a launch of the tile kernel `lowered` came from becomes the SIMT kernel's launch."""
    params = lowered.attributes.get(PARAMS_ATTR)
    grid = lowered.attributes.get(GRID_ATTR)
    lowering = lowered.attributes.get(LOWERING_ATTR)
    if not (
        isinstance(params, Attribute)
        and isinstance(grid, DictionaryAttr)
        and isinstance(lowering, DictionaryAttr)
    ):
        raise AssertionError(
            f"internal error: @{lowered.sym_name.data} was lowered from a tile kernel but lacks "
            f"{PARAMS_ATTR}, {GRID_ATTR} or {LOWERING_ATTR}"
        )
    sources: list[tuple[int, int | None]] = []
    for entry in getattr(params, "data", ()):
        m = _SOURCE.fullmatch(entry.data) if isinstance(entry, StringAttr) else None
        if m is None:
            raise AssertionError(f"internal error: bad {PARAMS_ATTR} entry {entry}")
        sources.append((int(m.group(1)), None if m.group(2) is None else int(m.group(2))))
    partition = grid.data["partition"]
    tiles = grid.data["tile"]
    order = grid.data.get(GRID_ORDER_KEY)
    reverse = grid.data.get(GRID_REVERSE_KEY)
    threads = lowering.data["threads"]
    assert isinstance(partition, IntegerAttr) and isinstance(threads, IntegerAttr)
    assert isinstance(tiles, DenseArrayBase)
    assert order is None or isinstance(order, DenseArrayBase)
    assert reverse is None or isinstance(reverse, DenseArrayBase)
    return TileLaunch(
        tuple(sources),
        partition.value.data,
        tuple(int(v) for v in tiles.get_values()),
        threads.value.data,
        portable_of(lowered),
        () if order is None else tuple(int(v) for v in order.get_values()),
        GRID_PERSISTENT_KEY in grid.data,
        () if reverse is None else tuple(int(v) for v in reverse.get_values()),
    )


def portable_of(lowered: simt.KernelOp) -> str:
    """The portable twin a lowered tile kernel names (`TileLaunch.portable`), or ""."""
    return _lowering_string(lowered, PORTABLE_KEY)


def twin_of(lowered: simt.KernelOp) -> str:
    """The tile kernel a lowered portable twin is the twin of, or "" (not a twin)."""
    return _lowering_string(lowered, TWIN_OF_KEY)


def _lowering_string(lowered: simt.KernelOp, key: str) -> str:
    lowering = lowered.attributes.get(LOWERING_ATTR)
    found = lowering.data.get(key) if isinstance(lowering, DictionaryAttr) else None
    return found.data if isinstance(found, StringAttr) else ""


__all__ = [
    "contract",
    "element_name",
    "index_space",
    "relation",
    "simt_params",
    "size_expr",
    "static_shared_bytes",
    "portable_of",
    "tile_launch",
    "tile_params",
    "twin_of",
    "writes",
]
