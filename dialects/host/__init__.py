"""The host dialect: programs that create tensors, prepare and launch kernels, and check results.

A host program is a `func.func @main` made of these ops (plus `arith` constants for scalars and
`scf` for loops). Ownership of tensors is checked by the `verify-ownership` pass; see
docs/dialects/host.md for every op's run-time semantics.
"""

from xdsl.ir import Dialect

from ferrox.dialects.host.checks import CheckOp, PrintOp, default_tolerance
from ferrox.dialects.host.creation import (
    ArangeOp,
    Distribution,
    DistributionAttr,
    FromArrayOp,
    FullOp,
    ParamOp,
    PoisonOp,
    RandomOp,
    ZerosOp,
)
from ferrox.dialects.host.launch import LaunchOp, PrepareOp, StreamOp, SyncOnOp, UnsafeLaunchOp
from ferrox.dialects.host.partition import PartitionOp, TileLaunchOp, UnpartitionOp, grid_of
from ferrox.dialects.host.types import PartitionType, PreparedType, StreamType, TensorType

Host = Dialect(
    "host",
    [
        ZerosOp,
        FullOp,
        ArangeOp,
        RandomOp,
        PoisonOp,
        FromArrayOp,
        ParamOp,
        StreamOp,
        PrepareOp,
        LaunchOp,
        UnsafeLaunchOp,
        SyncOnOp,
        PartitionOp,
        UnpartitionOp,
        TileLaunchOp,
        CheckOp,
        PrintOp,
    ],
    [TensorType, PartitionType, StreamType, PreparedType, DistributionAttr],
)

__all__ = [
    "ArangeOp",
    "CheckOp",
    "Distribution",
    "DistributionAttr",
    "FromArrayOp",
    "FullOp",
    "Host",
    "LaunchOp",
    "ParamOp",
    "PartitionOp",
    "PartitionType",
    "PoisonOp",
    "PrepareOp",
    "PreparedType",
    "PrintOp",
    "RandomOp",
    "StreamOp",
    "StreamType",
    "SyncOnOp",
    "TensorType",
    "TileLaunchOp",
    "UnpartitionOp",
    "UnsafeLaunchOp",
    "ZerosOp",
    "default_tolerance",
    "grid_of",
]
