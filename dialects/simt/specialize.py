"""Warp specialisation (sm_90): the block's warpgroups split into a producer and a consumer
partition that run different code, and the register budget moves between them.

- `simt.specialize producers(1) { P } consumers { C }`: the last `producers` warpgroups of the
  block run region `P`, the others region `C`; each region ends in `simt.yield` and runs once on
  its partition's threads. The op sits in a kernel's entry block and the next op is the kernel's
  `simt.return`: the partitions never meet again. Inside a region the partition takes the
  block's place: `simt.sync_threads` there is a barrier of the partition's threads only (PTX
  `bar.sync id, n`: id 1 for the consumers, 2 for the producers), and `simt.tile_index` there
  names chunk `k * P + t` with `P` the consumer partition's threads (the consumers are the first
  warpgroups, so `t` is the thread's linear index in both). Producers may make no witness.
- `simt.setmaxnreg inc 240` / `simt.setmaxnreg dec 24` (PTX
  `setmaxnreg.{inc,dec}.sync.aligned.u32`): the warpgroup's per-thread register limit rises or
  falls to the count (24 to 256, a multiple of 8). It must be the first op of a
  `simt.specialize` region, so each warpgroup runs it once and uniformly.

Why a region op and not a branch on the warpgroup index: the split is what verify-disjoint's
stage rule ([SIMT 9](docs/safety.md#simt-9), `passes/disjoint/specialize.py`) reasons about, the
uniformity analysis can treat each region as a block of its own (a branch on the thread id would
be divergent, and the barriers and wgmma ops inside would be refused), and the lowerings find the
partition of a barrier or a witness by its ancestor.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects.builtin import I64, IntegerAttr, i64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Operation, Region, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_attr_definition,
    irdl_op_definition,
    prop_def,
    region_def,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from ferrox.dialects.simt.wgmma import WARPGROUP

REGISTER_RANGE = (24, 256)
PRODUCER_BARRIER = 2
CONSUMER_BARRIER = 1
"""The named barriers a partition's `simt.sync_threads` becomes (0 is the whole block's)."""


@irdl_op_definition
class SpecializeOp(IRDLOperation):
    """`simt.specialize producers(1) { ... } consumers { ... }` (module docstring)."""

    name = "simt.specialize"

    count = prop_def(IntegerAttr[I64], prop_name="producers")
    producer = region_def("single_block")
    consumer = region_def("single_block")

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "`producers` `(` $producers `)` $producer `consumers` $consumer attr-dict"

    def __init__(self, producers: int, producer: Region, consumer: Region):
        super().__init__(
            properties={"producers": IntegerAttr(producers, i64)}, regions=[producer, consumer]
        )

    @property
    def producers(self) -> int:
        return self.count.value.data

    def block_threads(self) -> int | None:
        """The kernel's 1-D block (None where no contract names one)."""
        kernel = self.parent_op()
        contract = getattr(kernel, "contract", None)
        if contract is None:
            return None
        x, y, z = contract.block_xyz
        return x if y == 1 and z == 1 else None

    def consumer_threads(self) -> int:
        block = self.block_threads()
        assert block is not None
        return block - WARPGROUP * self.producers

    def verify_(self) -> None:
        from ferrox.dialects.simt.kernel import KernelOp, ReturnOp
        from ferrox.dialects.simt.memory import YieldOp

        for region, what in ((self.producer, "producer"), (self.consumer, "consumer")):
            if not isinstance(region.block.last_op, YieldOp) or region.block.last_op.values:
                raise VerifyException(
                    f"'simt.specialize' {what} region must end in 'simt.yield' with no values"
                )
        kernel = self.parent_op()
        if kernel is None:
            return  # being built
        if not isinstance(kernel, KernelOp) or self.parent_block() is not kernel.body.blocks[0]:
            raise VerifyException(
                "'simt.specialize' must sit in a kernel's entry block, so that every thread of "
                "the block reaches it once"
            )
        if not isinstance(self.next_op, ReturnOp):
            raise VerifyException(
                "'simt.specialize' must be followed by the kernel's 'simt.return': the "
                "partitions never meet again"
            )
        block = self.block_threads()
        n = self.producers
        if block is None or block % WARPGROUP or n < 1 or block // WARPGROUP <= n:
            raise VerifyException(
                f"'simt.specialize' splits whole warpgroups: the kernel's contract must name a "
                f"1-D block of more than {n} warpgroups of {WARPGROUP} threads"
            )


class RegisterAction(StrEnum):
    INC = auto()
    DEC = auto()


@irdl_attr_definition
class RegisterActionAttr(EnumAttribute[RegisterAction], SpacedOpaqueSyntaxAttribute):
    """`inc` or `dec` (generic form `#simt<register_action inc>`)."""

    name = "simt.register_action"


@irdl_op_definition
class SetMaxNRegOp(IRDLOperation):
    """`simt.setmaxnreg inc 232`: the warpgroup's register limit (module docstring)."""

    name = "simt.setmaxnreg"

    action = prop_def(RegisterActionAttr)
    count = prop_def(IntegerAttr[I64])

    assembly_format = "$action $count attr-dict"

    def __init__(self, action: RegisterAction | str, count: int):
        super().__init__(
            properties={
                "action": RegisterActionAttr(RegisterAction(action)),
                "count": IntegerAttr(count, i64),
            }
        )

    @property
    def registers(self) -> int:
        return self.count.value.data

    def verify_(self) -> None:
        lo, hi = REGISTER_RANGE
        n = self.registers
        if not lo <= n <= hi or n % 8:
            raise VerifyException(
                f"'simt.setmaxnreg' count must be a multiple of 8 from {lo} to {hi}, got {n}"
            )
        parent = self.parent_op()
        if parent is None:
            return
        block = self.parent_block()
        if not isinstance(parent, SpecializeOp) or block is None or block.first_op is not self:
            raise VerifyException(
                "'simt.setmaxnreg' must be the first op of a 'simt.specialize' region: each "
                "warpgroup runs it once, all its threads together"
            )


def partition(op: Operation) -> tuple[SpecializeOp, bool] | None:
    """The `simt.specialize` whose region holds `op`, and whether it is the producer region."""
    child, parent = op, op.parent_op()
    while parent is not None:
        if isinstance(parent, SpecializeOp):
            return parent, child.parent_region() is parent.producer
        child, parent = parent, parent.parent_op()
    return None


def partition_threads(op: Operation) -> tuple[int, int, int] | None:
    """(first thread, thread count, named barrier) of the partition that runs `op`, or None
    outside every `simt.specialize` (the whole block)."""
    found = partition(op)
    if found is None:
        return None
    spec, producer = found
    block = spec.block_threads()
    if block is None:
        return None
    consumers = block - WARPGROUP * spec.producers
    if producer:
        return consumers, block - consumers, PRODUCER_BARRIER
    return 0, consumers, CONSUMER_BARRIER


SPECIALIZE_OPS = (SpecializeOp, SetMaxNRegOp)
SPECIALIZE_ATTRS = (RegisterActionAttr,)
