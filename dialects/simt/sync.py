"""Barriers. Convergent: every thread that takes part must reach them together, so
verify-disjoint rejects them under divergent control flow.

- `simt.sync_threads`: the whole block (`bar.sync 0`).
- `simt.named_barrier {id = I, threads = N}` (PTX `bar.sync I, N`; `{arrive}`: `bar.arrive I,
  N`, which counts this warp without waiting), with an optional `if %p`: barrier `I` (1 to 15;
  0 is `simt.sync_threads`') completes once `N` threads (a multiple of 32) have synced or
  arrived on it; a warp whose `p` is false takes no part (PTX's predicated instruction, no
  branch). Two warpgroups take turns this way (FlashAttention-3's ping-pong: one syncs on its
  barrier before its products, the other arrives there after issuing its own). A warp collective
  (all lanes of a warp alike, `p` too). It waits for other threads: an unbalanced count hangs
  the block, which no verifier sees, so it belongs in unsafe code (docs/safety.md#simt-7).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, UnitAttr, i1, i64
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
    prop_def,
)
from xdsl.utils.exceptions import VerifyException

NAMED_BARRIERS = 16
"""PTX's barriers a block: 0 (`simt.sync_threads`) to 15."""


@irdl_op_definition
class SyncThreadsOp(IRDLOperation):
    """`simt.sync_threads`: __syncthreads(); also orders shared-memory accesses across it."""

    name = "simt.sync_threads"

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class NamedBarrierOp(IRDLOperation):
    """`simt.named_barrier if %p {id = 1, threads = 256, arrive}`: sync (or arrive) on barrier
    `id` of `threads` threads, where `p` holds (module docstring)."""

    name = "simt.named_barrier"

    pred = opt_operand_def(i1)
    id = prop_def(IntegerAttr[IntegerType])
    threads = prop_def(IntegerAttr[IntegerType])
    arrive = opt_prop_def(UnitAttr)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "(`if` $pred^)? attr-dict"

    def __init__(
        self, barrier: int, threads: int, arrive: bool = False, pred: SSAValue | None = None
    ):
        properties: dict[str, Attribute] = {
            "id": IntegerAttr(barrier, i64),
            "threads": IntegerAttr(threads, i64),
        }
        if arrive:
            properties["arrive"] = UnitAttr()
        super().__init__(operands=[[pred] if pred is not None else []], properties=properties)

    def verify_(self) -> None:
        barrier, threads = self.id.value.data, self.threads.value.data
        if not 1 <= barrier < NAMED_BARRIERS:
            raise VerifyException(
                f"'simt.named_barrier' id must be 1 to {NAMED_BARRIERS - 1} (0 is "
                f"simt.sync_threads'), got {barrier}"
            )
        if not (32 <= threads <= 1024 and threads % 32 == 0):
            raise VerifyException(
                f"'simt.named_barrier' threads must be a multiple of 32 from 32 to 1024 (whole "
                f"warps), got {threads}"
            )
