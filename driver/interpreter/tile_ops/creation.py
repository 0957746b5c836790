"""Tiles from values: `constant`, `full`, `iota`, and back to a scalar: `extract`.

A constant is decoded from the dense attribute's bytes, not its Python floats, so a bf16 or f16
literal is exactly the value the IR holds.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, IntegerType
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import tile
from ferrox.driver.interpreter.tile_ops.dtypes import (
    F32,
    bf16_dtype,
    is_float_type,
    round_to,
    scalar_of,
    tile_dtype,
)
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


def constant_tile(op: tile.ConstantOp) -> np.ndarray:
    t = op.result.type
    assert isinstance(t, tile.TileType)
    element, shape = t.element_type, t.get_shape()
    raw = op.value.data.data
    if isinstance(element, BFloat16Type):
        bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
        values = bits.view(F32).astype(bf16_dtype())
    elif isinstance(element, IntegerType) and element.width.data == 1:
        values = np.frombuffer(raw, dtype=np.int8) != 0
    else:
        values = np.frombuffer(raw, dtype=tile_dtype(element))
    values = values.reshape(shape).copy()
    values.flags.writeable = False  # shared by every block that runs the op
    return values


@register_impls
class TileCreationFunctions(InterpreterFunctions):
    @impl(tile.ConstantOp)
    def run_constant(self, interp: TileInterpreter, op: tile.ConstantOp, args: PythonValues):
        return (interp.static(op, constant_tile),)

    @impl(tile.FullOp)
    def run_full(self, interp: TileInterpreter, op: tile.FullOp, args: PythonValues):
        t = op.result.type
        assert isinstance(t, tile.TileType)
        return (np.full(t.get_shape(), args[0], dtype=tile_dtype(t.element_type)),)

    @impl(tile.IotaOp)
    def run_iota(self, interp: TileInterpreter, op: tile.IotaOp, args: PythonValues):
        t = op.result.type
        assert isinstance(t, tile.TileType)
        (n,) = t.get_shape()
        if is_float_type(t.element_type):
            return (round_to(t.element_type, np.arange(n, dtype=np.float64)),)
        return (np.arange(n, dtype=tile_dtype(t.element_type)),)

    @impl(tile.ExtractOp)
    def run_extract(self, interp: TileInterpreter, op: tile.ExtractOp, args: PythonValues):
        return (scalar_of(args[0][()], op.input.type.element_type),)  # type: ignore[attr-defined]
