"""`run_simt_kernel`: launch one SIMT kernel on the reference interpreter.

The launch is checked as the driver would check it (dimensions, the contract's block as
`.reqntid`, static shared memory) and the arguments against the kernel's parameter types. Then
the grid runs in groups of whole blocks on the SIMT engine (`engine.py`), each op once per group
as NumPy arrays: about `GROUP_LANES` threads at a time, so a kernel without barriers runs the
whole grid in a few large steps, and one with shared memory runs many blocks side by side (each
with its own shared arrays and barrier intervals). Blocks share nothing but global memory, so
this order is one the GPU may pick. The contract's `requires` relations are the host's `prepare`
to check: a launch that skips it runs here as it would on the GPU, and may trap.

A collective that part of the lanes it waits for reaches (a barrier inside a thread-dependent
branch, a shuffle in a loop some lanes left) makes the engine give up: the writable arguments are
restored and the launch is replayed one thread per executor on the cooperative scheduler
(`threads.py`), which runs the interleaving the GPU would, or reports the deadlock.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from itertools import product
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from ferrox.diagnostics import location_of
from ferrox.dialects import simt
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.driver.interpreter import arith_ops, math_ops, simt_ops  # noqa: F401 (op table)
from ferrox.driver.interpreter.arguments import bind_args
from ferrox.driver.interpreter.engine import Diverged, Executor, Launch
from ferrox.driver.interpreter.errors import Dim3, LaunchError
from ferrox.driver.interpreter.machine import BlockState, ThreadCtx, max_steps
from ferrox.driver.interpreter.memory import AtomicScopes, Buffer
from ferrox.driver.interpreter.threads import Cooperative
from ferrox.driver.interpreter.values import element_bytes, storage_dtype, value_dtype

GROUP_LANES = 1 << 17
"""About how many threads run together (whole blocks: at least one)."""
GROUP_SHARED_BYTES = 1 << 22
"""At most this much static shared memory over a group's blocks (race records take about 16
times as much again)."""
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
STATIC_SHARED_LIMIT = 48 * 1024


def find_kernel(module: ModuleOp, name: str) -> simt.KernelOp:
    name = name.removeprefix("@")
    for op in module.walk():  # the first of the name, as the walk meets them
        if isinstance(op, simt.KernelOp) and op.sym_name.data == name:
            return op
    kernels = [op for op in module.walk() if isinstance(op, simt.KernelOp)]
    names = ", ".join(f"@{k.sym_name.data}" for k in kernels) or "none"
    raise LaunchError(f"no simt.kernel named @{name} in the module (kernels: {names})")


def _dim3(value: Any, what: str) -> Dim3:
    dims = (value,) if isinstance(value, int | np.integer) else tuple(value)
    if not 1 <= len(dims) <= 3 or any(
        isinstance(d, bool) or not isinstance(d, int | np.integer) for d in dims
    ):
        raise LaunchError(f"{what} must be 1 to 3 positive integers, got {value!r}")
    if any(d < 1 for d in dims):
        raise LaunchError(
            f"{what} dimensions must be at least 1, got {tuple(int(d) for d in dims)}"
        )
    padded = tuple(int(d) for d in dims) + (1,) * (3 - len(dims))
    return padded[0], padded[1], padded[2]


def _reachable(kernel: simt.KernelOp) -> dict[Operation, list[Operation]]:
    """The kernel and every device function it reaches, each with its ops in `walk()` order:
    one walk of each, which the launch's checks then read."""
    seen: dict[int, Operation] = {id(kernel): kernel}
    walked: dict[Operation, list[Operation]] = {}
    work: list[Operation] = [kernel]
    while work:
        body = work.pop()
        ops = walked[body] = list(body.walk())
        for op in ops:
            if isinstance(op, simt.CallOp):
                callee = op.callee_op()
                if callee is not None and id(callee) not in seen:
                    seen[id(callee)] = callee
                    work.append(callee)
    return {body: walked[body] for body in seen.values()}


def needs_cooperation(ops: Iterable[Operation]) -> bool:
    """Whether any thread may wait for another: a barrier or warp collective among `ops` (every
    op the launch reaches)."""
    meet = (simt.SyncThreadsOp, *simt.CONVERGENT_WARP_OPS)
    return any(isinstance(op, meet) for op in ops)


def static_shared_bytes(ops: Iterable[Operation]) -> int:
    """The static arrays' bytes among `ops` (every op the launch reaches) as the GPU may lay them
    out, alignment padding included (the bound of `simt.static_shared_bound`: ptxas picks the
    order)."""
    allocs = []
    for op in ops:
        if isinstance(op, simt.SharedAllocOp) and not op.is_dynamic:
            t = op.result.type
            assert isinstance(t, SharedArrayType)
            try:
                element_bytes(t.element_type)
            except TypeError as e:
                raise LaunchError(f"{t} at {location_of(op)}: {e}") from None
            allocs.append(op)
    return simt.static_shared_bound(allocs)


def check_launch(
    kernel: simt.KernelOp,
    grid: Dim3,
    block: Dim3,
    shared_bytes: int,
    static: int,
    ops: Sequence[Operation] | None = None,
) -> None:
    """`ops`: the kernel's ops in `walk()` order, where the caller has them."""
    name = f"@{kernel.sym_name.data}"
    for what, dims, limits in (("block", block, MAX_BLOCK), ("grid", grid, MAX_GRID)):
        for axis, d, limit in zip("xyz", dims, limits):
            if d > limit:
                raise LaunchError(f"{what}.{axis} = {d} is over the CUDA limit of {limit}")
    threads = math.prod(block)
    if threads > MAX_THREADS_PER_BLOCK:
        raise LaunchError(
            f"a block of {block} has {threads} threads; CUDA allows {MAX_THREADS_PER_BLOCK}"
        )
    contract = kernel.contract
    if contract is not None and tuple(contract.block_xyz) != block:
        raise LaunchError(
            f"{name} requires block {tuple(contract.block_xyz)} (its launch contract, emitted "
            "as .reqntid), "
            f"but the launch has block {block}"
        )
    if (
        isinstance(shared_bytes, bool)
        or not isinstance(shared_bytes, int | np.integer)
        or shared_bytes < 0
    ):
        raise LaunchError(f"shared_bytes must be a non-negative integer, got {shared_bytes!r}")
    _, dynamic = simt.dynamic_layout(kernel, ops)
    if dynamic > shared_bytes:
        raise LaunchError(
            f"{name}'s dynamic shared arrays take {dynamic} bytes, but the launch provides "
            f"shared_bytes = {shared_bytes}"
        )
    if static > STATIC_SHARED_LIMIT:
        raise LaunchError(
            f"{name} allocates {static} bytes of static shared memory; the limit is "
            f"{STATIC_SHARED_LIMIT}"
        )


def _lane_value(value: Any, param: Any) -> Any:
    """A bound argument as the engine holds it: buffers as they are, scalars as NumPy scalars
    of their lane type."""
    if isinstance(value, Buffer):
        return value
    dtype = value_dtype(param.type)
    if dtype is None:
        return value
    return dtype.type(value)


def _writable(values: Sequence[Any]) -> list[Buffer]:
    return [v for v in values if isinstance(v, Buffer) and v.array.flags.writeable]


def run_simt_kernel(
    module: ModuleOp,
    kernel: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: Sequence[np.ndarray | int | float],
    shared_bytes: int = 0,
) -> None:
    """Run `kernel` over the whole grid on NumPy arrays; slices are written in place.

    `args` follow the kernel's parameters: a NumPy array for each slice or pointer (1-D, or a
    C-contiguous array taken flat; the dtype of the element type, integers signed or unsigned),
    a number for each scalar. `shared_bytes` is the launch's dynamic shared memory: it must
    hold the kernel's dynamic shared arrays (`simt.shared_alloc {dynamic}`). Raises
    `LaunchError` before anything runs, or a
    `KernelFault` (`KernelTrap`, `KernelDeadlock`, `KernelRace`, `KernelStepLimit`) at the op
    where a thread went wrong, naming the first such thread in launch order; what the ops
    before it wrote stays written, as on the GPU.
    """
    op = find_kernel(module, kernel)
    grid3, block3 = _dim3(grid, "grid"), _dim3(block, "block")
    walked = _reachable(op)
    static = static_shared_bytes(o for ops in walked.values() for o in ops)
    check_launch(op, grid3, block3, shared_bytes, static, walked[op])
    finish: list = []
    bound = bind_args(op, args, finish)
    try:
        _execute(module, op, grid3, block3, bound, walked, static)
    finally:  # bf16 results back into the caller's arrays, as far as the kernel got
        for give_back in finish:
            give_back()


def _execute(
    module: ModuleOp,
    op: simt.KernelOp,
    grid3: Dim3,
    block3: Dim3,
    bound: list[Any],
    walked: dict[Operation, list[Operation]],
    shared: int,
) -> None:
    """`walked`: the kernel and the functions it reaches, each with its ops (`_reachable`);
    `shared`: their static shared bytes (`static_shared_bytes`)."""
    values = tuple(_lane_value(v, p) for v, p in zip(bound, op.params))
    budget = max_steps()
    cooperative = needs_cooperation(o for ops in walked.values() for o in ops)
    saved = [(b, b.array.copy()) for b in _writable(values)] if cooperative else []
    with np.errstate(all="ignore"):
        try:
            _run_groups(Launch(module, grid3, block3, budget), op, values, shared)
        except Diverged:
            for buffer, copy in saved:
                buffer.array[...] = copy
                if buffer.owner is not None:
                    buffer.owner[...] = -1
                buffer.race = None
                buffer.atomics = None
            _replay(Launch(module, grid3, block3, budget), op, values)


def _run_groups(launch: Launch, op: simt.KernelOp, values: tuple, shared_bytes: int) -> None:
    blocks = launch.grid[0] * launch.grid[1] * launch.grid[2]
    per_group = max(1, GROUP_LANES // launch.tpb)
    if shared_bytes:  # each block's shared arrays, and their race records, live per group
        per_group = max(1, min(per_group, GROUP_SHARED_BYTES // shared_bytes))
    for first in range(0, blocks, per_group):
        count = min(per_group, blocks - first)
        gids = np.arange(first * launch.tpb, (first + count) * launch.tpb, dtype=np.int64)
        ex = Executor(launch, gids, first, count, {})
        ex.run_region(op.body, values, np.ones(len(gids), bool), kernel_body=True)


def _replay(launch: Launch, op: simt.KernelOp, values: tuple) -> None:
    """One executor of one lane per GPU thread, taking turns at barriers and collectives."""
    bx, by, bz = launch.block
    tids = [(x, y, z) for z, y, x in product(range(bz), range(by), range(bx))]
    one = np.ones(1, bool)

    def run_thread(ctx: ThreadCtx) -> None:  # on its own OS thread, cooperatively
        state = pool.block
        assert state is not None
        gid = np.array([state.linear * launch.tpb + ctx.linear], np.int64)
        ex = Executor(launch, gid, state.linear, 1, state.shared, ctx.sync, ctx)
        ex.run_region(op.body, values, one, kernel_body=True)

    pool = Cooperative(run_thread, len(tids))
    try:
        for linear, (z, y, x) in enumerate(product(*(range(g) for g in reversed(launch.grid)))):
            state = BlockState((x, y, z), linear)
            pool.run(state, [ThreadCtx(tid, state.bid, i) for i, tid in enumerate(tids)])
    finally:
        pool.close()


__all__ = ["AtomicScopes", "GROUP_LANES", "find_kernel", "run_simt_kernel", "storage_dtype"]
