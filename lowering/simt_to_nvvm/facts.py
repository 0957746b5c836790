"""The launch contract's `requires` relations, told to LLVM as `llvm.assume` at the kernel's start.

A safe launch runs only after the checker has found every relation true on the real arguments
(`driver/checker/requires.py`), so inside the kernel they are facts. Stated as assumptions, they
let LLVM's constraint solver drop the bounds checks they make dead: in vecadd, `i < len(out)`
(the `get_mut` guard) and `len(a) >= len(out)` give `i < len(a)`, and the load's trap branch
goes. A launch that skips the checker (`unsafe_launch`) and breaks a relation is undefined
behaviour, as it already was for the rest of the contract.

Each relation is stated only when the comparison LLVM sees is exactly the one the checker made
on Python integers:
- `len(argN)` is the slice's i64 length, a count in `[0, 2^63)`;
- `argN` only for an `index` parameter, whose value the checker takes in the i64 range (a
  signless `iN` parameter accepts either signedness's values, so its bits have no one meaning:
  relations that read one are skipped);
- `+`, `-`, `*` are computed in i64 when the operands' sizes prove they cannot wrap, in i128
  when that is enough, and a relation that could wrap even there is skipped.
Comparisons are unsigned when both sides are provably non-negative (the form LLVM's bounds
checks take), signed otherwise; an `index` parameter counts as non-negative where a relation
equates it to, or bounds it below by, something non-negative (`len(out) == n`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, i64
from xdsl.ir import Attribute, Block, SSAValue

from ferrox.dialects.simt.contract import SizeExprAttr, SizeRelationAttr
from ferrox.lowering.build import call_intrinsic, cmpi, convert
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter
from ferrox.lowering.simt_to_nvvm.types import expanded

ASSUME = "llvm.assume"
i128 = IntegerType(128)

_SIGNED = {">=": "sge", "<=": "sle", ">": "sgt", "<": "slt", "==": "eq"}
_UNSIGNED = {">=": "uge", "<=": "ule", ">": "ugt", "<": "ult", "==": "eq"}


@dataclass(frozen=True)
class _Bound:
    """What is known of an expression's exact value: it fits in `bits` bits plus a sign, and
    whether it is non-negative."""

    bits: int
    nonneg: bool


def _bound(
    e: SizeExprAttr, params: Sequence[Attribute], nonneg: frozenset[int] = frozenset()
) -> _Bound | None:
    kind = e.kind.data
    if kind == "const":
        v = e.value.data
        return _Bound(abs(v).bit_length(), v >= 0)
    if kind == "len":
        return _Bound(63, True)
    if kind == "arg":
        i = e.value.data
        ok = i < len(params) and isinstance(params[i], IndexType)
        return _Bound(63, i in nonneg) if ok else None
    a, b = _bound(e.lhs, params, nonneg), _bound(e.rhs, params, nonneg)
    if a is None or b is None:
        return None
    if kind == "*":
        return _Bound(a.bits + b.bits, a.nonneg and b.nonneg)
    return _Bound(max(a.bits, b.bits) + 1, kind == "+" and a.nonneg and b.nonneg)


def _nonneg_args(
    relations: Sequence[SizeRelationAttr], params: Sequence[Attribute]
) -> frozenset[int]:
    """The `index` parameters some relation proves non-negative: `argN == e`, `argN >= e` or
    `argN > e` (either way round) with `e` non-negative."""
    found: set[int] = set()
    flipped = {"<=": ">=", "<": ">", ">=": "<=", ">": "<", "==": "=="}
    for r in relations:
        rel = r.relation.data
        for big, small, how in ((r.lhs, r.rhs, rel), (r.rhs, r.lhs, flipped[rel])):
            if big.kind.data != "arg" or how not in ("==", ">=", ">"):
                continue
            bound = _bound(small, params)
            if bound is not None and bound.nonneg:
                found.add(big.value.data)
    return frozenset(found)


def _width(*bounds: _Bound) -> IntegerType | None:
    bits = max(b.bits for b in bounds)
    return i64 if bits <= 63 else i128 if bits <= 127 else None


def _value(e: SimtEmitter, x: SizeExprAttr, t: IntegerType, values) -> SSAValue:
    kind = x.kind.data
    if kind == "const":
        return e(arith.ConstantOp(IntegerAttr(x.value.data, t)))
    if kind in ("len", "arg"):
        v = e.to_i64(values[(kind, x.value.data)])
        return v if t == i64 else e(convert(arith.ExtSIOp, v, t))
    a, b = _value(e, x.lhs, t, values), _value(e, x.rhs, t, values)
    op = {"+": arith.AddiOp, "-": arith.SubiOp, "*": arith.MuliOp}[kind]
    return e(op(a, b))


def assume_requires(
    e: SimtEmitter,
    block: Block,
    inputs: Sequence[Attribute],
    relations: Sequence[SizeRelationAttr],
) -> int:
    """Emit `llvm.assume` for each relation that can be stated exactly (module docstring) at the
    start of the kernel's entry `block`, whose arguments are the ABI parts of the SIMT parameters
    `inputs`, through `e` (inserting at the block's start). Returns how many were stated."""
    values: dict[tuple[str, int], SSAValue] = {}
    arg = 0
    for i, t in enumerate(inputs):
        parts = expanded(t)
        if len(parts) == 2 and parts[1] == i64:  # a slice: pointer, length
            values[("len", i)] = block.args[arg + 1]
        elif len(parts) == 1:
            values[("arg", i)] = block.args[arg]
        arg += len(parts)
    nonneg = _nonneg_args(relations, inputs)
    stated = 0
    for relation in relations:
        refs = relation.arg_refs()
        if any(ref not in values for ref in refs):
            continue
        lhs, rhs = _bound(relation.lhs, inputs, nonneg), _bound(relation.rhs, inputs, nonneg)
        if lhs is None or rhs is None:
            continue
        width = _width(lhs, rhs)
        if width is None:
            continue
        rel = relation.relation.data
        pred = (_UNSIGNED if lhs.nonneg and rhs.nonneg else _SIGNED)[rel]
        a = _value(e, relation.lhs, width, values)
        b = _value(e, relation.rhs, width, values)
        cond = e(cmpi(a, b, pred), "requires")
        e.emit(call_intrinsic(ASSUME, [cond]))
        stated += 1
    return stated


__all__ = ["ASSUME", "assume_requires"]
