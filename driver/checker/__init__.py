"""The one launch checker: every launcher (GPU and CPU, host programs and the Python API)
calls `check_launch` on the kernel's artifact before it launches, and launches nothing when it
raises `LaunchError`. `check` says which rules, in which order; each rule has its own module.
"""

from ferrox.driver.checker.args import BufferArg, element_of, numpy_buffer
from ferrox.driver.checker.check import CheckedLaunch, check_launch
from ferrox.driver.checker.errors import LaunchError
from ferrox.driver.checker.limits import INTERPRETER_LIMITS

__all__ = [
    "INTERPRETER_LIMITS",
    "BufferArg",
    "CheckedLaunch",
    "LaunchError",
    "check_launch",
    "element_of",
    "numpy_buffer",
]
