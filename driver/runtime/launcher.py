"""Modules and kernels: load PTX once per device, launch by name, explain driver refusals.

`Kernel.launch` is the raw (unsafe) launch of already packed arguments; `Kernel.call` takes
arrays and scalars by the kernel's signature, copies NumPy arrays in and back, and checks every
argument before anything is allocated or launched. Neither checks the block against a launch
contract: that is `prepare`'s job. The PTX carries `.reqntid`, so the driver refuses a
mismatched block anyway, and the launcher turns its bare CUDA_ERROR_INVALID_VALUE into why.
"""

from __future__ import annotations

import ctypes
import hashlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ferrox.driver.runtime import cuda
from ferrox.driver.runtime.abi import ArgumentError, check_count, check_kind, pack_args
from ferrox.driver.runtime.arrays import DeviceArray, element_type
from ferrox.driver.runtime.errors import CudaError
from ferrox.driver.runtime.ptx import EntryInfo, parse_entries

__all__ = ["ArgumentError", "Kernel", "Module", "dim3", "pack_args"]

Dim3 = tuple[int, int, int]
STATIC_SHARED_LIMIT = 48 * 1024  # dynamic shared memory above this needs an explicit opt-in


def dim3(value: int | Sequence[int], what: str) -> Dim3:
    """(x, y, z) from an int or 1 to 3 positive ints; anything else is a ValueError."""
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


class Module:
    """A PTX or cubin image loaded into one device's primary context.

    `Module.load(image)` returns the already loaded module for an identical image, so a
    kernel is JIT-compiled once per device per process however often it is asked for.
    """

    _loaded: dict[tuple[str, int], Module] = {}
    _loaded_lock = threading.Lock()

    def __init__(
        self,
        image: bytes | str,
        *,
        ordinal: int = 0,
        signatures: Mapping[str, Sequence[str]] | None = None,
    ):
        self.image = image.encode() if isinstance(image, str) else bytes(image)
        self.ordinal = ordinal
        self.is_ptx = not cuda.is_binary_image(self.image)
        self.entries: dict[str, EntryInfo] = parse_entries(self.image) if self.is_ptx else {}
        self.signatures = {
            name: [check_kind(k) for k in sig] for name, sig in (signatures or {}).items()
        }
        self._kernels: dict[str, Kernel] = {}
        self.handle: int | None = cuda.load_module(self.image, ordinal)

    @classmethod
    def load(
        cls,
        image: bytes | str,
        *,
        ordinal: int = 0,
        signatures: Mapping[str, Sequence[str]] | None = None,
    ) -> Module:
        data = image.encode() if isinstance(image, str) else bytes(image)
        key = (hashlib.sha256(data).hexdigest(), ordinal)
        with cls._loaded_lock:
            module = cls._loaded.get(key)
            if module is None or module.handle is None:
                module = cls._loaded[key] = cls(data, ordinal=ordinal, signatures=signatures)
            elif signatures:
                module.signatures.update(
                    {n: [check_kind(k) for k in s] for n, s in signatures.items()}
                )
        return module

    def kernel(self, name: str, signature: Sequence[str] | None = None) -> Kernel:
        if self.handle is None:
            raise RuntimeError("this module was unloaded")
        if signature is not None:
            self.signatures[name] = [check_kind(k) for k in signature]
        kernel = self._kernels.get(name)
        if kernel is None:
            if self.entries and name not in self.entries:
                raise KeyError(
                    f"no kernel named '{name}' in this PTX (entries: {', '.join(self.entries)})"
                )
            kernel = self._kernels[name] = Kernel(self, name, cuda.get_function(self.handle, name))
        return kernel

    __getitem__ = kernel

    def unload(self) -> None:
        if self.handle is not None:
            cuda.unload_module(self.handle, self.ordinal)
            self.handle = None
            self._kernels.clear()


class Kernel:
    """One `.entry` of a loaded module."""

    def __init__(self, module: Module, name: str, handle: int):
        self.module = module
        self.name = name
        self.handle = handle
        self.entry: EntryInfo | None = module.entries.get(name)
        self._shared_opt_in = STATIC_SHARED_LIMIT

    @property
    def ordinal(self) -> int:
        return self.module.ordinal

    @property
    def signature(self) -> list[str] | None:
        return self.module.signatures.get(self.name)

    @property
    def reqntid(self) -> Dim3 | None:
        return self.entry.reqntid if self.entry else None

    def attribute(self, name: str) -> int:
        """cuFuncGetAttribute by short name: NUM_REGS, LOCAL_SIZE_BYTES, MAX_THREADS_PER_BLOCK..."""
        return cuda.function_attribute(self.handle, name)

    def launch(
        self,
        grid: int | Sequence[int],
        block: int | Sequence[int],
        args: Sequence[tuple[type, Any]],
        shared_bytes: int = 0,
        stream: Any = None,
    ) -> None:
        """Launch with packed (ctypes type, value) arguments, as `pack_args` returns them."""
        grid3, block3 = dim3(grid, "grid"), dim3(block, "block")
        if shared_bytes < 0:
            raise ValueError(f"shared_bytes must be >= 0, got {shared_bytes}")
        self._check_params(args)
        if shared_bytes > self._shared_opt_in:
            cuda.set_function_attribute(self.handle, "MAX_DYNAMIC_SHARED_SIZE_BYTES", shared_bytes)
            self._shared_opt_in = shared_bytes
        try:
            cuda.launch_kernel(self.handle, grid3, block3, args, shared_bytes, stream, self.ordinal)
        except CudaError as err:
            # The driver's answer to a block against .reqntid is a bare CUDA_ERROR_INVALID_VALUE;
            # whatever it says, a block the PTX forbids is the first thing to fix.
            if why := self.explain_block(block3):
                raise err.with_detail(why) from None
            raise

    def explain_block(self, block: Dim3) -> str | None:
        """Why the driver refuses `block` for this kernel, when its PTX says so."""
        if self.entry is None:
            return None
        if self.entry.reqntid is not None and block != self.entry.reqntid:
            return f"block {block} does not match the kernel's .reqntid {self.entry.reqntid}"
        if (maxntid := self.entry.maxntid) is not None:
            if block[0] * block[1] * block[2] > maxntid[0] * maxntid[1] * maxntid[2]:
                return f"block {block} has more threads than the kernel's .maxntid {maxntid}"
        return None

    def _check_params(self, args: Sequence[tuple[type, Any]]) -> None:
        if self.entry is None:
            return
        want = self.entry.param_sizes
        if len(args) != len(want):
            raise ArgumentError(
                f"kernel '{self.name}' takes {len(want)} PTX parameters, "
                f"got {len(args)} packed arguments"
            )
        for index, ((ctype, _), size) in enumerate(zip(args, want, strict=True)):
            if ctypes.sizeof(ctype) != size:
                raise ArgumentError(
                    f"kernel '{self.name}' parameter {index} is {size} bytes, "
                    f"but argument {index} is a {ctype.__name__} ({ctypes.sizeof(ctype)} bytes)"
                )

    def call(
        self,
        grid: int | Sequence[int],
        block: int | Sequence[int],
        *values: Any,
        shared_bytes: int = 0,
        stream: Any = None,
        sync: bool = True,
    ) -> None:
        """Launch with values by the kernel's signature; NumPy arrays are copied in and back.

        Every argument is checked before any device memory is allocated. With `sync=False` the
        launch is only queued, so NumPy arguments (which must be copied back) are refused.
        """
        signature = self.signature
        if signature is None:
            raise ArgumentError(
                f"kernel '{self.name}' has no signature: give one to Module.kernel(name, signature)"
            )
        grid3, block3 = dim3(grid, "grid"), dim3(block, "block")
        host = [i for i, v in enumerate(values) if isinstance(v, np.ndarray)]
        if host and not sync:
            raise ArgumentError(
                "NumPy arguments are copied back after the launch, so they need sync=True"
            )
        self._precheck_host(signature, values, host)
        staged: dict[int, DeviceArray] = {}
        try:
            for i in host:
                staged[i] = DeviceArray.from_numpy(values[i], self.ordinal)
            actual = [staged.get(i, v) for i, v in enumerate(values)]
            args = pack_args(signature, actual, ordinal=self.ordinal, stream=stream)
            self.launch(grid3, block3, args, shared_bytes, stream)
            if sync:
                cuda.stream_synchronize(stream)
            for i in host:
                if values[i].flags.writeable:  # a read-only array can only have been an input
                    staged[i].copy_back()
        finally:
            for array in staged.values():
                array.free()

    def _precheck_host(
        self, signature: Sequence[str], values: Sequence[Any], host: Sequence[int]
    ) -> None:
        """The NumPy arguments' count, position and element type, before anything is copied."""
        check_count(signature, values)
        for i in host:
            kind = signature[i]
            if not kind.startswith("slice:"):
                raise ArgumentError(
                    f"argument {i} ({kind}): got a NumPy array where a {kind} is expected"
                )
            found = element_type(values[i].dtype)
            if found != kind[6:]:
                raise ArgumentError(
                    f"argument {i} ({kind}): expected {kind[6:]} elements, "
                    f"got {found} ({values[i].dtype})"
                )
