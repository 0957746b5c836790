"""The reference interpreter for SIMT kernels: the CPU oracle that GPU results are checked against.

`run_simt_kernel(module, "vecadd", grid, block, [a, b, out])` runs every thread of every block on
NumPy arrays, on xDSL's interpreter framework, following the simt dialect's semantics exactly
(docs/dialects/simt.md): see `threads` for how barriers and warp collectives are scheduled,
`values` for how results are rounded like the GPU's, and `errors` for what a failing kernel raises.
"""

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
