"""CTA and warp barriers: `nvvm.barrier0`, `nvvm.barrier`, `nvvm.bar.warp.sync`.

Syntax as in MLIR: `nvvm.barrier id = %id number_of_threads = %n`. All are `Convergent`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32
from xdsl.ir import SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    traits_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.nvvm.traits import Convergent


@irdl_op_definition
class Barrier0Op(IRDLOperation):
    """`bar.sync 0`: every thread of the CTA waits here (MLIR's deprecated spelling)."""

    name = "nvvm.barrier0"
    assembly_format = "attr-dict"
    traits = traits_def(Convergent())

    def __init__(self):
        super().__init__()


@irdl_op_definition
class BarrierOp(IRDLOperation):
    """`bar.sync id{, n}`: wait at barrier `id` (default 0) for `n` threads (default all)."""

    name = "nvvm.barrier"
    barrierId = opt_operand_def(i32)
    numberOfThreads = opt_operand_def(i32)
    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (
        "(`id` `=` $barrierId^)? (`number_of_threads` `=` $numberOfThreads^)? attr-dict"
    )
    traits = traits_def(Convergent())

    def __init__(
        self, barrier_id: SSAValue | None = None, number_of_threads: SSAValue | None = None
    ):
        super().__init__(
            operands=[
                [barrier_id] if barrier_id is not None else [],
                [number_of_threads] if number_of_threads is not None else [],
            ]
        )

    def verify_(self) -> None:
        if self.numberOfThreads is not None and self.barrierId is None:
            raise VerifyException(
                "barrier id is missing: `number_of_threads` needs an explicit `id` (0 to 15)"
            )


@irdl_op_definition
class SyncWarpOp(IRDLOperation):
    """`bar.warp.sync mask`: the lanes in `mask` wait for each other."""

    name = "nvvm.bar.warp.sync"
    mask = operand_def(i32)
    assembly_format = "$mask attr-dict `:` type($mask)"
    traits = traits_def(Convergent())

    def __init__(self, mask: SSAValue):
        super().__init__(operands=[mask])
