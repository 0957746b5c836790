"""`host.prepare` at run time: the launch checker on the kernel's artifact and the tensors.

Every rule is the launch checker's (`ferrox.driver.checker`: contract, device limits,
`requires`, grid coverage, no aliasing); here the host program's values become what it checks
(`describe`: a tensor as its buffer's byte range), and a `Prepared` records the checked
configuration and each argument's shape or value, which a safe launch must pass again
(`check_same_args`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ferrox.artifact import KernelArtifact
from ferrox.driver.checker import BufferArg, LaunchError, aliasing, check_launch
from ferrox.driver.checker.names import param_name
from ferrox.driver.host_runner.values import Partition, Prepared, Tensor, arg_signature
from ferrox.driver.runtime.device import DeviceLimits

PrepareError = LaunchError
"""A refused `host.prepare` is the checker's refusal."""

Describe = Callable[[Tensor], BufferArg]


def described(values: Sequence[Any], describe: Describe) -> list[Any]:
    """The launch's values as the checker takes them: tensors (and partitions) as buffers."""
    out = []
    for value in values:
        if isinstance(value, Partition):
            out.append(describe(value.tensor))
        elif isinstance(value, Tensor):
            out.append(describe(value))
        else:
            out.append(value)
    return out


def check_prepare(
    kernel: KernelArtifact,
    grid: Sequence[int],
    block: Sequence[int],
    shared: int | None,
    args: Sequence[Any],
    describe: Describe,
    limits: DeviceLimits,
) -> Prepared:
    """The `Prepared` proof for this configuration, or a `LaunchError` listing every problem."""
    checked = check_launch(
        kernel, list(grid), list(block), shared, described(args, describe), limits
    )
    return Prepared(
        kernel.name,
        checked.grid,
        checked.block,
        checked.shared_bytes,
        tuple(arg_signature(a) for a in args),
    )


def check_same_args(
    kernel: KernelArtifact, prepared: Prepared, args: Sequence[Any], describe: Describe
) -> list[str]:
    """Why `args` are not what `prepared` was checked with (empty when they agree): the same
    shapes and values, and still no exclusive output overlapping another argument."""
    name = f"@{kernel.name}"
    if prepared.kernel != kernel.name:
        return [f"the prepared launch is for @{prepared.kernel}, not {name}"]
    out = []
    for i, (value, then) in enumerate(zip(args, prepared.signature)):
        now = arg_signature(value)
        if now != then:
            what = "shape" if isinstance(value, Tensor) else "value"
            out.append(
                f"argument #{i} ({param_name(kernel.params, i)}) of {name} has {what} "
                f"{_show(now)}, but the launch was prepared with {_show(then)}: prepare it "
                "again with these arguments"
            )
    out += aliasing.problems(
        name, kernel.params, described(args, describe), lambda i: param_name(kernel.params, i)
    )
    return out


def _show(v: Any) -> str:
    return str(list(v)) if isinstance(v, tuple) else str(v)


__all__ = ["PrepareError", "check_prepare", "check_same_args", "described"]
