"""Rule 7: barriers and warp collectives are convergent, so they may not sit under divergent
control flow.

The rule, precisely: a convergent op (`simt.sync_threads`, `simt.shuffle`, `simt.vote_all`,
`simt.vote_any`, `simt.ballot`, or a `simt.call` to a device function that contains one, however
deeply) is rejected when, between it and its kernel or function, there is
- an `scf.if` or `scf.index_switch` (whatever its condition: the verifier does not prove a
  condition uniform),
- a `simt.get_mut` region (it runs only where the witness is in bounds),
- an `scf.while` (its trip count is decided at run time, per thread), or
- an `scf.for` whose lower bound, upper bound or step is not uniform,
or when the function body has more than one block (unstructured control flow).

A value is uniform when it is a constant, a parameter of the kernel (not of a device function),
the induction variable of an `scf.for` with uniform bounds, `simt.block_id`, `simt.block_dim`,
`simt.grid_dim` or `simt.len`, or the result of an `arith`/`math` op whose operands are all
uniform. Thread ids, lane ids, witness values, loads and everything else are not.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.ir import BlockArgument, Operation, SSAValue

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import (
    CONVERGENT_WARP_OPS,
    BlockDimOp,
    BlockIdOp,
    CallOp,
    GetMutOp,
    GridDimOp,
    KernelOp,
    LenOp,
    SyncThreadsOp,
)
from ferrox.passes.disjoint.common import Context, Function, functions

_UNIFORM_OPS = (BlockIdOp, BlockDimOp, GridDimOp, LenOp)


def convergent_funcs(root: Operation, ctx: Context) -> set[str]:
    """Names of the device functions that contain a convergent op, directly or through calls."""
    direct: dict[str, bool] = {}
    calls: dict[str, set[str]] = {}
    for fn in functions(root):
        name = fn.sym_name.data
        direct[name] = any(
            isinstance(op, (SyncThreadsOp, *CONVERGENT_WARP_OPS)) for op in fn.walk()
        )
        calls[name] = {op.callee.root_reference.data for op in fn.walk() if isinstance(op, CallOp)}
    result = {n for n, d in direct.items() if d}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            if name not in result and callees & result:
                result.add(name)
                changed = True
    return result


def _what(op: Operation) -> tuple[str, str] | None:
    if isinstance(op, SyncThreadsOp):
        return "barrier", "every thread of the block"
    if isinstance(op, CONVERGENT_WARP_OPS):
        return "warp collective", "every lane of the warp"
    return None


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    multi_block = len(fn.body.blocks) > 1
    for op in fn.walk():
        what = _what(op)
        if (
            what is None
            and isinstance(op, CallOp)
            and op.callee.root_reference.data in ctx.convergent_funcs
        ):
            what = ("call to a convergent function", "every thread of the block")
        if what is None:
            continue
        kind, who = what
        message = f"{kind} under divergent control flow: '{op.name}' must be reached by {who}"
        if multi_block:
            engine.error(op, message, [(fn, "the body branches between blocks here")])
            continue
        divergent = _divergent_ancestor(op, fn)
        if divergent is not None:
            engine.error(op, message, [divergent])


def _divergent_ancestor(op: Operation, fn: Function) -> tuple[Operation, str] | None:
    parent = op.parent_op()
    while parent is not None and parent is not fn:
        if isinstance(parent, scf.IfOp | scf.IndexSwitchOp):
            return parent, "control flow diverges here: not every thread may take this branch"
        if isinstance(parent, GetMutOp):
            return (
                parent,
                "control flow diverges here: this region runs only where the witness is in bounds",
            )
        if isinstance(parent, scf.WhileOp):
            return (
                parent,
                "control flow diverges here: "
                "the trip count of this loop may differ between threads",
            )
        if isinstance(parent, scf.ForOp) and not all(
            is_uniform(v, fn) for v in (parent.lb, parent.ub, parent.step)
        ):
            return (
                parent,
                "control flow diverges here: the bounds of this loop depend on the thread",
            )
        parent = parent.parent_op()
    return None


def is_uniform(value: SSAValue, fn: Function, _depth: int = 0) -> bool:
    """Whether every thread of a block sees the same `value` (see the module docstring)."""
    if _depth > 64:
        return False
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        if owner is fn:
            return isinstance(fn, KernelOp) and value.block is fn.body.blocks[0]
        if isinstance(owner, scf.ForOp) and value.index == 0:
            return all(is_uniform(v, fn, _depth + 1) for v in (owner.lb, owner.ub, owner.step))
        return False
    op = value.owner
    assert isinstance(op, Operation)
    if isinstance(op, _UNIFORM_OPS):
        return all(is_uniform(v, fn, _depth + 1) for v in op.operands)
    dialect = op.name.split(".", 1)[0]
    if dialect in ("arith", "math") and not op.regions:
        return all(is_uniform(v, fn, _depth + 1) for v in op.operands)
    return False
