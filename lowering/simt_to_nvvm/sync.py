"""`simt.sync_threads` to `nvvm.barrier` (PTX `bar.sync 0`); `simt.named_barrier` to PTX
`bar.sync I, N` or `bar.arrive I, N` inline assembly, `convergent`, predicated where it has an
`if %p` (a predicate register, no branch).

The nvvm op is `Convergent`, and its intrinsic is declared `convergent` in LLVM IR, so no pass
below SIMT may move it into, out of or across divergent control flow (docs/safety.md#simt-7).
It stays exactly where the kernel put it.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import UnitAttr, i32
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects import nvvm
from ferrox.dialects.simt import NamedBarrierOp, SyncThreadsOp
from ferrox.lowering.nvvm_to_llvm.support import CONVERGENT, ptx_asm
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter


class SyncThreadsToBarrier(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SyncThreadsOp, rewriter: PatternRewriter, /) -> None:
        barrier = nvvm.BarrierOp()
        barrier.location = op.location
        rewriter.replace(op, barrier)


class NamedBarrierToPtx(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: NamedBarrierOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        kind = "arrive" if op.arrive is not None else "sync"
        bar = f"bar.{kind} {op.id.value.data}, {op.threads.value.data};"
        if op.pred is None:
            asm = ptx_asm(bar, "", [])
        else:
            guarded = f"{{ .reg .pred q; setp.ne.b32 q, $0, 0; @q {bar} }}"
            asm = ptx_asm(guarded, "r", [e(arith.ExtUIOp(op.pred, i32))])
        asm.attributes[CONVERGENT] = UnitAttr()
        e.emit(asm)
        rewriter.erase(op)


SYNC_PATTERNS: tuple[RewritePattern, ...] = (SyncThreadsToBarrier(), NamedBarrierToPtx())
