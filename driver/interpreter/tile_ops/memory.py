"""Global memory (dialects/tile/memory.py): `dim`, `load`, `load_like`, `store`.

A tensor argument is a read-only ndarray, a partition argument the whole writable output array.
Tile element `e` of the tile at index `b` is tensor element `b * T + e`, computed in Python
integers (no overflow, negative indices allowed); a load pads what lies outside the tensor, a
store drops it (docs/dialects/tile.md, "Ragged edges").
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.interpreter import InterpreterFunctions, PythonValues, impl, register_impls

from ferrox.dialects import tile
from ferrox.dialects.tile.attributes import Padding
from ferrox.driver.interpreter.tile_ops.dtypes import as_tile, padding_value, tile_dtype
from ferrox.driver.interpreter.tile_ops.machine import TileInterpreter


def clipped(index: Sequence[int], tile_shape: Sequence[int], shape: Sequence[int]):
    """`(tensor slices, tile slices)` of the in-bounds part of tile `index`, or None if empty."""
    outer, inner = [], []
    for b, t, s in zip(index, tile_shape, shape):
        start = b * t
        lo, hi = max(start, 0), min(start + t, s)
        if lo >= hi:
            return None
        outer.append(slice(lo, hi))
        inner.append(slice(lo - start, hi - start))
    return tuple(outer), tuple(inner)


def load_tile(
    array: np.ndarray, index: Sequence[int], result: tile.TileType, padding: Padding
) -> np.ndarray:
    shape = result.get_shape()
    element = result.element_type
    out = np.full(shape, padding_value(padding, element), dtype=tile_dtype(element))
    parts = clipped(index, shape, array.shape)
    if parts is not None:
        outer, inner = parts
        out[inner] = as_tile(array[outer], element)
    return out


def _padding(op: tile.LoadOp | tile.LoadLikeOp) -> Padding:
    return op.padding.data


@register_impls
class TileMemoryFunctions(InterpreterFunctions):
    @impl(tile.DimOp)
    def run_dim(self, interp: TileInterpreter, op: tile.DimOp, args: PythonValues):
        return (int(args[0].shape[op.axis.value.data]),)

    @impl(tile.LoadOp)
    def run_load(self, interp: TileInterpreter, op: tile.LoadOp, args: PythonValues):
        array, *index = args
        result = op.result.type
        assert isinstance(result, tile.TileType)
        return (load_tile(array, index, result, _padding(op)),)

    @impl(tile.LoadLikeOp)
    def run_load_like(self, interp: TileInterpreter, op: tile.LoadLikeOp, args: PythonValues):
        result = op.result.type
        assert isinstance(result, tile.TileType)
        return (load_tile(args[0], interp.tile_block, result, _padding(op)),)

    @impl(tile.StoreOp)
    def run_store(self, interp: TileInterpreter, op: tile.StoreOp, args: PythonValues):
        value, dest = args
        parts = clipped(interp.tile_block, value.shape, dest.shape)
        if parts is not None:
            outer, inner = parts
            dest[outer] = value[inner]
        return ()
