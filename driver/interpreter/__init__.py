"""The reference interpreter: the CPU oracle that GPU results are checked against.

`run_simt_kernel(module, "vecadd", grid, block, [a, b, out])` runs a SIMT kernel on NumPy arrays
with the simt dialect's semantics exactly (docs/dialects/simt.md), each op once for a group of
threads (`engine`), with shared-memory and raw-pointer race detection (`memory`);
`run_lowered_tile_kernel` runs a tile kernel as the GPU does, through its SIMT lowering, and
`tile_kernel.run_tile_kernel` is the whole-tile reference. docs/interpreter.md says how; `errors`
says what a failing kernel raises.

The names below load on first use (PEP 562): the launch checker imports `interpreter.bf16`
(NumPy's bf16 carriers), and a cached kernel's launch must not import xDSL or the dialects
through this package (tests/api/test_cache_hit.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ferrox.driver.interpreter.errors import (
        InterpreterError,
        KernelDeadlock,
        KernelFault,
        KernelRace,
        KernelStepLimit,
        KernelTrap,
        LaunchError,
    )
    from ferrox.driver.interpreter.launch import find_kernel, run_simt_kernel
    from ferrox.driver.interpreter.machine import (
        DEFAULT_MAX_STEPS,
        SimtInterpreter,
        max_steps,
        step_budget,
    )

_HOMES = {
    **dict.fromkeys(
        (
            "InterpreterError",
            "KernelDeadlock",
            "KernelFault",
            "KernelRace",
            "KernelStepLimit",
            "KernelTrap",
            "LaunchError",
        ),
        "errors",
    ),
    "find_kernel": "launch",
    "run_simt_kernel": "launch",
    **dict.fromkeys(
        ("DEFAULT_MAX_STEPS", "SimtInterpreter", "max_steps", "step_budget"), "machine"
    ),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_MAX_STEPS",
    "InterpreterError",
    "KernelDeadlock",
    "KernelFault",
    "KernelRace",
    "KernelStepLimit",
    "KernelTrap",
    "LaunchError",
    "SimtInterpreter",
    "find_kernel",
    "max_steps",
    "run_simt_kernel",
    "step_budget",
]
