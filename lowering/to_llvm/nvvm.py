"""The nvvm patterns, from `ferrox.lowering.nvvm_to_llvm`, loaded only when a module has nvvm ops.

`convert-to-llvm` lowers every source dialect in one walk, nvvm included, but a module without
nvvm ops must not depend on that module being importable.
"""

from __future__ import annotations

import importlib

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern

NVVM_MODULE = "ferrox.lowering.nvvm_to_llvm"
NVVM_PATTERNS_NAME = "NVVM_TO_LLVM_PATTERNS"


def first_nvvm_op(module: ModuleOp) -> Operation | None:
    return next((op for op in module.walk() if op.name.startswith("nvvm.")), None)


class NvvmPatternsMissing(Exception):
    """The module has nvvm ops but the nvvm patterns cannot be loaded; the message says why."""


def nvvm_patterns() -> list[RewritePattern]:
    """`NVVM_TO_LLVM_PATTERNS` as pattern instances (classes in the list are instantiated)."""
    try:
        module = importlib.import_module(NVVM_MODULE)
    except ImportError as e:
        raise NvvmPatternsMissing(
            f"nvvm ops need the nvvm-to-llvm patterns, but {NVVM_MODULE} cannot be imported ({e})"
        ) from e
    patterns = getattr(module, NVVM_PATTERNS_NAME, None)
    if patterns is None:
        raise NvvmPatternsMissing(f"{NVVM_MODULE} defines no {NVVM_PATTERNS_NAME}")
    return [p() if isinstance(p, type) else p for p in patterns]
