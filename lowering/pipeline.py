"""`lower-to-llvm`: the whole SIMT-to-llvm chain, and `compile_module_to_ptx` on top of it.

The stages, each also a pass of its own (`STAGES`, in order):

1. `verify-disjoint`: the SIMT safety rules; nothing unsafe is lowered.
2. `extract-device-code`: the module keeps only what runs on the GPU. A top-level `func.func`
   that is not a kernel is host code (a program's `@main`, in the host dialect); it is dropped,
   since no kernel can call it (`simt.call` names only `simt.func`). Tile kernels, when present,
   first become SIMT kernels through `convert-tile-to-simt`.
3. `convert-simt-to-nvvm`: kernels and device functions to func + nvvm + llvm pointer ops, with
   the kernel ABI and signature (`ferrox.abi`).
4. `canonicalize` and `cse`: xDSL's, to fold the constants and repeated address arithmetic the
   conversion leaves (LLVM would, too, but the IR in between stays readable). Neither moves
   barriers or warp collectives: they have effects, so only pure ops are merged or removed.
5. `convert-to-llvm`: func, arith, scf, cf and nvvm to the llvm dialect.

`ferrox.targets.compile` runs the chain on a copy of a module, exports it and compiles it to PTX.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

from ferrox.lowering.simt_to_nvvm import convert_simt_to_nvvm
from ferrox.lowering.simt_to_nvvm.support import KERNEL_ATTR
from ferrox.passes.verify_disjoint import verify_disjoint

TILE_TO_SIMT = "convert-tile-to-simt"


def _context(ctx: Context | None) -> Context:
    if ctx is not None:
        return ctx
    from ferrox.registry import make_context

    return make_context()


def extract_device_code(module: ModuleOp, ctx: Context | None = None) -> None:
    """Drop host code (top-level `func.func`s that are not kernels); lower tile kernels to SIMT."""
    for op in list(module.ops):
        if isinstance(op, func.FuncOp) and KERNEL_ATTR not in op.attributes:
            Rewriter.erase_op(op, safe_erase=False)
    if any(op.dialect_name() == "tile" for op in module.ops):
        from ferrox.lowering.tile_to_simt import ConvertTileToSimtPass

        ConvertTileToSimtPass().apply(_context(ctx), module)


@dataclass(frozen=True)
class ExtractDeviceCodePass(ModulePass):
    """Keep only device code: drop host `func.func`s, lower tile kernels to SIMT."""

    name = "extract-device-code"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        extract_device_code(op, ctx)


def _canonicalize(module: ModuleOp, ctx: Context | None) -> None:
    CanonicalizePass().apply(_context(ctx), module)
    CommonSubexpressionElimination().apply(_context(ctx), module)


def _convert_to_llvm(module: ModuleOp, ctx: Context | None) -> None:
    from ferrox.lowering.to_llvm import convert_to_llvm

    convert_to_llvm(module)


Stage = Callable[[ModuleOp, "Context | None"], None]

STAGES: tuple[tuple[str, Stage], ...] = (
    ("verify-disjoint", lambda m, ctx: verify_disjoint(m)),
    ("extract-device-code", extract_device_code),
    ("convert-simt-to-nvvm", lambda m, ctx: convert_simt_to_nvvm(m)),
    ("canonicalize,cse", _canonicalize),
    ("convert-to-llvm", _convert_to_llvm),
)
"""The pipeline, stage by stage, as `docs/lowering.py` shows it."""


def lower_to_llvm(module: ModuleOp, ctx: Context | None = None) -> None:
    """Lower `module` in place to the llvm dialect; raises `DiagnosticError` on the first stage
    that fails (each stage reports all of its errors)."""
    for _, stage in STAGES:
        stage(module, ctx)


@dataclass(frozen=True)
class LowerToLLVMPass(ModulePass):
    """verify-disjoint, extract-device-code, convert-simt-to-nvvm, canonicalize, cse, convert-to-llvm."""

    name = "lower-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_to_llvm(op, ctx)


__all__ = [
    "STAGES",
    "ExtractDeviceCodePass",
    "LowerToLLVMPass",
    "extract_device_code",
    "lower_to_llvm",
]
