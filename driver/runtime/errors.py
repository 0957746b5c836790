"""The runtime's exceptions, and the one place a CUDA failure becomes a ferrox error.

cuda.core raises its own `CUDAError` whose text starts with the driver's error name; cuda.bindings
returns a `CUresult` first in every call's tuple. Both end up here as a `CudaError` naming the
call, the driver's error name and, when the driver can be asked, its description
(cuGetErrorString), so a failure reads the same whichever layer saw it.
"""

from __future__ import annotations

import re
from typing import Any

from cuda.bindings import driver as _cu

__all__ = [
    "ArgumentError",
    "ArrayError",
    "CudaError",
    "CudaUnavailable",
    "InternalError",
    "NoTensorMap",
    "check",
    "from_core",
]


class CudaUnavailable(RuntimeError):
    """No usable CUDA here: the driver library is missing, or there is no GPU."""


class ArrayError(TypeError):
    """An array that cannot be a kernel argument: element type, layout, or where it lives."""


class ArgumentError(TypeError):
    """A kernel argument that does not fit its parameter (count, kind, element, range)."""


class NoTensorMap(ArgumentError):
    """An argument no TMA tensor map can describe (its rows not a multiple of 16 bytes, its
    address not 16-byte aligned, an empty or huge side): a tile kernel with a portable twin
    (`TileLaunch.portable`) launches the twin instead (compiled then, the first time); any
    other kernel, or one whose twin cannot be made, refuses the launch.

    `by_address`: the reason is the address alone, which a launch's signature key leaves out
    (`driver/checker/signature.py`), so a relaunch with the same shapes may well fit TMA: the
    twin's launch is then not remembered for them."""

    def __init__(self, message: str, *, by_address: bool = False):
        super().__init__(message)
        self.by_address = by_address


class InternalError(RuntimeError):
    """A ferrox bug: the compiler's artifact and the loaded kernel disagree, or similar."""

    def __init__(self, message: str):
        super().__init__(f"internal error (a ferrox bug, please report it): {message}")


class CudaError(RuntimeError):
    """A CUDA call that did not return CUDA_SUCCESS.

    `call` is the driver function (`cuLaunchKernelEx`), `code` the numeric CUresult, `name` its
    symbolic name, `description` the driver's sentence for it (None where the driver cannot be
    asked), `detail` ferrox's explanation of the likely cause, `log` a multi-line log.
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


def error_name(code: int) -> str:
    """`CUDA_ERROR_INVALID_VALUE` for 1: from the bindings' enum, which needs no driver."""
    try:
        return _cu.CUresult(code).name
    except ValueError:
        return f"CUresult {code}"


def error_description(code: int) -> str | None:
    """The driver's sentence for `code` (cuGetErrorString), or None without a driver."""
    try:
        err, text = _cu.cuGetErrorString(_cu.CUresult(code))
    except Exception:  # no libcuda (cuda.pathfinder raises), or a code the enum lacks
        return None
    if int(err) != 0 or not text:
        return None
    return text.decode() if isinstance(text, bytes) else str(text)


def check(result: Any, call: str) -> Any:
    """Raise `CudaError` unless `result` (a cuda.bindings return tuple, or a bare CUresult)
    succeeded. Returns what the call produced after the status: nothing, one value, or a tuple.
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


def __getattr__(name: str) -> Any:
    """`CoreCudaError`, cuda.core's `CUDAError`, imported on first use: importing it imports all
    of cuda.core (0.16 s on the H200 host), which a launch through the driver alone never needs.
    """
    if name == "CoreCudaError":
        from cuda.core._utils.cuda_utils import CUDAError

        return CUDAError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_CORE_NAME = re.compile(r"\b(CUDA_ERROR_[A-Z0-9_]+)\b")


def from_core(exc: BaseException, call: str, detail: str | None = None) -> CudaError:
    """A cuda.core `CUDAError` (its text starts with the driver's error name) as a CudaError.

    A message without an error name (cuda.core's own refusals) is kept whole as the detail.
    """
    text = str(exc)
    match = _CORE_NAME.search(text)
    code = getattr(_cu.CUresult, match.group(1), None) if match is not None else None
    if code is not None:
        return CudaError(call, code, detail=detail)
    return CudaError(call, _cu.CUresult.CUDA_ERROR_UNKNOWN, detail=detail or text)
