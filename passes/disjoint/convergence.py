"""Rule 7: barriers and warp collectives are convergent, so they may sit only where control flow
is uniform enough.

A barrier (`simt.sync_threads`) must be reached by every thread of its block together: every
decision between it and its function's entry (an `scf.if` or `scf.index_switch` condition, loop
bounds, an `scf.while` condition, a `cf` branch in a region of several blocks at any depth,
an early exit) must be uniform across the block. A warp collective (`simt.shuffle`,
`simt.vote_all`, `simt.vote_any`, `simt.ballot`, `simt.mma_sync`) needs decisions uniform
across the warp. A `simt.call` to a device function that contains either, however deeply, needs
what the callee needs. A `simt.get_mut` region runs only where its witness is in bounds, and a
region of an op the verifier does not know may run on some threads only: both are divergent.
What is uniform is decided by the uniformity analysis (`passes/analysis/uniformity.py`,
docs/uniformity-analysis.md); anything it cannot prove uniform is divergent.
"""

from __future__ import annotations

from xdsl.ir import Operation

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import CONVERGENT_WARP_OPS, CallOp, SyncThreadsOp
from ferrox.passes.analysis.uniformity import Level, Uniformity
from ferrox.passes.disjoint.common import Context, Function, functions


def _own_need(op: Operation) -> Level | None:
    if isinstance(op, SyncThreadsOp):
        return Level.BLOCK
    if isinstance(op, CONVERGENT_WARP_OPS):
        return Level.WARP
    return None


def convergent_funcs(root: Operation, ctx: Context) -> dict[str, Level]:
    """The device functions that contain a convergent op, directly or through calls, each with
    the uniformity its call sites need (BLOCK where a barrier is reached, else WARP)."""
    need: dict[str, Level] = {}
    calls: dict[str, set[str]] = {}
    for fn in functions(root):
        name = fn.sym_name.data
        levels = [lv for op in fn.walk() if (lv := _own_need(op)) is not None]
        if levels:
            need[name] = max(levels)
        calls[name] = {op.callee.root_reference.data for op in fn.walk() if isinstance(op, CallOp)}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            for callee in callees:
                if callee in need and need.get(name, Level.THREAD) < need[callee]:
                    need[name] = need[callee]
                    changed = True
    return need


def _what(op: Operation, ctx: Context) -> tuple[Level, str] | None:
    need = _own_need(op)
    if need == Level.BLOCK:
        return need, "barrier"
    if need == Level.WARP:
        return need, "warp collective"
    if isinstance(op, CallOp):
        callee = op.callee.root_reference.data
        if callee in ctx.convergent_funcs:
            return ctx.convergent_funcs[callee], "call to a convergent function"
    return None


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    analysis: Uniformity | None = None
    for op in fn.walk():
        what = _what(op, ctx)
        if what is None:
            continue
        if analysis is None:
            analysis = Uniformity(fn)
        need, kind = what
        if analysis.control(op) >= need:
            continue
        who = "every thread of the block" if need == Level.BLOCK else "every lane of the warp"
        message = f"{kind} under divergent control flow: '{op.name}' must be reached by {who}"
        decision = analysis.divergence(op, need)
        notes = [] if decision is None else [(decision.op, decision.note(need))]
        engine.error(op, message, notes)
