"""The module's kernels as the host runner knows them: their artifact, compiled once.

Both backends read every fact about a kernel (parameters, contract, `requires`, coverage
writes, the tile launch map) from the `ModuleArtifact` the compiler makes, through the kernel
cache; the GPU launches its PTX, the CPU interpreter runs the module itself. Nothing is re-read
from the IR or re-lowered.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from ferrox.artifact import ModuleArtifact


def has_kernels(module: ModuleOp) -> bool:
    return any(op.name in ("simt.kernel", "tile.kernel") for op in module.ops)


def module_artifact(module: ModuleOp, chip: str, ptx: bool = True) -> ModuleArtifact:
    """The artifact of `module`'s kernels for `chip`, or for its arch-specific variant where the
    module opts in (`targets.ptx.device_chip`); host code is not compiled. `ptx=False`: the CPU
    interpreter's (the whole ferrox compile, no NVPTX and no ptxas: it runs the module)."""
    from ferrox.targets.cache import compile_cached
    from ferrox.targets.ptx import device_chip

    return compile_cached(module, chip=device_chip(module, chip), ptx=ptx)


__all__ = ["has_kernels", "module_artifact"]
