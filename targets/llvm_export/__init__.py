"""Export of the llvm dialect to LLVM IR for NVPTX, on xDSL's `xdsl.backend.llvm`.

`to_llvm_ir(module)` is the text LLVM and llvmlite read; `LLVMIRTarget` is `ferrox-opt -t llvm`.
The module gets the `nvptx64-nvidia-cuda` triple and NVPTX data layout unless it names its own
(`llvm.target_triple`, `llvm.data_layout`). `ferrox-opt -t llvm` exports input that is not GPU
code (`gpu_input.is_gpu_module`) for the host's triple instead, as `xdsl-opt` does. Importing
this package teaches xDSL's `convert_type` builtin `bf16` (LLVM's `bfloat`, see `types`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

import ferrox.dialects.llvm  # noqa: F401  (registers the PTX calling conventions)
from ferrox.targets.llvm_export.functions import KERNEL_ATTR, LAUNCH_BOUNDS, is_kernel
from ferrox.targets.llvm_export.module import NVPTX_DATALAYOUT, NVPTX_TRIPLE, convert_module
from ferrox.targets.llvm_export.ops import CONVERGENT_INTRINSIC_PREFIXES, is_convergent_intrinsic
from ferrox.targets.llvm_export.types import BFloatType, bf16_bits, intrinsic_suffix


def to_llvm_ir(module: ModuleOp, default_triple: str = NVPTX_TRIPLE) -> str:
    """LLVM IR text for an llvm-dialect module; a `DiagnosticError` at each op it cannot export.
    `default_triple` is for a module that names none (see `convert_module`)."""
    return str(convert_module(module, default_triple))


def host_triple() -> str:
    """The host's target triple, which xDSL's exporter (and so `xdsl-opt -t llvm`) defaults to."""
    from llvmlite import binding

    return binding.get_default_triple()


@dataclass(frozen=True)
class LLVMIRTarget(Target):
    """`ferrox-opt -t llvm`: print the module as LLVM IR."""

    name = "llvm"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(to_llvm_ir(module))


__all__ = [
    "BFloatType",
    "CONVERGENT_INTRINSIC_PREFIXES",
    "KERNEL_ATTR",
    "LAUNCH_BOUNDS",
    "LLVMIRTarget",
    "NVPTX_DATALAYOUT",
    "NVPTX_TRIPLE",
    "bf16_bits",
    "convert_module",
    "host_triple",
    "intrinsic_suffix",
    "is_convergent_intrinsic",
    "is_kernel",
    "to_llvm_ir",
]
