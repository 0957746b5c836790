"""The kernel ABI: the launcher's argument kinds, the PTX parameters each becomes, and the
attributes that tell LLVM what SIMT guarantees."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    IndexType,
    IntegerType,
    UnitAttr,
    VectorType,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
)

from ferrox.dialects.simt.types import (
    AtomicSliceType,
    DisjointSliceType,
    IndexSpaceAttr,
    PtrType,
    SharedArrayType,
    SliceType,
    ThreadIndexType,
)
from ferrox.lowering.simt_to_nvvm import abi
from ferrox.lowering.simt_to_nvvm.types import GLOBAL_PTR, SimtTypeError

ONE_D = IndexSpaceAttr.one_d()


def test_signature_kinds():
    types = [
        SliceType(f32),
        DisjointSliceType(f64, ONE_D),
        AtomicSliceType(i32),
        PtrType(f32),
        IndexType(),
        f32,
        f64,
        i32,
        i64,
    ]
    assert abi.signature(types) == [
        "slice:f32",
        "slice:f64",
        "slice:i32",
        "ptr",
        "index",
        "f32",
        "f64",
        "i32",
        "i64",
    ]


@pytest.mark.parametrize(
    ("element", "kind"),
    [(i1, "bool"), (i8, "i8"), (i16, "i16"), (i32, "i32"), (i64, "i64"),
     (Float16Type(), "f16"), (BFloat16Type(), "bf16"), (f32, "f32"), (f64, "f64")],
)  # fmt: skip
def test_slice_element_kinds(element, kind):
    assert abi.kind(SliceType(element)) == f"slice:{kind}"


def test_index_elements_are_64_bit_integers():
    assert abi.kind(SliceType(IndexType())) == "slice:i64"
    assert abi.param(SliceType(IndexType())).attrs[0]["llvm.align"].value.data == 8


def test_slice_parameters():
    shared = abi.param(SliceType(f32))
    assert shared.types == (GLOBAL_PTR, i64)
    assert set(shared.attrs[0]) == {"llvm.noalias", "llvm.readonly", "llvm.align"}
    assert shared.attrs[0]["llvm.noalias"] == UnitAttr()
    assert shared.attrs[0]["llvm.align"].value.data == 4
    assert shared.attrs[1] == {}

    disjoint = abi.param(DisjointSliceType(f64, ONE_D))
    assert set(disjoint.attrs[0]) == {"llvm.noalias", "llvm.align"}
    assert disjoint.attrs[0]["llvm.align"].value.data == 8

    atomic = abi.param(AtomicSliceType(i32))
    assert set(atomic.attrs[0]) == {"llvm.align"}, (
        "every thread updates an atomic slice: no aliasing claim"
    )

    assert abi.param(PtrType(f32)) == abi.Param((GLOBAL_PTR,), ({},))
    assert abi.param(IndexType()) == abi.Param((IndexType(),), ({},))


@pytest.mark.parametrize(
    ("t", "message"),
    [
        (i1, "a kernel parameter of type i1 cannot be passed by the launcher"),
        (i16, "a kernel parameter of type i16 cannot be passed by the launcher"),
        (SliceType(IntegerType(128)), "slices of i128 cannot be passed to a kernel"),
        (SliceType(VectorType(f32, [4])), "slices of vector<4xf32> cannot be passed to a kernel"),
        (ThreadIndexType(ONE_D), "a witness is never passed on"),
        (SharedArrayType(f32, [4]), "shared memory is a global of the kernel, never a parameter"),
    ],
)
def test_types_without_a_kernel_abi(t, message):
    with pytest.raises(SimtTypeError, match=message):
        abi.kind(t)


def test_signature_attribute_round_trip():
    kinds = ["slice:f32", "index"]
    assert abi.read_signature(abi.signature_attr(kinds)) == kinds
    assert abi.read_signature(None) is None
