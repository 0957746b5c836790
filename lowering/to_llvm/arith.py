"""arith -> llvm: constants, integer and float arithmetic, comparisons, select and casts.

Most ops map one to one (a table below). The rest expand as MLIR's ArithToLLVM does:
floor/ceil division from sdiv/srem, integer min/max as icmp + select, `index_cast` as sext/trunc
(or nothing, index being i64), `cmpf false/true` as constants. `maximumf`/`minimumf` use
`llvm.intr.maximum`/`minimum` (NaN-propagating; PTX `max.NaN.f32` on sm_80+), integer min/max
`llvm.intr.smax` and friends. Those, and `uitofp`, `fptosi`, `fptoui`, are ops ferrox's extended
llvm dialect (`ferrox.dialects.llvm`) adds to xDSL's.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.llvm import FPToSIOp, FPToUIOp, UIToFPOp
from ferrox.dialects.llvm.intrinsics import MaximumOp, MinimumOp, SMaxOp, SMinOp, UMaxOp, UMinOp
from ferrox.lowering.build import NO_FASTMATH, float_op, int_attr, llvm_constant
from ferrox.lowering.conversion import Unsupported
from ferrox.lowering.to_llvm.divf import DivfToLLVM
from ferrox.lowering.to_llvm.support import legal_operands, morph, replace_op, result_types
from ferrox.lowering.to_llvm.types import INDEX_WIDTH

# ---------------------------------------------------------------------------------------------
# constants


def _constant_attr(value: Attribute, to: Attribute) -> Attribute:
    if isinstance(value, IntegerAttr):
        if isinstance(value.type, IndexType):
            return int_attr(value.value.data, to)
        return value
    if isinstance(value, FloatAttr):
        return value
    if isinstance(value, DenseIntOrFPElementsAttr):
        if value.get_type() == to:
            return value
        assert isinstance(to, VectorType)
        return DenseIntOrFPElementsAttr.from_list(to, value.get_values())
    raise Unsupported(f"constant value {value} has no llvm form")


class ConstantToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.ConstantOp, rewriter: PatternRewriter, /) -> None:
        (to,) = result_types(op)
        morph(rewriter, op, llvm.ConstantOp, (), (to,), {"value": _constant_attr(op.value, to)})


# ---------------------------------------------------------------------------------------------
# one-to-one binary ops


def _overflow(op: Operation) -> llvm.OverflowAttr:
    flags = op.properties.get("overflowFlags")
    if not isinstance(flags, arith.IntegerOverflowAttr):
        return llvm.OverflowAttr(None)
    return llvm.OverflowAttr([llvm.OverflowFlag(f.value) for f in flags.data])


def _fastmath(op: Operation) -> llvm.FastMathAttr:
    flags = op.properties.get("fastmath")
    if not isinstance(flags, arith.FastMathFlagsAttr) or not flags.data:
        return NO_FASTMATH
    return llvm.FastMathAttr(flags.data)


def _float_op(target: type[Operation], operands: Sequence[SSAValue], op: Operation) -> Operation:
    """`target(*operands, _fastmath(op))`, an llvm float op with `op`'s fast-math flags."""
    return float_op(target, *operands, fastmath=_fastmath(op))


INT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.RemUIOp: llvm.URemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.ShRSIOp: llvm.AShrOp,
}

FLOAT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

FLOAT_MINMAX: dict[type[Operation], type[Operation]] = {
    arith.MaximumfOp: MaximumOp,
    arith.MinimumfOp: MinimumOp,
    arith.MaxnumfOp: llvm.VectorFMaxOp,  # llvm.intr.maxnum
    arith.MinnumfOp: llvm.VectorFMinOp,  # llvm.intr.minnum
}


class BinaryToLLVM(RewritePattern):
    """Integer and float binary ops with an llvm twin; overflow and fast-math flags carry over."""

    OP_TYPES = (*INT_BINARY, *FLOAT_BINARY, *FLOAT_MINMAX)  # what it can match (`op_types`)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if type(op) in INT_BINARY:
            target = INT_BINARY[type(op)]
            (to,) = result_types(op)
            lhs, rhs = legal_operands(rewriter, op.operands)
            props: dict[str, Attribute] = {}
            if issubclass(target, llvm.ArithmeticBinOpOverflow):
                props["overflowFlags"] = int_attr(_overflow(op).to_int(), i32)
        elif type(op) in FLOAT_BINARY:
            target = FLOAT_BINARY[type(op)]
            lhs, rhs = legal_operands(rewriter, op.operands)
            to = lhs.type  # (as `float_op`'s)
            props = {"fastmathFlags": _fastmath(op)}
        elif type(op) in FLOAT_MINMAX:
            target = FLOAT_MINMAX[type(op)]
            (to,) = result_types(op)
            lhs, rhs = legal_operands(rewriter, op.operands)
            props = {"fastmathFlags": _fastmath(op)}
        else:
            return
        morph(rewriter, op, target, (lhs, rhs), (to,), props)


# ---------------------------------------------------------------------------------------------
# integer min/max and floor/ceil division


def _const_like(value: int, t: Attribute) -> llvm.ConstantOp:
    if isinstance(t, VectorType):
        return llvm.ConstantOp(DenseIntOrFPElementsAttr.from_list(t, [value]), t)
    return llvm_constant(int_attr(value, t), t)


def _icmp(pred: str, lhs: SSAValue, rhs: SSAValue) -> llvm.ICmpOp:
    predicate = int_attr(llvm.ICmpPredicateFlag(pred).to_int(), i64)
    if isinstance(lhs.type, VectorType):
        return llvm.ICmpOp(lhs, rhs, predicate)
    props: dict[str, Attribute] = {"predicate": predicate}  # (as its constructor: result i1)
    return llvm.ICmpOp.create(operands=[lhs, rhs], result_types=[i1], properties=props)


_NO_WRAP = int_attr(0, i32)


def _binary(cls: type[Operation], lhs: SSAValue, rhs: SSAValue) -> Operation:
    """`cls(lhs, rhs)` of an llvm integer binary op, as its constructor makes it: no flags (an
    op of the overflow family gets its `overflowFlags` property, none set)."""
    props: dict[str, Attribute] = {}
    if issubclass(cls, llvm.ArithmeticBinOpOverflow):
        props["overflowFlags"] = _NO_WRAP
    return cls.create(operands=[lhs, rhs], result_types=[lhs.type], properties=props)


INT_MINMAX: dict[type[Operation], type[Operation]] = {
    arith.MaxSIOp: SMaxOp,
    arith.MinSIOp: SMinOp,
    arith.MaxUIOp: UMaxOp,
    arith.MinUIOp: UMinOp,
}


class IntMinMaxToLLVM(RewritePattern):
    """`maxsi` -> `llvm.intr.smax` (PTX `max.s32`), and so on."""

    OP_TYPES = tuple(INT_MINMAX)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        target = INT_MINMAX.get(type(op))
        if target is None:
            return
        (to,) = result_types(op)
        lhs, rhs = legal_operands(rewriter, op.operands)
        morph(rewriter, op, target, (lhs, rhs), (to,), {})


class FloorCeilDivToLLVM(RewritePattern):
    """Rounding division from truncating division: `q = a / b`, `r = a % b`; floor subtracts 1
    and ceil adds 1 when `r != 0` and the exact quotient's sign calls for it (unsigned ceil:
    `r != 0`)."""

    OP_TYPES = (arith.FloorDivSIOp, arith.CeilDivSIOp, arith.CeilDivUIOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.FloorDivSIOp | arith.CeilDivSIOp | arith.CeilDivUIOp):
            return
        (t,) = result_types(op)
        a, b = legal_operands(rewriter, op.operands)
        signed = not isinstance(op, arith.CeilDivUIOp)
        div = _binary(llvm.SDivOp if signed else llvm.UDivOp, a, b)
        rem = _binary(llvm.SRemOp if signed else llvm.URemOp, a, b)
        zero, one = _const_like(0, t), _const_like(1, t)
        inexact = _icmp("ne", rem.results[0], zero.result)
        ops: list[Operation] = [div, rem, zero, one, inexact]
        if signed:
            rem_neg = _icmp("slt", rem.results[0], zero.result)
            b_neg = _icmp("slt", b, zero.result)
            # floor: adjust when signs differ; ceil: when they agree
            sign_pred = "ne" if isinstance(op, arith.FloorDivSIOp) else "eq"
            signs = _icmp(sign_pred, rem_neg.res, b_neg.res)
            adjust = _binary(llvm.AndOp, inexact.res, signs.res)
            ops += [rem_neg, b_neg, signs, adjust]
        else:
            adjust = inexact
        step = llvm.SubOp if isinstance(op, arith.FloorDivSIOp) else llvm.AddOp
        moved = _binary(step, div.results[0], one.result)
        select = llvm.SelectOp.create(
            operands=[adjust.results[0], moved.results[0], div.results[0]],
            result_types=[t],
            properties={"fastmathFlags": NO_FASTMATH},
        )
        ops += [moved, select]
        replace_op(rewriter, op, ops)


# ---------------------------------------------------------------------------------------------
# comparisons and select


class CmpiToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter, /) -> None:
        lhs, rhs = legal_operands(rewriter, op.operands)
        # arith and llvm number the ten predicates alike (eq, ne, slt, sle, sgt, sge, ult, ...)
        props = {"predicate": int_attr(op.predicate.value.data, i64)}
        t = lhs.type
        to = VectorType(i1, t.get_shape()) if isinstance(t, VectorType) else i1  # as ICmpOp's
        morph(rewriter, op, llvm.ICmpOp, (lhs, rhs), (to,), props)


CMPF_FALSE, CMPF_TRUE = 0, 15


class CmpfToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpfOp, rewriter: PatternRewriter, /) -> None:
        if isinstance(op.lhs.type, VectorType):
            raise Unsupported("xDSL's llvm.fcmp takes scalars only")
        pred = op.predicate.value.data
        if pred in (CMPF_FALSE, CMPF_TRUE):
            # constant results; the exporter has no spelling for fcmp false/true
            const = llvm.ConstantOp(IntegerAttr(int(pred == CMPF_TRUE), i1), i1)
            replace_op(rewriter, op, [const])
            return
        lhs, rhs = legal_operands(rewriter, op.operands)
        # arith and llvm number the sixteen predicates alike (false, oeq, ogt, ..., uno, true)
        cmp = llvm.FCmpOp(lhs, rhs, IntegerAttr(pred, 64))
        cmp.fastmathFlags = _fastmath(op)
        replace_op(rewriter, op, [cmp])


class SelectToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.SelectOp, rewriter: PatternRewriter, /) -> None:
        operands = legal_operands(rewriter, op.operands)
        morph(rewriter, op, llvm.SelectOp, operands, (operands[1].type,), {})


class NegfToLLVM(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.NegfOp, rewriter: PatternRewriter, /) -> None:
        new = _float_op(llvm.FNegOp, legal_operands(rewriter, op.operands), op)
        replace_op(rewriter, op, [new])


# ---------------------------------------------------------------------------------------------
# casts


def _width(t: Attribute) -> int:
    element = t.element_type if isinstance(t, VectorType) else t
    if isinstance(element, IndexType):
        return INDEX_WIDTH
    assert isinstance(element, IntegerType)
    return element.width.data


CAST: dict[type[Operation], type[Operation]] = {
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: UIToFPOp,
    arith.FPToSIOp: FPToSIOp,
    arith.FPToUIOp: FPToUIOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.BitcastOp: llvm.BitcastOp,
}


class CastToLLVM(RewritePattern):
    """One-to-one casts (`uitofp`, `fptosi` and `fptoui` from ferrox's llvm dialect)."""

    OP_TYPES = tuple(CAST)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        target = CAST.get(type(op))
        if target is None:
            return
        (to,) = result_types(op)
        (x,) = legal_operands(rewriter, op.operands)
        morph(rewriter, op, target, (x,), (to,), {})


_NO_OVERFLOW = llvm.OverflowAttr(None)


class IndexCastToLLVM(RewritePattern):
    """Index is i64: widening sign-extends, narrowing truncates, equal widths need nothing."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.IndexCastOp, rewriter: PatternRewriter, /) -> None:
        (to,) = result_types(op)
        (x,) = legal_operands(rewriter, op.operands)
        src, dst = _width(x.type), _width(to)
        if src == dst:
            replace_op(rewriter, op, [], [x])
        elif src < dst:
            morph(rewriter, op, llvm.SExtOp, (x,), (to,), {})  # (as `llvm.SExtOp(x, to)`)
        else:  # (as `llvm.TruncOp(x, to)`)
            morph(rewriter, op, llvm.TruncOp, (x,), (to,), {"overflowFlags": _NO_OVERFLOW})


ARITH_PATTERNS: tuple[RewritePattern, ...] = (
    ConstantToLLVM(),
    DivfToLLVM(),  # f32 division, before the plain `fdiv` of `BinaryToLLVM`
    BinaryToLLVM(),
    IntMinMaxToLLVM(),
    FloorCeilDivToLLVM(),
    CmpiToLLVM(),
    CmpfToLLVM(),
    SelectToLLVM(),
    NegfToLLVM(),
    CastToLLVM(),
    IndexCastToLLVM(),
)
