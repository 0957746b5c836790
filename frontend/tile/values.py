"""Python operators on tiles: each one tile op, shapes and types as the tile dialect has them.

A tile (an IR value of `!tile.tile<E, S>`) combined with a scalar (a Python number, or an IR
scalar of the tile's element type) makes the scalar a tile first: a Python number becomes
`tile.constant dense<c>`, an IR scalar `tile.full`, both visible in the IR. Two tiles must
have one type: there is no implicit broadcasting (`tile.broadcast` says it), and a mismatch is
the tile verifier's own diagnostic, at the Python line. Scalars alone keep the shared core's
arithmetic (`arith` on `index`, `f32`, ...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType
from xdsl.ir import Attribute, SSAValue

from ferrox.dialects import tile as t
from ferrox.dialects.tile.attributes import CmpPredicate
from ferrox.frontend.common.errors import UserError
from ferrox.frontend.common.types import DType, dtype_of
from ferrox.frontend.common.values import Emitter, describe, is_ir

_BINARY = {"+": t.AddOp, "-": t.SubOp, "*": t.MulOp, "/": t.DivOp}
_COMPARE = {
    "<": CmpPredicate.LT,
    "<=": CmpPredicate.LE,
    ">": CmpPredicate.GT,
    ">=": CmpPredicate.GE,
    "==": CmpPredicate.EQ,
    "!=": CmpPredicate.NE,
}
_MATH = {
    "exp": t.ExpOp,
    "exp2": t.Exp2Op,
    "log": t.LogOp,
    "sqrt": t.SqrtOp,
    "rsqrt": t.RsqrtOp,
    "tanh": t.TanhOp,
}
"""Math functions with a tile op; the others (sin, erf, ...) have none yet."""


def is_tile(value: Any) -> bool:
    return isinstance(value, SSAValue) and isinstance(value.type, t.TileType)


def tile_type(value: SSAValue) -> t.TileType:
    assert isinstance(value.type, t.TileType)
    return value.type


def shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


class TileEmitter(Emitter):
    """The shared core's emitter, with tiles: operators, math, select and conversions."""

    # -- making tiles ----------------------------------------------------------------------

    def tile_type(self, element: Attribute, shape: Sequence[int]) -> t.TileType:
        """A tile type; a shape the dialect refuses is its own diagnostic."""
        problem = t.TileType.problem(element, list(shape))
        if problem is not None:
            raise UserError(problem)
        return t.TileType(element, shape)

    def constant(self, value: Any, element: Attribute, shape: Sequence[int]) -> SSAValue:
        """`tile.constant dense<value>` (a splat) of `element` and `shape`."""
        dtype = dtype_of(element)
        assert dtype is not None
        if isinstance(value, bool) and dtype.kind != "bool":
            raise UserError(f"a bool constant cannot be used as {dtype}")
        if not isinstance(value, (int, float)):
            raise UserError(f"{describe(value)} cannot fill a tile")
        if isinstance(value, float) and not dtype.is_float:
            raise UserError(f"a float constant ({value!r}) cannot be used with an {dtype} tile")
        if dtype.kind == "int":
            lo, hi = -(1 << (dtype.bits - 1)), (1 << (dtype.bits - 1)) - 1
            if not lo <= value <= hi:
                raise UserError(f"the constant {value} does not fit in {dtype}")
        result = self.tile_type(element, shape)
        literal = float(value) if dtype.is_float else int(value)
        dense = DenseIntOrFPElementsAttr.from_list(
            TensorType(cast(Any, element), list(shape)), [literal]
        )
        op = t.ConstantOp(dense)
        assert op.result.type == result
        return self.result(op)

    def full(self, value: Any, element: Attribute, shape: Sequence[int]) -> SSAValue:
        """A tile of one value: a constant for a Python number, `tile.full` for an IR scalar."""
        if not is_ir(value):
            return self.constant(value, element, shape)
        if is_tile(value):
            raise UserError(f"full takes a scalar value, found the tile {value.type}")
        if value.type != element:
            raise UserError(
                f"a {value.type} scalar cannot fill a tile of {element} "
                f"(convert it: {dtype_of(element)}(x))"
            )
        return self.result(t.FullOp(value, self.tile_type(element, shape)))

    def splat_like(self, value: Any, like: SSAValue) -> SSAValue:
        """`value` as a tile of `like`'s type (a tile stays as it is)."""
        if is_tile(value):
            return value
        lt = tile_type(like)
        return self.full(value, lt.element_type, lt.get_shape())

    def pair(self, a: Any, b: Any) -> tuple[SSAValue, SSAValue]:
        """Both operands as tiles: a scalar side takes the tile side's type."""
        if is_tile(a):
            return a, self.splat_like(b, a)
        return self.splat_like(a, b), b

    # -- operators -------------------------------------------------------------------------

    def binop(self, op: str, a: Any, b: Any) -> Any:
        if not (is_tile(a) or is_tile(b)):
            return super().binop(op, a, b)
        if op not in _BINARY:
            raise UserError(
                f"'{op}' is not defined on tiles (tiles take +, -, *, /, comparisons, @, "
                "maximum, minimum and the math functions)"
            )
        x, y = self.pair(a, b)
        return self.result(_BINARY[op](x, y))

    def compare(self, op: str, a: Any, b: Any) -> Any:
        if not (is_tile(a) or is_tile(b)):
            return super().compare(op, a, b)
        x, y = self.pair(a, b)
        return self.result(t.CmpOp(_COMPARE[op], x, y))

    def unary(self, op: str, v: Any) -> Any:
        if not is_tile(v):
            return super().unary(op, v)
        if op == "+":
            return v
        if op == "-":
            return self.result(t.NegOp(v))
        raise UserError(f"'{op}' is not defined on tiles")

    def condition(self, v: Any, what: str) -> Any:
        if is_tile(v):
            raise UserError(
                f"{what} must be one bool, found the tile {v.type} (a tile condition chooses "
                "per element: where(cond, a, b))"
            )
        return super().condition(v, what)

    def select(self, cond: Any, a: Any, b: Any) -> Any:
        if not (is_tile(cond) or is_tile(a) or is_tile(b)):
            return super().select(cond, a, b)
        if not is_tile(cond):
            raise UserError(
                f"where over tiles takes a tile of i1 as its condition, found {describe(cond)}"
            )
        ct = tile_type(cond)
        if not (is_tile(a) or is_tile(b)):
            if not is_ir(a) and not is_ir(b):
                raise UserError(
                    "where over tiles needs a value of known type (a tile or a typed scalar)"
                )
            element = a.type if is_ir(a) else b.type
            a = self.full(a, element, ct.get_shape())
        x, y = self.pair(a, b)
        return self.result(t.SelectOp(cond, x, y))

    def minmax(self, which: str, a: Any, b: Any) -> Any:
        if not (is_tile(a) or is_tile(b)):
            return super().minmax(which, a, b)
        x, y = self.pair(a, b)
        return self.result((t.MinimumOp if which == "min" else t.MaximumOp)(x, y))

    def abs(self, v: Any) -> Any:
        if is_tile(v):
            raise UserError("abs has no tile form yet: maximum(x, -x)")
        return super().abs(v)

    def math(self, name: str, *args: Any) -> Any:
        if not any(is_tile(a) for a in args):
            return super().math(name, *args)
        if name == "fma" and len(args) == 3:  # a * b + c rounded once; scalars splat
            like = next(a for a in args if is_tile(a))
            a, b, c = (self.splat_like(x, like) for x in args)
            return self.result(t.FmaOp(a, b, c))
        if name not in _MATH or len(args) != 1:
            known = ", ".join(sorted([*_MATH, "fma"]))
            raise UserError(f"{name} has no tile form (tiles take {known})")
        return self.result(_MATH[name](args[0]))

    def cast(self, v: Any, to: DType) -> Any:
        if not is_tile(v):
            return super().cast(v, to)
        if tile_type(v).element_type == to.ir:
            return v
        self.tile_type(to.ir, tile_type(v).get_shape())
        return self.result(t.AsTypeOp(v, to.ir))


__all__ = ["TileEmitter", "is_tile", "shape_text", "tile_type"]
