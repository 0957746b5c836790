"""The ops and attributes the lowerings build most, built without xDSL's generic builder.

An IRDL op's `__init__` goes through `irdl_op_init`, which sorts its arguments into the op's
operand, result, region and successor definitions; for an op with fixed operands and results
that gives exactly what `Operation.create` is handed directly, at about three times the cost.
Building an attribute checks its parameters every time. A tile kernel's compile builds a few
thousand ops and attributes, most of them the same constants, predicates and types, so these
were a fifth of the lowering's time. Each builder here makes the op its xDSL constructor would
(same operands, result types and properties, in the same order).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TypeVar

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.irdl import IRDLOperation

OpT = TypeVar("OpT", bound=IRDLOperation)

CMPI_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
"""arith.cmpi's predicates, by their number."""


@cache
def int_attr(value: int, t: Attribute) -> IntegerAttr:
    """`IntegerAttr(value, t)`, made once per value and type (attributes are immutable)."""
    assert isinstance(t, IntegerType | IndexType), t
    return IntegerAttr(value, t)


@cache
def i32_array(values: tuple[int, ...]) -> DenseArrayBase:
    """`DenseArrayBase.from_list(i32, values)`, made once per tuple."""
    return DenseArrayBase.from_list(i32, values)


@cache
def position(i: int) -> DenseArrayBase:
    """`DenseArrayBase.from_list(i64, [i])`: member `i` of an aggregate (`extract_value`,
    `insert_value`), made once per index."""
    return DenseArrayBase.from_list(i64, [i])


@cache
def _f32_attr(bits: str) -> FloatAttr:
    return FloatAttr(float.fromhex(bits), f32)


def f32_attr(value: float) -> FloatAttr:
    """`FloatAttr(value, f32)`, made once per value (-0.0 and 0.0 apart)."""
    return _f32_attr(float(value).hex())


_UNIT = UnitAttr()
NO_FASTMATH = llvm.FastMathAttr(None)


def int_constant(value: int, t: Attribute) -> arith.ConstantOp:
    """`arith.ConstantOp(IntegerAttr(value, t))`."""
    return arith.ConstantOp.create(result_types=[t], properties={"value": int_attr(value, t)})


def cmpi(lhs: SSAValue, rhs: SSAValue, predicate: str) -> arith.CmpiOp:
    """`arith.CmpiOp(lhs, rhs, predicate)` (both operands of one type, as its builder checks)."""
    assert lhs.type == rhs.type, (lhs.type, rhs.type)
    props = {"predicate": int_attr(CMPI_PREDICATES.index(predicate), i64)}
    return arith.CmpiOp.create(operands=[lhs, rhs], result_types=[i1], properties=props)


_NO_OVERFLOW = arith.IntegerOverflowAttr("none")


def same_type(cls: type[OpT], *operands: SSAValue) -> OpT:
    """`cls(*operands)` of an op whose one result has its first operand's type: arith's integer
    binary ops (`AndIOp`, or `AddiOp` with its overflow flags, none, as its builder sets them)
    and others without properties."""
    if issubclass(cls, arith.SignlessIntegerBinaryOperationWithOverflow):
        props: dict[str, Attribute] = {"overflowFlags": _NO_OVERFLOW}
        return cls.create(operands=operands, result_types=[operands[0].type], properties=props)
    assert not cls.get_irdl_definition().properties, cls
    return cls.create(operands=operands, result_types=[operands[0].type])


def convert(cls: type[OpT], value: SSAValue, to: Attribute) -> OpT:
    """`cls(value, to)` of a one-operand conversion without properties (`IndexCastOp`,
    `ExtUIOp`, ...)."""
    return cls.create(operands=[value], result_types=[to])


_NO_ARITH_FASTMATH = arith.FastMathFlagsAttr("none")


def fma(a: SSAValue, b: SSAValue, c: SSAValue) -> xmath.FmaOp:
    """`math.FmaOp(a, b, c)`: a * b + c, no fast-math flags (a GEMM's tile lowering makes
    thousands; the constructor's generic builder cost more than the op)."""
    props: dict[str, Attribute] = {"fastmath": _NO_ARITH_FASTMATH}
    return xmath.FmaOp.create(operands=[a, b, c], result_types=[a.type], properties=props)


def llvm_constant(value: Attribute, t: Attribute) -> llvm.ConstantOp:
    """`llvm.ConstantOp(value, t)`."""
    return llvm.ConstantOp.create(result_types=[t], properties={"value": value})


def float_op(cls: type[OpT], *operands: SSAValue, fastmath: llvm.FastMathAttr = NO_FASTMATH) -> OpT:
    """`cls(*operands, fastmath)` of an llvm float op (`FAddOp`, `FMAOp`, `FNegOp`, ...): one
    result of its first operand's type, and its fast-math flags."""
    props: dict[str, Attribute] = {"fastmathFlags": fastmath}
    return cls.create(operands=operands, result_types=[operands[0].type], properties=props)


def br(dest: Block, *args: SSAValue) -> llvm.BrOp:
    """`llvm.BrOp(dest, *args)`."""
    return llvm.BrOp.create(operands=args, successors=[dest])


def cond_br(
    cond: SSAValue,
    then: Block,
    then_args: Sequence[SSAValue],
    other: Block,
    other_args: Sequence[SSAValue],
) -> llvm.CondBrOp:
    """`llvm.CondBrOp(cond, then, then_args, other, other_args)`."""
    sizes = i32_array((1, len(then_args), len(other_args)))
    return llvm.CondBrOp.create(
        operands=[cond, *then_args, *other_args],
        successors=[then, other],
        properties={"operandSegmentSizes": sizes},
    )


def yield_(*values: SSAValue) -> scf.YieldOp:
    """`scf.YieldOp(*values)`."""
    return scf.YieldOp.create(operands=values)


def if_(
    cond: SSAValue, result_types: Sequence[Attribute], then: Region, other: Region | None = None
) -> scf.IfOp:
    """`scf.IfOp(cond, result_types, then, other)` (no else: an empty region)."""
    regions = [then, other if other is not None else Region()]
    return scf.IfOp.create(operands=[cond], result_types=result_types, regions=regions)


def gep(
    ptr: SSAValue,
    indices: Sequence[int],
    pointee: Attribute,
    ssa_indices: Sequence[SSAValue],
    result_type: Attribute,
    inbounds: bool = False,
) -> llvm.GEPOp:
    """`llvm.GEPOp(ptr, indices, pointee, ssa_indices, result_type, inbounds)`."""
    props: dict[str, Attribute] = {
        "rawConstantIndices": i32_array(tuple(indices)),
        "elem_type": pointee,
        "noWrapFlags": int_attr(0, i32),
    }
    if inbounds:
        props["inbounds"] = _UNIT
    return llvm.GEPOp.create(
        operands=[ptr, *ssa_indices], result_types=[result_type], properties=props
    )


def load(ptr: SSAValue, t: Attribute, alignment: int | None = None) -> llvm.LoadOp:
    """`llvm.LoadOp(ptr, t, alignment)`."""
    props: dict[str, Attribute] = {"ordering": int_attr(0, i64)}
    if alignment is not None:
        props["alignment"] = int_attr(alignment, i64)
    return llvm.LoadOp.create(operands=[ptr], result_types=[t], properties=props)


def store(value: SSAValue, ptr: SSAValue, alignment: int | None = None) -> llvm.StoreOp:
    """`llvm.StoreOp(value, ptr, alignment)`."""
    props: dict[str, Attribute] = {"ordering": int_attr(0, i64)}
    if alignment is not None:
        props["alignment"] = int_attr(alignment, i64)
    return llvm.StoreOp.create(operands=[value, ptr], properties=props)


__all__ = [
    "CMPI_PREDICATES",
    "NO_FASTMATH",
    "br",
    "call",
    "call_intrinsic",
    "cast",
    "cmpi",
    "cond_br",
    "convert",
    "f32_attr",
    "float_op",
    "gep",
    "i32_array",
    "if_",
    "int_attr",
    "int_constant",
    "llvm_constant",
    "load",
    "position",
    "same_type",
    "store",
    "yield_",
]


NO_BUNDLES = DenseArrayBase.from_list(i32, ())


@cache
def intrinsic_name(name: str) -> StringAttr:
    """`StringAttr(name)`, made once per intrinsic name."""
    return StringAttr(name)


def call_intrinsic(
    name: str, args: Sequence[SSAValue], result_types: Sequence[Attribute] = ()
) -> llvm.CallIntrinsicOp:
    """`llvm.CallIntrinsicOp(name, args, result_types)` (no operand bundles)."""
    props: dict[str, Attribute] = {
        "intrin": intrinsic_name(name),
        "op_bundle_sizes": NO_BUNDLES,
        "operandSegmentSizes": i32_array((len(args), 0)),
        "fastmathFlags": NO_FASTMATH,
    }
    return llvm.CallIntrinsicOp.create(operands=args, result_types=result_types, properties=props)


_CCC = llvm.CallingConventionAttr("ccc")


def call(callee: SymbolRefAttr, args: Sequence[SSAValue], result: Attribute | None) -> llvm.CallOp:
    """`llvm.CallOp(callee, *args, return_type=result)` (the C calling convention, no
    fast-math flags or operand bundles)."""
    props: dict[str, Attribute] = {
        "callee": callee,
        "fastmathFlags": NO_FASTMATH,
        "CConv": _CCC,
        "op_bundle_sizes": NO_BUNDLES,
        "operandSegmentSizes": i32_array((len(args), 0)),
    }
    types = [] if result is None else [result]
    return llvm.CallOp.create(operands=args, result_types=types, properties=props)


def insert_element(vector: SSAValue, value: SSAValue, index: SSAValue) -> llvm.InsertElementOp:
    """`llvm.InsertElementOp(vector, value, index)`."""
    return llvm.InsertElementOp.create(operands=[vector, value, index], result_types=[vector.type])


def extract_value(
    position: DenseArrayBase, container: SSAValue, t: Attribute
) -> llvm.ExtractValueOp:
    """`llvm.ExtractValueOp(position, container, t)`."""
    props: dict[str, Attribute] = {"position": position}
    return llvm.ExtractValueOp.create(operands=[container], result_types=[t], properties=props)


def insert_value(
    position: DenseArrayBase, container: SSAValue, value: SSAValue
) -> llvm.InsertValueOp:
    """`llvm.InsertValueOp(position, container, value)`."""
    props: dict[str, Attribute] = {"position": position}
    return llvm.InsertValueOp.create(
        operands=[container, value], result_types=[container.type], properties=props
    )


def cast(values: Sequence[SSAValue], types: Sequence[Attribute]) -> UnrealizedConversionCastOp:
    """`UnrealizedConversionCastOp.get(values, types)`."""
    return UnrealizedConversionCastOp.create(operands=values, result_types=types)
