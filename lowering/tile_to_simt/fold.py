"""Integer arithmetic of the tile lowering folded as it is built.

The lowering unrolls every thread's registers, so most of the index arithmetic it writes has
constant operands (a register's static element offset, a chunk number, a stage size): without
folding, a softmax's nine tile ops became hundreds of `arith` ops that every later stage
converted one by one before LLVM folded them away. `fold` gives the value of such an op when
it is known without emitting it: a constant (as an `int`, the caller makes the constant) or one
of its operands (`x + 0`, `x * 1`, `select true, x, y`).

Integers wrap as the target does: `index` is 64 bits wide (the SIMT chain lowers it to `i64`),
and every value is kept in its signed form, as `IntegerAttr` holds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute, SSAValue

INDEX_BITS = 64


def width(t: Attribute) -> int | None:
    """The bit width of an integer or `index` type (None for other types)."""
    if isinstance(t, IndexType):
        return INDEX_BITS
    if isinstance(t, IntegerType):
        return t.width.data
    return None


def wrap(v: int, bits: int) -> int:
    """`v` modulo 2**bits, in signed form."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def int_of(value: SSAValue) -> int | None:
    """The value of an integer `arith.constant`, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp):
        attr = owner.value
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def _u(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


Both = Callable[[int, int, int], int | None]
"""An op's value from its two constant operands (signed form) and the width."""

_BOTH: dict[type, Both] = {
    arith.AddiOp: lambda a, b, n: a + b,
    arith.SubiOp: lambda a, b, n: a - b,
    arith.MuliOp: lambda a, b, n: a * b,
    arith.AndIOp: lambda a, b, n: a & b,
    arith.OrIOp: lambda a, b, n: a | b,
    arith.XOrIOp: lambda a, b, n: a ^ b,
    arith.ShLIOp: lambda a, b, n: a << _u(b, n) if _u(b, n) < n else None,
    arith.ShRUIOp: lambda a, b, n: _u(a, n) >> _u(b, n) if _u(b, n) < n else None,
    arith.CeilDivUIOp: lambda a, b, n: -(-_u(a, n) // _u(b, n)) if b else None,
    arith.DivUIOp: lambda a, b, n: _u(a, n) // _u(b, n) if b else None,
    arith.RemUIOp: lambda a, b, n: _u(a, n) % _u(b, n) if b else None,
    arith.MinUIOp: lambda a, b, n: a if _u(a, n) <= _u(b, n) else b,
    arith.MaxUIOp: lambda a, b, n: a if _u(a, n) >= _u(b, n) else b,
    arith.MinSIOp: lambda a, b, n: min(a, b),
    arith.MaxSIOp: lambda a, b, n: max(a, b),
}

_COMPARE: dict[int, Both] = {  # arith.cmpi's predicate numbers
    0: lambda a, b, n: a == b,
    1: lambda a, b, n: a != b,
    2: lambda a, b, n: a < b,
    3: lambda a, b, n: a <= b,
    4: lambda a, b, n: a > b,
    5: lambda a, b, n: a >= b,
    6: lambda a, b, n: _u(a, n) < _u(b, n),
    7: lambda a, b, n: _u(a, n) <= _u(b, n),
    8: lambda a, b, n: _u(a, n) > _u(b, n),
    9: lambda a, b, n: _u(a, n) >= _u(b, n),
}

PREDICATES = {
    name: i
    for i, name in enumerate(("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"))
}

FOLDABLE = frozenset((*_BOTH, arith.CmpiOp, arith.SelectOp))


def fold(
    cls: type, operands: Sequence[SSAValue], predicate: int | None = None
) -> SSAValue | int | None:
    """What `cls(*operands)` (an integer op of `FOLDABLE`; `predicate` for `arith.cmpi`) is
    without emitting it: an `int` (the result's value, wrapped to its type), one of the
    operands, or None when it must be computed."""
    if cls is arith.SelectOp:
        cond, x, y = operands
        if x is y:
            return x
        c = int_of(cond)
        return None if c is None else (x if c else y)
    a, b = operands
    n = width(a.type)
    if n is None:
        return None
    ia, ib = int_of(a), int_of(b)
    if ia is not None and ib is not None:
        if cls is arith.CmpiOp:
            assert predicate is not None
            return -1 if _COMPARE[predicate](ia, ib, n) else 0  # i1 true is -1 in signed form
        value = _BOTH[cls](ia, ib, n)
        return None if value is None else wrap(value, n)
    if ib is not None:
        return _right_identity(cls, a, ib, n)
    if ia is not None:
        return _left_identity(cls, b, ia, n)
    return None


def _right_identity(cls: type, a: SSAValue, b: int, n: int) -> SSAValue | int | None:
    if b == 0 and cls in (arith.AddiOp, arith.SubiOp, arith.OrIOp, arith.XOrIOp):
        return a
    if b == 0 and cls in (arith.ShLIOp, arith.ShRUIOp):
        return a
    if b == 0 and cls in (arith.MuliOp, arith.AndIOp):
        return 0
    if b == 1 and cls in (arith.MuliOp, arith.CeilDivUIOp, arith.DivUIOp):
        return a
    if b == -1 and cls is arith.AndIOp:
        return a
    return None


def _left_identity(cls: type, b: SSAValue, a: int, n: int) -> SSAValue | int | None:
    if a == 0 and cls in (arith.AddiOp, arith.OrIOp, arith.XOrIOp):
        return b
    if a == 0 and cls in (arith.MuliOp, arith.AndIOp, arith.ShLIOp, arith.ShRUIOp):
        return 0
    if a == 1 and cls is arith.MuliOp:
        return b
    if a == -1 and cls is arith.AndIOp:
        return b
    return None


__all__ = ["FOLDABLE", "INDEX_BITS", "PREDICATES", "fold", "int_of", "width", "wrap"]
