"""`simt.unsafe` regions and raw pointers.

An unsafe region changes no semantics (it runs once, in place), so its body is inlined where the
op stood and its results become the values it yields. `simt.ptr_load`/`simt.ptr_store` are plain
unchecked global loads and stores through a GEP: the author vouched for them.
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.dialects.simt import PtrLoadOp, PtrStoreOp, UnsafeOp, YieldOp
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter
from ferrox.lowering.simt_to_nvvm.types import memory_type


class InlineUnsafe(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UnsafeOp, rewriter: PatternRewriter, /) -> None:
        block = op.body.block
        yielded = block.last_op
        assert isinstance(yielded, YieldOp)
        values = list(yielded.values)
        rewriter.erase(yielded)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.replace(op, [], values)


class PtrLoadToLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PtrLoadOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        (ptr,) = e.unpack(op.ptr)
        address = e.element(ptr, [e.to_i64(op.index)], memory_type(op.result.type))
        rewriter.replace(op, [], [e.load(address, op.result.type)])


class PtrStoreToStore(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PtrStoreOp, rewriter: PatternRewriter, /) -> None:
        element = memory_type(op.value.type)
        e = SimtEmitter.before(rewriter, op)
        (ptr,) = e.unpack(op.ptr)
        e.store(op.value, e.element(ptr, [e.to_i64(op.index)], element))
        rewriter.erase(op)


UNSAFE_PATTERNS: tuple[RewritePattern, ...] = (InlineUnsafe(), PtrLoadToLoad(), PtrStoreToStore())
