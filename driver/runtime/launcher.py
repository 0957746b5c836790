"""Load a compiled module's image once per device, and launch its kernels.

`LoadedModule.load(artifact, ordinal)` loads the artifact's cubin (when it has one made for this
device's chip) or its PTX through the driver (`library.py`), once per (image, device) per
process. `LoadedKernel` launches one entry with arguments in `artifact.entry_params` order,
packed by each parameter's ABI (`abi.py`): `launch` hands the values to cuda.core's `launch`;
`pack` lays them out once in the driver's format for `launch_packed`, the fast path, one
cuda.bindings `cuLaunchKernel` (cuda.core's `launch` takes Python values and packs them on
every call; it has no launch of packed parameters). What a kernel takes is the compiler's
artifact; at load it is compared once with what the driver says the entry takes
(`Kernel.arguments_info`), and a disagreement is an internal error, never a launch reading
garbage.

These are raw launches: no contract, coverage or aliasing checks (the launch checker's job).
The driver still refuses a block that differs from the PTX's `.reqntid`; such a refusal is
explained with the contract's block.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from cuda.bindings import driver as _cu

from ferrox.artifact import KernelArtifact, ModuleArtifact
from ferrox.driver.runtime import abi, tensor_map
from ferrox.driver.runtime import device as _device
from ferrox.driver.runtime.device import core_device, device_limits, make_current
from ferrox.driver.runtime.errors import (
    ArgumentError,
    CudaError,
    InternalError,
    check,
    from_core,
)
from ferrox.driver.runtime.library import Library
from ferrox.driver.runtime.streams import LEGACY, core_stream, stream_handle

__all__ = ["LoadedKernel", "LoadedModule", "dim3"]

Dim3 = tuple[int, int, int]
STATIC_SHARED_LIMIT = 48 * 1024
"""Dynamic shared memory above this needs the kernel's explicit opt-in."""


def dim3(value: int | Sequence[int], what: str) -> Dim3:
    """(x, y, z) from an int or 1 to 3 positive ints; anything else is a ValueError."""
    if type(value) is tuple and len(value) == 3 and all(type(d) is int and d > 0 for d in value):
        return value  # the common case, checked cheaply
    try:
        dims = (value,) if isinstance(value, (int, np.integer)) else tuple(value)
    except TypeError:
        dims = ()
    if not 1 <= len(dims) <= 3 or any(
        isinstance(d, bool) or not isinstance(d, (int, np.integer)) for d in dims
    ):
        raise ValueError(f"{what} must be 1 to 3 positive integers, got {value!r}")
    if any(d < 1 for d in dims):
        raise ValueError(f"{what} dimensions must be at least 1, got {tuple(int(d) for d in dims)}")
    padded = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    return padded[0], padded[1], padded[2]


class LoadedModule:
    """A module artifact's image loaded on one device."""

    # Keyed by the image and the whole artifact: two artifacts can share an image (an i32 and
    # an f32 kernel whose bodies compile to the same moves) yet not their parameters' facts,
    # which the launch checker reads from `artifact` (the image is then loaded twice: rare).
    _loaded: dict[tuple[str, str, int], LoadedModule] = {}
    _lock = threading.Lock()

    def __init__(self, artifact: ModuleArtifact, image: bytes, is_cubin: bool, ordinal: int):
        self.artifact = artifact
        self.ordinal = ordinal
        self.is_cubin = is_cubin
        self.code = _load_object(artifact, image, is_cubin, ordinal)
        self._kernels: dict[str, LoadedKernel] = {}

    @classmethod
    def load(cls, artifact: ModuleArtifact, ordinal: int = 0) -> LoadedModule:
        """The loaded module for `artifact` on device `ordinal`, loaded on first use."""
        use_cubin = artifact.cubin is not None and runs_on(
            artifact.chip, device_limits(ordinal).chip
        )
        if not artifact.ptx:
            raise ValueError(
                "this artifact was compiled for the CPU interpreter and has no PTX: compile the "
                "module for the GPU (ferrox.compile) to launch it there"
            )
        image = artifact.cubin if use_cubin else artifact.ptx.encode()
        assert image is not None
        facts = hashlib.sha256(artifact.to_json().encode()).hexdigest()
        key = (hashlib.sha256(image).hexdigest(), facts, ordinal)
        module = cls._loaded.get(key)
        if module is None:
            with cls._lock:
                module = cls._loaded.get(key)
                if module is None:
                    module = cls._loaded[key] = cls(artifact, image, use_cubin, ordinal)
        return module

    def kernel(self, name: str) -> LoadedKernel:
        """Kernel `name` (KeyError naming the module's kernels when there is none)."""
        kernel = self._kernels.get(name)
        if kernel is None:
            info = self.artifact[name]
            core = self.code.get_kernel(name)
            kernel = self._kernels[name] = LoadedKernel(self, info, core)
        return kernel

    __getitem__ = kernel


class LoadedKernel:
    """One entry of a loaded module, with its artifact."""

    def __init__(self, module: LoadedModule, info: KernelArtifact, core: Any):
        self.module = module
        self.info = info
        self.name = info.name
        self.ordinal = module.ordinal
        self.core = core
        self.params = info.entry_params
        self._packers = [abi.packer(p) for p in self.params]
        self._slots = info.abi
        self._shared_opt_in = STATIC_SHARED_LIMIT
        self._shapes: dict[tuple, tuple[Dim3, Dim3, int]] = {}
        self._configs: dict[tuple, Any] = {}
        self._function: Any = None
        self._check_abi()

    def _check_abi(self) -> None:
        """The artifact's ABI against the driver's view of the entry, once, at load."""
        want = [slot.nbytes for slot in self.info.abi]
        try:
            have = [int(_size(p)) for p in self.core.arguments_info]
        except CudaError as err:
            raise err.with_detail(f"kernel '{self.name}'") from None
        if want != have:
            raise InternalError(
                f"kernel '{self.name}': the artifact's parameters take {want} bytes, "
                f"but the loaded entry's take {have}"
            )

    # -- packing
    def values(self, args: Sequence[Any], *, stream: Any = None) -> tuple:
        """`args` (in `entry_params` order) as the values of the entry's PTX parameters.

        Buffers are `DeviceView`s, `DeviceArray`s, device arrays (viewed in place, ordered on
        `stream`), or raw addresses (ints) for pointer parameters; scalars are Python or NumPy
        numbers.
        """
        if len(args) != len(self._packers):
            names = ", ".join(p.name for p in self.params) or "none"
            raise ArgumentError(
                f"kernel '{self.name}' takes {len(self._packers)} argument"
                f"{'s' if len(self._packers) != 1 else ''} ({names}), got {len(args)}"
            )
        out: list = []
        for pack, value in zip(self._packers, args, strict=True):
            pack(value, stream, out)
        if self.info.tensor_maps:  # TMA: the maps, built from the packed values
            out.extend(tensor_map.map_values(self.info, out))
        return tuple(out)

    def pack(self, args: Sequence[Any], *, stream: Any = None) -> abi.Packed:
        """`values(args)` packed once for `launch_packed`, which may reuse them any number of
        times (the buffers must stay alive meanwhile)."""
        return abi.Packed(self._slots, self.values(args, stream=stream))

    # -- launching
    def launch(
        self,
        grid: int | Sequence[int],
        block: int | Sequence[int],
        args: Sequence[Any],
        *,
        shared_bytes: int = 0,
        stream: Any = None,
    ) -> None:
        """Pack `args` and launch with cuda.core (asynchronously, on `stream`; None: the legacy
        default stream)."""
        from cuda.core import LaunchConfig

        from ferrox.driver.runtime.errors import CoreCudaError

        if self.info.tensor_maps:  # cuda.core's launch takes no 128-byte by-value parameter
            packed = self.pack(args, stream=stream)
            return self.launch_packed(grid, block, packed, shared_bytes=shared_bytes, stream=stream)
        values = self.values(args, stream=stream)
        dims = self._dims(grid, block, shared_bytes)
        config = self._configs.get(dims)
        if config is None:
            config = LaunchConfig(grid=dims[0], block=dims[1], shmem_size=dims[2])
            if len(self._configs) < 64:
                self._configs[dims] = config
        core_device(self.ordinal)
        try:
            _launch(core_stream(stream), config, self.core, values)
        except CoreCudaError as exc:
            raise from_core(exc, "cuLaunchKernelEx", self._explain(dims[1])) from exc

    def launch_packed(
        self,
        grid: int | Sequence[int],
        block: int | Sequence[int],
        packed: abi.Packed,
        *,
        shared_bytes: int = 0,
        stream: Any = None,
    ) -> None:
        """Launch with what `pack` returned: the fast path. The parameters are already in the
        driver's layout, so this is one cuLaunchKernel (cuda.core has no launch of pre-packed
        parameters)."""
        if type(packed) is not abi.Packed:
            raise TypeError(f"launch_packed takes what pack() returns, not {type(packed).__name__}")
        dims = self._dims(grid, block, shared_bytes)
        make_current(self.ordinal)
        try:
            _launch_packed(self, dims, stream_handle(stream) or LEGACY, packed)
        except CudaError as err:
            raise err.with_detail(self._explain(dims[1])) from None

    def relaunch(self, dims: tuple[Dim3, Dim3, int], packed: abi.Packed, stream: int) -> None:
        """`launch_packed` of dims and parameters that a launch made from this kernel before
        (`dims`, `pack`), on the raw stream handle `stream`: nothing is checked again. The
        checked API's memo of passed launches ends here."""
        make_current(self.ordinal)
        try:
            _launch_packed(self, dims, stream, packed)
        except CudaError as err:
            raise err.with_detail(self._explain(dims[1])) from None

    def prepared(self, dims: tuple[Dim3, Dim3, int], packed: abi.Packed) -> Callable[[int], None]:
        """`relaunch(dims, packed, stream)` as one call of `launch(stream)`, for the checked
        API's memo: the function, the launch dimensions and the parameter array are bound once
        in a `CUlaunchConfig`, so a repeat is the thread's context check, the stream written
        into the config when it changed, and one ctypes call of the driver's
        `cuLaunchKernelEx` with four pointers made once (`_launch_ex`: cuda.bindings'
        `cuLaunchKernel` builds its `CUresult` enum in Python on every call, and ctypes
        converts four ready pointers faster than eleven values). The config is written, so
        calls of one `launch` must not overlap: the memo's `Relaunch` calls it under its lock.
        While a seam replaces `_launch_packed` (the fake GPU, a stubbed benchmark), that is
        called instead; without `cuLaunchKernelEx` through the driver's entry point,
        cuda.bindings' `cuLaunchKernel`."""
        (gx, gy, gz), (bx, by, bz), shared = dims
        ordinal, kernel = self.ordinal, self
        current = _device._current
        config = _LaunchConfig((gx, gy, gz), (bx, by, bz), shared, LEGACY, None, 0)
        params = ctypes.c_void_p(packed.address or None)
        pointers: tuple = ()  # what `_launch_ex` takes, made on the first native launch
        last = LEGACY  # the raw stream the config holds

        def launch(stream: int) -> None:
            nonlocal pointers, last
            if _launch_packed is not _native_launch_packed:
                kernel.relaunch(dims, packed, stream)
                return
            if getattr(current, "context", None) != ordinal:
                make_current(ordinal)
            if stream != last:
                config.stream = stream
                last = stream
            if not pointers:
                function = ctypes.c_void_p(int(kernel._function or kernel.function) or None)
                pointers = (ctypes.pointer(config), function, params, None)
            status = _launch_ex(*pointers)
            if status:
                error = CudaError("cuLaunchKernelEx", status)
                raise error.with_detail(kernel._explain(dims[1])) from None

        return launch

    def dims(self, grid: Any, block: Any, shared_bytes: int) -> tuple[Dim3, Dim3, int]:
        """(grid, block, shared bytes) as `relaunch` takes them, checked."""
        return self._dims(grid, block, shared_bytes)

    @property
    def function(self) -> Any:
        """The entry as a CUfunction, which cuLaunchKernel takes (a CUkernel converts)."""
        if self._function is None:
            self._function = _cu.CUfunction(int(self.core.handle))
        return self._function

    def _dims(self, grid: Any, block: Any, shared_bytes: int) -> tuple[Dim3, Dim3, int]:
        """(grid, block, shared bytes), checked once per launch shape (and opted in)."""
        if type(grid) is list:
            grid = tuple(grid)
        if type(block) is list:
            block = tuple(block)
        key = (grid, block, shared_bytes)
        dims = self._shapes.get(key)
        if dims is None:
            dims = self._check_shape(grid, block, shared_bytes)
            if len(self._shapes) < 64:
                self._shapes[key] = dims
        return dims

    def _check_shape(self, grid: Any, block: Any, shared_bytes: int) -> tuple[Dim3, Dim3, int]:
        grid3, block3 = dim3(grid, "grid"), dim3(block, "block")
        if isinstance(shared_bytes, bool) or not isinstance(shared_bytes, int) or shared_bytes < 0:
            raise ValueError(f"shared_bytes must be an int >= 0, got {shared_bytes!r}")
        if shared_bytes > self._shared_opt_in:
            self._opt_in(shared_bytes)
        return grid3, block3, shared_bytes

    def _opt_in(self, shared_bytes: int) -> None:
        """Allow `shared_bytes` of dynamic shared memory (past 48 KiB a kernel must opt in:
        the tile lowering's GEMM stages, `simt.shared_alloc {dynamic}`)."""
        _opt_in_shared(self.core, self.ordinal, shared_bytes)
        self._shared_opt_in = shared_bytes

    def _explain(self, block: Dim3) -> str | None:
        """Why the driver may have refused the launch, from the contract (the PTX's .reqntid)."""
        contract = self.info.contract
        if contract is not None and block != tuple(contract.block):
            return f"block {block} does not match the kernel's contract block {contract.block}"
        return None

    def __repr__(self) -> str:
        return f"LoadedKernel({self.name!r}, device={self.ordinal})"


def _size(info: Any) -> int:
    """The size of one `Kernel.arguments_info` entry ((offset, size), or .size)."""
    return info.size if hasattr(info, "size") else info[1]


# -- seams (tests/support/fake_gpu.py replaces these two) ---------------------------------------


def runs_on(compiled_for: str, device_chip: str) -> bool:
    """Whether a cubin made for `compiled_for` runs on a device of `device_chip`: the same chip, or
    its arch-specific variant (`sm_90a` code, wgmma's, runs on exactly an sm_90 device)."""
    return compiled_for in (device_chip, f"{device_chip}a")


def _load_object(artifact: ModuleArtifact, image: bytes, is_cubin: bool, ordinal: int) -> Any:
    """`artifact`'s cubin or PTX image loaded through the driver alone (`library.py`: importing
    cuda.core would cost a new process's first launch more than the rest of its way there)."""
    make_current(ordinal)
    return Library(image, is_cubin)


def _opt_in_shared(core: Any, ordinal: int, shared_bytes: int) -> None:
    """`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` of a loaded kernel (cuda.core's kernel
    attributes are read-only, so the driver is asked directly)."""
    make_current(ordinal)
    attr = _cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    check(
        _cu.cuKernelSetAttribute(attr, shared_bytes, core.handle, _cu.CUdevice(ordinal)),
        "cuKernelSetAttribute",
    )


def _launch(stream: Any, config: Any, kernel: Any, values: tuple) -> None:
    """cuda.core's launch of `kernel` (a `LibraryKernel`) with parameter values."""
    from cuda.core import launch

    launch(stream, config, kernel.core, *values)


_cu_streams: dict[int, Any] = {}


def _launch_packed(kernel: LoadedKernel, dims: tuple, stream: int, packed: abi.Packed) -> None:
    """cuLaunchKernel of pre-packed parameters on the raw stream handle `stream`."""
    handle = _cu_streams.get(stream)
    if handle is None:
        handle = _cu_streams[stream] = _cu.CUstream(stream)
    (gx, gy, gz), (bx, by, bz), shared = dims
    function = kernel._function or kernel.function
    status = _cu.cuLaunchKernel(
        function, gx, gy, gz, bx, by, bz, shared, handle, packed.address, 0
    )[0]
    if status:  # a CUresult is an int: CUDA_SUCCESS is 0 (`check`'s work, without its call)
        raise CudaError("cuLaunchKernel", status)


_native_launch_packed = _launch_packed
"""The real `_launch_packed`: a prepared launch (`LoadedKernel.prepared`) goes to the driver
itself only while the seam is this one."""


class _LaunchConfig(ctypes.Structure):
    """The driver's `CUlaunchConfig` (cuda.h): grid, block, dynamic shared bytes, the stream,
    and no launch attributes."""

    _fields_ = [
        ("grid", ctypes.c_uint * 3),
        ("block", ctypes.c_uint * 3),
        ("shared", ctypes.c_uint),
        ("stream", ctypes.c_void_p),
        ("attrs", ctypes.c_void_p),
        ("num_attrs", ctypes.c_uint),
    ]


_LAUNCH_EX = ctypes.CFUNCTYPE(ctypes.c_int)
"""`cuLaunchKernelEx(const CUlaunchConfig*, CUfunction, void** params, void** extra)`, called
with exactly four ctypes pointers (or None), never Python ints: no argument types are declared,
so ctypes converts nothing (declared `c_void_p`s cost a conversion each per call). It releases
the GIL while the driver works, as cuda.bindings does."""


def _bindings_launch_ex(config: Any, function: Any, params: Any, extra: None) -> int:
    """`_launch_ex` where the driver gives no `cuLaunchKernelEx`: cuda.bindings'
    `cuLaunchKernel` of what the config holds."""
    c = config.contents
    (gx, gy, gz), (bx, by, bz) = c.grid, c.block
    stream = _cu_streams.get(c.stream) or _cu.CUstream(c.stream or 0)
    return _cu.cuLaunchKernel(
        _cu.CUfunction(function.value or 0), gx, gy, gz, bx, by, bz, c.shared, stream,
        params.value or 0, 0,
    )[0]  # fmt: skip


def _first_launch_ex(*pointers: Any) -> int:
    """`_launch_ex` until the first prepared launch: finds the driver's, then calls it."""
    global _launch_ex
    _launch_ex = _driver_launch_ex() or _bindings_launch_ex
    return _launch_ex(*pointers)


_launch_ex: Any = _first_launch_ex
"""`cuLaunchKernelEx(config, function, params, extra)` of a prepared launch, returning the
CUresult as an int: the driver's own through ctypes (`_LAUNCH_EX`), else
`_bindings_launch_ex`. A seam too: the tests record what a prepared launch hands the driver
here, and a benchmark stubs the driver call."""


def _driver_launch_ex() -> Any:
    """`cuLaunchKernelEx` through the driver's own entry point (`cuGetProcAddress`: the libcuda
    cuda.bindings loaded, its legacy-stream variant), as a `_LAUNCH_EX`; False without one."""
    flags = _cu.CUdriverProcAddress_flags.CU_GET_PROC_ADDRESS_LEGACY_STREAM
    try:
        status, address, _ = _cu.cuGetProcAddress(b"cuLaunchKernelEx", 12000, flags)
    except Exception:  # a driver older than the call, or cuda.bindings without it
        return False
    if status or not address:
        return False
    return _LAUNCH_EX(int(address))
