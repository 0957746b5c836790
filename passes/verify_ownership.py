"""`verify-ownership`: host tensors are owned values, in the manner of Rust's borrow checker.

Host rules 1, 2 and 5 of docs/safety.md#host-rules (rule 3, "a launch gives back every tensor it
took", is each launch op's own verifier), and rule 6 (docs/safety.md#host-6), which makes
asynchronous launches safe to observe:

1. A tensor or partition is owned. `host.partition`, `host.unpartition`, the `outs` of a launch, and
   any op the pass does not know (`scf.yield`, `func.return`, loop inits, calls...) move it; a later
   use is `use of moved value` (rustc E0382). Each caller array is bound by `host.from_array` once.
2. A launch may not take one tensor as both an input and an exclusive output (E0502). For a tile
   launch this is already rule 1: partitioning the output moved the tensor.
5. A safe `host.launch` needs a prepared value made by `host.prepare` of the same kernel.
6. Launches are asynchronous: a tensor written by a launch on stream `%s` may be read on the host
   (`host.check`, `host.print`, returning it) only after `host.sync_on %s`, and used on another
   stream only after that sync; a tensor a launch on `%s` reads may not be written on another
   stream before the sync.

The analysis (`ferrox.passes.ownership`, described in docs/ownership-analysis.md) is a forward
dataflow over each `func.func`, with a may-moved, may-pending and must-synced lattice over every
region kind. Streams are run-time streams, not SSA values: a `host.stream` run again (in a loop, in
a helper called twice) makes a new stream, so a launch pending on the earlier one is not ordered
before a later launch. Calls of the module's functions are analysed at each call site. Every
violation is reported, each once; a fixpoint that does not end is an internal error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from ferrox.diagnostics import DiagnosticEngine
from ferrox.passes.ownership.checker import (
    OwnershipChecker,
    OwnershipInternalError,
    callees_first,
)


@dataclass(frozen=True)
class VerifyOwnershipPass(ModulePass):
    """Check every host function's tensor ownership; report all violations at once."""

    name = "verify-ownership"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        diagnostics = DiagnosticEngine()
        checker = OwnershipChecker(diagnostics, op)
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        for function in callees_first(functions, checker):
            checker.run(function)
        diagnostics.diagnostics.sort(key=lambda d: (d.loc.file, d.loc.line, d.loc.col))
        diagnostics.raise_if_errors()


__all__ = ["OwnershipChecker", "OwnershipInternalError", "VerifyOwnershipPass"]
