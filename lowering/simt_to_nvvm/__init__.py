"""`convert-simt-to-nvvm`: SIMT kernels to func, nvvm and llvm pointer ops.

One pattern module per SIMT op module (`kernel`, `index`, `ids`, `memory`, `shared`, `sync`,
`warp`, `atomic`, `unsafe`); `abi` is the kernel parameter ABI and signature, `types` the type
conversion, `casts` the final cast cleanup.
"""

from ferrox.lowering.simt_to_nvvm.abi import ABI_ATTR, read_signature, signature
from ferrox.lowering.simt_to_nvvm.convert import (
    SIMT_TO_NVVM_PATTERNS,
    ConvertSimtToNvvmPass,
    convert_simt_to_nvvm,
)

__all__ = [
    "ABI_ATTR",
    "SIMT_TO_NVVM_PATTERNS",
    "ConvertSimtToNvvmPass",
    "convert_simt_to_nvvm",
    "read_signature",
    "signature",
]
