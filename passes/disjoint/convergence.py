"""Rule 7: barriers and warp collectives are convergent, so they may sit only where control flow
is uniform enough.

A barrier (`simt.sync_threads`) must be reached by every thread of its block together: every
decision between it and its function's entry (an `scf.if` or `scf.index_switch` condition, loop
bounds, an `scf.while` condition, a `cf` branch in a region of several blocks at any depth, an
early exit) must be uniform across the block. A warp collective (`simt.shuffle`,
`simt.vote_all`, `simt.vote_any`, `simt.ballot`, `simt.mma_sync`) needs decisions uniform across
the warp; a warpgroup collective (`simt.wgmma`, `simt.wgmma_reg_a` and their fence, commit and
wait) is held to the block's, as a barrier is. A `simt.call` to a device function that contains
one, however deeply, needs what the callee needs. A `simt.get_mut` region runs only where its
witness is in bounds, and a region of an op the verifier does not know may run on some threads
only: both are divergent.
What is uniform is decided by the uniformity analysis (`passes/analysis/uniformity.py`,
docs/uniformity-analysis.md); anything it cannot prove uniform is divergent.

`check` also runs rule 8's flow half (`passes/disjoint/in_flight.py`): which wgmma groups may be
in flight at each op, so that no tile they read is written before the wait that retires them.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.ir import Operation, SSAValue

from ferrox.diagnostics import DiagnosticEngine
from ferrox.dialects.simt import (
    CONVERGENT_WARP_OPS,
    WARPGROUP_COLLECTIVE_OPS,
    CallOp,
    FuncOp,
    SyncThreadsOp,
)
from ferrox.passes.analysis.uniformity import Level, Uniformity, UniformityInternalError
from ferrox.passes.disjoint import in_flight
from ferrox.passes.disjoint.common import Context, Function, type_test

_is_block_convergent = type_test((SyncThreadsOp, *WARPGROUP_COLLECTIVE_OPS))
_is_warp_convergent = type_test(CONVERGENT_WARP_OPS)
_is_warpgroup = type_test(WARPGROUP_COLLECTIVE_OPS)
_is_call = type_test(CallOp)


def _own_need(op: Operation) -> Level | None:
    if _is_block_convergent(op):  # no warpgroup level: block
        return Level.BLOCK
    if _is_warp_convergent(op):
        return Level.WARP
    return None


def convergent_funcs(fns: Iterable[Function], ctx: Context) -> dict[str, Level]:
    """The device functions among `fns` (a root's `functions`) that contain a convergent op,
    directly or through calls, each with the uniformity its call sites need (BLOCK where a
    barrier is reached, else WARP)."""
    need: dict[str, Level] = {}
    calls: dict[str, set[str]] = {}
    for fn in fns:
        name = fn.sym_name.data
        ops = ctx.ops(fn)
        levels = [lv for op in ops if (lv := _own_need(op)) is not None]
        if levels:
            need[name] = max(levels)
        calls[name] = {op.callee.root_reference.data for op in _calls(ops)}
    changed = True
    while changed:
        changed = False
        for name, callees in calls.items():
            for callee in callees:
                if callee in need and need.get(name, Level.THREAD) < need[callee]:
                    need[name] = need[callee]
                    changed = True
    return need


def analyse(fns: list[Function], ctx: Context) -> None:
    """The uniformity of every function into `ctx.analyses`, with each device function's
    parameters as uniform as the least uniform argument any call site passes
    (`ctx.param_levels`). Optimistic: called functions' parameters start at GRID and fall until
    the call sites agree; a function nothing calls keeps divergent parameters."""
    names = {fn.sym_name.data for fn in fns}
    calls = [
        (fn.sym_name.data, op)
        for fn in fns
        for op in _calls(ctx.ops(fn))
        if op.callee.root_reference.data in ctx.funcs
    ]
    levels: dict[str, list[tuple[Level, CallOp | None]]] = {}
    for _, call in calls:
        callee = ctx.funcs[call.callee.root_reference.data]
        levels[callee.sym_name.data] = [(Level.GRID, None)] * len(callee.function_type.inputs)
    rounds = 3 * sum(len(v) for v in levels.values()) + 2
    # A function analysed again with the same parameter levels has the same analysis.
    done: dict[tuple[int, tuple[Level, ...] | None], Uniformity] = {}
    for _ in range(rounds):
        ctx.param_levels = levels
        analyses = {}
        for fn in fns:
            params = _params(fn, ctx)
            key = (id(fn), None if params is None else tuple(params))
            if key not in done:
                done[key] = Uniformity(fn, params=params)
            analyses[fn.sym_name.data] = done[key]
        ctx.analyses = analyses
        top: tuple[Level, CallOp | None] = (Level.GRID, None)
        new = {name: [top] * len(v) for name, v in levels.items()}
        for caller, call in calls:
            if caller not in names:
                continue
            slots = new[call.callee.root_reference.data]
            for i, arg in enumerate(call.arguments[: len(slots)]):
                level = ctx.analyses[caller].fact(arg).level
                if level < slots[i][0]:
                    slots[i] = (level, call)
        if [[lv for lv, _ in v] for v in new.values()] == [
            [lv for lv, _ in levels[k]] for k in new
        ]:
            ctx.param_levels = new
            return
        levels = new
    raise UniformityInternalError(
        "internal error: the parameter uniformity of device functions did not converge"
    )


def _calls(ops: list[Operation]) -> list[CallOp]:
    return [op for op in ops if _is_call(op)]  # type: ignore[misc]


def _params(fn: Function, ctx: Context) -> list[Level] | None:
    slots = ctx.param_levels.get(fn.sym_name.data)
    if not isinstance(fn, FuncOp) or slots is None:
        return None
    return [level for level, _ in slots]


def _what(op: Operation, ctx: Context) -> tuple[Level, str] | None:
    need = _own_need(op)
    if _is_warpgroup(op):
        return Level.BLOCK, "warpgroup collective"
    if need == Level.BLOCK:
        return need, "barrier"
    if need == Level.WARP:
        return need, "warp collective"
    if _is_call(op):
        assert isinstance(op, CallOp)
        callee = op.callee.root_reference.data
        if callee in ctx.convergent_funcs:
            return ctx.convergent_funcs[callee], "call to a convergent function"
    return None


def check(fn: Function, ctx: Context, engine: DiagnosticEngine) -> None:
    in_flight.check(fn, ctx.ops(fn), engine)  # rule 8's flow half: the wgmma pipeline
    analysis = ctx.analyses.get(fn.sym_name.data)
    for op in ctx.ops(fn):
        what = _what(op, ctx)
        if what is None:
            continue
        if analysis is None:
            analysis = Uniformity(fn, params=_params(fn, ctx))
        need, kind = what
        if analysis.control(op) >= need:
            continue
        who = "every thread of the block" if need == Level.BLOCK else "every lane of the warp"
        message = f"{kind} under divergent control flow: '{op.name}' must be reached by {who}"
        decision = analysis.divergence(op, need)
        notes = [] if decision is None else [(decision.op, decision.note(need))]
        if decision is not None and decision.value is not None:
            notes.extend(_passed_by(fn, decision.value, need, ctx))
        engine.error(op, message, notes)


def _passed_by(fn: Function, value: SSAValue, need: Level, ctx: Context):
    """Where a divergent parameter of a device function comes from: the call that passes it."""
    params = fn.body.blocks[0].args if isinstance(fn, FuncOp) and fn.body.blocks else ()
    if value not in params:
        return []
    slots = ctx.param_levels.get(fn.sym_name.data)
    if slots is None:
        return [(value, f"a parameter of @{fn.sym_name.data}, which nothing in this module calls")]
    level, call = slots[params.index(value)]
    if call is None or level >= need:
        return []
    return [(call, f"called here with an argument that is not uniform across the {need.scope}")]
