"""A stand-in for the GPU, so the runtime's and the GPU backend's own code runs without one.

It replaces the runtime's seams, and nothing above them: the device (`device._count_devices`,
`device._open_device`, the limits), memory (`buffers._alloc`, `_release`, `_copy_in`,
`_copy_out`: NumPy byte buffers behind fake addresses), streams (the fake device's
`create_stream`) and modules (`launcher._load_object`, `launcher._launch`,
`launcher._launch_packed`). Packing is real: a launch receives exactly the values
`LoadedKernel.values` (or `.pack`) made from the artifact's ABI, decodes
them back (a slice as its address and length, a pointer as an address, scalars by value) into
views of the fake memory, and runs the kernel on the SIMT interpreter, from the module text the
artifact carries (`ModuleArtifact.source`). Compilation is real too (llvmlite PTX).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ferrox.artifact import ModuleArtifact, ParamKind
from ferrox.driver.checker import INTERPRETER_LIMITS
from ferrox.driver.interpreter.bf16 import bf16_bits
from ferrox.driver.runtime import buffers, device, launcher, streams, tensor_map

H200 = dataclasses.replace(  # an H200's limits are the interpreter's, on a real device
    INTERPRETER_LIMITS, ordinal=0, name="Fake H200", sm_count=132, total_memory=141 * 2**30
)


@dataclass
class FakeDevice:
    """The fake GPU: its memory, and every launch it ran (name, grid, block, shared bytes)."""

    memory: dict[int, np.ndarray] = field(default_factory=dict)
    next_ptr: int = 0x7F0000000000
    launches: list[tuple[str, tuple, tuple, int]] = field(default_factory=list)
    streams: int = 0
    syncs: int = 0

    # -- memory
    def alloc(self, nbytes: int, ordinal: int = 0) -> int:
        if nbytes == 0:
            return 0
        ptr = self.next_ptr
        self.memory[ptr] = np.zeros(nbytes, dtype=np.uint8)
        self.next_ptr += (nbytes + 511) // 256 * 256
        return ptr

    def free(self, ptr: int) -> None:
        if ptr:
            del self.memory[ptr]

    def view(self, ptr: int, nbytes: int) -> np.ndarray:
        for base, buf in self.memory.items():
            if base <= ptr and ptr + nbytes <= base + buf.size:
                return buf[ptr - base : ptr - base + nbytes]
        raise AssertionError(f"access to unallocated fake device memory 0x{ptr:x} (+{nbytes})")

    def to_end(self, ptr: int) -> np.ndarray:
        """The bytes from `ptr` to the end of its allocation (what a raw pointer may reach)."""
        for base, buf in self.memory.items():
            if base <= ptr < base + buf.size:
                return buf[ptr - base :]
        raise AssertionError(f"pointer 0x{ptr:x} is outside fake device memory")

    # -- what cuda.core's Device offers the runtime
    @property
    def name(self) -> str:
        return H200.name

    def sync(self) -> None:
        self.syncs += 1

    def create_stream(self) -> FakeStream:
        self.streams += 1
        return FakeStream(self.streams)


class FakeStream:
    """What the runtime uses of a cuda.core stream."""

    def __init__(self, handle: int):
        self.handle = handle
        self.closed = False

    def sync(self) -> None:
        return None

    def close(self) -> None:
        self.closed = True


class FakeKernel:
    """A loaded entry: its ABI as the driver would report it, and the module to interpret."""

    def __init__(self, module: Any, artifact: ModuleArtifact, name: str):
        self.module, self.info = module, artifact[name]
        self.arguments_info = [(0, slot.nbytes) for slot in self.info.abi]
        self.name = name
        self.handle = 0  # what cuKernelSetAttribute is given (the fake accepts any)


@functools.lru_cache(maxsize=64)
def _device_code(source: str, chip: str) -> Any:
    """What the PTX of an artifact with this `source` and `chip` holds: its device code (tile
    kernels lowered to SIMT for that chip), parsed once per process for every test that loads
    it (the wgmma GEMM's parse is a quarter second). Only read: the interpreter never changes
    a module."""
    from xdsl.dialects.builtin import StringAttr

    from ferrox.lowering.pipeline import extract_device_code
    from ferrox.parser import parse_module
    from ferrox.registry import make_context
    from ferrox.targets.ptx import CHIP_ATTR

    module = parse_module(make_context(), source, "<artifact>")
    # the tile lowering's target, as `compile` stamped it (sm_90a was asked for as sm_90)
    module.attributes[CHIP_ATTR] = StringAttr(chip.removesuffix("a"))
    extract_device_code(module)  # what the PTX holds: tile kernels lowered to SIMT
    return module


class FakeCode:
    def __init__(self, artifact: ModuleArtifact):
        self.artifact = artifact
        self.module = _device_code(artifact.source, artifact.chip)

    def get_kernel(self, name: str) -> FakeKernel:
        return FakeKernel(self.module, self.artifact, name)


def _decode(fake: FakeDevice, kernel: FakeKernel, packed: tuple) -> list[Any]:
    """The packed PTX parameter values back as the interpreter's arguments (a TMA kernel's
    tensor maps, which follow its own parameters, dropped: the interpreter reads the slices)."""
    values = iter(packed[: len(packed) - len(kernel.info.tensor_maps)])
    arrays: list[Any] = []
    for param in kernel.info.entry_params:
        dtype = buffers.ELEMENT_DTYPES[param.element]
        if param.kind is ParamKind.SCALAR:
            value = next(values)
            arrays.append(value.item() if isinstance(value, np.generic) else value)
        elif param.kind is ParamKind.POINTER:
            raw = fake.to_end(int(next(values)) % 2**64)
            arrays.append(raw[: raw.size - raw.size % dtype.itemsize].view(dtype))
        else:
            ptr, length = int(next(values)), int(next(values))
            arrays.append(fake.view(ptr, length * dtype.itemsize).view(dtype))
        if param.element == "bf16" and param.kind is not ParamKind.SCALAR:
            arrays[-1] = bf16_bits(arrays[-1])  # the device's uint16 bits, as bf16
    assert next(values, None) is None, "more packed values than the entry's parameters"
    return arrays


@contextlib.contextmanager
def installed(monkeypatch, tmp_path, own_cache: bool = False) -> Iterator[FakeDevice]:
    """`install` for the span of a `with` (a fixture's yield, a test's body); at its end, the
    device buffers that the span's objects still hold in reference cycles are freed while the
    fake is installed (their finalizers release them to the fake device, not to the driver).

    That end is a full collection (`gc.collect()`) of the objects made during the span: the
    ones from before it (the test run's heap, up to millions of objects of compiled and parsed
    modules, none of them holding a buffer of this span's fake) are frozen (`gc.freeze()`), so
    it takes milliseconds where collecting the whole heap took up to a second a test. (Checked
    on every test that uses it: a whole-heap collection right after it frees no more fake device
    memory.) The frozen objects stay frozen: the test run
    keeps its heap frozen between files (tests/conftest.py), and unfreezing here would thaw all
    of it. (Not `gc.get_freeze_count()` to ask: it counts the frozen objects one by one, 0.16 s
    a call on a run's heap.)"""
    gc.freeze()
    try:
        yield install(monkeypatch, tmp_path, own_cache)
    finally:
        gc.collect()


def install(monkeypatch, tmp_path, own_cache: bool = False) -> FakeDevice:
    """Point the runtime at a fake device. Kernels compile through the test run's kernel cache
    (tests/conftest.py), shared with the CPU tests: the fake device launches the same artifact
    a real one would, and compiling the tensor-core GEMMs again for each fake-device test cost
    seconds each. `own_cache`: a cache of the test's own in `tmp_path`, for tests that count
    compiles or hits."""
    from ferrox.driver.interpreter import run_simt_kernel

    fake = FakeDevice()
    if own_cache:
        monkeypatch.setenv("FERROX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(device, "_count_devices", lambda: 1)
    monkeypatch.setattr(device, "_open_device", lambda ordinal: fake)
    monkeypatch.setattr(device, "_open_context", lambda ordinal: None)
    monkeypatch.setattr(device, "_current", threading.local())
    monkeypatch.setattr(device, "_limits", {0: H200})

    def alloc(nbytes: int, ordinal: int) -> tuple[int, Any]:
        ptr = fake.alloc(nbytes)
        return ptr, ptr

    def copy_in(ptr: int, host: np.ndarray, ordinal: int) -> None:
        fake.view(ptr, host.nbytes)[:] = host

    def copy_out(host: np.ndarray, ptr: int, ordinal: int) -> None:
        host[:] = fake.view(ptr, host.nbytes)

    monkeypatch.setattr(buffers, "_alloc", alloc)
    monkeypatch.setattr(buffers, "_release", lambda ptr, ordinal: fake.free(ptr))
    monkeypatch.setattr(buffers, "_copy_in", copy_in)
    monkeypatch.setattr(buffers, "_copy_out", copy_out)
    monkeypatch.setattr(streams, "_wrapped", {})

    def run(kernel: FakeKernel, grid: tuple, block: tuple, shared: int, values: tuple) -> None:
        arrays = _decode(fake, kernel, values)
        fake.launches.append((kernel.name, grid, block, shared))
        run_simt_kernel(kernel.module, kernel.name, grid, block, arrays, shared)

    def launch(stream: Any, config: Any, kernel: FakeKernel, values: tuple) -> None:
        run(kernel, tuple(config.grid), tuple(config.block), config.shmem_size, values)

    def launch_packed(loaded: Any, dims: tuple, stream: int, packed: Any) -> None:
        run(loaded.core, dims[0], dims[1], dims[2], packed.values)

    monkeypatch.setattr(launcher.LoadedModule, "_loaded", {})
    monkeypatch.setattr(
        launcher, "_load_object", lambda artifact, image, cubin, ordinal: FakeCode(artifact)
    )
    monkeypatch.setattr(launcher, "_launch", launch)
    monkeypatch.setattr(launcher, "_launch_packed", launch_packed)
    # TMA tensor maps: the fake has no driver to encode them (the launch still checks their bounds)
    monkeypatch.setattr(tensor_map, "encode_tiled", lambda *args: bytes(128))
    # opting in to dynamic shared memory past 48 KiB: the interpreter models the H200's 227 KiB
    monkeypatch.setattr(launcher._cu, "cuKernelSetAttribute", lambda attr, n, k, dev: (0,))
    return fake
