"""The SIMT dialect: kernels that say what one thread does, safe through disjoint slices.

One module per family: `types` and `contract` (attributes), then `kernel`, `index` (witnesses),
`ids`, `memory` (global slices, `get_mut`), `shared`, `sync`, `warp`, `atomic`, `unsafe`.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from ferrox.dialects.simt.atomic import (
    ATOMIC_OPS,
    AtomicAddOp,
    AtomicAndOp,
    AtomicCasOp,
    AtomicExchOp,
    AtomicMaxOp,
    AtomicMinOp,
    AtomicOrOp,
    AtomicRMWOp,
    AtomicSubOp,
    AtomicXorOp,
    Ordering,
    OrderingAttr,
    Scope,
    ScopeAttr,
)
from ferrox.dialects.simt.contract import LaunchContractAttr, SizeExprAttr, SizeRelationAttr
from ferrox.dialects.simt.ids import (
    BlockDimOp,
    BlockIdOp,
    Dimension,
    DimensionAttr,
    GridDimOp,
    LaneIdOp,
    ThreadIdOp,
)
from ferrox.dialects.simt.index import (
    TRUSTED_INDEX_OPS as _INDEX_OPS,
)
from ferrox.dialects.simt.index import (
    Index2DOp,
    Index2DRuntimeOp,
    ThreadIndex1DOp,
    WarpIndexOp,
    WitnessValueOp,
)
from ferrox.dialects.simt.kernel import CallOp, FuncOp, KernelOp, ReturnOp
from ferrox.dialects.simt.memory import GetMutOp, LenOp, LoadOp, YieldOp
from ferrox.dialects.simt.pipeline import (
    PIPELINE_ACCESS_OPS,
    AsyncCommitOp,
    AsyncCopyOp,
    AsyncWaitOp,
    LdMatrixOp,
    SharedLoadVectorOp,
    UncheckedAsyncCopyOp,
)
from ferrox.dialects.simt.shared import (
    SharedAllocOp,
    SharedLoadOp,
    SharedStoreOp,
    dynamic_layout,
    static_shared_bound,
)
from ferrox.dialects.simt.specialize import (
    SPECIALIZE_ATTRS,
    SPECIALIZE_OPS,
    SetMaxNRegOp,
    SpecializeOp,
)
from ferrox.dialects.simt.sync import NamedBarrierOp, SyncThreadsOp
from ferrox.dialects.simt.tile_support import (
    TILE_SUPPORT_OPS,
    UNCHECKED_CHUNK_OPS,
    LoadChunkOp,
    MmaSyncOp,
    SliceAlignedOp,
    StoreChunkOp,
    TileIndexOp,
    TileScheduleOp,
    UncheckedLoadChunkOp,
    UncheckedStoreChunkOp,
)
from ferrox.dialects.simt.tma import TMA_ACCESS_OPS, TMA_OPS
from ferrox.dialects.simt.types import (
    AtomicSliceType,
    DisjointSliceType,
    IndexSpaceAttr,
    PtrType,
    SharedArrayType,
    SliceType,
    ThreadIndexType,
)
from ferrox.dialects.simt.unsafe import PtrLoadOp, PtrStoreOp, UnsafeOp
from ferrox.dialects.simt.warp import (
    CONVERGENT_WARP_OPS as _WARP_OPS,
)
from ferrox.dialects.simt.warp import (
    BallotOp,
    ShuffleMode,
    ShuffleModeAttr,
    ShuffleOp,
    VoteAllOp,
    VoteAnyOp,
)
from ferrox.dialects.simt.wgmma import (
    WARPGROUP_COLLECTIVE_OPS,
    WGMMA_ACCESS_OPS,
    WGMMA_OPS,
    WgmmaCommitOp,
    WgmmaFenceOp,
    WgmmaOp,
    WgmmaRegAOp,
    WgmmaStoreOp,
    WgmmaWaitOp,
)

SHARED_ACCESS_OPS = (
    SharedLoadOp, SharedStoreOp, *PIPELINE_ACCESS_OPS, *WGMMA_ACCESS_OPS, *TMA_ACCESS_OPS
)  # fmt: skip
"""Every op that touches a shared array: unsafe (the verifier keeps them in unsafe code)."""

TRUSTED_INDEX_OPS = (*_INDEX_OPS, TileIndexOp)
"""Every op that may produce a witness: the four of `index` and the tile track's
`simt.tile_index`."""

CONVERGENT_WARP_OPS = (*_WARP_OPS, MmaSyncOp, LdMatrixOp, NamedBarrierOp)
"""Every warp collective: those of `warp`, the tile track's tensor-core `simt.mma_sync` and
`simt.ldmatrix`, and `simt.named_barrier` (a warp takes part as a whole)."""

SIMT = Dialect(
    "simt",
    [
        KernelOp,
        FuncOp,
        CallOp,
        ReturnOp,
        ThreadIndex1DOp,
        Index2DOp,
        Index2DRuntimeOp,
        WarpIndexOp,
        WitnessValueOp,
        ThreadIdOp,
        BlockIdOp,
        BlockDimOp,
        GridDimOp,
        LaneIdOp,
        LoadOp,
        LenOp,
        GetMutOp,
        YieldOp,
        SharedAllocOp,
        SharedLoadOp,
        SharedStoreOp,
        SharedLoadVectorOp,
        AsyncCopyOp,
        UncheckedAsyncCopyOp,
        AsyncCommitOp,
        AsyncWaitOp,
        LdMatrixOp,
        SyncThreadsOp,
        NamedBarrierOp,
        ShuffleOp,
        VoteAllOp,
        VoteAnyOp,
        BallotOp,
        *ATOMIC_OPS,
        UnsafeOp,
        PtrLoadOp,
        PtrStoreOp,
        *TILE_SUPPORT_OPS,
        *WGMMA_OPS,
        *TMA_OPS,
        *SPECIALIZE_OPS,
    ],
    [
        IndexSpaceAttr,
        SliceType,
        DisjointSliceType,
        AtomicSliceType,
        ThreadIndexType,
        PtrType,
        SharedArrayType,
        SizeExprAttr,
        SizeRelationAttr,
        LaunchContractAttr,
        DimensionAttr,
        ShuffleModeAttr,
        ScopeAttr,
        OrderingAttr,
        *SPECIALIZE_ATTRS,
    ],
)

__all__ = [
    "SIMT",
    "SetMaxNRegOp",
    "SpecializeOp",
    "ATOMIC_OPS",
    "CONVERGENT_WARP_OPS",
    "SHARED_ACCESS_OPS",
    "WARPGROUP_COLLECTIVE_OPS",
    "WgmmaCommitOp",
    "WgmmaFenceOp",
    "WgmmaOp",
    "WgmmaRegAOp",
    "WgmmaStoreOp",
    "WgmmaWaitOp",
    "dynamic_layout",
    "static_shared_bound",
    "AsyncCommitOp",
    "AsyncCopyOp",
    "AsyncWaitOp",
    "LdMatrixOp",
    "SharedLoadVectorOp",
    "UncheckedAsyncCopyOp",
    "TRUSTED_INDEX_OPS",
    "AtomicAddOp",
    "AtomicAndOp",
    "AtomicCasOp",
    "AtomicExchOp",
    "AtomicMaxOp",
    "AtomicMinOp",
    "AtomicOrOp",
    "AtomicRMWOp",
    "AtomicSliceType",
    "AtomicSubOp",
    "AtomicXorOp",
    "BallotOp",
    "BlockDimOp",
    "BlockIdOp",
    "CallOp",
    "Dimension",
    "DimensionAttr",
    "DisjointSliceType",
    "FuncOp",
    "GetMutOp",
    "GridDimOp",
    "Index2DOp",
    "Index2DRuntimeOp",
    "IndexSpaceAttr",
    "KernelOp",
    "LaneIdOp",
    "LaunchContractAttr",
    "LenOp",
    "LoadChunkOp",
    "LoadOp",
    "MmaSyncOp",
    "Ordering",
    "OrderingAttr",
    "PtrLoadOp",
    "PtrStoreOp",
    "PtrType",
    "ReturnOp",
    "Scope",
    "ScopeAttr",
    "SharedAllocOp",
    "SharedArrayType",
    "SharedLoadOp",
    "SharedStoreOp",
    "ShuffleMode",
    "ShuffleModeAttr",
    "ShuffleOp",
    "SizeExprAttr",
    "SizeRelationAttr",
    "SliceType",
    "StoreChunkOp",
    "SyncThreadsOp",
    "NamedBarrierOp",
    "ThreadIdOp",
    "ThreadIndex1DOp",
    "ThreadIndexType",
    "TileIndexOp",
    "TileScheduleOp",
    "TILE_SUPPORT_OPS",
    "UNCHECKED_CHUNK_OPS",
    "SliceAlignedOp",
    "UncheckedLoadChunkOp",
    "UncheckedStoreChunkOp",
    "UnsafeOp",
    "VoteAllOp",
    "VoteAnyOp",
    "WarpIndexOp",
    "WitnessValueOp",
    "YieldOp",
]
