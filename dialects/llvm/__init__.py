"""xDSL's `llvm` dialect, extended with the ops GPU kernels need that xDSL lacks.

Registered under the name `llvm` in place of xDSL's, so MLIR's spelling (`llvm.addrspacecast`, ...)
parses and the exporter in `ferrox.lowering.llvm_export` sees one dialect.
"""

from xdsl.dialects.llvm import LLVM as XDSL_LLVM
from xdsl.ir import Dialect

EXTRA_OPERATIONS: list = []
EXTRA_ATTRIBUTES: list = []

LLVM = Dialect(
    "llvm",
    [*XDSL_LLVM.operations, *EXTRA_OPERATIONS],
    [*XDSL_LLVM.attributes, *EXTRA_ATTRIBUTES],
)
