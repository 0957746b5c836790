"""The CPU backend: tensors are NumPy arrays, kernels run on the reference interpreter.

SIMT kernels run on `run_simt_kernel`, tile kernels as the GPU runs them: their
`convert-tile-to-simt` lowering on the same engine (`run_lowered_tile_kernel`), both in place on
the tensors' arrays. Launches run eagerly, when enqueued (docs/dialects/host.md allows it:
`verify-ownership` guarantees nothing observes a launch's outputs before its stream is
synced), so a stream is only a name here. The launch checker checks launches against
`INTERPRETER_LIMITS`, the CUDA limits of an sm_90 device, which is what the interpreter models.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute

from ferrox.artifact import KernelArtifact, ModuleArtifact
from ferrox.driver.checker import INTERPRETER_LIMITS, BufferArg, CheckedLaunch, numpy_buffer
from ferrox.driver.host_runner.arrays import host_elem, on_cuda_device
from ferrox.driver.host_runner.dtypes import numpy_dtype, runtime_elem
from ferrox.driver.host_runner.values import Dim3, Partition, Tensor


def host_array(obj: Any) -> np.ndarray:
    """A caller array as NumPy, without copying; `TypeError` for device memory or non-arrays."""
    if isinstance(obj, np.ndarray):
        return obj
    if on_cuda_device(obj):
        raise TypeError(
            f"the {type(obj).__name__} lives on a CUDA device, but this program runs on the CPU "
            "interpreter: pass a NumPy array (or a CPU tensor), or run on the GPU"
        )
    if hasattr(obj, "__dlpack__"):
        return np.from_dlpack(obj)
    raise TypeError(f"expected a NumPy array or a DLPack CPU array, got {type(obj).__name__}")


def _array_of(value: Any) -> Any:
    """A launch argument as the interpreters take it: the buffer of a tensor or partition."""
    if isinstance(value, Partition):
        value = value.tensor
    return value.data if isinstance(value, Tensor) else value


class CpuBackend:
    name = "cpu"
    device_name = "the CPU reference interpreter"
    limits = INTERPRETER_LIMITS
    chip = "sm_90"

    def load(self, module: ModuleOp, artifact: ModuleArtifact) -> None:
        return None

    def load_portable(self, artifact: ModuleArtifact) -> None:
        return None  # (the interpreter takes any tensor: no launch of it needs a twin)

    def describe(self, tensor: Tensor) -> BufferArg:
        """The tensor's array, of the tensor's element type (bf16 is held as float32 where
        NumPy has no bf16)."""
        element = runtime_elem(tensor.element_type)
        element = "i" + element[1:] if element.startswith("u") else element
        return dataclasses.replace(numpy_buffer(tensor.data, obj=tensor), element=element)

    def upload(self, array: np.ndarray, element_type: Attribute) -> Tensor:
        data = np.array(array, dtype=numpy_dtype(element_type), order="C", copy=True)
        return Tensor(data, element_type, tuple(data.shape), data.dtype)

    def inspect(self, obj: Any) -> tuple[str, tuple[int, ...]]:
        array = host_array(obj)
        return host_elem(array.dtype), tuple(array.shape)

    def bind(self, obj: Any, element_type: Attribute) -> Tensor:
        return self.upload(host_array(obj), element_type)

    def download(self, tensor: Tensor) -> np.ndarray:
        view = tensor.data.view()
        view.flags.writeable = False  # a check formula must not change a live tensor
        return view

    def stream(self) -> Any:
        return None

    def sync(self, stream: Any) -> None:
        return None

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
        from ferrox.driver.interpreter import run_simt_kernel

        values = [_array_of(a) for a in args]
        run_simt_kernel(module, kernel.name, grid, block, values, shared)

    def tile_launch(
        self,
        module: ModuleOp,
        kernel: KernelArtifact,
        checked: CheckedLaunch,
        args: Sequence[Any],
        stream: Any,
    ) -> None:
        from ferrox.driver.interpreter.tile_lowered import run_lowered_tile_kernel

        values = [_array_of(a) for a in args]
        run_lowered_tile_kernel(module, kernel.name, values)

    def close(self) -> None:
        return None
