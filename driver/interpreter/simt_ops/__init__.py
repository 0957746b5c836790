"""The `simt` dialect's ops on the SIMT engine, one module per op family (mirroring
`dialects/simt/` and `lowering/simt_to_nvvm/`). Importing this package registers them in the op
table (`ops.FACTORIES`); the engine (`engine.py`) runs the regions they hold.

The rules followed are docs/dialects/simt.md's (and the lowering's, where the doc leaves a
choice), so that the interpreter is an oracle for what the GPU computes.
"""

from ferrox.driver.interpreter.simt_ops import (  # noqa: F401 (registration)
    atomic,
    ids,
    index,
    kernel,
    memory,
    pipeline,
    shared,
    specialize,
    sync,
    tile_support,
    tma,
    unsafe,
    warp,
    wgmma,
)
