"""f32 division (`arith.divf`), correctly rounded, without PTX's `div.rn.f32`.

`div.rn.f32` is one instruction in PTX but a subroutine in ptxas: the first one in a kernel
cost ptxas about 38 M instructions on the CPU machine (a ninth of layernorm's whole ptxas
time), each further one about 5.5 M. The same correctly rounded quotient comes from f64
arithmetic that ptxas takes as plain instructions (about 1 M each):

    A, B = fpext a, fpext b                     (exact)
    r = rcp.approx.ftz.f64(B)                   (any start with 7 correct bits will do)
    3 times: e = fma(-B, r, 1); r = fma(r, e, r)  (Newton: relative error d -> d^2 + 2^-53)
    q = A * r;  q = fma(r, fma(-B, q, A), q)    (one correction: |q - A/B| <= 2^-53 |A/B|,
                                                 and q = A/B whenever A/B is a double)
    fptrunc q to f32                            (cvt.rn.f32.f64)

Why the last rounding gives RN32(a/b) (docs/lowering-math.md, "f32 division", has the
proof): for f32 operands every f32 rounding boundary that a/b is not equal to lies at least
2^-48 |a/b| away from it, and q is within 2^-53 |a/b| of a/b, so q rounds to f32 as a/b
does; where a/b is a boundary (only below 2^-126, a subnormal tie), a/b is a double and q is
exact. Operands of f32 keep A/B, B, 1/B and every intermediate normal in f64 (2^-277 to
2^277), so `.ftz` flushes nothing and nothing overflows.

The cases where an operand is zero, infinite or NaN take `A * rcp(B)` instead, which PTX's
`rcp.approx.ftz.f64` (±0 -> ±inf, ±inf -> ±0, NaN -> NaN) makes the IEEE quotient: 0/x = ±0,
x/0 = ±inf, 0/0 = inf/inf = NaN, x/inf = ±0, inf/x = ±inf (where the Newton steps give NaN,
or a zero of the wrong sign). They are told apart by the Newton quotient itself, with one
comparison: it is NaN when b is zero or infinite (`fma(-B, rcp(B), 1)` is `0 * inf`), when a
is infinite (the residual is `inf - inf`) or when either is NaN, and zero when a is zero; for
finite nonzero operands it is neither (|a/b| is at least 2^-277). The two are selected, not
branched.

Divisions by one value in one block share its reciprocal, made at the first of them
(`shared_reciprocals`, open during `convert-to-llvm`'s walk): softmax divides each element of a
row by the row's sum. Divisions with fast-math flags, and those of other types, stay
`llvm.fdiv`; so do all of a module whose `"ferrox.chip"` names a chip whose f64 runs at a small
fraction of its f32 rate (sm_86, sm_89, sm_120, ...: 1/64), where the f64 steps would cost more
than `div.rn.f32` at run time. The data-centre chips (`FULL_RATE_F64`, f64 at half the f32
rate) and a module that names no chip (compiled for sm_90 by default) take the f64 path.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, ModuleOp, StringAttr, f32, f64, i1, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.lowering.build import NO_FASTMATH, call_intrinsic, convert, float_op
from ferrox.lowering.conversion import Emitter
from ferrox.lowering.simt_to_nvvm.constants import pooled_llvm
from ferrox.lowering.to_llvm.support import legal_operands, replace_op

RCP_F64 = "llvm.nvvm.rcp.approx.ftz.d"
NEWTON_STEPS = 3
"""Each step squares the reciprocal's relative error (plus 2^-53): from 2^-7, three reach it."""


FULL_RATE_F64 = frozenset(
    {"sm_60", "sm_70", "sm_80", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f"}
)
CHIP_ATTR = "ferrox.chip"


def _full_rate_f64(op: Operation) -> bool:
    """Whether the module around `op` is for a chip with half-rate f64, or names no chip."""
    module = op
    while (parent := module.parent_op()) is not None:
        module = parent
    chip = module.attributes.get(CHIP_ATTR) if isinstance(module, ModuleOp) else None
    return not isinstance(chip, StringAttr) or chip.data in FULL_RATE_F64


_ONE = FloatAttr(1.0, f64)
_ZERO = FloatAttr(0.0, f64)
_ONE_FLAG = IntegerAttr(llvm.FCmpPredicateFlag("one").to_int(), i64)
# (Ops through `Operation.create`, with the properties their constructors give, and attributes
# made once: a division is about twenty ops, and an xDSL constructor costs three `create`s.)


_RECIPROCALS: ContextVar[dict[SSAValue, tuple[SSAValue, SSAValue, SSAValue]] | None] = ContextVar(
    "ferrox_divisor_reciprocals", default=None
)
"""Per divisor: (-B, rcp(B), the Newton reciprocal) last made (`shared_reciprocals()`)."""


@contextmanager
def shared_reciprocals() -> Iterator[None]:
    """Divisions by one value share its reciprocal until the block ends (`convert_to_llvm`
    opens it for its walk; the table refers to the module, so it must not outlive the walk)."""
    token = _RECIPROCALS.set({})
    try:
        yield
    finally:
        _RECIPROCALS.reset(token)


def _reciprocal(e: Emitter, b: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """(-B, rcp.approx(B), B's reciprocal after the Newton steps) for f32 `b`: those of an
    earlier division by `b` in the same block where a table is open, else made here. (Made
    here rather than after `b`'s definition: there they would be live across everything
    between, and ptxas gave softmax 40 registers instead of 34.)"""
    table = _RECIPROCALS.get()
    here = e.point.block
    if table is not None and (known := table.get(b)) is not None:
        first = known[2].owner
        if isinstance(first, Operation) and first.parent is here:
            anchor = e.point.insert_before
            if anchor is None or first.is_before_in_block(anchor):
                return known
    wide_b = e(convert(llvm.FPExtOp, b, f64))
    one = pooled_llvm(e, _ONE, f64)
    minus_b = e(float_op(llvm.FNegOp, wide_b))
    start = e(call_intrinsic(RCP_F64, [wide_b], [f64]))
    r = start
    for _ in range(NEWTON_STEPS):
        err = e(float_op(llvm.FMAOp, minus_b, r, one))
        r = e(float_op(llvm.FMAOp, r, err, r))
    if table is not None:
        table[b] = (minus_b, start, r)
    return minus_b, start, r


def divide(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    """RN32(a / b) for f32 `a`, `b` (see the module's docstring)."""
    minus_b, start, r = _reciprocal(e, b)
    wide_a = e(convert(llvm.FPExtOp, a, f64))
    q = e(float_op(llvm.FMulOp, wide_a, r))
    residual = e(float_op(llvm.FMAOp, minus_b, q, wide_a))
    q = e(float_op(llvm.FMAOp, r, residual, q))
    special = e(float_op(llvm.FMulOp, wide_a, start))
    # q is NaN or zero exactly where an operand is zero, infinite or NaN (the module's doc).
    zero = pooled_llvm(e, _ZERO, f64)
    props = {"predicate": _ONE_FLAG, "fastmathFlags": NO_FASTMATH}
    ordinary = e(llvm.FCmpOp.create(operands=[q, zero], result_types=[i1], properties=props))
    select = llvm.SelectOp.create(
        operands=[ordinary, q, special],
        result_types=[f64],
        properties={"fastmathFlags": NO_FASTMATH},
    )
    return e(convert(llvm.FPTruncOp, e(select), f32))


class DivfToLLVM(RewritePattern):
    """`arith.divf` of two f32 without fast-math flags -> `divide`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.DivfOp, rewriter: PatternRewriter, /) -> None:
        if op.result.type != f32 or op.fastmath.data or not _full_rate_f64(op):
            return
        a, b = legal_operands(rewriter, op.operands)
        replace_op(rewriter, op, [], [divide(Emitter.before(rewriter, op), a, b)])


__all__ = ["FULL_RATE_F64", "NEWTON_STEPS", "RCP_F64", "DivfToLLVM", "divide", "shared_reciprocals"]
