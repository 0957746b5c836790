"""Memory fences: `nvvm.memory_barrier`, `nvvm.fence.sc`, `nvvm.fence.acq_rel`.

`nvvm.memory_barrier #nvvm.mem_scope<cta>` is MLIR's op (PTX `membar.cta`/`.gl`/`.sys`, and
`fence.sc.cluster` for cluster scope). `nvvm.fence.sc #nvvm.mem_scope<gpu>` and
`nvvm.fence.acq_rel ...` are ferrox's spellings of PTX `fence.sc.<scope>` and
`fence.acq_rel.<scope>`, which MLIR reaches through LLVM's `fence syncscope(...)` instruction.
Fences order this thread's own accesses; they are not convergent.
"""

from __future__ import annotations

from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def

from ferrox.dialects.nvvm.attributes import MemScope, MemScopeAttr


class _ScopedFence(IRDLOperation):
    scope = prop_def(MemScopeAttr)
    assembly_format = "qualified($scope) attr-dict"

    def __init__(self, scope: MemScope):
        super().__init__(properties={"scope": MemScopeAttr(scope)})


@irdl_op_definition
class MembarOp(_ScopedFence):
    """`membar.<level>`: this thread's prior accesses are performed at `scope` before later ones."""

    name = "nvvm.memory_barrier"


@irdl_op_definition
class FenceScOp(_ScopedFence):
    """`fence.sc.<scope>`: a sequentially consistent fence."""

    name = "nvvm.fence.sc"


@irdl_op_definition
class FenceAcqRelOp(_ScopedFence):
    """`fence.acq_rel.<scope>`: a lighter fence with acquire-release semantics."""

    name = "nvvm.fence.acq_rel"
