"""Host programs written in Python: `@ferrox.host.program`, recorded as the host dialect,
checked by `verify-ownership`, then run on the GPU or the CPU interpreter.

    from ferrox import host

    @host.program
    def add(x, y, out):                          # caller arrays: host.from_array 0, 1, 2
        s = host.stream()                        # host.stream
        p = host.prepare(vecadd, blocks, 256, x, y, out)
        out = host.launch(p, s, x, y, out)       # takes `out`, gives the new value back
        host.sync(s)                             # host.sync_on
        return out

    result = add(x, y, out)                      # recorded, verified, run; torch in, torch out

Calling the program records its body once on symbolic values (nothing runs while it records),
verifies the module (op verifiers, `verify-disjoint`, `verify-ownership`) and only then runs it on
the host runner. A use of a tensor a launch took, or a read before its stream's sync, is a
`FrontendError` at the Python line. The arrays come in bound once each: the same array twice is
refused by `verify-ownership`, two arrays that share memory by the bind-time alias check.
Results come back as the caller's array type: a returned tensor whose buffer is a caller array
is that array itself (on the GPU a device array was written in place; on the CPU, where caller
arrays are copied in, the result is copied back into it); a tensor the program made comes back
as the callers' array type (torch on the GPU without a copy).
"""

from __future__ import annotations

import functools
import io
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ferrox.diagnostics import DiagnosticError
from ferrox.frontend.common.errors import FrontendError, located
from ferrox.frontend.host import ops as _ops
from ferrox.frontend.host.ops import (
    check,
    fori_loop,
    full,
    launch,
    partition,
    poison,
    prepare,
    random,
    stream,
    sync,
    tile_launch,
    unpartition,
    unsafe_launch,
    zeros,
)
from ferrox.frontend.host.program import Recorded, record
from ferrox.frontend.host.recorder import LoopIndex, Partition, Prepared, Stream, Tensor

_INTERNAL = frozenset(
    {
        __file__,
        _ops.__file__,
        *(
            str(Path(_ops.__file__).with_name(n))
            for n in ("recorder.py", "program.py", "arrays.py")
        ),
    }
)


class HostCheckFailed(AssertionError):
    """A `host.check` of the program failed; the message has every failed check's line."""


def program(fn: Callable[..., Any] | None = None, *, device: str = "auto") -> Any:
    """Make a Python function a host program (see the module's docstring)."""

    def wrap(f: Callable[..., Any]) -> HostProgram:
        return HostProgram(f, device)

    return wrap(fn) if fn is not None else wrap


class HostProgram:
    """A `@ferrox.host.program` function: calling it records, verifies and runs it;
    `p.on("cpu")` is the same program on another device; `p.ir(*args)` shows its IR."""

    def __init__(self, fn: Callable[..., Any], device: str = "auto"):
        self.fn = fn
        self.device = device
        self.last_run: Any = None
        """The runner's `RunResult` of the latest call (its checks, where it ran)."""
        functools.update_wrapper(self, fn)

    @property
    def name(self) -> str:
        return self.fn.__name__

    def on(self, device: str) -> HostProgram:
        from ferrox.api import DEVICES

        if device not in DEVICES:
            raise ValueError(f"unknown device '{device}' (expected {', '.join(DEVICES)})")
        return HostProgram(self.fn, device)

    def record(self, *args: Any, **kwargs: Any) -> Recorded:
        """Record and verify the program for these arguments (nothing runs)."""
        return self._record(args, kwargs, True)

    def _record(self, args: Sequence[Any], kwargs: dict[str, Any], verify_it: bool) -> Recorded:
        try:
            return record(self.fn, args, kwargs, _INTERNAL, verify_it)
        except DiagnosticError as e:
            error = located(e)
        raise error.with_traceback(None)

    def module(self, *args: Any, **kwargs: Any) -> Any:
        return self.record(*args, **kwargs).module

    def ir(self, *args: Any, **kwargs: Any) -> str:
        """The recorded, verified module: the kernels, then `@main` with every op's Python
        `loc(...)`. It parses back (`ferrox-opt` reads it); each kernel's own `.ir()` shows
        the kernel's Python locations."""
        return _print(self._record(args, kwargs, True).module)

    def ir_unverified(self, *args: Any, **kwargs: Any) -> str:
        """`ir()` before any verifier ran: what `ferrox-opt -p verify-ownership` would refuse,
        with the diagnostics at the Python lines."""
        return _print(self._record(args, kwargs, False).module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        recorded = self.record(*args, **kwargs)
        try:
            result = _run(recorded, self.device)
        except DiagnosticError as e:
            error: Exception = located(e)
        else:
            self.last_run = result
            if result.failed:
                raise HostCheckFailed(
                    f"{len(result.failed)} check(s) of {self.name} failed:\n"
                    + "\n".join(c.line() for c in result.failed)
                )
            outputs = [_give_back(recorded, t, v, result.device) for t, v in
                       zip(recorded.returns, result.outputs)]  # fmt: skip
            return None if not outputs else outputs[0] if len(outputs) == 1 else tuple(outputs)
        raise error.with_traceback(None)

    def __repr__(self) -> str:
        return f"<ferrox host program {self.name} on {self.device}>"


def _print(module: Any) -> str:
    """The module with `@main`'s Python locations. Kernels are printed without theirs: the
    kernel ops' custom syntax does not read back a location on a block argument."""
    from xdsl.printer import Printer

    out = io.StringIO()
    out.write("builtin.module {\n")
    for op in module.ops:
        text = io.StringIO()
        Printer(stream=text, print_debuginfo=op.name == "func.func").print_op(op)
        out.write("".join(f"  {line}\n" for line in text.getvalue().splitlines()))
    out.write("}\n")
    return out.getvalue()


def _run(recorded: Recorded, device: str) -> Any:
    from ferrox.driver.host_runner import run_host_program, select_backend
    from ferrox.targets.cache import compile_cached

    backend, why_cpu = select_backend(device)
    if backend.name == "gpu":
        _wait_for_torch(recorded.arrays)
    artifact = None
    if recorded.has_kernels:
        artifact = compile_cached(recorded.kernels_module(), chip=backend.chip)
    result = run_host_program(
        recorded.module,
        backend,
        arrays=recorded.arrays,
        out=None,
        artifact=artifact,
        keep_outputs=True,
    )
    result.fallback = why_cpu
    return result


def _wait_for_torch(arrays: Sequence[Any]) -> None:
    """The program's streams are its own: torch work still queued on a caller's CUDA tensor
    must finish before they read it."""
    for a in arrays:
        if type(a).__module__.split(".")[0] == "torch" and a.device.type == "cuda":
            import torch

            torch.cuda.synchronize(a.device)


def _give_back(recorded: Recorded, returned: Tensor, value: Any, device: str) -> Any:
    """A returned tensor as the caller's array type (see the module's docstring)."""
    data = getattr(value, "data", value)
    if returned.root is not None:
        caller = recorded.arrays[returned.root]
        facts = recorded.facts[returned.root]
        if device == "gpu" and facts.device != "cpu":
            return caller  # written in place, in the caller's own memory
        _copy_into(caller, _host_copy(value, device))
        return caller
    family = _callers_family(recorded)
    if device == "gpu":
        if family == "torch" and getattr(data, "element", "") != "bf16":
            import torch

            return torch.as_tensor(data, device=f"cuda:{data.ordinal}")
        if family == "cupy":
            import cupy

            return cupy.asarray(data)
    host_array = _host_copy(value, device)
    if family == "torch":
        import torch

        return torch.from_numpy(np.ascontiguousarray(host_array))
    return host_array


def _host_copy(value: Any, device: str) -> np.ndarray:
    data = value.data
    if device == "cpu":
        return np.array(data)
    from ferrox.driver.host_runner.dtypes import from_bf16_bits, is_bf16

    if is_bf16(value.element_type):
        bits = np.empty(value.shape, dtype=np.uint16)
        data.copy_to_host(bits)
        return from_bf16_bits(bits)
    return data.copy_to_host()


def _copy_into(caller: Any, result: np.ndarray) -> None:
    if isinstance(caller, np.ndarray):
        np.copyto(caller, result.astype(caller.dtype, copy=False))
        return
    if type(caller).__module__.split(".")[0] == "torch":
        import torch

        caller.copy_(torch.from_numpy(np.ascontiguousarray(result)))
        return
    np.copyto(np.from_dlpack(caller), result)


def _callers_family(recorded: Recorded) -> str:
    families = {f.family for f in recorded.facts}
    for family in ("torch", "cupy"):
        if family in families:
            return family
    return "numpy"


class MlirKernels:
    """The kernels of an MLIR file (or text), for host programs: `mlir_kernels(path)["add"]`."""

    def __init__(self, source: str | Path):
        self.source = source

    @functools.cached_property
    def _module(self) -> Any:
        from ferrox.parser import parse_source, read_source
        from ferrox.registry import make_context

        path = Path(self.source)
        if isinstance(self.source, Path) or str(self.source).endswith(".mlir"):
            text = read_source(path, str(path))
            return parse_source(make_context(), text, str(path))
        return parse_source(make_context(), str(self.source), "<mlir>")

    def __getitem__(self, name: str) -> _MlirKernel:
        return _MlirKernel(self, name)


class _MlirKernel:
    def __init__(self, kernels: MlirKernels, name: str):
        self.kernels = kernels
        self.name = name

    def module(self, **constants: Any) -> Any:
        from xdsl.dialects.builtin import ModuleOp

        if constants:
            raise TypeError(f"@{self.name} is MLIR: it takes no Constexpr values")
        ops = [op.clone() for op in self.kernels._module.ops if op.name != "func.func"]
        return ModuleOp(ops)


def mlir_kernels(source: str | Path) -> MlirKernels:
    """Kernels written in MLIR (a `.mlir` path or the text), to launch from a Python host
    program: `add = host.mlir_kernels("examples/tile/vector_add.mlir")["vector_add"]`."""
    return MlirKernels(source)


__all__ = [
    "FrontendError",
    "HostCheckFailed",
    "HostProgram",
    "LoopIndex",
    "Partition",
    "Prepared",
    "Stream",
    "Tensor",
    "check",
    "fori_loop",
    "full",
    "launch",
    "mlir_kernels",
    "partition",
    "poison",
    "prepare",
    "program",
    "random",
    "stream",
    "sync",
    "tile_launch",
    "unpartition",
    "unsafe_launch",
    "zeros",
]
