"""`convert-to-llvm`: the standard dialects (func, arith, cf, scf, math, memref) and nvvm to
xDSL's llvm dialect. One module of patterns per source dialect; `types` is the type conversion
they share and `casts` the final cast reconciliation."""

from ferrox.lowering.to_llvm.convert import ConvertToLLVMPass, convert_to_llvm
from ferrox.lowering.to_llvm.types import convert_type

__all__ = ["ConvertToLLVMPass", "convert_to_llvm", "convert_type"]
