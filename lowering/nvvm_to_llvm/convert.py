"""`convert-nvvm-to-llvm`: every nvvm op to xDSL llvm ops, mostly `llvm.call_intrinsic`.

`NVVM_TO_LLVM_PATTERNS` is also what `convert-to-llvm` applies alongside the other dialects.
"""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriteWalker, RewritePattern

from ferrox.lowering.conversion import ConversionState, Guarded, dispatch
from ferrox.lowering.nvvm_to_llvm.atomics import AtomicCASToPtx, AtomicRMWToPtx
from ferrox.lowering.nvvm_to_llvm.barriers import (
    Barrier0ToIntrinsic,
    BarrierToIntrinsic,
    SyncWarpToIntrinsic,
)
from ferrox.lowering.nvvm_to_llvm.fences import MembarToIntrinsic, ScopedFenceToPtx
from ferrox.lowering.nvvm_to_llvm.matrix import (
    CP_ASYNC_PATTERNS,
    LdMatrixToIntrinsic,
    MmaSyncToIntrinsic,
)
from ferrox.lowering.nvvm_to_llvm.special_registers import SpecialRegisterToIntrinsic
from ferrox.lowering.nvvm_to_llvm.warp import ReduxToIntrinsic, ShflToIntrinsic, VoteToIntrinsic

NVVM_TO_LLVM_PATTERNS: list[RewritePattern] = [
    SpecialRegisterToIntrinsic(),
    Barrier0ToIntrinsic(),
    BarrierToIntrinsic(),
    SyncWarpToIntrinsic(),
    ShflToIntrinsic(),
    VoteToIntrinsic(),
    ReduxToIntrinsic(),
    MembarToIntrinsic(),
    ScopedFenceToPtx(),
    AtomicRMWToPtx(),
    AtomicCASToPtx(),
    MmaSyncToIntrinsic(),
    LdMatrixToIntrinsic(),
    *CP_ASYNC_PATTERNS,
]


@dataclass(frozen=True)
class ConvertNvvmToLLVMPass(ModulePass):
    """Lower nvvm ops alone; their operands are already LLVM-compatible types.

    A conversion, not a cleanup: unused ops are converted, not deleted.
    """

    name = "convert-nvvm-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        state = ConversionState("llvm")
        patterns: list[RewritePattern] = [Guarded(p, state) for p in NVVM_TO_LLVM_PATTERNS]
        PatternRewriteWalker(dispatch(patterns), apply_recursively=False).rewrite_module(op)
        state.diagnostics.raise_if_errors()
