"""math -> llvm: NVPTX-selectable intrinsics where LLVM has them, documented f32 approximations
where it has none (see docs/lowering-math.md for which, and their error bounds).

LLVM 22's NVPTX backend selects `llvm.fabs`, `llvm.sqrt` (sqrt.rn), `llvm.floor`/`ceil`/`trunc`/
`roundeven`/`round`, `llvm.fma` and `llvm.copysign` for f16, f32, f64 and their vectors; these
lower directly. `llvm.exp`, `llvm.log`, `llvm.log2`, `llvm.pow`, `llvm.sin`, `llvm.cos` and
`llvm.tanh` become calls to libm symbols (or fail to select), which a PTX module cannot link:
those go through `math_approx` for f32, f16 and bf16 (computed in f32, then rounded), and are
reported for f64 and for vectors.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects import math as xmath
from xdsl.dialects.arith import FastMathFlag
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    VectorType,
    f32,
)
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects.llvm.intrinsics import (
    AbsOp,
    CountLeadingZerosOp,
    CountTrailingZerosOp,
    CtPopOp,
    FTruncOp,
    RoundEvenOp,
    RoundOp,
)
from ferrox.lowering.conversion import Unsupported, morph
from ferrox.lowering.to_llvm import math_approx
from ferrox.lowering.to_llvm.support import legal_operands, replace_op

UNARY_OPS: dict[type[Operation], type[Operation]] = {
    xmath.AbsFOp: llvm.FAbsOp,
    xmath.SqrtOp: llvm.FSqrtOp,
    xmath.FloorOp: llvm.FFloorOp,
    xmath.CeilOp: llvm.FCeilOp,
    xmath.TruncOp: FTruncOp,
    xmath.RoundOp: RoundOp,
    xmath.RoundEvenOp: RoundEvenOp,
    xmath.CtPopOp: CtPopOp,
}
"""math ops with a one-operand llvm.intr twin (xDSL's or ferrox's); types as they are."""

_SAME_OPERANDS: dict[type[Operation], type[Operation]] = {
    xmath.FmaOp: llvm.FMAOp,
    xmath.CopySignOp: llvm.FCopySignOp,
}
"""math ops whose llvm twin takes the same operands (its fast-math flags none, as its
constructor gives them)."""

COUNT_ZEROS: dict[type[Operation], type[Operation]] = {
    xmath.CountLeadingZerosOp: CountLeadingZerosOp,
    xmath.CountTrailingZerosOp: CountTrailingZerosOp,
}

NARROW_FLOATS = (Float16Type, BFloat16Type)


class DirectToLLVM(RewritePattern):
    """Ops NVPTX selects for every type they take: one llvm op each."""

    OP_TYPES = (*UNARY_OPS, *COUNT_ZEROS, xmath.AbsIOp, xmath.FmaOp, xmath.CopySignOp)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        twin = UNARY_OPS.get(type(op)) or _SAME_OPERANDS.get(type(op))
        if twin is not None:  # made in place (`morph`): a matmul has thousands of fma
            operands = legal_operands(rewriter, op.operands)
            morph(rewriter, op, twin, operands, [operands[0].type], {})
            return
        if type(op) in COUNT_ZEROS:
            # math.ctlz/cttz of 0 is the bit width, as with is_zero_poison = false
            (x,) = legal_operands(rewriter, op.operands)
            new = COUNT_ZEROS[type(op)](x, is_zero_poison=False)
        elif isinstance(op, xmath.AbsIOp):
            (x,) = legal_operands(rewriter, op.operands)
            new = AbsOp(x, is_int_min_poison=False)
        else:
            return
        replace_op(rewriter, op, [new])


def _float_kind(t: Attribute) -> str:
    if isinstance(t, VectorType):
        return "vector"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, NARROW_FLOATS):
        return "narrow"
    if isinstance(t, Float64Type):
        return "f64"
    return "other"


class RsqrtF64ToLLVM(RewritePattern):
    """f64 rsqrt as 1 / sqrt(x): two correctly rounded steps, within 1.5 ulp; the f32 form uses
    rsqrt.approx (see math_approx)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: xmath.RsqrtOp, rewriter: PatternRewriter, /) -> None:
        if _float_kind(op.operand.type) != "f64":
            return
        (x,) = legal_operands(rewriter, op.operands)
        one = llvm.ConstantOp(FloatAttr(1.0, x.type), x.type)
        root = llvm.FSqrtOp.create(operands=[x], result_types=[x.type])
        replace_op(rewriter, op, [one, root, llvm.FDivOp(one.result, root.results[0])])


class ApproximationToLLVM(RewritePattern):
    """The libm-only functions: f32 through `math_approx`; f16/bf16 widened to f32 and rounded
    back (the f32 error is far below half an f16 ulp); f64 and vectors reported."""

    def can_match(self, cls: type[Operation]) -> bool:
        """Whether ops of class `cls` may be matched (`conversion.Dispatch`): by name."""
        return cls.name in math_approx.APPROXIMATIONS

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        build = math_approx.APPROXIMATIONS.get(op.name)
        if build is None:
            return
        if isinstance(op, xmath.Exp2Op) and FastMathFlag.APPROX_FUNC in op.fastmath.data:
            build = math_approx.exp2_ftz  # `tile.exp2 {ftz}`'s opt-in
        t = op.results[0].type
        kind = _float_kind(t)
        if kind == "vector":
            raise Unsupported(
                f"{op.name} on vectors has no NVPTX expansion here; apply it to each element"
            )
        if kind not in ("f32", "narrow"):
            raise Unsupported(
                f"{op.name} on {t} needs libdevice, which ferrox does not link; "
                "NVPTX approximates it only for f32 (and f16/bf16 through f32)"
            )
        args = legal_operands(rewriter, op.operands)
        e = math_approx.F32Emitter.before(rewriter, op)
        if kind == "narrow":
            wide = [e(llvm.FPExtOp(a, f32)) for a in args]
            result = e(llvm.FPTruncOp(build(e, *wide), t))
        else:
            result = build(e, *args)
        replace_op(rewriter, op, [], [result])


class UnsupportedMath(RewritePattern):
    """Every other math op: reported with its name rather than left for a vague legality error."""

    def can_match(self, cls: type[Operation]) -> bool:
        """Whether ops of class `cls` may be matched (`conversion.Dispatch`): by name."""
        return cls.name.startswith("math.")

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name.startswith("math."):
            raise Unsupported(
                f"{op.name} has no NVPTX lowering in ferrox (see docs/lowering-math.md)"
            )


MATH_PATTERNS: tuple[RewritePattern, ...] = (
    DirectToLLVM(),
    RsqrtF64ToLLVM(),
    ApproximationToLLVM(),
    UnsupportedMath(),
)
"""In order: `UnsupportedMath` must come last, after every pattern that lowers a math op."""
