"""`host.prepare` at run time: a launch configuration checked against everything that is known.

The checks, each reported as one sentence naming the bound and both values (all of them, not
only the first): the kernel has a contract; grid and block use no more dimensions than its
domain; the block is the contract's block; the dynamic shared memory is the contract's
`shared_bytes`; the device's limits (threads per block, block and grid dimensions, shared
memory, compute capability against `min_cc`, by `DeviceLimits.check_launch`); every `requires`
relation on the actual arguments; and that the grid covers every disjoint output (`coverage`).
A `Prepared` records the configuration and each argument's shape or value, and a safe launch
re-checks that its arguments agree with them (`check_same_args`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ferrox.dialects import simt
from ferrox.dialects.simt.contract import SizeExprAttr, SizeRelationAttr
from ferrox.driver.host_runner import coverage
from ferrox.driver.host_runner.values import Dim3, Prepared, Tensor, arg_signature, dim3
from ferrox.driver.runtime.device import DeviceLimits


class PrepareError(ValueError):
    """Every way a configuration breaks the contract, the device or the arguments."""

    def __init__(self, kernel: str, problems: Sequence[str]):
        self.kernel = kernel
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def param_name(kernel: simt.KernelOp, i: int) -> str:
    hint = kernel.params[i].name_hint if i < len(kernel.params) else None
    return f"%{hint}" if hint else f"arg{i}"


def _leaves(expr: SizeExprAttr) -> list[SizeExprAttr]:
    return [e for e in expr.walk() if e.kind.data in ("arg", "len")]


def _requires(kernel: simt.KernelOp, relation: SizeRelationAttr, args: Sequence[Any]) -> str | None:
    name = f"@{kernel.sym_name.data}"

    def length(i: int) -> int:
        value = args[i]
        if not isinstance(value, Tensor):
            raise PrepareError(
                name, [f"{relation} takes len(arg{i}), but argument #{i} is a scalar"]
            )
        return value.size

    def scalar(i: int) -> int:
        value = args[i]
        if isinstance(value, Tensor):
            raise PrepareError(
                name, [f"{relation} takes arg{i} as a number, but argument #{i} is a tensor"]
            )
        return int(value)

    if relation.holds(scalar, length):
        return None
    lhs, rhs = relation.lhs.evaluate(scalar, length), relation.rhs.evaluate(scalar, length)
    sides = []
    for side, value in ((relation.lhs, lhs), (relation.rhs, rhs)):
        sides.append(f"{side} = {value}")
    leaves = []
    for side in (relation.lhs, relation.rhs):
        if side.kind.data in ("arg", "len", "const"):
            continue
        for leaf in _leaves(side):
            i = leaf.value.data
            text = f"{leaf} = {length(i) if leaf.kind.data == 'len' else scalar(i)}"
            if text not in leaves:
                leaves.append(text)
    refs = sorted({i for _, i in relation.arg_refs()})
    names = ", ".join(f"arg{i} is {param_name(kernel, i)}" for i in refs)
    detail = f" ({', '.join(leaves)})" if leaves else ""
    return f"{name} requires {relation}, but {' and '.join(sides)}{detail}" + (
        f" [{names}]" if names else ""
    )


def check_prepare(
    kernel: simt.KernelOp,
    grid: Sequence[int],
    block: Sequence[int],
    shared: int | None,
    args: Sequence[Any],
    limits: DeviceLimits,
) -> Prepared:
    """The `Prepared` proof for this configuration, or a `PrepareError` listing every problem."""
    name = f"@{kernel.sym_name.data}"
    contract = kernel.contract
    if contract is None:
        raise PrepareError(name, [f"{name} has no launch contract, so it cannot be prepared"])
    problems: list[str] = []
    try:
        grid3, block3 = dim3(grid, "grid"), dim3(block, "block")
    except ValueError as e:
        raise PrepareError(name, [str(e)]) from None
    domain = contract.domain.data
    for what, dims in (("grid", grid), ("block", block)):
        if len(dims) > domain:
            problems.append(
                f"{what} has {len(dims)} dimensions, but {name}'s contract has domain = {domain}"
            )
    if block3 != contract.block_xyz:
        problems.append(
            f"block is {block3}, but {name}'s contract requires block = "
            f"{list(contract.block_shape)}, i.e. {contract.block_xyz}"
        )
    want_shared = contract.shared_bytes.data
    shared_bytes = want_shared if shared is None else int(shared)
    if shared_bytes != want_shared:
        problems.append(
            f"dynamic shared memory is {shared_bytes} bytes, but {name}'s contract has "
            f"shared_bytes = {want_shared}"
        )
    min_cc = contract.min_cc.data
    problems += limits.check_launch(
        grid3, block3, shared_bytes, (min_cc // 10, min_cc % 10) if min_cc else None
    )
    if len(args) != len(kernel.params):
        problems.append(f"{name} takes {len(kernel.params)} arguments, got {len(args)}")
        raise PrepareError(name, problems)
    for relation in contract.relations:
        if (why := _requires(kernel, relation, args)) is not None:
            problems.append(why)
    if block3 != contract.block_xyz:
        raise PrepareError(name, problems)  # coverage is only meaningful for the contract's block
    problems += coverage.problems(
        kernel,
        grid3,
        block3,
        lambda i: args[i].size if isinstance(args[i], Tensor) else 0,
        lambda i: int(args[i]),
        lambda i: param_name(kernel, i),
    )
    if problems:
        raise PrepareError(name, problems)
    return Prepared(
        kernel.sym_name.data,
        grid3,
        block3,
        shared_bytes,
        tuple(arg_signature(a) for a in args),
    )


def check_same_args(kernel: simt.KernelOp, prepared: Prepared, args: Sequence[Any]) -> list[str]:
    """Why `args` are not what `prepared` was checked with (empty when they agree)."""
    name = f"@{kernel.sym_name.data}"
    if prepared.kernel != kernel.sym_name.data:
        return [f"the prepared launch is for @{prepared.kernel}, not {name}"]
    out = []
    for i, (value, then) in enumerate(zip(args, prepared.signature)):
        now = arg_signature(value)
        if now != then:
            what = "shape" if isinstance(value, Tensor) else "value"
            out.append(
                f"argument #{i} ({param_name(kernel, i)}) of {name} has {what} {_show(now)}, but the "
                f"launch was prepared with {_show(then)}: prepare it again with these arguments"
            )
    return out


def _show(v: Any) -> str:
    return str(list(v)) if isinstance(v, tuple) else str(v)


__all__ = ["Dim3", "PrepareError", "check_prepare", "check_same_args", "param_name"]
