"""The device limits a launch on the CPU reference interpreter is checked against.

The interpreter models an sm_90 (H200-like) device: the same block, grid and shared-memory
bounds as CUDA, so a launch it accepts is one the GPU would accept too.
"""

from __future__ import annotations

from ferrox.driver.runtime.device import DeviceLimits

INTERPRETER_LIMITS = DeviceLimits(
    ordinal=-1,
    name="the reference interpreter",
    compute_capability=(9, 0),
    sm_count=3,  # a persistent tile kernel's grid: min(tiles, 3) (tile_lowered.INTERPRETER_SMS)
    warp_size=32,
    max_threads_per_block=1024,
    max_block_dims=(1024, 1024, 64),
    max_grid_dims=(2**31 - 1, 65535, 65535),
    max_shared_per_block=48 * 1024,
    max_shared_per_block_optin=227 * 1024,
    max_registers_per_block=65536,
    total_memory=0,
)

__all__ = ["INTERPRETER_LIMITS"]
