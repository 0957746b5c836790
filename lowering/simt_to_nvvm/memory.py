"""Global slices: bounds-checked loads, lengths, and `get_mut` as a guarded read-modify-write.

- `simt.load %a[%i]` traps unless `%i < len(%a)` (unsigned, so a negative index is out of range
  too), then loads. A shared slice is read-only for the whole launch (no disjoint or atomic slice
  may alias it), so its loads are `!invariant.load`: with the kernel's `noalias readonly`
  parameter, NVPTX reads them through the non-coherent cache (`ld.global.nc`), also from device
  functions that are inlined.
- `simt.len %a` is the slice's length parameter.
- `simt.get_mut %out[%w]` becomes `scf.if (valid && raw < len)` around: the element's address,
  the load of its current value (only when the region reads it), the region's body, and the
  store of the value it yields. No other path reaches the address.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import Block, Region
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.dialects.simt import GetMutOp, LenOp, LoadOp, YieldOp
from ferrox.dialects.simt.types import SliceType
from ferrox.lowering.build import cmpi, if_, yield_
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter, is_constant
from ferrox.lowering.simt_to_nvvm.types import memory_type


class LoadToChecked(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LoadOp, rewriter: PatternRewriter, /) -> None:
        element = op.result.type
        e = SimtEmitter.before(rewriter, op)
        address = e.checked_element(op.slice, op.index, element)
        value = e.load(address, element, invariant=isinstance(op.slice.type, SliceType))
        rewriter.replace(op, [], [value])


class LenToParam(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LenOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        _, length = e.unpack(op.slice)
        rewriter.replace(op, [], [e.to_index(length)])


class GetMutToGuardedStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GetMutOp, rewriter: PatternRewriter, /) -> None:
        element = op.slice.type.get_element_type()  # type: ignore[attr-defined]
        e = SimtEmitter.before(rewriter, op)
        ptr, length = e.unpack(op.slice)
        raw, valid = e.unpack(op.witness)
        always_valid = is_constant(valid, 1)
        in_bounds = e(cmpi(raw, length, "ult"), "in_bounds" if always_valid else None)
        if not always_valid:
            in_bounds = e(arith.AndIOp(valid, in_bounds), "in_bounds")

        then = Block()
        inner = e.at(InsertPoint.at_end(then))
        address = inner.element(ptr, [raw], memory_type(element), inbounds=True)
        body = op.body.block
        old = body.args[0]
        if old.uses:
            current = inner.load(address, element)
            current.name_hint = old.name_hint
        else:
            rewriter.erase_block_argument(old)
            current = None
        yielded = body.last_op
        assert isinstance(yielded, YieldOp)
        rewriter.inline_block(
            body, InsertPoint.at_end(then), [current] if current is not None else []
        )
        tail = e.at(InsertPoint.before(yielded))
        tail.store(yielded.values[0], address)
        tail.emit(yield_())
        rewriter.erase(yielded)
        e.emit(if_(in_bounds, [], Region(then)))
        rewriter.erase(op)


MEMORY_PATTERNS: tuple[RewritePattern, ...] = (
    LoadToChecked(),
    LenToParam(),
    GetMutToGuardedStore(),
)
