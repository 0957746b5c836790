"""Rule 5: a launch contract must describe a launch the hardware can run and that keeps every
witness the kernel uses (directly or through device functions) unique.

A block holds at most 1024 threads; its rank may not exceed the domain. The 1d and warp spaces
need domain 1 (a 2-D grid would give two threads one index), 2d and 2d_runtime need domain 2. The
warp space needs a block x that is a multiple of 32, so that its lane 0 (global thread id % 32 ==
0) is the hardware lane 0.
"""

from __future__ import annotations

from xdsl.ir import Operation

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import TRUSTED_INDEX_OPS, CallOp, KernelOp, ThreadIndexType
from ferrox.passes.disjoint.common import Context, Function, type_test

MAX_THREADS_PER_BLOCK = 1024
WARP_SIZE = 32
_is_trusted_index = type_test(TRUSTED_INDEX_OPS)
_is_call = type_test(CallOp)


def _witness_ops(fn: Function, ctx: Context, seen: set[str]) -> list[Operation]:
    found: list[Operation] = []
    for op in ctx.ops(fn):
        if _is_trusted_index(op):
            found.append(op)
        elif _is_call(op):
            assert isinstance(op, CallOp)
            callee = ctx.callee(op)
            if callee is not None and callee.sym_name.data not in seen:
                seen.add(callee.sym_name.data)
                found.extend(_witness_ops(callee, ctx, seen))
    return found


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    if not isinstance(fn, KernelOp) or fn.contract is None:
        return
    contract = fn.contract
    block = list(contract.block_shape)
    domain = contract.domain.data
    if contract.threads_per_block > MAX_THREADS_PER_BLOCK:
        engine.error(
            fn,
            f"launch contract block {block} has {contract.threads_per_block} threads, "
            f"more than the {MAX_THREADS_PER_BLOCK} a block can hold",
        )
    if len(block) > domain:
        engine.error(
            fn,
            f"launch contract block {block} has rank {len(block)}, more than its domain {domain}",
        )
    for op in _witness_ops(fn, ctx, {fn.sym_name.data}):
        result_type = op.results[0].type
        assert isinstance(result_type, ThreadIndexType)
        space = result_type.space
        if space.required_domain != domain:
            engine.error(
                op,
                f"index space {space} needs a launch contract of domain {space.required_domain}, "
                f"found domain {domain}",
                [(fn, "launch contract declared here")],
            )
        elif space.kind.data == "warp" and contract.block_xyz[0] % WARP_SIZE:
            engine.error(
                op,
                f"index space warp needs a block x that is a multiple of {WARP_SIZE}, "
                f"found {contract.block_xyz[0]}",
                [(fn, "launch contract declared here")],
            )
