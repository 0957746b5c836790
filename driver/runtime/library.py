"""A module image loaded through the driver alone: what a new process's first launch needs.

cuda.core's `ObjectCode` does this too, but importing cuda.core costs about 0.16 s on the H200
host after torch has loaded NumPy, more than all the rest of a new process's way to the first
launch of a cached kernel (docs/performance.md, "Cold start"). The project's rule is cuda.core
first and cuda.bindings where it lacks; this module is the measured exception, and keeps to
what a launch of pre-packed parameters needs: `cuLibraryLoadData` of the cubin (loaded as it
is: no PTX JIT) or the PTX (JIT-compiled by the driver, which keeps its own cache), the entry
(`cuLibraryGetKernel`), and the sizes of its parameters (`cuKernelGetParamInfo`), which the
launcher compares with the artifact's ABI. `LibraryKernel.core` gives cuda.core's `Kernel` over
the same handle for cuda.core's `launch`, importing cuda.core then.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cuda.bindings import driver as _cu

from ferrox.driver.runtime.errors import CudaError, check

__all__ = ["Library", "LibraryKernel", "ParamInfo"]


class ParamInfo(NamedTuple):
    """One parameter of an entry as the driver lays it out (what cuda.core's
    `Kernel.arguments_info` lists)."""

    offset: int
    size: int


class Library:
    """A cubin or PTX image loaded with `cuLibraryLoadData` (context-independent: the driver
    loads it into a context when a kernel of it is first used there)."""

    def __init__(self, image: bytes, is_cubin: bool):
        if not is_cubin and not image.endswith(b"\0"):
            image += b"\0"  # the driver reads PTX as a NUL-terminated string
        self.is_cubin = is_cubin
        self.handle = check(_cu.cuLibraryLoadData(image, [], [], 0, [], [], 0), "cuLibraryLoadData")
        self._kernels: dict[str, LibraryKernel] = {}

    def get_kernel(self, name: str) -> LibraryKernel:
        """The entry `name` (a `CudaError` naming it when the image has none)."""
        kernel = self._kernels.get(name)
        if kernel is None:
            try:
                handle = check(
                    _cu.cuLibraryGetKernel(self.handle, name.encode()), "cuLibraryGetKernel"
                )
            except CudaError as err:
                raise err.with_detail(f"loading kernel '{name}'") from None
            kernel = self._kernels[name] = LibraryKernel(handle, name, self)
        return kernel


class LibraryKernel:
    """One entry of a `Library`: `handle` is its CUkernel."""

    def __init__(self, handle: Any, name: str, library: Library):
        self.handle = handle
        self.name = name
        self.library = library  # kept alive while the kernel is
        self._arguments: list[ParamInfo] | None = None
        self._core: Any = None

    @property
    def arguments_info(self) -> list[ParamInfo]:
        """Each parameter's (offset, size), asked of the driver once: indices are asked until
        the driver answers CUDA_ERROR_INVALID_VALUE, the end of the list."""
        if self._arguments is None:
            found: list[ParamInfo] = []
            while True:
                status, offset, size = _cu.cuKernelGetParamInfo(self.handle, len(found))
                if status == _cu.CUresult.CUDA_ERROR_INVALID_VALUE:
                    break
                check((status,), "cuKernelGetParamInfo")
                found.append(ParamInfo(int(offset), int(size)))
            self._arguments = found
        return self._arguments

    @property
    def core(self) -> Any:
        """cuda.core's `Kernel` over this entry, for cuda.core's `launch` (imports cuda.core)."""
        if self._core is None:
            from cuda.core import Kernel

            self._core = Kernel.from_handle(int(self.handle))
        return self._core
