"""`check_launch`: the one launch checker every launcher calls before it launches.

It reads only the kernel's artifact and a neutral description of the arguments (`BufferArg`
for buffers, numbers for scalars), so the GPU launcher (device addresses), the CPU interpreter
(NumPy arrays), the host runner and the Python API all apply the same rules, in this order, and
report every broken one at once (`LaunchError.problems`):

1. the kernel has a contract; grid and block are 1 to 3 positive sizes, using no more
   dimensions than its `domain`; the block is the contract's block (a caller may leave it out);
   the dynamic shared memory is the contract's `shared_bytes`;
2. the device's limits (`DeviceLimits.check_launch`: block, grid, shared memory, `min_cc`) and
   the kernel's static shared memory;
3. one argument per parameter, each of the parameter's kind and element type; buffers are
   contiguous and exclusive outputs writable;
4. tile kernels: every static `!tile.tensor` dimension, and the grid is one block per tile of
   each output partition; then the tile arguments become the SIMT kernel's (`TileLaunch`);
5. every `requires` relation on the actual arguments;
6. the grid covers every exclusive output written through a witness (`coverage`);
7. no exclusive output overlaps any other buffer argument (`aliasing`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ferrox.artifact import KernelArtifact, Param, ParamKind
from ferrox.driver.checker import aliasing, coverage, tile
from ferrox.driver.checker.args import BufferArg, is_scalar
from ferrox.driver.checker.errors import LaunchError
from ferrox.driver.checker.names import describe, param_name
from ferrox.driver.checker.requires import problem as requires_problem
from ferrox.driver.runtime.device import DeviceLimits

Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class CheckedLaunch:
    """A launch the checker accepted: the padded configuration, the caller's arguments, and
    the arguments of the PTX entry that runs (the lowered SIMT kernel's, for a tile kernel)."""

    kernel: str
    grid: Dim3
    block: Dim3
    shared_bytes: int
    args: tuple[Any, ...]
    entry_args: tuple[Any, ...]


def _sizes(value: Any, what: str) -> tuple[int, ...]:
    """1 to 3 positive integers from an int or a sequence (`ValueError` saying why not)."""
    if hasattr(value, "__index__"):
        dims: tuple[Any, ...] = (value,)
    elif isinstance(value, list | tuple):
        dims = tuple(value)
    else:
        raise ValueError(f"{what} must be 1 to 3 positive integers, got {value!r}")
    if not 1 <= len(dims) <= 3 or any(
        isinstance(d, bool) or not hasattr(d, "__index__") for d in dims
    ):
        raise ValueError(f"{what} must be 1 to 3 positive integers, got {value!r}")
    sizes = tuple(int(d) for d in dims)
    if any(d < 1 for d in sizes):
        raise ValueError(f"{what} dimensions must be at least 1, got {sizes}")
    return sizes


def _pad(sizes: tuple[int, ...]) -> Dim3:
    s = sizes + (1, 1, 1)
    return s[0], s[1], s[2]


def _written(block: Dim3) -> list[int]:
    """The contract's block as its source most likely spells it: trailing 1s dropped."""
    dims = list(block)
    while len(dims) > 1 and dims[-1] == 1:
        dims.pop()
    return dims


def _int_range(element: str) -> tuple[int, int] | None:
    """The values an integer parameter takes (signless: either signedness's), or None."""
    if element == "i1":
        return 0, 1
    if element == "index":
        return -(1 << 63), (1 << 63) - 1
    if element.startswith("i"):
        bits = int(element[1:])
        return -(1 << (bits - 1)), (1 << bits) - 1
    return None


def _bf16_hint(param: Param, value: BufferArg) -> str:
    """How a NumPy caller passes bf16, which NumPy has no dtype for."""
    if param.element != "bf16" or type(value.obj).__module__.split(".")[0] != "numpy":
        return ""
    return (
        ": NumPy has no bf16, so pass bf16 bit patterns as ferrox.bf16_bits(uint16 array), "
        "or round floats with ferrox.to_bf16(array)"
    )


def _argument_problems(
    kernel: str, params: Sequence[Param], args: Sequence[Any], name
) -> list[str]:
    out = []
    for i, (param, value) in enumerate(zip(params, args)):
        label = f"{name(i)} (argument #{i}) of {kernel}"
        if param.kind is ParamKind.SCALAR:
            if isinstance(value, BufferArg) or not is_scalar(value):
                shown = "an array" if isinstance(value, BufferArg) else type(value).__name__
                out.append(f"{label} is {describe(param)}, but the argument is {shown}")
            elif (bounds := _int_range(param.element)) is not None:
                lo, hi = bounds
                if isinstance(value, float) or (
                    hasattr(value, "dtype") and value.dtype.kind == "f"
                ):
                    out.append(f"{label} is {describe(param)}, but the argument is {value!r}")
                elif not lo <= int(value) <= hi:
                    out.append(
                        f"{label} is {describe(param)}, but the argument {int(value)} does not "
                        "fit it"
                    )
            continue
        if not isinstance(value, BufferArg):
            shown = f"the number {value!r}" if is_scalar(value) else type(value).__name__
            out.append(f"{label} is {describe(param)}, but the argument is {shown}")
            continue
        if value.element != param.element:
            out.append(
                f"{label} is {describe(param)}, but the array holds {value.element} "
                f"(its element type must be {param.element}){_bf16_hint(param, value)}"
            )
        if not value.contiguous:
            out.append(
                f"{label} is {describe(param)}, but the array is a strided view: a kernel "
                "buffer must be contiguous (pass a contiguous copy)"
            )
        if param.kind.is_exclusive and not value.writable:
            out.append(f"{label} is written by the kernel, but the array is read-only")
    return out


def check_launch(
    kernel: KernelArtifact,
    grid: Any,
    block: Any,
    shared_bytes: int | None,
    args: Sequence[Any],
    limits: DeviceLimits,
) -> CheckedLaunch:
    """The checked launch, or a `LaunchError` listing every rule it breaks.

    `grid` and `block` are an int or 1 to 3 ints (`block` None: the contract's; `grid` None,
    for a tile kernel only: its partition's tile grid); `shared_bytes` None means the
    contract's; `args` follow `kernel.params`: a `BufferArg` per buffer, a number per scalar.
    """
    name = f"@{kernel.name}"
    contract = kernel.contract
    if contract is None:
        raise LaunchError(name, [f"{name} has no launch contract, so it cannot be launched safely"])
    params = kernel.params

    def caller_name(i: int) -> str:
        return param_name(params, i)

    problems: list[str] = []
    if len(args) != len(params):
        raise LaunchError(name, [f"{name} takes {len(params)} arguments, got {len(args)}"])
    problems += _argument_problems(name, params, args, caller_name)
    if kernel.tile is not None:
        problems += tile.shape_problems(name, kernel, args, caller_name)
        if grid is None:
            grid = tile.tile_grid(kernel, args, limits.sm_count)
            if grid is None:
                raise LaunchError(name, problems or [f"{name}'s tile grid cannot be known"])
    try:
        grid_sizes = _sizes(grid, "grid")
        block_sizes = tuple(_written(contract.block)) if block is None else _sizes(block, "block")
    except ValueError as e:
        raise LaunchError(name, [str(e), *problems]) from None
    grid3, block3 = _pad(grid_sizes), _pad(block_sizes)
    config: list[str] = []
    for what, sizes in (("grid", grid_sizes), ("block", block_sizes)):
        if len(sizes) > contract.domain:
            config.append(
                f"{what} has {len(sizes)} dimensions, but {name}'s contract has "
                f"domain = {contract.domain}"
            )
    if block3 != contract.block:
        config.append(
            f"block is {block3}, but {name}'s contract requires block = "
            f"{_written(contract.block)}, i.e. {contract.block}"
        )
    shared = contract.shared_bytes if shared_bytes is None else int(shared_bytes)
    if shared != contract.shared_bytes:
        config.append(
            f"dynamic shared memory is {shared} bytes, but {name}'s contract has "
            f"shared_bytes = {contract.shared_bytes}"
        )
    min_cc = contract.min_cc
    tile_launch = kernel.tile
    config += limits.check_launch(
        grid3,
        block3,
        shared,
        (min_cc // 10, min_cc % 10) if min_cc else None,
        # a tile grid over a limit: say which tile axis is there, and why
        None if tile_launch is None else partial(tile.grid_axis_note, name, tile_launch),
    )
    if contract.static_shared_bytes > limits.max_shared_per_block:
        config.append(
            f"{name} declares {contract.static_shared_bytes} bytes of static shared memory, "
            f"but {limits.name} allows at most {limits.max_shared_per_block} per block"
        )
    problems = config + problems
    if kernel.tile is not None and not problems:
        problems += tile.grid_problems(name, kernel, grid_sizes, args, caller_name)
    if problems:
        raise LaunchError(name, problems)  # the rest is only meaningful for well-formed args

    entry = kernel.entry_params
    entry_args = tuple(tile.simt_arguments(kernel.tile, args) if kernel.tile else args)

    def entry_name(i: int) -> str:
        return param_name(entry, i)

    def length(i: int) -> int:
        value = entry_args[i]
        if not isinstance(value, BufferArg):
            raise LaunchError(
                name, [f"{name}'s contract takes len(arg{i}), but arg{i} is a scalar"]
            )
        return value.length

    def scalar(i: int) -> int:
        value = entry_args[i]
        if isinstance(value, BufferArg):
            raise LaunchError(
                name, [f"{name}'s contract takes arg{i} as a number, but it is an array"]
            )
        return int(value)

    for relation in contract.requires:
        if (why := requires_problem(name, relation, scalar, length, entry_name)) is not None:
            problems.append(why)
    problems += coverage.problems(
        kernel.writes,
        grid3,
        block3,
        lambda i: entry_args[i].length if isinstance(entry_args[i], BufferArg) else 0,
        scalar,
        entry_name,
    )
    problems += aliasing.problems(name, params, args, caller_name)
    if problems:
        raise LaunchError(name, problems)
    return CheckedLaunch(kernel.name, grid3, block3, shared, tuple(args), entry_args)


__all__ = ["CheckedLaunch", "check_launch"]
