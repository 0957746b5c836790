"""xDSL's `llvm` dialect, extended with the ops GPU kernels need that xDSL lacks.

Registered under the name `llvm` in place of xDSL's, so MLIR's spelling (`llvm.addrspacecast`, ...)
parses and the exporter in `ferrox.targets.llvm_export` sees one dialect. xDSL's own ops keep
their classes, so IR built with `xdsl.dialects.llvm` works unchanged.

Importing this module also lets `#llvm.cconv<...>` and `llvm.func` name the NVPTX calling
conventions `ptx_kernel` and `ptx_device`, which MLIR has and xDSL's list of conventions omits.
"""

from xdsl.dialects import llvm as xdsl_llvm
from xdsl.dialects.llvm import LLVM as XDSL_LLVM
from xdsl.ir import Dialect

from ferrox.dialects.llvm.atomics import AtomicRMWOp, CmpXchgOp, FenceOp
from ferrox.dialects.llvm.casts import AddrSpaceCastOp, FPToSIOp, FPToUIOp, UIToFPOp
from ferrox.dialects.llvm.intrinsics import INTRINSIC_OPS, IntrinsicOp
from ferrox.dialects.llvm.values import FreezeOp, PoisonOp
from ferrox.dialects.llvm.vector import ExtractElementOp

PTX_CALLING_CONVENTIONS = ("ptx_kernel", "ptx_device")

# xDSL parses, prints and verifies calling conventions against this one set; extending the data
# is enough, no xDSL class needs replacing.
xdsl_llvm.LLVM_CALLING_CONVS.update(PTX_CALLING_CONVENTIONS)

EXTRA_OPERATIONS: list = [
    AddrSpaceCastOp,
    FPToSIOp,
    FPToUIOp,
    UIToFPOp,
    AtomicRMWOp,
    CmpXchgOp,
    FenceOp,
    ExtractElementOp,
    PoisonOp,
    FreezeOp,
    *INTRINSIC_OPS,
]
EXTRA_ATTRIBUTES: list = []

LLVM = Dialect(
    "llvm",
    [*XDSL_LLVM.operations, *EXTRA_OPERATIONS],
    [*XDSL_LLVM.attributes, *EXTRA_ATTRIBUTES],
)

__all__ = [
    "LLVM",
    "AddrSpaceCastOp",
    "AtomicRMWOp",
    "CmpXchgOp",
    "ExtractElementOp",
    "FPToSIOp",
    "FPToUIOp",
    "FenceOp",
    "FreezeOp",
    "IntrinsicOp",
    "PoisonOp",
    "UIToFPOp",
]
