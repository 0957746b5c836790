"""`convert-simt-to-nvvm`: SIMT kernels to `func`, `nvvm` and llvm pointer operations.

One walk applies every op family's patterns (one module each, mirroring `dialects/simt/`), then
`casts.finish` removes the casts that carried SIMT values between them. What remains uses only
func, arith, scf, nvvm and llvm ops, which `convert-to-llvm` takes down to the llvm dialect.
Every op that cannot be lowered is reported, located, and the pass fails once.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern

from ferrox.lowering.conversion import ConversionState, Guarded, rewrite_module
from ferrox.lowering.simt_to_nvvm.atomic import ATOMIC_PATTERNS
from ferrox.lowering.simt_to_nvvm.casts import finish
from ferrox.lowering.simt_to_nvvm.constants import pools
from ferrox.lowering.simt_to_nvvm.ids import IDS_PATTERNS
from ferrox.lowering.simt_to_nvvm.index import INDEX_PATTERNS
from ferrox.lowering.simt_to_nvvm.kernel import KERNEL_PATTERNS
from ferrox.lowering.simt_to_nvvm.memory import MEMORY_PATTERNS
from ferrox.lowering.simt_to_nvvm.pack import PACK_PATTERNS
from ferrox.lowering.simt_to_nvvm.pipeline import PIPELINE_PATTERNS
from ferrox.lowering.simt_to_nvvm.shared import SHARED_PATTERNS
from ferrox.lowering.simt_to_nvvm.specialize import lower_specialize
from ferrox.lowering.simt_to_nvvm.sync import SYNC_PATTERNS
from ferrox.lowering.simt_to_nvvm.tile_support import TILE_SUPPORT_PATTERNS
from ferrox.lowering.simt_to_nvvm.tma import TMA_PATTERNS
from ferrox.lowering.simt_to_nvvm.unsafe import UNSAFE_PATTERNS
from ferrox.lowering.simt_to_nvvm.warp import WARP_PATTERNS
from ferrox.lowering.simt_to_nvvm.wgmma import WGMMA_PATTERNS
from ferrox.passes.verify_disjoint import verify_disjoint

SIMT_TO_NVVM_PATTERNS: tuple[RewritePattern, ...] = (
    *KERNEL_PATTERNS,
    *INDEX_PATTERNS,
    *IDS_PATTERNS,
    *MEMORY_PATTERNS,
    *SHARED_PATTERNS,
    *PIPELINE_PATTERNS,
    *SYNC_PATTERNS,
    *WARP_PATTERNS,
    *ATOMIC_PATTERNS,
    *UNSAFE_PATTERNS,
    *TILE_SUPPORT_PATTERNS,
    *WGMMA_PATTERNS,
    *TMA_PATTERNS,
    *PACK_PATTERNS,
)


def convert_simt_to_nvvm(module: ModuleOp) -> None:
    """Lower every SIMT op in `module` in place; raises one `DiagnosticError` listing each op that
    cannot be lowered."""
    state = ConversionState("nvvm")
    lower_specialize(module)  # while each op still sees its partition (specialize.py)
    patterns: list[RewritePattern] = [Guarded(p, state) for p in SIMT_TO_NVVM_PATTERNS]
    with pools():  # each integer constant once a function (constants.py)
        rewrite_module(patterns, module)
    state.diagnostics.raise_if_errors()
    finish(module, state)
    state.diagnostics.raise_if_errors()


@dataclass(frozen=True)
class ConvertSimtToNvvmPass(ModulePass):
    """Lower SIMT kernels and device functions to func + nvvm + llvm pointer ops."""

    name = "convert-simt-to-nvvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # The lowering assumes the safety rules hold (a disjoint slice is never read, ...): check
        # them here too, so no composition of passes lowers an unverified kernel.
        verify_disjoint(op)
        convert_simt_to_nvvm(op)
