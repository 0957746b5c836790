"""ferrox: NVIDIA GPU kernels that are safe by construction, on xDSL.

    import ferrox
    mod = ferrox.load("examples/simt/vecadd.mlir")   # the GPU, else the CPU interpreter
    mod["vecadd"][grid](a, b, out)                   # checked against the contract, then run

The names below load on first use (PEP 562), so `import ferrox` stays cheap: it imports
neither xDSL nor the CUDA runtime.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "compile": "ferrox.api",
    "load": "ferrox.api",
    "Module": "ferrox.loaded",
    "Kernel": "ferrox.loaded",
    "LaunchError": "ferrox.driver.checker",
    "ModuleArtifact": "ferrox.artifact",
    "KernelArtifact": "ferrox.artifact",
    "run_program": "ferrox.run_api",
    "bf16_bits": "ferrox.driver.interpreter.bf16",  # NumPy has no bf16: its bits, marked
    "to_bf16": "ferrox.driver.interpreter.bf16",
}
_SUBMODULES = ("simt", "tile", "host", "torch_op")
"""The Python frontend's decorators (`ferrox.simt.kernel`, ...), imported on first use."""


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"ferrox.{name}")
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'ferrox' has no attribute '{name}'")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY, *_SUBMODULES])


__all__ = ["__version__", *_LAZY]
