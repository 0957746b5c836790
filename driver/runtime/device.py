"""The real limits of a GPU, read once through cuDeviceGetAttribute.

`prepare` checks a launch against the kernel's contract *and* these numbers: a contract that
fits the language's rules can still ask for more than the device has. `check_launch` states
every violated bound with both values, so the caller can report them all at once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class DeviceLimits:
    ordinal: int
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    warp_size: int
    max_threads_per_block: int
    max_block_dims: Dim3
    max_grid_dims: Dim3
    max_shared_per_block: int
    max_shared_per_block_optin: int
    max_registers_per_block: int
    total_memory: int

    @property
    def chip(self) -> str:
        """The `-march` / ptxas name of the device's architecture, e.g. `sm_90`."""
        major, minor = self.compute_capability
        return f"sm_{major}{minor}"

    @classmethod
    def query(cls, ordinal: int = 0) -> DeviceLimits:
        from ferrox.driver.runtime import cuda

        def attr(name: str) -> int:
            return cuda.device_attribute(name, ordinal)

        return cls(
            ordinal=ordinal,
            name=cuda.device_name(ordinal),
            compute_capability=(attr("COMPUTE_CAPABILITY_MAJOR"), attr("COMPUTE_CAPABILITY_MINOR")),
            sm_count=attr("MULTIPROCESSOR_COUNT"),
            warp_size=attr("WARP_SIZE"),
            max_threads_per_block=attr("MAX_THREADS_PER_BLOCK"),
            max_block_dims=(
                attr("MAX_BLOCK_DIM_X"),
                attr("MAX_BLOCK_DIM_Y"),
                attr("MAX_BLOCK_DIM_Z"),
            ),
            max_grid_dims=(attr("MAX_GRID_DIM_X"), attr("MAX_GRID_DIM_Y"), attr("MAX_GRID_DIM_Z")),
            max_shared_per_block=attr("MAX_SHARED_MEMORY_PER_BLOCK"),
            max_shared_per_block_optin=attr("MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"),
            max_registers_per_block=attr("MAX_REGISTERS_PER_BLOCK"),
            total_memory=cuda.device_total_memory(ordinal),
        )

    def check_launch(
        self,
        grid: Dim3,
        block: Dim3,
        shared_bytes: int = 0,
        min_compute_capability: tuple[int, int] | None = None,
    ) -> list[str]:
        """Every way this launch exceeds the device, one sentence each; empty when it fits.

        Dynamic shared memory is measured against the opt-in maximum: the launcher raises the
        kernel's limit to what the launch asks for (cuFuncSetAttribute) before launching.
        """
        problems: list[str] = []
        for axis, size, limit in zip("xyz", block, self.max_block_dims, strict=True):
            if size > limit:
                problems.append(f"block.{axis} is {size}, but {self.name} allows at most {limit}")
        threads = block[0] * block[1] * block[2]
        if threads > self.max_threads_per_block:
            problems.append(
                f"block has {threads} threads, but {self.name} allows at most "
                f"{self.max_threads_per_block} per block"
            )
        for axis, size, limit in zip("xyz", grid, self.max_grid_dims, strict=True):
            if size > limit:
                problems.append(f"grid.{axis} is {size}, but {self.name} allows at most {limit}")
        if shared_bytes > self.max_shared_per_block_optin:
            problems.append(
                f"dynamic shared memory is {shared_bytes} bytes, but {self.name} allows at most "
                f"{self.max_shared_per_block_optin} per block"
            )
        if min_compute_capability is not None and self.compute_capability < tuple(
            min_compute_capability
        ):
            want = ".".join(map(str, min_compute_capability))
            have = ".".join(map(str, self.compute_capability))
            problems.append(
                f"the kernel needs compute capability {want}, but {self.name} has {have}"
            )
        return problems


@functools.cache
def device_limits(ordinal: int = 0) -> DeviceLimits:
    """The limits of device `ordinal`, queried once per process."""
    return DeviceLimits.query(ordinal)
