"""The tile GEMM benchmark's kernels (benchmarks/tile_wgmma.py): the example's kernel with other
tiles and element types, and with C in the inputs' 16-bit type (`--outs 16`)."""

from __future__ import annotations

import pytest

from benchmarks import tile_wgmma
from ferrox.parser import parse_module
from ferrox.registry import make_context


def test_the_example_kernel_unchanged_by_default():
    text = tile_wgmma.EXAMPLE.read_text().split("func.func @main", 1)[0].rstrip() + "\n}\n"
    assert tile_wgmma.kernel_text(128, 256, 64) == text


@pytest.mark.parametrize("element", ["bf16", "f16"])
def test_a_16_bit_c_is_the_sums_rounded_once(element):
    text = tile_wgmma.kernel_text(128, 128, 64, element, out16=True)
    parse_module(make_context(), text, "mm.mlir")  # verifies
    assert f"%c: !tile.partition<{element}, [128, 128]>" in text
    assert (
        f"tile.astype %acc : !tile.tile<f32, [128, 128]> -> !tile.tile<{element}, [128, 128]>"
        in text
    )
    assert "!tile.partition<f32" not in text


def test_outputs_parse():
    assert tile_wgmma._outs(("f32", "16")) == [False, True]
    with pytest.raises(ValueError, match="f32 or 16"):
        tile_wgmma._outs(("bf16",))
