"""Cast reconciliation: the last step of `convert-to-llvm`.

The patterns leave `builtin.unrealized_conversion_cast` pairs (i64 -> index -> i64) wherever a
value crossed from a rewritten op to one rewritten later. Once everything is rewritten each chain
folds to its input; xDSL's `ReconcileUnrealizedCastsPattern` does that. A cast that survives means
a value of an unconverted type is still used, so it is reported at its user.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, UnrealizedConversionCastOp
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter
from xdsl.transforms.reconcile_unrealized_casts import ReconcileUnrealizedCastsPattern

from ferrox.dialects.typetest import type_test
from ferrox.lowering.conversion import ConversionState, rewrite_module
from ferrox.passes.disjoint.common import walk


def _unused_alone(cast: UnrealizedConversionCastOp) -> bool:
    """Whether `cast` is unused, is no link of a chain (its input is not a cast's) and the
    pattern's erasure would give its input no name (which the pattern does, in walk order,
    when the input has none and the cast has one)."""
    if len(cast.inputs) != 1 or len(cast.results) != 1 or cast.results[0].uses:
        return False
    value = cast.inputs[0]
    if _is_cast(value.owner):
        return False
    return bool(value.name_hint) or cast.results[0].name_hint is None


_is_cast = type_test(UnrealizedConversionCastOp)

_RECONCILE = ReconcileUnrealizedCastsPattern(warn_on_failure=False)
"""One object for every run (it holds no state): `conversion.Dispatch` keeps what it worked out
for a tuple of pattern objects, and a new one each run added an entry each compile."""


def reconcile(module: ModuleOp, state: ConversionState) -> list[Operation]:
    """Fold the cast chains; report the survivors (except at ops already reported). Returns
    `walk(module)` as it is after that, for the pass's next check (one walk fewer)."""
    # Most casts are unused by now (every user was rewritten to take the cast's input). Those
    # the pattern would erase alone, leaving every name as it is, are erased here first; the
    # pattern's walk then runs only if any cast is left.
    left = False
    ops = walk(module)
    erased = False
    for op in [op for op in ops if type(op) is UnrealizedConversionCastOp]:
        if _unused_alone(op):
            Rewriter.erase_op(op)
            erased = True
        else:
            left = True
    if not left:
        # Nothing else changed: the walk less the casts just erased (all of them).
        return [op for op in ops if type(op) is not UnrealizedConversionCastOp] if erased else ops
    # xDSL's walker over this one pattern, offering it only the casts (`DispatchWalker`).
    rewrite_module([_RECONCILE], module)
    ops = walk(module)
    for cast in ops:
        if not _is_cast(cast):
            continue
        assert isinstance(cast, UnrealizedConversionCastOp)
        inputs = ", ".join(str(t) for t in cast.inputs.types)
        outputs = ", ".join(str(t) for t in cast.outputs.types)
        users = [use.operation for r in cast.results for use in r.uses]
        where = users[0] if users else cast
        if state.was_reported(where):
            continue
        notes = [(cast, "the value comes from here")]
        state.diagnostics.error(
            where,
            f"'{where.name}' still uses a value of type {outputs} where the lowered value "
            f"has type {inputs}: no conversion pattern rewrote this use",
            notes,
        )
    return ops
