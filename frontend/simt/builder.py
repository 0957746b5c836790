"""SIMT kernels and device functions from Python: the surface's hooks on `FunctionBuilder`.

Each construct maps onto one simt op (docs/python-simt.md has the table): `a[i]` on a slice is
`simt.load`, `out[w] = expr` and `with out[w] as y:` are `simt.get_mut` (the value is computed
inside its region, so it runs only where the witness is in bounds), `tile[i, j]` on shared
memory is `simt.shared_load`/`shared_store`, `with unsafe():` is `simt.unsafe`. Whatever the
frontend can express but the safety rules refuse (a read of a disjoint slice, a witness moved
twice, a barrier under divergent control) is built as written and refused by `verify-disjoint`,
so a Python kernel gets the same diagnostic, at its own line, as the same kernel in MLIR.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import Float32Type, FunctionType, i32
from xdsl.ir import Attribute, Block, Region, SSAValue

from ferrox.dialects.simt import (
    AsyncCommitOp,
    AsyncCopyOp,
    AsyncWaitOp,
    AtomicAddOp,
    AtomicAndOp,
    AtomicCasOp,
    AtomicExchOp,
    AtomicMaxOp,
    AtomicMinOp,
    AtomicOrOp,
    AtomicSliceType,
    AtomicSubOp,
    AtomicXorOp,
    BallotOp,
    BlockDimOp,
    BlockIdOp,
    CallOp,
    DisjointSliceType,
    FuncOp,
    GetMutOp,
    GridDimOp,
    Index2DOp,
    Index2DRuntimeOp,
    LaneIdOp,
    LdMatrixOp,
    LenOp,
    LoadChunkOp,
    LoadOp,
    MmaSyncOp,
    Ordering,
    PtrLoadOp,
    PtrStoreOp,
    PtrType,
    ReturnOp,
    Scope,
    SharedAllocOp,
    SharedArrayType,
    SharedLoadOp,
    SharedLoadVectorOp,
    SharedStoreOp,
    ShuffleOp,
    SliceType,
    StoreChunkOp,
    SyncThreadsOp,
    ThreadIdOp,
    ThreadIndex1DOp,
    ThreadIndexType,
    TileIndexOp,
    UnsafeOp,
    VoteAllOp,
    VoteAnyOp,
    WarpIndexOp,
    WitnessValueOp,
    YieldOp,
)
from ferrox.frontend.common.builder import MISSING, Cell, FunctionBuilder, assigned_names
from ferrox.frontend.common.errors import UserError
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import Constexpr, DType, as_dtype, dtype_of, index
from ferrox.frontend.common.types import f32 as f32_dtype
from ferrox.frontend.common.types import i32 as i32_dtype
from ferrox.frontend.common.values import describe, is_ir
from ferrox.frontend.simt import surface as s

SLICES = (SliceType, DisjointSliceType, AtomicSliceType)
_ATOMIC_OPS = {
    "add": AtomicAddOp,
    "sub": AtomicSubOp,
    "min": AtomicMinOp,
    "max": AtomicMaxOp,
    "and": AtomicAndOp,
    "or": AtomicOrOp,
    "xor": AtomicXorOp,
    "exch": AtomicExchOp,
}
_DIM_OPS = {
    "thread_id": ThreadIdOp,
    "block_id": BlockIdOp,
    "block_dim": BlockDimOp,
    "grid_dim": GridDimOp,
}
_PIPELINE = (
    s.async_copy,
    s.async_commit,
    s.async_wait,
    s.shared_load_vector,
    s.ldmatrix,
    s.mma_sync,
)
_SHUFFLES = {s.shuffle_xor: "xor", s.shuffle_down: "down", s.shuffle_up: "up", s.shuffle_idx: "idx"}


class DeviceFunction:
    """A `@ferrox.simt.device` function: a `simt.func` in every module whose kernels call it."""

    def __init__(self, fn: Any, unsafe: bool = False):
        self.fn = fn
        self.unsafe = unsafe
        self.__name__ = getattr(fn, "__name__", "device")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn
        self._source: FunctionSource | None = None

    @property
    def source(self) -> FunctionSource:
        if self._source is None:
            self._source = FunctionSource.of(self.fn)
        return self._source

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{self.__name__} is a ferrox device function: call it from a kernel")

    def __repr__(self) -> str:
        return f"<ferrox device function {self.__name__}>"


@dataclass
class ModuleState:
    """What a kernel's module gathers as it is built: the device functions it calls."""

    funcs: dict[int, FuncOp] = field(default_factory=dict)
    names: set[str] = field(default_factory=set)
    order: list[FuncOp] = field(default_factory=list)


class SimtBuilder(FunctionBuilder):
    """A SIMT kernel's or device function's body (see the module docstring)."""

    def __init__(
        self,
        source: FunctionSource,
        block: Block,
        module: ModuleState,
        results: Sequence[Attribute] | None = None,
    ):
        super().__init__(source, block)
        self.module = module
        self.results = results  # None: a kernel (no return value)
        self.params: Sequence[SSAValue] = ()  # a kernel's parameters (chunk witnesses name them)
        self.returned = False
        self.writing: dict[SSAValue, WitnessValueOp] = {}
        """Witness -> its index read before the guarded write that moves it, while that write's
        region is built: `w.value` inside `out[w] = ...` reads this (see `guarded_write`)."""

    # -- items ---------------------------------------------------------------------------

    def index_of(self, value: Any, node: ast.AST) -> SSAValue:
        """An index operand: index values as they are, other integers converted."""
        if not is_ir(value):
            if not isinstance(value, int) or isinstance(value, bool):
                raise self.fail(node, f"an index must be an integer, found {describe(value)}")
            return self.emit.const(value, index)
        if isinstance(value.type, ThreadIndexType):
            return self.witness_index(value)
        d = dtype_of(value.type)
        if d is None or not d.is_integer:
            raise self.fail(node, f"an index must be an integer, found {value.type}")
        return value if d == index else self.emit.cast(value, index)

    def indices(self, node: ast.Subscript) -> list[SSAValue]:
        key = self.expr(node.slice)
        self.here(node)
        keys = key if isinstance(key, tuple) else (key,)
        return [self.index_of(k, node.slice) for k in keys]

    def load_item(self, base: Any, node: ast.Subscript) -> Any:
        if not is_ir(base):
            return super().load_item(base, node)
        t = base.type
        if isinstance(t, SLICES):
            (i,) = self.one_index(node)
            return self.emit.result(LoadOp(base, i))
        if isinstance(t, SharedArrayType):
            return self.emit.result(SharedLoadOp(base, self.indices(node)))
        if isinstance(t, PtrType):
            (i,) = self.one_index(node)
            return self.emit.result(PtrLoadOp(base, i))
        raise self.fail(node, f"cannot index a value of type {t}")

    def one_index(self, node: ast.Subscript) -> list[SSAValue]:
        found = self.indices(node)
        if len(found) != 1:
            raise self.fail(node.slice, f"a slice takes one index, found {len(found)}")
        return found

    def assign_item(self, target: ast.Subscript, value: ast.expr, op: str | None) -> None:
        base = self.expr(target.value)
        if not is_ir(base):
            raise self.fail(target, f"cannot assign to an item of {describe(base)}")
        t = base.type
        if isinstance(t, DisjointSliceType) and t.space.kind.data == "tile":
            key = self.expr(target.slice)
            values = self.expr(value)
            self.here(target)
            values = values if isinstance(values, tuple) else (values,)
            element = self.element(t)
            stored = [self.emit.materialize(v, element) for v in values]
            self.emit.emit(StoreChunkOp(base, key, stored))
            return
        if isinstance(t, DisjointSliceType):
            key = self.expr(target.slice)
            self.here(target)
            self.guarded_write(base, key, target, lambda old: self.updated(old, value, op, target))
            return
        if isinstance(t, SharedArrayType):
            at = self.indices(target)
            new = self.updated(lambda: self.emit.result(SharedLoadOp(base, at)), value, op, target)
            self.here(target)
            self.emit.emit(SharedStoreOp(self.emit.materialize(new, self.element(t)), base, at))
            return
        if isinstance(t, PtrType):
            (i,) = self.one_index(target)
            new = self.updated(lambda: self.emit.result(PtrLoadOp(base, i)), value, op, target)
            self.here(target)
            self.emit.emit(PtrStoreOp(self.emit.materialize(new, self.element(t)), base, i))
            return
        if isinstance(t, SliceType):
            raise self.fail(
                target,
                f"cannot write slice `{self.name_of(base)}`: a Slice is read-only; take a "
                f"DisjointSlice for an output",
            )
        if isinstance(t, AtomicSliceType):
            raise self.fail(
                target,
                f"cannot write atomic slice `{self.name_of(base)}` with `=`: update it with "
                f"atomic_add, atomic_exch, ...",
            )
        raise self.fail(target, f"cannot assign to an item of {t}")

    def updated(self, old: Any, value: ast.expr, op: str | None, node: ast.AST) -> Any:
        """The value an item assignment stores: `value`, or `old <op> value` for `+=` etc.
        `old` is the current value or a function that loads it."""
        new = self.expr(value)
        if op is None:
            return new
        self.here(node)
        current = old() if callable(old) else old
        return self.emit.binop(op, current, new)

    def element(self, t: Any) -> DType:
        d = dtype_of(t.element_type)
        if d is None:
            raise UserError(f"{t} holds no numbers")
        return d

    def name_of(self, value: SSAValue) -> str:
        return f"%{value.name_hint}" if value.name_hint else "the slice"

    def guarded_write(self, out: SSAValue, witness: Any, node: ast.AST, body) -> None:
        """`simt.get_mut out[witness]`: `body(old)` gives the new value inside the region."""
        t = out.type
        assert isinstance(t, DisjointSliceType)
        if not is_ir(witness) or not isinstance(witness.type, ThreadIndexType):
            found = describe(witness)
            raise self.fail(
                node,
                f"a disjoint slice is written only through a witness: `{self.name_of(out)}[...]` "
                f"needs a thread index from thread_index_1d(), index_2d(S), index_2d_runtime(w) "
                f"or warp_index(), found {found}",
            )
        element = self.element(t)
        # `w.value` inside the write reads the index taken just before `w` is moved: the index
        # is a number that grants no access (the verifier lets `simt.witness_value` read a
        # witness only until its move), and it is the element the region writes.
        index = WitnessValueOp(witness)
        outer = self.writing.get(witness)
        self.writing[witness] = index

        def build() -> None:
            new = body(self.local("<old>"))
            self.here(node)
            self.emit.emit(YieldOp(self.emit.materialize(new, element)))

        try:
            block, _ = self.region([], [t.element_type], ["<old>"], build)
        finally:
            if outer is None:
                del self.writing[witness]
            else:
                self.writing[witness] = outer
        block.args[0].location = self.source.loc(node)
        self.here(node)
        if index.results[0].uses:
            first_read = index.location
            self.emit.emit(index)
            index.location = first_read  # located at the first `w.value` in the write
        self.emit.emit(GetMutOp(out, witness, Region(block)))

    def witness_index(self, witness: SSAValue) -> SSAValue:
        """`simt.witness_value`: a witness's index (inside its own guarded write, the one read
        before the write moved it)."""
        found = self.writing.get(witness)
        if found is not None:
            if not found.results[0].uses:
                found.location = self.emit.location
            return found.results[0]
        return self.emit.result(WitnessValueOp(witness))

    # -- with ----------------------------------------------------------------------------

    def with_(self, node: ast.With) -> None:
        if len(node.items) != 1:
            raise self.fail(node, "a kernel `with` takes one item")
        item = node.items[0]
        ctx = item.context_expr
        if isinstance(ctx, ast.Call) and self.expr(ctx.func) is s.unsafe:
            if ctx.args or ctx.keywords or item.optional_vars is not None:
                raise self.fail(ctx, "`with unsafe():` takes no arguments and binds no name")
            self.unsafe_block(node)
            return
        if isinstance(ctx, ast.Subscript):
            out = self.expr(ctx.value)
            if is_ir(out) and isinstance(out.type, DisjointSliceType):
                var = item.optional_vars
                if not isinstance(var, ast.Name):
                    raise self.fail(ctx, "a guarded write names its slot: `with out[w] as slot:`")
                witness = self.expr(ctx.slice)
                field = f"{var.id}.value"
                leaked = sorted(
                    n
                    for n in assigned_names(node.body) - {var.id, field}
                    if self.local(n) is not MISSING
                )
                if leaked:
                    raise self.fail(
                        node,
                        f"`{leaked[0]}` is rebound inside a guarded write, which runs only in "
                        "bounds: its new value cannot leave the `with` block (compute it before)",
                    )
                self.here(ctx)

                def body(old: SSAValue) -> Any:
                    self.scopes[-1][var.id] = Cell(["value"], {"value": self.element(out.type)})
                    self.bind_arg(field, old)
                    if var.id.isidentifier():
                        old.name_hint = var.id
                    self.body(node.body)
                    return self.local(field)

                self.guarded_write(out, witness, ctx, body)
                return
        raise self.fail(
            ctx, "a kernel `with` is a guarded write (`with out[w] as y:`) or `with unsafe():`"
        )

    def unsafe_block(self, node: ast.With) -> None:
        names = sorted(assigned_names(node.body))
        kept: dict[str, Any] = {}

        def build() -> None:
            self.body(node.body)
            self.here(node)
            for name in names:
                value = self.local(name)
                if isinstance(value, (tuple, list)) and _holds_ir(value):
                    # a tuple leaves as its elements: the numbers are results, the rest kept
                    if not isinstance(value, tuple) or any(
                        _holds_ir(v) if not is_ir(v) else not _number(v) for v in value
                    ):
                        raise self.fail(
                            node,
                            f"`{name}` leaves a `with unsafe():` block: a name bound there holds "
                            "a number or a flat tuple of numbers",
                        )
                    kept[name] = value
                elif _number(value) or (value is not MISSING and not is_ir(value)):
                    kept[name] = value
            self.emit.emit(YieldOp(*[v for v in _flat(kept.values()) if is_ir(v)]))

        self.here(node)
        block, _ = self.region([], build=build)
        leaving = [v for v in _flat(kept.values()) if is_ir(v)]
        op = self.emit.emit(UnsafeOp(Region(block), [v.type for v in leaving]))
        results = iter(op.results)

        def outside(value: Any) -> Any:
            return next(results) if is_ir(value) else value

        for name, value in kept.items():
            if isinstance(value, tuple):
                self.bind(name, tuple(outside(v) for v in value))
            else:
                self.bind(name, outside(value))

    # -- attributes ----------------------------------------------------------------------

    def ir_attribute(self, base: SSAValue, attr: str, node: ast.Attribute) -> Any:
        if isinstance(base.type, ThreadIndexType) and attr == "value":
            return self.witness_index(base)
        return super().ir_attribute(base, attr, node)

    def python_attribute(self, base: Any, attr: str, node: ast.Attribute) -> Any:
        if isinstance(base, s.Dims):
            if attr not in ("x", "y", "z"):
                raise self.fail(node, f"{base.name} has components x, y and z, not '{attr}'")
            return self.emit.result(_DIM_OPS[base.name](attr))
        return super().python_attribute(base, attr, node)

    # -- calls ---------------------------------------------------------------------------

    def call_intrinsic(
        self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call
    ) -> Any:
        e = self.emit
        if fn is len:
            self.arity(node, "len", args, kwargs, 1)
            (x,) = args
            if is_ir(x) and isinstance(x.type, SLICES):
                return e.result(LenOp(x))
            if not is_ir(x):
                return len(x)
            raise self.fail(node, f"len takes a slice, not {x.type}")
        if isinstance(fn, DeviceFunction):
            return self.call_device(fn, args, kwargs, node)
        if fn is s.thread_index_1d:
            self.arity(node, fn.name, args, kwargs, 0)
            return e.result(ThreadIndex1DOp())
        if fn is s.warp_index:
            self.arity(node, fn.name, args, kwargs, 0)
            return e.result(WarpIndexOp())
        if fn is s.index_2d:
            self.arity(node, fn.name, args, kwargs, 1)
            stride = args[0]
            if is_ir(stride) or not isinstance(stride, int) or stride <= 0:
                raise self.fail(
                    node,
                    "index_2d(S) takes a positive compile-time row stride; a run-time width is "
                    "index_2d_runtime(width)",
                )
            return e.result(Index2DOp(stride))
        if fn is s.index_2d_runtime:
            self.arity(node, fn.name, args, kwargs, 1)
            return e.result(Index2DRuntimeOp(self.index_of(args[0], node)))
        if fn is s.witness_value:
            self.arity(node, fn.name, args, kwargs, 1)
            if not is_ir(args[0]) or not isinstance(args[0].type, ThreadIndexType):
                raise self.fail(node, f"witness_value takes a witness, found {describe(args[0])}")
            return self.witness_index(args[0])
        if fn is s.tile_index:
            self.arity(node, fn.name, args, kwargs, 2)
            out, k = args
            if (
                not is_ir(out)
                or not isinstance(out.type, DisjointSliceType)
                or (out.type.space.kind.data != "tile")
            ):
                raise self.fail(node, f"tile_index takes a space_tile slice, found {describe(out)}")
            space = out.type.space
            first = space.dims_arg.data
            rank = len(space.tile_shape.data)
            if first + rank > len(self.params):
                raise self.fail(node, "tile_index is for kernels (their dims parameters)")
            dims = list(self.params[first : first + rank])
            return e.result(TileIndexOp(self.index_of(k, node), dims, space))
        if fn is s.load_chunk:
            self.arity(node, fn.name, args, kwargs, 5)
            x, i, count, pad, width = args
            if not is_ir(x) or not isinstance(x.type, SliceType):
                raise self.fail(node, f"load_chunk reads a Slice, found {describe(x)}")
            if is_ir(width) or not isinstance(width, int):
                raise self.fail(node, "load_chunk's width is a compile-time integer")
            pad_value = e.materialize(pad, self.element(x.type))
            op = e.emit(
                LoadChunkOp(x, self.index_of(i, node), self.index_of(count, node), pad_value, width)
            )
            return tuple(op.results)
        if fn in _PIPELINE:
            return self.pipeline(fn, args, kwargs, node)
        if fn is s.lane_id:
            self.arity(node, fn.name, args, kwargs, 0)
            return e.result(LaneIdOp())
        if fn is s.sync_threads:
            self.arity(node, fn.name, args, kwargs, 0)
            e.emit(SyncThreadsOp())
            return None
        if fn is s.shared:
            return self.shared_alloc(args, kwargs, node)
        if fn in _SHUFFLES:
            self.arity(node, fn.name, args, kwargs, 2)
            value, offset = args
            if not is_ir(value):
                value = e.materialize(value)
            if value.type not in (i32, Float32Type()):
                raise self.fail(node, f"{fn.name} moves i32 or f32 values, found {value.type}")
            off = e.cast(offset, i32_dtype)
            return e.result(ShuffleOp(_SHUFFLES[fn], value, off))
        if fn in (s.vote_all, s.vote_any, s.ballot):
            self.arity(node, fn.name, args, kwargs, 1)
            p = e.condition(args[0], f"{fn.name}'s predicate")
            p = e.materialize(p)
            cls = {s.vote_all: VoteAllOp, s.vote_any: VoteAnyOp, s.ballot: BallotOp}[fn]
            return e.result(cls(p))
        if fn in s.ATOMICS or fn is s.atomic_cas:
            return self.atomic(fn, args, kwargs, node)
        if fn is s.unsafe:
            raise self.fail(node, "unsafe() is a `with` block: `with unsafe(): ...`")
        if fn in (s.Slice, s.DisjointSlice, s.AtomicSlice, s.Ptr, Constexpr):
            raise self.fail(node, f"{fn!r} is an annotation, not a function")
        return NotImplemented

    def pipeline(self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        """The GEMM pipeline's ops, one call each (`dialects/simt/pipeline.py`): what they
        refuse (a copy that is not 16 bytes, a pending count past 7, an ldmatrix of 32-bit
        elements, shared memory outside unsafe code) is built as written and refused by the op
        verifiers and verify-disjoint, at this line."""
        e = self.emit
        if fn is s.async_commit:
            self.arity(node, fn.name, args, kwargs, 0)
            e.emit(AsyncCommitOp())
            return None
        if fn is s.async_wait:
            self.arity(node, fn.name, args, kwargs, 1)
            self.constant_int(node, fn.name, "pending count", args[0])
            e.emit(AsyncWaitOp(args[0]))
            return None
        if fn is s.ldmatrix:
            trans = kwargs.pop("trans", False)
            self.arity(node, fn.name, args, kwargs, 2)
            if not isinstance(trans, bool):
                raise self.fail(node, f"ldmatrix's trans is True or False, found {describe(trans)}")
            t = self.shared_operand(node, fn.name, args[0])
            op = e.emit(LdMatrixOp(t, self.index_of(args[1], node), trans))
            return tuple(op.results)
        if fn is s.mma_sync:
            self.arity(node, fn.name, args, kwargs, 4)
            element, *groups = args
            dtype = as_dtype(element)
            if dtype is None or dtype.name not in ("bf16", "f16"):
                raise self.fail(
                    node, f"mma_sync multiplies bf16 or f16 (its first argument), not {element!r}"
                )
            fragments = []
            kinds = (i32_dtype, i32_dtype, f32_dtype)
            for what, values, kind in zip("abc", groups, kinds):
                if not isinstance(values, tuple):
                    raise self.fail(
                        node, f"mma_sync's {what} is a tuple of fragments, found {describe(values)}"
                    )
                fragments.append([e.materialize(v, kind) for v in values])
            op = e.emit(MmaSyncOp(dtype.ir, *fragments))
            return tuple(op.results)
        if fn is s.shared_load_vector:
            self.arity(node, fn.name, args, kwargs, 3)
            t, i, width = args
            t = self.shared_operand(node, fn.name, t)
            self.constant_int(node, fn.name, "width", width)
            op = e.emit(SharedLoadVectorOp(t, self.index_of(i, node), width))
            return tuple(op.results)
        self.arity(node, fn.name, args, kwargs, 6)  # async_copy
        x, i, count, t, j, width = args
        if not is_ir(x) or not isinstance(x.type, SLICES):
            raise self.fail(node, f"async_copy copies from a Slice, found {describe(x)}")
        t = self.shared_operand(node, fn.name, t)
        self.constant_int(node, fn.name, "width", width)
        e.emit(
            AsyncCopyOp(
                x,
                self.index_of(i, node),
                self.index_of(count, node),
                t,
                self.index_of(j, node),
                width,
            )
        )
        return None

    def shared_operand(self, node: ast.Call, name: str, value: Any) -> SSAValue:
        if not is_ir(value) or not isinstance(value.type, SharedArrayType):
            raise self.fail(
                node, f"{name} takes a shared array (simt.shared(...)), found {describe(value)}"
            )
        return value

    def constant_int(self, node: ast.Call, name: str, what: str, value: Any) -> None:
        if is_ir(value) or not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(
                node, f"{name}'s {what} is a compile-time integer, found {describe(value)}"
            )

    def shared_alloc(self, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> SSAValue:
        if len(args) != 2 or kwargs:
            raise self.fail(
                node,
                "shared(element, shape) takes an element type and a shape: shared(f32, (16, 16))",
            )
        element, shape = args
        dtype = as_dtype(element)
        shape = shape if isinstance(shape, tuple) else (shape,)
        if dtype is None:
            raise self.fail(node, f"shared memory holds numbers, not {describe(element)}")
        if not shape or any(is_ir(d) or not isinstance(d, int) or d <= 0 for d in shape):
            raise self.fail(node, "a shared array's shape is 1 to 3 positive compile-time integers")
        return self.emit.result(SharedAllocOp(SharedArrayType(dtype.ir, list(shape))))

    def atomic(self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> SSAValue:
        e = self.emit
        scope = kwargs.pop("scope", "gpu")
        ordering = kwargs.pop("ordering", "relaxed")
        cas = fn is s.atomic_cas
        need = 4 if cas else 3
        if len(args) != need or kwargs:
            extra = ", expected, new" if cas else ", value"
            raise self.fail(
                node,
                f"{fn.name}(target, index{extra}, scope=..., ordering=...) takes {need} values",
            )
        target, at = args[0], args[1]
        if not is_ir(target) or not isinstance(target.type, (*SLICES, SharedArrayType, PtrType)):
            raise self.fail(
                node,
                f"{fn.name}'s target is an AtomicSlice (or, unsafe, shared memory or a Ptr), "
                f"found {describe(target)}",
            )
        keys = at if isinstance(at, tuple) else (at,)
        indices = [self.index_of(k, node) for k in keys]
        element = self.element(target.type)
        values = [e.materialize(v, element) if not is_ir(v) else v for v in args[2:]]
        for v in values:
            if v.type != element.ir:
                raise self.fail(
                    node, f"{fn.name} on {target.type} takes {element} values, found {v.type}"
                )
        try:
            sc, order = Scope(scope), Ordering(ordering)
        except ValueError:
            raise self.fail(
                node,
                f"scope is one of {', '.join(x.value for x in Scope)} and ordering one of "
                f"{', '.join(x.value for x in Ordering)}; found {scope!r}, {ordering!r}",
            ) from None
        if cas:
            return e.result(AtomicCasOp(target, indices, values[0], values[1], sc, order))
        return e.result(_ATOMIC_OPS[s.ATOMICS[fn]](target, indices, values[0], sc, order))

    def call_device(
        self, fn: DeviceFunction, args: list[Any], kwargs: dict[str, Any], node: ast.Call
    ) -> Any:
        if kwargs:
            raise self.fail(node, f"{fn.__name__} takes its arguments by position")
        func = device_function(fn, self.module)
        inputs = func.function_type.inputs.data
        if len(args) != len(inputs):
            raise self.fail(node, f"{fn.__name__} takes {len(inputs)} arguments, found {len(args)}")
        operands = []
        for a, t in zip(args, inputs):
            d = dtype_of(t)
            value = self.emit.materialize(a, d) if not is_ir(a) else a
            operands.append(value)
        results = list(func.function_type.outputs.data)
        op = self.emit.emit(CallOp(func.sym_name.data, operands, results))
        if not results:
            return None
        return op.results[0] if len(results) == 1 else tuple(op.results)

    # -- return --------------------------------------------------------------------------

    def return_(self, node: ast.Return) -> None:
        if self.results is None:
            if node.value is not None:
                raise self.fail(node, "a kernel returns nothing: it writes its outputs")
            raise self.fail(node, "a kernel has no early `return`: guard the rest with `if`")
        if self.returned or self.scopes_depth() != 1:
            raise self.fail(node, "a device function returns once, as its last statement")
        value = self.expr(node.value) if node.value is not None else ()
        values = value if isinstance(value, tuple) else (value,)
        if len(values) != len(self.results):
            raise self.fail(
                node, f"this function returns {len(self.results)} values, found {len(values)}"
            )
        out = []
        self.here(node)
        for v, t in zip(values, self.results):
            d = dtype_of(t)
            v = self.emit.materialize(v, d) if not is_ir(v) else v
            if v.type != t:
                raise self.fail(node, f"this function returns {t}, found {v.type}")
            out.append(v)
        self.emit.emit(ReturnOp(out))
        self.returned = True

    def scopes_depth(self) -> int:
        return len(self.scopes)


def _number(value: Any) -> bool:
    return is_ir(value) and dtype_of(value.type) is not None


def _holds_ir(value: Any) -> bool:
    """Whether a Python tuple or list holds an IR value, at any depth."""
    if isinstance(value, (tuple, list)):
        return any(is_ir(v) or _holds_ir(v) for v in value)
    return False


def _flat(values: Any) -> list[Any]:
    """Names' values with each tuple spread into its elements."""
    out: list[Any] = []
    for v in values:
        out.extend(v if isinstance(v, tuple) else (v,))
    return out


def param_type(annotation: Any, positions: Mapping[str, int] | None = None) -> Attribute | None:
    """The IR type a parameter annotation names; None for `Constexpr`. `positions` names the
    kernel's run-time parameters (a tile space refers to one)."""
    if annotation is Constexpr:
        return None
    if isinstance(annotation, s.SliceAnnotation):
        try:
            return annotation.ir(positions)
        except TypeError as e:
            raise UserError(str(e)) from None
    d = as_dtype(annotation)
    if d is not None:
        return d.ir
    raise UserError(
        f"unknown parameter annotation {annotation!r}: a Slice[...], DisjointSlice[...], "
        f"AtomicSlice[...], Ptr[...], an element type (f32, i32, index, ...) or Constexpr"
    )


def device_function(fn: DeviceFunction, module: ModuleState) -> FuncOp:
    """The `simt.func` of a device function, built once per module."""
    known = module.funcs.get(id(fn))
    if known is not None:
        return known
    source = fn.source
    tree = source.tree
    builder_types: list[Attribute] = []
    probe = SimtBuilder(source, Block(), module)
    for arg in tree.args.args:
        if arg.annotation is None:
            raise probe.fail(
                arg, f"parameter `{arg.arg}` of device function {tree.name} needs an annotation"
            )
        try:
            t = param_type(probe.annotation(arg.annotation))
        except UserError as e:
            raise probe.fail(arg.annotation, str(e)) from None
        if t is None:
            raise probe.fail(arg, "a device function takes no Constexpr parameters")
        builder_types.append(t)
    results: list[Attribute] = []
    if tree.returns is not None:
        ret = probe.annotation(tree.returns)
        rets = ret if isinstance(ret, tuple) else (ret,)
        for r in rets:
            if r is None:
                continue
            try:
                t = param_type(r)
            except UserError as e:
                raise probe.fail(tree.returns, str(e)) from None
            if t is None or dtype_of(t) is None:
                raise probe.fail(tree.returns, f"a device function returns numbers, not {r!r}")
            results.append(t)
    name = tree.name
    while name in module.names:
        name += "_"
    module.names.add(name)
    func = FuncOp(name, FunctionType.from_lists(builder_types, results), unsafe=fn.unsafe)
    func.location = source.loc(tree)
    module.funcs[id(fn)] = func
    builder = SimtBuilder(source, func.body.block, module, results)
    for node, a in zip(tree.args.args, func.body.block.args):
        builder.bind_arg(node.arg, a)
        a.location = source.loc(node)  # the parameter's own line and column
    builder.body(tree.body)
    if not builder.returned:
        if results:
            raise builder.fail(tree, f"device function {tree.name} must end with `return`")
        builder.here(tree)
        builder.emit.emit(ReturnOp())
    module.order.append(func)
    return func
