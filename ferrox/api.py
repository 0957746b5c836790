"""The Python API: compile a module to its artifact, load it on a device, launch its kernels.

    import ferrox
    mod = ferrox.load("examples/simt/vecadd.mlir")       # device="auto": the GPU, else the CPU
    k = mod["vecadd"]
    k[grid, block](a, b, out)    # checked, then launched (k[grid](...): the contract's block)
    k.unsafe_launch(grid, block, a, b, out)               # the raw path: no checks at all

A checked launch goes through the one launch checker (`ferrox.driver.checker`): the contract's
domain and block, shared memory, the device's limits, every `requires` on the actual arguments,
the element types, output coverage by the grid, and no exclusive output overlapping another
argument (by byte ranges). A refused launch raises `ferrox.LaunchError`, naming each rule and
both values, before anything is copied or written.

Arguments are NumPy arrays, PyTorch tensors (bf16 included) or CuPy arrays, and numbers. On the
GPU device arrays are used in place, on torch's current stream when they are torch tensors;
NumPy arrays are copied in, and the outputs copied back, before the call returns. On the CPU
(`device="cpu"`, or `auto` without a GPU) kernels run on the reference interpreter (SIMT kernels
thread by thread, tile kernels tile by tile) on host arrays, outputs written in place.

In `k[...]`, a pair is `(grid, block)`: `k[4, 256]` is grid 4, block 256. A grid of several
dimensions is a tuple inside: `k[(8, 4), (16, 16)]`, or a list alone: `k[[8, 4]]`. A tile
kernel may be called directly, `k(z, x, y)`: its grid is its output partition's tile grid.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ferrox.artifact import ModuleArtifact

if TYPE_CHECKING:  # xDSL loads only when something is parsed or compiled
    from xdsl.dialects.builtin import ModuleOp

    from ferrox.loaded import Module

DEVICES = ("auto", "gpu", "cpu")


def compile(
    source: str | Path | ModuleOp,
    chip: str = "sm_90",
    *,
    opt: int = 3,
    cache: bool = True,
    features: str | None = None,
    ptx: bool = True,
) -> ModuleArtifact:
    """The module's artifact (PTX and each kernel's facts), through the on-disk kernel cache.

    `source` is a path, IR text or a module; it is parsed and verified on a cache miss, and a
    problem is a located `DiagnosticError`. `ptx=False`: an artifact only the CPU interpreter
    runs (every ferrox check and lowering, but no NVPTX code generation and no ptxas).
    """
    from ferrox.targets.cache import compile_cached

    return compile_cached(source, chip=chip, features=features, opt=opt, cache=cache, ptx=ptx)


def load(
    source: str | Path | ModuleOp | ModuleArtifact,
    device: str = "auto",
    chip: str | None = None,
    *,
    ordinal: int = 0,
) -> Module:
    """Compile `source` (or take its artifact) and get it ready to launch on `device`.

    `gpu` compiles for the GPU's own chip unless `chip` is given, and raises
    `BackendUnavailable` where no GPU can be used; `auto` falls back to the CPU interpreter,
    and says why in `Module.fallback`.
    """
    if device not in DEVICES:
        raise ValueError(f"unknown device '{device}' (expected {', '.join(DEVICES)})")
    fallback = None
    if device in ("auto", "gpu"):
        from ferrox.driver.runtime.device import unavailable_reason

        reason = unavailable_reason(ordinal)
        if reason is not None and device == "gpu":
            from ferrox.driver.host_runner.errors import BackendUnavailable

            raise BackendUnavailable(reason)
        if reason is not None:
            device, fallback = "cpu", reason
        else:
            device = "gpu"
    if device == "gpu":
        from ferrox.driver.runtime.device import device_limits
        from ferrox.loaded import GpuDevice, Module

        limits = device_limits(ordinal)
        artifact = _artifact(source, chip or limits.chip)
        return Module(artifact, GpuDevice(artifact, ordinal, limits))
    from ferrox.loaded import CpuDevice, Module

    artifact = _artifact(source, chip or "sm_90")
    module = Module(artifact, CpuDevice(artifact))
    module.fallback = fallback
    return module


def _artifact(source: str | Path | ModuleOp | ModuleArtifact, chip: str) -> ModuleArtifact:
    return source if isinstance(source, ModuleArtifact) else compile(source, chip)


_LOADED = ("Module", "Kernel", "Launch", "LaunchError")
"""Names of `ferrox.loaded` also reachable here; they import NumPy, the checker and the
runtime, so this module (and `ferrox.compile`, a cache hit in a new process) does not."""


def __getattr__(name: str) -> Any:
    if name in _LOADED:
        import ferrox.loaded

        return getattr(ferrox.loaded, name)
    raise AttributeError(f"module 'ferrox.api' has no attribute '{name}'")


__all__ = ["DEVICES", "compile", "load"]
