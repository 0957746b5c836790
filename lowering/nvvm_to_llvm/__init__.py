"""The nvvm-to-llvm lowering: one pattern module per nvvm op family, mirroring `dialects/nvvm/`.

`intrinsics` is the LLVM 22 NVPTX intrinsic table the patterns draw their names from.
"""

from ferrox.lowering.nvvm_to_llvm.convert import NVVM_TO_LLVM_PATTERNS, ConvertNvvmToLLVMPass
from ferrox.lowering.nvvm_to_llvm.intrinsics import INTRINSIC_NAMES, INTRINSIC_TABLE, Intrinsic

__all__ = [
    "ConvertNvvmToLLVMPass",
    "NVVM_TO_LLVM_PATTERNS",
    "INTRINSIC_TABLE",
    "INTRINSIC_NAMES",
    "Intrinsic",
]
