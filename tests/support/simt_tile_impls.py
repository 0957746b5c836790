"""The tile-support ops' interpreter implementations live in the interpreter itself
(`ferrox.driver.interpreter.simt_ops.tile_support`, `simt.mma_sync` included); this module
re-exports them for the tests, and `register()` is kept for the callers that still ask for it."""

from ferrox.driver.interpreter.simt_ops.tile_support import (
    ChunkWitness,
    chunk_witness,
    mma_fragments,
)

__all__ = [
    "ChunkWitness",
    "chunk_witness",
    "mma_fragments",
    "register",
]


def register() -> None:
    """Nothing to do: the interpreter registers these itself."""
