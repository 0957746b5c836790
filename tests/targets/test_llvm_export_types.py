"""bf16 and vector types in the LLVM export: the `bfloat` type, its constants, intrinsic mangling.

LLVM's IR reader quietly renames an intrinsic whose name is mangled wrongly (or not at all), so
a verified module proves nothing about the name: these tests compare the exported name with the
name LLVM gives the declaration after reading it back.
"""

from __future__ import annotations

import math
import random
import struct

import llvmlite.binding as llvm_binding
import pytest
from llvmlite import ir
from xdsl.backend.llvm.convert_op import _BINARY_INTRINSIC_MAP, _UNARY_INTRINSIC_MAP
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    VectorType,
    bf16,
    f16,
    f32,
    f64,
    i32,
)

from ferrox.diagnostics import DiagnosticError
from ferrox.dialects.llvm import INTRINSIC_OPS
from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.llvm_export import BFloatType, bf16_bits, intrinsic_suffix, to_llvm_ir
from ferrox.targets.ptx import PTXError, module_to_ptx


def _export(source: str) -> str:
    return to_llvm_ir(parse_module(make_context(), source, "t.mlir"))


def _declared_by_llvm(text: str) -> set[str]:
    """The function names LLVM itself gives the module's declarations, after verifying it."""
    module = llvm_binding.parse_assembly(text)
    module.verify()
    return {f.name for f in module.functions if f.is_declaration}


# --- the bfloat type and its constants ---------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "bits"),
    [
        (1.0, 0x3F80),
        (-2.5, 0xC020),
        (0.0, 0x0000),
        (-0.0, 0x8000),
        (1.1, 0x3F8D),  # 0x3F8CCCCD as f32: above the tie, rounds up
        (1.00390625, 0x3F80),  # exact tie, to the even neighbour (down)
        (1.01171875, 0x3F82),  # exact tie, to the even neighbour (up)
        (3.3895313892515355e38, 0x7F7F),  # the largest finite bf16
        (3.4e38, 0x7F80),  # past the largest finite + half an ulp: infinity
        (math.inf, 0x7F80),
        (-math.inf, 0xFF80),
        (math.nan, 0x7FC0),
        (2.0**-126, 0x0080),  # the smallest normal
        (2.0**-133, 0x0001),  # the smallest subnormal
        (2.0**-134, 0x0000),  # half of it: a tie, to even (zero)
        (3 * 2.0**-134, 0x0002),  # one and a half: a tie, to even (two)
    ],
)
def test_bf16_constants_round_to_nearest_even(value: float, bits: int):
    assert bf16_bits(value) == bits
    assert BFloatType().format_constant(value) == f"0xR{bits:04X}"


def test_bf16_rounding_of_every_kind_of_f32_agrees_with_integer_rounding():
    """For an f32 input, rounding its upper half by the dropped lower half is exact (no double
    rounding), so it checks `bf16_bits` independently, subnormals and overflow included."""
    rng = random.Random(7)
    patterns = [rng.getrandbits(32) for _ in range(20000)] + [
        0x7F7F8000,
        0x7F7F7FFF,
        0x00008000,
        0x00018000,
    ]
    for f32_bits in patterns:
        if (f32_bits >> 23) & 0xFF == 0xFF:
            continue  # inf and NaN are in the table above
        upper, dropped = f32_bits >> 16, f32_bits & 0xFFFF
        expected = upper + (dropped > 0x8000 or (dropped == 0x8000 and upper & 1))
        value = struct.unpack("<f", struct.pack("<I", f32_bits))[0]
        assert bf16_bits(value) == expected, hex(f32_bits)


def test_bfloat_is_one_type_that_prints_as_llvm_spells_it():
    assert str(BFloatType()) == "bfloat"
    assert BFloatType() == BFloatType() and hash(BFloatType()) == hash(BFloatType())
    assert BFloatType() != ir.HalfType()
    assert str(ir.Constant(BFloatType(), None)) == "bfloat 0xR0000"
    assert str(ir.Constant(ir.VectorType(BFloatType(), 2), [1.0, -1.0])) == (
        "<2 x bfloat> <bfloat 0xR3F80, bfloat 0xRBF80>"
    )


@pytest.mark.parametrize(
    ("attr", "text"),
    [
        (bf16, "bfloat"),
        (VectorType(bf16, [2]), "<2 x bfloat>"),
        (VectorType(bf16, [8]), "<8 x bfloat>"),
        (llvm.LLVMStructType.from_type_list([bf16, f32]), "{bfloat, float}"),
        (llvm.LLVMArrayType(64, bf16), "[64 x bfloat]"),
    ],
)
def test_xdsl_convert_type_knows_bf16(attr, text: str):
    assert isinstance(convert_type(BFloat16Type()), BFloatType)
    assert str(convert_type(attr)) == text


def test_llvm_reads_the_constants_back():
    text = _export(
        """
llvm.func @k(%p: !llvm.ptr<1>) {
  %a = llvm.mlir.constant(1.1 : bf16) : bf16
  %v = llvm.mlir.constant(dense<[0.5, -3.0]> : vector<2xbf16>) : vector<2xbf16>
  llvm.store %a, %p : bf16, !llvm.ptr<1>
  llvm.store %v, %p : vector<2xbf16>, !llvm.ptr<1>
  llvm.return
}
"""
    )
    assert "store bfloat 0xR3F8D" in text
    assert "store <2 x bfloat> <bfloat 0xR3F00, bfloat 0xRC040>" in text
    printed = str(llvm_binding.parse_assembly(text))
    assert "store bfloat 0xR3F8D" in printed
    assert "<bfloat 0xR3F00, bfloat 0xRC040>" in printed


# --- mangling ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typ", "suffix"),
    [
        (ir.IntType(32), "i32"),
        (ir.IntType(1), "i1"),
        (ir.HalfType(), "f16"),
        (BFloatType(), "bf16"),
        (ir.FloatType(), "f32"),
        (ir.DoubleType(), "f64"),
        (ir.VectorType(ir.FloatType(), 4), "v4f32"),
        (ir.VectorType(BFloatType(), 2), "v2bf16"),
        (ir.VectorType(ir.IntType(32), 4), "v4i32"),
        (ir.PointerType(addrspace=1), "p1"),
        (ir.PointerType(), "p0"),
    ],
)
def test_intrinsic_suffix(typ: ir.Type, suffix: str):
    assert intrinsic_suffix(typ) == suffix


def test_intrinsic_suffix_rejects_what_llvm_does_not_overload_on():
    with pytest.raises(TypeError, match="no intrinsic name mangling for type"):
        intrinsic_suffix(ir.LiteralStructType([ir.FloatType()]))


_INTEGER_INTRINSICS = {
    "llvm.smax", "llvm.smin", "llvm.umax", "llvm.umin", "llvm.fshl", "llvm.fshr", "llvm.ctpop",
    "llvm.bitreverse", "llvm.bswap", "llvm.ctlz", "llvm.cttz", "llvm.abs",
}  # fmt: skip
"""The integer ones; every other intrinsic op takes floats."""

_XDSL_OPS = {**_UNARY_INTRINSIC_MAP, **_BINARY_INTRINSIC_MAP, llvm.FMAOp: "llvm.fma"}
_FLOAT_TYPES = [
    (VectorType(f32, [4]), "v4f32"),
    (VectorType(bf16, [2]), "v2bf16"),
    (VectorType(f64, [2]), "v2f64"),
    (VectorType(f16, [2]), "v2f16"),
    (bf16, "bf16"),
]
_INT_TYPES = [(VectorType(i32, [4]), "v4i32"), (i32, "i32")]
_CASES = [
    pytest.param(cls, intrinsic, typ, suffix, id=f"{cls.name}-{typ}")
    for cls, intrinsic in [*_XDSL_OPS.items(), *((cls, cls.INTRINSIC) for cls in INTRINSIC_OPS)]
    for typ, suffix in (_INT_TYPES if intrinsic in _INTEGER_INTRINSICS else _FLOAT_TYPES)
]


@pytest.mark.parametrize(("cls", "intrinsic", "typ", "suffix"), _CASES)
def test_every_intrinsic_op_is_mangled_with_its_type(cls: type, intrinsic: str, typ, suffix: str):
    """Every intrinsic op the exporter handles, on vectors and on bf16, named as LLVM names it."""
    arity = len(cls.get_irdl_definition().operands)
    props = ", ".join(f"{name} = false" for name in getattr(cls, "IMMEDIATES", ()))
    operands = ", ".join(["%x"] * arity)
    properties = "<{" + props + "}>" if props else ""
    types = ", ".join([str(typ)] * arity)
    source = f"""
llvm.func @f(%x: {typ}) -> {typ} {{
  %r = "{cls.name}"({operands}) {properties} : ({types}) -> {typ}
  llvm.return %r : {typ}
}}
"""
    text = _export(source)
    expected = f"{intrinsic}.{suffix}"
    assert f'@"{expected}"(' in text
    assert expected in _declared_by_llvm(text)


@pytest.mark.parametrize("elem", [f32, bf16])
@pytest.mark.parametrize("op", ["fadd", "fmul"])
def test_vector_reductions_are_mangled_with_the_vector_type(op: str, elem):
    lanes = 4 if elem == f32 else 8
    vec = VectorType(elem, [lanes])
    text = _export(
        f"""
llvm.func @f(%s: {elem}, %v: {vec}) -> {elem} {{
  %r = "llvm.intr.vector.reduce.{op}"(%s, %v) <{{fastmathFlags = #llvm.fastmath<reassoc>}}>
      : ({elem}, {vec}) -> {elem}
  llvm.return %r : {elem}
}}
"""
    )
    name = f"llvm.vector.reduce.{op}.v{lanes}{'f32' if elem == f32 else 'bf16'}"
    assert f'call reassoc {convert_type(elem)} @"{name}"(' in text  # xDSL dropped the flag
    assert name in _declared_by_llvm(text)


@pytest.mark.parametrize("space", [0, 1, 3])
def test_masked_store_is_mangled_with_value_and_pointer(space: int):
    text = _export(
        f"""
llvm.func @f(%v: vector<4xf32>, %p: !llvm.ptr<{space}>, %m: vector<4xi1>) {{
  "llvm.intr.masked.store"(%v, %p, %m) <{{alignment = 16 : i32}}>
      : (vector<4xf32>, !llvm.ptr<{space}>, vector<4xi1>) -> ()
  llvm.return
}}
"""
    )
    name = f"llvm.masked.store.v4f32.p{space}"
    assert f'call void @"{name}"(' in text
    assert name in _declared_by_llvm(text)


def test_fma_keeps_its_fast_math_flags():
    """xDSL's exporter refuses an `llvm.intr.fma` with fast-math flags; this one keeps them."""
    text = _export(
        """
llvm.func @f(%x: vector<4xf32>) -> vector<4xf32> {
  %r = llvm.intr.fma(%x, %x, %x) {fastmathFlags = #llvm.fastmath<contract>}
      : (vector<4xf32>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
  llvm.return %r : vector<4xf32>
}
"""
    )
    assert 'call contract <4 x float> @"llvm.fma.v4f32"(' in text


def test_one_name_two_types_is_a_located_error():
    """A mangled name fixes the type: a call_intrinsic that reuses it with another is an error."""
    source = """
llvm.func @f(%x: vector<4xf32>, %y: f32) {
  %a = llvm.intr.floor(%x) : (vector<4xf32>) -> vector<4xf32>
  %b = llvm.call_intrinsic "llvm.floor.v4f32"(%y) : (f32) -> f32
  llvm.return
}
"""
    with pytest.raises(DiagnosticError) as caught:
        _export(source)
    (diagnostic,) = caught.value.diagnostics
    assert diagnostic.loc.line == 4
    message = "'llvm.floor.v4f32' is used with type float (float) here but was declared with"
    assert message in diagnostic.message


# --- mma.sync bf16 -------------------------------------------------------------------------------

_MMA = """
llvm.func @mma(%a: {reg}, %d: !llvm.ptr<1>) attributes {{nvvm.kernel}} {{
  %c = llvm.mlir.constant(0.0 : f32) : f32
  %r = llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"(
      %a, %a, %a, %a, %a, %a, %c, %c, %c, %c)
      : ({regs}, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  %d0 = llvm.extractvalue %r[0] : !llvm.struct<(f32, f32, f32, f32)>
  llvm.store %d0, %d : f32, !llvm.ptr<1>
  llvm.return
}}
"""


def _mma(reg: str) -> str:
    return _MMA.format(reg=reg, regs=", ".join([reg] * 6))


def test_mma_bf16_takes_packed_pairs_in_i32_registers():
    ptx = module_to_ptx(parse_module(make_context(), _mma("i32"), "mma.mlir"), "sm_90")
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx


def test_mma_bf16_rejects_bfloat_vectors():
    """Unlike f16's `<2 x half>`, LLVM 22 does not take `<2 x bfloat>` for bf16 mma operands."""
    with pytest.raises(PTXError, match="Intrinsic has incorrect argument type"):
        module_to_ptx(parse_module(make_context(), _mma("vector<2xbf16>"), "mma.mlir"), "sm_90")


def test_bf16_pair_packs_into_the_register_low_lane_first():
    text = _export(
        """
llvm.func @f(%v: vector<2xbf16>) -> i32 {
  %r = llvm.bitcast %v : vector<2xbf16> to i32
  llvm.return %r : i32
}
"""
    )
    assert 'bitcast <2 x bfloat> %"v" to i32' in text
    _declared_by_llvm(text)
