"""xDSL's converters of its own llvm ops, chosen once per op class instead of once per op.

`xdsl.backend.llvm.convert_op` picks an op's converter with a `match` of about thirty class
patterns tried in turn, and each class pattern on an IRDL op is an `isinstance` through an ABC:
an `llvm.mlir.constant`, the last case, paid for every one of them, and binary ops and casts
paid again inside their converters for their flag families (`_convert_binop`, `_convert_cast`).
On a tile kernel that was a fifth of the export's time (softmax: 7,500 ABC checks an export).

`converter(cls)` is the converter that `match` picks for every op of class `cls` (the cases
test the class only, but for the branches' `block_map`, which the exporter always passes), made
from the same tests in the same order with `issubclass` (`ops._route` keeps it per class).
The LLVM IR is the same text: the converters that build it are xDSL's, or, for binary ops and
casts, the same instruction with the same flags. A class outside the table goes to xDSL's
`convert_op` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from llvmlite import ir
from llvmlite.ir.values import Block as LLVMBlock
from xdsl.backend.llvm import convert_op as x  # pyright: ignore[reportPrivateUsage]
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.ir import Block, Operation, SSAValue

Converter = Callable[[Any, ir.IRBuilder, dict[SSAValue, ir.Value], dict[Block, LLVMBlock]], None]
"""(op, builder, values, blocks): emits the op and records its results in values."""


def ignoring_blocks(
    convert: Callable[[Any, ir.IRBuilder, dict[SSAValue, ir.Value]], None],
) -> Converter:
    """`convert(op, builder, values)` as a `Converter` (the block map unused)."""
    return lambda op, b, vals, blocks: convert(op, b, vals)


def converter(cls: type[Operation]) -> Converter:
    """`convert_op`'s choice for an op of class `cls`. Its first case and its fourth test
    membership of the class (the second and third, icmp and fcmp, take no class of theirs); the
    others are taken by the exact classes of `_BY_CLASS`, which no earlier case can take. A
    subclass, or a class of a case not listed, is left to `convert_op`."""
    if cls in x._BINARY_OP_MAP:  # pyright: ignore[reportPrivateUsage]
        return _binop(cls)
    if cls in x._CAST_OP_NAMES:  # pyright: ignore[reportPrivateUsage]
        return _cast(cls)
    return _BY_CLASS.get(cls, x.convert_op)


def _binop(cls: type[Operation]) -> Converter:
    """`_convert_binop` with its flag family (the `match` inside it) chosen for the class."""
    build = x._BINARY_OP_MAP[cls]  # pyright: ignore[reportPrivateUsage]
    flags: Callable[[Any], list[str]]
    if issubclass(cls, llvm.ArithmeticBinOpOverflow):

        def flags(op: Any) -> list[str]:
            if not op.overflowFlags:
                return []
            return [f.value for f in llvm.OverflowAttr.from_int(op.overflowFlags.value.data).data]

    elif issubclass(cls, llvm.AbstractFloatArithOp):

        def flags(op: Any) -> list[str]:
            return [f.value for f in op.fastmathFlags.data] if op.fastmathFlags else []

    elif issubclass(cls, llvm.ArithmeticBinOpExact):

        def flags(op: Any) -> list[str]:
            return ["exact"] if op.is_exact else []

    elif issubclass(cls, llvm.ArithmeticBinOpDisjoint):

        def flags(op: Any) -> list[str]:
            return ["disjoint"] if op.is_disjoint else []

    else:
        return lambda op, b, vals, blocks: vals.__setitem__(
            op.results[0], build(b)(vals[op.operands[0]], vals[op.operands[1]])
        )

    def convert(op: Any, b: ir.IRBuilder, vals: dict[SSAValue, ir.Value], blocks: Any) -> None:
        lhs, rhs = vals[op.operands[0]], vals[op.operands[1]]
        named = flags(op)
        kwargs: dict[str, Any] = {"flags": named} if named else {}
        vals[op.results[0]] = build(b)(lhs, rhs, **kwargs)

    return convert


def _cast(cls: type[Operation]) -> Converter:
    """`_convert_cast` with its flag family chosen for the class."""
    name = x._CAST_OP_NAMES[cls]  # pyright: ignore[reportPrivateUsage]
    overflow = issubclass(cls, llvm.IntegerConversionOpOverflow)
    nneg = issubclass(cls, llvm.IntegerConversionOpNNeg)

    def convert(op: Any, b: ir.IRBuilder, vals: dict[SSAValue, ir.Value], blocks: Any) -> None:
        if overflow and op.overflowFlags:
            flags = [f.value for f in op.overflowFlags.data]
        elif nneg and op.non_neg:
            flags = ["nneg"]
        else:
            flags = []
        instr = x.CastInstrWithFlags(
            b.block, name, vals[op.operands[0]], convert_type(op.results[0].type), flags=flags
        )
        b._insert(instr)  # pyright: ignore[reportPrivateUsage]
        vals[op.results[0]] = instr

    return convert


def _extract_value(op: Any, b: ir.IRBuilder, vals: dict[SSAValue, ir.Value], blocks: Any) -> None:
    vals[op.results[0]] = b.extract_value(vals[op.container], list(op.position.iter_values()))


def _insert_value(op: Any, b: ir.IRBuilder, vals: dict[SSAValue, ir.Value], blocks: Any) -> None:
    vals[op.results[0]] = b.insert_value(
        vals[op.container], vals[op.value], list(op.position.iter_values())
    )


def _constant(op: Any, b: ir.IRBuilder, vals: dict[SSAValue, ir.Value], blocks: Any) -> None:
    vals[op.result] = x.create_constant(op.result.type, op.value)


_BY_CLASS: dict[type[Operation], Converter] = {
    llvm.ICmpOp: ignoring_blocks(x._convert_icmp),  # pyright: ignore[reportPrivateUsage]
    llvm.FCmpOp: ignoring_blocks(x._convert_fcmp),  # pyright: ignore[reportPrivateUsage]
    llvm.FNegOp: ignoring_blocks(x._convert_fneg),  # pyright: ignore[reportPrivateUsage]
    llvm.ExtractValueOp: _extract_value,
    llvm.InsertValueOp: _insert_value,
    llvm.BrOp: x._convert_br,  # pyright: ignore[reportPrivateUsage]
    llvm.CondBrOp: x._convert_condbr,  # pyright: ignore[reportPrivateUsage]
    llvm.SelectOp: ignoring_blocks(x._convert_select),  # pyright: ignore[reportPrivateUsage]
    llvm.ReturnOp: ignoring_blocks(x._convert_return),  # pyright: ignore[reportPrivateUsage]
    llvm.ConstantOp: _constant,
}
"""The cases of `convert_op` after its first two that ferrox's kernels reach, by exact class."""

__all__ = ["Converter", "converter", "ignoring_blocks"]
