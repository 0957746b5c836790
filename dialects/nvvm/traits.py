"""The `Convergent` op trait: an op every thread of its group must reach together.

Barriers and warp collectives (`bar.sync`, `shfl.sync`, `vote.sync`, `redux.sync`, `mma.sync`,
`ldmatrix`) are convergent: a transformation may not move them into, out of, or across divergent
control flow (SIMT rule 7, docs/safety.md#simt-7). Passes ask `op.has_trait(Convergent)`; the
lowering keeps them as calls to intrinsics that LLVM itself declares `convergent`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.traits import OpTrait


@dataclass(frozen=True)
class Convergent(OpTrait):
    """All threads of the op's group (CTA or warp) must execute it in convergence."""
