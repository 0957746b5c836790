"""Elementwise tile ops, register by register: arithmetic, math, compare, select, `astype`.

Operands are brought to the result's layout (the operand spread over most threads, `rules.py`);
a result whose operands are all "any layout" stays lazy. Each op is the arith or math op with the
semantics of docs/dialects/tile.md:

- `fma`: `math.fma` (rounded once);
- `exp2 {ftz}`: `math.exp2 fastmath<afn>` (results below 2^-126 are +0);
- `maximum`/`minimum`: `arith.maximumf`/`minimumf` (NaN-propagating), `maxsi`/`minsi`;
- `neg` of an integer: `0 - x`; `div`: `arith.divf`;
- `cmp`: ordered float predicates, except `ne` (`une`, true on NaN); signed integer predicates,
  unsigned for `i1`;
- `astype`: float to float `extf`/`truncf` (round to nearest even; `f16`<->`bf16` through
  `f32`, exact then rounded once); integer to float `sitofp` (`i1` as 0 or 1); float to integer
  truncation toward zero with saturation and NaN -> 0 (PTX `cvt.rzi.sat`), spelled out as
  compares and selects around `fptosi` (which alone is poison out of range); integer to integer
  `trunci`/`extsi` (`extui` from `i1`); anything to `i1` is `!= 0` (`une` for floats).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.arith import FastMathFlag, FastMathFlagsAttr
from xdsl.dialects.builtin import AnyFloat, IntegerType, f32
from xdsl.ir import Attribute, Operation, SSAValue

from ferrox.dialects import tile
from ferrox.dialects.tile.attributes import CmpPredicate
from ferrox.dialects.tile.types import TileType
from ferrox.lowering.tile_to_simt.context import Dist, Lazy, Lowering
from ferrox.lowering.tile_to_simt.fold import PREDICATES
from ferrox.lowering.tile_to_simt.layout import Layout
from ferrox.lowering.tile_to_simt.rules import first_spread, rule

Scalar = Callable[[Lowering, Sequence[SSAValue], Attribute], SSAValue]


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _arith(float_op, int_op) -> Scalar:
    def build(ctx: Lowering, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
        op = float_op if is_float(args[0].type) else int_op
        return ctx.make(op, *args)

    return build


def _neg(ctx: Lowering, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
    (x,) = args
    if is_float(x.type):
        return ctx.make(arith.NegfOp, x)
    return ctx.make(arith.SubiOp, ctx.constant(0, x.type), x)


def _math(op_type) -> Scalar:
    def build(ctx: Lowering, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
        return ctx.make(op_type, *args)

    return build


_FLOAT_CMP = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_INT_CMP = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
_BOOL_CMP = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


def _cmp(predicate: CmpPredicate) -> Scalar:
    def build(ctx: Lowering, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
        a, b = args
        p = predicate.value
        if is_float(a.type):
            name = _FLOAT_CMP[p]
            return ctx.make(arith.CmpfOp, a, b, extra=name, build=lambda: arith.CmpfOp(a, b, name))
        table = _BOOL_CMP if is_bool(a.type) else _INT_CMP
        return ctx.pure(arith.CmpiOp, a, b, PREDICATES[table[p]])

    return build


def _select(ctx: Lowering, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
    return ctx.make(arith.SelectOp, *args)


def _width(t: Attribute) -> int:
    return t.bitwidth if isinstance(t, AnyFloat) else t.width.data  # type: ignore[attr-defined]


def astype(ctx: Lowering, x: SSAValue, to: Attribute) -> SSAValue:
    """One element converted as `tile.astype` says (module docstring)."""
    src = x.type
    if src == to:
        return x
    if is_bool(to):
        if is_float(src):
            return ctx(arith.CmpfOp(x, ctx.constant(0.0, src), "une"))
        return ctx(arith.CmpiOp(x, ctx.constant(0, src), "ne"))
    if is_float(src) and is_float(to):
        if _width(src) == 16 and _width(to) == 16:
            x, src = ctx(arith.ExtFOp(x, f32)), f32
        if _width(to) > _width(src):
            return ctx(arith.ExtFOp(x, to))
        return ctx(arith.TruncFOp(x, to))
    if is_float(to):
        if is_bool(src):
            return ctx(arith.SelectOp(x, ctx.constant(1.0, to), ctx.constant(0.0, to)))
        return ctx(arith.SIToFPOp(x, to))
    if is_float(src):
        return _float_to_int(ctx, x, to)
    if is_bool(src):
        return ctx(arith.ExtUIOp(x, to))
    if _width(to) > _width(src):
        return ctx(arith.ExtSIOp(x, to))
    return ctx(arith.TruncIOp(x, to))


def _float_to_int(ctx: Lowering, x: SSAValue, to: Attribute) -> SSAValue:
    bits = _width(to)
    if _width(x.type) < 32:
        x = ctx(arith.ExtFOp(x, f32))
    t = x.type
    limit = float(2 ** (bits - 1))
    low, high = ctx.constant(-limit, t), ctx.constant(limit, t)
    inside = ctx(arith.AndIOp(ctx(arith.CmpfOp(x, low, "oge")), ctx(arith.CmpfOp(x, high, "olt"))))
    # fptosi only sees values in range (it is poison elsewhere); the selects give the rest.
    converted = ctx(arith.FPToSIOp(ctx(arith.SelectOp(inside, x, ctx.constant(0.0, t))), to))
    result = ctx(
        arith.SelectOp(
            ctx(arith.CmpfOp(x, high, "oge")), ctx.constant(2 ** (bits - 1) - 1, to), converted
        )
    )
    result = ctx(
        arith.SelectOp(
            ctx(arith.CmpfOp(x, low, "olt")), ctx.constant(-(2 ** (bits - 1)), to), result
        )
    )
    return ctx(arith.SelectOp(ctx(arith.CmpfOp(x, x, "uno")), ctx.constant(0, to), result))


def _astype(ctx: Lowering, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
    return astype(ctx, args[0], result)


SCALARS: dict[type[Operation], Scalar] = {
    tile.AddOp: _arith(arith.AddfOp, arith.AddiOp),
    tile.SubOp: _arith(arith.SubfOp, arith.SubiOp),
    tile.MulOp: _arith(arith.MulfOp, arith.MuliOp),
    tile.DivOp: _arith(arith.DivfOp, arith.DivfOp),
    tile.MaximumOp: _arith(arith.MaximumfOp, arith.MaxSIOp),
    tile.MinimumOp: _arith(arith.MinimumfOp, arith.MinSIOp),
    tile.NegOp: _neg,
    tile.ExpOp: _math(xmath.ExpOp),
    tile.Exp2Op: _math(xmath.Exp2Op),
    tile.FmaOp: _math(xmath.FmaOp),
    tile.LogOp: _math(xmath.LogOp),
    tile.SqrtOp: _math(xmath.SqrtOp),
    tile.RsqrtOp: _math(xmath.RsqrtOp),
    tile.TanhOp: _math(xmath.TanhOp),
    tile.SelectOp: _select,
    tile.AsTypeOp: _astype,
}


def _exp2_ftz(ctx: Lowering, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
    """`tile.exp2 {ftz}`: `math.exp2` with the `afn` flag, which ferrox reads as "results below
    f32's smallest normal are +0" (the interpreter; `ex2.approx.ftz.f32` on the GPU)."""
    (x,) = args
    flags = FastMathFlagsAttr([FastMathFlag.APPROX_FUNC])
    return ctx.make(xmath.Exp2Op, x, extra=flags, build=lambda: xmath.Exp2Op(x, flags))


def _scalar_of(op: Operation) -> Scalar:
    if isinstance(op, tile.CmpOp):
        return _cmp(op.predicate.data)
    if isinstance(op, tile.Exp2Op) and op.ftz is not None:
        return _exp2_ftz
    return SCALARS[type(op)]


def apply(ctx: Lowering, op: Operation, layout: Layout) -> list[SSAValue]:
    """`op` on each register of `layout`, its operands brought there first."""
    scalar = _scalar_of(op)
    result = op.results[0].type
    assert isinstance(result, TileType)
    operands = [ctx.tile(v, layout) for v in op.operands]
    return [
        scalar(ctx, [regs[r] for regs in operands], result.element_type)
        for r in range(layout.num_regs)
    ]


def _infer(op: Operation, operands, config) -> list[Layout | None]:
    return [first_spread(operands)]


@rule(*SCALARS, tile.CmpOp, infer=_infer)
def lower_elementwise(ctx: Lowering, op: Operation) -> None:
    result = op.results[0]
    layout = ctx.layouts.get(result)
    if layout is None:
        ctx.bind(result, Lazy(lambda want, op=op: apply(ctx, op, want)))
    else:
        ctx.bind(result, Dist(layout, apply(ctx, op, layout)))


__all__ = ["apply", "astype"]
