"""Wide literal structs (a wgmma's accumulators) exported as named types, the PTX unchanged.

Each `extractvalue` spells its aggregate's type; for the bf16 GEMM's 128-float struct that was
2.5 MB of its 2.9 MB of LLVM IR, most of LLVM's parse. A named type says the same in a few
characters; these tests hold that the name is used everywhere the struct is, that narrow
structs stay literal, that nothing outlives one export, and that the PTX is what the literal
spelling gives.
"""

from __future__ import annotations

import re
import threading

from llvmlite import ir
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr, TupleType, f32

from ferrox.parser import parse_module
from ferrox.registry import make_context
from ferrox.targets.llvm_export import NVPTX_TRIPLE, host_triple, to_llvm_ir
from ferrox.targets.llvm_export.types import WIDE_STRUCT, wide_structs_named
from ferrox.targets.ptx import compile_ptx


def _struct(n: int) -> str:
    return f"!llvm.struct<({', '.join(['f32'] * n)})>"


def _asm(name: str, n: int) -> str:
    """`n` outputs, each a copy of the input, in one inline asm."""
    body = " ".join(f"mov.b32 ${i}, ${n};" for i in range(n))
    constraints = ",".join(["=f"] * n + ["f"])
    return f'%{name} = llvm.inline_asm "{body}", "{constraints}" %x : (f32) -> {_struct(n)}'


SOURCE = f"""
llvm.func internal @wide(%x: f32) -> {_struct(WIDE_STRUCT)} {{
  {_asm("w", WIDE_STRUCT)}
  llvm.return %w : {_struct(WIDE_STRUCT)}
}}
llvm.func @k(%p: !llvm.ptr<1>, %x: f32) attributes {{nvvm.kernel}} {{
  %r = llvm.call @wide(%x) : (f32) -> {_struct(WIDE_STRUCT)}
  %a = llvm.extractvalue %r[0] : {_struct(WIDE_STRUCT)}
  %b = llvm.extractvalue %r[{WIDE_STRUCT - 1}] : {_struct(WIDE_STRUCT)}
  {_asm("t", WIDE_STRUCT + 1)}
  %c = llvm.extractvalue %t[{WIDE_STRUCT}] : {_struct(WIDE_STRUCT + 1)}
  {_asm("n", 4)}
  %d = llvm.extractvalue %n[3] : {_struct(4)}
  %ab = llvm.fadd %a, %b : f32
  %cd = llvm.fadd %c, %d : f32
  %s = llvm.fadd %ab, %cd : f32
  llvm.store %s, %p : f32, !llvm.ptr<1>
  llvm.return
}}
"""


def _export(default_triple: str = NVPTX_TRIPLE) -> str:
    return to_llvm_ir(parse_module(make_context(), SOURCE, "t.mlir"), default_triple)


def _literal(text: str) -> str:
    """`text` with each named type spelt out where it is used, its definition dropped."""
    bodies = dict(re.findall(r'^(%"ferrox\.struct\.\d+") = type (\{.*\})$', text, re.M))
    text = re.sub(r'^%"ferrox\.struct\.\d+" = type .*\n', "", text, flags=re.M)
    for name, body in bodies.items():
        text = text.replace(name, body)
    return text


def test_a_wide_struct_is_one_named_type_everywhere_it_is_used():
    text = _export()
    wide = "{" + ", ".join(["float"] * WIDE_STRUCT) + "}"
    wider = "{" + ", ".join(["float"] * (WIDE_STRUCT + 1)) + "}"
    assert f'%"ferrox.struct.0" = type {wide}' in text
    assert f'%"ferrox.struct.1" = type {wider}' in text
    assert text.count(wide) == 1 and text.count(wider) == 1  # the definitions alone
    assert 'define internal %"ferrox.struct.0" @"wide"(float %"x")' in text
    assert 'call %"ferrox.struct.0" @"wide"(float %"x")' in text
    assert 'extractvalue %"ferrox.struct.0" %"r", 0' in text
    assert 'extractvalue %"ferrox.struct.1" %"t", 16' in text
    # a narrow struct stays literal
    assert 'extractvalue {float, float, float, float} %"n", 3' in text


def test_each_export_names_its_own_types():
    first, second = _export(), _export()
    assert first == second
    assert '"ferrox.struct.2"' not in second


def test_an_export_for_another_target_keeps_the_literal_structs_xdsl_prints():
    text = _export(host_triple())
    wide = "{" + ", ".join(["float"] * WIDE_STRUCT) + "}"
    assert "ferrox.struct" not in text
    assert f'extractvalue {wide} %"r", 0' in text


def test_the_ptx_is_what_the_literal_spelling_gives():
    text = _export()
    literal = _literal(text)
    assert "ferrox.struct" not in literal and literal != text
    assert compile_ptx(text) == compile_ptx(literal)


def test_outside_an_export_a_wide_struct_converts_as_xdsl_does():
    wide = llvm.LLVMStructType.from_type_list([f32] * WIDE_STRUCT)
    assert convert_type(wide) == ir.LiteralStructType([ir.FloatType()] * WIDE_STRUCT)
    with wide_structs_named(ir.Context()):
        assert isinstance(convert_type(wide), ir.IdentifiedStructType)
        seen = []
        other = threading.Thread(target=lambda: seen.append(convert_type(wide)))
        other.start()
        other.join()
        assert isinstance(seen[0], ir.LiteralStructType)  # another thread's export is its own
    assert isinstance(convert_type(wide), ir.LiteralStructType)


def test_xdsl_types_of_one_llvm_type_get_one_name():
    """xDSL converts `!llvm.ptr` and `!llvm.ptr<0>`, a struct it names and one it does not, a
    tuple and a struct, to the same LLVM literal type: so they get the same name."""
    same = [
        llvm.LLVMStructType.from_type_list([llvm.LLVMPointerType()] * WIDE_STRUCT),
        llvm.LLVMStructType.from_type_list([llvm.LLVMPointerType(IntAttr(0))] * WIDE_STRUCT),
        llvm.LLVMStructType.new([StringAttr("s"), ArrayAttr([llvm.LLVMPointerType()] * 16)]),
        TupleType([llvm.LLVMPointerType()] * WIDE_STRUCT),
    ]
    with wide_structs_named(ir.Context()):
        named = [convert_type(t) for t in same]
        assert isinstance(named[0], ir.IdentifiedStructType)
        assert all(n is named[0] for n in named)
    assert {str(convert_type(t)) for t in same} == {
        str(ir.LiteralStructType([ir.PointerType()] * 16))
    }


def _wide(member: str, name: str = "") -> str:
    spelt = f'"{name}", ' if name else ""
    return f"!llvm.struct<{spelt}({', '.join([member] * WIDE_STRUCT)})>"


def test_a_call_whose_argument_type_xdsl_spells_otherwise_still_exports():
    """A value passed to a function whose parameter has the same LLVM type, spelt differently in
    xDSL (its verifier accepts it; so does LLVM, for literal structs): one named type."""
    source = f"""
    llvm.func @ext(%s: {_wide("!llvm.ptr")}, %t: {_wide("f32", "acc")}) -> f32
    llvm.func @k(%p: !llvm.ptr<1>) attributes {{nvvm.kernel}} {{
      %u = llvm.mlir.undef : {_wide("!llvm.ptr<0>")}
      %v = llvm.mlir.undef : {_wide("f32")}
      %r = llvm.call @ext(%u, %v) : ({_wide("!llvm.ptr<0>")}, {_wide("f32")}) -> f32
      llvm.store %r, %p : f32, !llvm.ptr<1>
      llvm.return
    }}
    """
    module = parse_module(make_context(), source, "t.mlir")
    module.verify()
    text = to_llvm_ir(module)
    assert 'call float @"ext"(%"ferrox.struct.0" undef, %"ferrox.struct.1" undef)' in text
    # (LLVM numbers each call's `// callseq N` comment on, one count for every compile of the
    # process's NVPTX target machine)
    ptx, literal = (
        re.sub(r"callseq \d+", "callseq", compile_ptx(t)) for t in (text, _literal(text))
    )
    assert ptx == literal
