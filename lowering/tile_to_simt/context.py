"""The state of lowering one tile kernel: where SIMT ops go, what each tile value became, and
the building blocks every op family uses (index arithmetic, element coordinates, shared memory,
unsafe regions, barriers).

A tile value becomes either a `Dist` (its layout and one SSA value per register) or, for values
that cost nothing to make in any layout (constants, `tile.full`, `tile.iota` and what is
computed from them alone), a `Lazy` that is built where it is used, in the layout its user asks
for. Scalars (`index`, floats, integers) map to one SSA value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from ferrox.dialects import simt
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.build import int_constant, same_type
from ferrox.lowering.conversion import Emitter, Unsupported
from ferrox.lowering.tile_to_simt.config import Config, element_bytes
from ferrox.lowering.tile_to_simt.fold import FOLDABLE, PREDICATES, fold, int_of, width, wrap
from ferrox.lowering.tile_to_simt.helpers import SHARED_OPS, Helpers
from ferrox.lowering.tile_to_simt.layout import Layout, chunked, dim_offsets, log2, replicated
from ferrox.lowering.tile_to_simt.uniform import need_of
from ferrox.passes.analysis.uniformity import Level, Uniformity
from ferrox.passes.disjoint.common import type_test, walk

SHARED_LIMIT = 227 * 1024
"""Shared memory a block may opt in to on sm_90 (more than 48 KiB is dynamic:
`dynamic_shared.py`); a device that allows less is held to it by the launch checker."""


@dataclass
class Dist:
    """A tile spread over the block: register `r` of each thread, per `layout`."""

    layout: Layout
    regs: list[SSAValue]

    def __post_init__(self) -> None:
        assert len(self.regs) == self.layout.num_regs


@dataclass
class Lazy:
    """A tile made on demand: `make(layout)` emits its registers at the current point."""

    make: Callable[[Layout], list[SSAValue]]


@dataclass
class Tensor:
    """A tile kernel's tensor or partition parameter: its SIMT slice and dimensions (`index`
    parameters); `tile` is the partition's tile shape (None for an input tensor)."""

    slice: SSAValue
    dims: list[SSAValue]
    tile: tuple[int, ...] | None = None


Value = SSAValue | Dist | Lazy | Tensor


def canonical(t: TileType, config: Config) -> Layout:
    """The layout of a loaded tile: chunks of `config.width` (replicated for rank 0)."""
    shape = t.get_shape()
    if not shape:
        return replicated((), config.threads)
    return chunked(shape, config.threads, config.width(t.element_type, shape[-1]))


@dataclass
class Lowering:
    """One kernel's lowering: the insertion point, the value map and the kernel-wide caches.

    Every pure op goes through `__call__`, which emits it at most once where it is visible
    (`_pure`, keyed by the op and its operands: the unrolled registers repeat the same index
    arithmetic), folds integer arithmetic on constants (`fold.py`), and makes each constant
    once, at the top of the kernel (`constant`). LLVM would merge and fold them too, but only
    after every stage in between had converted each copy."""

    config: Config
    layouts: dict[SSAValue, Layout | None]
    entry: Block
    values: dict[SSAValue, Value] = field(default_factory=dict[SSAValue, Value])
    out: Emitter = field(init=False)
    """Where the next SIMT op goes (the end of the kernel's entry block, to begin with) and the
    location it gets (the tile op being lowered)."""
    loop_depth: int = 0
    spare: list[SSAValue] = field(default_factory=list[SSAValue])
    """Shared arrays whose makers are done with them (`donate`)."""
    shared_bytes: int = 0
    grid: Tensor | None = None
    """The first output partition: its tiles are the grid."""
    grid_order: tuple[int, ...] = ()
    """CUDA grid axis i walks tile-grid axis `grid_order[i]` (the kernel's `grid_order`)."""
    grid_reverse: tuple[int, ...] = ()
    """The tile-grid axes walked last tile first (the kernel's `grid_reverse`)."""
    control: Uniformity | None = None
    """How uniformly each tile op is reached (`uniform.analyse`); None: not checked."""
    need: Level | None = None
    """The most uniformity an op emitted since the last reset needs (`uniform.need_of`)."""
    helpers: Helpers = field(default_factory=Helpers)
    """The module's shared device functions (`helpers.py`), inserted once its kernels are
    lowered."""
    persistent: Any = None
    """The persistent loop the kernel's body runs in (`persistent.Loop`), or None: one block a
    tile."""
    slabs: int | None = None
    """Slabs of rows the layout changes through shared memory take from here on
    (`exchange.through_shared`); None: `exchange_slabs.SLABS`. A fused attention loop on the
    wgmma path sets it for its epilogue (`attention_wgmma.OUTPUT_SLABS`)."""
    specialized: Operation | None = None
    """The `simt.specialize` whose consumer region the rest of the kernel goes into
    (`gemm_specialized.py`): the tile kernel's return ends that region instead."""
    _prologue_end: Operation | None = None
    _lanes: dict[tuple, list[SSAValue | None]] = field(default_factory=dict)
    _linear: dict[tuple, SSAValue | None] = field(default_factory=dict)
    _tid: SSAValue | None = None
    _consts: dict[tuple, SSAValue] = field(default_factory=dict)
    """Each constant made so far, by (type, value), at the top of the kernel."""
    _const_end: Operation | None = None
    _pure: dict[tuple, Operation] = field(default_factory=dict)
    """Pure ops emitted so far, by what they compute (`_key`)."""
    _scopes: list[Block] = field(default_factory=list)
    """The blocks that enclose the insertion point, outermost first: an op emitted earlier in
    one of them dominates the insertion point (the lowering only appends to blocks, and a
    nested block's op is emitted after its body is built)."""
    _prologue: bool = False
    _prologue_ops: set[Operation] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.out = Emitter(InsertPoint.at_end(self.entry))
        self._scopes.append(self.entry)

    # -- emitting -----------------------------------------------------------------------------
    def emit(self, op: Operation) -> Operation:
        """Insert `op` (a checked chunk access becomes a call of the module's shared function
        for it: `helpers.py`)."""
        if _is_shared_op(op):
            op = self.helpers.call(op, self.out.location)
        for inner in walk(op) if op.regions else (op,):  # (most ops have no region)
            need = need_of(inner)
            if need is not None and (self.need is None or need > self.need):
                self.need = need
        return self.out.emit(op)

    def __call__(self, op: Operation, name: str | None = None) -> SSAValue:
        """Emit `op` (its only result is wanted) unless the same value exists already."""
        cls = type(op)
        result: SSAValue
        if not _is_pure(cls):
            result = self.emit(op).results[0]
        elif isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr | FloatAttr):
            result = self.constant(op.value.value.data, op.value.type)
        else:
            known = None
            if cls in FOLDABLE:
                predicate = None
                if cls is arith.CmpiOp:
                    attr = op.properties["predicate"]
                    assert isinstance(attr, IntegerAttr)
                    predicate = attr.value.data
                known = self._fold(cls, op.operands, predicate)
            key = _key(op)
            if known is None:
                known = self._found(key)
            if known is None:
                result = self._emit_pure(key, op)
            else:
                op.drop_all_references()
                result = known
        if name and not result.name_hint:
            result.name_hint = name
        return result

    def make(
        self,
        cls: type[Operation],
        *operands: SSAValue,
        extra: object = None,
        build: Callable[[], Operation] | None = None,
    ) -> SSAValue:
        """What `self(cls(*operands))` gives (`build()` for a constructor that takes more than
        the operands, `extra` naming the rest: a predicate, a mode), without building the op when
        it folds or exists. It is built from a template of the first such op (`_template`):
        xDSL's constructors re-read the op's definition each time, twice the cost."""
        template, first = _template(cls, operands, extra, build)
        pure = _is_pure(cls)
        key: tuple = ()
        if pure:
            known = None
            if cls in FOLDABLE:
                known = self._fold(cls, operands, extra if cls is arith.CmpiOp else None)  # type: ignore[arg-type]
            key = (cls, operands, template.key)
            if known is None:
                known = self._found(key)
            if known is not None:
                if first is not None:
                    first.drop_all_references()
                return known
        op = first or cls.create(
            operands=operands,
            result_types=template.result_types,
            properties=dict(template.properties),
            attributes=dict(template.attributes),
        )
        if pure:
            return self._emit_pure(key, op)
        return self.emit(op).results[0]

    def pure(self, cls: type, a: SSAValue, b: SSAValue, predicate: int | None = None) -> SSAValue:
        """`cls(a, b)`, an integer op of `fold.FOLDABLE` but select (`predicate`: cmpi's)."""
        if cls is arith.CmpiOp:
            return self.make(
                cls,
                a,
                b,
                extra=predicate,
                build=lambda: arith.CmpiOp(a, b, predicate),  # type: ignore[arg-type]
            )
        return self.make(cls, a, b)

    def _fold(
        self, cls: type, operands: Sequence[SSAValue], predicate: int | None
    ) -> SSAValue | None:
        folded = fold(cls, operands, predicate)
        if isinstance(folded, int):
            return self.constant(
                folded, IntegerType(1) if cls is arith.CmpiOp else operands[-1].type
            )
        return folded

    def _found(self, key: tuple) -> SSAValue | None:
        """The value of the pure op `key` names, if one is emitted where it is visible here."""
        found = self._pure.get(key)
        if found is not None and self._visible(found):
            return found.results[0]
        return None

    def _emit_pure(self, key: tuple, op: Operation) -> SSAValue:
        if self._prologue:
            self._prologue_ops.add(op)
        self._pure[key] = op
        return self.emit(op).results[0]

    def _visible(self, op: Operation) -> bool:
        if self._prologue:
            return op in self._prologue_ops
        block = op.parent_block()
        return any(block is b for b in self._scopes)

    def lowering(self, op: Operation) -> None:
        """Give the ops emitted from now on `op`'s location: they are its lowering."""
        self.out.location = op.location

    @contextmanager
    def at(self, point: InsertPoint) -> Iterator[None]:
        """Emit at `point` inside the `with` block (a loop body, an `if` branch, the prologue):
        the end of a block nested in the current one, or the prologue (`in_prologue`)."""
        saved, self.out.point = self.out.point, point
        self._scopes.append(point.block)
        try:
            yield
        finally:
            self.out.point = saved
            self._scopes.pop()

    def continue_in(self, block: Block) -> None:
        """Emit at the end of `block` (nested in the current insertion block) from now on, for
        the rest of the kernel (`gemm_specialized.py`: the consumers' region)."""
        self.out.point = InsertPoint.at_end(block)
        self._scopes.append(block)

    def leave(self, point: InsertPoint) -> None:
        """Undo the last `continue_in`: emit at `point` (in the enclosing block) from now on."""
        self._scopes.pop()
        self.out.point = point

    def in_prologue(self, op: Operation) -> SSAValue:
        """Emit `op` at the kernel's start (after the constants and what is already there), for
        values every thread computes once: thread coordinates, shared arrays."""
        after = self._prologue_end or self._const_end
        point = InsertPoint.after(after) if after else InsertPoint.at_start(self.entry)
        saved = self._prologue
        self._prologue = True
        try:
            with self.at(point):
                result = self(op)
        finally:
            self._prologue = saved
        if result.owner is op:
            self._prologue_end = op
            self._prologue_ops.add(op)
        return result

    # -- constants and index arithmetic ---------------------------------------------------
    def index(self, v: int) -> SSAValue:
        return self.constant(v, IndexType())

    def constant(self, v: int | float | bool, t: Attribute) -> SSAValue:
        """The constant `v` of type `t`, made once per kernel at its start."""
        bits = width(t)
        if bits is not None:
            value: int | float = wrap(int(v), bits)
            key: tuple = (t, value)
        else:
            value = float(v)
            key = (t, value.hex())  # tells -0.0 from 0.0; NaN is one key
        found = self._consts.get(key)
        if found is not None:
            return found
        if bits is not None:
            assert isinstance(t, IntegerType | IndexType)
            op = int_constant(int(value), t)
        else:
            op = arith.ConstantOp(FloatAttr(float(value), t))  # type: ignore[call-overload]
        op.location = self.out.location or op.location
        point = (
            InsertPoint.after(self._const_end)
            if self._const_end
            else InsertPoint.at_start(self.entry)
        )
        Rewriter.insert_op(op, point)
        self._const_end = op
        self._consts[key] = op.result
        return op.result

    def add(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            if b == 0:
                return a
            b = self.index(b)
        return self.pure(arith.AddiOp, a, b)

    def mul(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            if b == 1:
                return a
            b = self.index(b)
        return self.pure(arith.MuliOp, a, b)

    def cmp(self, pred: str, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            b = self.index(b)
        return self.pure(arith.CmpiOp, a, b, PREDICATES[pred])

    def all_of(self, conds: Sequence[SSAValue]) -> SSAValue:
        if not conds:
            return self.constant(True, IntegerType(1))
        result = conds[0]
        for c in conds[1:]:
            result = self.pure(arith.AndIOp, result, c)
        return result

    # -- threads and coordinates -------------------------------------------------------------
    @property
    def threads(self) -> int:
        return self.config.threads

    def block_id(self, d: int) -> SSAValue:
        """This block's coordinate along tile-grid axis `d`: the block id of the CUDA axis that
        walks it (`grid_order`); the CUDA axes past the grid's rank are their own."""
        if self.persistent is not None:  # the persistent loop's tile; 0 past the grid's rank
            coords = self.persistent.coords
            return coords[d] if d < len(coords) else self.index(0)
        axis = self.grid_order.index(d) if d < len(self.grid_order) else d
        block = self(simt.BlockIdOp("xyz"[axis]))
        if d not in self.grid_reverse:
            return block
        # Walked last tile first: block b takes tile n - 1 - b, n the tile count (the ragged last
        # tile included), as the witness's space says (simt_to_nvvm's `chunk_of`). A block past
        # the count gets a tile past every tensor (wrapped), which no witness names.
        last = self.pure(arith.SubiOp, self.num_blocks(d, pure=True), self.index(1))
        return self.pure(arith.SubiOp, last, block)

    def num_blocks(self, d: int, pure: bool = False) -> SSAValue:
        """The tile count along tile-grid axis `d`: `ceildiv(S[d], T[d])` of the first output
        partition (what the host launches, `tile.grid`); `pure`: shared with earlier ones."""
        grid = self.grid
        assert grid is not None and grid.tile is not None
        if pure:
            return self.pure(arith.CeilDivUIOp, grid.dims[d], self.index(grid.tile[d]))
        return self(arith.CeilDivUIOp(grid.dims[d], self.index(grid.tile[d])))

    def tid(self) -> SSAValue:
        if self._tid is None:
            self._tid = self.in_prologue(simt.ThreadIdOp("x"))
            self._tid.name_hint = "tid"
        return self._tid

    def lane_coords(self, layout: Layout) -> list[SSAValue | None]:
        """Per dimension, the part of this thread's element coordinates its thread bits set
        (None where they set none); computed once, at the kernel's start."""
        key = (layout.shape, layout.lanes)
        if key in self._lanes:
            return self._lanes[key]
        offsets = dim_offsets(layout.shape)
        parts: list[SSAValue | None] = [None] * len(layout.shape)
        q = 0
        lanes = layout.lanes
        while q < len(lanes):
            b = lanes[q]
            if b is None:
                q += 1
                continue
            run = 1
            d = _dim_of(layout.shape, offsets, b)
            while (
                q + run < len(lanes)
                and lanes[q + run] == b + run
                and _dim_of(layout.shape, offsets, b + run) == d
            ):
                run += 1
            piece = self.tid()
            if q:
                piece = self.in_prologue(same_type(arith.ShRUIOp, piece, self.index(q)))
            if q + run < len(lanes):  # higher thread bits remain: mask them off
                piece = self.in_prologue(same_type(arith.AndIOp, piece, self.index((1 << run) - 1)))
            shift = b - offsets[d]
            if shift:
                piece = self.in_prologue(same_type(arith.ShLIOp, piece, self.index(shift)))
            prev = parts[d]
            parts[d] = (
                piece if prev is None else self.in_prologue(same_type(arith.OrIOp, prev, piece))
            )
            q += run
        self._lanes[key] = parts
        return parts

    def coords(self, layout: Layout, r: int) -> list[SSAValue]:
        """The tile coordinates (`index`) of the element register `r` holds, in this thread."""
        offsets = dim_offsets(layout.shape)
        static = layout.static_element(r)
        result = []
        for d, dyn in enumerate(self.lane_coords(layout)):
            s = static >> offsets[d] & (layout.shape[d] - 1)
            if dyn is None:
                result.append(self.index(s))
            else:
                result.append(self.add(dyn, s) if s else dyn)
        return result

    def linear(self, layout: Layout, r: int, strides: Sequence[int]) -> SSAValue:
        """`sum(coords(layout, r)[d] * strides[d])`, as this thread's part (from its lane
        coordinates, computed once at the kernel's start) plus the register's constant part:
        one add a register, where the sum of coordinates takes two or three."""
        key = (layout.shape, layout.lanes, tuple(strides))
        if key not in self._linear:
            base: SSAValue | None = None
            for dyn, stride in zip(self.lane_coords(layout), strides):
                if dyn is None:
                    continue
                term = (
                    dyn if stride == 1 else self.in_prologue(arith.MuliOp(dyn, self.index(stride)))
                )
                base = term if base is None else self.in_prologue(arith.AddiOp(base, term))
            self._linear[key] = base
        base = self._linear[key]
        offsets = dim_offsets(layout.shape)
        static = layout.static_element(r)
        part = sum(
            (static >> offsets[d] & (layout.shape[d] - 1)) * strides[d] for d in range(len(strides))
        )
        return self.index(part) if base is None else self.add(base, part)

    def replica_guard(self, layout: Layout) -> SSAValue | None:
        """True on the one thread of each replica group (its replicated thread bits are 0)."""
        mask = layout.replica_mask
        if not mask:
            return None
        bits = self.pure(arith.AndIOp, self.tid(), self.index(mask))
        return self.cmp("eq", bits, 0)

    # -- shared memory, unsafe code, barriers ----------------------------------------------
    def donate(self, array: SSAValue) -> None:
        """`array`'s maker is done with it for the rest of the kernel: every access it made is
        ordered before a barrier that every later op comes after, and it is not reached again
        (not inside a loop). The next `shared` of its element type and at most its size takes
        it instead of a new array (once: two later arrays never share it)."""
        self.spare.append(array)

    def shared(self, element: Attribute, size: int, name: str) -> SSAValue:
        """A block-wide static array of `size` elements, allocated at the kernel's start (or a
        donated one that fits: `donate`)."""
        for k, spare in enumerate(self.spare):
            t = spare.type
            assert isinstance(t, SharedArrayType)
            if t.get_element_type() == element and t.get_shape()[0] >= size:
                return self.spare.pop(k)
        # Past 48 KiB the arrays become dynamic (`dynamic_shared.place`); the launch checker
        # holds the total to what the device allows.
        self.shared_bytes += size * element_bytes(element)
        if self.shared_bytes > SHARED_LIMIT:
            raise Unsupported(
                f"the lowering needs {self.shared_bytes} bytes of shared memory, more than the "
                f"{SHARED_LIMIT} a block can opt in to; use smaller tiles or fewer threads"
            )
        array = self.in_prologue(simt.SharedAllocOp(SharedArrayType(element, [size])))
        array.name_hint = name
        return array

    def unsafe(self, fill: Callable[[], Sequence[SSAValue]]) -> list[SSAValue]:
        """`simt.unsafe { fill() }`: the compiler's own shared-memory accesses, whose indices it
        computes in range (the interpreter checks each one)."""
        block = Block()
        with self.at(InsertPoint.at_end(block)):
            values = list(fill())
            self.emit(simt.YieldOp(*values))
        op = simt.UnsafeOp(Region(block), [v.type for v in values])
        self.emit(op)
        return list(op.res)

    def when(self, cond: SSAValue | None, fill: Callable[[], None]) -> None:
        """`scf.if cond { fill() }` (just `fill()` when there is no condition or it is true;
        nothing when it is false)."""
        known = None if cond is None else int_of(cond)
        if cond is None or known:
            fill()
            return
        if known == 0:
            return
        block = Block()
        with self.at(InsertPoint.at_end(block)):
            fill()
            self.emit(scf.YieldOp())
        self.emit(scf.IfOp(cond, [], Region(block)))

    def sync(self) -> None:
        self.emit(simt.SyncThreadsOp())

    def sync_if_repeated(self) -> None:
        """A barrier before a shared array can be written again: needed only inside a loop."""
        if self.loop_depth:
            self.sync()

    # -- values -------------------------------------------------------------------------------
    def scalar(self, value: SSAValue) -> SSAValue:
        mapped = self.values.get(value)
        if not isinstance(mapped, SSAValue):
            raise Unsupported(f"value of type {value.type} has no scalar lowering")
        return mapped

    def layout_of(self, value: SSAValue) -> Layout:
        """The layout the analysis chose, or the canonical one where any would do."""
        layout = self.layouts.get(value)
        if layout is None:
            assert isinstance(value.type, TileType)
            return canonical(value.type, self.config)
        return layout

    def dist(self, value: SSAValue) -> Dist:
        """`value` as registers in whatever layout it has (a lazy one in its chosen layout)."""
        mapped = self.values[value]
        if isinstance(mapped, Dist):
            return mapped
        assert isinstance(mapped, Lazy)
        layout = self.layout_of(value)
        return Dist(layout, mapped.make(layout))

    def tile(self, value: SSAValue, layout: Layout) -> list[SSAValue]:
        """`value`'s registers in `layout`, converted if it is held in another one."""
        from ferrox.lowering.tile_to_simt.exchange import convert

        mapped = self.values[value]
        if isinstance(mapped, Lazy):
            return mapped.make(layout)
        assert isinstance(mapped, Dist)
        return convert(self, mapped, layout)

    def get(self, value: SSAValue) -> Value:
        return self.values[value]

    def tensor(self, value: SSAValue) -> Tensor:
        mapped = self.values.get(value)
        assert isinstance(mapped, Tensor)
        return mapped

    def bind(self, value: SSAValue, lowered: Value) -> None:
        if isinstance(lowered, SSAValue) and value.name_hint and not lowered.name_hint:
            lowered.name_hint = value.name_hint
        self.values[value] = lowered


def _key(op: Operation) -> tuple:
    """What a pure op computes: its class, operands, and `_tail`."""
    return (type(op), tuple(op.operands), _tail(op))


def _tail(op: Operation) -> tuple:
    """An op's properties, attributes and result types, in a hashable form."""
    return (
        tuple(sorted(op.properties.items())),
        tuple(sorted(op.attributes.items())),
        tuple(r.type for r in op.results),
    )


@dataclass(frozen=True)
class _Template:
    """What the ops of one class over operands of given types share (`Lowering.make`)."""

    result_types: tuple[Attribute, ...]
    properties: dict[str, Attribute]
    attributes: dict[str, Attribute]
    key: tuple


_TEMPLATES: dict[tuple, _Template] = {}


def _template(
    cls: type[Operation],
    operands: tuple[SSAValue, ...],
    extra: object,
    build: Callable[[], Operation] | None,
) -> tuple[_Template, Operation | None]:
    """The template of `cls`'s ops over operands of these types (and `extra`), and the op built
    to make it when there was none yet."""
    k = (cls, extra, *(v.type for v in operands))
    template = _TEMPLATES.get(k)
    if template is not None:
        return template, None
    op = build() if build is not None else cls(*operands)
    template = _TEMPLATES[k] = _Template(
        tuple(r.type for r in op.results), dict(op.properties), dict(op.attributes), _tail(op)
    )
    return template, op


_is_shared_op = type_test(SHARED_OPS)
"""`isinstance(op, SHARED_OPS)`, by the op's class (asked of every op the lowering emits)."""

_PURE_SIMT = ("simt.thread_id", "simt.block_id", "simt.block_dim", "simt.grid_dim")
_PURE: dict[type, bool] = {}
"""Per op class, whether `Lowering.__call__` may merge it: side-effect-free with no regions
(arith, math and the thread and block coordinates)."""


def _is_pure(cls: type) -> bool:
    pure = _PURE.get(cls)
    if pure is None:
        name = getattr(cls, "name", "")
        pure = _PURE[cls] = name.startswith(("arith.", "math.")) or name in _PURE_SIMT
    return pure


def _dim_of(shape: Sequence[int], offsets: Sequence[int], bit: int) -> int:
    for d, off in enumerate(offsets):
        if off <= bit < off + log2(shape[d]):
            return d
    raise AssertionError(bit)


__all__ = ["Dist", "Lazy", "Lowering", "Tensor", "Value", "canonical"]
