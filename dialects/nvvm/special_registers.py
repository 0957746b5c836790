"""Special-register reads: `%r = nvvm.read.ptx.sreg.tid.x : i32`.

One op per PTX special register, named as in MLIR's nvvm dialect; each lowers to the intrinsic of
the same name (`llvm.nvvm.read.ptx.sreg.tid.x`). They are pure: a register read has no effect.
"""

from __future__ import annotations

from xdsl.dialects.builtin import i32
from xdsl.ir import Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, result_def, traits_def
from xdsl.traits import Pure


class SpecialRegisterOp(IRDLOperation):
    """Reads one 32-bit special register."""

    res = result_def(i32)
    assembly_format = "attr-dict `:` type($res)"
    traits = traits_def(Pure())

    @classmethod
    def register(cls) -> str:
        """The PTX register (`tid.x`, `laneid`) that the op name and its intrinsic end with."""
        return cls.name.removeprefix("nvvm.read.ptx.sreg.")

    def __init__(self):
        Operation.__init__(self, result_types=(i32,))  # (as `create`: no IRDL builder)


@irdl_op_definition
class ThreadIdXOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.tid.x"


@irdl_op_definition
class ThreadIdYOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.tid.y"


@irdl_op_definition
class ThreadIdZOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.tid.z"


@irdl_op_definition
class BlockDimXOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.ntid.x"


@irdl_op_definition
class BlockDimYOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.ntid.y"


@irdl_op_definition
class BlockDimZOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.ntid.z"


@irdl_op_definition
class BlockIdXOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.ctaid.x"


@irdl_op_definition
class BlockIdYOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.ctaid.y"


@irdl_op_definition
class BlockIdZOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.ctaid.z"


@irdl_op_definition
class GridDimXOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.nctaid.x"


@irdl_op_definition
class GridDimYOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.nctaid.y"


@irdl_op_definition
class GridDimZOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.nctaid.z"


@irdl_op_definition
class LaneIdOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.laneid"


@irdl_op_definition
class WarpSizeOp(SpecialRegisterOp):
    name = "nvvm.read.ptx.sreg.warpsize"


SPECIAL_REGISTER_OPS: tuple[type[SpecialRegisterOp], ...] = (
    ThreadIdXOp,
    ThreadIdYOp,
    ThreadIdZOp,
    BlockDimXOp,
    BlockDimYOp,
    BlockDimZOp,
    BlockIdXOp,
    BlockIdYOp,
    BlockIdZOp,
    GridDimXOp,
    GridDimYOp,
    GridDimZOp,
    LaneIdOp,
    WarpSizeOp,
)
