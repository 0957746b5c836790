"""The GPU backend: tensors in device memory, kernels from the module's artifact, on streams.

The runner compiles the module once, through the kernel cache, for the device's own chip; the
backend loads the artifact's image (`LoadedModule`) and launches each kernel with its
arguments in `KernelArtifact.entry_params` order. A tile launch is the SIMT kernel it was
compiled to, with the arguments the launch checker mapped (`CheckedLaunch.entry_args`). A
`host.stream` is a CUDA stream of its own; a launch is queued on it and returns at once, and
`host.sync_on` waits for it. NumPy caller arrays are copied to the device; PyTorch and CuPy
device arrays are used in place (`view_of`), so a kernel writing one writes the caller's memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from ferrox.artifact import KernelArtifact, ModuleArtifact
from ferrox.driver.checker import BufferArg, CheckedLaunch
from ferrox.driver.host_runner.arrays import host_elem, on_cuda_device
from ferrox.driver.host_runner.dtypes import bf16_bits, from_bf16_bits, is_bf16, numpy_dtype
from ferrox.driver.host_runner.errors import BackendUnavailable
from ferrox.driver.host_runner.values import Dim3, Partition, Tensor
from ferrox.driver.runtime.device import unavailable_reason


def _signless(element: str) -> str:
    return "i" + element[1:] if element.startswith("u") else element


class GpuBackend:
    name = "gpu"

    def __init__(self, ordinal: int = 0, chip: str | None = None):
        if (reason := unavailable_reason(ordinal)) is not None:
            raise BackendUnavailable(reason)
        from ferrox.driver.runtime.device import device_limits

        self.ordinal = ordinal
        self.limits = device_limits(ordinal)
        self.device_name = self.limits.name
        self.chip = chip or self.limits.chip
        self.loaded: Any = None
        self._twins: dict[str, Any] = {}  # a portable twin's name -> its loaded module
        self._streams: list[Any] = []
        self._foreign: dict[int, Any] = {}
        self._kept: list[Any] = []

    # -- kernels
    def load(self, module: ModuleOp, artifact: ModuleArtifact) -> None:
        from ferrox.driver.runtime.launcher import LoadedModule

        self.loaded = LoadedModule.load(artifact, self.ordinal)

    def load_portable(self, artifact: ModuleArtifact) -> None:
        from ferrox.driver.runtime.launcher import LoadedModule

        loaded = LoadedModule.load(artifact, self.ordinal)
        self._twins.update(dict.fromkeys(artifact.kernels, loaded))

    def describe(self, tensor: Tensor) -> BufferArg:
        view = tensor.data.view
        return BufferArg(
            view.ptr,
            view.nbytes,
            view.size,
            _signless(view.element),
            tuple(tensor.shape),
            writable=not view.readonly,
            obj=tensor,
        )

    def launch(
        self,
        module: ModuleOp,
        kernel: KernelArtifact,
        grid: Dim3,
        block: Dim3,
        shared: int,
        args: Sequence[Any],
        stream: Any,
    ) -> None:
        values = [_device_value(a) for a in args]
        self.loaded.kernel(kernel.name).launch(
            grid, block, values, shared_bytes=shared, stream=stream
        )

    def tile_launch(
        self,
        module: ModuleOp,
        kernel: KernelArtifact,
        checked: CheckedLaunch,
        args: Sequence[Any],
        stream: Any,
    ) -> None:
        values = [
            _device_value(a.obj) if isinstance(a, BufferArg) else a for a in checked.entry_args
        ]
        loaded = self._twins.get(kernel.name, self.loaded)
        loaded.kernel(kernel.name).launch(
            checked.grid, checked.block, values, shared_bytes=checked.shared_bytes, stream=stream
        )

    # -- memory
    def upload(self, array: np.ndarray, element_type: Attribute) -> Tensor:
        from ferrox.driver.runtime.buffers import DeviceArray

        shape = tuple(array.shape)
        if is_bf16(element_type):
            data = DeviceArray.from_numpy(bf16_bits(array), self.ordinal, element="bf16")
        else:
            data = DeviceArray.from_numpy(np.ascontiguousarray(array), self.ordinal)
        return Tensor(data, element_type, shape, numpy_dtype(element_type))

    def inspect(self, obj: Any) -> tuple[str, tuple[int, ...]]:
        from ferrox.driver.runtime.buffers import view_of
        from ferrox.driver.runtime.errors import ArrayError

        if isinstance(obj, np.ndarray):
            return host_elem(obj.dtype), tuple(obj.shape)
        if not on_cuda_device(obj) and hasattr(obj, "__dlpack__"):
            array = np.from_dlpack(obj)
            return host_elem(array.dtype), tuple(array.shape)
        try:
            view = view_of(obj)
        except ArrayError as e:
            raise TypeError(str(e)) from None
        if view.ordinal != self.ordinal:
            raise TypeError(
                f"array is on CUDA device {view.ordinal}, but this program runs on device "
                f"{self.ordinal}"
            )
        for other_id, other in self._foreign.items():
            if other_id == id(obj) or view.overlaps(other):
                raise TypeError(
                    "it shares device memory with another caller array: arrays used in place "
                    "must not alias (pass a copy)"
                )
        self._foreign[id(obj)] = view
        return view.element, view.shape

    def bind(self, obj: Any, element_type: Attribute) -> Tensor:
        from ferrox.driver.runtime.buffers import DeviceArray

        view = self._foreign.pop(id(obj), None)
        if view is None:
            array = obj if isinstance(obj, np.ndarray) else np.from_dlpack(obj)
            return self.upload(array, element_type)
        self._kept.append(view)  # the caller's array stays alive while the program runs
        data = DeviceArray(view.ptr, view.shape, view.element, ordinal=self.ordinal)
        return Tensor(data, element_type, view.shape, numpy_dtype(element_type))

    def download(self, tensor: Tensor) -> np.ndarray:
        data = tensor.data
        if is_bf16(tensor.element_type):
            bits = np.empty(tensor.shape, dtype=np.uint16)
            data.copy_to_host(bits)
            return from_bf16_bits(bits)
        return data.copy_to_host()

    # -- streams
    def stream(self) -> Any:
        from ferrox.driver.runtime.streams import Stream

        s = Stream(self.ordinal)
        self._streams.append(s)
        return s

    def sync(self, stream: Any) -> None:
        stream.synchronize()

    def close(self) -> None:
        """Finish queued work and destroy the streams; a failure here was already reported."""
        from ferrox.driver.runtime.device import synchronize

        try:
            synchronize(self.ordinal)
        except Exception:
            pass
        for s in self._streams:
            try:
                s.close()
            except Exception:
                pass
        self._streams.clear()
        self._foreign.clear()
        self._kept.clear()


def _device_value(value: Any) -> Any:
    """A launch argument as the launcher takes it: a tensor's device view, or the scalar."""
    if isinstance(value, Partition):
        value = value.tensor
    return value.data.view if isinstance(value, Tensor) else value


__all__ = ["GpuBackend", "unavailable_reason"]
