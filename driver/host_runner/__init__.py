"""The host-program runner: `@main` of a host program, on the GPU or the CPU interpreter.

    from ferrox.driver.host_runner import run_host_program, select_backend
    backend, why_cpu = select_backend("auto")
    result = run_host_program(module, backend, params={"n": 4096})
    result.ok, [c.line() for c in result.checks], result.outputs

The host program runs in Python on xDSL's interpreter (`interpreter`, `functions`); a backend
(`backend.Backend`: `cpu.CpuBackend`, `gpu.GpuBackend`) holds tensors and launches kernels.
`prepare` checks launches at run time through the launch checker (`ferrox.driver.checker`),
`checks` evaluates `host.check`. docs/dialects/host.md ("Run-time model") is the specification
every op here follows.
"""

from ferrox.driver.checker import INTERPRETER_LIMITS
from ferrox.driver.host_runner.backend import Backend
from ferrox.driver.host_runner.checks import CheckResult
from ferrox.driver.host_runner.cpu import CpuBackend
from ferrox.driver.host_runner.errors import BackendUnavailable, HostRunError
from ferrox.driver.host_runner.interpreter import RunResult, run_host_program
from ferrox.driver.host_runner.prepare import PrepareError, check_prepare
from ferrox.driver.host_runner.select import DEVICES, select_backend

__all__ = [
    "DEVICES",
    "INTERPRETER_LIMITS",
    "Backend",
    "BackendUnavailable",
    "CheckResult",
    "CpuBackend",
    "HostRunError",
    "PrepareError",
    "RunResult",
    "check_prepare",
    "run_host_program",
    "select_backend",
]
