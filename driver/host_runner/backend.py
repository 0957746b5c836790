"""What a host-program backend provides: storage for tensors, streams, and kernel launches.

The runner (`functions`) runs the host program itself in Python, op by op, and calls a backend
only for what touches memory or kernels. `cpu.CpuBackend` keeps tensors as NumPy arrays and
runs kernels on the reference interpreter; `gpu.GpuBackend` keeps them in device memory and
launches compiled kernels on CUDA streams. Both build inputs in NumPy (`creation`), so both see
the same data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from ferrox.artifact import KernelArtifact, ModuleArtifact
from ferrox.driver.checker import BufferArg, CheckedLaunch
from ferrox.driver.host_runner.values import Dim3, Tensor
from ferrox.driver.runtime.device import DeviceLimits


class ArrayInfo(Protocol):
    """What the runner needs to know of a caller's array before binding it."""

    elem: str
    shape: tuple[int, ...]


class Backend(Protocol):
    name: str
    """`cpu` or `gpu`."""
    device_name: str
    """What the program runs on, in words."""
    limits: DeviceLimits
    """What the launch checker checks launches against."""
    chip: str
    """The target the module's kernels are compiled for."""

    def load(self, module: ModuleOp, artifact: ModuleArtifact) -> None:
        """Get the module's kernels ready (load the compiled ones), before the program starts."""

    def load_portable(self, artifact: ModuleArtifact) -> None:
        """Get a portable twin's kernel ready (its own artifact, compiled when a launch first
        needs it: `targets.cache.portable_artifact`)."""

    def describe(self, tensor: Tensor) -> BufferArg:
        """A tensor's buffer as the launch checker sees it (its byte range, element, shape)."""

    def upload(self, array: np.ndarray, element_type: Attribute) -> Tensor:
        """A tensor holding a copy of `array` (already of the element type's dtype)."""

    def inspect(self, obj: Any) -> tuple[str, tuple[int, ...]]:
        """A caller array's element name and shape, or a `TypeError` saying why it cannot be one."""

    def bind(self, obj: Any, element_type: Attribute) -> Tensor:
        """A tensor for a caller array (already inspected): NumPy copied, device arrays in place."""

    def download(self, tensor: Tensor) -> np.ndarray:
        """The tensor's contents as a NumPy array (its stream was synced)."""

    def stream(self) -> Any:
        """A new stream handle."""

    def sync(self, stream: Any) -> None:
        """Wait for everything enqueued on `stream`."""

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
        """Enqueue a SIMT kernel with `args` (tensors and scalars, in parameter order)."""

    def tile_launch(
        self,
        module: ModuleOp,
        kernel: KernelArtifact,
        checked: CheckedLaunch,
        args: Sequence[Any],
        stream: Any,
    ) -> None:
        """Enqueue a checked tile launch (`args` in parameter order, partitions included;
        `checked.entry_args` the SIMT kernel's, as `BufferArg`s whose `obj` is the value)."""

    def close(self) -> None:
        """Wait for outstanding work and release what the backend holds."""
