"""The `simt` dialect's ops on the reference interpreter, one module per op family (mirroring
`dialects/simt/` and `lowering/simt_to_nvvm/`).

The rules followed are docs/dialects/simt.md's (and the lowering's, where the doc leaves a
choice), so that the interpreter is an oracle for what the GPU computes. `SIMT_FUNCTIONS` is
every family's implementation class, for `launch.interpreter_functions`.
"""

from ferrox.driver.interpreter.simt_ops.atomic import AtomicFunctions
from ferrox.driver.interpreter.simt_ops.ids import IdFunctions
from ferrox.driver.interpreter.simt_ops.index import IndexFunctions
from ferrox.driver.interpreter.simt_ops.kernel import KernelFunctions
from ferrox.driver.interpreter.simt_ops.memory import MemoryFunctions
from ferrox.driver.interpreter.simt_ops.shared import SharedFunctions
from ferrox.driver.interpreter.simt_ops.sync import SyncFunctions
from ferrox.driver.interpreter.simt_ops.tile_support import TileSupportFunctions
from ferrox.driver.interpreter.simt_ops.unsafe import UnsafeFunctions
from ferrox.driver.interpreter.simt_ops.warp import WarpFunctions

SIMT_FUNCTIONS = (
    KernelFunctions,
    IdFunctions,
    IndexFunctions,
    MemoryFunctions,
    SharedFunctions,
    SyncFunctions,
    WarpFunctions,
    AtomicFunctions,
    UnsafeFunctions,
    TileSupportFunctions,
)

__all__ = ["SIMT_FUNCTIONS"]
