"""Warp shuffles and votes to `nvvm.shfl.sync` and `nvvm.vote.sync` over the full warp.

The member mask is 0xffffffff (all 32 lanes, as the SIMT ops are defined). For `shfl.sync` the
`mask_and_clamp` operand packs the segment mask (0: one 32-lane segment) and the clamp lane: 31
for `idx`, `down` and `bfly`, 0 for `up`, so a source lane outside the warp leaves a lane its own
value, as in CUDA. `xor` is PTX's `bfly`. Both nvvm ops are convergent.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects import nvvm
from ferrox.dialects.simt import BallotOp, ShuffleMode, ShuffleOp, VoteAllOp, VoteAnyOp
from ferrox.lowering.conversion import morph
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter

FULL_MASK = -1
SHUFFLE_KIND = {
    ShuffleMode.IDX: nvvm.ShflKind.IDX,
    ShuffleMode.UP: nvvm.ShflKind.UP,
    ShuffleMode.DOWN: nvvm.ShflKind.DOWN,
    ShuffleMode.XOR: nvvm.ShflKind.BFLY,
}
VOTE_KIND: dict[type[Operation], nvvm.VoteSyncKind] = {
    VoteAllOp: nvvm.VoteSyncKind.ALL,
    VoteAnyOp: nvvm.VoteSyncKind.ANY,
    BallotOp: nvvm.VoteSyncKind.BALLOT,
}


_KIND_ATTR = {mode: nvvm.ShflKindAttr(kind) for mode, kind in SHUFFLE_KIND.items()}


def clamp(mode: ShuffleMode) -> int:
    return 0 if mode == ShuffleMode.UP else 31


class ShuffleToShfl(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ShuffleOp, rewriter: PatternRewriter, /) -> None:
        mode = op.mode.data
        e = SimtEmitter.before(rewriter, op)
        mask = e.const(FULL_MASK, i32)
        clamp_value = e.const(clamp(mode), i32)
        # `nvvm.ShflOp(kind, mask, value, offset, clamp)`, the shuffle made one in place (the
        # generic builder was most of a shuffle's lowering; a tile reduction has dozens)
        operands = [mask, op.value, op.offset, clamp_value]
        morph(rewriter, op, nvvm.ShflOp, operands, [op.value.type], {"kind": _KIND_ATTR[mode]})


class VoteToVoteSync(RewritePattern):
    OP_TYPES = tuple(VOTE_KIND)  # what it can match (`conversion.op_types`)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        kind = VOTE_KIND.get(type(op))
        if kind is None:
            return
        e = SimtEmitter.before(rewriter, op)
        vote = nvvm.VoteSyncOp(kind, e.const(FULL_MASK, i32), op.predicate)  # type: ignore[attr-defined]
        rewriter.replace(op, [], [e(vote)])


WARP_PATTERNS: tuple[RewritePattern, ...] = (ShuffleToShfl(), VoteToVoteSync())
