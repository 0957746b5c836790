"""`convert-to-llvm`: func, arith, cf, scf, math, memref and nvvm into xDSL's llvm dialect.

One walk applies every source dialect's patterns together, so values cross between rewritten and
not-yet-rewritten ops only through casts that fold away at the end (see `support`). scf goes
first to cf: `scf.if` and `scf.for` through the patterns of xDSL's `convert-scf-to-cf`,
`scf.while` and `scf.index_switch` through ferrox's (`scf.py`), applied without that pass's
dead-code elimination (a lowering keeps every op it is given). Every op that cannot be lowered
is reported, with its location and the reason, and the pass fails once with all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import RewritePattern
from xdsl.transforms.convert_scf_to_cf import ForLowering, IfLowering

from ferrox.dialects.typetest import dialect_test
from ferrox.lowering.conversion import ConversionState, Guarded, Located, rewrite_module
from ferrox.lowering.nvvm_to_llvm import NVVM_TO_LLVM_PATTERNS
from ferrox.lowering.simt_to_nvvm.constants import pools
from ferrox.lowering.to_llvm.arith import ARITH_PATTERNS
from ferrox.lowering.to_llvm.casts import reconcile
from ferrox.lowering.to_llvm.cf import CF_PATTERNS
from ferrox.lowering.to_llvm.divf import shared_reciprocals
from ferrox.lowering.to_llvm.func import FUNC_PATTERNS
from ferrox.lowering.to_llvm.math import MATH_PATTERNS
from ferrox.lowering.to_llvm.memref import MEMREF_PATTERNS
from ferrox.lowering.to_llvm.scf import SCF_PATTERNS

SOURCE_DIALECTS = ("func", "arith", "cf", "scf", "math", "memref", "nvvm")
"""Dialects this pass must leave no op of."""

STANDARD_PATTERNS: tuple[RewritePattern, ...] = (
    *FUNC_PATTERNS,
    *ARITH_PATTERNS,
    *CF_PATTERNS,
    *MATH_PATTERNS,
    *MEMREF_PATTERNS,
)


SCF_TO_CF_PATTERNS: tuple[RewritePattern, ...] = (*SCF_PATTERNS, IfLowering(), ForLowering())
"""The first walk's patterns, made once (they hold no state): `conversion.Dispatch` remembers
which patterns admit each op class per tuple of pattern objects, so new ones each compile had it
work that out again for every class."""


_is_source = dialect_test(*SOURCE_DIALECTS)


def _report_leftovers(ops: list[Operation], state: ConversionState) -> None:
    """Each outermost op of a source dialect still there (an `scf.while`, not also its body),
    of `ops`, the module's (`walk`)."""
    for op in ops:
        if not _is_source(op):
            continue
        parent = op.parent_op()
        while parent is not None and parent.dialect_name() not in SOURCE_DIALECTS:
            parent = parent.parent_op()
        if parent is None or parent.dialect_name() == "func":
            state.cannot_lower(op, "no conversion pattern for it")


SCF_LAST_FIRST = True
"""scf to cf each block's last op first (see `convert_to_llvm`); False: first to last, as the
test that holds the two the same runs it."""


def _walk(patterns: list[RewritePattern], module: ModuleOp, reverse: bool = False) -> None:
    rewrite_module(patterns, module, reverse=reverse)


def convert_to_llvm(module: ModuleOp) -> None:
    """Lower `module` in place; raises one `DiagnosticError` listing every op left unlowered.

    scf goes to cf each block's last op first: every `scf.if` or `scf.for` splits its block
    before itself, moving the ops after it to a new block (`Block.split_before` sets each
    one's parent, and finds the block's index in its region), so taken first to last a block
    of n ops and k of them was O(n k) (the bf16 tile GEMM: 338 splits, 40 ms). Last first, each
    split moves only the ops up to the split made before it, and the block split is its
    region's first. The blocks come out in the same order with the same ops: each op's blocks
    go between the ops before it and the ops after it, whichever is lowered first."""
    _walk([Located(p) for p in SCF_TO_CF_PATTERNS], module, reverse=SCF_LAST_FIRST)
    state = ConversionState("llvm")
    with shared_reciprocals(), pools():  # the expansions' constants once a function
        _walk([Guarded(p, state) for p in (*NVVM_TO_LLVM_PATTERNS, *STANDARD_PATTERNS)], module)
    _report_leftovers(reconcile(module, state), state)
    state.diagnostics.raise_if_errors()


@dataclass(frozen=True)
class ConvertToLLVMPass(ModulePass):
    name = "convert-to-llvm"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        convert_to_llvm(op)
