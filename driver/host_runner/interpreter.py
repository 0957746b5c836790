"""`run_host_program`: run a host program's `@main` on a backend, op by op, in program order.

The host program runs on xDSL's `Interpreter` with the host dialect's functions (`functions`),
the SIMT interpreter's `arith` and `math` (so host and kernel arithmetic agree bit for bit), and
xDSL's `scf` and `func`. Caller arrays are checked against their `host.from_array` types before
the first op runs, so a bad one stops the program before any launch. Any failure is a located
`DiagnosticError`; a failed check is recorded, printed, and the program goes on.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, OpImplResult, PythonValues
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Operation

from ferrox.artifact import ModuleArtifact
from ferrox.diagnostics import DiagnosticError, make
from ferrox.dialects import host
from ferrox.driver.checker import CheckedLaunch, LaunchError
from ferrox.driver.host_runner.arrays import misfit
from ferrox.driver.host_runner.backend import Backend
from ferrox.driver.host_runner.checks import CheckResult
from ferrox.driver.host_runner.errors import HostRunError
from ferrox.driver.host_runner.functions import HostFunctions
from ferrox.driver.host_runner.kernels import has_kernels, module_artifact
from ferrox.driver.host_runner.scalars import for_formula
from ferrox.driver.host_runner.values import Dim3, Partition, Stream, Tensor
from ferrox.driver.runtime.errors import InternalError, NoTensorMap


@dataclass
class RunResult:
    """What a run produced: every check, `@main`'s returned values (as NumPy), and where it ran."""

    device: str
    """`cpu` or `gpu`."""
    device_name: str
    checks: list[CheckResult] = field(default_factory=list)
    outputs: tuple[Any, ...] = ()
    fallback: str | None = None
    """Why the run is on the CPU when the caller asked for `auto` (no GPU here), else None."""

    @property
    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if not c.ok]

    @property
    def ok(self) -> bool:
        return not self.failed


DEFAULT_HOST_MAX_STEPS = 200_000
"""The most ops a host program may run (its loops included; a launch counts one): a few seconds
on xDSL's interpreter, far more than any host program here needs. FERROX_HOST_MAX_STEPS sets
another; a host program past it ends in a located diagnostic instead of running forever."""


def host_max_steps() -> int:
    """FERROX_HOST_MAX_STEPS, else DEFAULT_HOST_MAX_STEPS; ValueError when it is not a positive
    integer (`ferrox run` checks it up front)."""
    from ferrox.driver.interpreter.machine import parse_max_steps

    text = os.environ.get("FERROX_HOST_MAX_STEPS", "").strip()
    return parse_max_steps(text) if text else DEFAULT_HOST_MAX_STEPS


@dataclass
class _Tracker:
    """The op being interpreted, so that any failure can be located there."""

    op: Operation | None = None


class HostInterpreter(Interpreter):
    def __init__(
        self,
        module: ModuleOp,
        backend: Backend,
        params: Mapping[str, Any],
        arrays: Sequence[Any],
        out: IO[str] | None,
    ):
        from ferrox.driver.interpreter.arith_ops import FerroxArithFunctions
        from ferrox.driver.interpreter.math_ops import FerroxMathFunctions

        super().__init__(module, index_bitwidth=64)
        functions = (
            HostFunctions,
            FerroxArithFunctions,
            FerroxMathFunctions,
            ScfFunctions,
            FuncFunctions,
        )
        for f in functions:
            self.register_implementations(f())
        self.tracker = _Tracker()
        self.backend = backend
        self.params = dict(params)
        self.arrays = list(arrays)
        self.out = out
        self.checks: list[CheckResult] = []
        self.kernels: dict[str, Any] = {}  # name -> KernelArtifact, once the module is compiled
        self.compiled: ModuleArtifact | None = None  # the module's artifact, once compiled
        self._static: dict[Any, Any] = {}
        self.steps, self.max_steps = 0, host_max_steps()

    def _run_op(self, op: Operation, inputs: PythonValues) -> OpImplResult:
        """xDSL's dispatch without its error wrapper, which prints the whole module into the
        exception: a failure here becomes a located diagnostic instead."""
        self.tracker.op = op
        self.steps += 1
        if self.steps > self.max_steps:
            raise HostRunError(
                op,
                f"the host program ran past its step budget of {self.max_steps:,} operations (a "
                "loop that does not end?); raise it with FERROX_HOST_MAX_STEPS",
            )
        entry = self._impls._impl_dict.get(type(op))  # pyright: ignore[reportPrivateUsage]
        if entry is None:
            raise HostRunError(op, f"the host runner cannot run '{op.name}' (no implementation)")
        ft, fn = entry
        return fn(ft, self, op, inputs)

    # -- what the SIMT interpreter's arith and math functions ask of their interpreter
    def static(self, op: Operation, compute: Callable[[Operation], Any]) -> Any:
        key = (id(op), compute)
        if key not in self._static:
            self._static[key] = compute(op)
        return self._static[key]

    def trap(self, op: Operation | None, message: str, cls: type = HostRunError) -> Exception:
        return HostRunError(op, message)

    # -- what the host functions ask of it
    def call_backend(self, op: Operation, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except DiagnosticError:
            raise
        except Exception as e:
            raise HostRunError(op, f"'{op.name}' failed: {_describe(e)}") from None

    def make(self, op: Operation, data: np.ndarray) -> Tensor:
        element_type = op.results[0].type.element_type  # type: ignore[attr-defined]
        return self.call_backend(op, self.backend.upload, data, element_type)

    def bind_array(self, op: host.FromArrayOp) -> Tensor:
        obj = self.arrays[op.index.value.data]
        return self.call_backend(op, self.backend.bind, obj, op.result.type.element_type)

    def artifact(self, op: Operation, kernel: Operation) -> Any:
        """The compiled facts of `kernel` (its `KernelArtifact`)."""
        name = kernel.properties["sym_name"].data  # type: ignore[attr-defined]
        found = self.kernels.get(name)
        if found is None:  # the verifier and the compiler rule this out
            raise HostRunError(op, f"@{name} has no compiled artifact")
        return found

    def launch(self, op: Operation, kernel: Operation, grid: Dim3, block: Dim3, shared: int,
               values: Sequence[Any], stream: Stream) -> None:  # fmt: skip
        artifact = self.artifact(op, kernel)
        try:
            self.backend.launch(self.module, artifact, grid, block, shared, values, stream.handle)
        except Exception as e:
            raise _launch_error(op, kernel, e) from None
        stream.pending.append(op)

    def tile_launch(self, op: Operation, kernel: Operation, checked: CheckedLaunch,
                    values: Sequence[Any], stream: Stream,
                    artifact: Any = None) -> None:  # fmt: skip
        """Enqueue `kernel`'s checked launch (or `artifact`'s, its portable twin). `NoTensorMap`
        passes through when the kernel has a twin, to launch that instead."""
        artifact = artifact or self.artifact(op, kernel)
        try:
            self.backend.tile_launch(self.module, artifact, checked, values, stream.handle)
        except NoTensorMap as e:
            if artifact.tile is not None and artifact.tile.portable:
                raise
            raise _launch_error(op, kernel, e) from None
        except Exception as e:
            raise _launch_error(op, kernel, e) from None
        stream.pending.append(op)

    def portable(self, op: Operation, artifact: Any, refused: NoTensorMap) -> Any:
        """The portable twin of `artifact` (a TMA kernel that `refused` a launch's tensors),
        compiled and loaded the first time a launch needs it (`portable_artifact`); a twin
        that cannot be made leaves the launch refused, located, with why."""
        from ferrox.driver.runtime.twin import twin_in
        from ferrox.targets.cache import portable_artifact

        name = artifact.tile.portable
        twin = self.kernels.get(name)
        if twin is not None:
            return twin
        assert self.compiled is not None
        try:
            made = portable_artifact(self.compiled, artifact.name)
            twin = twin_in(made, artifact)  # the twin alone, with the kernel's parameters
        except (DiagnosticError, InternalError) as e:
            raise HostRunError(
                op,
                f"launch of @{artifact.name} failed: {_describe(refused)}; its portable twin "
                f"@{name} cannot be made: {e}",
            ) from None
        self.backend.load_portable(made)
        self.kernels[name] = twin
        return twin

    def sync(self, op: Operation, stream: Stream) -> None:
        """Wait for `stream`; a failure there is a kernel that faulted after its launch returned
        (on the GPU a trap surfaces only here), so the launches it may have been are the notes."""
        try:
            self.backend.sync(stream.handle)
        except Exception as e:
            notes = [(launch, "launched here") for launch in stream.pending]
            raise HostRunError(
                op,
                f"a kernel on this stream failed: {_describe(e)}; `ferrox run --device cpu` runs "
                "the same program on the interpreter, which locates the failing op and thread",
                notes,
            ) from None
        stream.pending.clear()

    def read(self, op: Operation, value: Any) -> Any:
        """A value as the host sees it: tensors downloaded, scalars as NumPy scalars."""
        if isinstance(value, Partition):
            value = value.tensor
        if isinstance(value, Tensor):
            return self.call_backend(op, self.backend.download, value)
        return for_formula(value)

    def record(self, result: CheckResult) -> None:
        self.checks.append(result)
        self.emit(result.line())

    def emit(self, text: str) -> None:
        if self.out is not None:
            print(text, file=self.out, flush=True)


def _describe(e: Exception) -> str:
    text = str(e)
    return text if text else type(e).__name__


def _launch_error(op: Operation, kernel: Operation, e: Exception) -> DiagnosticError:
    name = f"@{kernel.properties['sym_name'].data}"  # type: ignore[attr-defined]
    if isinstance(e, LaunchError):
        return HostRunError(op, [f"cannot launch {name}: {p}" for p in e.problems])
    if isinstance(e, DiagnosticError):  # a fault inside the kernel, located there
        diagnostics = list(e.diagnostics)
        diagnostics[-1].notes.append(make("note", op, f"in the launch of {name} here"))
        return DiagnosticError(diagnostics)
    return HostRunError(op, f"launch of {name} failed: {_describe(e)}")


def entry_function(module: ModuleOp, entry: str) -> func.FuncOp:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == entry:
            return op
    names = [op.sym_name.data for op in module.ops if isinstance(op, func.FuncOp)]
    have = ", ".join(f"@{n}" for n in names) if names else "none"
    raise HostRunError(module, f"no host program @{entry} in this module (host functions: {have})")


def param_names(fn: func.FuncOp) -> list[str]:
    return [op.param_name.data for op in fn.walk() if isinstance(op, host.ParamOp)]


def check_inputs(
    fn: func.FuncOp, backend: Backend, params: Mapping[str, Any], arrays: Sequence[Any]
) -> None:
    """Everything about the caller's inputs that can be known before the first op runs."""
    problems = []
    if fn.function_type.inputs.data:
        problems.append(make(
            "error", fn,
            f"@{fn.sym_name.data} takes arguments, but a host program gets its inputs from "
            "host.param, creation ops and host.from_array",
        ))  # fmt: skip
    known = param_names(fn)
    for name in params:
        if name not in known:
            have = ", ".join(known) if known else "none"
            problems.append(make(
                "error", fn, f"unknown parameter '{name}' (this program's parameters: {have})"
            ))  # fmt: skip
    bound: set[int] = set()
    for op in fn.walk():
        if not isinstance(op, host.FromArrayOp):
            continue
        index = op.index.value.data
        bound.add(index)
        if index >= len(arrays):
            problems.append(make(
                "error", op,
                f"host.from_array {index} needs caller array {index}, but "
                f"{_count(len(arrays))} given",
            ))  # fmt: skip
            continue
        try:
            elem, shape = backend.inspect(arrays[index])
        except TypeError as e:
            problems.append(make("error", op, f"caller array {index} cannot be bound: {e}"))
            continue
        if (why := misfit(elem, shape, op.result.type)) is not None:
            problems.append(make("error", op, f"caller array {index} {why}"))
    for index in range(len(arrays)):
        if index not in bound:
            problems.append(make(
                "error", fn, f"caller array {index} is not bound by any host.from_array in "
                f"@{fn.sym_name.data}",
            ))  # fmt: skip
    if problems:
        raise DiagnosticError(problems)


def _count(n: int) -> str:
    return "no arrays were" if n == 0 else f"only {n} array{'s were' if n != 1 else ' was'}"


def run_host_program(
    module: ModuleOp,
    backend: Backend,
    *,
    entry: str = "main",
    params: Mapping[str, Any] | None = None,
    arrays: Sequence[Any] = (),
    out: IO[str] | None = sys.stdout,
    artifact: ModuleArtifact | None = None,
    keep_outputs: bool = False,
) -> RunResult:
    """Run `@entry` of a verified module; raises a located `DiagnosticError` on any failure.

    Check lines (and `host.print` output) go to `out` (None: silent). `artifact` is the
    module's kernels already compiled for `backend.chip` (else they are compiled here);
    `keep_outputs=True` leaves `@entry`'s returned tensors as the backend holds them (`Tensor`,
    on the GPU in device memory) instead of downloading them to NumPy.
    """
    fn = entry_function(module, entry)
    params = dict(params or {})
    interp = HostInterpreter(module, backend, params, arrays, out)
    try:
        check_inputs(fn, backend, params, arrays)
        if has_kernels(module):
            artifact = artifact or module_artifact(module, backend.chip, ptx=backend.name != "cpu")
            interp.kernels = dict(artifact.kernels)
            interp.compiled = artifact
            backend.load(module, artifact)
        try:
            results = interp.call_op(fn, ())
        except DiagnosticError:
            raise
        except Exception as e:
            where = interp.tracker.op or fn
            raise HostRunError(where, f"'{where.name}' failed: {_describe(e)}") from None
        outputs = tuple(v if keep_outputs else _output(interp, fn, v) for v in results)
    finally:
        backend.close()
    return RunResult(backend.name, backend.device_name, interp.checks, outputs)


def _output(interp: HostInterpreter, fn: func.FuncOp, value: Any) -> Any:
    shown = interp.read(fn, value)
    return np.array(shown) if isinstance(shown, np.ndarray) else shown
