"""ferrox's nvvm dialect: typed GPU intrinsics, each lowering to one LLVM NVPTX intrinsic.

Op names and syntax follow MLIR's nvvm dialect where it has the op; atomics and the scoped
`fence.sc`/`fence.acq_rel` are ferrox's. One module per op family; `Convergent` (traits.py) marks
barriers and warp collectives. The lowering lives in `ferrox.lowering.nvvm_to_llvm`.
"""

from xdsl.ir import Dialect

from ferrox.dialects.nvvm.atomics import AtomicCASOp, AtomicRMWOp
from ferrox.dialects.nvvm.attributes import (
    AtomicBinOp,
    AtomicBinOpAttr,
    MemOrder,
    MemOrderAttr,
    MemScope,
    MemScopeAttr,
    MMALayout,
    MMALayoutAttr,
    MMAShapeAttr,
    MMAType,
    MMATypeAttr,
    ReduxKind,
    ReduxKindAttr,
    ShflKind,
    ShflKindAttr,
    VoteSyncKind,
    VoteSyncKindAttr,
)
from ferrox.dialects.nvvm.barriers import Barrier0Op, BarrierOp, SyncWarpOp
from ferrox.dialects.nvvm.fences import FenceAcqRelOp, FenceScOp, MembarOp
from ferrox.dialects.nvvm.matrix import LdMatrixOp, MmaSyncOp
from ferrox.dialects.nvvm.special_registers import (
    SPECIAL_REGISTER_OPS,
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
    SpecialRegisterOp,
    ThreadIdXOp,
    ThreadIdYOp,
    ThreadIdZOp,
    WarpSizeOp,
)
from ferrox.dialects.nvvm.traits import Convergent
from ferrox.dialects.nvvm.warp import ReduxOp, ShflOp, VoteSyncOp

NVVM = Dialect(
    "nvvm",
    [
        *SPECIAL_REGISTER_OPS,
        Barrier0Op,
        BarrierOp,
        SyncWarpOp,
        ShflOp,
        VoteSyncOp,
        ReduxOp,
        MembarOp,
        FenceScOp,
        FenceAcqRelOp,
        AtomicRMWOp,
        AtomicCASOp,
        MmaSyncOp,
        LdMatrixOp,
    ],
    [
        ShflKindAttr,
        VoteSyncKindAttr,
        ReduxKindAttr,
        MemScopeAttr,
        MemOrderAttr,
        AtomicBinOpAttr,
        MMALayoutAttr,
        MMATypeAttr,
        MMAShapeAttr,
    ],
)

__all__ = [
    "NVVM",
    "Convergent",
    "SpecialRegisterOp",
    "SPECIAL_REGISTER_OPS",
    "ThreadIdXOp",
    "ThreadIdYOp",
    "ThreadIdZOp",
    "BlockDimXOp",
    "BlockDimYOp",
    "BlockDimZOp",
    "BlockIdXOp",
    "BlockIdYOp",
    "BlockIdZOp",
    "GridDimXOp",
    "GridDimYOp",
    "GridDimZOp",
    "LaneIdOp",
    "WarpSizeOp",
    "Barrier0Op",
    "BarrierOp",
    "SyncWarpOp",
    "ShflOp",
    "VoteSyncOp",
    "ReduxOp",
    "MembarOp",
    "FenceScOp",
    "FenceAcqRelOp",
    "AtomicRMWOp",
    "AtomicCASOp",
    "MmaSyncOp",
    "LdMatrixOp",
    "ShflKind",
    "ShflKindAttr",
    "VoteSyncKind",
    "VoteSyncKindAttr",
    "ReduxKind",
    "ReduxKindAttr",
    "MemScope",
    "MemScopeAttr",
    "MemOrder",
    "MemOrderAttr",
    "AtomicBinOp",
    "AtomicBinOpAttr",
    "MMALayout",
    "MMALayoutAttr",
    "MMAType",
    "MMATypeAttr",
    "MMAShapeAttr",
]
