"""Tile kernels from Python: the tile surface's hooks on the shared `FunctionBuilder`.

Each construct is one tile op (docs/python-tile.md has the table): `load(x, (i, k), shape)` is
`tile.load`, `load_like(x, out)` `tile.load_like`, `store(v, out)` `tile.store`, `a + b` on
tiles `tile.add`, `x @ y` `tile.mma` on a zero accumulator and `acc + x @ y` (or `acc += x @ y`)
`tile.mma` on `acc`, `sum(t, axis)` `tile.reduce_sum`, and so on. `for k in range(n)` is an
`scf.for` that carries the tiles its body rebinds. What the frontend can express but the tile
dialect refuses (a load from an output partition, a store to an input, mismatched shapes) is
built as written and refused by the dialect's verifiers, so a Python kernel gets the same
diagnostic, at its own line, as the same kernel in MLIR.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, Float32Type, IndexType
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects import tile as t
from ferrox.dialects.simt.tile_support import grid_order_problem, grid_reverse_problem
from ferrox.dialects.tile.attributes import Padding
from ferrox.frontend.common.builder import MISSING, FunctionBuilder, assigned_names, carryable
from ferrox.frontend.common.errors import UserError
from ferrox.frontend.common.intrinsics import exp2
from ferrox.frontend.common.source import FunctionSource
from ferrox.frontend.common.types import DType, as_dtype, dtype_of, f32, i1, i32, index
from ferrox.frontend.common.values import describe, is_ir
from ferrox.frontend.tile import surface as s
from ferrox.frontend.tile.values import TileEmitter, is_tile, shape_text, tile_type

_PADDINGS = {p.value: p for p in Padding}
_REDUCE_OPS = {
    "sum": t.ReduceSumOp,
    "prod": t.ReduceProdOp,
    "max": t.ReduceMaxOp,
    "min": t.ReduceMinOp,
}


@dataclass(frozen=True)
class Method:
    """`t.sum` and friends: an intrinsic with its first argument bound."""

    intrinsic: s.Intrinsic
    base: SSAValue


_TILE_METHODS = {
    "sum": s.sum,
    "prod": s.prod,
    "max": s.max,
    "min": s.min,
    "astype": s.astype,
    "reshape": s.reshape,
    "broadcast_to": s.broadcast,
    "transpose": s.transpose,
    "permute": s.permute,
    "extract": s.extract,
}


def _shaped(value: Any) -> bool:
    return is_ir(value) and isinstance(value.type, t.PartitionType | t.TileTensorType)


class TileBuilder(FunctionBuilder):
    """Builds a tile kernel's body (see the module docstring)."""

    emit: TileEmitter

    def __init__(self, source: FunctionSource, block: Block):
        super().__init__(source, block)
        self.emit = TileEmitter(block, source.loc(source.tree))
        self.kernel_block = block
        self.grid_order: tuple[int, ...] | None = None
        """Set by `tile.grid_order(...)`; `build_kernel` puts it on the kernel."""
        self.grid_reverse: tuple[int, ...] = ()
        """Set by `tile.grid_order(..., reverse=...)`: the tile-grid axes walked last first."""

    # -- loops carry tiles ---------------------------------------------------------------

    def carried(
        self, node: ast.AST, stmts: Sequence[ast.stmt], exclude: AbstractSet[str] = frozenset()
    ) -> tuple[list[str], list[SSAValue]]:
        """The names a loop body rebinds that exist before it: scalars and tiles (not tensors
        or partitions, which a kernel cannot rebind to another value of the same kind)."""
        names, inits = [], []
        for name in sorted(assigned_names(stmts) - exclude):
            value = self.local(name)
            if value is MISSING or not carryable(value):
                continue
            if is_ir(value) and dtype_of(value.type) is None and not is_tile(value):
                continue
            names.append(name)
            inits.append(self.emit.materialize(value))
        return names, inits

    # -- `@` and the fused `acc + x @ y` ---------------------------------------------------

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        if isinstance(node.op, ast.MatMult):
            x, y = self.expr(node.left), self.expr(node.right)
            self.here(node)
            return self.matmul(x, y, None)
        if isinstance(node.op, ast.Add):
            left_mm = isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.MatMult)
            right_mm = isinstance(node.right, ast.BinOp) and isinstance(node.right.op, ast.MatMult)
            if right_mm and not left_mm:
                assert isinstance(node.right, ast.BinOp)
                acc = self.expr(node.left)
                return self.fused(node, node.right, acc)
            if left_mm:
                assert isinstance(node.left, ast.BinOp)
                x, y = self.expr(node.left.left), self.expr(node.left.right)
                acc = self.expr(node.right)
                self.here(node)
                if is_tile(acc):
                    return self.matmul(x, y, acc)
                return self.emit.binop("+", self.matmul(x, y, None), acc)
        return super().expr_BinOp(node)

    def fused(self, node: ast.AST, mm: ast.BinOp, acc: Any) -> Any:
        x, y = self.expr(mm.left), self.expr(mm.right)
        self.here(node)
        if is_tile(acc):
            return self.matmul(x, y, acc)
        return self.emit.binop("+", acc, self.matmul(x, y, None))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        value = node.value
        if (
            isinstance(node.op, ast.Add)
            and isinstance(value, ast.BinOp)
            and isinstance(value.op, ast.MatMult)
            and isinstance(node.target, ast.Name)
        ):
            acc = self.lookup(node.target.id, node.target)
            self.bind(node.target.id, self.fused(node, value, acc))
            return
        super().stmt_AugAssign(node)

    def matmul(self, x: Any, y: Any, acc: Any) -> SSAValue:
        """`tile.mma x, y, acc`; without `acc`, a zero f32 accumulator of the product's shape."""
        for role, v in (("x", x), ("y", y)):
            if not is_tile(v):
                raise UserError(f"'@' multiplies tiles; mma {role} is {describe(v)}")
        if acc is None:
            for role, v in (("x", x), ("y", y)):
                if tile_type(v).rank != 2:
                    found = shape_text(tile_type(v).get_shape())
                    raise UserError(f"mma {role} must be a rank-2 tile, found {found}")
            shape = (tile_type(x).get_shape()[0], tile_type(y).get_shape()[1])
            acc = self.emit.constant(0.0, Float32Type(), shape)
        elif not is_tile(acc):
            raise UserError(f"mma's accumulator must be an f32 tile, found {describe(acc)}")
        return self.emit.result(t.MmaOp(x, y, acc))

    # -- calls -----------------------------------------------------------------------------

    def call_intrinsic(
        self, fn: Any, args: list[Any], kwargs: dict[str, Any], node: ast.Call
    ) -> Any:
        if isinstance(fn, Method):
            fn, args = fn.intrinsic, [fn.base, *args]
        if fn is s.cdiv:
            a, b = self.params(node, "cdiv", args, kwargs, ["a", "b"])
            if not is_ir(a) and not is_ir(b):
                return -(-a // b)
            return self.emit.result(
                arith.CeilDivUIOp(self.as_index(a, node), self.as_index(b, node))
            )
        handler = _HANDLERS.get(fn)
        if handler is None:
            return NotImplemented
        try:
            return handler(self, node, args, kwargs)
        except VerifyException as e:
            raise UserError(str(e)) from None

    def params(
        self,
        node: ast.AST,
        name: str,
        args: list[Any],
        kwargs: dict[str, Any],
        names: Sequence[str],
        defaults: dict[str, Any] | None = None,
    ) -> list[Any]:
        """The arguments of a tile function by position or keyword, with defaults."""
        defaults = defaults or {}
        if len(args) > len(names):
            raise UserError(f"{name} takes at most {len(names)} arguments, found {len(args)}")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise UserError(f"{name} has no parameter '{key}' (it takes {', '.join(names)})")
            if key in values:
                raise UserError(f"{name} got '{key}' twice")
            values[key] = value
        out = []
        for n in names:
            if n in values:
                out.append(values[n])
            elif n in defaults:
                out.append(defaults[n])
            else:
                raise UserError(f"{name} needs '{n}'")
        return out

    def tile_arg(self, value: Any, what: str) -> SSAValue:
        if not is_tile(value):
            raise UserError(f"{what} takes a tile, found {describe(value)}")
        return value

    def shape_arg(self, value: Any, what: str) -> tuple[int, ...]:
        if not s.is_shape(value):
            raise UserError(
                f"{what} must be a compile-time shape (a tuple of ints), found {describe(value)}"
            )
        return (value,) if isinstance(value, int) else tuple(value)

    def axis_arg(self, value: Any, rank: int, what: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise UserError(f"{what} must be a compile-time int, found {describe(value)}")
        return value + rank if -rank <= value < 0 else value

    def dtype_arg(self, value: Any, what: str) -> DType:
        d = as_dtype(value)
        if d is None:
            raise UserError(
                f"{what} must be an element type (f32, bf16, i32, ...), found {value!r}"
            )
        return d

    def index_value(self, value: Any, node: ast.AST, what: str) -> SSAValue:
        if is_ir(value):
            if value.type != IndexType():
                raise UserError(
                    f"{what} must be an index, found {value.type} (convert it: index(x))"
                )
            return value
        if not isinstance(value, int) or isinstance(value, bool):
            raise UserError(f"{what} must be an index, found {describe(value)}")
        return self.emit.const(value, index)

    def padding_arg(self, value: Any) -> Padding:
        if isinstance(value, str) and value in _PADDINGS:
            return _PADDINGS[value]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if value == 0:
                return Padding.ZERO
            if math.isnan(value):
                return Padding.NAN
            if value == math.inf:
                return Padding.POS_INF
            if value == -math.inf:
                return Padding.NEG_INF
        known = ", ".join(repr(p) for p in _PADDINGS)
        raise UserError(f"padding must be one of {known} (or 0, -inf, inf, nan), found {value!r}")

    def source_arg(self, value: Any, op: str) -> SSAValue:
        if not _shaped(value):
            found = value.type if is_ir(value) else describe(value)
            raise UserError(f"{op} reads an input tensor (!tile.tensor), found {found}")
        return value

    # -- attributes ------------------------------------------------------------------------

    def ir_attribute(self, base: SSAValue, attr: str, node: ast.Attribute) -> Any:
        ty = base.type
        if isinstance(ty, t.TileType):
            if attr == "shape":
                return ty.get_shape()
            if attr == "ndim":
                return ty.rank
            if attr == "dtype":
                return dtype_of(ty.element_type)
            if attr == "T":
                return _transpose(self, node, [base], {})
            if attr in _TILE_METHODS:
                return Method(_TILE_METHODS[attr], base)
        if isinstance(ty, t.PartitionType | t.TileTensorType):
            if attr == "dtype":
                return dtype_of(ty.element_type)
            if attr == "ndim":
                return ty.rank
            if attr == "tile_shape" and isinstance(ty, t.PartitionType):
                return ty.get_shape()
        return super().ir_attribute(base, attr, node)

    def return_(self, node: ast.Return) -> None:
        raise self.fail(
            node, "a tile kernel returns nothing: it writes its output partitions with store()"
        )

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        if is_tile(base) or _shaped(base):
            raise self.fail(
                node,
                "a tile kernel does not index elements: load tiles with load(x, index, shape) "
                "or load_like(x, out)",
            )
        return super().expr_Subscript(node)


# -- one handler per tile function ---------------------------------------------------------

Handler = Callable[[TileBuilder, ast.Call, list[Any], dict[str, Any]], Any]


def _load(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, where, shape, padding = b.params(
        node, "load", args, kwargs, ["x", "index", "shape", "padding"], {"padding": "zero"}
    )
    source = b.source_arg(x, "tile.load")
    where = list(where) if isinstance(where, (tuple, list)) else [where]
    indices = [b.index_value(i, node, "a load's tile index") for i in where]
    result = b.emit.tile_type(source.type.element_type, b.shape_arg(shape, "a load's shape"))  # type: ignore[attr-defined]
    return b.emit.result(
        _default_padding(t.LoadOp(source, indices, result, b.padding_arg(padding)))
    )


def _load_like(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, like, padding = b.params(
        node, "load_like", args, kwargs, ["x", "like", "padding"], {"padding": "zero"}
    )
    source = b.source_arg(x, "tile.load_like")
    if not _shaped(like):
        raise UserError(
            "tile.load_like takes its tile from an output partition (!tile.partition), found "
            f"{like.type if is_ir(like) else describe(like)}"
        )
    result = t.TileType(source.type.element_type, like.type.get_shape())  # type: ignore[attr-defined]
    op = t.LoadLikeOp.create(
        operands=[source, like],
        properties={"padding": t.PaddingAttr(b.padding_arg(padding))},
        result_types=[result],
    )
    return b.emit.result(_default_padding(op))


def _default_padding(op: t.LoadOp | t.LoadLikeOp) -> t.LoadOp | t.LoadLikeOp:
    """Zero padding left implicit, as the parser leaves it (so the IR prints as written)."""
    if op.properties.get("padding") == t.PaddingAttr(Padding.ZERO):
        del op.properties["padding"]
    return op


def _store(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    value, out = b.params(node, "store", args, kwargs, ["value", "out"])
    if is_tile(out) and not is_tile(value):
        raise UserError("store takes the tile first: store(value, out)")
    if not is_ir(out):
        raise UserError(
            f"tile.store writes an output partition (!tile.partition), found {describe(out)}"
        )
    if not is_tile(value) and isinstance(out.type, t.PartitionType):
        value = b.emit.full(value, out.type.element_type, out.type.get_shape())
    b.emit.emit(t.StoreOp(b.tile_arg(value, "store"), out))
    return None


def _grid(op: type[t.BlockIdOp] | type[t.NumBlocksOp], name: str) -> Handler:
    def handler(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
        (axis,) = b.params(node, name, args, kwargs, ["axis"])
        return b.emit.result(op(b.axis_arg(axis, 0, f"{name}'s axis")))

    return handler


def _grid_order(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`tile.grid_order(1, 0, 2, reverse=(1,))`: the kernel's launch order, fixed at compile
    time: a static permutation and the tile-grid axes walked last tile first, given once, at the
    kernel's top level (a Constexpr `if` is traced in place)."""
    reverse = kwargs.pop("reverse", ())
    if kwargs:
        raise UserError(
            "tile.grid_order takes the axes by position and the reversed axes as `reverse`: "
            "tile.grid_order(1, 0, reverse=(0,))"
        )
    order = args[0] if len(args) == 1 and isinstance(args[0], tuple | list) else args
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in order):
        found = ", ".join(describe(a) for a in order)
        raise UserError(f"tile.grid_order takes compile-time ints (grid axes), found {found}")
    if not isinstance(reverse, tuple | list):
        reverse = (reverse,)
    if not all(isinstance(a, int) and not isinstance(a, bool) for a in reverse):
        found = ", ".join(describe(a) for a in reverse)
        raise UserError(
            f"tile.grid_order's reverse takes compile-time ints (tile-grid axes), found {found}"
        )
    if b.emit.block is not b.kernel_block:
        raise UserError(
            "tile.grid_order sets the kernel's launch order once, at compile time: it must be a "
            "statement of the kernel's body, not inside a run-time branch or loop (a `Constexpr` "
            "`if` is fine)"
        )
    if b.grid_order is not None:
        rev = f" reversing {list(b.grid_reverse)}" if b.grid_reverse else ""
        raise UserError(
            f"tile.grid_order is given twice: the kernel's grid order is already "
            f"{list(b.grid_order)}{rev}"
        )
    kernel = b.kernel_block.parent_op()
    rank = kernel.grid_rank if isinstance(kernel, t.KernelOp) else len(order)
    problem = grid_order_problem(tuple(order), rank, "tile.grid_order's axes")
    if problem is None:
        problem = grid_reverse_problem(tuple(reverse), rank, "tile.grid_order's reverse")
    if problem is not None:
        raise UserError(problem)
    b.grid_order = tuple(order)
    b.grid_reverse = tuple(reverse)
    return None


def _dim(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axis = b.params(node, "dim", args, kwargs, ["x", "axis"])
    if not _shaped(x):
        found = x.type if is_ir(x) else describe(x)
        raise UserError(f"tile.dim takes a tensor or an output partition, found {found}")
    axis = b.axis_arg(axis, x.type.rank, "dim's axis")
    static = x.type.get_shape()
    if isinstance(x.type, t.TileTensorType) and 0 <= axis < len(static):
        if static[axis] != DYNAMIC_INDEX:
            return static[axis]  # a static dimension is a compile-time constant
    return b.emit.result(t.DimOp(x, axis))


def _default_dtype(value: Any) -> DType:
    if is_ir(value):
        d = dtype_of(value.type)
        if d is None:
            raise UserError(f"full takes a scalar value, found {describe(value)}")
        return d
    if isinstance(value, bool):
        return i1
    if isinstance(value, int):
        return i32
    return f32


def _full(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    shape, value, dtype = b.params(
        node, "full", args, kwargs, ["shape", "value", "dtype"], {"dtype": None}
    )
    d = _default_dtype(value) if dtype is None else b.dtype_arg(dtype, "full's dtype")
    return b.emit.full(value, d.ir, b.shape_arg(shape, "full's shape"))


def _zeros(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    shape, dtype = b.params(node, "zeros", args, kwargs, ["shape", "dtype"], {"dtype": f32})
    d = b.dtype_arg(dtype, "zeros' dtype")
    return b.emit.constant(0.0 if d.is_float else 0, d.ir, b.shape_arg(shape, "zeros' shape"))


def _iota(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    n, dtype = b.params(node, "iota", args, kwargs, ["n", "dtype"], {"dtype": i32})
    shape = b.shape_arg(n, "iota's length")
    d = b.dtype_arg(dtype, "iota's dtype")
    return b.emit.result(t.IotaOp(b.emit.tile_type(d.ir, shape)))


def _shape_op(op: type[t.BroadcastOp] | type[t.ReshapeOp], name: str) -> Handler:
    def handler(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
        x, shape = b.params(node, name, args, kwargs, ["t", "shape"])
        x = b.tile_arg(x, name)
        result = b.emit.tile_type(tile_type(x).element_type, b.shape_arg(shape, f"{name}'s shape"))
        return b.emit.result(op(x, result))

    return handler


def _transpose(b: TileBuilder, node: ast.AST, args: list[Any], kwargs: dict[str, Any]) -> Any:
    (x,) = b.params(node, "transpose", args, kwargs, ["t"])
    x = b.tile_arg(x, "transpose")
    ty = tile_type(x)
    return b.emit.result(
        t.TransposeOp(x, t.TileType(ty.element_type, tuple(reversed(ty.get_shape()))))
    )


def _permute(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, axes = b.params(node, "permute", args, kwargs, ["t", "axes"])
    x = b.tile_arg(x, "permute")
    shape = tile_type(x).get_shape()
    perm = b.shape_arg(axes, "permute's axes")
    if sorted(perm) != list(range(len(shape))):
        raise UserError(
            f"{list(perm)} is not a permutation of the {len(shape)} axes of {shape_text(shape)}"
        )
    return b.emit.result(t.PermuteOp(x, perm))


def _reduce(name: str) -> Handler:
    def handler(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
        x, axis, keepdims = b.params(
            node, name, args, kwargs, ["t", "axis", "keepdims"], {"keepdims": False}
        )
        x = b.tile_arg(x, name)
        rank = tile_type(x).rank
        axis = b.axis_arg(axis, rank, f"{name}'s axis")
        if not 0 <= axis < rank:
            raise UserError(f"reduce axis {axis} is out of range for rank {rank}")
        if not isinstance(keepdims, bool):
            raise UserError(f"keepdims must be a compile-time bool, found {describe(keepdims)}")
        return b.emit.result(_REDUCE_OPS[name](x, axis, keepdims))

    return handler


def _elementwise(which: str) -> Handler:
    def handler(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
        x, y = b.params(node, f"{which}imum", args, kwargs, ["a", "b"])
        return b.emit.minmax(which, x, y)

    return handler


def _mma(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, y, acc = b.params(node, "mma", args, kwargs, ["x", "y", "acc"])
    return b.matmul(x, y, acc)


def _astype(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, dtype = b.params(node, "astype", args, kwargs, ["t", "dtype"])
    return b.emit.cast(b.tile_arg(x, "astype"), b.dtype_arg(dtype, "astype's dtype"))


def _extract(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    (x,) = b.params(node, "extract", args, kwargs, ["t"])
    x = b.tile_arg(x, "extract")
    if tile_type(x).rank != 0:
        raise UserError(f"tile.extract needs a rank-0 tile, found {x.type} (reshape it first)")
    return b.emit.result(t.ExtractOp(x))


def _exp2(b: TileBuilder, node: ast.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`exp2(x)`, or `exp2(x, ftz=True)` on a tile: `tile.exp2 {ftz}`, whose results below
    2^-126 are +0 (an opt-in: the GPU then skips the fix-ups that keep subnormal results)."""
    x, ftz = b.params(node, "exp2", args, kwargs, ["x", "ftz"], {"ftz": False})
    if not isinstance(ftz, bool):
        raise UserError(f"exp2's ftz takes True or False, found {describe(ftz)}")
    if not ftz:
        return b.emit.math("exp2", x)
    if not is_tile(x):
        raise UserError(f"exp2(..., ftz=True) takes a tile, found {describe(x)}")
    return b.emit.result(t.Exp2Op(x, ftz=True))


_HANDLERS: dict[Any, Handler] = {
    exp2: _exp2,
    s.load: _load,
    s.load_like: _load_like,
    s.store: _store,
    s.block_id: _grid(t.BlockIdOp, "block_id"),
    s.num_blocks: _grid(t.NumBlocksOp, "num_blocks"),
    s.grid_order: _grid_order,
    s.dim: _dim,
    s.full: _full,
    s.zeros: _zeros,
    s.iota: _iota,
    s.broadcast: _shape_op(t.BroadcastOp, "broadcast"),
    s.reshape: _shape_op(t.ReshapeOp, "reshape"),
    s.transpose: _transpose,
    s.permute: _permute,
    s.sum: _reduce("sum"),
    s.prod: _reduce("prod"),
    s.max: _reduce("max"),
    s.min: _reduce("min"),
    s.maximum: _elementwise("max"),
    s.minimum: _elementwise("min"),
    s.mma: _mma,
    s.astype: _astype,
    s.extract: _extract,
}


def param_type(annotation: Any) -> Attribute | None:
    """The IR type of a parameter annotation (evaluated with the kernel's constants, so a shape
    may name `Constexpr` parameters); None for `Constexpr`. Raises UserError."""
    from ferrox.frontend.common.types import Constexpr

    if annotation is Constexpr:
        return None
    d = as_dtype(annotation)
    if d is not None:
        return d.ir
    if isinstance(annotation, s.ShapedAnnotation):
        d = as_dtype(annotation.dtype)
        if d is None:
            raise UserError(
                f"{annotation.kind} element type must be an element type (f32, bf16, i32, ...), "
                f"found {annotation.dtype!r}"
            )
        shape = []
        for extent in s.dims(annotation.shape):
            if extent is None or extent == "?":
                shape.append(DYNAMIC_INDEX)
            elif isinstance(extent, int) and not isinstance(extent, bool):
                shape.append(extent)
            else:
                raise UserError(
                    f"a {annotation.kind} dimension is an int or None (known at launch), "
                    f"found {extent!r}"
                )
        cls = t.PartitionType if annotation.kind == "partition" else t.TileTensorType
        problem = cls.problem(d.ir, shape)
        if problem is not None:
            raise UserError(problem)
        return cls(d.ir, shape)
    raise UserError(
        f"a tile kernel parameter is a Partition[dtype, shape], a Tensor[dtype, shape], a scalar "
        f"type (f32, i32, index, ...) or Constexpr; found {annotation!r}"
    )


__all__ = ["Method", "TileBuilder", "param_type"]
