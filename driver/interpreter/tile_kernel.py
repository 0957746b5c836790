"""`run_tile_kernel`: one tile launch on the reference interpreter, with whole-tile semantics.

The grid is the first output partition's tile grid (ceil-division of its array's shape by its
tile shape), and every other output partition must have the same grid. Each tile block runs
once, in row-major order of its block index; a block cannot observe another (inputs are
read-only, outputs write-only), so that order is one the GPU may pick too. Tiles are NumPy arrays
of their element type (`tile_ops.dtypes` says how bf16 is held); docs/dialects/tile.md is the
specification every op follows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from itertools import product
from typing import Any

import numpy as np
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, ModuleOp
from xdsl.interpreter import _InterpreterFunctionImpls
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Attribute, BlockArgument

from ferrox.dialects import tile
from ferrox.dialects.tile.types import shape_str
from ferrox.driver.interpreter.arith_ops import FerroxArithFunctions
from ferrox.driver.interpreter.bf16 import bf16_input
from ferrox.driver.interpreter.errors import LaunchError
from ferrox.driver.interpreter.machine import Program
from ferrox.driver.interpreter.math_ops import FerroxMathFunctions
from ferrox.driver.interpreter.tile_ops import TILE_FUNCTIONS
from ferrox.driver.interpreter.tile_ops.dtypes import (
    is_bf16,
    memory_dtypes,
    round_to,
    scalar_of,
    tile_dtype,
)
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter
from ferrox.driver.interpreter.values import int_width, signed


@cache
def tile_interpreter_functions() -> _InterpreterFunctionImpls:
    """Tile ops plus the SIMT interpreter's exact scalar `arith`/`math` and xDSL's `scf`."""
    impls = _InterpreterFunctionImpls()
    for functions in (*TILE_FUNCTIONS, FerroxArithFunctions, FerroxMathFunctions, ScfFunctions):
        impls.register_from(functions(), override=False)
    return impls


def find_tile_kernel(module: ModuleOp, name: str) -> tile.KernelOp:
    name = name.removeprefix("@")
    kernels = [op for op in module.walk() if isinstance(op, tile.KernelOp)]
    for k in kernels:
        if k.sym_name.data == name:
            return k
    names = ", ".join(f"@{k.sym_name.data}" for k in kernels) or "none"
    raise LaunchError(f"no tile.kernel named @{name} in the module (tile kernels: {names})")


def tile_launch_args(kernel: tile.KernelOp, ins: Sequence[Any], outs: Sequence[Any]) -> list[Any]:
    """The binding rule of `host.tile_launch`: each partition parameter takes the next `outs`
    value, every other parameter the next `ins` value; the result is in parameter order."""
    n_out = len(kernel.partitions)
    if len(outs) != n_out or len(ins) != len(kernel.args) - n_out:
        raise LaunchError(
            f"@{kernel.sym_name.data} takes {len(kernel.args) - n_out} inputs and {n_out} output "
            f"partitions, got {len(ins)} and {len(outs)}"
        )
    pending_in, pending_out = iter(ins), iter(outs)
    return [
        next(pending_out if isinstance(a.type, tile.PartitionType) else pending_in)
        for a in kernel.args
    ]


def _label(kernel: tile.KernelOp, arg: BlockArgument) -> str:
    name = f"%{arg.name_hint}" if arg.name_hint else f"argument {arg.index}"
    return f"{name} (argument {arg.index} of @{kernel.sym_name.data})"


def _array(
    value: Any, t: tile.PartitionType | tile.TileTensorType, what: str, finish: list
) -> np.ndarray:
    if not isinstance(value, np.ndarray):
        raise LaunchError(f"{what} takes a NumPy array, got {type(value).__name__}")
    if value.ndim != t.rank:
        raise LaunchError(f"{what} is rank {t.rank}, but the array has shape {value.shape}")
    if is_bf16(t.element_type):
        held = bf16_input(value, isinstance(t, tile.PartitionType) and value.flags.writeable)
        if held is None:
            raise LaunchError(
                f"{what} holds bf16, but the array's dtype is {value.dtype}: pass bf16 bit "
                "patterns as ferrox.bf16_bits(array), an ml_dtypes bfloat16 array, or float32"
            )
        if held.finish is not None:
            finish.append(held.finish)
        return held.working
    allowed = memory_dtypes(t.element_type)
    if value.dtype not in allowed:
        names = " or ".join(str(d) for d in allowed)
        raise LaunchError(
            f"{what} holds {t.element_type} ({names}), but the array's dtype is {value.dtype}"
        )
    if value.dtype.kind == "u":
        value = value.view(tile_dtype(t.element_type))  # signless integers are held signed
    return value


_NUMBERS = (int, float, np.integer, np.floating, bool, np.bool_)


def _scalar(value: Any, t: Attribute, what: str) -> Any:
    if not isinstance(value, _NUMBERS):
        raise LaunchError(f"{what} is a scalar of type {t}, got {type(value).__name__}")
    width = int_width(t)
    if width is not None:
        if isinstance(value, float | np.floating) or (
            width > 1 and isinstance(value, bool | np.bool_)
        ):
            raise LaunchError(f"{what} is an integer ({t}), got {value!r}")
        lo = -(1 << (width - 1))
        hi = (1 << (width - 1)) - 1 if isinstance(t, IndexType) else (1 << width) - 1
        if width == 1:
            lo, hi = 0, 1
        if not lo <= int(value) <= hi:
            raise LaunchError(f"{what} = {int(value)} does not fit {t}")
        return bool(value) if width == 1 else signed(int(value), width)
    if isinstance(value, bool | np.bool_):
        raise LaunchError(f"{what} is a float ({t}), got {value!r}")
    with np.errstate(over="ignore"):
        converted = round_to(t, np.float64(value)) if is_bf16(t) else tile_dtype(t).type(value)
    if np.isinf(converted) and np.isfinite(value):
        raise LaunchError(f"{what} = {value!r} overflows {t}")
    return scalar_of(np.asarray(converted)[()], t)


def bind_tile_args(
    kernel: tile.KernelOp, args: Sequence[Any], finish: list | None = None
) -> tuple[list[Any], list[np.ndarray]]:
    """`(values in parameter order, output arrays)`, every argument checked against its type.
    bf16 arrays are held as float32 (`bf16.bf16_input`): the callbacks that write the results
    back into the caller's arrays are appended to `finish`, for the caller to call once the
    kernel stopped."""
    if finish is None:
        finish = []
    params = kernel.args
    if len(args) != len(params):
        raise LaunchError(f"@{kernel.sym_name.data} takes {len(params)} arguments, got {len(args)}")
    values: list[Any] = []
    outputs: list[np.ndarray] = []
    for param, value in zip(params, args):
        t, what = param.type, _label(kernel, param)
        if isinstance(t, tile.PartitionType):
            array = _array(value, t, what, finish)
            if not array.flags.writeable:
                raise LaunchError(f"{what} is an output partition, but the array is read-only")
            outputs.append(array)
            values.append(array)
        elif isinstance(t, tile.TileTensorType):
            array = _array(value, t, what, finish)
            for d, (want, have) in enumerate(zip(t.get_shape(), array.shape)):
                if want != DYNAMIC_INDEX and want != have:
                    raise LaunchError(
                        f"{what} has type {t}, but the array has shape {array.shape} "
                        f"(dimension {d})"
                    )
            view = array.view()
            view.flags.writeable = False
            values.append(view)
        else:
            values.append(_scalar(value, t, what))
    _check_no_aliasing(kernel, params, [_base(a, v) for a, v in zip(args, values)], outputs)
    return values, outputs


def _base(arg: Any, value: Any) -> Any:
    """The caller's array where a bf16 one is held as a copy: aliasing is the caller's."""
    return arg if isinstance(arg, np.ndarray) and isinstance(value, np.ndarray) else value


def _check_no_aliasing(kernel, params, values, outputs) -> None:
    """An output may share memory with nothing else: blocks could then see each other."""
    arrays = [(p, v) for p, v in zip(params, values) if isinstance(v, np.ndarray)]
    for i, (p, a) in enumerate(arrays):
        for q, b in arrays[i + 1 :]:
            writes = isinstance(p.type, tile.PartitionType) or isinstance(
                q.type, tile.PartitionType
            )
            if writes and np.shares_memory(a, b):
                raise LaunchError(
                    f"{_label(kernel, p)} and {_label(kernel, q)} share memory; an output "
                    "partition must not alias any other argument"
                )


def launch_grid(kernel: tile.KernelOp, values: Sequence[Any]) -> tuple[int, ...]:
    """The first output partition's tile grid; every other partition must have the same one."""
    grids = []
    for arg in kernel.partitions:
        t = arg.type
        assert isinstance(t, tile.PartitionType)
        shape = values[arg.index].shape
        grid = tuple(math.ceil(s / d) for s, d in zip(shape, t.get_shape()))
        described = (
            f"{_label(kernel, arg)} has {shape_str(grid)} tiles "
            f"({shape_str(shape)} in tiles of {shape_str(t.get_shape())})"
        )
        grids.append((grid, described))
    first, first_described = grids[0]
    for grid, described in grids[1:]:
        if grid != first:
            raise LaunchError(
                f"output partitions disagree on the grid: {first_described}, {described}"
            )
    return first


def run_tile_kernel(
    module: ModuleOp, kernel: str, args: Sequence[np.ndarray | int | float]
) -> None:
    """Run the `tile.kernel` named `kernel` once per tile block.

    `args` are in the kernel's parameter order: each output partition the whole output array
    (written in place, each block writing only its own tile, masked at ragged edges), each input
    tensor an array (read through a read-only view), each scalar a number. Raises `LaunchError`
    before anything runs, or a located `KernelTrap` at an op that failed.
    """
    op = find_tile_kernel(module, kernel)
    finish: list = []
    values, _ = bind_tile_args(op, args, finish)
    try:
        _run_blocks(module, op, values)
    finally:
        for give_back in finish:
            give_back()


def _run_blocks(module: ModuleOp, op: tile.KernelOp, values: list[Any]) -> None:
    grid = launch_grid(op, values)
    interp = TileInterpreter(Program(module, tile_interpreter_functions()), grid)
    frozen = tuple(values)
    with np.errstate(all="ignore"):
        for index in product(*(range(g) for g in grid)):
            interp.tile_block = index
            interp.env = {}
            interp.run_ssacfg_region(op.body, frozen)


__all__ = [
    "bind_tile_args",
    "find_tile_kernel",
    "launch_grid",
    "run_tile_kernel",
    "tile_interpreter_functions",
    "tile_launch_args",
]
