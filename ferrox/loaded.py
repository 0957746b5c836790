"""A compiled module loaded on a device: `mod["name"]` is a `Kernel`, `k[grid, block](...)` a
checked launch (see `ferrox.api` for the whole API).

Apart from `ferrox.api` because this half imports NumPy, the launch checker and (on the GPU) the
CUDA runtime: `ferrox.compile`, a cache hit in a new process, imports none of them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ferrox.artifact import KernelArtifact, ModuleArtifact
from ferrox.driver.checker import (
    INTERPRETER_LIMITS,
    BufferArg,
    CheckedLaunch,
    LaunchError,
    check_launch,
    numpy_buffer,
)
from ferrox.driver.checker.relaunch import Relaunch, relaunch_for
from ferrox.driver.checker.signature import signature
from ferrox.driver.checker.tile import simt_arguments
from ferrox.driver.runtime.errors import NoTensorMap

if TYPE_CHECKING:  # xDSL loads only when something is parsed (the CPU interpreter's module)
    from xdsl.dialects.builtin import ModuleOp


class Module:
    """A compiled module ready on one device: `mod["name"]` is a kernel."""

    fallback: str | None = None
    """Why `auto` runs on the CPU interpreter (no usable GPU), else None."""

    def __init__(self, artifact: ModuleArtifact, device: Any):
        self.artifact = artifact
        self._device = device

    @property
    def device(self) -> str:
        """`gpu` or `cpu`."""
        return self._device.name

    def __getitem__(self, name: str) -> Kernel:
        return Kernel(self.artifact[name], self._device)

    def __contains__(self, name: str) -> bool:
        return name in self.artifact.kernels

    def __repr__(self) -> str:
        return f"<ferrox module on {self.device}: {', '.join(self.artifact.kernels)}>"


@dataclass(frozen=True)
class Kernel:
    """One kernel of a loaded module: `k[grid, block](*args)` launches it, checked."""

    artifact: KernelArtifact
    _device: Any

    @property
    def name(self) -> str:
        return self.artifact.name

    def __getitem__(self, config: Any) -> Launch:
        if type(config) is tuple and len(config) == 2:
            grid, block = config
        elif isinstance(config, tuple) and len(config) == 2:
            grid, block = config[0], config[1]
        else:
            grid, block = config, None
        if not (
            (type(grid) is int or _exact(grid)) and (type(block) is int or _exact(block))
        ):  # 4.0 == 4: never another launch's entry
            return Launch(self, grid, block)
        launches = self._device.launches
        key = (self.artifact.name, grid, block)
        launch = launches.get(key)
        if launch is None:
            launch = Launch(self, grid, block)
            if len(launches) >= 256:
                launches.clear()
            launches[key] = launch
        return launch

    def __call__(self, *args: Any, stream: Any = None) -> None:
        """A tile kernel over its output partition's tile grid (a SIMT kernel needs `k[grid]`)."""
        artifact = self.artifact
        if artifact.tile is None:
            raise TypeError(
                f"@{self.name} is a SIMT kernel: give its grid, k[grid](...) or k[grid, block](...)"
            )
        launch = self._device.launches.get((artifact.name, None, None)) or self[None, None]
        launch(*args, stream=stream)

    def check(self, grid: Any, block: Any, *args: Any, shared_bytes: int | None = None):
        """What the checker makes of this launch (a `CheckedLaunch`), launching nothing."""
        with self._device.arguments(self.artifact, args, None) as bound:
            return self._device.check(self.artifact, grid, block, shared_bytes, bound)

    def unsafe_launch(
        self, grid: Any, block: Any, *args: Any, shared_bytes: int = 0, stream: Any = None
    ) -> None:
        """Launch with no checks: the caller vouches for the contract, the arguments and that
        no output aliases anything. What the kernel does then is on the caller."""
        self._device.launch_unchecked(self.artifact, grid, block, shared_bytes, args, stream)

    def __repr__(self) -> str:
        return f"<ferrox kernel @{self.name} on {self._device.name}>"


_NONE = object()  # no shared bytes yet: equal to no argument's


class Launch:
    """`k[grid, block]`: call it with the arguments to check and launch.

    A plain class with slots, its device's `call` and the artifact looked up once: one is made
    per `k[grid, block]`, which a caller may write for every launch (a frozen dataclass cost
    about 1 µs of a relaunch's few)."""

    __slots__ = ("_artifact", "_call", "_hot", "_kept", "_last", "block", "grid", "kernel")

    def __init__(self, kernel: Kernel, grid: Any, block: Any):
        self.kernel, self.grid, self.block = kernel, grid, block
        self._artifact = kernel.artifact
        self._call = kernel._device.call
        self._kept: dict[tuple, Relaunch] = {}
        """(shared bytes, signature key) -> the `Relaunch` the GPU's checked launch returned
        for this grid and block: a repeat is served here, one call short of the device's memo
        (the same `Relaunch`, aliasing rule and stream rule included)."""
        self._last: tuple = (_NONE, (), None)
        """The (shared bytes, key, Relaunch) served last: a loop that repeats one launch
        compares its key with this one (cheaper than hashing it for the dict)."""
        self._hot: Any = None
        """The last `Relaunch` served without shared bytes, written out as one function
        (`Relaunch.hot`): a loop repeating one launch is served by that call alone, and any
        other call (another key, an overlap, another stream) falls through to the path below."""

    def __call__(self, *args: Any, shared_bytes: int | None = None, stream: Any = None) -> None:
        if shared_bytes is None:
            hot = self._hot
            if hot is not None and hot(args, stream):
                return
        kept = self._kept
        if kept and (shared_bytes is None or type(shared_bytes) is int):
            found = signature(args)
            if found is not None:
                last_shared, last_key, relaunch = self._last
                key = found[0]
                if shared_bytes != last_shared or key != last_key:
                    relaunch = kept.get((shared_bytes, key))
                    if relaunch is not None:
                        self._last = (shared_bytes, key, relaunch)
                if relaunch is not None and relaunch(found[1], stream):
                    if shared_bytes is None:
                        self._hot = relaunch.hot()
                    return
        relaunch = self._call(self._artifact, self.grid, self.block, shared_bytes, args, stream)
        if relaunch is not None:
            if len(kept) >= 64:
                kept.clear()
            kept[shared_bytes, relaunch.key] = relaunch
            self._last = (shared_bytes, relaunch.key, relaunch)
            if shared_bytes is None:
                self._hot = relaunch.hot()

    def __eq__(self, other: object) -> bool:
        return type(other) is Launch and (self.kernel, self.grid, self.block) == (
            other.kernel,
            other.grid,
            other.block,
        )

    def __hash__(self) -> int:
        return hash((self.kernel, self.grid, self.block))

    def __repr__(self) -> str:
        return f"<ferrox launch of @{self.kernel.name} grid={self.grid!r} block={self.block!r}>"


# -- arguments -------------------------------------------------------------------------------


def _is_torch(obj: Any) -> bool:
    return type(obj).__module__.startswith("torch") and hasattr(obj, "data_ptr")


def _torch_buffer(t: Any, obj: Any = None) -> BufferArg:
    """A torch tensor (any device) as a `BufferArg`: its extent over its strides."""
    item = t.element_size()
    lo = sum(s * (n - 1) for s, n in zip(t.stride(), t.shape) if s < 0) * item
    hi = sum(s * (n - 1) for s, n in zip(t.stride(), t.shape) if s > 0) * item + item
    if t.numel() == 0:
        lo = hi = 0
    name = str(t.dtype).removeprefix("torch.")
    element = _TORCH_ELEMENTS.get(name, f"<{name}>")
    return BufferArg(
        t.data_ptr() + lo,
        hi - lo,
        int(t.numel()),
        element,
        tuple(int(d) for d in t.shape),
        contiguous=bool(t.is_contiguous()),
        obj=t if obj is None else obj,
    )


_TORCH_ELEMENTS = {
    "bool": "i1",
    "int8": "i8",
    "uint8": "i8",
    "int16": "i16",
    "uint16": "i16",
    "int32": "i32",
    "uint32": "i32",
    "int64": "i64",
    "uint64": "i64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
}


def _torch_device(args: Sequence[Any]) -> int | None:
    """The device of the first torch CUDA tensor in `args` (its current stream is the one the
    launch goes on), else None."""
    for arg in args:
        if _is_torch(arg) and getattr(arg, "is_cuda", False):
            return int(arg.get_device())
    return None


def _exact(config: Any) -> bool:
    """Whether a grid or block is None, an int or a tuple of ints, exactly: a memo key only
    for those (4.0 == 4 and True == 1 hash alike, but the checker refuses a float or a bool)."""
    if config is None or type(config) is int:
        return True
    if type(config) is not tuple:
        return False
    for d in config:
        if type(d) is not int:
            return False
    return True


_BUFFERS = "ferrox.driver.runtime.buffers"


def _on_cuda(obj: Any) -> bool:
    if type(obj).__module__ == _BUFFERS:  # ferrox's own device memory (bf16 has no CAI)
        return True
    if hasattr(obj, "__cuda_array_interface__"):
        return True
    device = getattr(obj, "__dlpack_device__", None)
    if callable(device):
        try:
            return int(device()[0]) != 1  # kDLCPU
        except Exception:
            return False
    return False


def _label(artifact: KernelArtifact, i: int) -> str:
    from ferrox.driver.checker.names import param_name

    return f"{param_name(artifact.params, i)} (argument #{i}) of @{artifact.name}"


class _Bound:
    """A launch's arguments as the checker sees them (`args`), and what the device runs on."""

    def __init__(self, args: list[Any], stream: Any = None):
        self.args = args
        self.stream = stream  # the stream the launch goes on (GPU)
        self.after: list[Any] = []  # callbacks once the launch is done (copy back, free)

    def __enter__(self) -> _Bound:
        return self

    def __exit__(self, *exc: object) -> None:
        for finish in self.after:
            finish()


# -- the CPU reference interpreter -----------------------------------------------------------


class CpuDevice:
    name = "cpu"
    limits = INTERPRETER_LIMITS

    def __init__(self, artifact: ModuleArtifact):
        self.artifact = artifact
        self._module: ModuleOp | None = None
        self.launches: dict[tuple, Launch] = {}  # `Kernel.__getitem__`'s, by (name, grid, block)

    @property
    def module(self) -> ModuleOp:
        """The verified module the interpreter runs (parsed from the artifact once)."""
        if self._module is None:
            from ferrox.parser import parse_module
            from ferrox.registry import make_context

            self._module = parse_module(make_context(), self.artifact.source, "<artifact>")
        return self._module

    def arguments(self, artifact: KernelArtifact, args: Sequence[Any], stream: Any) -> _Bound:
        problems = []
        described: list[Any] = []
        for i, value in enumerate(args):
            if isinstance(value, np.ndarray):
                described.append(numpy_buffer(value))
            elif _is_torch(value) and not _on_cuda(value):
                described.append(_torch_buffer(value))
            elif _on_cuda(value):
                problems.append(
                    f"{_label(artifact, i)} is a {type(value).__name__} on a CUDA device, but "
                    "this module runs on the CPU interpreter: pass a host array, or load it "
                    "with device='gpu'"
                )
                described.append(value)
            elif hasattr(value, "__dlpack__"):
                described.append(numpy_buffer(np.from_dlpack(value), obj=value))
            else:
                described.append(value)
        if problems:
            raise LaunchError(f"@{artifact.name}", problems)
        return _Bound(described)

    def check(self, artifact, grid, block, shared_bytes, bound: _Bound) -> CheckedLaunch:
        return check_launch(artifact, grid, block, shared_bytes, bound.args, self.limits)

    def call(self, artifact, grid, block, shared_bytes, args, stream) -> None:
        """A checked launch: check, then run."""
        with self.arguments(artifact, args, stream) as bound:
            checked = self.check(artifact, grid, block, shared_bytes, bound)
            self.launch(artifact, checked, bound, stream)

    def _host_values(self, artifact: KernelArtifact, bound: _Bound) -> list[Any]:
        """What the interpreter takes: NumPy arrays (bf16 as float32 copies, written back)."""
        values = []
        for param, value in zip(artifact.params, bound.args):
            if not isinstance(value, BufferArg):
                values.append(value)
                continue
            obj = value.obj
            if isinstance(obj, np.ndarray):
                values.append(obj)
            elif _is_torch(obj) and str(obj.dtype) == "torch.bfloat16":
                array = obj.detach().float().numpy()
                values.append(array)
                if param.kind.is_exclusive:
                    bound.after.append(_copy_back_torch(obj, array))
            elif _is_torch(obj):
                values.append(obj.detach().numpy())
            else:
                values.append(np.from_dlpack(obj))
        return values

    def launch(self, artifact, checked: CheckedLaunch, bound: _Bound, stream: Any) -> None:
        values = self._host_values(artifact, bound)
        self._run(artifact, checked.grid, checked.block, checked.shared_bytes, values)

    def _run(self, artifact, grid, block, shared_bytes, values) -> None:
        from ferrox.driver.interpreter import LaunchError as Refused
        from ferrox.driver.interpreter import run_simt_kernel
        from ferrox.driver.interpreter.tile_lowered import run_lowered_tile_kernel

        try:  # the interpreter refuses before any thread runs what it cannot hold (bf16 SIMT)
            if artifact.tile is not None:
                run_lowered_tile_kernel(self.module, artifact.name, values)
            else:
                run_simt_kernel(self.module, artifact.name, grid, block, values, shared_bytes)
        except Refused as e:
            raise LaunchError(f"@{artifact.name}", [str(e)]) from None

    def launch_unchecked(self, artifact, grid, block, shared_bytes, args, stream) -> None:
        with self.arguments(artifact, args, stream) as bound:
            values = self._host_values(artifact, bound)
            self._run(artifact, grid, block, shared_bytes, values)


def _copy_back_torch(tensor: Any, array: np.ndarray):
    def finish() -> None:
        torch = sys.modules["torch"]
        tensor.copy_(torch.from_numpy(array))

    return finish


# -- the GPU ---------------------------------------------------------------------------------


class GpuDevice:
    name = "gpu"

    def __init__(self, artifact: ModuleArtifact, ordinal: int, limits: Any):
        from ferrox.driver.runtime.launcher import LoadedModule

        self.ordinal = ordinal
        self.limits = limits
        self.loaded = LoadedModule.load(artifact, ordinal)
        self.launches: dict[tuple, Launch] = {}
        """`Kernel.__getitem__`'s launches by (kernel name, grid, block), exact ints only: a
        `k[grid, block](...)` written per call finds the one made before, and its memo."""
        self._passed: dict[tuple, Relaunch] = {}
        """Launches the checker passed, by (kernel, grid, block, shared bytes, signature key):
        what launches them again on other addresses (`driver/checker/relaunch.py`)."""
        self._unchecked: dict[tuple, Relaunch] = {}
        """`unsafe_launch`'s repeats, by the same key as `_passed` (`launch_unchecked`)."""
        self._unchecked_hot: dict[tuple, Any] = {}
        """(kernel, grid, block, shared bytes), ints only -> the written-out relaunch
        (`Relaunch.hot`) of the `unsafe_launch` served last with them: a loop repeating one
        raw launch is one look-up and that call."""
        self._twins: dict[str, KernelArtifact | str] = {}
        """Twin name -> its artifact (its module in `_modules`), or why it cannot be made;
        compiled when a launch first needs it (`portable`)."""
        self._modules: dict[str, Any] = {}
        """Kernel name -> the loaded module it lives in, for the twins (the others are in
        `loaded`)."""
        self._twin_lock = threading.Lock()
        """Held while a twin is compiled: one compile and one module, whichever thread asks
        first."""

    def call(self, artifact, grid, block, shared_bytes, args, stream) -> Relaunch | None:
        """`checked_call`, or, when no TMA map can describe the tensors (`NoTensorMap`) and the
        tile kernel has a portable twin (`TileLaunch.portable`), the twin's checked launch.
        The twin's `Relaunch` is handed back (for `Launch` to repeat it on the same signature
        key) only when a shape ruled TMA out: an address alone did not rule it out for the next
        arguments with those shapes, which go through TMA again where they can."""
        try:
            return self.checked_call(artifact, grid, block, shared_bytes, args, stream)
        except NoTensorMap as e:
            twin = self.portable(artifact, e)
            if twin is None:
                raise
            why, by_address = str(e), e.by_address
        try:
            relaunch = self.checked_call(twin, grid, block, shared_bytes, args, stream)
            return None if by_address else relaunch
        except LaunchError as e:  # say which kernel was refused, and why that one
            raise LaunchError(
                e.kernel,
                [f"{p} (@{twin.name}, run because {why})" for p in e.problems],
            ) from None

    def portable(
        self, artifact: KernelArtifact, refused: NoTensorMap | None = None
    ) -> KernelArtifact | None:
        """The portable twin of a tile kernel whose loads go through TMA, if it has one:
        compiled and loaded the first time a launch needs it (`portable_artifact`, through
        the kernel cache), once a device. A twin that cannot be made leaves such launches
        refused, as without one; `refused` (the refusal) then gets a note saying why."""
        name = artifact.tile.portable if artifact.tile is not None else ""
        if not name:
            return None
        found = self._twins.get(name)
        if found is None:
            with self._twin_lock:  # one compile and one module, whichever thread asks first
                found = self._twins.get(name)
                if found is None:
                    found = self._twins[name] = self._compile_twin(artifact.name, name)
        if isinstance(found, str):
            if refused is not None:
                refused.add_note(found)
            return None
        return found

    def _compile_twin(self, kernel: str, name: str) -> KernelArtifact | str:
        """The twin `name` of `kernel`, loaded (`_modules`), or why it cannot be made. An
        artifact stored before twins were compiled apart holds it itself: that one is taken."""
        from ferrox.diagnostics import DiagnosticError
        from ferrox.driver.runtime.launcher import LoadedModule
        from ferrox.driver.runtime.twin import twin_in
        from ferrox.targets.cache import portable_artifact

        if (inside := self.loaded.artifact.kernels.get(name)) is not None:
            return inside
        try:
            made = portable_artifact(self.loaded.artifact, kernel)
        except DiagnosticError as e:
            return f"@{kernel}'s portable twin @{name} cannot be made: {e}"
        twin = twin_in(made, self.loaded.artifact.kernels[kernel])
        self._modules[name] = LoadedModule.load(made, self.ordinal)
        return twin

    def _loaded_for(self, artifact: KernelArtifact) -> Any:
        """The loaded module `artifact`'s kernel lives in: the module's own, or its twin's."""
        return self._modules.get(artifact.name, self.loaded) if self._modules else self.loaded

    def checked_call(self, artifact, grid, block, shared_bytes, args, stream) -> Relaunch | None:
        """A checked launch. One whose signature key (`driver/checker/signature.py`: all the
        checker reads from the arguments but their addresses) was checked before goes to the
        driver with the parameters packed then and this call's addresses written in, once the
        aliasing rule passed on them; any other is checked in full, and remembered when nothing
        had to be staged for it. An explicit `stream` is relaunched on only where no ordering
        is needed (`Relaunch`: device arrays, or torch tensors on torch's current stream);
        other streams are checked in full each call, ordered by DLPack. Returns the
        `Relaunch` that can repeat it (the decorated kernels keep it), else None."""
        found = key = known = None
        if (
            (type(grid) is int or _exact(grid))
            and (type(block) is int or _exact(block))
            and (shared_bytes is None or type(shared_bytes) is int)
        ):
            found = signature(args)
            if found is not None:
                key = (artifact.name, grid, block, shared_bytes, found[0])
                known = self._passed.get(key)
                if known is not None and known(found[1], stream):
                    return known
        with self.arguments(artifact, args, stream) as bound:
            checked = self.check(artifact, grid, block, shared_bytes, bound)
            if key is None or bound.after:  # NumPy staged in and out: never repeated
                self.launch(artifact, checked, bound, stream)
                return None
            assert found is not None
            kernel = self._loaded_for(artifact).kernel(artifact.name)
            entry = self._entry(artifact, checked.entry_args, bound, bound.stream)
            packed = kernel.pack(entry, stream=bound.stream)
            kernel.launch_packed(
                checked.grid,
                checked.block,
                packed,
                shared_bytes=checked.shared_bytes,
                stream=bound.stream,
            )
            if known is not None:  # kept already (this call's stream needed ordering)
                return known
            relaunch = relaunch_for(
                found[0], found[1], artifact, checked, kernel, packed, _torch_device(args)
            )
            if relaunch is not None:
                if len(self._passed) >= 256:
                    self._passed.clear()
                self._passed[key] = relaunch
            return relaunch

    def _stream(self, args: Sequence[Any], stream: Any) -> Any:
        if stream is not None:
            return stream
        from ferrox.driver.runtime.streams import current_stream_for

        return current_stream_for(args)

    def arguments(self, artifact: KernelArtifact, args: Sequence[Any], stream: Any) -> _Bound:
        from ferrox.driver.runtime.buffers import view_of
        from ferrox.driver.runtime.errors import ArrayError

        on = self._stream(args, stream)
        problems = []
        described: list[Any] = []
        for i, value in enumerate(args):
            if isinstance(value, np.ndarray):
                described.append(numpy_buffer(value))
            elif _is_torch(value) and not value.is_cuda:  # asked once, not through its CAI
                problems.append(
                    f"{_label(artifact, i)} is a CPU tensor: move it to the GPU (.cuda()) or "
                    "pass a NumPy array, which is copied in and back"
                )
                described.append(value)
            elif _is_torch(value) or _on_cuda(value) or hasattr(value, "__dlpack__"):
                try:
                    view = view_of(value, stream=on)
                except ArrayError as e:
                    if _is_torch(value):  # a strided torch view: the checker names the rule
                        described.append(_torch_buffer(value))
                        continue
                    problems.append(f"{_label(artifact, i)}: {e}")
                    described.append(value)
                    continue
                if view.ordinal != self.ordinal:
                    problems.append(
                        f"{_label(artifact, i)} is on GPU {view.ordinal}, but the module is "
                        f"loaded on GPU {self.ordinal}: a kernel reaches only its own device's "
                        "memory (move the array there)"
                    )
                    described.append(value)
                    continue
                element = view.element
                if element.startswith("u"):
                    element = "i" + element[1:]  # integers are signless
                described.append(
                    BufferArg(
                        view.ptr,
                        view.nbytes,
                        view.size,
                        element,
                        view.shape,
                        writable=not view.readonly,
                        obj=view,
                    )
                )
            else:
                described.append(value)
        if problems:
            raise LaunchError(f"@{artifact.name}", problems)
        return _Bound(described, on)

    def check(self, artifact, grid, block, shared_bytes, bound: _Bound) -> CheckedLaunch:
        return check_launch(artifact, grid, block, shared_bytes, bound.args, self.limits)

    def _device_values(self, artifact: KernelArtifact, bound: _Bound, stream: Any) -> dict:
        """What each buffer argument is on the device, by the id of its `BufferArg`: device
        arrays as they are, NumPy arrays copied in (outputs copied back once the stream is
        done, then freed, when the launch's `with` block ends)."""
        from ferrox.driver.runtime.buffers import DeviceArray
        from ferrox.driver.runtime.device import synchronize

        on_device: dict[int, Any] = {}
        staged: list[tuple[Any, np.ndarray | None]] = []
        for param, value in zip(artifact.params, bound.args):
            if not isinstance(value, BufferArg):
                continue
            if isinstance(value.obj, np.ndarray):
                device = DeviceArray.from_numpy(
                    np.ascontiguousarray(value.obj), self.ordinal, element=value.element
                )  # the checker's element: bf16 for ferrox.bf16_bits' uint16
                staged.append((device, value.obj if param.kind.is_exclusive else None))
                on_device[id(value)] = device.view
            else:
                on_device[id(value)] = value.obj
        if staged:

            def finish() -> None:
                try:
                    if any(host is not None for _, host in staged):
                        synchronize(self.ordinal)  # the launch is done, on whichever stream
                        for device, host in staged:
                            if host is not None:
                                device.copy_to_host(host)
                finally:
                    for device, _ in staged:
                        device.free()

            bound.after.append(finish)
        return on_device

    def _entry(self, artifact, entry_args: Sequence[Any], bound: _Bound, stream: Any) -> list:
        on_device = self._device_values(artifact, bound, stream)
        return [on_device[id(v)] if isinstance(v, BufferArg) else v for v in entry_args]

    def launch(self, artifact, checked: CheckedLaunch, bound: _Bound, stream: Any) -> None:
        on = bound.stream
        entry = self._entry(artifact, checked.entry_args, bound, on)
        self._loaded_for(artifact).kernel(artifact.name).launch(
            checked.grid, checked.block, entry, shared_bytes=checked.shared_bytes, stream=on
        )

    def launch_unchecked(self, artifact, grid, block, shared_bytes, args, stream) -> None:
        """No checks. A launch whose signature key was launched so before goes to the driver
        with the parameters packed then and this call's addresses written in (a `Relaunch`
        with no aliasing pairs), as a checked relaunch does: binding the arguments afresh
        (DLPack, torch's array interface) costs several times the launch."""
        # No portable twin here: the twin takes its own block, which the caller did not give.
        fast = None
        if type(grid) is int and type(block) is int and type(shared_bytes) is int:
            fast = (artifact.name, grid, block, shared_bytes)
            hot = self._unchecked_hot.get(fast)
            if hot is not None and hot(args, stream):
                return
        found = key = None
        if _exact(grid) and _exact(block) and None not in (grid, block):
            found = signature(args)
            if found is not None:
                key = (artifact.name, grid, block, shared_bytes, found[0])
                known = self._unchecked.get(key)
                if known is not None and known(found[1], stream):
                    self._keep_hot(fast, known)
                    return
        with self.arguments(artifact, args, stream) as bound:
            on = bound.stream
            entry_args = simt_arguments(artifact.tile, bound.args) if artifact.tile else bound.args
            entry = self._entry(artifact, entry_args, bound, on)
            kernel = self.loaded.kernel(artifact.name)
            if key is None or bound.after:  # NumPy staged in and out: never repeated
                kernel.launch(grid, block, entry, shared_bytes=shared_bytes, stream=on)
                return
            assert found is not None
            packed = kernel.pack(entry, stream=on)
            kernel.launch_packed(grid, block, packed, shared_bytes=shared_bytes, stream=on)
            given = CheckedLaunch(
                artifact.name, _dim3(grid), _dim3(block), shared_bytes,
                tuple(bound.args), tuple(entry_args),
            )  # fmt: skip
            device = _torch_device(args)
            relaunch = relaunch_for(
                found[0], found[1], artifact, given, kernel, packed, device, aliasing=False
            )
            if relaunch is not None:
                if len(self._unchecked) >= 256:
                    self._unchecked.clear()
                self._unchecked[key] = relaunch
                self._keep_hot(fast, relaunch)

    def _keep_hot(self, fast: tuple | None, relaunch: Relaunch) -> None:
        """`relaunch` written out, for the next `unsafe_launch` with the dims `fast`."""
        if fast is not None:
            if len(self._unchecked_hot) >= 256:
                self._unchecked_hot.clear()
            self._unchecked_hot[fast] = relaunch.hot()


def _dim3(config: int | tuple[int, ...]) -> tuple[int, int, int]:
    dims = (config,) if isinstance(config, int) else config
    return (dims + (1, 1, 1))[:3]  # type: ignore[return-value]


__all__ = ["CpuDevice", "GpuDevice", "Kernel", "Launch", "LaunchError", "Module"]
