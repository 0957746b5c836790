"""The tile dialect: kernels that say what one tile block does (after cutile-rs).

A kernel runs once per tile of its first output partition, as one logical thread over whole
tiles; `docs/dialects/tile.md` gives each op's exact semantics.
"""

from xdsl.ir import Attribute, Dialect, Operation

from ferrox.dialects.tile.attributes import CmpPredicate, CmpPredicateAttr, Padding, PaddingAttr
from ferrox.dialects.tile.creation import ConstantOp, ExtractOp, FullOp, IotaOp
from ferrox.dialects.tile.elementwise import (
    AddOp,
    AsTypeOp,
    CmpOp,
    DivOp,
    Exp2Op,
    ExpOp,
    FmaOp,
    LogOp,
    MaximumOp,
    MinimumOp,
    MulOp,
    NegOp,
    RsqrtOp,
    SelectOp,
    SqrtOp,
    SubOp,
    TanhOp,
)
from ferrox.dialects.tile.grid import BlockIdOp, NumBlocksOp
from ferrox.dialects.tile.kernel import KernelOp, ReturnOp
from ferrox.dialects.tile.matrix import MmaOp
from ferrox.dialects.tile.memory import DimOp, LoadLikeOp, LoadOp, StoreOp
from ferrox.dialects.tile.reduction import ReduceMaxOp, ReduceMinOp, ReduceProdOp, ReduceSumOp
from ferrox.dialects.tile.shape import BroadcastOp, PermuteOp, ReshapeOp, TransposeOp
from ferrox.dialects.tile.types import PartitionType, TileTensorType, TileType

OPS: list[type[Operation]] = [
    KernelOp,
    ReturnOp,
    BlockIdOp,
    NumBlocksOp,
    DimOp,
    LoadOp,
    LoadLikeOp,
    StoreOp,
    AddOp,
    SubOp,
    MulOp,
    DivOp,
    MaximumOp,
    MinimumOp,
    FmaOp,
    NegOp,
    ExpOp,
    Exp2Op,
    LogOp,
    SqrtOp,
    RsqrtOp,
    TanhOp,
    CmpOp,
    SelectOp,
    AsTypeOp,
    ConstantOp,
    FullOp,
    IotaOp,
    ExtractOp,
    BroadcastOp,
    ReshapeOp,
    TransposeOp,
    PermuteOp,
    ReduceSumOp,
    ReduceProdOp,
    ReduceMaxOp,
    ReduceMinOp,
    MmaOp,
]

ATTRIBUTES: list[type[Attribute]] = [
    TileType,
    PartitionType,
    TileTensorType,
    PaddingAttr,
    CmpPredicateAttr,
]

Tile = Dialect("tile", OPS, ATTRIBUTES)

__all__ = [
    "Tile",
    "OPS",
    "ATTRIBUTES",
    "CmpPredicate",
    "Padding",
    *(op.__name__ for op in OPS),
    *(attr.__name__ for attr in ATTRIBUTES),
]
