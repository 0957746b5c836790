"""`arith` as the GPU computes it.

xDSL's `ArithFunctions` are kept where they are exact and cheap (select, cmpf, and
addf/subf/mulf, which stay in the operands' NumPy width). This subclass overrides what is not
exact there (float constants are Python floats, minimumf/maximumf return a Python NaN, shifts
assert on a negative amount, divisions assert on zero), the integer ops whose type checks on
every call dominate a kernel's run time (add/sub/mul/and/or/xor, cmpi, index_cast: same
results, with the bit width looked up once per op), and adds the ops xDSL does not interpret.
Where LLVM leaves a result poison, the value is the one NVPTX's instruction gives (saturating
float-to-int, shift amounts past the width); integer division by zero, garbage on the GPU, traps
here.
"""

from __future__ import annotations

import math
import operator

import numpy as np
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.interpreter import PythonValues, impl, register_impls
from xdsl.interpreters.arith import ArithFunctions
from xdsl.ir import Operation

from ferrox.driver.interpreter.errors import KernelFault
from ferrox.driver.interpreter.machine import SimtInterpreter
from ferrox.driver.interpreter.values import (
    float_bits,
    float_dtype,
    float_from_bits,
    float_from_int,
    int_from_float,
    int_width,
    signed,
    unsigned,
)


def _width(op: Operation) -> int:
    width = int_width(op.results[0].type)
    assert width is not None
    return width


def _in_width(op: Operation) -> int:
    width = int_width(op.operands[0].type)
    assert width is not None
    return width


def _dtype(op: Operation) -> np.dtype:
    dtype = float_dtype(op.results[0].type)
    assert dtype is not None, f"{op.results[0].type} is not a float type the interpreter knows"
    return dtype


_COMPARISONS = (
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
)  # arith.cmpi predicates 0-9: eq ne slt sle sgt sge ult ule ugt uge


def _predicate(op: arith.CmpiOp):
    p = op.predicate.value.data
    return _in_width(op), _COMPARISONS[p], p >= 6


def _nonzero(interp: SimtInterpreter, op: Operation, divisor: int) -> None:
    if divisor == 0:
        raise interp.trap(op, f"integer division by zero in '{op.name}'")


@register_impls
class FerroxArithFunctions(ArithFunctions):
    @impl(arith.ConstantOp)
    def run_constant(self, interp: SimtInterpreter, op: arith.ConstantOp, args: PythonValues):
        value = op.value
        if isinstance(value, FloatAttr):
            return (interp.static(op, _dtype).type(value.value.data),)
        if isinstance(value, IntegerAttr):
            return (signed(value.value.data, interp.static(op, _width)),)
        raise interp.trap(
            op, f"the interpreter handles scalar constants only, not {value}", KernelFault
        )

    # --- integer arithmetic: xDSL's results, the width looked up once per op -------------
    @impl(arith.AddiOp)
    def run_addi(self, interp: SimtInterpreter, op: arith.AddiOp, args: PythonValues):
        return (signed(args[0] + args[1], interp.static(op, _width)),)

    @impl(arith.SubiOp)
    def run_subi(self, interp: SimtInterpreter, op: arith.SubiOp, args: PythonValues):
        return (signed(args[0] - args[1], interp.static(op, _width)),)

    @impl(arith.MuliOp)
    def run_muli(self, interp: SimtInterpreter, op: arith.MuliOp, args: PythonValues):
        return (signed(args[0] * args[1], interp.static(op, _width)),)

    @impl(arith.AndIOp)
    def run_andi(self, interp: SimtInterpreter, op: arith.AndIOp, args: PythonValues):
        return (signed(args[0] & args[1], interp.static(op, _width)),)

    @impl(arith.OrIOp)
    def run_ori(self, interp: SimtInterpreter, op: arith.OrIOp, args: PythonValues):
        return (signed(args[0] | args[1], interp.static(op, _width)),)

    @impl(arith.XOrIOp)
    def run_xori(self, interp: SimtInterpreter, op: arith.XOrIOp, args: PythonValues):
        return (signed(args[0] ^ args[1], interp.static(op, _width)),)

    @impl(arith.CmpiOp)
    def run_cmpi(self, interp: SimtInterpreter, op: arith.CmpiOp, args: PythonValues):
        w, compare, is_unsigned = interp.static(op, _predicate)
        if is_unsigned:
            return (compare(unsigned(args[0], w), unsigned(args[1], w)),)
        return (compare(signed(args[0], w), signed(args[1], w)),)

    @impl(arith.IndexCastOp)
    def run_indexcast(self, interp: SimtInterpreter, op: arith.IndexCastOp, args: PythonValues):
        # Narrowing truncates, widening sign-extends: signed() of the narrower width does both.
        return (signed(args[0], min(interp.static(op, _in_width), interp.static(op, _width))),)

    # --- integer division and remainders ------------------------------------------------
    @impl(arith.DivUIOp)
    def run_divui(self, interp: SimtInterpreter, op: arith.DivUIOp, args: PythonValues):
        w = interp.static(op, _width)
        rhs = unsigned(args[1], w)
        _nonzero(interp, op, rhs)
        return (signed(unsigned(args[0], w) // rhs, w),)

    @impl(arith.RemUIOp)
    def run_remui(self, interp: SimtInterpreter, op: arith.RemUIOp, args: PythonValues):
        w = interp.static(op, _width)
        rhs = unsigned(args[1], w)
        _nonzero(interp, op, rhs)
        return (signed(unsigned(args[0], w) % rhs, w),)

    @impl(arith.DivSIOp)
    def run_divsi(self, interp: SimtInterpreter, op: arith.DivSIOp, args: PythonValues):
        w = interp.static(op, _width)
        lhs, rhs = signed(args[0], w), signed(args[1], w)
        _nonzero(interp, op, rhs)
        q = abs(lhs) // abs(rhs)
        return (signed(-q if (lhs < 0) != (rhs < 0) else q, w),)

    @impl(arith.RemSIOp)
    def run_remsi(self, interp: SimtInterpreter, op: arith.RemSIOp, args: PythonValues):
        w = interp.static(op, _width)
        lhs, rhs = signed(args[0], w), signed(args[1], w)
        _nonzero(interp, op, rhs)
        r = abs(lhs) % abs(rhs)
        return (signed(-r if lhs < 0 else r, w),)

    @impl(arith.FloorDivSIOp)
    def run_floordivsi(self, interp: SimtInterpreter, op: arith.FloorDivSIOp, args: PythonValues):
        w = interp.static(op, _width)
        lhs, rhs = signed(args[0], w), signed(args[1], w)
        _nonzero(interp, op, rhs)
        return (signed(lhs // rhs, w),)

    @impl(arith.CeilDivSIOp)
    def run_ceildivsi(self, interp: SimtInterpreter, op: arith.CeilDivSIOp, args: PythonValues):
        w = interp.static(op, _width)
        lhs, rhs = signed(args[0], w), signed(args[1], w)
        _nonzero(interp, op, rhs)
        return (signed(-(-lhs // rhs), w),)

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interp: SimtInterpreter, op: arith.CeilDivUIOp, args: PythonValues):
        w = interp.static(op, _width)
        lhs, rhs = unsigned(args[0], w), unsigned(args[1], w)
        _nonzero(interp, op, rhs)
        return (signed(-(-lhs // rhs), w),)

    # --- min / max ----------------------------------------------------------------------
    @impl(arith.MinSIOp)
    def run_minsi(self, interp: SimtInterpreter, op: arith.MinSIOp, args: PythonValues):
        w = interp.static(op, _width)
        return (min(signed(args[0], w), signed(args[1], w)),)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interp: SimtInterpreter, op: arith.MaxSIOp, args: PythonValues):
        w = interp.static(op, _width)
        return (max(signed(args[0], w), signed(args[1], w)),)

    @impl(arith.MinUIOp)
    def run_minui(self, interp: SimtInterpreter, op: arith.MinUIOp, args: PythonValues):
        w = interp.static(op, _width)
        return (signed(min(unsigned(args[0], w), unsigned(args[1], w)), w),)

    @impl(arith.MaxUIOp)
    def run_maxui(self, interp: SimtInterpreter, op: arith.MaxUIOp, args: PythonValues):
        w = interp.static(op, _width)
        return (signed(max(unsigned(args[0], w), unsigned(args[1], w)), w),)

    # --- shifts: PTX clamps the amount, so a shift by >= width gives 0 (or the sign) ----
    @impl(arith.ShLIOp)
    def run_shlsi(self, interp: SimtInterpreter, op: arith.ShLIOp, args: PythonValues):
        w = interp.static(op, _width)
        amount = unsigned(args[1], w)
        return (0 if amount >= w else signed(args[0] << amount, w),)

    @impl(arith.ShRUIOp)
    def run_shrui(self, interp: SimtInterpreter, op: arith.ShRUIOp, args: PythonValues):
        w = interp.static(op, _width)
        amount = unsigned(args[1], w)
        return (0 if amount >= w else signed(unsigned(args[0], w) >> amount, w),)

    @impl(arith.ShRSIOp)
    def run_shrsi(self, interp: SimtInterpreter, op: arith.ShRSIOp, args: PythonValues):
        w = interp.static(op, _width)
        amount = min(unsigned(args[1], w), w - 1)
        return (signed(args[0], w) >> amount,)

    # --- wide results -------------------------------------------------------------------
    @impl(arith.AddUIExtendedOp)
    def run_addui_extended(
        self, interp: SimtInterpreter, op: arith.AddUIExtendedOp, args: PythonValues
    ):
        w = interp.static(op, _width)
        total = unsigned(args[0], w) + unsigned(args[1], w)
        return (signed(total, w), total >> w != 0)

    @impl(arith.MulUIExtendedOp)
    def run_mului_extended(
        self, interp: SimtInterpreter, op: arith.MulUIExtendedOp, args: PythonValues
    ):
        w = interp.static(op, _width)
        product = unsigned(args[0], w) * unsigned(args[1], w)
        return (signed(product, w), signed(product >> w, w))

    @impl(arith.MulSIExtendedOp)
    def run_mulsi_extended(
        self, interp: SimtInterpreter, op: arith.MulSIExtendedOp, args: PythonValues
    ):
        w = interp.static(op, _width)
        product = signed(args[0], w) * signed(args[1], w)
        return (signed(product, w), signed(product >> w, w))

    # --- floats -------------------------------------------------------------------------
    @impl(arith.DivfOp)
    def run_divf(self, interp: SimtInterpreter, op: arith.DivfOp, args: PythonValues):
        return (args[0] / args[1],)

    @impl(arith.NegfOp)
    def run_negf(self, interp: SimtInterpreter, op: arith.NegfOp, args: PythonValues):
        return (-args[0],)

    @impl(arith.MinimumfOp)
    def run_minimumf(self, interp: SimtInterpreter, op: arith.MinimumfOp, args: PythonValues):
        a, b = args
        if a != a or b != b:
            return (interp.static(op, _dtype).type("nan"),)
        if a == b:  # -0 < +0
            return (a if math.copysign(1.0, float(a)) < 0 else b,)
        return (a if a < b else b,)

    @impl(arith.MaximumfOp)
    def run_maximumf(self, interp: SimtInterpreter, op: arith.MaximumfOp, args: PythonValues):
        a, b = args
        if a != a or b != b:
            return (interp.static(op, _dtype).type("nan"),)
        if a == b:
            return (a if math.copysign(1.0, float(a)) > 0 else b,)
        return (a if a > b else b,)

    @impl(arith.MinnumfOp)
    def run_minnumf(self, interp: SimtInterpreter, op: arith.MinnumfOp, args: PythonValues):
        return (np.fmin(args[0], args[1]),)

    @impl(arith.MaxnumfOp)
    def run_maxnumf(self, interp: SimtInterpreter, op: arith.MaxnumfOp, args: PythonValues):
        return (np.fmax(args[0], args[1]),)

    # --- casts --------------------------------------------------------------------------
    @impl(arith.ExtUIOp)
    def run_extui(self, interp: SimtInterpreter, op: arith.ExtUIOp, args: PythonValues):
        return (signed(unsigned(args[0], interp.static(op, _in_width)), interp.static(op, _width)),)

    @impl(arith.ExtSIOp)
    def run_extsi(self, interp: SimtInterpreter, op: arith.ExtSIOp, args: PythonValues):
        return (signed(args[0], interp.static(op, _in_width)),)

    @impl(arith.TruncIOp)
    def run_trunci(self, interp: SimtInterpreter, op: arith.TruncIOp, args: PythonValues):
        return (signed(args[0], interp.static(op, _width)),)

    @impl(arith.SIToFPOp)
    def run_sitofp(self, interp: SimtInterpreter, op: arith.SIToFPOp, args: PythonValues):
        value = signed(args[0], interp.static(op, _in_width))
        return (float_from_int(value, interp.static(op, _dtype)),)

    @impl(arith.UIToFPOp)
    def run_uitofp(self, interp: SimtInterpreter, op: arith.UIToFPOp, args: PythonValues):
        value = unsigned(args[0], interp.static(op, _in_width))
        return (float_from_int(value, interp.static(op, _dtype)),)

    @impl(arith.FPToSIOp)
    def run_fptosi(self, interp: SimtInterpreter, op: arith.FPToSIOp, args: PythonValues):
        return (int_from_float(args[0], interp.static(op, _width), True),)

    @impl(arith.FPToUIOp)
    def run_fptoui(self, interp: SimtInterpreter, op: arith.FPToUIOp, args: PythonValues):
        return (int_from_float(args[0], interp.static(op, _width), False),)

    @impl(arith.ExtFOp)
    def run_extf(self, interp: SimtInterpreter, op: arith.ExtFOp, args: PythonValues):
        return (interp.static(op, _dtype).type(args[0]),)

    @impl(arith.TruncFOp)
    def run_truncf(self, interp: SimtInterpreter, op: arith.TruncFOp, args: PythonValues):
        return (interp.static(op, _dtype).type(args[0]),)

    @impl(arith.BitcastOp)
    def run_bitcast(self, interp: SimtInterpreter, op: arith.BitcastOp, args: PythonValues):
        source, target = op.operands[0].type, op.results[0].type
        value = args[0]
        src_float, dst_float = float_dtype(source), float_dtype(target)
        if src_float is not None:
            value = float_bits(value, src_float)
        if dst_float is not None:
            return (float_from_bits(value, dst_float),)
        return (signed(value, interp.static(op, _width)),)

    @impl(arith.CmpfOp)
    def run_cmpf(self, interp: SimtInterpreter, op: arith.CmpfOp, args: PythonValues):
        # xDSL's answer is a NumPy bool for NumPy operands; i1 values are Python bools here.
        return (bool(ArithFunctions.run_cmpf(self, interp, op, args).values[0]),)
