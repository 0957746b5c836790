"""The trusted witness ops: the only producers of `!simt.thread_index<space>` values.

They carry no Pure trait on purpose: CSE must not merge two witnesses into one value.
Each computes this thread's index in its space and a bounds predicate; `simt.get_mut` runs its
region only where the witness is in bounds of the slice it indexes, so two threads never hold
witnesses to the same element. `simt.witness_value` reads the raw index without consuming it.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def, traits_def
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.types import IndexSpaceAttr, ThreadIndexType


@irdl_op_definition
class ThreadIndex1DOp(IRDLOperation):
    """`%w = simt.thread_index_1d`: index = blockIdx.x * blockDim.x + threadIdx.x.

    In bounds of a slice when index < len. Needs a 1-D launch (contract domain 1).
    """

    name = "simt.thread_index_1d"

    result = result_def(ThreadIndexType(IndexSpaceAttr.one_d()))

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[ThreadIndexType(IndexSpaceAttr.one_d())])


@irdl_op_definition
class Index2DOp(IRDLOperation):
    """`%w = simt.index_2d : !simt.thread_index<2d<S>>`: index = row * S + col, with
    row = blockIdx.y * blockDim.y + threadIdx.y and col = blockIdx.x * blockDim.x + threadIdx.x.

    In bounds when col < S and index < len; a thread with col >= S holds an out-of-bounds witness,
    so no two threads alias. Needs a 2-D launch (contract domain 2).
    """

    name = "simt.index_2d"

    result = result_def(ThreadIndexType)

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, stride: int):
        super().__init__(result_types=[ThreadIndexType(IndexSpaceAttr.two_d(stride))])

    @property
    def stride(self) -> int:
        assert isinstance(self.result.type, ThreadIndexType)
        return self.result.type.space.stride.data

    def verify_(self) -> None:
        assert isinstance(self.result.type, ThreadIndexType)
        space = self.result.type.space
        if space.kind.data != "2d":
            raise VerifyException(
                f"'simt.index_2d' produces a 2d<stride> witness, found {space}; "
                "use simt.index_2d_runtime for 2d_runtime"
            )


@irdl_op_definition
class Index2DRuntimeOp(IRDLOperation):
    """`%w = simt.index_2d_runtime %width`: as `simt.index_2d` with the row stride `%width`, which
    must be a kernel parameter (so every thread uses the same width; verify-disjoint checks it)."""

    name = "simt.index_2d_runtime"

    width = operand_def(IndexType())
    result = result_def(ThreadIndexType(IndexSpaceAttr.two_d_runtime()))

    assembly_format = "$width attr-dict"

    def __init__(self, width: SSAValue):
        super().__init__(
            operands=[width], result_types=[ThreadIndexType(IndexSpaceAttr.two_d_runtime())]
        )


@irdl_op_definition
class WarpIndexOp(IRDLOperation):
    """`%w = simt.warp_index`: the global warp id, (blockIdx.x * blockDim.x + threadIdx.x) / 32.

    Only lane 0 of each warp (global thread id % 32 == 0) holds an in-bounds witness, so one thread
    per warp writes. A contracted kernel needs domain 1 and a block x that is a multiple of 32.
    """

    name = "simt.warp_index"

    result = result_def(ThreadIndexType(IndexSpaceAttr.warp()))

    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[ThreadIndexType(IndexSpaceAttr.warp())])


@irdl_op_definition
class WitnessValueOp(IRDLOperation):
    """`%i = simt.witness_value %w : !simt.thread_index<1d>`: the witness's raw index, as `index`.

    A read, not a move: it does not consume the witness, but reading after the witness moved into
    `simt.get_mut` is a use after move. For 2-D spaces the value is row * stride + col even where
    col >= stride, so it is meaningful only where the witness is in bounds.
    """

    name = "simt.witness_value"

    witness = operand_def(ThreadIndexType)
    result = result_def(IndexType())

    traits = traits_def(Pure())

    assembly_format = "$witness attr-dict `:` type($witness)"

    def __init__(self, witness: SSAValue):
        super().__init__(operands=[witness], result_types=[IndexType()])


TRUSTED_INDEX_OPS = (ThreadIndex1DOp, Index2DOp, Index2DRuntimeOp, WarpIndexOp)
