"""The type conversion every convert-to-llvm pattern shares."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    IndexType,
    IntAttr,
    IntegerAttr,
    MemRefType,
    TensorType,
    VectorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.dialects.llvm import LLVMPointerType, LLVMStructType

from ferrox import registry
from ferrox.lowering.to_llvm import ConvertToLLVMPass, convert_type
from ferrox.lowering.to_llvm.types import TypeConversionError, is_legal


@pytest.mark.parametrize("t", [i1, i8, i32, i64, f16, bf16, f32, f64, VectorType(f32, [4])])
def test_integers_floats_and_vectors_stay(t) -> None:
    assert convert_type(t) == t
    assert is_legal(t)


def test_index_is_i64() -> None:
    assert convert_type(IndexType()) == i64
    assert convert_type(VectorType(IndexType(), [2])) == VectorType(i64, [2])
    assert not is_legal(IndexType())


def test_static_memref_is_a_pointer_in_its_address_space() -> None:
    assert convert_type(MemRefType(f32, [4, 8])) == LLVMPointerType()
    shared = MemRefType(f32, [32], memory_space=IntegerAttr(3, 64))
    assert convert_type(shared) == LLVMPointerType(IntAttr(3))


def test_llvm_types_stay() -> None:
    struct = LLVMStructType.from_type_list([i32, f32])
    assert convert_type(struct) == struct
    assert convert_type(LLVMPointerType(IntAttr(1))) == LLVMPointerType(IntAttr(1))


@pytest.mark.parametrize(
    ("t", "message"),
    [
        (MemRefType(f32, [-1]), "only statically shaped memrefs"),
        (TensorType(f32, [4]), "has no llvm equivalent"),
    ],
)
def test_what_has_no_llvm_form_is_an_error(t, message) -> None:
    with pytest.raises(TypeConversionError, match=message):
        convert_type(t)


def test_the_registry_finds_the_pass() -> None:
    assert registry.all_passes()["convert-to-llvm"]() is ConvertToLLVMPass
    assert ConvertToLLVMPass.name == "convert-to-llvm"
