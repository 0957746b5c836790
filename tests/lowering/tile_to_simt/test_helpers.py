"""The shared chunk-op functions (lowering/tile_to_simt/helpers.py) are named apart from every
symbol of the module: a source's own function with a helper's name keeps it, and the helper
takes the next free name, which every masked chunk calls."""

from __future__ import annotations

from ferrox.dialects import simt
from ferrox.lowering.tile_to_simt.convert import convert_tile_to_simt
from ferrox.parser import parse_module
from ferrox.registry import make_context

SOURCE = """
simt.func @__ferrox_load_chunk_slice_f32_x4(%a: f32) -> f32 {
  simt.return %a : f32
}
tile.kernel @add(%z: P, %x: T, %y: T) {
  %a = tile.load_like %x, %z : T, P -> TT
  %b = tile.load_like %y, %z : T, P -> TT
  %s = tile.add %a, %b : TT
  tile.store %s, %z : TT, P
  tile.return
}
"""
TYPES = {
    "TT": "!tile.tile<f32, [1024]>",
    "P": "!tile.partition<f32, [1024]>",
    "T": "!tile.tensor<f32, [?]>",
}


def test_a_helper_is_named_apart_from_the_modules_own_symbols():
    text = SOURCE
    for short, full in TYPES.items():
        text = text.replace(short, full)
    module = parse_module(make_context(), text, "add.mlir")
    convert_tile_to_simt(module)
    funcs = [op for op in module.ops if isinstance(op, simt.FuncOp)]
    assert [f.sym_name.data for f in funcs] == [
        "__ferrox_load_chunk_slice_f32_x4",  # the source's, unchanged
        "__ferrox_load_chunk_slice_f32_x4_1",
    ]
    assert [op.name for op in funcs[0].body.ops] == ["simt.return"]
    assert [op.name for op in funcs[1].body.ops] == ["simt.load_chunk", "simt.return"]
    calls = [op.callee.root_reference.data for op in module.walk() if isinstance(op, simt.CallOp)]
    assert calls == ["__ferrox_load_chunk_slice_f32_x4_1"] * 2
