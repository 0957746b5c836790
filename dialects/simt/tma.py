"""Hopper's tensor memory accelerator (PTX `cp.async.bulk.tensor`, sm_90) and the shared-memory
barriers its copies complete on (PTX `mbarrier`).

A barrier is one element of a 1-D shared array of `i64` (`simt.shared_alloc`), so it lives in
shared memory by its type. Its state is a phase (parity 0 first), a count of arrivals still
expected in the phase and a count of bytes still expected (the transaction count); the phase
completes when both reach zero, and the next begins with the arrival count it was initialised
with.

- `simt.mbarrier_init %bar[%i], %count`: the barrier at `bar[i]` expects `count` arrivals a phase
  (one thread does this, then a `simt.sync_threads` before any other use).
- `simt.mbarrier_arrive_expect_tx %bar[%i], %bytes`: this thread arrives and the phase expects
  `bytes` more bytes of copies.
- `simt.mbarrier_arrive %bar[%i]`: this thread arrives.
- `simt.mbarrier_wait %bar[%i], %parity`: wait until the phase of parity `parity % 2` has
  completed (PTX `mbarrier.try_wait.parity` in a loop).
- `simt.tma_load %x[%row, %col] shape(%rows, %cols), %tile[%off], %bar[%b] {box = array<i64: R,
  C>, swizzle = S}`: read the 2-D tensor `x` views as `rows` x `cols` (row-major: element `(r,
  c)` at `x[r cols + c]`) from `(row, col)` a box of `R` x `C` elements into `tile[off ..]`, and
  complete `R C` elements' bytes on the barrier at `bar[b]`. Elements outside the `rows` x
  `cols` tensor read as zero (the hardware clips the box to the tensor map's bounds). In the
  tile, element `(r, c)` of the box sits at `off + C r + c`, or with `swizzle = 128` (rows of
  exactly 128 bytes) at `off + C r + (c ^ (8 (r % 8)) E)` where `E = 16 / element bytes`: the
  16-byte chunk index XOR the row modulo 8, the 128-byte swizzled form `simt.wgmma` reads.

- `simt.tma_load %x[%row, %col] plane %p of %planes shape(%rows, %cols), ...`: the same from a 3-D
  tensor `x` of `planes` x `rows` x `cols` (element `(q, r, c)` at `x[(q rows + r) cols + c]`),
  the box `R` x `C` of plane `p` (a box one plane deep): elements of a plane, row or column
  outside the tensor read as zero, so a box at the end of one plane never reads the next (a
  tile of a batch of matrices, as a `tile.load` of `[1, R, C]` reads it).

`simt.mbarrier_arrive_expect_tx`, `simt.mbarrier_arrive` and `simt.tma_load` take an optional
`if %p` (an `i1`): a thread
whose `p` is false does nothing, without a branch (PTX predicated instructions). One thread of a
warpgroup issuing a stage's loads this way keeps the wgmma ops off a divergent path, which ptxas
would otherwise serialise (C7518).

`x`, `rows`, `cols` (and `planes`) must be parameters of the kernel (of type `index` but `x`):
the runtime builds the tensor map (`cuTensorMapEncodeTiled`) from the launch's `x`, `rows` and
`cols` (and `planes`)
and passes it by value as a grid-constant parameter that follows the kernel's own
(`tensor_map_keys` lists them; the artifact records them as `KernelArtifact.tensor_maps`). A
launch where `rows * cols` exceeds the length of `x` is refused, so a TMA load never reads
outside its array (docs/safety.md, "TMA loads").

Every op here touches a shared array, so all belong in unsafe code (docs/safety.md: the user
vouches that a tile is read only after the barrier wait of the phase that filled it, and is not
refilled while a reader or an in-flight wgmma may still use it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseArrayBase,
    Float16Type,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    i1,
    i64,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.constraints import shared_of, slice_of
from ferrox.dialects.simt.shared import check_rank
from ferrox.dialects.simt.types import SharedArrayType
from ferrox.dialects.typetest import type_test

BOX_LIMIT = 256
"""The largest box dimension a tensor map allows (elements)."""
SWIZZLES = (0, 128)
"""The shared layouts: dense rows (0) or the 128-byte swizzle wgmma reads (128)."""
TX_LIMIT = (1 << 20) - 1
"""The largest transaction count a barrier phase holds (PTX: 2^20 - 1 bytes)."""


def element_bytes(t: Attribute) -> int:
    """Bytes of a TMA element type (bf16, f16 or f32), 0 for any other."""
    if isinstance(t, BFloat16Type | Float16Type):
        return 2
    if isinstance(t, Float32Type):
        return 4
    return 0


def _check_barriers(op: IRDLOperation, array: SSAValue, index: SSAValue) -> None:
    t = array.type
    assert isinstance(t, SharedArrayType)
    if t.get_element_type() != i64:
        raise VerifyException(
            f"'{op.name}' needs a barrier in a shared array of i64, found {t.get_element_type()}"
        )
    check_rank(op, array, [index])


class _BarrierOp(IRDLOperation):
    """An op on the barrier at `barriers[index]` (each subclass defines both operands first:
    IRDL would put inherited operands after the subclass's own)."""

    @property
    def array(self) -> SSAValue:
        """The shared array touched (what verify-disjoint's unsafe rule reads)."""
        return self.operands[0]

    def verify_(self) -> None:
        _check_barriers(self, self.operands[0], self.operands[1])


@irdl_op_definition
class MbarrierInitOp(_BarrierOp):
    """`simt.mbarrier_init %bar[%i], %count : !simt.shared<i64, [N]>`: a barrier expecting
    `count` arrivals a phase, in phase 0."""

    name = "simt.mbarrier_init"
    barriers = operand_def(shared_of(AnyAttr()))
    index = operand_def(IndexType())
    count = operand_def(IndexType())
    assembly_format = "$barriers `[` $index `]` `,` $count attr-dict `:` type($barriers)"

    def __init__(self, barriers: SSAValue, index: SSAValue, count: SSAValue):
        super().__init__(operands=[barriers, index, count])


@irdl_op_definition
class MbarrierArriveExpectTxOp(_BarrierOp):
    """`simt.mbarrier_arrive_expect_tx %bar[%i], %bytes : !simt.shared<i64, [N]>`: arrive, and
    the phase expects `bytes` more bytes of copies."""

    name = "simt.mbarrier_arrive_expect_tx"
    barriers = operand_def(shared_of(AnyAttr()))
    index = operand_def(IndexType())
    bytes = operand_def(IndexType())
    pred = opt_operand_def(i1)
    assembly_format = (
        "$barriers `[` $index `]` `,` $bytes (`if` $pred^)? attr-dict `:` type($barriers)"
    )

    def __init__(
        self, barriers: SSAValue, index: SSAValue, nbytes: SSAValue, pred: SSAValue | None = None
    ):
        super().__init__(operands=[barriers, index, nbytes, [pred] if pred is not None else []])


@irdl_op_definition
class MbarrierArriveOp(_BarrierOp):
    """`simt.mbarrier_arrive %bar[%i] : !simt.shared<i64, [N]>`: arrive (with `if %p`, only
    where `p` holds)."""

    name = "simt.mbarrier_arrive"
    barriers = operand_def(shared_of(AnyAttr()))
    index = operand_def(IndexType())
    pred = opt_operand_def(i1)
    assembly_format = "$barriers `[` $index `]` (`if` $pred^)? attr-dict `:` type($barriers)"

    def __init__(self, barriers: SSAValue, index: SSAValue, pred: SSAValue | None = None):
        super().__init__(operands=[barriers, index, [pred] if pred is not None else []])


@irdl_op_definition
class MbarrierWaitOp(_BarrierOp):
    """`simt.mbarrier_wait %bar[%i], %parity : !simt.shared<i64, [N]>`: wait until the phase
    of parity `parity % 2` has completed."""

    name = "simt.mbarrier_wait"
    barriers = operand_def(shared_of(AnyAttr()))
    index = operand_def(IndexType())
    parity = operand_def(IndexType())
    assembly_format = "$barriers `[` $index `]` `,` $parity attr-dict `:` type($barriers)"

    def __init__(self, barriers: SSAValue, index: SSAValue, parity: SSAValue):
        super().__init__(operands=[barriers, index, parity])


@dataclass(frozen=True)
class TensorMapKey:
    """One tensor map a kernel needs: which parameters it is built from, and its box."""

    param: int  # the slice parameter the map describes
    rows_param: int  # the index parameter holding the rows
    cols_param: int  # the index parameter holding the columns
    element: Attribute
    box: tuple[int, int]  # (rows, cols) of the box
    swizzle: int
    planes_param: int = -1  # the index parameter holding the planes of a 3-D map (-1: 2-D)


def _kernel(op: Operation) -> Operation | None:
    owner = op.parent_op()
    while owner is not None and owner.name not in ("simt.kernel", "simt.func"):
        owner = owner.parent_op()
    return owner


def _param_index(kernel: Operation, value: SSAValue) -> int | None:
    entry = kernel.regions[0].blocks[0] if kernel.regions and kernel.regions[0].blocks else None
    if isinstance(value, BlockArgument) and value.block is entry:
        return value.index
    return None


@irdl_op_definition
class TmaLoadOp(IRDLOperation):
    """`simt.tma_load %x[%r, %c] shape(%rows, %cols), %tile[%off], %bar[%b] {box = array<i64: 64,
    64>, swizzle = 128} : !simt.slice<bf16>, !simt.shared<bf16, [4096]>, !simt.shared<i64, [1]>`:
    one box of a 2-D tensor into shared memory, completing on a barrier (module docstring)."""

    name = "simt.tma_load"

    T: ClassVar = VarConstraint("T", AnyAttr())

    source = operand_def(slice_of(T))
    plane = opt_operand_def(IndexType())
    row = operand_def(IndexType())
    col = operand_def(IndexType())
    planes = opt_operand_def(IndexType())
    rows = operand_def(IndexType())
    cols = operand_def(IndexType())
    tile = operand_def(shared_of(T))
    offset = operand_def(IndexType())
    barriers = operand_def(shared_of(AnyAttr()))
    bar_index = operand_def(IndexType())
    pred = opt_operand_def(i1)
    box = prop_def(DenseArrayBase)
    swizzle = prop_def(IntegerAttr[IntegerType])

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (
        "$source `[` $row `,` $col `]` (`plane` $plane^ `of` $planes)? `shape` `(` $rows `,` "
        "$cols `)` `,` $tile `[` $offset `]` `,` $barriers `[` $bar_index `]` (`if` $pred^)? "
        "attr-dict `:` type($source) `,` type($tile) `,` type($barriers)"
    )

    def __init__(
        self,
        source: SSAValue,
        row: SSAValue,
        col: SSAValue,
        rows: SSAValue,
        cols: SSAValue,
        tile: SSAValue,
        offset: SSAValue,
        barriers: SSAValue,
        bar_index: SSAValue,
        box: tuple[int, int],
        swizzle: int = 0,
        pred: SSAValue | None = None,
        plane: tuple[SSAValue, SSAValue] | None = None,
    ):
        """`plane`: (the plane, the planes) of a 3-D tensor (module docstring)."""
        super().__init__(
            operands=[
                source,
                [plane[0]] if plane is not None else [],
                row,
                col,
                [plane[1]] if plane is not None else [],
                *(rows, cols, tile, offset, barriers, bar_index),
                [pred] if pred is not None else [],
            ],
            properties={
                "box": DenseArrayBase.from_list(i64, list(box)),
                "swizzle": IntegerAttr(swizzle, i64),
            },
        )

    @property
    def array(self) -> SSAValue:
        """The shared tile written (what verify-disjoint's unsafe rule reads)."""
        return self.tile

    @property
    def box_shape(self) -> tuple[int, int]:
        values = self.box.get_values()
        return (int(values[0]), int(values[1])) if len(values) == 2 else (0, 0)

    @property
    def box_bytes(self) -> int:
        """The bytes one load writes and completes on its barrier (the whole box, zero-filled
        where it leaves the tensor)."""
        r, c = self.box_shape
        t = self.tile.type
        assert isinstance(t, SharedArrayType)
        return r * c * element_bytes(t.get_element_type())

    def key(self) -> TensorMapKey | None:
        """The tensor map this load reads through (None outside a kernel)."""
        kernel = _kernel(self)
        if kernel is None or kernel.name != "simt.kernel":
            return None
        params = [_param_index(kernel, v) for v in (self.source, self.rows, self.cols)]
        planes = _param_index(kernel, self.planes) if self.planes is not None else -1
        if any(p is None for p in params) or planes is None:
            return None
        t = self.tile.type
        assert isinstance(t, SharedArrayType)
        p, r, c = params
        assert p is not None and r is not None and c is not None
        swizzle = self.swizzle.value.data
        return TensorMapKey(p, r, c, t.get_element_type(), self.box_shape, swizzle, planes)

    def verify_(self) -> None:
        values = self.box.get_values()
        if len(values) != 2 or not all(1 <= int(v) <= BOX_LIMIT for v in values):
            raise VerifyException(
                f"'simt.tma_load' needs a box of 2 dimensions of 1 to {BOX_LIMIT} elements, "
                f"got {list(values)}"
            )
        t = self.tile.type
        assert isinstance(t, SharedArrayType)
        element = t.get_element_type()
        size = element_bytes(element)
        if size == 0:
            raise VerifyException(f"'simt.tma_load' copies bf16, f16 or f32, found {element}")
        rows, cols = self.box_shape
        swizzle = self.swizzle.value.data
        if swizzle not in SWIZZLES:
            raise VerifyException(
                f"'simt.tma_load' swizzle must be 0 (dense rows) or 128, got {swizzle}"
            )
        row_bytes = cols * size
        if swizzle == 128 and row_bytes != 128:
            raise VerifyException(
                f"'simt.tma_load' with swizzle = 128 needs box rows of exactly 128 bytes "
                f"({128 // size} elements of {element}), got {cols}"
            )
        if row_bytes % 16:
            raise VerifyException(
                f"'simt.tma_load' needs box rows of a multiple of 16 bytes, got {cols} elements "
                f"of {element} ({row_bytes} bytes)"
            )
        shape = t.get_shape()
        if len(shape) != 1 or shape[0] < rows * cols:
            raise VerifyException(
                f"'simt.tma_load' writes a box of {rows * cols} elements into a 1-D shared "
                f"array, got {list(shape)}"
            )
        if self.box_bytes > TX_LIMIT:
            raise VerifyException(
                f"'simt.tma_load' box of {self.box_bytes} bytes exceeds a barrier phase's "
                f"{TX_LIMIT} bytes"
            )
        if (self.plane is None) != (self.planes is None):
            raise VerifyException(
                "'simt.tma_load' of a 3-D tensor needs both its plane coordinate and its planes "
                "(`%x[%r, %c] plane %p of %planes shape(%rows, %cols)`)"
            )
        check_rank(self, self.tile, [self.offset])
        _check_barriers(self, self.barriers, self.bar_index)
        kernel = _kernel(self)
        if kernel is None:
            return  # not in a kernel yet (being built)
        if kernel.name != "simt.kernel":
            raise VerifyException(
                "'simt.tma_load' reads through a tensor map the runtime builds from the kernel's "
                "parameters: it may only be used in a kernel, not a device function"
            )
        checked = [("tensor", self.source), ("rows", self.rows), ("cols", self.cols)]
        if self.planes is not None:
            checked.append(("planes", self.planes))
        for what, value in checked:
            if _param_index(kernel, value) is None:
                raise VerifyException(
                    f"'simt.tma_load' {what} must be a parameter of the kernel (the runtime "
                    "builds the tensor map from the launch's arguments)"
                )


_is_load = type_test(TmaLoadOp)


def tensor_map_keys(
    kernel: Operation, ops: Iterable[Operation] | None = None
) -> list[TensorMapKey]:
    """The distinct tensor maps a kernel's TMA loads read through, in order of first use: the
    grid-constant parameters that follow the kernel's own, in this order. `ops`: the kernel's
    ops in `walk()` order, where the caller has them."""
    keys: list[TensorMapKey] = []
    for op in kernel.walk() if ops is None else ops:
        if _is_load(op):
            assert isinstance(op, TmaLoadOp)
            key = op.key()
            if key is not None and key not in keys:
                keys.append(key)
    return keys


MBARRIER_OPS = (MbarrierInitOp, MbarrierArriveExpectTxOp, MbarrierArriveOp, MbarrierWaitOp)
TMA_OPS = (*MBARRIER_OPS, TmaLoadOp)
TMA_ACCESS_OPS = TMA_OPS
"""Every op here touches a shared array (unsafe: the verifier keeps them in unsafe code)."""
