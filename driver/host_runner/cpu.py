"""The CPU backend: tensors are NumPy arrays, kernels run on the reference interpreter.

SIMT kernels run on `run_simt_kernel`, tile kernels on `run_tile_kernel`, both in place on the
tensors' arrays. Launches run eagerly, when enqueued (docs/dialects/host.md allows it: `verify-ownership`
guarantees nothing observes a launch's outputs before its stream is synced), so a stream is only
a name here. `prepare` checks launches against `INTERPRETER_LIMITS`, the CUDA limits of an sm_90
device, which is what the interpreter models.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from ferrox.driver.host_runner.arrays import host_elem, on_cuda_device
from ferrox.driver.host_runner.dtypes import numpy_dtype
from ferrox.driver.host_runner.values import Dim3, Partition, Tensor
from ferrox.driver.runtime.arrays import ArrayError
from ferrox.driver.runtime.device import DeviceLimits

INTERPRETER_LIMITS = DeviceLimits(
    ordinal=-1,
    name="the reference interpreter",
    compute_capability=(9, 0),
    sm_count=1,
    warp_size=32,
    max_threads_per_block=1024,
    max_block_dims=(1024, 1024, 64),
    max_grid_dims=(2**31 - 1, 65535, 65535),
    max_shared_per_block=48 * 1024,
    max_shared_per_block_optin=227 * 1024,
    max_registers_per_block=65536,
    total_memory=0,
)


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

    def load(self, module: ModuleOp) -> None:
        return None

    def upload(self, array: np.ndarray, element_type: Attribute) -> Tensor:
        data = np.array(array, dtype=numpy_dtype(element_type), order="C", copy=True)
        return Tensor(data, element_type, tuple(data.shape), data.dtype)

    def inspect(self, obj: Any) -> tuple[str, tuple[int, ...]]:
        array = host_array(obj)
        try:
            return host_elem(array.dtype), tuple(array.shape)
        except ArrayError as e:
            raise TypeError(str(e)) from None

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
        kernel: Operation,
        grid: Dim3,
        block: Dim3,
        shared: int,
        args: Sequence[Any],
        stream: Any,
    ) -> None:
        from ferrox.driver.interpreter import run_simt_kernel

        values = [_array_of(a) for a in args]
        name = kernel.properties["sym_name"].data  # type: ignore[attr-defined]
        run_simt_kernel(module, name, grid, block, values, shared)

    def tile_launch(
        self,
        module: ModuleOp,
        kernel: Operation,
        grid: tuple[int, ...],
        args: Sequence[Any],
        stream: Any,
    ) -> None:
        from ferrox.driver.interpreter.tile_kernel import run_tile_kernel

        values = [_array_of(a) for a in args]
        name = kernel.properties["sym_name"].data  # type: ignore[attr-defined]
        run_tile_kernel(module, name, values)

    def close(self) -> None:
        return None
