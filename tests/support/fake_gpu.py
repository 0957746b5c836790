"""A stand-in for the CUDA driver, so the GPU backend's own code runs in CI without a GPU.

Device memory is a dict of NumPy byte buffers behind fake addresses; a launch decodes the packed
kernel parameters exactly as the PTX would receive them (a slice as its pointer and length, a
raw pointer as an address, scalars by value) back into views of that memory, and runs the
kernel on the SIMT reference interpreter. Compilation is real: `ferrox.api.compile` lowers the
module to PTX with llvmlite, so the signatures the backend packs by are the compiler's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ferrox.dialects.simt.types import PtrType
from ferrox.driver.runtime.device import DeviceLimits

H200 = DeviceLimits(
    ordinal=0,
    name="Fake H200",
    compute_capability=(9, 0),
    sm_count=132,
    warp_size=32,
    max_threads_per_block=1024,
    max_block_dims=(1024, 1024, 64),
    max_grid_dims=(2**31 - 1, 65535, 65535),
    max_shared_per_block=48 * 1024,
    max_shared_per_block_optin=227 * 1024,
    max_registers_per_block=65536,
    total_memory=141 * 2**30,
)


@dataclass
class FakeDevice:
    memory: dict[int, np.ndarray] = field(default_factory=dict)
    next_ptr: int = 0x7F0000000000
    launches: list[tuple[str, tuple, tuple, int]] = field(default_factory=list)
    module: Any = None
    streams: int = 0

    def alloc(self, nbytes: int, ordinal: int = 0) -> int:
        if nbytes == 0:
            return 0
        ptr = self.next_ptr
        self.memory[ptr] = np.zeros(nbytes, dtype=np.uint8)
        self.next_ptr += (nbytes + 511) // 256 * 256
        return ptr

    def free(self, ptr: int, ordinal: int = 0) -> None:
        if ptr:
            del self.memory[ptr]

    def view(self, ptr: int, nbytes: int) -> np.ndarray:
        for base, buf in self.memory.items():
            if base <= ptr and ptr + nbytes <= base + buf.size:
                return buf[ptr - base : ptr - base + nbytes]
        raise AssertionError(f"access to unallocated fake device memory 0x{ptr:x} (+{nbytes})")

    def htod(
        self, dst: int, src: Any, nbytes: int | None = None, stream: Any = None, ordinal: int = 0
    ) -> None:
        data = np.ascontiguousarray(src).reshape(-1).view(np.uint8)
        n = data.size if nbytes is None else nbytes
        if n:
            self.view(dst, n)[:] = data[:n]

    def dtoh(
        self, dst: Any, src: int, nbytes: int | None = None, stream: Any = None, ordinal: int = 0
    ) -> None:
        out = dst.reshape(-1).view(np.uint8)
        n = out.size if nbytes is None else nbytes
        if n:
            out[:n] = self.view(src, n)


class FakeStream:
    def __init__(self, device: FakeDevice, ordinal: int = 0, **_: Any):
        device.streams += 1
        self.handle = device.streams

    def synchronize(self) -> None:
        return None

    def destroy(self) -> None:
        return None


class FakeKernel:
    def __init__(self, device: FakeDevice, compiled: Any, name: str):
        self.device, self.compiled, self.name = device, compiled, name

    def launch(self, grid, block, args, shared_bytes=0, stream=None) -> None:
        from ferrox.driver.host_runner.dtypes import numpy_dtype
        from ferrox.driver.interpreter import find_kernel, run_simt_kernel

        kernel = find_kernel(self.device.module, self.name)
        values = [v for _, v in args]
        arrays: list[Any] = []
        pending = iter(values)
        for kind, param in zip(self.compiled[self.name].signature, kernel.params):
            if kind.startswith("slice:"):
                ptr, length = next(pending), next(pending)
                dtype = numpy_dtype(param.type.element_type)
                arrays.append(self.device.view(ptr, length * dtype.itemsize).view(dtype))
            elif kind == "ptr":
                assert isinstance(param.type, PtrType)
                ptr = next(pending)
                dtype = numpy_dtype(param.type.element_type)
                base = next(b for b, buf in self.device.memory.items() if b <= ptr < b + buf.size)
                size = self.device.memory[base].size - (ptr - base)
                arrays.append(self.device.view(ptr, size - size % dtype.itemsize).view(dtype))
            else:
                arrays.append(next(pending))
        self.device.launches.append((self.name, tuple(grid), tuple(block), shared_bytes))
        run_simt_kernel(
            self.device.module, self.name, tuple(grid), tuple(block), arrays, shared_bytes
        )


def register_tile_support() -> None:
    """The SIMT interpreter's implementations of the ops tile kernels lower to, where the
    interpreter does not have them itself yet (they live with the tile-to-SIMT tests)."""
    from ferrox.dialects import simt
    from ferrox.driver.interpreter import launch

    if any(simt.TileIndexOp in dict(f()._impls()) for f in launch.FUNCTIONS):
        return
    import simt_tile_impls

    simt_tile_impls.register()
    launch.interpreter_functions.cache_clear()  # the table is built once; rebuild it with these


def install(monkeypatch, tmp_path) -> FakeDevice:
    """Point the runtime at a fake device (and the kernel cache at `tmp_path`)."""
    import ferrox.api as api
    from ferrox.driver.runtime import cuda
    from ferrox.driver.runtime import device as device_module

    register_tile_support()
    device = FakeDevice()
    monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cuda, "unavailable_reason", lambda: None)
    monkeypatch.setattr(cuda, "device_count", lambda: 1)
    monkeypatch.setattr(cuda, "mem_alloc", device.alloc)
    monkeypatch.setattr(cuda, "mem_free", device.free)
    monkeypatch.setattr(cuda, "memcpy_htod", device.htod)
    monkeypatch.setattr(cuda, "memcpy_dtoh", device.dtoh)
    monkeypatch.setattr(cuda, "synchronize", lambda ordinal=0: None)
    monkeypatch.setattr(cuda, "Stream", lambda ordinal=0, **kw: FakeStream(device, ordinal, **kw))
    monkeypatch.setattr(device_module, "device_limits", lambda ordinal=0: H200)
    real_compile = api.compile

    def compile(source, chip="sm_90", opt=3, cache=True):
        from ferrox.lowering.pipeline import extract_device_code

        device.module = source.clone()
        extract_device_code(device.module)  # what the PTX holds: tile kernels lowered to SIMT
        return real_compile(source, chip=chip, opt=opt, cache=cache)

    class FakeProgram:
        def __init__(self, compiled, ordinal=0):
            self.compiled = compiled

        def info(self, name):
            return self.compiled[name]

        def kernel(self, name):
            return FakeKernel(device, self.compiled, name)

    monkeypatch.setattr(api, "compile", compile)
    monkeypatch.setattr(api, "Program", FakeProgram)
    return device
