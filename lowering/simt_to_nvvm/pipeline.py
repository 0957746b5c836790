"""The GEMM pipeline's SIMT ops (`dialects/simt/pipeline.py`) to nvvm and llvm ops:
- `simt.async_copy`: trap unless `i + min(n, w) <= len` (as `simt.load_chunk`), then, where at
  least one element is read and the source address is 16-byte aligned, one
  `nvvm.cp.async.shared.global` of `min(n, w) * size` bytes (the hardware zero-fills the rest);
  else guarded scalar loads, zeros past `n`, and plain shared stores (a synchronous copy, which
  the later wait and barrier order just as well).
- `simt.unchecked_async_copy` (unsafe): one `cp.async` of 16 bytes, nothing else.
- `simt.async_commit` / `simt.async_wait`: `nvvm.cp.async.commit.group` / `.wait.group N`.
- `simt.shared_load_vector`: one `llvm.load` of a vector aligned to its size.
- `simt.ldmatrix`: `nvvm.ldmatrix` x4 (`.trans` with `trans`) at the element's shared address.
"""

from __future__ import annotations

from xdsl.dialects import arith, llvm, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from ferrox.dialects import nvvm
from ferrox.dialects.llvm import ExtractElementOp
from ferrox.dialects.nvvm.attributes import MMALayout
from ferrox.dialects.simt.pipeline import (
    AsyncCommitOp,
    AsyncCopyOp,
    AsyncWaitOp,
    LdMatrixOp,
    SharedLoadVectorOp,
    UncheckedAsyncCopyOp,
)
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.lowering import knobs
from ferrox.lowering.build import extract_value, position
from ferrox.lowering.nvvm_to_llvm.support import ptx_asm as _asm
from ferrox.lowering.simt_to_nvvm.shared import shared_element
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter
from ferrox.lowering.simt_to_nvvm.types import byte_size, memory_type


def _if(e: SimtEmitter, cond: SSAValue, types, then_fill, else_fill=None):
    """`scf.if` with regions filled by `then_fill(emitter)` / `else_fill` (each returns what its
    region yields); the op's results."""

    def region(fill) -> Region:
        block = Block()
        inner = e.at(InsertPoint.at_end(block))
        inner.emit(scf.YieldOp(*fill(inner)))
        return Region(block)

    other = region(else_fill) if else_fill is not None else None
    return e.emit(scf.IfOp(cond, list(types), region(then_fill), other)).results


class AsyncCopyToCpAsync(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AsyncCopyOp, rewriter: PatternRewriter, /) -> None:
        array_t = op.array.type
        assert isinstance(array_t, SharedArrayType)
        element = array_t.get_element_type()
        mem = memory_type(element)
        size = byte_size(element)
        w = op.width.value.data
        e = SimtEmitter.before(rewriter, op)
        ptr, length = e.unpack(op.source)
        i = e.to_i64(op.index)
        count = e.to_i64(op.count)
        n = e(arith.SelectOp(e(arith.CmpiOp(count, e.const(w), "ult")), count, e.const(w)))
        fits = e(
            arith.AndIOp(
                e(arith.CmpiOp(i, length, "ule")),
                e(arith.CmpiOp(n, e(arith.SubiOp(length, i)), "ule")),
            )
        )
        reads = e(arith.CmpiOp(n, e.const(0), "ne"))
        bad = e(arith.AndIOp(reads, e(arith.XOrIOp(fits, e.true()))), "out_of_range")
        src = e.element(ptr, [i], mem)
        dst = shared_element(e, op.array, [op.offset])
        bits = e(llvm.PtrToIntOp(src, i64))
        aligned = e(arith.CmpiOp(e(arith.AndIOp(bits, e.const(15))), e.const(0), "eq"))
        fast = e(arith.AndIOp(reads, aligned), "async")
        slow = e(arith.XOrIOp(fast, e.true()))
        # Branch-free: every path is a predicated instruction, so a wgmma pipeline around the
        # copy stays one straight line (ptxas serialises wgmma ops across divergent paths). The
        # trap is taken by every active lane of the warp when any is out of range (a trap ends
        # the launch either way): a warp-uniform exit, which ptxas does not count as divergent.
        to = e(llvm.PtrToIntOp(dst, i64))
        nbytes = e(arith.TruncIOp(e(arith.MuliOp(n, e.const(size))), i32))
        e.emit(
            _asm(
                "{ .reg .pred q; .reg .b32 m; activemask.b32 m; "
                "vote.sync.any.pred q, $0, m; @q trap; }",
                "b",
                [bad],
            )
        )
        e.emit(
            _asm(
                f"@$0 cp.async.cg.shared.global [$1], [$2], {w * size}, $3;",
                "b,l,l,r",
                [fast, to, bits, nbytes],
            )
        )
        kind, reg = {1: ("u8", "h"), 2: ("b16", "h"), 4: ("b32", "r"), 8: ("b64", "l")}[size]
        width = {"h": "b16", "r": "b32", "l": "b64"}[reg]
        for j in range(w):
            # The scalar fallback (a misaligned source): element j, zero past the count.
            here = e(arith.AndIOp(slow, e(arith.CmpiOp(e.const(j), n, "ult"))))
            e.emit(
                _asm(
                    f"{{ .reg .{width} v; mov.{width} v, 0; @$0 ld.global.nc.{kind} v, [$2]; "
                    f"@$1 st.shared.{kind} [$3], v; }}",
                    "b,b,l,l",
                    [
                        here,
                        slow,
                        e(arith.AddiOp(bits, e.const(size * j))),
                        e(arith.AddiOp(to, e.const(size * j))),
                    ],
                )
            )
        rewriter.erase(op)


IMMEDIATE_OFFSETS = False
"""Whether a constant part of an unchecked copy's indices becomes the `cp.async`'s immediate
address offsets (the copies of one tile then share two address registers; a knob for timing,
off until the GPU has run it, docs/performance.md, "Fused attention, ninth session")."""


class UncheckedAsyncCopyToCpAsync(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: UncheckedAsyncCopyOp, rewriter: PatternRewriter, /) -> None:
        array_t = op.array.type
        assert isinstance(array_t, SharedArrayType)
        mem = memory_type(array_t.get_element_type())
        e = SimtEmitter.before(rewriter, op)
        ptr, _ = e.unpack(op.source)
        size = byte_size(mem)
        # A constant part of either index is the instruction's immediate offset, so the copies
        # of one tile at constant distances share their two address registers.
        index, src_at = _split(op.index) if IMMEDIATE_OFFSETS else (op.index, 0)
        offset, dst_at = _split(op.offset) if IMMEDIATE_OFFSETS else (op.offset, 0)
        src = e.element(ptr, [e.to_i64(index or e.const(0))], mem)
        dst = shared_element(e, op.array, [offset or e.const(0)])
        nbytes = op.width.value.data * size
        e.emit(
            _asm(
                f"cp.async.cg.shared.global [$0{_plus(dst_at * size)}], "
                f"[$1{_plus(src_at * size)}], {nbytes};",
                "l,l",
                [e(llvm.PtrToIntOp(dst, i64)), e(llvm.PtrToIntOp(src, i64))],
            )
        )
        rewriter.erase(op)


def _plus(n: int) -> str:
    """A PTX address's immediate offset: `+n`, or nothing for 0."""
    return f"+{n}" if n else ""


def _split(index: SSAValue) -> tuple[SSAValue | None, int]:
    """`index` as a value plus a nonnegative constant (None: all constant), through
    `arith.addi`s with a constant operand (`wgmma._split`'s form); a negative constant stays in
    the value."""
    owner = index.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        n = owner.value.value.data
        return (None, n) if n >= 0 else (index, 0)
    if isinstance(owner, arith.AddiOp):
        for x, c in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            known, n = _split(c)
            if known is None:
                rest, m = _split(x)
                return rest, n + m
    return index, 0


def _zero(t: Attribute) -> IntegerAttr | FloatAttr:
    if isinstance(t, IntegerType):
        return IntegerAttr(0, t)
    assert isinstance(t, AnyFloat)
    return FloatAttr(0.0, t)


class AsyncCommitToNvvm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AsyncCommitOp, rewriter: PatternRewriter, /) -> None:
        rewriter.replace(op, nvvm.CpAsyncCommitGroupOp())


class AsyncWaitToNvvm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: AsyncWaitOp, rewriter: PatternRewriter, /) -> None:
        rewriter.replace(op, nvvm.CpAsyncWaitGroupOp(op.pending.value.data))


class SharedLoadVectorToLoad(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SharedLoadVectorOp, rewriter: PatternRewriter, /) -> None:
        array_t = op.array.type
        assert isinstance(array_t, SharedArrayType)
        mem = memory_type(array_t.get_element_type())
        w = op.width.value.data
        e = SimtEmitter.before(rewriter, op)
        address = shared_element(e, op.array, [op.offset])
        load = llvm.LoadOp(address, VectorType(mem, [w]), alignment=w * byte_size(mem))
        vec = e(load)
        parts = [e(ExtractElementOp(vec, e.const(j, i32))) for j in range(w)]
        rewriter.replace(op, [], parts)


class LdMatrixToNvvm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LdMatrixOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        address = shared_element(e, op.array, [op.offset])
        layout = MMALayout.COL if op.trans is not None else MMALayout.ROW
        matrices = e(nvvm.LdMatrixOp(address, 4, layout))
        parts = [e(extract_value(position(k), matrices, i32)) for k in range(4)]
        rewriter.replace(op, [], parts)


PIPELINE_PATTERNS: tuple[RewritePattern, ...] = (
    AsyncCopyToCpAsync(),
    UncheckedAsyncCopyToCpAsync(),
    AsyncCommitToNvvm(),
    AsyncWaitToNvvm(),
    LdMatrixToNvvm(),
    SharedLoadVectorToLoad(),
)


knobs.watch(globals())  # its upper-case settings are benchmark knobs, in the cache key
