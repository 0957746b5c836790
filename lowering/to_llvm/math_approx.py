"""The f32 math functions that LLVM's NVPTX backend cannot select without libdevice, written
over PTX's approximate instructions (`ex2.approx`, `lg2.approx`, `sin.approx`, `cos.approx`,
`rsqrt.approx`, `tanh.approx`). docs/lowering-math.md derives each error bound and
tests/lowering/to_llvm/test_math_accuracy.py checks them by evaluating the ops emitted here.

All variants are the non-`.ftz` ones: ferrox's other f32 arithmetic keeps subnormals (LLVM's
default for NVPTX), and so do these; the one exception is `math.exp2` with the `afn` fast-math
flag (what `tile.exp2 {ftz}` lowers to), which is `ex2.approx.ftz.f32`: results below 2^-126 are
+0 (`exp2_ftz`).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, f32, i1, i64
from xdsl.ir import SSAValue

from ferrox.dialects.llvm.intrinsics import RoundEvenOp
from ferrox.lowering.build import call_intrinsic, f32_attr, float_op, llvm_constant
from ferrox.lowering.conversion import Emitter
from ferrox.lowering.simt_to_nvvm.constants import pooled_llvm

# The NVVM intrinsics, by the names LLVM 22 keeps (older spellings are auto-upgraded to these;
# `llvm.nvvm.tanh.approx.f32` is upgraded to `afn llvm.tanh.f32`, which selects tanh.approx.f32).
EX2 = "llvm.nvvm.ex2.approx.f32"
EX2_FTZ = "llvm.nvvm.ex2.approx.ftz.f32"
LG2 = "llvm.nvvm.lg2.approx.f"
SIN = "llvm.nvvm.sin.approx.f"
COS = "llvm.nvvm.cos.approx.f"
RSQRT = "llvm.nvvm.rsqrt.approx.f"
TANH = "llvm.nvvm.tanh.approx.f32"


def to_f32(x: float) -> float:
    """`x` rounded to the nearest f32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


LOG2E = to_f32(1 / math.log(2))
LOG2E_LO = to_f32(1 / math.log(2) - LOG2E)  # log2(e) = LOG2E + LOG2E_LO to ~48 bits
LN2 = to_f32(math.log(2))
LOG10_2 = to_f32(math.log10(2))
INV_2PI = to_f32(1 / (2 * math.pi))
TWO_PI = to_f32(2 * math.pi)
TWO_PI_LO = to_f32(2 * math.pi - TWO_PI)

# erf: Abramowitz & Stegun 7.1.26 for |x| >= 0.5 (|error| <= 1.5e-7 by their table), Maclaurin
# series 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)) up to n = 6 below.
ERF_SPLIT = 0.5
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
ERF_TAYLOR = tuple(
    2 / math.sqrt(math.pi) * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(7)
)


@dataclass
class F32Emitter(Emitter):
    """The toolkit's emitter with the f32 llvm ops the approximations are written in; each
    constant is made once per value (once a function, where the walk pools them:
    `lowering/simt_to_nvvm/constants.py`)."""

    _constants: dict[float, SSAValue] = field(default_factory=dict[float, SSAValue], init=False)

    def const(self, value: float) -> SSAValue:
        """An f32 constant, made once per value (NaN, which equals nothing, each time)."""
        if value != value:
            return self(llvm_constant(f32_attr(value), f32))
        result = self._constants.get(value)
        if result is None:
            result = self._constants[value] = pooled_llvm(self, f32_attr(value), f32)
        return result

    def intr(self, name: str, *args: SSAValue) -> SSAValue:
        return self(call_intrinsic(name, args, [f32]))

    def fadd(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(float_op(llvm.FAddOp, a, b))

    def fsub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(float_op(llvm.FSubOp, a, b))

    def fmul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(float_op(llvm.FMulOp, a, b))

    def fdiv(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(float_op(llvm.FDivOp, a, b))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        return self(float_op(llvm.FMAOp, a, b, c))

    def fneg(self, a: SSAValue) -> SSAValue:
        return self(float_op(llvm.FNegOp, a))

    def fabs(self, a: SSAValue) -> SSAValue:
        return self(llvm.FAbsOp(a, f32))

    def roundeven(self, a: SSAValue) -> SSAValue:
        return self(RoundEvenOp(a))

    def maxnum(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(float_op(llvm.VectorFMaxOp, a, b))

    def copysign(self, magnitude: SSAValue, sign: SSAValue) -> SSAValue:
        return self(llvm.FCopySignOp(magnitude, sign))

    def fcmp(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(llvm.FCmpOp(a, b, IntegerAttr(llvm.FCmpPredicateFlag(pred).to_int(), i64)))

    def and_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(llvm.AndOp(a, b))

    def or_(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(llvm.OrOp(a, b))

    def not_(self, a: SSAValue) -> SSAValue:
        true = self(llvm.ConstantOp(IntegerAttr(1, i1), i1))
        return self(llvm.XOrOp(a, true))

    def select(self, cond: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self(llvm.SelectOp(cond, a, b))


def exp2(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.intr(EX2, x)


def exp2_ftz(e: F32Emitter, x: SSAValue) -> SSAValue:
    """`ex2.approx.ftz.f32`: as `exp2` for results of 2^-126 and more, +0 below (a subnormal
    argument counts as 0, for which both give 1). Without `.ftz` ptxas keeps subnormal results
    with a compare and two predicated multiplies around each `MUFU.EX2`."""
    return e.intr(EX2_FTZ, x)


def exp(e: F32Emitter, x: SSAValue) -> SSAValue:
    """e^x = 2^hi * 2^lo, where hi + lo = x*log2(e) to ~48 bits (fma gives the product's rounding
    error exactly) and 2^lo = 1 + lo*ln2 to 2^-36, since |lo| <= 2^-17. An infinite x makes lo NaN;
    `maxnum(., 0.5)` then picks 0.5, which leaves 2^hi = inf or 0 as it is."""
    hi = e.fmul(x, e.const(LOG2E))
    lo = e.fma(x, e.const(LOG2E), e.fneg(hi))
    lo = e.fma(x, e.const(LOG2E_LO), lo)
    scale = e.maxnum(e.fma(lo, e.const(LN2), e.const(1.0)), e.const(0.5))
    return e.fmul(e.intr(EX2, hi), scale)


def log2(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.intr(LG2, x)


def log(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.fmul(e.intr(LG2, x), e.const(LN2))


def log10(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.fmul(e.intr(LG2, x), e.const(LOG10_2))


def rsqrt(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.intr(RSQRT, x)


def _reduce_2pi(e: F32Emitter, x: SSAValue) -> SSAValue:
    """x - k*2pi with k = roundeven(x / 2pi), in two fma steps (Cody-Waite), so |r| <= pi where
    sin.approx/cos.approx have their documented bound."""
    k = e.roundeven(e.fmul(x, e.const(INV_2PI)))
    r = e.fma(k, e.const(-TWO_PI), x)
    return e.fma(k, e.const(-TWO_PI_LO), r)


def sin(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.intr(SIN, _reduce_2pi(e, x))


def cos(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.intr(COS, _reduce_2pi(e, x))


def tanh(e: F32Emitter, x: SSAValue) -> SSAValue:
    return e.intr(TANH, x)


def powf(e: F32Emitter, x: SSAValue, y: SSAValue) -> SSAValue:
    """2^(y*log2|x|), then C's special cases: x < 0 gives the sign of (-1)^y for integral y and
    NaN otherwise; y == 0 or x == 1 gives 1 (also for NaN operands)."""
    r = e.intr(EX2, e.fmul(y, e.intr(LG2, e.fabs(x))))
    zero, one, half = e.const(0.0), e.const(1.0), e.const(0.5)
    y_integral = e.fcmp("oeq", e.roundeven(y), y)
    y_half = e.fmul(y, half)
    y_odd = e.and_(y_integral, e.fcmp("une", e.roundeven(y_half), y_half))
    x_negative = e.fcmp("olt", x, zero)
    r = e.select(e.and_(x_negative, y_odd), e.fneg(r), r)
    r = e.select(e.and_(x_negative, e.not_(y_integral)), e.const(math.nan), r)
    unit = e.or_(e.fcmp("oeq", y, zero), e.fcmp("oeq", x, one))
    return e.select(unit, one, r)


def erf(e: F32Emitter, x: SSAValue) -> SSAValue:
    ax = e.fabs(x)
    # |x| < 0.5: odd Maclaurin polynomial in x^2
    x2 = e.fmul(x, x)
    p = e.const(ERF_TAYLOR[-1])
    for c in reversed(ERF_TAYLOR[:-1]):
        p = e.fma(p, x2, e.const(c))
    small = e.fmul(x, p)
    # |x| >= 0.5: 1 - t*(a1 + t*(a2 + ...)) * e^(-x^2), t = 1 / (1 + p|x|)
    t = e.fdiv(e.const(1.0), e.fma(e.const(ERF_P), ax, e.const(1.0)))
    q = e.const(ERF_A[-1])
    for c in reversed(ERF_A[:-1]):
        q = e.fma(q, t, e.const(c))
    q = e.fmul(q, t)
    large = e.fsub(e.const(1.0), e.fmul(q, exp(e, e.fneg(x2))))
    large = e.copysign(large, x)
    return e.select(e.fcmp("olt", ax, e.const(ERF_SPLIT)), small, large)


APPROXIMATIONS: dict[str, Callable[..., SSAValue]] = {
    "math.exp": exp,
    "math.exp2": exp2,
    "math.log": log,
    "math.log2": log2,
    "math.log10": log10,
    "math.rsqrt": rsqrt,
    "math.sin": sin,
    "math.cos": cos,
    "math.tanh": tanh,
    "math.powf": powf,
    "math.erf": erf,
}
"""f32 expansions by source op name; each takes the emitter and the op's operands."""
