"""`verify-disjoint`: the SIMT safety rules 1-9 (docs/safety.md#simt-rules) over every kernel and
device function.

Op verifiers check that each op is well formed; this pass checks that the kernel is safe: witness
provenance, linearity and escape, index-space agreement, disjoint-slice use, the launch contract,
unsafe-only operations and convergence, the wgmma pipeline (rule 8) and the stage hand-off of a
warp-specialised kernel (rule 9). It reports every violation, then fails once. The IR is
not changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from xdsl.context import Context as XContext
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ferrox.diagnostics import Diagnostic, DiagnosticEngine
from ferrox.dialects.simt import FuncOp, KernelOp
from ferrox.passes.disjoint import contract, convergence, slices, specialize, unsafe, witnesses
from ferrox.passes.disjoint.common import Context, Function, type_test, walk

_is_simt_function = type_test((KernelOp, FuncOp))

CHECKS = (
    witnesses.check,
    slices.check,
    contract.check,
    unsafe.check,
    convergence.check,
    specialize.check,
)


def collect(root: Operation) -> list[Diagnostic]:
    """Every violation in `root`, in check order per function (empty when the IR is safe)."""
    ops = walk(root)  # once: the functions, the ops outside them, and a function root's walk
    fns = cast(list[Function], [op for op in ops if _is_simt_function(op)])
    ctx = Context(funcs={f.sym_name.data: f for f in fns if isinstance(f, FuncOp)})
    if fns and fns[0] is root:  # (the tile lowering checks each kernel it made on its own)
        ctx.walks[id(root)] = ops
    ctx.convergent_funcs = convergence.convergent_funcs(fns, ctx)
    convergence.analyse(fns, ctx)
    engine = DiagnosticEngine()
    _outside_functions(ops, engine)
    for fn in fns:
        for check in CHECKS:
            check(fn, ctx, engine)
    return engine.diagnostics


def _outside_functions(ops: list[Operation], engine: DiagnosticEngine) -> None:
    """A simt op outside every kernel and device function is checked by no rule here (the
    rules walk functions) and lowers to device code at a module's top level. `ops`: the
    checked root's walk."""
    for op in ops:
        if not op.name.startswith("simt.") or _is_simt_function(op):
            continue
        parent = op.parent_op()
        while parent is not None and not _is_simt_function(parent):
            parent = parent.parent_op()
        if parent is None:
            engine.error(op, f"'{op.name}' must be inside a simt.kernel or simt.func")


def verify_disjoint(root: Operation) -> None:
    """Raise one `DiagnosticError` carrying every violation, if there is any."""
    engine = DiagnosticEngine(collect(root))
    engine.raise_if_errors()


@dataclass(frozen=True)
class VerifyDisjointPass(ModulePass):
    """Check the SIMT rules 1-9 (docs/safety.md#simt-rules); the module is left unchanged."""

    name = "verify-disjoint"

    def apply(self, ctx: XContext, op: ModuleOp) -> None:
        verify_disjoint(op)
