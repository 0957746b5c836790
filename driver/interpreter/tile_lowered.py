"""`run_lowered_tile_kernel`: a tile launch as the GPU runs it, on the CPU.

The GPU never runs a `tile.kernel`: it runs the SIMT kernel `convert-tile-to-simt` makes of it
(shared memory, barriers and shuffles of the lowering's own, inside `simt.unsafe`). This runs
that same lowered kernel on the SIMT engine, with the launch the host makes of it (the grid and
arguments read from the lowered kernel's `tile.*` attributes), so every CPU run checks the
lowering's shared memory for races and its indices for bounds, and a fault in a tile kernel on
the GPU reproduces here. The whole-tile interpreter (`tile_kernel.run_tile_kernel`) stays as
the reference the lowering is tested against.

bf16 data runs there too: the engine holds bf16 as float32 of bf16 values, and the caller's bf16
arrays (bits, ml_dtypes, float32) are read in before the launch and written back after it.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from ferrox.artifact import tile_launch_grid
from ferrox.dialects import simt
from ferrox.driver.interpreter.launch import find_kernel, run_simt_kernel
from ferrox.driver.interpreter.tile_kernel import bind_tile_args, find_tile_kernel
from ferrox.lowering.tile_to_simt import (
    GRID_ATTR,
    GRID_ORDER_KEY,
    GRID_PERSISTENT_KEY,
    LOWERING_ATTR,
    PARAMS_ATTR,
    convert_tile_to_simt,
)

INTERPRETER_SMS = 3
"""The SM count a persistent kernel's grid takes here (`min(tiles, SMs)` blocks on the GPU): 3,
few, so that each block runs several tiles, and an uneven last round where the tiles are not a
multiple of 3. The checked launch's limits say the same (`checker/limits.py`)."""

_LOWERED: weakref.WeakKeyDictionary[ModuleOp, ModuleOp] = weakref.WeakKeyDictionary()


def lowered_module(module: ModuleOp) -> ModuleOp:
    """`module` with its tile kernels lowered as the compiler lowers them (cached per module;
    the module must not change after its first launch)."""
    lowered = _LOWERED.get(module)
    if lowered is None:
        lowered = module.clone()
        convert_tile_to_simt(lowered)
        _LOWERED[module] = lowered
    return lowered


def simt_launch(
    kernel: simt.KernelOp, values: Sequence[Any]
) -> tuple[tuple[int, ...], tuple[int, int, int], list]:
    """(grid, block, SIMT arguments) of the lowered `kernel` for the tile arguments `values`,
    read from its `tile.params`, `tile.grid` and `tile.lowering` attributes."""
    args: list[Any] = []
    for source in (s.data for s in kernel.attributes[PARAMS_ATTR].data):  # type: ignore[attr-defined]
        arg, _, dim = source.partition(".")
        value = values[int(arg.removeprefix("arg"))]
        if dim:
            args.append(value.shape[int(dim.removeprefix("dim"))])
        else:
            args.append(value.reshape(-1) if isinstance(value, np.ndarray) else value)
    grid_attr = kernel.attributes[GRID_ATTR]
    partition = values[grid_attr.data["partition"].value.data]  # type: ignore[attr-defined]
    shape = grid_attr.data["tile"].get_values()  # type: ignore[attr-defined]
    tiles = [-(-partition.shape[d] // shape[d]) for d in range(len(shape))]
    order = grid_attr.data.get(GRID_ORDER_KEY)  # type: ignore[attr-defined]
    persistent = GRID_PERSISTENT_KEY in grid_attr.data  # type: ignore[attr-defined]
    grid = tile_launch_grid(
        tiles, order.get_values() if order is not None else (), persistent, INTERPRETER_SMS
    )
    threads = kernel.attributes[LOWERING_ATTR].data["threads"].value.data  # type: ignore[attr-defined]
    return grid, (threads, 1, 1), args


def run_lowered_tile_kernel(module: ModuleOp, kernel: str, args: Sequence[Any]) -> None:
    """Run the tile kernel `kernel` as the GPU does; `args` as `run_tile_kernel` takes them
    (parameter order; outputs written in place). Raises `LaunchError` before anything runs, or
    a located `KernelFault` from the lowered kernel."""
    op = find_tile_kernel(module, kernel)
    finish: list = []
    values, outputs = bind_tile_args(op, args, finish)
    try:
        _run_lowered(module, kernel, values, outputs)
    finally:  # bf16 results back into the caller's arrays
        for give_back in finish:
            give_back()


def _run_lowered(module: ModuleOp, kernel: str, values: list[Any], outputs: list) -> None:
    strided = [(i, v) for i, v in enumerate(values) if any(v is o for o in outputs)]
    strided = [(i, v) for i, v in strided if not v.flags.c_contiguous]
    for i, v in strided:  # written through a contiguous copy, as the host would copy it back
        values[i] = np.ascontiguousarray(v)
    lowered = lowered_module(module)
    simt_kernel = find_kernel(lowered, kernel)
    grid, block, simt_args = simt_launch(simt_kernel, values)
    grid3 = (*grid, *(1,) * (3 - len(grid)))
    contract = simt_kernel.contract
    shared = contract.shared_bytes.data if contract is not None else 0  # dynamic shared arrays
    try:
        run_simt_kernel(lowered, kernel, grid3, block, simt_args, shared)  # type: ignore[arg-type]
    finally:
        for i, v in strided:
            v[...] = values[i]


__all__ = ["lowered_module", "run_lowered_tile_kernel", "simt_launch"]
