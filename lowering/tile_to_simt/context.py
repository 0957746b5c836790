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

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from ferrox.dialects import simt
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.conversion import Emitter, Unsupported
from ferrox.lowering.tile_to_simt.config import Config, element_bytes
from ferrox.lowering.tile_to_simt.layout import Layout, chunked, dim_offsets, log2, replicated
from ferrox.lowering.tile_to_simt.uniform import need_of
from ferrox.passes.analysis.uniformity import Level, Uniformity

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
    """One kernel's lowering: the insertion point, the value map and the kernel-wide caches."""

    config: Config
    layouts: dict[SSAValue, Layout | None]
    entry: Block
    values: dict[SSAValue, Value] = field(default_factory=dict[SSAValue, Value])
    out: Emitter = field(init=False)
    """Where the next SIMT op goes (the end of the kernel's entry block, to begin with) and the
    location it gets (the tile op being lowered)."""
    loop_depth: int = 0
    shared_bytes: int = 0
    grid: Tensor | None = None
    """The first output partition: its tiles are the grid."""
    control: Uniformity | None = None
    """How uniformly each tile op is reached (`uniform.analyse`); None: not checked."""
    need: Level | None = None
    """The most uniformity an op emitted since the last reset needs (`uniform.need_of`)."""
    _prologue_end: Operation | None = None
    _lanes: dict[tuple, list[SSAValue | None]] = field(default_factory=dict)
    _tid: SSAValue | None = None

    def __post_init__(self) -> None:
        self.out = Emitter(InsertPoint.at_end(self.entry))

    # -- emitting -----------------------------------------------------------------------------
    def emit(self, op: Operation) -> Operation:
        for inner in op.walk():
            need = need_of(inner)
            if need is not None and (self.need is None or need > self.need):
                self.need = need
        return self.out.emit(op)

    def __call__(self, op: Operation, name: str | None = None) -> SSAValue:
        result = self.emit(op).results[0]
        if name:
            result.name_hint = name
        return result

    def lowering(self, op: Operation) -> None:
        """Give the ops emitted from now on `op`'s location: they are its lowering."""
        self.out.location = op.location

    @contextmanager
    def at(self, point: InsertPoint) -> Iterator[None]:
        """Emit at `point` inside the `with` block (a loop body, an `if` branch, the prologue)."""
        saved, self.out.point = self.out.point, point
        try:
            yield
        finally:
            self.out.point = saved

    def in_prologue(self, op: Operation) -> SSAValue:
        """Emit `op` at the kernel's start (after what is already there), for values every
        thread computes once: thread coordinates, shared arrays."""
        point = (
            InsertPoint.after(self._prologue_end)
            if self._prologue_end
            else InsertPoint.at_start(self.entry)
        )
        with self.at(point):
            self.emit(op)
        self._prologue_end = op
        return op.results[0]

    # -- constants and index arithmetic ---------------------------------------------------
    def index(self, v: int) -> SSAValue:
        return self(arith.ConstantOp(IntegerAttr(v, IndexType())))

    def constant(self, v: int | float | bool, t: Attribute) -> SSAValue:
        if isinstance(t, IntegerType | IndexType):
            value = int(v)
            return self(arith.ConstantOp(IntegerAttr(value, t)))
        return self(arith.ConstantOp(FloatAttr(float(v), t)))  # type: ignore[call-overload]

    def add(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            if b == 0:
                return a
            b = self.index(b)
        return self(arith.AddiOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            if b == 1:
                return a
            b = self.index(b)
        return self(arith.MuliOp(a, b))

    def cmp(self, pred: str, a: SSAValue, b: SSAValue | int) -> SSAValue:
        if isinstance(b, int):
            b = self.index(b)
        return self(arith.CmpiOp(a, b, pred))

    def all_of(self, conds: Sequence[SSAValue]) -> SSAValue:
        if not conds:
            return self.constant(True, IntegerType(1))
        result = conds[0]
        for c in conds[1:]:
            result = self(arith.AndIOp(result, c))
        return result

    # -- threads and coordinates -------------------------------------------------------------
    @property
    def threads(self) -> int:
        return self.config.threads

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
                piece = self.in_prologue(arith.ShRUIOp(piece, self.in_prologue(_iconst(q))))
            if q + run < len(lanes):  # higher thread bits remain: mask them off
                piece = self.in_prologue(
                    arith.AndIOp(piece, self.in_prologue(_iconst((1 << run) - 1)))
                )
            shift = b - offsets[d]
            if shift:
                piece = self.in_prologue(arith.ShLIOp(piece, self.in_prologue(_iconst(shift))))
            prev = parts[d]
            parts[d] = piece if prev is None else self.in_prologue(arith.OrIOp(prev, piece))
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

    def replica_guard(self, layout: Layout) -> SSAValue | None:
        """True on the one thread of each replica group (its replicated thread bits are 0)."""
        mask = layout.replica_mask
        if not mask:
            return None
        bits = self(arith.AndIOp(self.tid(), self.index(mask)))
        return self.cmp("eq", bits, 0)

    # -- shared memory, unsafe code, barriers ----------------------------------------------
    def shared(self, element: Attribute, size: int, name: str) -> SSAValue:
        """A block-wide static array of `size` elements, allocated at the kernel's start."""
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
        """`scf.if cond { fill() }` (just `fill()` when there is no condition)."""
        if cond is None:
            fill()
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


def _iconst(v: int) -> Operation:
    return arith.ConstantOp(IntegerAttr(v, IndexType()))


def _dim_of(shape: Sequence[int], offsets: Sequence[int], bit: int) -> int:
    for d, off in enumerate(offsets):
        if off <= bit < off + log2(shape[d]):
            return d
    raise AssertionError(bit)


__all__ = ["Dist", "Lazy", "Lowering", "Tensor", "Value", "canonical"]
