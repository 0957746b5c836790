"""CUDA failures as Python exceptions that name the call and the CUDA error.

cuda-python returns a `CUresult` as the first element of every call's tuple and leaves checking
to the caller; one forgotten check turns into a wrong answer much later. `check` is the one
place a result is inspected. Error names come from cuGetErrorName once the driver is loaded and
from the `CUresult` enum before that, so a failure can always be reported, even without libcuda.
"""

from __future__ import annotations

from typing import Any

try:
    from cuda.bindings import driver as _cu
except ImportError:  # pragma: no cover - cuda-python is a dependency; keep errors importable
    _cu = None

_driver_loaded = False


class CudaUnavailable(RuntimeError):
    """No usable CUDA here: cuda-python or the driver library is missing, or there is no GPU."""


class CudaError(RuntimeError):
    """A CUDA driver call that returned something other than CUDA_SUCCESS.

    `call` is the driver function (`cuLaunchKernel`), `code` the numeric CUresult, `name` its
    symbolic name, `description` the driver's sentence for it (when the driver is loaded),
    `detail` a ferrox explanation of the likely cause and `log` a multi-line log (the PTX JIT's).
    """

    def __init__(self, call: str, code: Any, *, detail: str | None = None, log: str | None = None):
        self.call = call
        self.code = int(code)
        self.name = error_name(self.code)
        self.description = error_description(self.code)
        self.detail = detail
        self.log = log
        super().__init__(str(self))

    def __str__(self) -> str:
        text = f"{self.call} failed: {self.name}"
        if self.description:
            text += f" ({self.description})"
        if self.detail:
            text += f": {self.detail}"
        if self.log:
            text += "\n" + self.log.rstrip()
        return text

    def with_detail(self, detail: str | None = None, log: str | None = None) -> CudaError:
        """The same failure with an explanation (or a log) added; raise it `from` the original."""
        return CudaError(
            self.call,
            self.code,
            detail=detail if detail is not None else self.detail,
            log=log if log is not None else self.log,
        )


def mark_driver_loaded() -> None:
    """Called once cuInit succeeded: from now on ask the driver for names and descriptions."""
    global _driver_loaded
    _driver_loaded = True


def error_name(code: int) -> str:
    if _driver_loaded and _cu is not None:
        try:
            err, name = _cu.cuGetErrorName(_cu.CUresult(code))
            if int(err) == 0 and name:
                return name.decode() if isinstance(name, bytes) else str(name)
        except (ValueError, RuntimeError):
            pass
    if _cu is not None:
        try:
            return _cu.CUresult(code).name
        except ValueError:
            pass
    return f"CUresult {code}"


def error_description(code: int) -> str | None:
    if not (_driver_loaded and _cu is not None):
        return None
    try:
        err, text = _cu.cuGetErrorString(_cu.CUresult(code))
    except (ValueError, RuntimeError):
        return None
    if int(err) != 0 or not text:
        return None
    return text.decode() if isinstance(text, bytes) else str(text)


def check(result: Any, call: str) -> Any:
    """Raise `CudaError` unless `result` (a cuda-python return tuple, or a bare CUresult) succeeded.

    Returns what the call produced after the status: nothing, the single value, or a tuple.
    """
    if isinstance(result, tuple):
        status, values = result[0], result[1:]
    else:
        status, values = result, ()
    if int(status) != 0:
        raise CudaError(call, status)
    if not values:
        return None
    return values[0] if len(values) == 1 else values
