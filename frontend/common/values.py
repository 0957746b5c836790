"""Typed values and Python operators on them.

A kernel's values are either IR values (`SSAValue`, typed f16 ... index) or Python constants
(int, float, bool, and whatever else a name holds). Python-on-Python folds at compile time, which
is what makes constants specialise a kernel. Python-on-IR takes the IR value's type (an int
constant fits any number type, a float constant only a float one). IR-on-IR needs one type on
both sides: a mismatch is an error naming both, never a silent conversion.

Integers are signless in the IR; `index` is read unsigned (sizes, offsets: `//` is divui, `<` is
ult), the `iN` types signed with Python's floor semantics for `//` and `%`.
"""

from __future__ import annotations

import math as pymath
import operator
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

from xdsl.dialects import arith
from xdsl.dialects import math as mathd
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, IntegerType, i64
from xdsl.ir import Block, Operation, SSAValue

from ferrox.frontend.common.errors import UserError
from ferrox.frontend.common.types import DType, dtype_of, f32, i1, index

PY_OPS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}

_CMP_FLOAT = {"<": "olt", "<=": "ole", ">": "ogt", ">=": "oge", "==": "oeq", "!=": "une"}
_CMP_SIGNED = {"<": "slt", "<=": "sle", ">": "sgt", ">=": "sge", "==": "eq", "!=": "ne"}
_CMP_UNSIGNED = {"<": "ult", "<=": "ule", ">": "ugt", ">=": "uge", "==": "eq", "!=": "ne"}

UNARY_MATH: dict[str, Any] = {
    "exp": mathd.ExpOp,
    "exp2": mathd.Exp2Op,
    "log": mathd.LogOp,
    "sqrt": mathd.SqrtOp,
    "rsqrt": mathd.RsqrtOp,
    "tanh": mathd.TanhOp,
    "sin": mathd.SinOp,
    "cos": mathd.CosOp,
    "erf": mathd.ErfOp,
    "floor": mathd.FloorOp,
    "ceil": mathd.CeilOp,
    "trunc": mathd.TruncOp,
    "round": mathd.RoundOp,
}
"""Float math functions of one argument (`ferrox.simt.exp`, ...), by name."""


def is_ir(value: Any) -> bool:
    return isinstance(value, SSAValue)


def describe(value: Any) -> str:
    """A value's type as a diagnostic names it."""
    if isinstance(value, SSAValue):
        return str(value.type)
    return f"Python {type(value).__name__} {value!r}"


class Emitter:
    """Appends ops to one block, each located at the node being built."""

    def __init__(self, block: Block, location: Any):
        self.block = block
        self.location: Any = location

    def emit(self, op: Operation) -> Operation:
        op.location = self.location
        self.block.add_op(op)
        return op

    def result(self, op: Operation) -> SSAValue:
        return self.emit(op).results[0]

    @contextmanager
    def into(self, block: Block) -> Iterator[Block]:
        """Build into `block` for the `with` body, then return to the current one."""
        saved = self.block
        self.block = block
        try:
            yield block
        finally:
            self.block = saved

    # -- constants -----------------------------------------------------------------------

    def const(self, value: Any, dtype: DType) -> SSAValue:
        if isinstance(value, bool) and dtype.kind != "bool" and not dtype.is_integer:
            raise UserError(f"a bool constant cannot be used as {dtype}")
        if dtype.is_float:
            if not isinstance(value, (int, float)):
                raise UserError(f"{value!r} is not a number")
            return self.result(arith.ConstantOp(FloatAttr(float(value), cast(Any, dtype.ir))))
        if isinstance(value, float):
            raise UserError(f"a float constant ({value!r}) cannot be used with an {dtype} value")
        if not isinstance(value, int):
            raise UserError(f"{value!r} is not a number")
        if dtype.kind == "bool":
            return self.result(arith.ConstantOp(IntegerAttr(int(bool(value)), IntegerType(1))))
        if dtype.kind == "index":
            if value < 0:
                raise UserError(f"a negative constant ({value}) cannot be an index")
            return self.result(arith.ConstantOp(IntegerAttr(value, IndexType())))
        lo, hi = -(1 << (dtype.bits - 1)), (1 << dtype.bits) - 1
        if not lo <= value <= hi:
            raise UserError(f"the constant {value} does not fit in {dtype}")
        if value >= 1 << (dtype.bits - 1):
            value -= 1 << dtype.bits
        return self.result(arith.ConstantOp(IntegerAttr(value, cast(Any, dtype.ir))))

    def default_dtype(self, value: Any) -> DType:
        if isinstance(value, bool):
            return i1
        if isinstance(value, int):
            return index
        if isinstance(value, float):
            return f32
        raise UserError(f"{describe(value)} is not a value a kernel can hold")

    def materialize(self, value: Any, dtype: DType | None = None) -> SSAValue:
        """An IR value for `value`: IR values as they are (of `dtype` when given), Python
        numbers as constants (bool i1, int index, float f32 unless `dtype` says)."""
        if isinstance(value, SSAValue):
            if dtype is not None and value.type != dtype.ir:
                raise UserError(f"expected {dtype}, found {value.type}")
            return value
        return self.const(value, dtype or self.default_dtype(value))

    def scalar(self, value: SSAValue, what: str) -> DType:
        d = dtype_of(value.type)
        if d is None:
            raise UserError(f"{what} takes numbers, not {value.type}")
        return d

    def unify(self, a: Any, b: Any, what: str) -> tuple[SSAValue, SSAValue, DType]:
        """Both operands as IR values of one type (at least one is IR already)."""
        if is_ir(a) and is_ir(b):
            da, db = self.scalar(a, what), self.scalar(b, what)
            if da != db:
                raise UserError(
                    f"mismatched types in '{what}': {da} and {db} "
                    f"(convert one side, e.g. {da}(x) or {db}(x))"
                )
            return a, b, da
        if is_ir(a):
            d = self.scalar(a, what)
            return a, self.const(b, d), d
        d = self.scalar(b, what)
        return self.const(a, d), b, d

    # -- operators -----------------------------------------------------------------------

    def binop(self, op: str, a: Any, b: Any) -> Any:
        if not is_ir(a) and not is_ir(b):
            try:
                return PY_OPS[op](a, b)
            except Exception as e:
                raise UserError(f"'{op}' on {a!r} and {b!r}: {e}") from None
        if op == "**":
            return self._power(a, b)
        x, y, d = self.unify(a, b, op)
        if d.is_float:
            simple = {"+": arith.AddfOp, "-": arith.SubfOp, "*": arith.MulfOp, "/": arith.DivfOp}
            if op in simple:
                return self.result(simple[op](x, y))
            if op == "//":
                return self.result(mathd.FloorOp(self.result(arith.DivfOp(x, y))))
            raise UserError(f"'{op}' is not defined on {d}")
        if d.kind == "bool":
            logical = {"&": arith.AndIOp, "|": arith.OrIOp, "^": arith.XOrIOp}
            if op in logical:
                return self.result(logical[op](x, y))
            raise UserError(f"'{op}' is not defined on bool (i1) values")
        unsigned = d.kind == "index"
        table: dict[str, Callable[..., Operation]] = {
            "+": arith.AddiOp,
            "-": arith.SubiOp,
            "*": arith.MuliOp,
            "&": arith.AndIOp,
            "|": arith.OrIOp,
            "^": arith.XOrIOp,
            "<<": arith.ShLIOp,
            ">>": arith.ShRUIOp if unsigned else arith.ShRSIOp,
            "//": arith.DivUIOp if unsigned else arith.FloorDivSIOp,
        }
        if op in table:
            return self.result(table[op](x, y))
        if op == "%":
            return self.result(arith.RemUIOp(x, y)) if unsigned else self._floor_mod(x, y, d)
        if op == "/":
            raise UserError(f"'/' divides floats; {d} values divide with '//'")
        raise UserError(f"'{op}' is not defined on {d}")

    def _floor_mod(self, x: SSAValue, y: SSAValue, d: DType) -> SSAValue:
        """Python's `%` on signed integers: the remainder takes the divisor's sign."""
        r = self.result(arith.RemSIOp(x, y))
        zero = self.const(0, d)
        nonzero = self.result(arith.CmpiOp(r, zero, "ne"))
        r_neg = self.result(arith.CmpiOp(r, zero, "slt"))
        y_neg = self.result(arith.CmpiOp(y, zero, "slt"))
        differ = self.result(arith.XOrIOp(r_neg, y_neg))
        fix = self.result(arith.AndIOp(nonzero, differ))
        return self.result(arith.SelectOp(fix, self.result(arith.AddiOp(r, y)), r))

    def _power(self, a: Any, b: Any) -> SSAValue:
        if is_ir(a) and isinstance(b, int) and not isinstance(b, bool) and 1 <= b <= 16:
            self.scalar(a, "**")
            result = a
            for _ in range(b - 1):
                result = self.binop("*", result, a)
            return result
        x, y, d = self.unify(a, b, "**")
        if not d.is_float:
            raise UserError(f"'**' on {d} takes a constant exponent from 1 to 16")
        return self.result(mathd.PowFOp(x, y))

    def compare(self, op: str, a: Any, b: Any) -> Any:
        if not is_ir(a) and not is_ir(b):
            return PY_OPS[op](a, b)
        x, y, d = self.unify(a, b, op)
        if d.is_float:
            return self.result(arith.CmpfOp(x, y, _CMP_FLOAT[op]))
        if d.kind == "bool" and op not in ("==", "!="):
            raise UserError(f"'{op}' does not order bool (i1) values")
        table = _CMP_UNSIGNED if d.kind in ("index", "bool") else _CMP_SIGNED
        return self.result(arith.CmpiOp(x, y, table[op]))

    def unary(self, op: str, v: Any) -> Any:
        if not is_ir(v):
            fold: dict[str, Any] = {
                "-": operator.neg,
                "+": operator.pos,
                "~": operator.invert,
                "not": operator.not_,
            }
            return fold[op](v)
        d = self.scalar(v, op)
        if op == "+":
            return v
        if op == "-":
            if d.is_float:
                return self.result(arith.NegfOp(v))
            if d.kind != "int":
                raise UserError(f"'-' negates floats and signed integers, not {d}")
            return self.result(arith.SubiOp(self.const(0, d), v))
        if op == "not":
            if d.kind != "bool":
                raise UserError(f"'not' takes a bool (i1), found {d}")
            return self.result(arith.XOrIOp(v, self.const(True, i1)))
        if op == "~":
            if not d.is_integer:
                raise UserError(f"'~' takes an integer, found {d}")
            ones = (1 << d.bits) - 1 if d.kind == "int" else None
            if ones is None:
                raise UserError("'~' is not defined on index")
            return self.result(arith.XOrIOp(v, self.const(ones, d)))
        raise UserError(f"unsupported operator '{op}'")

    def condition(self, v: Any, what: str) -> Any:
        """A branch or loop condition: a Python bool, or an i1 value."""
        if not is_ir(v):
            return bool(v)
        if v.type != IntegerType(1):
            raise UserError(f"{what} must be a bool (i1), found {v.type} (compare it: x != 0)")
        return v

    # -- conversions and functions -------------------------------------------------------

    def cast(self, v: Any, to: DType) -> SSAValue:
        """`to(v)`: a value converted to another element type."""
        if not is_ir(v):
            if to.is_float:
                return self.const(float(v), to)
            if isinstance(v, float):
                return self.const(int(v), to) if to.kind != "bool" else self.const(v != 0, to)
            return self.const(v, to)
        d = self.scalar(v, f"{to}(...)")
        if d == to:
            return v
        if d.is_float and to.is_float:
            if d.bits == to.bits:  # f16 <-> bf16 goes through f32
                v, d = self.result(arith.ExtFOp(v, f32.ir)), f32
            cls: Any = arith.ExtFOp if to.bits > d.bits else arith.TruncFOp
            return self.result(cls(v, to.ir))
        if to.kind == "bool":
            return self.compare("!=", v, 0.0 if d.is_float else 0)
        if to.is_float:
            if d.kind == "index":
                v = self.result(arith.IndexCastOp(v, i64))
            cls = arith.UIToFPOp if d.kind == "bool" else arith.SIToFPOp
            return self.result(cls(v, to.ir))
        if d.is_float:
            if to.kind == "index":
                return self.result(arith.IndexCastOp(self.result(arith.FPToSIOp(v, i64)), to.ir))
            return self.result(arith.FPToSIOp(v, cast(Any, to.ir)))
        if d.kind == "bool":
            if to.kind == "index":
                return self.result(arith.IndexCastOp(self.result(arith.ExtUIOp(v, i64)), to.ir))
            return self.result(arith.ExtUIOp(v, cast(Any, to.ir)))
        if d.kind == "index" or to.kind == "index":
            return self.result(arith.IndexCastOp(v, to.ir))
        cls = arith.ExtSIOp if to.bits > d.bits else arith.TruncIOp
        return self.result(cls(v, to.ir))

    def select(self, cond: Any, a: Any, b: Any) -> Any:
        """`where(cond, a, b)`: both sides are computed, one is chosen."""
        cond = self.condition(cond, "where's condition")
        if not is_ir(cond):
            return a if cond else b
        if not is_ir(a) and not is_ir(b):
            a = self.materialize(a)
        x, y, _ = self.unify(a, b, "where")
        return self.result(arith.SelectOp(cond, x, y))

    def minmax(self, which: str, a: Any, b: Any) -> Any:
        if not is_ir(a) and not is_ir(b):
            return min(a, b) if which == "min" else max(a, b)
        x, y, d = self.unify(a, b, which)
        if d.is_float:
            cls: Any = arith.MinimumfOp if which == "min" else arith.MaximumfOp
        elif d.kind == "index":
            cls = arith.MinUIOp if which == "min" else arith.MaxUIOp
        elif d.kind == "int":
            cls = arith.MinSIOp if which == "min" else arith.MaxSIOp
        else:
            raise UserError(f"{which} takes numbers, not bool (i1) values")
        return self.result(cls(x, y))

    def abs(self, v: Any) -> Any:
        if not is_ir(v):
            return abs(v)
        d = self.scalar(v, "abs")
        if d.is_float:
            return self.result(mathd.AbsFOp(v))
        if d.kind != "int":
            raise UserError(f"abs takes floats and signed integers, not {d}")
        return self.result(mathd.AbsIOp(v))

    def math(self, name: str, *args: Any) -> Any:
        """A float math function (`UNARY_MATH`, `fma`, `pow`)."""
        if not any(is_ir(a) for a in args):
            python: dict[str, Any] = {
                "rsqrt": lambda x: 1 / pymath.sqrt(x),
                "fma": lambda a, b, c: a * b + c,
            }
            fn: Any = python.get(name) or getattr(pymath, name, None)
            if fn is None:
                raise UserError(f"{name} has no compile-time form")
            return fn(*args)
        first = next(a for a in args if is_ir(a))
        d = self.scalar(first, name)
        if not d.is_float:
            raise UserError(f"{name} takes floats, found {d} (convert it: f32(x))")
        values = []
        for a in args:
            value = self.materialize(a, d)
            if value.type != d.ir:
                raise UserError(f"mismatched types in '{name}': {d} and {value.type}")
            values.append(value)
        if name in UNARY_MATH and len(values) == 1:
            return self.result(UNARY_MATH[name](values[0]))
        if name == "fma" and len(values) == 3:
            return self.result(mathd.FmaOp(values[0], values[1], values[2]))
        if name == "pow" and len(values) == 2:
            return self.result(mathd.PowFOp(values[0], values[1]))
        raise UserError(f"{name} takes {'3 arguments' if name == 'fma' else 'one argument'}")
