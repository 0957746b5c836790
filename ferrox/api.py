"""The Python API: compile SIMT modules to PTX (cached) and launch their kernels.

    from ferrox.api import load
    program = load("examples/simt/vecadd.mlir")          # parse, verify, lower, PTX, load
    program.kernel("vecadd").call(grid, block, a, b, out) # NumPy arrays, or torch/CuPy zero-copy

Compilation goes through the on-disk kernel cache (`FERROX_CACHE_DIR`), keyed by the module's
text, the chip and the options, so a program is compiled once per machine.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp

from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.compile import CompiledKernels, KernelInfo, compile_module_to_ptx
from ferrox.verify import verify_module


def parse(source: str | Path | ModuleOp) -> ModuleOp:
    """A verified module from a path, IR text, or a module (returned as is)."""
    if isinstance(source, ModuleOp):
        return source
    if isinstance(source, Path) or (
        isinstance(source, str) and source.endswith(".mlir") and "\n" not in source
    ):
        path = Path(source)
        module = parse_module(make_context(), path.read_text(), str(path))
    else:
        module = parse_module(make_context(), source, "<string>")
    verify_module(module)
    return module


def _serialize(compiled: CompiledKernels) -> bytes:
    return json.dumps(
        {
            "ptx": compiled.ptx,
            "chip": compiled.chip,
            "kernels": {n: asdict(k) for n, k in compiled.kernels.items()},
        }
    ).encode()


def _deserialize(data: bytes) -> CompiledKernels:
    raw = json.loads(data)
    kernels = {}
    for name, k in raw["kernels"].items():
        k["signature"] = tuple(k["signature"])
        k["block"] = tuple(k["block"]) if k["block"] is not None else None
        kernels[name] = KernelInfo(**k)
    return CompiledKernels(raw["ptx"], raw["chip"], kernels)


def compile(
    source: str | Path | ModuleOp, chip: str = "sm_90", opt: int = 3, cache: bool = True
) -> CompiledKernels:
    """PTX and per-kernel ABI for every kernel in `source`."""
    module = parse(source)
    if not cache:
        return compile_module_to_ptx(module, chip=chip, opt=opt)
    from ferrox.driver.runtime.cache import KernelKey, default_cache

    key = KernelKey(str(module), chip, options={"opt": opt}, artifact="ptx.json")
    data = default_cache().get_or_compile(
        key, lambda: _serialize(compile_module_to_ptx(module, chip=chip, opt=opt))
    )
    return _deserialize(data)


class Program:
    """A compiled module loaded on one GPU."""

    def __init__(self, compiled: CompiledKernels, ordinal: int = 0):
        from ferrox.driver.runtime.launcher import Module

        self.compiled = compiled
        self.module = Module.load(
            compiled.ptx.encode(), ordinal=ordinal, signatures=compiled.signatures
        )

    def info(self, name: str) -> KernelInfo:
        return self.compiled[name]

    def kernel(self, name: str):
        """The launcher's `Kernel`: `.call(grid, block, *values)` or `.launch(grid, block, packed)`."""
        return self.module.kernel(name)


def load(source: str | Path | ModuleOp, chip: str | None = None, ordinal: int = 0) -> Program:
    """Compile for the GPU at `ordinal` (its own chip unless `chip` is given) and load it."""
    if chip is None:
        from ferrox.driver.runtime.device import device_limits

        chip = device_limits(ordinal).chip
    return Program(compile(source, chip=chip), ordinal)
