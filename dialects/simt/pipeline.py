"""The tile track's GEMM pipeline: ops that move data without registers, a vector load and a
warp collective, all on shared arrays and so all inside `unsafe`:
- `%v0, .. = simt.shared_load_vector %t[%i] {width = 4}`: elements `i .. i + width` of a 1-D
  array in one access (`i` a multiple of `width`, at most 16 bytes: `ld.shared.v4.f32`).
- `simt.async_copy %src[%i], %n, %dst[%j] {width = w}`: copy `src[i .. i + min(n, w))` into
  `dst[j ..]` and zeros for the rest of the `w` elements (PTX `cp.async`, 16 bytes); the global
  side is checked as `simt.load_chunk`'s (an element below `n` out of range traps), the shared
  side is not. The copy lands by the next `simt.async_wait` that retires its group.
- `simt.unchecked_async_copy %src[%i], %t[%j] {width = w}`: `simt.async_copy` of a whole chunk
  (`n = w`) with no check of the global side: the code that emits it vouches that
  `i + w <= len` and that the source address is 16-byte aligned (PTX `cp.async` of 16 bytes).
- `simt.async_commit` closes the thread's group of copies issued since the last one;
  `simt.async_wait {pending = N}` waits until at most `N` of the thread's groups are in flight.
  Other threads see the copies after their issuer's wait and a barrier, as with stores.
- `simt.ldmatrix %a[%i] {trans}`: four 8 x 8 matrices of 16-bit elements, lane `t` naming row
  `t % 8` of matrix `t / 8` (8 consecutive elements from `a[i]`, 16-byte aligned); result `r` of
  lane `l` packs elements `(l / 4, 2 (l % 4))` and `(l / 4, 2 (l % 4) + 1)` of matrix `r` (low
  half first), or with `trans` elements `(2 (l % 4), l / 4)` and `(2 (l % 4) + 1, l / 4)`:
  PTX `ldmatrix.sync.aligned.m8n8.x4{.trans}.b16`, the fragments `simt.mma_sync` takes.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    UnitAttr,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    ParsePropInAttrDict,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_result_def,
)
from xdsl.utils.exceptions import VerifyException

from ferrox.dialects.simt.constraints import shared_of, slice_of
from ferrox.dialects.simt.shared import check_rank
from ferrox.dialects.simt.types import SharedArrayType, SliceType

ASYNC_COPY_BYTES = 16


def _element_bytes(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    return max(1, t.bitwidth // 8)  # type: ignore[attr-defined]


@irdl_op_definition
class AsyncCopyOp(IRDLOperation):
    """`simt.async_copy %x[%i], %n, %t[%j] {width = 4} : !simt.slice<f32>, !simt.shared<f32, [N]>`
    (module docstring): 16 bytes from a slice into a 1-D shared array, zero-filled past `n`."""

    name = "simt.async_copy"

    T: ClassVar = VarConstraint("T", AnyAttr())

    source = operand_def(slice_of(T))
    index = operand_def(IndexType())
    count = operand_def(IndexType())
    array = operand_def(shared_of(T))
    offset = operand_def(IndexType())
    width = prop_def(IntegerAttr[IntegerType])

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$source `[` $index `]` `,` $count `,` $array `[` $offset `]` attr-dict `:` "
        "type($source) `,` type($array)"
    )

    def __init__(
        self,
        source: SSAValue,
        index: SSAValue,
        count: SSAValue,
        array: SSAValue,
        offset: SSAValue,
        width: int,
    ):
        super().__init__(
            operands=[source, index, count, array, offset],
            properties={"width": IntegerAttr(width, i64)},
        )

    def verify_(self) -> None:
        _check_copy(self, self.source, self.array, self.offset, self.width.value.data)


@irdl_op_definition
class UncheckedAsyncCopyOp(IRDLOperation):
    """`simt.unchecked_async_copy %x[%i], %t[%j] {width = 4} : !simt.slice<f32>,
    !simt.shared<f32, [N]>`: `simt.async_copy` of a whole chunk (`n = w`) with no range or
    alignment check of the source (module docstring). Unsafe, as every shared access; the tile
    lowering emits it only under a test that proves both (`lowering/tile_to_simt/gemm.py`,
    docs/safety.md#trusted-gemm-pipeline)."""

    name = "simt.unchecked_async_copy"

    T: ClassVar = VarConstraint("T", AnyAttr())

    source = operand_def(slice_of(T))
    index = operand_def(IndexType())
    array = operand_def(shared_of(T))
    offset = operand_def(IndexType())
    width = prop_def(IntegerAttr[IntegerType])

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = (
        "$source `[` $index `]` `,` $array `[` $offset `]` attr-dict `:` "
        "type($source) `,` type($array)"
    )

    def __init__(
        self, source: SSAValue, index: SSAValue, array: SSAValue, offset: SSAValue, width: int
    ):
        super().__init__(
            operands=[source, index, array, offset],
            properties={"width": IntegerAttr(width, i64)},
        )

    def verify_(self) -> None:
        _check_copy(self, self.source, self.array, self.offset, self.width.value.data)


def _check_copy(op: IRDLOperation, source: SSAValue, array: SSAValue, offset, width: int) -> None:
    t = source.type
    assert isinstance(t, SliceType)
    size = _element_bytes(t.element_type)
    if width * size != ASYNC_COPY_BYTES:
        raise VerifyException(
            f"'{op.name}' copies {ASYNC_COPY_BYTES} bytes: width must be "
            f"{ASYNC_COPY_BYTES // size} for {t.element_type}, got {width}"
        )
    check_rank(op, array, [offset])


@irdl_op_definition
class AsyncCommitOp(IRDLOperation):
    """`simt.async_commit`: the copies this thread issued since its last commit form a group."""

    name = "simt.async_commit"
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


@irdl_op_definition
class AsyncWaitOp(IRDLOperation):
    """`simt.async_wait {pending = 1}`: wait until at most `pending` groups are in flight."""

    name = "simt.async_wait"
    pending = prop_def(IntegerAttr[IntegerType])
    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "attr-dict"

    def __init__(self, pending: int):
        super().__init__(properties={"pending": IntegerAttr(pending, i64)})

    def verify_(self) -> None:
        if not 0 <= self.pending.value.data <= 7:
            raise VerifyException(
                f"'simt.async_wait' pending must be 0 to 7, got {self.pending.value.data}"
            )


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """`%r0, %r1, %r2, %r3 = simt.ldmatrix %t[%i] {trans} : !simt.shared<bf16, [N]>`: four 8 x 8
    matrices of 16-bit elements as `simt.mma_sync` fragments, a warp collective (module
    docstring)."""

    name = "simt.ldmatrix"

    array = operand_def(SharedArrayType)
    offset = operand_def(IndexType())
    trans = opt_prop_def(UnitAttr)
    r0 = result_def(i32)
    r1 = result_def(i32)
    r2 = result_def(i32)
    r3 = result_def(i32)

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$array `[` $offset `]` attr-dict `:` type($array)"

    def __init__(self, array: SSAValue, offset: SSAValue, trans: bool = False):
        super().__init__(
            operands=[array, offset],
            result_types=[i32] * 4,
            properties={"trans": UnitAttr()} if trans else {},
        )

    def verify_(self) -> None:
        t = self.array.type
        assert isinstance(t, SharedArrayType)
        element = t.get_element_type()
        if not (isinstance(element, BFloat16Type | Float16Type) or element == i16):
            raise VerifyException(f"'simt.ldmatrix' reads 16-bit elements, found {element}")
        check_rank(self, self.array, [self.offset])


@irdl_op_definition
class SharedLoadVectorOp(IRDLOperation):
    """`%a, %b, %c, %d = simt.shared_load_vector %t[%i] {width = 4} : !simt.shared<f32, [N]>`:
    `width` consecutive elements from `i`, a multiple of `width` (one vector access)."""

    name = "simt.shared_load_vector"

    array = operand_def(SharedArrayType)
    offset = operand_def(IndexType())
    width = prop_def(IntegerAttr[IntegerType])
    res = var_result_def()

    irdl_options = (ParsePropInAttrDict(),)
    assembly_format = "$array `[` $offset `]` attr-dict `:` type($array) `->` type($res)"

    def __init__(self, array: SSAValue, offset: SSAValue, width: int):
        t = array.type
        assert isinstance(t, SharedArrayType)
        super().__init__(
            operands=[array, offset],
            result_types=[[t.get_element_type()] * width],
            properties={"width": IntegerAttr(width, i64)},
        )

    def verify_(self) -> None:
        t = self.array.type
        assert isinstance(t, SharedArrayType)
        w = self.width.value.data
        size = _element_bytes(t.get_element_type())
        if w not in (2, 4, 8, 16) or w * size > ASYNC_COPY_BYTES:
            raise VerifyException(
                f"'simt.shared_load_vector' reads 2 to 16 elements, at most 16 bytes, got {w} "
                f"of {t.get_element_type()}"
            )
        if len(self.res) != w or any(r.type != t.get_element_type() for r in self.res):
            raise VerifyException(
                f"'simt.shared_load_vector' with width {w} has {w} results of "
                f"{t.get_element_type()}"
            )
        check_rank(self, self.array, [self.offset])


PIPELINE_OPS = (
    SharedLoadVectorOp,
    AsyncCopyOp,
    UncheckedAsyncCopyOp,
    AsyncCommitOp,
    AsyncWaitOp,
    LdMatrixOp,
)
PIPELINE_ACCESS_OPS = (SharedLoadVectorOp, AsyncCopyOp, UncheckedAsyncCopyOp, LdMatrixOp)
"""The pipeline ops that touch a shared array (unsafe: the verifier keeps them in unsafe code)."""
