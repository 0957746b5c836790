"""A TMA tile kernel's portable twin, checked as it comes from its own compile
(`ferrox.targets.cache.portable_artifact`) before any launch may run it: the runtime's, so the
refusal is an `InternalError` (a bug of ours or a foreign cache entry, not the user's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ferrox.driver.runtime.errors import InternalError

if TYPE_CHECKING:
    from ferrox.artifact import ModuleArtifact


def twin_in(made: ModuleArtifact, kernel: Any) -> Any:
    """The portable twin of `kernel` (a TMA tile kernel's `KernelArtifact`) in `made`, its
    `portable_artifact`: checked to be the one kernel there, named as `kernel`'s
    `TileLaunch.portable`, taking `kernel`'s parameters from the same tensors (its `params`
    and tile sources); anything else (a stale or foreign cache entry) is an `InternalError`,
    and no launch runs it on these arguments."""
    name = kernel.tile.portable
    twin = made.kernels.get(name)
    if twin is None or len(made.kernels) != 1:
        raise InternalError(
            f"@{kernel.name}'s twin compiled to {', '.join(made.kernels) or 'no kernel'}, "
            f"not @{name}"
        )
    if twin.params != kernel.params or (
        twin.tile is None or twin.tile.sources != kernel.tile.sources
    ):
        raise InternalError(f"@{kernel.name}'s twin @{name} takes other parameters")
    return twin


__all__ = ["twin_in"]
