"""The tile-support ops' interpreter implementations now live in the interpreter itself
(`ferrox.driver.interpreter.tile_support_ops`); kept so the tests' `register()` calls still work."""

from ferrox.driver.interpreter.tile_support_ops import ChunkWitness, TileSupportFunctions, chunk_witness

__all__ = ["ChunkWitness", "TileSupportFunctions", "chunk_witness", "register"]


def register() -> None:
    """Nothing to do: the interpreter registers these itself."""
