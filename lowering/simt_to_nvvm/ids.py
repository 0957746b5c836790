"""Thread, block and grid ids and dimensions to the nvvm special registers, as `index`.

Each is a 32-bit register zero-extended to 64 bits. `simt.block_dim` inside a kernel with a
launch contract is the contract's block, a constant (the driver refuses any other block, as the
PTX carries `.reqntid`).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern

from ferrox.dialects import nvvm
from ferrox.dialects.simt import BlockDimOp, BlockIdOp, GridDimOp, LaneIdOp, ThreadIdOp
from ferrox.lowering.simt_to_nvvm.support import SimtEmitter, launch_block

REGISTERS: dict[type[Operation], dict[str, type[Operation]]] = {
    ThreadIdOp: {"x": nvvm.ThreadIdXOp, "y": nvvm.ThreadIdYOp, "z": nvvm.ThreadIdZOp},
    BlockIdOp: {"x": nvvm.BlockIdXOp, "y": nvvm.BlockIdYOp, "z": nvvm.BlockIdZOp},
    BlockDimOp: {"x": nvvm.BlockDimXOp, "y": nvvm.BlockDimYOp, "z": nvvm.BlockDimZOp},
    GridDimOp: {"x": nvvm.GridDimXOp, "y": nvvm.GridDimYOp, "z": nvvm.GridDimZOp},
}


class DimToRegister(RewritePattern):
    OP_TYPES = tuple(REGISTERS)  # what it can match (`conversion.op_types`)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        registers = REGISTERS.get(type(op))
        if registers is None:
            return
        dim = op.dimension.data.value  # type: ignore[attr-defined]
        e = SimtEmitter.before(rewriter, op)
        block = launch_block(op) if isinstance(op, BlockDimOp) else None
        if block is not None:
            value = e.const(block["xyz".index(dim)], IndexType())
        else:
            value = e.to_index(e.register(registers[dim]))
        rewriter.replace(op, [], [value])


class LaneIdToRegister(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LaneIdOp, rewriter: PatternRewriter, /) -> None:
        e = SimtEmitter.before(rewriter, op)
        rewriter.replace(op, [], [e.to_index(e(nvvm.LaneIdOp()))])


IDS_PATTERNS: tuple[RewritePattern, ...] = (DimToRegister(), LaneIdToRegister())
