"""A hex element of a dense float literal is the element's bits, as in MLIR (and as xDSL prints
non-finite floats), so -inf, inf and NaN survive printing and parsing again. xDSL 0.74 read
`dense<0xff800000> : tensor<2xf32>` as 4286578688.0: a tile kernel with a -inf constant ran with
that value instead (found by the attention example)."""

from __future__ import annotations

import math

import pytest

from ferrox.diagnostics import DiagnosticError
from ferrox.parser import parse_source
from ferrox.registry import make_context


def dense(literal: str, type_: str):
    text = f'builtin.module {{\n  "test.op"() {{v = dense<{literal}> : {type_}}} : () -> ()\n}}\n'
    module = parse_source(make_context(), text, "t.mlir")
    return next(iter(module.ops)).attributes["v"], module


@pytest.mark.parametrize(
    "literal, type_, expected",
    [
        ("0xff800000", "tensor<2xf32>", [-math.inf, -math.inf]),
        ("[0x7F800000, 1.5]", "tensor<2xf32>", [math.inf, 1.5]),
        ("0x3F800000", "tensor<f32>", [1.0]),
        ("0xFC00", "tensor<f16>", [-math.inf]),
        ("0xFF80", "tensor<2xbf16>", [-math.inf, -math.inf]),
        ("0xBFF0000000000000", "tensor<f64>", [-1.0]),
        ("0x10", "tensor<2xi32>", [16, 16]),  # integers keep their value
    ],
)
def test_hex_elements_are_bits(literal, type_, expected):
    attr, _ = dense(literal, type_)
    assert list(attr.get_values()) == expected


def test_nan_bits():
    attr, _ = dense("0x7FC00000", "tensor<f32>")
    assert [math.isnan(v) for v in attr.get_values()] == [True]


def test_non_finite_dense_round_trips():
    _, module = dense("[0xff800000, 0x7f800000, 2.0]", "tensor<3xf32>")
    again = parse_source(make_context(), str(module), "again.mlir")
    assert list(next(iter(again.ops)).attributes["v"].get_values()) == [-math.inf, math.inf, 2.0]


def test_too_many_bits_is_a_located_error():
    with pytest.raises(DiagnosticError) as e:
        dense("0x1FF800000", "tensor<f32>")
    assert (
        str(e.value)
        == "t.mlir:2:26: error: hex literal 0x1FF800000 has more than the 32 bits of f32"
    )
