"""The tile-support ops' interpreter implementations live in the interpreter itself
(`ferrox.driver.interpreter.tile_support_ops` and `.mma_ops`); this module re-exports them for
the tests, and `register()` is kept for the callers that still ask for it."""

from ferrox.driver.interpreter.mma_ops import MmaSyncFunctions, mma_fragments
from ferrox.driver.interpreter.tile_support_ops import (
    ChunkWitness,
    TileSupportFunctions,
    chunk_witness,
)

__all__ = [
    "ChunkWitness",
    "MmaSyncFunctions",
    "TileSupportFunctions",
    "chunk_witness",
    "mma_fragments",
    "register",
]


def register() -> None:
    """Nothing to do: the interpreter registers these itself."""
