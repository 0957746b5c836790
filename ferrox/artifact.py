"""The typed kernel artifact: everything a launcher needs to know of a compiled module.

The compiler (`ferrox.targets.compile`) makes one `ModuleArtifact` per module; the kernel cache
stores it (as JSON, with `SCHEMA_VERSION`), and every consumer reads it: the GPU runtime (packing
and launching), the launch checker (contract, `requires`, coverage, aliasing), the host runner,
the CPU interpreter and the Python API. Nothing downstream parses PTX, re-lowers IR or reads ABI
strings to recover a fact that is here.

This module is part of the core: plain dataclasses, no xDSL, no NumPy, no CUDA.
"""

from __future__ import annotations

import base64
import enum
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1
"""Bumped whenever a field changes meaning; a cached artifact of another version is a miss."""


class ParamKind(enum.Enum):
    """What a kernel parameter is, as the safety rules see it."""

    SHARED_SLICE = "shared_slice"  # !simt.slice<T>: read by every thread, written by none
    DISJOINT_SLICE = "disjoint_slice"  # !simt.disjoint_slice<T, space>: exclusive output
    ATOMIC_SLICE = "atomic_slice"  # !simt.atomic_slice<T>: exclusive, written by atomics only
    POINTER = "pointer"  # !simt.ptr<T>: a raw device address (unsafe code only)
    SCALAR = "scalar"  # an integer, index or float value
    TILE_TENSOR = "tile_tensor"  # !tile.tensor<...>: a tile kernel's shared input
    PARTITION = "partition"  # !tile.partition<...>: a tile kernel's exclusive output

    @property
    def is_buffer(self) -> bool:
        return self is not ParamKind.SCALAR

    @property
    def is_exclusive(self) -> bool:
        """Written by the kernel: no other argument may overlap it at launch."""
        return self in (
            ParamKind.DISJOINT_SLICE,
            ParamKind.ATOMIC_SLICE,
            ParamKind.PARTITION,
            ParamKind.POINTER,
        )


ELEMENT_BYTES = {
    "i1": 1,
    "i8": 1,
    "i16": 2,
    "i32": 4,
    "i64": 8,
    "index": 8,
    "f16": 2,
    "bf16": 2,
    "f32": 4,
    "f64": 8,
}
"""Element types a kernel parameter may have, and their sizes in bytes."""


class AbiSlot(enum.Enum):
    """One PTX parameter, by how it is passed."""

    U64 = "u64"  # a device address
    I64 = "i64"  # a slice length, an i64 or index scalar
    I32 = "i32"
    I16 = "i16"
    I8 = "i8"
    F16 = "f16"  # passed as its 16 bits
    BF16 = "bf16"  # passed as its 16 bits
    F32 = "f32"
    F64 = "f64"
    TENSOR_MAP = "tensormap"  # a TMA tensor map by value: `.param .align 64 .b8 [128]`

    @property
    def nbytes(self) -> int:
        if self is AbiSlot.TENSOR_MAP:
            return TENSOR_MAP_BYTES
        return ELEMENT_BYTES[self.value] if self is not AbiSlot.U64 else 8


TENSOR_MAP_BYTES = 128
"""A CUtensorMap's size (it is 64-byte aligned)."""


_SCALAR_SLOTS = {
    "i1": AbiSlot.I8,
    "i8": AbiSlot.I8,
    "i16": AbiSlot.I16,
    "i32": AbiSlot.I32,
    "i64": AbiSlot.I64,
    "index": AbiSlot.I64,
    "f16": AbiSlot.F16,
    "bf16": AbiSlot.BF16,
    "f32": AbiSlot.F32,
    "f64": AbiSlot.F64,
}


LATER = {"later": True}
"""Metadata of a field added within a schema: left out of the JSON at its default, so what an
earlier compiler wrote and what this one writes for the same kernel are the same text (decoded
with the default where absent)."""


@dataclass(frozen=True)
class IndexSpace:
    """A disjoint output's index space: how thread ids map to the elements one thread owns."""

    kind: str  # "1d", "2d", "2d_runtime", "warp" or "tile"
    stride: int = 0  # 2d: the row width
    tile: tuple[int, ...] = ()  # tile: the tile's shape
    chunk: int = 0  # tile: elements per thread access
    dims_param: int | None = None  # tile: the first of the parameters holding the tensor's dims
    order: tuple[int, ...] = field(default=(), metadata=LATER)
    """tile: CUDA grid axis i walks tile axis order[i] (empty: the identity)."""
    persistent: bool = field(default=False, metadata=LATER)
    """tile: a persistent space (docs/safety.md#simt-1-persistent): the block's tiles come from
    a loop over `t = ctaid.x, + nctaid.x, ..` below the tile count, so any grid of at least one
    block writes every tile."""
    reverse: tuple[int, ...] = field(default=(), metadata=LATER)
    """tile: the tile axes walked last tile first (block b takes tile n - 1 - b)."""

    def block_axis(self, d: int) -> int:
        """The CUDA grid axis (0, 1, 2: x, y, z) whose block id is tile coordinate `d`."""
        return self.order.index(d) if self.order else d


@dataclass(frozen=True)
class Param:
    """One kernel parameter as the launcher sees it."""

    name: str  # the source name (`out`), or `argN` where the source has none
    kind: ParamKind
    element: str  # a key of ELEMENT_BYTES
    space: IndexSpace | None = None  # disjoint slices only
    shape: tuple[int | None, ...] = ()  # tile tensors and partitions (None: dynamic dimension)
    tile: tuple[int, ...] = ()  # partitions: the tile shape one block owns

    @property
    def abi(self) -> tuple[AbiSlot, ...]:
        """The PTX parameters this one becomes: a slice is its address, then its length."""
        if self.kind is ParamKind.SCALAR:
            return (_SCALAR_SLOTS[self.element],)
        if self.kind is ParamKind.POINTER:
            return (AbiSlot.U64,)
        if self.kind in (ParamKind.TILE_TENSOR, ParamKind.PARTITION):
            raise ValueError(f"tile parameter {self.name} has no PTX form of its own")
        return (AbiSlot.U64, AbiSlot.I64)


@dataclass(frozen=True)
class SizeExpr:
    """A `requires` size expression: `const`, `arg` (a scalar's value), `len` (a slice's
    length), or a binary `+`, `-`, `*` over two operands."""

    op: str
    value: int = 0
    operands: tuple[SizeExpr, ...] = ()

    def evaluate(self, scalar: Callable[[int], int], length: Callable[[int], int]) -> int:
        if self.op == "const":
            return self.value
        if self.op == "arg":
            return scalar(self.value)
        if self.op == "len":
            return length(self.value)
        a, b = (o.evaluate(scalar, length) for o in self.operands)
        return {"+": a + b, "-": a - b, "*": a * b}[self.op]

    def __str__(self) -> str:
        """The IR's spelling (`#simt.contract` requires), so messages quote what was written."""
        if self.op == "const":
            return str(self.value)
        if self.op == "arg":
            return f"arg{self.value}"
        if self.op == "len":
            return f"len(arg{self.value})"
        lhs, rhs = self.operands
        left, right = str(lhs), str(rhs)
        if self.op == "*":
            left = f"({left})" if lhs.op in ("+", "-") else left
            right = f"({right})" if rhs.op in ("+", "-") else right
        elif self.op == "-" and rhs.op in ("+", "-"):
            right = f"({right})"
        return f"{left} {self.op} {right}"


@dataclass(frozen=True)
class Relation:
    """One `requires` relation: `lhs op rhs`, checked on the actual arguments."""

    lhs: SizeExpr
    op: str  # ">=", "<=", "==", ">", "<"
    rhs: SizeExpr

    def holds(self, scalar: Callable[[int], int], length: Callable[[int], int]) -> bool:
        a, b = self.lhs.evaluate(scalar, length), self.rhs.evaluate(scalar, length)
        return {">=": a >= b, "<=": a <= b, "==": a == b, ">": a > b, "<": a < b}[self.op]

    def __str__(self) -> str:
        return f"{self.lhs} {self.op} {self.rhs}"


@dataclass(frozen=True)
class Contract:
    """The launch contract: what every launch of the kernel must satisfy."""

    domain: int  # grid and block may use at most this many dimensions
    block: tuple[int, int, int]  # the exact block (the PTX's .reqntid)
    shared_bytes: int = 0  # dynamic shared memory the launch must provide
    min_cc: int = 0  # minimum compute capability, major * 10 + minor (0: any)
    requires: tuple[Relation, ...] = ()
    static_shared_bytes: int = 0  # shared memory the kernel declares itself


@dataclass(frozen=True)
class Write:
    """One witness-guarded write of an exclusive output, for the grid-coverage check."""

    param: int
    space: IndexSpace
    width_param: int | None = None  # 2d_runtime: the parameter holding the row width


@dataclass(frozen=True)
class TileLaunch:
    """How a tile kernel's launch becomes its lowered SIMT kernel's launch.

    `sources[j]` says where SIMT parameter j's value comes from: `(i, None)` is tile parameter i
    itself (its buffer, or the scalar), `(i, d)` is dimension d of tile parameter i's tensor.
    The grid has one block per tile of the partition `grid_partition`: tile-grid axis d has
    ceil(shape[d] / grid_tile[d]) blocks, and CUDA grid axis i walks tile-grid axis
    `grid_order[i]` (empty: the identity, axis d on x, y, z), `launch_grid`.

    `portable` names the kernel to launch instead when this one's TMA tensor maps cannot be
    made for a launch's tensors (a row not a multiple of 16 bytes, an address not 16-byte
    aligned): the same tile kernel lowered without TMA, its portable twin ("": none, such a
    launch is refused). The twin is not in this module's artifact: it is an artifact of its
    own, compiled from the module's source the first time a launch needs it
    (`ferrox.targets.cache.portable_artifact`), whose one kernel is the twin.
    """

    sources: tuple[tuple[int, int | None], ...]
    grid_partition: int
    grid_tile: tuple[int, ...]
    threads: int
    portable: str = ""
    grid_order: tuple[int, ...] = field(default=(), metadata=LATER)
    persistent: bool = field(default=False, metadata=LATER)
    """The kernel loops over its tiles (docs/safety.md#simt-1-persistent): it launches `min(tiles,
    SMs)` blocks on grid.x, one an SM, each running tiles `t = block, block + grid, ..`."""
    grid_reverse: tuple[int, ...] = field(default=(), metadata=LATER)
    """The tile-grid axes walked last tile first: along them block b takes tile n - 1 - b (the
    launch grid is the same, `launch_grid`; only which block takes which tile changes)."""

    def tile_counts(self, shape: Sequence[int]) -> tuple[int, ...]:
        """The tile grid of a `grid_partition` of `shape`: its tile count along each axis."""
        return tuple(-(-s // t) for s, t in zip(shape, self.grid_tile))

    def launch_grid(self, tiles: Sequence[int], sms: int | None = None) -> tuple[int, ...]:
        """`tile_launch_grid` of this kernel's grid order and schedule."""
        return tile_launch_grid(tiles, self.grid_order, self.persistent, sms)


def tile_launch_grid(
    tiles: Sequence[int], order: Sequence[int], persistent: bool, sms: int | None = None
) -> tuple[int, ...]:
    """The CUDA grid that launches the tile grid `tiles` (tile counts by tile-grid axis): CUDA
    axis i gets `tiles[order[i]]` (no order: the identity); for a persistent kernel `(min(tiles,
    sms),)`, at least one block (`sms` is the device's multiprocessor count, needed then)."""
    if persistent:
        assert sms is not None and sms >= 1, "a persistent launch needs the SM count"
        return (max(1, min(math.prod(tiles), sms)),)
    return tuple(tiles[d] for d in order) if order else tuple(tiles)


@dataclass(frozen=True)
class TensorMap:
    """A TMA tensor map the runtime builds at each launch (`cuTensorMapEncodeTiled`) and passes
    by value after the kernel's own parameters: slice parameter `param` seen as a row-major
    `rows` x `cols` matrix (the values of index parameters `rows_param` and `cols_param`; a
    launch where rows * cols exceeds the slice's length is refused), read in boxes of
    `box` = (rows, cols) elements, with the shared layout `swizzle` (0 or 128 bytes)."""

    param: int
    rows_param: int
    cols_param: int
    element: str
    box: tuple[int, int]
    swizzle: int = 0
    planes_param: int = -1
    """A 3-D map's planes (the index parameter before the rows; -1: a 2-D map): the slice seen
    as `planes` x `rows` x `cols`, a box one plane deep."""


@dataclass(frozen=True)
class KernelArtifact:
    """One compiled kernel: its parameters, its contract, and what its PTX entry takes."""

    name: str
    params: tuple[Param, ...]  # as the caller passes them (tile parameters for a tile kernel)
    contract: Contract | None  # of the SIMT kernel that runs (None: no contract, unsafe only)
    writes: tuple[Write, ...] = ()  # in terms of `simt_params`
    tile: TileLaunch | None = None  # tile kernels only
    simt_params: tuple[Param, ...] = ()  # the PTX entry's parameters (== params for SIMT)
    tensor_maps: tuple[TensorMap, ...] = ()  # PTX parameters after the entry's own (TMA)

    @property
    def entry_params(self) -> tuple[Param, ...]:
        return self.simt_params or self.params

    @property
    def abi(self) -> tuple[AbiSlot, ...]:
        slots = tuple(slot for p in self.entry_params for slot in p.abi)
        return slots + (AbiSlot.TENSOR_MAP,) * len(self.tensor_maps)


@dataclass(frozen=True)
class ModuleArtifact:
    """A compiled module: PTX (and cubin when ptxas was run), and each kernel's facts."""

    chip: str
    features: str
    opt: int
    ptx: str
    kernels: Mapping[str, KernelArtifact] = field(default_factory=dict)
    cubin: bytes | None = None
    source: str = ""  # the verified module's text, which the CPU interpreter runs
    schema: int = SCHEMA_VERSION

    def __getitem__(self, name: str) -> KernelArtifact:
        try:
            return self.kernels[name]
        except KeyError:
            have = ", ".join(self.kernels) or "none"
            raise KeyError(f"no kernel named '{name}' in this module (kernels: {have})") from None

    def to_json(self) -> str:
        return json.dumps(_encode(self), sort_keys=True)

    @staticmethod
    def from_json(text: str | bytes) -> ModuleArtifact:
        """The artifact `to_json` wrote; ValueError for another schema or a damaged file."""
        try:
            raw = json.loads(text)
            if raw.get("schema") != SCHEMA_VERSION:
                raise ValueError(
                    f"artifact schema {raw.get('schema')} is not {SCHEMA_VERSION} (recompile it)"
                )
            return _decode_module(raw)
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as e:
            raise ValueError(f"damaged kernel artifact: {e}") from None


# -- JSON ------------------------------------------------------------------------------------


def _encode(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, tuple | list):
        return [_encode(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _encode(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        fields = value.__dataclass_fields__
        return {
            k: _encode(getattr(value, k))
            for k, f in fields.items()
            if not (f.metadata.get("later") and getattr(value, k) == f.default)
        }
    return value


def _expr(raw: dict) -> SizeExpr:
    return SizeExpr(raw["op"], raw["value"], tuple(_expr(o) for o in raw["operands"]))


def _space(raw: dict | None) -> IndexSpace | None:
    if raw is None:
        return None
    return IndexSpace(
        raw["kind"],
        raw["stride"],
        tuple(raw["tile"]),
        raw["chunk"],
        raw["dims_param"],
        tuple(raw.get("order", ())),
        raw.get("persistent", False),
        tuple(raw.get("reverse", ())),
    )


def _param(raw: dict) -> Param:
    return Param(
        raw["name"],
        ParamKind(raw["kind"]),
        raw["element"],
        _space(raw["space"]),
        tuple(raw["shape"]),
        tuple(raw["tile"]),
    )


def _contract(raw: dict | None) -> Contract | None:
    if raw is None:
        return None
    block = tuple(raw["block"])
    assert len(block) == 3
    return Contract(
        raw["domain"],
        (block[0], block[1], block[2]),
        raw["shared_bytes"],
        raw["min_cc"],
        tuple(Relation(_expr(r["lhs"]), r["op"], _expr(r["rhs"])) for r in raw["requires"]),
        raw["static_shared_bytes"],
    )


def _kernel(raw: dict) -> KernelArtifact:
    tile = raw["tile"]
    return KernelArtifact(
        raw["name"],
        tuple(_param(p) for p in raw["params"]),
        _contract(raw["contract"]),
        tuple(Write(w["param"], _space(w["space"]), w["width_param"]) for w in raw["writes"]),  # type: ignore[arg-type]
        None
        if tile is None
        else TileLaunch(
            tuple((s[0], s[1]) for s in tile["sources"]),
            tile["grid_partition"],
            tuple(tile["grid_tile"]),
            tile["threads"],
            tile.get("portable", ""),
            tuple(tile.get("grid_order", ())),
            tile.get("persistent", False),
            tuple(tile.get("grid_reverse", ())),
        ),
        tuple(_param(p) for p in raw["simt_params"]),
        tuple(
            TensorMap(
                m["param"],
                m["rows_param"],
                m["cols_param"],
                m["element"],
                (m["box"][0], m["box"][1]),
                m["swizzle"],
                m.get("planes_param", -1),
            )
            for m in raw.get("tensor_maps", ())
        ),
    )


def _decode_module(raw: dict) -> ModuleArtifact:
    return ModuleArtifact(
        raw["chip"],
        raw["features"],
        raw["opt"],
        raw["ptx"],
        {name: _kernel(k) for name, k in raw["kernels"].items()},
        base64.b64decode(raw["cubin"]) if raw["cubin"] is not None else None,
        raw["source"],
        raw["schema"],
    )


__all__ = [
    "ELEMENT_BYTES",
    "SCHEMA_VERSION",
    "AbiSlot",
    "Contract",
    "IndexSpace",
    "KernelArtifact",
    "ModuleArtifact",
    "Param",
    "ParamKind",
    "Relation",
    "SizeExpr",
    "TensorMap",
    "TileLaunch",
    "Write",
]
