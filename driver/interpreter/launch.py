"""`run_simt_kernel`: launch one SIMT kernel on the reference interpreter.

The launch is checked as the driver would check it (dimensions, the contract's block as
`.reqntid`, static shared memory) and the arguments against the kernel's parameter types; then
every block runs in turn (blocks share nothing but global memory, so any order is one the GPU
may pick). The contract's `requires` relations are the host's `prepare` to check: a launch that
skips it runs here as it would on the GPU, and may trap.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from itertools import product
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import _InterpreterFunctionImpls
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.ir import Operation

from ferrox.diagnostics import location_of
from ferrox.dialects import simt
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.driver.interpreter.arguments import bind_args
from ferrox.driver.interpreter.arith_ops import FerroxArithFunctions
from ferrox.driver.interpreter.cf_ops import FerroxCfFunctions
from ferrox.driver.interpreter.errors import Dim3, LaunchError
from ferrox.driver.interpreter.machine import (
    BlockState,
    LaunchState,
    Program,
    SimtInterpreter,
    ThreadCtx,
)
from ferrox.driver.interpreter.math_ops import FerroxMathFunctions
from ferrox.driver.interpreter.simt_ops import SIMT_FUNCTIONS
from ferrox.driver.interpreter.threads import Cooperative, run_sequential
from ferrox.driver.interpreter.values import storage_dtype

MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)
STATIC_SHARED_LIMIT = 48 * 1024
FUNCTIONS = (
    FerroxArithFunctions,
    FerroxMathFunctions,
    ScfFunctions,
    CfFunctions,
    FerroxCfFunctions,
    FuncFunctions,
    *SIMT_FUNCTIONS,
)


@functools.cache
def interpreter_functions() -> _InterpreterFunctionImpls:
    """The implementation table every SIMT thread runs on (built once; not to be mutated).
    To add or override implementations, build your own from `FUNCTIONS` and yours."""
    impls = _InterpreterFunctionImpls()
    for functions in FUNCTIONS:
        impls.register_from(functions(), override=False)
    return impls


def find_kernel(module: ModuleOp, name: str) -> simt.KernelOp:
    name = name.removeprefix("@")
    kernels = [op for op in module.walk() if isinstance(op, simt.KernelOp)]
    for k in kernels:
        if k.sym_name.data == name:
            return k
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


def _callees(kernel: simt.KernelOp) -> list[Operation]:
    """The kernel and every device function it reaches."""
    seen: dict[int, Operation] = {id(kernel): kernel}
    work: list[Operation] = [kernel]
    while work:
        for op in work.pop().walk():
            if isinstance(op, simt.CallOp):
                callee = op.callee_op()
                if callee is not None and id(callee) not in seen:
                    seen[id(callee)] = callee
                    work.append(callee)
    return list(seen.values())


def needs_cooperation(bodies: Sequence[Operation]) -> bool:
    """Whether any thread may wait for another: a barrier or warp collective anywhere reachable."""
    meet = (simt.SyncThreadsOp, *simt.CONVERGENT_WARP_OPS)
    return any(isinstance(op, meet) for body in bodies for op in body.walk())


def static_shared_bytes(bodies: Sequence[Operation]) -> int:
    total = 0
    for body in bodies:
        for op in body.walk():
            if isinstance(op, simt.SharedAllocOp):
                t = op.result.type
                assert isinstance(t, SharedArrayType)
                try:
                    total += t.num_elements * storage_dtype(t.element_type).itemsize
                except TypeError as e:
                    raise LaunchError(f"{t} at {location_of(op)}: {e}") from None
    return total


def check_launch(
    kernel: simt.KernelOp, grid: Dim3, block: Dim3, shared_bytes: int, static: int
) -> None:
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
    if static > STATIC_SHARED_LIMIT:
        raise LaunchError(
            f"{name} allocates {static} bytes of static shared memory; the limit is "
            f"{STATIC_SHARED_LIMIT}"
        )


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
    a number for each scalar. `shared_bytes` is the launch's dynamic shared memory: no simt op
    addresses it, so it is only checked. Raises `LaunchError` before anything runs, or a
    `KernelFault` (`KernelTrap`, `KernelDeadlock`, `KernelRace`) at the op where a thread
    went wrong; what the threads before it wrote stays written, as on the GPU.
    """
    op = find_kernel(module, kernel)
    grid3, block3 = _dim3(grid, "grid"), _dim3(block, "block")
    bodies = _callees(op)
    check_launch(op, grid3, block3, shared_bytes, static_shared_bytes(bodies))
    values = tuple(bind_args(op, args))
    cooperative = needs_cooperation(bodies)
    launch = LaunchState(grid3, block3)
    base = SimtInterpreter(Program(module, interpreter_functions()), launch)
    body = op.body
    bx, by, bz = block3
    tids = [(x, y, z) for z, y, x in product(range(bz), range(by), range(bx))]

    def run_thread(ctx: ThreadCtx) -> None:  # on its own OS thread, cooperatively
        interp = base.fork()
        interp.thread = ctx
        interp.run_ssacfg_region(body, values)

    def run_one(ctx: ThreadCtx) -> None:  # in turn, on this thread
        base.thread = ctx
        base.env = {}
        base.run_ssacfg_region(body, values)

    pool = Cooperative(run_thread, len(tids)) if cooperative else None
    try:
        with np.errstate(all="ignore"):
            for linear_block, (z, y, x) in enumerate(product(*(range(g) for g in reversed(grid3)))):
                state = BlockState((x, y, z), linear_block)
                base.block = state
                threads = [ThreadCtx(tid, state.bid, i) for i, tid in enumerate(tids)]
                if pool is not None:
                    pool.run(state, threads)
                else:
                    run_sequential(threads, run_one)
    finally:
        if pool is not None:
            pool.close()
