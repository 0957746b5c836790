"""The GPU backend: tensors in device memory, kernels compiled by ferrox and launched on streams.

The module's kernels (tile kernels lowered to SIMT ones) are compiled once, up front, through
the kernel cache (`ferrox.api.compile` for the device's own chip) and loaded into the primary
context. A `host.stream` is a CUDA stream
of its own; a launch is queued on it and returns at once, and `host.sync_on` waits for it.
NumPy caller arrays are copied to the device; PyTorch and CuPy device arrays are used in place
(`as_device_array`), so a kernel writing one writes the caller's memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation

from ferrox.driver.host_runner.arrays import host_elem, on_cuda_device
from ferrox.driver.host_runner.dtypes import bf16_bits, from_bf16_bits, is_bf16, numpy_dtype
from ferrox.driver.host_runner.errors import BackendUnavailable
from ferrox.driver.host_runner.prepare import check_prepare
from ferrox.driver.host_runner.tile_args import lowered_tile_kernels, simt_arguments
from ferrox.driver.host_runner.values import Dim3, Tensor
from ferrox.driver.runtime.arrays import ArrayError, DeviceArray, as_device_array


def unavailable_reason(ordinal: int = 0) -> str | None:
    """None when the GPU at `ordinal` can run programs, else why not (never raises)."""
    try:
        from ferrox.driver.runtime import cuda
    except Exception as e:  # pragma: no cover - the runtime imports without a driver
        return f"the CUDA runtime layer cannot be imported: {e}"
    reason = cuda.unavailable_reason()
    if reason is None and ordinal >= cuda.device_count():
        return f"no CUDA device {ordinal}: this machine has {cuda.device_count()}"
    return reason


def _overlap(a: DeviceArray, b: DeviceArray) -> bool:
    return a.nbytes > 0 and b.nbytes > 0 and a.ptr < b.ptr + b.nbytes and b.ptr < a.ptr + a.nbytes


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
        self.program: Any = None
        self.tile_kernels: dict[str, Any] = {}
        self._streams: list[Any] = []
        self._foreign: dict[int, DeviceArray] = {}

    # -- kernels
    def load(self, module: ModuleOp) -> None:
        if not any(op.name in ("simt.kernel", "tile.kernel") for op in module.ops):
            return
        from ferrox.api import Program, compile

        self.program = Program(compile(module, chip=self.chip), self.ordinal)
        self.tile_kernels = lowered_tile_kernels(module)

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
        from ferrox.driver.runtime.abi import pack_args

        name = kernel.properties["sym_name"].data  # type: ignore[attr-defined]
        info = self.program.info(name)
        values = [a.data if isinstance(a, Tensor) else a for a in args]
        packed = pack_args(info.signature, values, ordinal=self.ordinal, stream=stream)
        self.program.kernel(name).launch(grid, block, packed, shared, stream)

    def tile_launch(
        self,
        module: ModuleOp,
        kernel: Operation,
        grid: tuple[int, ...],
        args: Sequence[Any],
        stream: Any,
    ) -> None:
        """The SIMT kernel the tile kernel was compiled to, prepared against its contract and
        the device's limits like any safe launch, then launched over the partition's grid."""
        name = kernel.properties["sym_name"].data  # type: ignore[attr-defined]
        lowered = self.tile_kernels[name]
        values = simt_arguments(lowered, args)
        assert lowered.contract is not None
        prepared = check_prepare(
            lowered, list(grid), list(lowered.contract.block_shape), None, values, self.limits
        )
        self.launch(module, lowered, prepared.grid, prepared.block, prepared.shared, values, stream)

    # -- memory
    def upload(self, array: np.ndarray, element_type: Attribute) -> Tensor:
        from ferrox.driver.runtime import cuda

        shape = tuple(array.shape)
        if is_bf16(element_type):
            data = DeviceArray.empty(shape, "bf16", self.ordinal)
            cuda.memcpy_htod(data.ptr, bf16_bits(array), ordinal=self.ordinal)
        else:
            data = DeviceArray.from_numpy(np.ascontiguousarray(array), self.ordinal)
        return Tensor(data, element_type, shape, numpy_dtype(element_type))

    def inspect(self, obj: Any) -> tuple[str, tuple[int, ...]]:
        try:
            if isinstance(obj, np.ndarray):
                return host_elem(obj.dtype), tuple(obj.shape)
            if not on_cuda_device(obj) and hasattr(obj, "__dlpack__"):
                array = np.from_dlpack(obj)
                return host_elem(array.dtype), tuple(array.shape)
            device = as_device_array(obj, ordinal=self.ordinal, copy=False)
        except ArrayError as e:
            raise TypeError(str(e)) from None
        for other_id, other in self._foreign.items():
            if other_id == id(obj) or _overlap(device, other):
                raise TypeError(
                    "it shares device memory with another caller array: arrays used in place "
                    "must not alias (pass a copy)"
                )
        self._foreign[id(obj)] = device
        return device.elem, device.shape

    def bind(self, obj: Any, element_type: Attribute) -> Tensor:
        device = self._foreign.pop(id(obj), None)
        if device is None:
            array = obj if isinstance(obj, np.ndarray) else np.from_dlpack(obj)
            return self.upload(array, element_type)
        return Tensor(device, element_type, device.shape, numpy_dtype(element_type))

    def download(self, tensor: Tensor) -> np.ndarray:
        data: DeviceArray = tensor.data
        if is_bf16(tensor.element_type):
            bits = np.empty(tensor.shape, dtype=np.uint16)
            data.copy_to_host(bits)
            return from_bf16_bits(bits)
        return data.copy_to_host()

    # -- streams
    def stream(self) -> Any:
        from ferrox.driver.runtime import cuda

        s = cuda.Stream(self.ordinal)
        self._streams.append(s)
        return s

    def sync(self, stream: Any) -> None:
        stream.synchronize()

    def close(self) -> None:
        """Finish queued work and destroy the streams; a failure here was already reported."""
        from ferrox.driver.runtime import cuda

        try:
            cuda.synchronize(self.ordinal)
        except Exception:
            pass
        for s in self._streams:
            try:
                s.destroy()
            except Exception:
                pass
        self._streams.clear()
        self._foreign.clear()
