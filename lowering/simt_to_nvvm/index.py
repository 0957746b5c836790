"""The trusted witness ops to index arithmetic over the special registers.

A witness lowers to two values: its raw index (i64) and `valid`, whether the thread's coordinates
lie inside its index space. `simt.get_mut` runs its region where `valid && raw < len`, so the
spaces are exactly those of the SIMT dialect:

- `1d`: raw = ctaid.x * ntid.x + tid.x; always valid.
- `2d<S>` and `2d_runtime` (width W): row = ctaid.y * ntid.y + tid.y, col = ctaid.x * ntid.x +
  tid.x, raw = row * W + col; valid when col < W (a thread past the row's end owns nothing, so no
  two threads share an element). Where row * W + col could exceed 64 bits (a runtime width, or a
  static one above 2^21) it is computed exactly in 128 bits and a thread whose index does not fit
  is not valid: a wrapped index would alias another thread's element.
- `warp`: raw = (ctaid.x * ntid.x + tid.x) / 32; valid only on the warp's first thread.

All arithmetic is 64-bit (a grid's thread count exceeds 2^32). Inside a kernel with a launch
contract, ntid is the contract's block, a constant: `.reqntid` makes the driver refuse any other
block, so this is what the hardware register holds.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects import nvvm
from ferrox.dialects.simt import (
    Index2DOp,
    Index2DRuntimeOp,
    ThreadIndex1DOp,
    WarpIndexOp,
    WitnessValueOp,
)
from ferrox.lowering.build import cmpi, convert, same_type
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter, launch_block

i128 = IntegerType(128)
EXACT_STATIC_STRIDE = 1 << 21
"""Row strides up to this need no overflow check: row and col are below 2^42 (32-bit block ids
times at most 1024 threads), so row * S + col < 2^64."""

_TID = {"x": nvvm.ThreadIdXOp, "y": nvvm.ThreadIdYOp}
_NTID = {"x": nvvm.BlockDimXOp, "y": nvvm.BlockDimYOp}
_CTAID = {"x": nvvm.BlockIdXOp, "y": nvvm.BlockIdYOp}


def global_id(e: SimtEmitter, dim: str) -> SSAValue:
    """ctaid * ntid + tid along `dim`, in i64 (ntid a constant under a contract)."""
    block = launch_block(e.matched)
    ntid = (
        e.const(block["xy".index(dim)])
        if block is not None
        else e.register(_NTID[dim], f"ntid_{dim}")
    )
    base = e(same_type(arith.MuliOp, e.register(_CTAID[dim], f"ctaid_{dim}"), ntid))
    return e(same_type(arith.AddiOp, base, e.register(_TID[dim], f"tid_{dim}")), f"gid_{dim}")


def two_d(e: SimtEmitter, width: SSAValue, exact: bool) -> tuple[SSAValue, SSAValue]:
    """(raw, valid) of the 2-D spaces; `exact` when row * width + col cannot wrap."""
    col = global_id(e, "x")
    row = global_id(e, "y")
    valid = e(cmpi(col, width, "ult"), "col_ok")
    if exact:
        raw = e(same_type(arith.AddiOp, e(same_type(arith.MuliOp, row, width)), col), "raw")
        return raw, valid
    wide = e(
        same_type(
            arith.MuliOp,
            e(convert(arith.ExtUIOp, row, i128)),
            e(convert(arith.ExtUIOp, width, i128)),
        )
    )
    low = e(convert(arith.TruncIOp, wide, i64))
    high = e(convert(arith.TruncIOp, e(same_type(arith.ShRUIOp, wide, e.const(64, i128))), i64))
    raw = e(same_type(arith.AddiOp, low, col), "raw")
    fits = e(
        same_type(arith.AndIOp, e(cmpi(high, e.const(0), "eq")), e(cmpi(raw, low, "uge"))),
        "fits",
    )
    return raw, e(same_type(arith.AndIOp, valid, fits), "valid")


class ThreadIndex1DToNvvm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ThreadIndex1DOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        rewriter.replace(op, [], [e.pack([global_id(e, "x"), e.true()], op.result.type)])


class Index2DToNvvm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Index2DOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        raw, valid = two_d(e, e.const(op.stride), exact=op.stride <= EXACT_STATIC_STRIDE)
        rewriter.replace(op, [], [e.pack([raw, valid], op.result.type)])


class Index2DRuntimeToNvvm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: Index2DRuntimeOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        raw, valid = two_d(e, e.to_i64(op.width), exact=False)
        rewriter.replace(op, [], [e.pack([raw, valid], op.result.type)])


class WarpIndexToNvvm(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WarpIndexOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        thread = global_id(e, "x")
        raw = e(same_type(arith.ShRUIOp, thread, e.const(5)), "warp")
        first = e(
            cmpi(e(same_type(arith.AndIOp, thread, e.const(31))), e.const(0), "eq"), "first_lane"
        )
        rewriter.replace(op, [], [e.pack([raw, first], op.result.type)])


class WitnessValueToIndex(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WitnessValueOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        raw, _ = e.unpack(op.witness)
        rewriter.replace(op, [], [e.to_index(raw)])


INDEX_PATTERNS: tuple[RewritePattern, ...] = (
    ThreadIndex1DToNvvm(),
    Index2DToNvvm(),
    Index2DRuntimeToNvvm(),
    WarpIndexToNvvm(),
    WitnessValueToIndex(),
)
