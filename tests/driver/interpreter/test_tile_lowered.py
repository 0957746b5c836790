"""Tile kernels on the CPU run their `convert-tile-to-simt` lowering on the SIMT engine, as the
GPU runs them; the whole-tile interpreter is the reference they are compared with."""

from __future__ import annotations

import numpy as np
import pytest

import ferrox
from ferrox.driver.interpreter import tile_lowered
from ferrox.driver.interpreter.tile_kernel import run_tile_kernel
from ferrox.driver.interpreter.tile_lowered import run_lowered_tile_kernel

ROW_SUM = """builtin.module {
  tile.kernel @rows(%out: !tile.partition<f32, [16]>, %x: !tile.tensor<f32, [?, ?]>) {
    %c0 = arith.constant 0 : index
    %i = tile.block_id 0
    %t = tile.load %x[%i, %c0] : !tile.tensor<f32, [?, ?]> -> !tile.tile<f32, [16, 64]>
    %s = tile.reduce_sum %t axis = 1 : !tile.tile<f32, [16, 64]> -> !tile.tile<f32, [16]>
    tile.store %s, %out : !tile.tile<f32, [16]>, !tile.partition<f32, [16]>
    tile.return
  }
}
"""


@pytest.mark.parametrize("rows", [16, 37, 100])
def test_lowered_row_sum_matches_the_whole_tile_reference(rng, rows):
    from ferrox.parser import parse_module
    from ferrox.registry import make_context

    module = parse_module(make_context(), ROW_SUM, "rows.mlir")
    x = rng.standard_normal((rows, 64), dtype=np.float32)
    got, want = np.full(rows, np.nan, np.float32), np.full(rows, np.nan, np.float32)
    run_lowered_tile_kernel(module, "rows", [got, x])
    run_tile_kernel(module, "rows", [want, x])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, x.sum(axis=1, dtype=np.float64), rtol=1e-4, atol=1e-4)
    assert module in tile_lowered._LOWERED  # lowered once, kept for the next launch


def test_the_cpu_device_runs_the_lowered_kernel(rng, monkeypatch):
    calls = []

    def spy(module, kernel, args):
        calls.append(kernel)
        run_lowered_tile_kernel(module, kernel, args)
        calls.append(module in tile_lowered._LOWERED)

    monkeypatch.setattr(tile_lowered, "run_lowered_tile_kernel", spy)
    mod = ferrox.load(ROW_SUM, device="cpu")
    x = rng.standard_normal((40, 64), dtype=np.float32)
    out = np.full(40, np.nan, np.float32)
    mod["rows"](out, x)
    np.testing.assert_allclose(out, x.sum(axis=1, dtype=np.float64), rtol=1e-4, atol=1e-4)
    assert calls == ["rows", True]
